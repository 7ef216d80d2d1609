/*
 * test-bounds — the lower bounds on hand-computed cases, and no simulated
 * placement (random, single-device, round-robin, with and without
 * priorities, per-pair links or a shared bus) ever beating them.
 *
 * Invariant: a bound above any native makespan is a bug, whatever the
 * placement; the random search below tries to find one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "sim-testutil.h"
#include "sim.h"

/* Add op name with time us0 on /gpu:0 and us1 on every other device, in
 * colocation group grp (NULL: none), pinned to device pin (NULL: any). */
static int
op_in(struct pl_graph_builder *b, const char *name, double us0, double us1,
    const char *grp, const char *pin)
{
	struct pl_op o;
	memset(&o, 0, sizeof o);
	o.name = (char *)name;
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		o.measured_us[k] = us1;
	struct pl_dev_time dt = { (char *)"/gpu:0", us0 };
	o.n_dev_times = 1;
	o.dev_times = &dt;
	if (pin != NULL)
		o.cons = (struct pl_constraint){ PL_CONS_DEVICE, PL_DEV_GPU, (char *)pin };
	return pl_graph_add_op(b, &o, grp);
}

/* Add op name with time us0 on /gpu:0 and us1 on every other device. */
static int
op2(struct pl_graph_builder *b, const char *name, double us0, double us1)
{
	return op_in(b, name, us0, us1, NULL, NULL);
}

/* Hand-computed values. */
static void
test_values(void **state)
{
	(void)state;
	/* four independent ops: 10 us on gpu0, 30 us on gpu1 */
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	char name[8];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "o%d", i);
		op2(b, name, 10, 30);
	}
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *c = tu_cluster(2, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, c);
	struct pl_bounds bd;
	pl_bounds_compute(p, &bd);
	assert_true(fabs(bd.critical_path_us - 10) < 1e-9);
	/* the fractional optimum: 3 ops on gpu0, 1 on gpu1, 30 us */
	assert_true(fabs(bd.work_us - 30) < 1e-6);
	assert_true(bd.work_us <= 30);
	assert_true(bd.best_us == bd.work_us);
	pl_problem_free(p);
	pl_graph_free(g);

	/* a chain: fastest device per op, transfers free */
	b = pl_graph_builder_new("chain");
	op2(b, "x", 10, 4);
	op2(b, "y", 2, 8);
	op2(b, "z", 7, 7);
	pl_graph_add_edge(b, 0, 1, 0, 1000);
	pl_graph_add_edge(b, 1, 2, 0, 1000);
	g = tu_build(b);
	p = tu_problem(g, c);
	pl_bounds_compute(p, &bd);
	assert_true(fabs(bd.critical_path_us - 13) < 1e-9);
	assert_true(bd.best_us == bd.critical_path_us);
	pl_problem_free(p);
	pl_graph_free(g);
	pl_cluster_free(c);
}

/* Placement pl (freed here) simulates to no less than the bounds bd
 * (case cs, try k, for the message). */
static void
not_below(struct pl_sim_ws *ws, struct pl_placement *pl, const struct pl_sim_opts *o,
    const struct pl_bounds *bd, int cs, int k)
{
	struct pl_sim_result res;
	assert_int_equal(pl_sim_eval(ws, pl, o, &res), 0);
	if (res.makespan_us < bd->best_us)
		fail_msg("case %d/%d: makespan %.17g below bound %.17g (cp %.17g, work %.17g)",
		    cs, k, res.makespan_us, bd->best_us, bd->critical_path_us, bd->work_us);
	pl_placement_free(pl);
}

/* No placement beats the bounds. */
static void
test_never_beaten(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 2024);
	const struct pl_sim_opts o = { PL_SIM_NATIVE, PL_MEM_NATIVE };
	for (int cs = 0; cs < 40; cs++) {
		int n = 1 + (int)pl_rng_below(&r, 200);
		int D = 1 + (int)pl_rng_below(&r, 6);
		struct pl_graph_builder *b = pl_graph_builder_new("rand");
		for (int v = 0; v < n; v++) {
			char name[16];
			snprintf(name, sizeof name, "v%d", v);
			double t0 = pl_rng_uniform(&r) * 50;
			double t1 = cs % 2 ? t0 : pl_rng_uniform(&r) * 50;
			op2(b, name, t0, t1);
			int k = v > 0 ? (int)pl_rng_below(&r, 3) : 0;
			for (int j = 0; j < k; j++)
				pl_graph_add_edge(b, (int)pl_rng_below(&r, (uint64_t)v), v, 0, 64);
		}
		struct pl_graph *g = tu_build(b);
		struct pl_cluster *c = tu_cluster(D, 1e9, pl_rng_uniform(&r), (int64_t)1 << 34);
		c->shared_bus = cs % 3 == 0;
		struct pl_problem *p = tu_problem(g, c);
		struct pl_bounds bd;
		pl_bounds_compute(p, &bd);
		assert_true(bd.best_us >= bd.critical_path_us && bd.best_us >= bd.work_us);
		struct pl_sim_ws *ws = pl_sim_ws_new(p);
		for (int k = 0; k < 30; k++) {
			struct pl_placement *pl = tu_random_placement(&r, p);
			if (k < D)
				for (int v = 0; v < n; v++)
					pl->dev[v] = k;
			else if (k == D)
				for (int v = 0; v < n; v++)
					pl->dev[v] = v % D;
			else if (k % 2) {
				pl_placement_ensure_prio(pl);
				for (int v = 0; v < n; v++)
					pl->prio[v] = pl_rng_uniform(&r);
			} else {
				/* greedy: every op on its fastest device */
				for (int v = 0; v < n; v++) {
					int best = 0;
					for (int d = 1; d < D; d++)
						if (pl_problem_op_us(p, v, d) < pl_problem_op_us(p, v, best))
							best = d;
					pl->dev[v] = pl_rng_uniform(&r) < 0.8 ? best : pl->dev[v];
				}
			}
			not_below(ws, pl, &o, &bd, cs, k);
		}
		pl_sim_ws_free(ws);
		pl_problem_free(p);
		pl_cluster_free(c);
		pl_graph_free(g);
	}
}

