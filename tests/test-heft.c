/*
 * test-heft — HEFT on the canonical example of Topcuoglu, Hariri and Wu
 * (TPDS 2002, Fig. 2; /work/shared/data/heft-canonical.md): ten tasks on
 * three heterogeneous processors, links of 1e6 B/s and no latency so an
 * edge of N bytes costs N us.  The published makespan is 80; the schedule
 * must respect precedence plus transfer times and never overlap on a
 * processor.  Also: the placer class drives it and turns the schedule
 * order into priorities; colocation groups stay together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graph.h"
#include "placer.h"
#include "placers/baselines.h"
#include "problem.h"

static const double canon_cost[10][3] = {
	{ 14, 16, 9 }, { 13, 19, 18 }, { 11, 13, 19 }, { 13, 8, 17 }, { 12, 13, 10 },
	{ 13, 16, 9 }, { 7, 15, 11 }, { 5, 11, 14 }, { 18, 12, 20 }, { 21, 7, 16 },
};
static const int canon_edges[15][3] = {
	{ 0, 1, 18 }, { 0, 2, 12 }, { 0, 3, 9 }, { 0, 4, 11 }, { 0, 5, 14 },
	{ 1, 7, 19 }, { 1, 8, 16 }, { 2, 6, 23 }, { 3, 7, 27 }, { 3, 8, 23 },
	{ 4, 8, 13 }, { 5, 7, 15 }, { 6, 9, 17 }, { 7, 9, 11 }, { 8, 9, 13 },
};

/* The canonical graph; group_of (may be NULL) names colocation groups. */
static struct pl_graph *
canon_graph(const char *const *group_of)
{
	struct pl_graph_builder *b = pl_graph_builder_new("heft");
	char *dn[3] = { "P0", "P1", "P2" };
	for (int i = 0; i < 10; i++) {
		char name[8];
		snprintf(name, sizeof name, "T%d", i);
		struct pl_dev_time dt[3];
		for (int d = 0; d < 3; d++)
			dt[d] = (struct pl_dev_time){ dn[d], canon_cost[i][d] };
		struct pl_op op = { .name = name, .type = "Task", .scope = "",
			.n_dev_times = 3, .dev_times = dt };
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		pl_graph_add_op(b, &op, group_of != NULL ? group_of[i] : NULL);
	}
	int outs[10] = { 0 };
	for (int e = 0; e < 15; e++)
		pl_graph_add_edge(b, canon_edges[e][0], canon_edges[e][1], outs[canon_edges[e][0]]++,
		    canon_edges[e][2]);
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL)
		fail_msg("canonical graph: %s", cause);
	return g;
}

/* Three processors, 1e6 B/s links, no latency. */
static struct pl_cluster *
canon_cluster(void)
{
	struct pl_cluster *c = pl_cluster_new("heft3");
	for (int d = 0; d < 3; d++) {
		char name[8];
		snprintf(name, sizeof name, "P%d", d);
		struct pl_device dev = { name, PL_DEV_CPU, 1e12, 1LL << 30, 1e10, 0 };
		pl_cluster_add_device(c, &dev, 1e6, 0);
	}
	char *cause = NULL;
	if (pl_cluster_validate(c, &cause) != 0)
		fail_msg("cluster: %s", cause);
	return c;
}

/* An op of a hand-made graph: its time on P0, P1, P2 and the one device it
 * is pinned to (NULL: any). */
struct mini_op {
	const char *name;
	double cost[3];
	const char *pin;
};

/* An edge of a hand-made graph: output `out` of src carries bytes (= us
 * between distinct processors of canon_cluster()). */
struct mini_edge {
	int src, dst, out;
	int64_t bytes;
};

/* A hand-made graph for canon_cluster(). */
static struct pl_graph *
mini_graph(const struct mini_op *ops, int n, const struct mini_edge *edges, int n_edges)
{
	struct pl_graph_builder *b = pl_graph_builder_new("mini");
	char *dn[3] = { "P0", "P1", "P2" };
	for (int i = 0; i < n; i++) {
		struct pl_dev_time dt[3];
		for (int d = 0; d < 3; d++)
			dt[d] = (struct pl_dev_time){ dn[d], ops[i].cost[d] };
		struct pl_op op = { .name = (char *)ops[i].name, .type = "Task", .scope = "",
			.n_dev_times = 3, .dev_times = dt };
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		if (ops[i].pin != NULL) {
			op.cons.kind = PL_CONS_DEVICE;
			op.cons.device = (char *)ops[i].pin;
		}
		pl_graph_add_op(b, &op, NULL);
	}
	for (int e = 0; e < n_edges; e++)
		pl_graph_add_edge(b, edges[e].src, edges[e].dst, edges[e].out, edges[e].bytes);
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL)
		fail_msg("hand-made graph: %s", cause);
	return g;
}

