/*
 * bench-load — load a generated 100,000-op, 150,000-edge graph from JSON:
 * wall time and peak memory (target: <= 1 s and <= 200 MB on 2 cores).
 *
 * The graph is written by this program (a random layered DAG with realistic
 * op fields), then loaded in a fresh process (re-exec of itself) so the
 * peak resident size measures the loader alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "graph.h"
#include "io.h"
#include "rng.h"
#include "clock.h"
#include "xmalloc.h"

/* Write a random DAG of n ops and about m edges. */
static void
write_graph(const char *path, int n, int m)
{
	struct pl_rng r;
	pl_rng_seed(&r, 7);
	struct pl_graph_builder *b = pl_graph_builder_new("bench100k");
	static const char *const types[] = { "MatMul", "Add", "Relu", "Conv2D", "ApplyAdam" };
	for (int v = 0; v < n; v++) {
		struct pl_op op;
		memset(&op, 0, sizeof op);
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		char name[64], scope[64];
		snprintf(name, sizeof name, "layer_%d/op_%d", v / 100, v);
		snprintf(scope, sizeof scope, "enc/l%d/t%d", v / 10000, (v / 100) % 100);
		op.name = name;
		op.scope = scope;
		op.type = (char *)types[v % 5];
		op.flops = (double)(pl_rng_below(&r, 1000000) + 1) * 1000;
		op.param_bytes = (int64_t)(pl_rng_below(&r, 4) == 0 ? pl_rng_below(&r, 1 << 20) : 0);
		op.out_bytes = (int64_t)pl_rng_below(&r, 1 << 22);
		if (v % 7 == 0)
			op.measured_us[PL_DEV_GPU] = (double)pl_rng_below(&r, 1000) / 4;
		pl_graph_add_op(b, &op, v % 3 == 0 ? name : NULL);
	}
	for (int e = 0; e < m; e++) {
		int dst = 1 + (int)pl_rng_below(&r, (uint64_t)n - 1);
		int back = 1 + (int)pl_rng_below(&r, dst < 50 ? (uint64_t)dst : 50);
		int src = dst - back;
		pl_graph_add_edge(b, src, dst, 0, (int64_t)(src % 1000) * 4096);
	}
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL || pl_graph_save_json(g, path, &cause) != 0) {
		fprintf(stderr, "bench-load: %s\n", cause);
		exit(1);
	}
	pl_graph_free(g);
}

/* Child: load the file and report. */
static int
load_only(const char *path)
{
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	double t0 = pl_now_s();
	char *cause = NULL;
	struct pl_graph *g = pl_graph_load_json(path, &cause);
	double t1 = pl_now_s();
	if (g == NULL) {
		fprintf(stderr, "bench-load: %s\n", cause);
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru1);
	printf("load %d ops, %d edges: %.3f s, peak RSS %.1f MB (before load %.1f MB)\n",
	    g->n_ops, g->n_edges, t1 - t0, ru1.ru_maxrss / 1024.0, ru0.ru_maxrss / 1024.0);
	pl_graph_free(g);
	return 0;
}

/* Generate, then measure the load in a fresh process, three times. */
int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "load") == 0)
		return load_only(argv[2]);
	char path[] = "/tmp/placelab-bench-load-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	write_graph(path, 100000, 150000);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	printf("bench-load: %s, %.1f MB of JSON\n", "100,000 ops / 150,000 edges", ftell(f) / 1e6);
	fclose(f);
	for (int i = 0; i < 3; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "load", path, (char *)NULL);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
	}
	unlink(path);
	return 0;
}
