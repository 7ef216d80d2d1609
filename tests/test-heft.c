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
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_placer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