/* Check a schedule: durations, precedence with transfers, no overlap. */
static void
check_schedule(const struct pl_problem *p, const struct pl_heft_sched *s)
{
	const struct pl_graph *g = p->g;
	double ms = 0;
	for (int v = 0; v < g->n_ops; v++) {
		assert_true(s->dev[v] >= 0 && s->dev[v] < p->n_dev);
		assert_true(((p->allowed[v] >> s->dev[v]) & 1) != 0);
		assert_true(s->start[v] >= 0);
		assert_true(s->finish[v] - s->start[v] == pl_problem_op_us(p, v, s->dev[v]));
		if (s->finish[v] > ms)
			ms = s->finish[v];
	}
	assert_true(ms == s->makespan_us);
	for (int e = 0; e < g->n_edges; e++) {
		const struct pl_edge *ed = &g->edges[e];
		double at = s->finish[ed->src] + pl_problem_xfer_us(p, s->dev[ed->src], s->dev[ed->dst],
		    g->tensors[ed->tensor].bytes);
		if (s->start[ed->dst] < at - 1e-9)
			fail_msg("op %s starts at %g before its input from %s arrives at %g",
			    g->ops[ed->dst].name, s->start[ed->dst], g->ops[ed->src].name, at);
	}
	for (int a = 0; a < g->n_ops; a++)
		for (int b = a + 1; b < g->n_ops; b++)
			if (s->dev[a] == s->dev[b] && s->start[a] < s->finish[b] && s->start[b] < s->finish[a])
				fail_msg("%s and %s overlap on device %d", g->ops[a].name, g->ops[b].name, s->dev[a]);
	for (int g2 = 0; g2 < g->n_groups; g2++) {
		const struct pl_group *gr = &g->groups[g2];
		for (int i = 1; i < gr->count; i++)
			assert_int_equal(s->dev[g->group_ops[gr->first + i]], s->dev[g->group_ops[gr->first]]);
	}
}

