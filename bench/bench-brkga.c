/*
 * bench-brkga — evaluations per second and "BRKGA 5K" wall time on 4-layer
 * NMT and Inception-V3 on k80x4 (1 CPU + 4 K80), at op and layer
 * granularity, with 1 and 2 threads; the share of a generation spent
 * outside the simulator (the GA's own work: sampling, crossover, decoding,
 * sorting, statistics) and allocations per generation after the first.
 *
 * Usage: bench-brkga [EVALS [FILTER]]   (default 5000 evaluations; FILTER
 * keeps the graphs whose label contains it, e.g. "layer").  The graphs come
 * from the generator, which is what samples/ holds.  Timings on a shared machine
 * are noisy; run it twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "gen/gen.h"
#include "placer.h"
#include "placers/brkga.h"
#include "problem.h"
#include "xmalloc.h"

struct job {
	const char *label;
	const char *model;
	int layers;
	enum pl_gen_granularity gran;
};

/* Run BRKGA to its evaluation budget and print one row. */
static double
run_one(const struct job *j, const struct pl_problem *p, long evals, int threads)
{
	struct pl_run_opts run = { .seed = 1, .threads = threads };
	run.sim.kind = PL_SIM_NATIVE;
	run.sim.mem = PL_MEM_NATIVE;
	char spec[64], *cause = NULL;
	snprintf(spec, sizeof spec, "evals=%ld,seconds=0", evals);
	struct pl_placer *pl = pl_placer_new(&pl_placer_brkga, p, spec, &run, &cause);
	if (pl == NULL) {
		fprintf(stderr, "bench-brkga: %s: %s\n", j->label, cause);
		free(cause);
		return 0;
	}
	/* generation 0, then count allocations over the rest */
	pl_placer_step(pl);
	unsigned long a0 = pl_alloc_count();
	int gens0 = pl->n_steps;
	pl_placer_run(pl, 0, 0);
	unsigned long allocs = pl_alloc_count() - a0;
	int gens = pl->n_steps - gens0;
	double sim_s, step_s;
	pl_brkga_times(pl, &sim_s, &step_s);
	double outside = 1 - sim_s / (threads * step_s);
	int n;
	const struct pl_brkga_gen *h = pl_brkga_history(pl, &n);
	printf("%-22s %2d %6ld %8.3f %9.0f %8.1f%% %8.2f %12.1f %s\n",
	    j->label, threads, pl->evals, step_s, (double)pl->evals / step_s,
	    100 * outside, gens > 0 ? (double)allocs / gens : 0,
	    h[n - 1].best_makespan_us / 1000, h[n - 1].best_oom ? "OOM" : "ok");
	pl_placer_free(pl);
	return step_s;
}

int
main(int argc, char **argv)
{
	long evals = argc > 1 ? atol(argv[1]) : 5000;
	const char *filter = argc > 2 ? argv[2] : NULL;
	static const struct job jobs[] = {
		{ "nmt4 (layer)", "nmt", 4, PL_GEN_LAYER },
		{ "inception_v3 (layer)", "inception_v3", 0, PL_GEN_LAYER },
		{ "nmt4 (op)", "nmt", 4, PL_GEN_OP },
		{ "inception_v3 (op)", "inception_v3", 0, PL_GEN_OP },
	};
	struct pl_cluster *c = pl_cluster_preset("k80x4");
	printf("BRKGA %ld evaluations (pop 100, 1 population) on k80x4; "
	    "2 shared cores, timings noisy\n", evals);
	printf("%-22s %2s %6s %8s %9s %9s %8s %12s\n", "graph", "th", "evals",
	    "wall_s", "evals/s", "outside", "allocs/g", "best_ms");
	for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
		const struct job *j = &jobs[i];
		if (filter != NULL && strstr(j->label, filter) == NULL)
			continue;
		struct pl_gen_opts o;
		memset(&o, 0, sizeof o);
		o.granularity = j->gran;
		o.layers = j->layers;
		char *cause = NULL;
		struct pl_graph *g = pl_gen(j->model, &o, NULL, &cause);
		if (g == NULL) {
			fprintf(stderr, "bench-brkga: %s: %s\n", j->label, cause);
			free(cause);
			continue;
		}
		struct pl_problem *p = pl_problem_new(g, c, &cause);
		if (p == NULL) {
			fprintf(stderr, "bench-brkga: %s: %s\n", j->label, cause);
			free(cause);
			pl_graph_free(g);
			continue;
		}
		printf("# %s: %d ops, %d edges, %d groups, %d tensors\n", j->label,
		    g->n_ops, g->n_edges, g->n_groups, g->n_tensors);
		double t1 = run_one(j, p, evals, 1);
		double t2 = run_one(j, p, evals, 2);
		if (t1 > 0 && t2 > 0)
			printf("# %s: 2 threads %.2fx one\n", j->label, t1 / t2);
		pl_problem_free(p);
		pl_graph_free(g);
	}
	pl_cluster_free(c);
	return 0;
}
