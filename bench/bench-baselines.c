/*
 * bench-baselines — wall time of one full run of every baseline placer
 * (search only, best of 3) on the sample graphs, and the step time each
 * finds.  Figures depend on the machine and its load; they are printed,
 * never checked.
 *
 * usage: bench-baselines [GRAPH.json [CLUSTER]]   (default: the samples)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "placer.h"
#include "placers/baselines.h"
#include "problem.h"

static const struct pl_placer_class *const classes[] = {
	&pl_placer_single_cpu, &pl_placer_single_gpu, &pl_placer_expert, &pl_placer_random,
	&pl_placer_scotch, &pl_placer_scotch_mem, &pl_placer_mincut, &pl_placer_heft,
	&pl_placer_mtopo, &pl_placer_metf, NULL,
};

/* Time every baseline on one graph and cluster. */
static int
bench_one(const char *path, const char *cluster)
{
	char *cause = NULL;
	struct pl_graph *g = pl_graph_load_json(path, &cause);
	if (g == NULL) {
		fprintf(stderr, "bench-baselines: %s\n", cause);
		free(cause);
		return 1;
	}
	struct pl_cluster *c = pl_cluster_from_arg(cluster, &cause);
	struct pl_problem *p = c != NULL ? pl_problem_new(g, c, &cause) : NULL;
	if (p == NULL) {
		fprintf(stderr, "bench-baselines: %s\n", cause);
		free(cause);
		pl_cluster_free(c);
		pl_graph_free(g);
		return 1;
	}
	printf("%s (%d ops, %d groups) on %s\n", g->name, g->n_ops, g->n_groups, c->name);
	printf("  %-12s %12s %14s\n", "method", "search (ms)", "step time (ms)");
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 1 };
	for (int i = 0; classes[i] != NULL; i++) {
		double best = INFINITY, ms = NAN;
		for (int rep = 0; rep < 3; rep++) {
			struct pl_placer *pl = pl_placer_new(classes[i], p, NULL, &run, &cause);
			if (pl == NULL) {
				free(cause);
				cause = NULL;
				break;
			}
			pl_placer_run(pl, 0, 0);
			if (pl->search_s < best)
				best = pl->search_s;
			if (pl->best != NULL)
				ms = pl->best_res.makespan_us / 1000;
			pl_placer_free(pl);
		}
		printf("  %-12s %12.2f %14.3f\n", classes[i]->name, best * 1000, ms);
	}
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return 0;
}

/* One graph from the command line, or the samples. */
int
main(int argc, char **argv)
{
	printf("bench-baselines: one full run per method, best of 3 (2 shared cores: noisy)\n");
	if (argc > 1)
		return bench_one(argv[1], argc > 2 ? argv[2] : "k80x4");
	const char *samples[] = { "nmt4.json", "inception_v3.json", "nasnet_a.json", "heft.json", NULL };
	int rc = 0;
	for (int i = 0; samples[i] != NULL; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/samples/%s", PL_BUILDDIR, samples[i]);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			snprintf(path, sizeof path, "%s/samples/%s", PL_SRCDIR, samples[i]);
		else
			fclose(f);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		fclose(f);
		rc |= bench_one(path, strcmp(samples[i], "heft.json") == 0
		    ? PL_SRCDIR "/samples/clusters/heft3.json" : "k80x4");
	}
	return rc;
}