/* The published result: makespan 80, T0 first on P2 (0-9), T9 on P1. */
static void
test_canonical(void **state)
{
	(void)state;
	struct pl_graph *g = canon_graph(NULL);
	struct pl_cluster *c = canon_cluster();
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	/* the cost table is the paper's */
	assert_true(pl_problem_op_us(p, 3, 1) == 8);
	assert_true(pl_problem_xfer_us(p, 0, 2, 27) == 27);
	struct pl_heft_sched *s = pl_heft_schedule(p);
	assert_true(s->makespan_us == 80);
	assert_int_equal(s->order[0], 0);
	assert_int_equal(s->dev[0], 2);
	assert_true(s->start[0] == 0 && s->finish[0] == 9);
	assert_int_equal(s->dev[9], 1);
	assert_true(s->finish[9] == 80);
	/* the published upward ranks of T0 and T9 (108.0, 14.667) */
	assert_true(s->rank[0] > 107.99 && s->rank[0] < 108.01);
	assert_true(s->rank[9] > 14.666 && s->rank[9] < 14.667);
	check_schedule(p, s);
	pl_heft_sched_free(s);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* A hand-made graph on canon_cluster(), its problem and HEFT schedule. */
struct mini {
	struct pl_graph *g;
	struct pl_cluster *c;
	struct pl_problem *p;
	struct pl_heft_sched *s;
};

/* Build and schedule a hand-made graph; check the schedule and that ops are
 * scheduled in the order given (n ids). */
static void
mini_run(struct mini *m, const struct mini_op *ops, int n, const struct mini_edge *edges,
    int n_edges, const int *order)
{
	m->g = mini_graph(ops, n, edges, n_edges);
	m->c = canon_cluster();
	char *cause = NULL;
	m->p = pl_problem_new(m->g, m->c, &cause);
	if (m->p == NULL)
		fail_msg("hand-made problem: %s", cause);
	m->s = pl_heft_schedule(m->p);
	check_schedule(m->p, m->s);
	for (int i = 0; i < n; i++)
		if (m->s->order[i] != order[i])
			fail_msg("scheduled %s at position %d, expected %s",
			    m->g->ops[m->s->order[i]].name, i, m->g->ops[order[i]].name);
}

/* Free what mini_run() built. */
static void
mini_free(struct mini *m)
{
	pl_heft_sched_free(m->s);
	pl_problem_free(m->p);
	pl_cluster_free(m->c);
	pl_graph_free(m->g);
}

/* Assert op v runs on processor d from start to finish. */
static void
expect_slot(const struct mini *m, int v, int d, double start, double finish)
{
	const struct pl_heft_sched *s = m->s;
	if (s->dev[v] != d || s->start[v] != start || s->finish[v] != finish)
		fail_msg("%s: P%d %g-%g, expected P%d %g-%g", m->g->ops[v].name, s->dev[v],
		    s->start[v], s->finish[v], d, start, finish);
}

/*
 * Insertion: a later op goes into an idle gap before the last op of its
 * processor when it fits there, and past the tail when it does not.
 *
 *   A (P0, 10) --10 B--> B (P1, 10)      C (P1, 5)     D (P1, 4)
 *   A --8 B--> E (P1, 3)
 *
 * Upward ranks: B 10, C 5, D 4, E 3, A = 10 + max(10 + 10, 8 + 3) = 30, so
 * the order is A, B, C, D, E.  A runs on P0 0-10; B's input reaches P1 at
 * 20, so B runs 20-30 and leaves P1 idle in [0, 20).  C (ready at 0) takes
 * 0-5 of that gap, D 5-9 of what is left, [9, 20); E is ready at 18 and
 * 18 + 3 > 20, so it goes after B, 30-33.  Makespan 33.  Scheduling at the
 * tail only would give C 30-35, D 35-39, E 39-42, makespan 42.
 */
static void
test_insertion(void **state)
{
	(void)state;
	static const struct mini_op ops[] = {
		{ "A", { 10, 10, 10 }, "P0" },
		{ "B", { 10, 10, 10 }, "P1" },
		{ "C", { 5, 5, 5 }, "P1" },
		{ "D", { 4, 4, 4 }, "P1" },
		{ "E", { 3, 3, 3 }, "P1" },
	};
	static const struct mini_edge edges[] = {
		{ 0, 1, 0, 10 }, { 0, 4, 1, 8 },
	};
	static const int order[] = { 0, 1, 2, 3, 4 };
	struct mini m;
	mini_run(&m, ops, 5, edges, 2, order);
	expect_slot(&m, 0, 0, 0, 10);
	expect_slot(&m, 1, 1, 20, 30);
	expect_slot(&m, 2, 1, 0, 5);
	expect_slot(&m, 3, 1, 5, 9);
	expect_slot(&m, 4, 1, 30, 33);
	assert_true(m.s->makespan_us == 33);
	mini_free(&m);
}

/*
 * A zero-length op fits a gap that ends exactly when it is ready:
 *
 *   W (P1, 5) --0 B--> Y (P0, 10)
 *   W --0 B--> Z (P0, 0) --0 B--> Q (P1, 1)
 *
 * Ranks: Y 10, Q 1, Z 0 + 0 + 1 = 1 (ties with Q; Z comes first in
 * topological order), W 5 + 10 = 15; order W, Y, Z, Q.  W runs on P1 0-5,
 * Y on P0 5-15, leaving P0 idle in [0, 5).  Z is ready at 5 and takes no
 * time: it fits that gap at 5 (5 + 0 <= 5), and Q then runs on P1 5-6.
 * Makespan 15 (Y).  Putting Z after Y (15) would delay Q to 15-16.
 *
 * The placer's priorities put Z before Y on P0 (both start at 5, Z ends
 * first), so the simulator reproduces the schedule: makespan 15.
 */
static void
test_zero_length_at_gap_end(void **state)
{
	(void)state;
	static const struct mini_op ops[] = {
		{ "W", { 5, 5, 5 }, "P1" },
		{ "Y", { 10, 10, 10 }, "P0" },
		{ "Z", { 0, 0, 0 }, "P0" },
		{ "Q", { 1, 1, 1 }, "P1" },
	};
	static const struct mini_edge edges[] = {
		{ 0, 1, 0, 0 }, { 0, 2, 0, 0 }, { 2, 3, 0, 0 },
	};
	static const int order[] = { 0, 1, 2, 3 };
	struct mini m;
	mini_run(&m, ops, 4, edges, 3, order);
	expect_slot(&m, 0, 1, 0, 5);
	expect_slot(&m, 1, 0, 5, 15);
	expect_slot(&m, 2, 0, 5, 5);
	expect_slot(&m, 3, 1, 5, 6);
	assert_true(m.s->makespan_us == 15);

	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 1 };
	char *cause = NULL;
	struct pl_placer *pl = pl_placer_new(&pl_placer_heft, m.p, NULL, &run, &cause);
	assert_non_null(pl);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	assert_true(pl->best->prio[2] > pl->best->prio[1]);
	if (pl->best_res.makespan_us != 15)
		fail_msg("simulated makespan %g, expected 15", pl->best_res.makespan_us);
	pl_placer_free(pl);
	mini_free(&m);
}