/* Colocation groups: an op runs where its whole group may, and a group
 * runs on one device; no placement that keeps groups together beats the
 * bounds. */
static void
test_groups(void **state)
{
	(void)state;
	/* c is pinned to gpu1 and shares its group with d, which is fast on
	 * gpu0 only: d runs on gpu1 too, so 1 + 1000 us */
	struct pl_graph_builder *b = pl_graph_builder_new("grp");
	op_in(b, "c", 1, 1, "h", "/gpu:1");
	op_in(b, "d", 10, 1000, "h", NULL);
	pl_graph_add_edge(b, 0, 1, 0, 1000);
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *c = tu_cluster(2, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, c);
	struct pl_bounds bd;
	pl_bounds_compute(p, &bd);
	assert_true(bd.critical_path_us == 1001);
	assert_true(bd.best_us == 1001);
	pl_problem_free(p);
	pl_graph_free(g);
	pl_cluster_free(c);

	struct pl_rng r;
	pl_rng_seed(&r, 77);
	const struct pl_sim_opts o = { PL_SIM_NATIVE, PL_MEM_NONE };
	for (int cs = 0; cs < 30; cs++) {
		int n = 1 + (int)pl_rng_below(&r, 120), D = 2 + (int)pl_rng_below(&r, 4);
		b = pl_graph_builder_new("rand");
		for (int v = 0; v < n; v++) {
			char name[16], grp[16], pin[16];
			snprintf(name, sizeof name, "v%d", v);
			snprintf(grp, sizeof grp, "g%d", (int)pl_rng_below(&r, 6));
			snprintf(pin, sizeof pin, "/gpu:%d", (int)pl_rng_below(&r, (uint64_t)D));
			/* one group in two pins one of its ops, so groups
			 * narrow where their ops may run */
			int pinned = grp[1] == '0' && pl_rng_below(&r, 8) == 0;
			op_in(b, name, pl_rng_uniform(&r) * 50, pl_rng_uniform(&r) * 50,
			    pl_rng_below(&r, 3) ? grp : NULL, pinned ? pin : NULL);
			int k = v > 0 ? (int)pl_rng_below(&r, 3) : 0;
			for (int j = 0; j < k; j++)
				pl_graph_add_edge(b, (int)pl_rng_below(&r, (uint64_t)v), v, 0, 64);
		}
		g = tu_build(b);
		c = tu_cluster(D, 1e9, pl_rng_uniform(&r), (int64_t)1 << 34);
		char *cause = NULL;
		p = pl_problem_new(g, c, &cause);
		if (p == NULL) {	/* two pins in one group */
			free(cause);
			pl_cluster_free(c);
			pl_graph_free(g);
			continue;
		}
		pl_bounds_compute(p, &bd);
		struct pl_sim_ws *ws = pl_sim_ws_new(p);
		for (int k = 0; k < 20; k++) {
			/* a device per group among those it allows */
			struct pl_placement *pl = pl_placement_new(n, D);
			for (int q = 0; q < g->n_groups; q++) {
				uint64_t m = p->group_allowed[q];
				int dv;
				do
					dv = (int)pl_rng_below(&r, (uint64_t)D);
				while (!((m >> dv) & 1));
				for (int i = 0; i < g->groups[q].count; i++)
					pl->dev[g->group_ops[g->groups[q].first + i]] = dv;
			}
			not_below(ws, pl, &o, &bd, cs, k);
		}
		pl_sim_ws_free(ws);
		pl_problem_free(p);
		pl_cluster_free(c);
		pl_graph_free(g);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_never_beaten),
		cmocka_unit_test(test_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
