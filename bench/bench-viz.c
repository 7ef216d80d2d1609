/*
 * bench-viz — time to draw the 8-layer NMT (op granularity, ~73,000 ops)
 * placed by the human expert on k80x4: budgeted coarsening to 200 nodes,
 * the whole export (coarsen, build, auto rank direction, layout, render)
 * to SVG, PNG, PDF and DOT, the uniform-level coarsening for comparison,
 * the timeline SVG, and Inception-V3 placed by Scotch within 60 and 200
 * nodes (clusters spanning every rank: dot's hardest case here).  Each figure is the best and the median of 3 runs, wall
 * time; the machine's 2 cores are shared, so expect noise.
 *
 * The graph is the one `make` generates into the build tree
 * (samples/nmt8-op.json); a path argument overrides it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coarsen.h"
#include "io.h"
#include "placer.h"
#include "problem.h"
#include "sim.h"
#include "viz/export.h"
#include "xmalloc.h"

#define REPS 3

/* Monotonic seconds. */
static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sort doubles. */
static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Print best and median of REPS times. */
static void
report(const char *what, double *t, const char *extra)
{
	qsort(t, REPS, sizeof *t, dcmp);
	printf("  %-38s best %7.3f s  median %7.3f s  %s\n", what, t[0], t[REPS / 2], extra);
}

/* Export once; abort on failure.  Returns the size. */
static size_t
export_once(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o)
{
	char *data = NULL, *cause = NULL;
	size_t len = 0;
	if (plv_export_data(p, pl, t, o, &data, &len, &cause) != 0) {
		fprintf(stderr, "bench-viz: export: %s\n", cause);
		exit(1);
	}
	free(data);
	return len;
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : PL_BUILDDIR "/samples/nmt8-op.json";
	char *cause = NULL;
	double t0 = now_s();
	struct pl_graph *g = pl_graph_load_json(path, &cause);
	if (g == NULL) {
		fprintf(stderr, "bench-viz: %s (run make first to generate the samples)\n", cause);
		return 1;
	}
	double t_load = now_s() - t0;
	struct pl_cluster *c = pl_cluster_preset("k80x4");
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	if (p == NULL) {
		fprintf(stderr, "bench-viz: %s\n", cause);
		return 1;
	}
	const struct pl_placer_class *cls = pl_placer_find("expert");
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 1 };
	struct pl_placer *pr = cls != NULL ? pl_placer_new(cls, p, NULL, &run, &cause) : NULL;
	if (pr == NULL) {
		fprintf(stderr, "bench-viz: expert placer: %s\n", cause ? cause : "missing");
		return 1;
	}
	pl_placer_run(pr, 0, 0);
	if (pr->best == NULL) {
		fprintf(stderr, "bench-viz: expert placer gave no placement\n");
		return 1;
	}
	struct pl_placement *pl = pl_placement_clone(pr->best);
	pl_placer_free(pr);
	struct pl_trace *t = pl_sim_trace(p, pl, &run.sim, &cause);
	if (t == NULL) {
		fprintf(stderr, "bench-viz: trace: %s\n", cause);
		return 1;
	}
	printf("bench-viz: %s, %d ops, %d edges on %s (expert placement, step %.1f ms); "
	    "load %.2f s\n", g->name, g->n_ops, g->n_edges, c->name, t->res.makespan_us / 1e3, t_load);

	double tm[REPS];
	char extra[128];
	int nodes = 0;
	for (int r = 0; r < REPS; r++) {
		double s = now_s();
		struct pl_coarse *cg = pl_coarsen_auto(p, pl, 200, t->critical, t->n_critical);
		tm[r] = now_s() - s;
		nodes = cg->n_nodes;
		pl_coarse_free(cg);
	}
	snprintf(extra, sizeof extra, "%d nodes", nodes);
	report("coarsen within 200 nodes", tm, extra);

	int lv = 0;
	for (int r = 0; r < REPS; r++) {
		double s = now_s();
		lv = pl_coarse_pick_level(g, pl, 200);
		struct pl_coarse *cg = pl_coarsen(p, pl, lv, t->critical, t->n_critical);
		tm[r] = now_s() - s;
		nodes = cg->n_nodes;
		pl_coarse_free(cg);
	}
	snprintf(extra, sizeof extra, "level %d, %d nodes", lv, nodes);
	report("uniform level within 200 (pick+coarsen)", tm, extra);

	static const struct {
		enum plv_format f;
		int timeline;
		const char *what;
	} cases[] = {
		{ PLV_FMT_DOT, 0, "export --max-nodes 200 -> DOT" },
		{ PLV_FMT_SVG, 0, "export --max-nodes 200 -> SVG" },
		{ PLV_FMT_PNG, 0, "export --max-nodes 200 -> PNG (150 dpi)" },
		{ PLV_FMT_PDF, 0, "export --max-nodes 200 -> PDF" },
		{ PLV_FMT_SVG, 1, "timeline -> SVG" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct plv_opts o;
		plv_opts_init(&o);
		o.max_nodes = 200;
		o.format = cases[k].f;
		o.timeline = cases[k].timeline;
		size_t len = 0;
		for (int r = 0; r < REPS; r++) {
			double s = now_s();
			len = export_once(p, pl, t, &o);
			tm[r] = now_s() - s;
		}
		snprintf(extra, sizeof extra, "%zu bytes", len);
		report(cases[k].what, tm, extra);
	}
	{
		struct plv_opts o;
		plv_opts_init(&o);
		o.max_nodes = 200;
		o.rankdir = "LR";
		for (int r = 0; r < REPS; r++) {
			double s = now_s();
			export_once(p, pl, t, &o);
			tm[r] = now_s() - s;
		}
		report("export --max-nodes 200 --rankdir LR -> SVG", tm, "(no trial layouts)");
	}
	pl_trace_free(t);
	pl_placement_free(pl);
	pl_problem_free(p);
	pl_graph_free(g);

	/* Inception-V3 (op granularity) placed by Scotch. */
	g = pl_graph_load_json(PL_BUILDDIR "/samples/inception_v3-op.json", &cause);
	cls = pl_placer_find("scotch");
	if (g != NULL && cls != NULL && (p = pl_problem_new(g, c, &cause)) != NULL &&
	    (pr = pl_placer_new(cls, p, NULL, &run, &cause)) != NULL) {
		pl_placer_run(pr, 0, 0);
		pl = pr->best != NULL ? pl_placement_clone(pr->best) : NULL;
		pl_placer_free(pr);
		t = pl != NULL ? pl_sim_trace(p, pl, &run.sim, &cause) : NULL;
		if (t != NULL) {
			printf("bench-viz: %s, %d ops on %s (Scotch placement)\n", g->name, g->n_ops, c->name);
			int budgets[] = { 60, 200 };
			for (int k = 0; k < 2; k++) {
				struct plv_opts o;
				plv_opts_init(&o);
				o.max_nodes = budgets[k];
				for (int r = 0; r < REPS; r++) {
					double s = now_s();
					export_once(p, pl, t, &o);
					tm[r] = now_s() - s;
				}
				snprintf(extra, sizeof extra, "--max-nodes %d", budgets[k]);
				report("export -> SVG", tm, extra);
			}
			pl_trace_free(t);
		}
		if (pl != NULL)
			pl_placement_free(pl);
		pl_problem_free(p);
	} else
		printf("bench-viz: Inception-V3 skipped: %s\n", cause != NULL ? cause : "no scotch placer");
	if (g != NULL)
		pl_graph_free(g);
	pl_cluster_free(c);
	return 0;
}
