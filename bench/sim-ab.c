/*
 * sim-ab — paired timing of one simulator model against an older build of
 * the same file, in one process (built and run by tools/sim-ab).
 *
 * On a shared machine the speed of separate runs swings by 1.3-1.5x from
 * one minute to the next; two versions timed in alternating batches inside
 * one process see the same swings, so their ratio is steady to about 2 %.
 * The old runner is linked in as ab_old_run (the model's runner of another
 * revision, its symbol renamed); both run on workspaces of the current
 * layout, which tools/sim-ab checks is unchanged.
 *
 * Invariant: both versions evaluate the same placements in the same order,
 * each on its own warm workspace; before any timing, every placement's
 * result (makespan, busy time, peaks and traffic per device) and every
 * op's start time must agree bit for bit, and each round's last results
 * again (a disagreement stops the run: the change is not an
 * optimisation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench-util.h"
#include "io.h"
#include "sim-int.h"
#include "sim.h"
#include "tests/sim-testutil.h"

int ab_old_run(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r);

/* Whether two results agree bit for bit (0), else -1 after saying where;
 * i: the placement. */
static int
same_result(const struct pl_sim_result *a, const struct pl_sim_result *b, int i)
{
	const char *what = NULL;
	if (memcmp(&a->makespan_us, &b->makespan_us, sizeof a->makespan_us) != 0)
		what = "makespan";
	else if (a->bytes_moved != b->bytes_moved || a->n_transfers != b->n_transfers)
		what = "bytes moved or transfers";
	else if (a->oom_mask != b->oom_mask || a->peak_max != b->peak_max ||
	    a->oom_excess != b->oom_excess)
		what = "memory";
	for (int d = 0; what == NULL && d < a->n_dev; d++)
		if (memcmp(&a->busy_us[d], &b->busy_us[d], sizeof a->busy_us[d]) != 0 ||
		    a->peak_bytes[d] != b->peak_bytes[d] || a->bytes_in[d] != b->bytes_in[d] ||
		    a->bytes_out[d] != b->bytes_out[d])
			what = "a device's busy time, peak or traffic";
	if (what == NULL)
		return 0;
	fprintf(stderr, "sim-ab: the versions disagree on placement %d: %s (makespan %.17g vs %.17g)\n",
	    i, what, a->makespan_us, b->makespan_us);
	return -1;
}

/* One evaluation with the old runner, as pl_sim_eval() does it. */
static void
old_eval(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r)
{
	memset(r, 0, sizeof *r);
	r->n_dev = ws->n_dev;
	ws->starts_in = PL_STARTS_ARRAYS;
	ab_old_run(ws, pl, mem, r);
	pl_sim_finish(ws, r);
}

int
main(int argc, char **argv)
{
	if (argc != 5 || pl_sim_kind_parse(argv[1]) < 0 || pl_mem_model_parse(argv[2]) < 0) {
		fprintf(stderr, "usage: sim-ab placeto|native native|placeto|none N|GRAPH ROUNDS\n");
		return 2;
	}
	enum pl_sim_kind kind = pl_sim_kind_parse(argv[1]);
	enum pl_mem_model mem = pl_mem_model_parse(argv[2]);
	int rounds = atoi(argv[4]);
	struct pl_rng r;
	pl_rng_seed(&r, 2019);
	char *cause = NULL;
	int n = atoi(argv[3]);
	/* the benchmark's graphs: 1.4 inputs per op on 4 devices for the
	 * Placeto model, 1.5 on k80x4 for the native one */
	struct pl_graph *g = n > 0 ? bench_random_dag(&r, n, kind == PL_SIM_PLACETO ? 1.4 : 1.5)
	    : pl_graph_load_json(argv[3], &cause);
	if (g == NULL) {
		fprintf(stderr, "sim-ab: %s\n", cause);
		free(cause);
		return 1;
	}
	struct pl_cluster *c = kind == PL_SIM_PLACETO ? bench_placeto_cluster()
	    : bench_native_cluster();
	struct pl_problem *p = tu_problem(g, c);
	pl_rng_seed(&r, 42);
	struct pl_placement *pl[BENCH_N_PLACEMENTS];
	bench_placements(&r, p, pl);
	struct pl_sim_ws *wn = pl_sim_ws_new(p), *wo = pl_sim_ws_new(p);
	const struct pl_sim_opts o = { kind, mem };
	struct pl_sim_result rn, ro;
	/* every placement first: the same results bit for bit, and the same
	 * start time for every op (which also warms both workspaces: a large
	 * one's first run takes its page faults) */
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++) {
		old_eval(wo, pl[i], mem, &ro);
		pl_sim_eval(wn, pl[i], &o, &rn);
		if (same_result(&rn, &ro, i) != 0)
			return 1;
		const double *sn = pl_sim_ws_starts(wn), *so = pl_sim_ws_starts(wo);
		if (memcmp(sn, so, sizeof *sn * (size_t)g->n_ops) != 0) {
			fprintf(stderr, "sim-ab: the versions disagree on placement %d: op start times\n", i);
			return 1;
		}
	}
	/* a batch lasts about 20 ms */
	double t0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
	pl_sim_eval(wn, pl[0], &o, &rn);
	double one = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
	int batch = one > 0 ? (int)(0.02 / one) : 1000;
	batch = batch < 1 ? 1 : batch;
	double tn = 0, to = 0;
	int won = 0, rc = 0;
	for (int k = 0; k < rounds && rc == 0; k++) {
		double dn = 0, dold = 0;
		for (int s = 0; s < 2; s++) {	/* the order alternates */
			double a = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
			if ((s == 0) == (k % 2 == 0)) {
				for (int i = 0; i < batch; i++)
					pl_sim_eval(wn, pl[i % BENCH_N_PLACEMENTS], &o, &rn);
				dn = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - a;
			} else {
				for (int i = 0; i < batch; i++)
					old_eval(wo, pl[i % BENCH_N_PLACEMENTS], mem, &ro);
				dold = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - a;
			}
		}
		if (same_result(&rn, &ro, (batch - 1) % BENCH_N_PLACEMENTS) != 0)
			rc = 1;
		tn += dn;
		to += dold;
		won += dn < dold;
	}
	double evals = (double)rounds * batch, m = (double)(g->n_ops + g->n_edges);
	if (rc == 0)
		printf("%s, memory %s, %d ops %d edges: new %.1f us/eval (%.1f ns/(op+edge)), "
		    "old %.1f us/eval (%.1f): new/old %.3f, new faster in %d of %d rounds\n",
		    argv[1], argv[2], g->n_ops, g->n_edges, tn * 1e6 / evals,
		    tn * 1e9 / evals / m, to * 1e6 / evals, to * 1e9 / evals / m, tn / to,
		    won, rounds);
	pl_sim_ws_free(wn);
	pl_sim_ws_free(wo);
	bench_placements_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return rc;
}