/*
 * A zero-length op holds its instant on its processor: nothing scheduled
 * later runs across it (the processor could not run it then).
 *
 *   W (P1, 8) --12 B--> Y (P0, y)
 *   W --0 B--> Z (P0, 0) --1 B--> R (P2, 20)      V (P0, 9)
 *
 * Ranks: R 20, Z 0 + 1 + 20 = 21, V 9, Y y, W = 8 + max(12 + y, 21).
 * With y = 10 the order is W, Z, R, Y, V: W on P1 0-8; Z is ready on P0 at
 * 8 and goes to P0's (empty) tail at 8; R runs on P2 9-29; Y's input
 * reaches P0 at 20, so Y runs 20-30, P0 being idle in [0, 8) and [8, 20).
 * V (ready at 0) does not fit [0, 8) and takes 8-17.  Makespan 30.
 * With y = 25 the order is W, Y, Z, R, V: Y runs 20-45 first, Z splits
 * P0's gap [0, 20) at 8, and V again takes 8-17.  Makespan 45.
 * V at 0-9 would run across Z.
 */
static void
test_zero_length_point(void **state)
{
	(void)state;
	static const struct mini_edge edges[] = {
		{ 0, 1, 0, 12 }, { 0, 2, 1, 0 }, { 2, 3, 0, 1 },
	};
	static const int order[2][5] = { { 0, 2, 3, 1, 4 }, { 0, 1, 2, 3, 4 } };
	for (int k = 0; k < 2; k++) {
		double y = k == 0 ? 10 : 25;
		const struct mini_op ops[] = {
			{ "W", { 8, 8, 8 }, "P1" },
			{ "Y", { y, y, y }, "P0" },
			{ "Z", { 0, 0, 0 }, "P0" },
			{ "R", { 20, 20, 20 }, "P2" },
			{ "V", { 9, 9, 9 }, "P0" },
		};
		struct mini m;
		mini_run(&m, ops, 5, edges, 3, order[k]);
		expect_slot(&m, 0, 1, 0, 8);
		expect_slot(&m, 1, 0, 20, 20 + y);
		expect_slot(&m, 2, 0, 8, 8);
		expect_slot(&m, 3, 2, 9, 29);
		expect_slot(&m, 4, 0, 8, 17);
		assert_true(m.s->makespan_us == 20 + y);
		mini_free(&m);
	}
}

/* Colocation groups: a group follows its first scheduled op. */
static void
test_groups(void **state)
{
	(void)state;
	const char *const grp[10] = { NULL, "A", NULL, NULL, "B", NULL, "A", NULL, "B", NULL };
	struct pl_graph *g = canon_graph(grp);
	struct pl_cluster *c = canon_cluster();
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_heft_sched *s = pl_heft_schedule(p);
	check_schedule(p, s);
	assert_int_equal(s->dev[1], s->dev[6]);
	assert_int_equal(s->dev[4], s->dev[8]);
	assert_true(s->makespan_us >= 80);
	pl_heft_sched_free(s);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* The class: one step, a valid placement whose priorities follow the
 * schedule's start order. */
static void
test_placer(void **state)
{
	(void)state;
	struct pl_graph *g = canon_graph(NULL);
	struct pl_cluster *c = canon_cluster();
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 1 };
	struct pl_placer *pl = pl_placer_new(&pl_placer_heft, p, NULL, &run, &cause);
	assert_non_null(pl);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	assert_non_null(pl->best);
	assert_int_equal(pl_placement_check(pl->best, g, c, &cause), 0);
	assert_non_null(pl->best->prio);
	struct pl_heft_sched *s = pl_heft_schedule(p);
	for (int a = 0; a < 10; a++) {
		assert_int_equal(pl->best->dev[a], s->dev[a]);
		for (int b = 0; b < 10; b++)
			if (s->start[a] < s->start[b])
				assert_true(pl->best->prio[a] > pl->best->prio[b]);
	}
	/* the simulator runs the same placement with HEFT's order: never
	 * faster than the lower bound, and the history names the schedule */
	assert_true(pl->best_res.makespan_us > 0);
	assert_int_equal(pl->n_hist, 1);
	assert_non_null(strstr(pl->hist[0].what, "HEFT schedule 80.0 us"));
	pl_heft_sched_free(s);
	pl_placer_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* Run the group. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_insertion),
		cmocka_unit_test(test_zero_length_at_gap_end),
		cmocka_unit_test(test_zero_length_point),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_placer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
