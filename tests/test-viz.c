/*
 * test-viz — pictures of placements: coarsening conserves time, ops and
 * bytes; the DOT output parses back with cgraph with one cluster per device
 * and the right node count; every format renders (magic bytes, size); the
 * timeline is well-formed; the teaching graph's DOT matches its golden file
 * (GENERATE=1 rewrites it).
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <graphviz/cgraph.h>

#include "coarsen.h"
#include "fileio.h"
#include "io.h"
#include "placer.h"
#include "problem.h"
#include "sim.h"
#include "viz/diagram.h"
#include "viz/export.h"
#include "viz/palette.h"
#include "viz/timeline.h"
#include "xmalloc.h"

/* A small placed training graph with scopes, on k80x4 (gpu:3 left idle). */
struct fixture {
	struct pl_graph *g;
	struct pl_cluster *c;
	struct pl_problem *p;
	struct pl_placement *pl;
	struct pl_trace *t;
};

/* Add an op with a scope and flops. */
static int
add(struct pl_graph_builder *b, const char *name, const char *scope, const char *type,
    double flops, int64_t out)
{
	struct pl_op op;
	memset(&op, 0, sizeof op);
	op.name = (char *)name;
	op.scope = (char *)scope;
	op.type = (char *)type;
	op.flops = flops;
	op.out_bytes = out;
	op.param_bytes = flops > 1e9 ? 4 << 20 : 0;
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		op.measured_us[k] = -1;
	return pl_graph_add_op(b, &op, NULL);
}

/* Build the mini encoder-decoder: 2 encoder layers x 3 steps, a decoder
 * layer x 3 steps, a loss; forward only, with "odd" names to check escaping. */
static struct pl_graph *
mini_graph(void)
{
	struct pl_graph_builder *b = pl_graph_builder_new("mini");
	int emb = add(b, "emb/lookup", "emb", "Gather", 1e6, 1 << 20);
	int prev[2] = { -1, -1 };
	int last_enc = -1;
	char name[64], scope[64];
	for (int t = 0; t < 3; t++) {
		int below = emb;
		for (int l = 0; l < 2; l++) {
			snprintf(scope, sizeof scope, "enc/l%d/t%d", l, t);
			snprintf(name, sizeof name, "enc/l%d/t%d/matmul", l, t);
			int mm = add(b, name, scope, "MatMul", 2e9, 1 << 20);
			snprintf(name, sizeof name, "enc/l%d/t%d/lstm", l, t);
			int cell = add(b, name, scope, "LSTMCell", 1e8, 1 << 19);
			pl_graph_add_edge(b, below, mm, 0, below == emb ? 1 << 20 : 1 << 19);
			if (prev[l] >= 0)
				pl_graph_add_edge(b, prev[l], mm, 0, 1 << 19);
			pl_graph_add_edge(b, mm, cell, 0, 1 << 20);
			prev[l] = cell;
			below = cell;
		}
		last_enc = below;
	}
	int dprev = last_enc;
	for (int t = 0; t < 3; t++) {
		snprintf(scope, sizeof scope, "dec/l0/t%d", t);
		snprintf(name, sizeof name, "dec/l0/t%d/matmul", t);
		int mm = add(b, name, scope, "MatMul", 2e9, 1 << 20);
		snprintf(name, sizeof name, "dec/l0/t%d/lstm \"<&>\\N", t);
		int cell = add(b, name, scope, "LSTMCell", 1e8, 1 << 19);
		pl_graph_add_edge(b, dprev, mm, 0, 1 << 19);
		pl_graph_add_edge(b, emb, mm, 0, 1 << 20);
		pl_graph_add_edge(b, mm, cell, 0, 1 << 20);
		dprev = cell;
	}
	int loss = add(b, "softmax/loss", "softmax", "SoftmaxXent", 5e8, 4096);
	pl_graph_add_edge(b, dprev, loss, 0, 1 << 19);
	/* a gradient back into the embedding: dec -> emb reverses emb -> dec */
	int grad = add(b, "emb/grad", "emb", "GatherGrad", 1e6, 1024);
	pl_graph_add_edge(b, pl_graph_builder_find(b, "dec/l0/t0/matmul"), grad, 0, 1 << 20);
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL)
		fail_msg("mini graph: %s", cause);
	return g;
}

/* Device of an op of the mini graph by scope: emb cpu, enc/l0 gpu0,
 * enc/l1 gpu1, the rest gpu2. */
static int
mini_dev(const struct pl_op *op)
{
	if (strncmp(op->scope, "emb", 3) == 0)
		return 0;
	if (strncmp(op->scope, "enc/l0", 6) == 0)
		return 1;
	if (strncmp(op->scope, "enc/l1", 6) == 0)
		return 2;
	return 3;
}

/* Set up a fixture from a graph, a cluster preset and a device rule. */
static void
fixture_init(struct fixture *f, struct pl_graph *g, const char *cluster,
    int (*rule)(const struct pl_op *))
{
	char *cause = NULL;
	f->g = g;
	f->c = pl_cluster_preset(cluster);
	assert_non_null(f->c);
	f->p = pl_problem_new(f->g, f->c, &cause);
	if (f->p == NULL)
		fail_msg("problem: %s", cause);
	f->pl = pl_placement_new(g->n_ops, f->c->n_dev);
	for (int v = 0; v < g->n_ops; v++)
		f->pl->dev[v] = rule(&g->ops[v]);
	if (pl_placement_check(f->pl, g, f->c, &cause) != 0)
		fail_msg("placement: %s", cause);
	struct pl_sim_opts so = { .kind = PL_SIM_NATIVE, .mem = PL_MEM_NATIVE };
	f->t = pl_sim_trace(f->p, f->pl, &so, &cause);
	if (f->t == NULL)
		fail_msg("trace: %s", cause);
}

/* Free a fixture. */
static void
fixture_free(struct fixture *f)
{
	pl_trace_free(f->t);
	pl_placement_free(f->pl);
	pl_problem_free(f->p);
	pl_cluster_free(f->c);
	pl_graph_free(f->g);
}

/* Check the conservation laws of a coarse graph of fixture f. */
static void
check_conserved(const struct fixture *f, const struct pl_coarse *cg)
{
	double total_us = 0, us = 0;
	int64_t total_bytes = 0, bytes = cg->internal_bytes;
	int ops = 0, crit = 0;
	for (int v = 0; v < f->g->n_ops; v++)
		total_us += pl_problem_op_us(f->p, v, f->pl->dev[v]);
	for (int e = 0; e < f->g->n_edges; e++)
		total_bytes += f->g->tensors[f->g->edges[e].tensor].bytes;
	for (int i = 0; i < cg->n_nodes; i++) {
		us += cg->nodes[i].time_us;
		ops += cg->nodes[i].n_ops;
		crit += cg->nodes[i].n_critical;
	}
	for (int e = 0; e < cg->n_edges; e++) {
		bytes += cg->edges[e].bytes;
		assert_int_not_equal(cg->edges[e].src, cg->edges[e].dst);
		if (e > 0)
			assert_true(cg->edges[e - 1].src < cg->edges[e].src ||
			    (cg->edges[e - 1].src == cg->edges[e].src &&
			    cg->edges[e - 1].dst < cg->edges[e].dst));
	}
	for (int v = 0; v < f->g->n_ops; v++)
		assert_int_equal(cg->nodes[cg->node_of[v]].dev, f->pl->dev[v]);
	assert_true(us > total_us * (1 - 1e-12) && us < total_us * (1 + 1e-12));
	assert_int_equal(ops, f->g->n_ops);
	if (f->t != NULL)
		assert_int_equal(crit, f->t->n_critical);
	assert_true(bytes == total_bytes);
}

/* Coarsening at every level conserves ops, time and bytes; nodes never mix
 * devices; counts agree with pl_coarse_count(); picking respects the cap. */
static void
test_coarsen_conserves(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	int levels[] = { PL_COARSE_FULL, 0, 1, 2, 3, 4, 9 };
	int prev_nodes = 0;
	for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
		struct pl_coarse *cg = pl_coarsen(f.p, f.pl, levels[k], f.t->critical, f.t->n_critical);
		check_conserved(&f, cg);
		assert_int_equal(cg->n_nodes, pl_coarse_count(f.g, f.pl, levels[k]));
		if (levels[k] == PL_COARSE_FULL)
			assert_int_equal(cg->n_nodes, f.g->n_ops);
		if (levels[k] == 0)
			assert_int_equal(cg->n_nodes, 4);	/* four devices used */
		if (levels[k] == 1)
			/* cpu: emb; gpu0: enc; gpu1: enc; gpu2: dec, softmax */
			assert_int_equal(cg->n_nodes, 5);
		if (levels[k] >= 1)
			assert_true(cg->n_nodes >= prev_nodes);
		prev_nodes = cg->n_nodes;
		pl_coarse_free(cg);
	}
	assert_int_equal(pl_coarse_max_depth(f.g), 4);
	/* The cap: the whole graph fits in 100 nodes; 5 nodes is level 1 (level
	 * 2 has emb/lookup, emb/grad and softmax/loss alone, enc/l0, enc/l1,
	 * dec/l0). */
	assert_int_equal(pl_coarse_count(f.g, f.pl, 2), 6);
	assert_int_equal(pl_coarse_pick_level(f.g, f.pl, 100), PL_COARSE_FULL);
	assert_int_equal(pl_coarse_pick_level(f.g, f.pl, 5), 1);
	assert_int_equal(pl_coarse_pick_level(f.g, f.pl, 4), 0);
	assert_int_equal(pl_coarse_pick_level(f.g, f.pl, 2), 0);
	int lv = pl_coarse_pick_level(f.g, f.pl, 12);
	assert_true(pl_coarse_count(f.g, f.pl, lv) <= 12);
	assert_true(pl_coarse_count(f.g, f.pl, lv + 1) > 12);
	fixture_free(&f);
}

/* A graph of `steps` unrolled steps of two ops under rep/t<i>, on one GPU. */
static struct pl_graph *
rep_graph(int steps)
{
	struct pl_graph_builder *b = pl_graph_builder_new("rep");
	int prev = -1;
	char name[64], scope[64];
	for (int i = 0; i < steps; i++) {
		snprintf(scope, sizeof scope, "rep/t%d", i);
		snprintf(name, sizeof name, "rep/t%d/a", i);
		int a = add(b, name, scope, "MatMul", 1e9 * (i + 1), 4096);
		snprintf(name, sizeof name, "rep/t%d/b", i);
		int c = add(b, name, scope, "Tanh", 1e6, 4096);
		if (prev >= 0)
			pl_graph_add_edge(b, prev, a, 0, 4096);
		pl_graph_add_edge(b, a, c, 0, 4096);
		prev = c;
	}
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL)
		fail_msg("rep graph: %s", cause);
	return g;
}

/* Everything on the first GPU. */
static int
on_gpu0(const struct pl_op *op)
{
	(void)op;
	return 1;
}

/* The budgeted coarsening: within budget, conserving, deepening the
 * biggest scopes first, never fanning a scope out beyond the cap. */
static void
test_coarsen_auto(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	int budgets[] = { 1, 3, 5, 6, 8, 12, 22, 23, 100 };
	for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
		struct pl_coarse *cg = pl_coarsen_auto(f.p, f.pl, budgets[k], f.t->critical, f.t->n_critical);
		check_conserved(&f, cg);
		if (budgets[k] >= f.g->n_ops)
			assert_int_equal(cg->level, PL_COARSE_FULL);
		else if (budgets[k] < 5)	/* level 1 has 5 nodes: fall back to 0 */
			assert_int_equal(cg->level, 0);
		else {
			assert_int_equal(cg->level, PL_COARSE_AUTO);
			assert_true(cg->n_nodes <= budgets[k]);
		}
		pl_coarse_free(cg);
	}
	fixture_free(&f);

	/* 20 steps: "rep" fans out into 20 > PL_COARSE_FANOUT parts, which
	 * only waits behind narrower scopes: within 19 nodes it stays one,
	 * within 30 it splits into its steps and the 10 slowest steps (the
	 * last ones) into their two ops. */
	fixture_init(&f, rep_graph(20), "k80x4", on_gpu0);
	struct pl_coarse *cg = pl_coarsen_auto(f.p, f.pl, 19, f.t->critical, f.t->n_critical);
	check_conserved(&f, cg);
	assert_int_equal(cg->n_nodes, 1);
	assert_string_equal(cg->nodes[0].label, "rep");
	assert_int_equal(cg->nodes[0].n_ops, 40);
	pl_coarse_free(cg);
	cg = pl_coarsen_auto(f.p, f.pl, 30, f.t->critical, f.t->n_critical);
	check_conserved(&f, cg);
	assert_int_equal(cg->n_nodes, 30);
	for (int v = 0; v < f.g->n_ops; v++)
		assert_int_equal(cg->nodes[cg->node_of[v]].collapsed, atoi(f.g->ops[v].name + 5) < 10);
	pl_coarse_free(cg);
	fixture_free(&f);

	/* 10 steps, budget 15: rep -> 10 steps, then the 5 slowest steps
	 * (the last ones: flops grow with i) split into their two ops. */
	fixture_init(&f, rep_graph(10), "k80x4", on_gpu0);
	cg = pl_coarsen_auto(f.p, f.pl, 15, f.t->critical, f.t->n_critical);
	check_conserved(&f, cg);
	assert_int_equal(cg->n_nodes, 15);
	for (int v = 0; v < f.g->n_ops; v++) {
		const struct pl_coarse_node *nd = &cg->nodes[cg->node_of[v]];
		int step = atoi(f.g->ops[v].name + 5);
		if (step >= 5)
			assert_false(nd->collapsed);
		else
			assert_true(nd->collapsed && nd->depth == 2 && nd->n_ops == 2);
	}
	assert_int_equal(cg->max_depth, 2);
	pl_coarse_free(cg);
	fixture_free(&f);
}

/* Set up a fixture from a graph on k80x4 placed by placer (default
 * options, seed 1) and simulated with sim. */
static void
fixture_placed(struct fixture *f, struct pl_graph *g, const char *name,
    const char *placer, enum pl_sim_kind sim)
{
	char *cause = NULL;
	f->g = g;
	f->c = pl_cluster_preset("k80x4");
	assert_non_null(f->c);
	f->p = pl_problem_new(f->g, f->c, &cause);
	if (f->p == NULL)
		fail_msg("%s: problem: %s", name, cause);
	struct pl_sim_opts so = { .kind = sim,
	    .mem = sim == PL_SIM_PLACETO ? PL_MEM_PLACETO : PL_MEM_NATIVE };
	struct pl_run_opts run = { .sim = so, .seed = 1, .threads = 1 };
	struct pl_placer *pl = pl_placer_new(pl_placer_find(placer), f->p, NULL, &run, &cause);
	if (pl == NULL)
		fail_msg("%s: %s: %s", name, placer, cause);
	pl_placer_run(pl, 0, 0);
	if (pl->best == NULL)
		fail_msg("%s: %s offered no placement", name, placer);
	f->pl = pl_placement_clone(pl->best);
	pl_placer_free(pl);
	f->t = pl_sim_trace(f->p, f->pl, &so, &cause);
	if (f->t == NULL)
		fail_msg("%s: trace: %s", name, cause);
}

/* Set up a fixture from a graph on k80x4 with the expert's placement. */
static void
fixture_expert(struct fixture *f, struct pl_graph *g, const char *name)
{
	fixture_placed(f, g, name, "expert", PL_SIM_NATIVE);
}

/* Whether every node of fine lies inside one node of coarse. */
static int
refines(const struct pl_coarse *fine, const struct pl_coarse *coarse, int n_ops)
{
	int *in = pl_xcalloc(fine->n_nodes > 0 ? fine->n_nodes : 1, sizeof *in);
	int ok = 1;
	for (int i = 0; i < fine->n_nodes; i++)
		in[i] = -1;
	for (int v = 0; v < n_ops && ok; v++) {
		int *c = &in[fine->node_of[v]];
		if (*c < 0)
			*c = coarse->node_of[v];
		ok = *c == coarse->node_of[v];
	}
	free(in);
	return ok;
}

/* A budget below level 1's node count: the heaviest nodes of level 1
 * taken out of their devices' nodes, exactly the budget's count, the rest
 * of a device one "(other ops)" node; below one node per device, level 0. */
static void
test_coarsen_below_level_one(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", on_gpu0);
	struct pl_coarse *l0 = pl_coarsen(f.p, f.pl, 0, NULL, 0);
	struct pl_coarse *l1 = pl_coarsen(f.p, f.pl, 1, NULL, 0);
	assert_true(l1->n_nodes > l0->n_nodes + 1);	/* room to test in */
	double heaviest = 0;
	for (int i = 0; i < l1->n_nodes; i++)
		if (l1->nodes[i].time_us > heaviest)
			heaviest = l1->nodes[i].time_us;
	for (int b = 1; b < l1->n_nodes; b++) {
		struct pl_coarse *cg = pl_coarsen_auto(f.p, f.pl, b, f.t->critical, f.t->n_critical);
		check_conserved(&f, cg);
		assert_true(refines(cg, l0, f.g->n_ops));
		assert_true(refines(l1, cg, f.g->n_ops));
		if (b <= l0->n_nodes) {
			assert_int_equal(cg->level, 0);
			assert_int_equal(cg->n_nodes, l0->n_nodes);
			pl_coarse_free(cg);
			continue;
		}
		assert_int_equal(cg->level, PL_COARSE_AUTO);
		assert_int_equal(cg->n_nodes, b);
		int others = 0, taken = 0;
		double most = 0;
		for (int i = 0; i < cg->n_nodes; i++) {
			const struct pl_coarse_node *nd = &cg->nodes[i];
			if (nd->collapsed && nd->depth == 0) {
				int alone = 1;	/* the device's only node */
				for (int j = 0; j < cg->n_nodes; j++)
					alone &= j == i || cg->nodes[j].dev != nd->dev;
				assert_string_equal(nd->label, alone ? "(all ops)" : "(other ops)");
				others += !alone;
			} else {
				taken++;
				if (nd->time_us > most)
					most = nd->time_us;
			}
		}
		assert_true(taken > 0 && others > 0);
		assert_true(most == heaviest);	/* the heaviest is taken out first */
		pl_coarse_free(cg);
	}
	pl_coarse_free(l1);
	pl_coarse_free(l0);
	fixture_free(&f);
}

/* Budgets on a sample: within the budget (unless even one node per device
 * is over it), at least as fine as the finest single level within it, and
 * never fewer nodes for a larger budget. */
static void
check_budgets(struct fixture *f, const char *name)
{
	static const int budgets[] = { 1, 4, 8, 12, 20, 30, 50, 60, 100, 126, 150, 200,
		300, 400, 800, 1600, 3200 };
	int prev = 0;
	for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
		int b = budgets[k];
		struct pl_coarse *cg = pl_coarsen_auto(f->p, f->pl, b, f->t->critical, f->t->n_critical);
		check_conserved(f, cg);
		int lv = pl_coarse_pick_level(f->g, f->pl, b);
		struct pl_coarse *u = pl_coarsen(f->p, f->pl, lv, NULL, 0);
		if (cg->n_nodes > b && !(cg->level == 0 && lv == 0))
			fail_msg("%s, budget %d: %d nodes", name, b, cg->n_nodes);
		if (!refines(cg, u, f->g->n_ops))
			fail_msg("%s, budget %d: %d nodes, coarser than level %d (%d nodes)",
			    name, b, cg->n_nodes, lv, u->n_nodes);
		if (cg->n_nodes < prev)
			fail_msg("%s, budget %d: %d nodes, fewer than a smaller budget's %d",
			    name, b, cg->n_nodes, prev);
		prev = cg->n_nodes;
		pl_coarse_free(u);
		pl_coarse_free(cg);
	}
}

/* Every sample graph, placed by the expert, under every budget. */
static void
test_coarsen_budget_samples(void **state)
{
	(void)state;
	DIR *d = opendir(PL_SAMPLES_DIR);
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l <= 5 || strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		char *path = pl_xasprintf("%s/%s", PL_SAMPLES_DIR, de->d_name);
		char *cause = NULL;
		struct pl_graph *g = pl_graph_load_json(path, &cause);
		if (g == NULL)
			fail_msg("%s: %s", path, cause);
		struct fixture f;
		fixture_expert(&f, g, de->d_name);
		check_budgets(&f, de->d_name);
		fixture_free(&f);
		free(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 10);
}

/* Render o into memory, expecting success. */
static char *
render(struct fixture *f, const struct plv_opts *o, size_t *len)
{
	char *data = NULL, *cause = NULL;
	if (plv_export_data(f->p, f->pl, f->t, o, &data, len, &cause) != 0)
		fail_msg("export: %s", cause);
	return data;
}

/* Count the clusters of a parsed graph and check their names. */
static int
count_clusters(Agraph_t *g)
{
	int n = 0;
	for (Agraph_t *s = agfstsubg(g); s != NULL; s = agnxtsubg(s))
		if (strncmp(agnameof(s), "cluster", 7) == 0)
			n++;
	return n;
}

/* Merged edges inside a device whose reverse also exists, counted once per
 * pair (the diagram draws such a pair as one two-headed edge; a pair
 * between devices as two edges). */
static int
reverse_pairs(const struct pl_coarse *cg)
{
	int n = 0;
	for (int e = 0; e < cg->n_edges; e++)
		for (int r = 0; r < cg->n_edges; r++)
			if (cg->edges[r].src == cg->edges[e].dst && cg->edges[r].dst == cg->edges[e].src &&
			    cg->edges[e].src < cg->edges[e].dst &&
			    cg->nodes[cg->edges[e].src].dev == cg->nodes[cg->edges[e].dst].dev)
				n++;
	return n;
}

/* The legend says what "(other ops)" is when a drawing has one. */
static void
test_legend_other_ops(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", on_gpu0);
	struct plv_opts o;
	plv_opts_init(&o);
	o.format = PLV_FMT_DOT;
	o.max_nodes = 2;	/* level 1 has more; one taken out, the rest */
	size_t len;
	char *dot = render(&f, &o, &len);
	assert_non_null(strstr(dot, "(other ops)\\n"));
	assert_non_null(strstr(dot, "(other ops) the rest of its device"));
	free(dot);
	o.max_nodes = 0;
	o.level = 1;
	dot = render(&f, &o, &len);
	assert_null(strstr(dot, "other ops"));
	free(dot);
	fixture_free(&f);
}

/* The DOT text parses back: one cluster per device, one node per coarse
 * node plus one per idle device, edges as merged, every node in the
 * cluster of its device. */
static void
test_dot_parses_back(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	struct plv_opts o;
	plv_opts_init(&o);
	o.format = PLV_FMT_DOT;
	int levels[] = { PL_COARSE_FULL, 1, 2 };
	for (size_t k = 0; k < 3; k++) {
		o.max_nodes = 0;
		o.level = levels[k];
		size_t len;
		char *dot = render(&f, &o, &len);
		assert_true(strncmp(dot, "digraph", 7) == 0);
		Agraph_t *g = agmemread(dot);
		assert_non_null(g);
		struct pl_coarse *cg = pl_coarsen(f.p, f.pl, levels[k], NULL, 0);
		assert_int_equal(count_clusters(g), f.c->n_dev);
		/* a header node per device; an invisible edge from the header
		 * of each device with ops (gpu:3 has none) */
		assert_int_equal(agnnodes(g), cg->n_nodes + f.c->n_dev);
		assert_int_equal(agnedges(g), cg->n_edges - reverse_pairs(cg) + f.c->n_dev - 1);
		for (int i = 0; i < cg->n_nodes; i++) {
			char nm[32], cl[32];
			snprintf(nm, sizeof nm, "n%d", i);
			snprintf(cl, sizeof cl, "cluster_d%d", cg->nodes[i].dev);
			Agraph_t *sub = agsubg(g, cl, 0);
			assert_non_null(sub);
			assert_non_null(agnode(sub, nm, 0));
		}
		/* the odd op name comes back intact in full detail */
		if (levels[k] == PL_COARSE_FULL) {
			int v = pl_graph_find(f.g, "dec/l0/t1/lstm \"<&>\\N");
			assert_true(v >= 0);
			char nm[32];
			snprintf(nm, sizeof nm, "n%d", cg->node_of[v]);
			Agnode_t *n = agnode(g, nm, 0);
			assert_non_null(n);
			const char *label = agget(n, (char *)"label");
			/* (& as &amp;, which Graphviz decodes when drawing) */
			assert_non_null(strstr(label, "dec/l0/t1/lstm \"<&amp;>\\\\N"));
		}
		pl_coarse_free(cg);
		agclose(g);
		free(dot);
	}
	fixture_free(&f);
}

/* Every format renders and starts with its magic. */
static void
test_formats_render(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	static const struct {
		enum plv_format fmt;
		const char *magic;
		size_t mlen;
	} want[] = {
		{ PLV_FMT_SVG, "<?xml", 5 },
		{ PLV_FMT_PDF, "%PDF", 4 },
		{ PLV_FMT_PNG, "\x89PNG", 4 },
		{ PLV_FMT_DOT, "digraph", 7 },
	};
	for (int timeline = 0; timeline <= 1; timeline++) {
		for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
			if (timeline && want[k].fmt == PLV_FMT_DOT)
				continue;
			struct plv_opts o;
			plv_opts_init(&o);
			o.format = want[k].fmt;
			o.timeline = timeline;
			o.dpi = 72;
			size_t len;
			char *data = render(&f, &o, &len);
			if (len < 1000 || memcmp(data, want[k].magic, want[k].mlen) != 0)
				fail_msg("%s %s: %zu bytes starting '%.8s'", timeline ? "timeline" : "diagram",
				    plv_format_name(want[k].fmt), len, data);
			if (want[k].fmt == PLV_FMT_SVG)
				assert_non_null(strstr(data, "<svg"));
			free(data);
		}
	}
	/* A bad engine and a timeline in DOT are errors with a cause. */
	struct plv_opts o;
	plv_opts_init(&o);
	o.layout = "nosuchlayout";
	char *data = NULL, *cause = NULL;
	size_t len;
	assert_int_equal(plv_export_data(f.p, f.pl, f.t, &o, &data, &len, &cause), -1);
	assert_non_null(strstr(cause, "nosuchlayout"));
	free(cause);
	cause = NULL;
	o.layout = "dot";
	o.timeline = 1;
	o.format = PLV_FMT_DOT;
	assert_int_equal(plv_export_data(f.p, f.pl, f.t, &o, &data, &len, &cause), -1);
	assert_non_null(cause);
	free(cause);
	/* sfdp lays it out too */
	plv_opts_init(&o);
	o.layout = "sfdp";
	data = render(&f, &o, &len);
	assert_non_null(strstr(data, "<svg"));
	free(data);
	fixture_free(&f);
}

/* Count occurrences of needle in hay. */
static int
count_str(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *s = hay; (s = strstr(s, needle)) != NULL; s++)
		n++;
	return n;
}

/* The timeline: a lane label per device and used channel, one bar per op
 * of non-zero time (none merge at this scale), the critical path, the axis
 * unit; escaping of names. */
static void
test_timeline(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	struct plv_opts o;
	plv_opts_init(&o);
	o.width_in = 40;	/* wide enough that no bars merge */
	char *svg;
	size_t len;
	double w, h;
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, &w, &h);
	assert_true(len == strlen(svg));
	assert_true(w > 39.9 && w < 40.1 && h > 0.5);
	for (int d = 0; d < f.c->n_dev; d++)
		assert_non_null(strstr(svg, f.c->dev[d].name));
	int used = 0;
	for (int k = 0; k < f.t->n_channels; k++) {
		int n = 0;
		for (int i = 0; i < f.t->n_xfers; i++)
			n += f.t->xfers[i].channel == k;
		used += n > 0;
	}
	assert_true(used > 0);
	int bars = f.t->n_ops, xfers = f.t->n_xfers;	/* each its bar */
	/* bars + transfer bars + lane backgrounds + page + 2 legend swatches */
	int rects = count_str(svg, "<rect");
	assert_int_equal(rects, bars + xfers + f.c->n_dev + used + 1 + 2);
	assert_non_null(strstr(svg, "stroke=\"" PLV_CRITICAL_HEX "\""));
	assert_true(strstr(svg, "time (ms)") != NULL || strstr(svg, "time (µs)") != NULL);
	assert_non_null(strstr(svg, "&quot;&lt;&amp;&gt;"));
	assert_null(strstr(svg, "\"<&>"));
	free(svg);
	/* At column width the 21 ops merge into fewer bars, never more. */
	o.width_in = 1.5;
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	assert_true(count_str(svg, "<rect") <= rects);
	free(svg);
	assert_true(plv_nice_step(1000, 5) == 200);
	assert_true(plv_nice_step(7, 5) == 2);
	assert_true(plv_nice_step(0.3, 3) == 0.1);
	fixture_free(&f);
}

/* The layout limit counts the nodes --max-nodes counts: the devices'
 * headings aside (a budget of 5000 is drawn, not refused as 5005). */
static void
test_node_count(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	struct plv_opts o;
	plv_opts_init(&o);
	o.format = PLV_FMT_DOT;
	o.max_nodes = 8;
	struct pl_coarse *cg = plv_export_coarsen(f.p, f.pl, f.t, &o);
	char *data = NULL, *cause = NULL;
	size_t len;
	int nodes = -1;
	assert_int_equal(plv_export_data_counted(f.p, f.pl, f.t, &o, &data, &len, &nodes, &cause), 0);
	assert_int_equal(nodes, cg->n_nodes);
	free(data);
	pl_coarse_free(cg);
	assert_null(plv_too_many_nodes(PLV_MAX_LAYOUT_NODES, NULL));
	char *why = plv_too_many_nodes(PLV_MAX_LAYOUT_NODES + 1, NULL);
	assert_non_null(why);
	free(why);
	fixture_free(&f);
}

/* Every op on device 1. */
static int
on_dev1(const struct pl_op *op)
{
	(void)op;
	return 1;
}

/* An op that takes no time (an initialiser on the critical path) still
 * has its bar in the timeline, here merged with the op it touches. */
static void
test_timeline_zero_cost(void **state)
{
	(void)state;
	static const char gj[] = "{\"format\": \"placelab-graph/1\", \"name\": \"z0\", \"ops\": [\n"
	    " {\"name\": \"init\", \"measured_us\": {\"gpu\": 0}},\n"
	    " {\"name\": \"work\", \"measured_us\": {\"gpu\": 100}}],\n"
	    "\"edges\": [[\"init\", \"work\", 0, 0]]}";
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(gj, strlen(gj), "z0.json", &cause);
	assert_non_null(g);
	struct fixture f;
	fixture_init(&f, g, "k80x4", on_dev1);
	assert_true(f.t->ops[0].end == f.t->ops[0].start);
	assert_true(f.t->critical_mask[0]);
	struct plv_opts o;
	plv_opts_init(&o);
	char *svg;
	size_t len;
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	/* merged with its neighbour, which it touches, and counted */
	assert_non_null(strstr(svg, "<title>2 ops, 100 µs</title></rect>"));
	free(svg);
	fixture_free(&f);
}

/* The bold title lines of a timeline SVG, joined by spaces, into buf;
 * returns how many. */
static int
title_lines(const char *svg, char *buf, size_t n)
{
	int k = 0;
	buf[0] = '\0';
	for (const char *s = svg; (s = strstr(s, "font-weight=\"bold\">")) != NULL; k++) {
		s += strlen("font-weight=\"bold\">");
		const char *e = strchr(s, '<');
		if (e == NULL)
			break;
		size_t at = strlen(buf);
		snprintf(buf + at, n - at, "%s%.*s", k ? " " : "", (int)(e - s), s);
	}
	return k;
}

/* A narrow timeline: a title too long for the width wraps onto lines
 * that each fit (by the layout's own estimate) and together are the
 * title, a "·" never starting a line; in a figure an inch wide the link
 * lanes' labels are cut in the middle, each whole in its tooltip. */
static void
test_timeline_narrow(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, mini_graph(), "k80x4", mini_dev);
	struct plv_opts o;
	plv_opts_init(&o);
	char *svg, lines[512];
	size_t len;
	const char *title = "A long title for a column-wide figure · placed by hand · "
	    "step 12.5 ms · 3.2 MB moved";
	o.title = title;
	o.width_in = 7;
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	assert_int_equal(title_lines(svg, lines, sizeof lines), 1);
	assert_string_equal(lines, title);
	free(svg);
	o.width_in = 1.5;
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	int k = title_lines(svg, lines, sizeof lines);
	assert_true(k >= 3);
	assert_string_equal(lines, title);
	assert_null(strstr(svg, "font-weight=\"bold\">·"));
	/* each line fits the width at the size drawn, at 0.62 em a character
	 * (bold sans) */
	const char *fsz = strstr(svg, "\" font-weight=\"bold\"");
	assert_non_null(fsz);
	while (fsz[-1] != '"')
		fsz--;
	double fs = atof(fsz);
	assert_true(fs >= 4 && fs <= 8);
	free(svg);
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	for (const char *s = svg; (s = strstr(s, "font-weight=\"bold\">")) != NULL;) {
		s += strlen("font-weight=\"bold\">");
		int chars = 0;
		for (; *s != '<'; s++)
			chars += ((unsigned char)*s & 0xC0) != 0x80;
		assert_true(chars * fs * 0.62 <= 1.5 * 72 - 8);
	}
	free(svg);
	/* a part wider than the line is broken inside (two parts, three or
	 * more lines), never before its "·" */
	o.title = "a first part much longer than one line of the figure · end";
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	assert_true(title_lines(svg, lines, sizeof lines) >= 3);
	assert_string_equal(lines, o.title);
	assert_null(strstr(svg, "font-weight=\"bold\">·"));
	free(svg);
	/* an inch: the lane labels cut in the middle, whole in a tooltip */
	o.width_in = 1;
	plv_timeline_svg(f.p, f.pl, f.t, &o, &svg, &len, NULL, NULL);
	assert_non_null(strstr(svg, "…"));
	int cut = 0, whole = 0;
	for (int ch = 0; ch < f.t->n_channels; ch++) {
		char *name = pl_xstrdup(f.t->channel_name[ch]), *arrow = strstr(name, "->");
		if (arrow == NULL) {
			free(name);
			continue;
		}
		char *shown = pl_xasprintf("%.*s→%s</title>", (int)(arrow - name), name, arrow + 2);
		whole += strstr(svg, shown) != NULL;
		free(shown);
		free(name);
	}
	for (const char *q = svg; (q = strstr(q, "…")) != NULL; q++)
		cut++;
	assert_true(cut > 0 && whole == cut);
	free(svg);
	fixture_free(&f);
}

/* The teaching graph's placement: input on the CPU, a tower per GPU, the
 * head with tower_a. */
static int
teach_dev(const struct pl_op *op)
{
	if (strncmp(op->scope, "input", 5) == 0)
		return 0;
	if (strncmp(op->scope, "tower_b", 7) == 0)
		return 2;
	return 1;
}

/* The teaching graph's DOT equals tests/golden/teach.dot; GENERATE=1
 * rewrites the golden file instead. */
static void
test_golden_teach(void **state)
{
	(void)state;
	char *cause = NULL;
	struct pl_graph *g = pl_graph_load_json(PL_SAMPLES_DIR "/teach.json", &cause);
	if (g == NULL)
		fail_msg("teach.json: %s", cause);
	struct fixture f;
	fixture_init(&f, g, "k80x2", teach_dev);
	struct plv_opts o;
	plv_opts_init(&o);
	o.format = PLV_FMT_DOT;
	o.rankdir = "LR";	/* auto would depend on the fonts' metrics */
	size_t len;
	char *dot = render(&f, &o, &len);
	const char *golden = PL_GOLDEN_DIR "/teach.dot";
	const char *gen = getenv("GENERATE");
	if (gen != NULL && strcmp(gen, "1") == 0) {
		if (pl_file_write_atomic(golden, dot, len, &cause) != 0)
			fail_msg("%s", cause);
		fprintf(stderr, "# wrote %s\n", golden);
	}
	size_t glen;
	char *want = pl_file_read(golden, &glen, &cause);
	if (want == NULL)
		fail_msg("%s (run with GENERATE=1 to create it)", cause);
	if (glen != len || memcmp(want, dot, len) != 0) {
		/* name the first differing line */
		int line = 1;
		size_t i = 0;
		for (; i < len && i < glen && dot[i] == want[i]; i++)
			if (dot[i] == '\n')
				line++;
		fail_msg("teach DOT differs from %s at line %d (GENERATE=1 regenerates)", golden, line);
	}
	/* the golden's structure: 3 clusters, 14 ops and 3 device headers,
	 * 14 edges and 3 invisible header edges */
	Agraph_t *ag = agmemread(want);
	assert_non_null(ag);
	assert_int_equal(count_clusters(ag), 3);
	assert_int_equal(agnnodes(ag), 14 + 3);
	assert_int_equal(agnedges(ag), 14 + 3);
	agclose(ag);
	free(want);
	free(dot);
	fixture_free(&f);
}

/* Bytes per ordered pair of devices: of the coarse edges' moved, or of the
 * trace's transfers. */
static void
moved_by_pair(const struct pl_coarse *cg, int64_t m[PL_MAX_DEVICES][PL_MAX_DEVICES])
{
	memset(m, 0, sizeof(int64_t) * PL_MAX_DEVICES * PL_MAX_DEVICES);
	for (int e = 0; e < cg->n_edges; e++)
		m[cg->nodes[cg->edges[e].src].dev][cg->nodes[cg->edges[e].dst].dev] +=
		    cg->edges[e].moved;
}

/* Bytes per ordered pair of devices the trace's transfers carry. */
static void
xfers_by_pair(const struct pl_trace *t, int64_t m[PL_MAX_DEVICES][PL_MAX_DEVICES])
{
	memset(m, 0, sizeof(int64_t) * PL_MAX_DEVICES * PL_MAX_DEVICES);
	for (int i = 0; i < t->n_xfers; i++)
		m[t->xfers[i].src_dev][t->xfers[i].dst_dev] += t->xfers[i].bytes;
}

/* The diagram's bytes are the bytes the simulator moves: one transfer per
 * tensor and destination device, however many ops there read it.  For
 * several samples and placers, at several levels: the total is the
 * result's bytes_moved and each direction what the trace's transfers
 * carry (also without a trace, for the native model); the legend says the
 * total and the level-0 labels each direction.  Under the Placeto model
 * (broadcasts) the total still holds. */
static void
test_moved_bytes(void **state)
{
	(void)state;
	static const char *const samples[] = { "nmt4", "inception_v3", "transformer", "teach" };
	static const char *const placers[] = { "heft", "expert", "random", "mincut" };
	static int64_t want[PL_MAX_DEVICES][PL_MAX_DEVICES], got[PL_MAX_DEVICES][PL_MAX_DEVICES];
	for (size_t s = 0; s < sizeof samples / sizeof *samples; s++) {
		for (size_t k = 0; k < sizeof placers / sizeof *placers; k++) {
			char *path = pl_xasprintf("%s/%s.json", PL_SAMPLES_DIR, samples[s]);
			char *cause = NULL;
			struct pl_graph *g = pl_graph_load_json(path, &cause);
			if (g == NULL)
				fail_msg("%s: %s", path, cause);
			free(path);
			struct fixture f;
			fixture_placed(&f, g, samples[s], placers[k], PL_SIM_NATIVE);
			xfers_by_pair(f.t, want);
			struct plv_opts o;
			plv_opts_init(&o);
			static const int levels[] = { 0, 1, 2, PL_COARSE_FULL, 60 };
			for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
				o.max_nodes = l == 4 ? levels[l] : 0;
				o.level = l == 4 ? 0 : levels[l];
				struct pl_coarse *cg = plv_export_coarsen(f.p, f.pl, f.t, &o);
				if (cg->moved_bytes != f.t->res.bytes_moved)
					fail_msg("%s by %s, level %d: %lld bytes moved, the step %lld",
					    samples[s], placers[k], levels[l], (long long)cg->moved_bytes,
					    (long long)f.t->res.bytes_moved);
				moved_by_pair(cg, got);
				assert_memory_equal(got, want, sizeof got);
				pl_coarse_set_moved(cg, f.g, f.pl, NULL);
				moved_by_pair(cg, got);
				assert_memory_equal(got, want, sizeof got);
				pl_coarse_free(cg);
			}
			/* the DOT at level 0: the legend's total, a label per direction */
			o.max_nodes = 0;
			o.level = 0;
			o.format = PLV_FMT_DOT;
			o.rankdir = "LR";
			size_t len;
			char *dot = render(&f, &o, &len);
			char b[32], want_s[64];
			snprintf(want_s, sizeof want_s, "total %s)",
			    plv_fmt_bytes(b, sizeof b, (double)f.t->res.bytes_moved));
			if (strstr(dot, want_s) == NULL)
				fail_msg("%s by %s: no '%s' in the legend", samples[s], placers[k], want_s);
			for (int a = 0; a < f.c->n_dev; a++)
				for (int z = 0; z < f.c->n_dev; z++) {
					if (want[a][z] == 0)
						continue;
					plv_fmt_bytes(b, sizeof b, (double)want[a][z]);
					if (strstr(dot, b) == NULL)
						fail_msg("%s by %s: %s -> %s moves %s, not in a label",
						    samples[s], placers[k], f.c->dev[a].name,
						    f.c->dev[z].name, b);
				}
			free(dot);
			fixture_free(&f);
		}
	}
	/* Placeto's broadcasts: each counted once */
	char *cause = NULL;
	struct pl_graph *g = pl_graph_load_json(PL_SAMPLES_DIR "/nmt4.json", &cause);
	assert_non_null(g);
	struct fixture f;
	fixture_placed(&f, g, "nmt4", "heft", PL_SIM_PLACETO);
	struct plv_opts o;
	plv_opts_init(&o);
	struct pl_coarse *cg = plv_export_coarsen(f.p, f.pl, f.t, &o);
	assert_true(f.t->res.bytes_moved > 0);
	assert_true(cg->moved_bytes == f.t->res.bytes_moved);
	pl_coarse_free(cg);
	fixture_free(&f);
}

/* A sample placed by a placer on k80x4 (native simulator). */
static void
fixture_sample(struct fixture *f, const char *sample, const char *placer)
{
	char *path = pl_xasprintf("%s/%s.json", PL_SAMPLES_DIR, sample);
	char *cause = NULL;
	struct pl_graph *g = pl_graph_load_json(path, &cause);
	if (g == NULL)
		fail_msg("%s: %s", path, cause);
	free(path);
	fixture_placed(f, g, sample, placer, PL_SIM_NATIVE);
}

/* Edges between devices, one per direction, with the head at the
 * receiver (a pair's back edge as lo -> hi with dir=back, as the pair's
 * one edge used to be, adding no cycle), in the sender's colour (red on the critical path),
 * labelled with the bytes that direction moves and nothing else (no arrow
 * that the layout could turn against the edge), with no second head;
 * inside a device a pair stays one edge; each device's peak memory as sim
 * gives it. */
static void
test_cross_edges_by_sender(void **state)
{
	(void)state;
	static const char *const samples[] = { "nmt4", "inception_v3" };
	static const char *const placers[] = { "heft", "random", "expert" };
	for (size_t s = 0; s < sizeof samples / sizeof *samples; s++)
		for (size_t k = 0; k < sizeof placers / sizeof *placers; k++) {
			struct fixture f;
			fixture_sample(&f, samples[s], placers[k]);
			struct plv_opts o;
			plv_opts_init(&o);
			o.format = PLV_FMT_DOT;
			struct pl_coarse *cg = plv_export_coarsen(f.p, f.pl, f.t, &o);
			size_t len;
			char *dot = render(&f, &o, &len);
			Agraph_t *ag = agmemread(dot);
			assert_non_null(ag);
			int cross = 0, back = 0;
			for (Agnode_t *n = agfstnode(ag); n != NULL; n = agnxtnode(ag, n))
				for (Agedge_t *e = agfstout(ag, n); e != NULL; e = agnxtout(ag, e)) {
					int a, b;
					if (sscanf(agnameof(agtail(e)), "n%d", &a) != 1 ||
					    sscanf(agnameof(aghead(e)), "n%d", &b) != 1)
						continue;
					const char *dir = agget(e, (char *)"dir");
					if (dir != NULL && strcmp(dir, "back") == 0) {
						if (a > b || pl_coarse_find_edge(cg, a, b) < 0)
							fail_msg("%s by %s: n%d -> n%d drawn back, not a pair's back edge",
							    samples[s], placers[k], a, b);
						int x = a;	/* drawn from b to a */
						a = b;
						b = x;
					}
					int ce = pl_coarse_find_edge(cg, a, b);
					if (ce < 0)
						fail_msg("%s by %s: n%d -> n%d is no edge of the graph",
						    samples[s], placers[k], a, b);
					if (cg->nodes[a].dev == cg->nodes[b].dev)
						continue;
					cross++;
					back += pl_coarse_find_edge(cg, b, a) >= 0;
					const char *col = agget(e, (char *)"color");
					const char *want = cg->edges[ce].critical ? PLV_CRITICAL_HEX :
					    plv_device_colour(cg->nodes[a].dev)->hex;
					if (col == NULL || strcmp(col, want) != 0)
						fail_msg("%s by %s: n%d -> n%d in %s, its sender's colour is %s",
						    samples[s], placers[k], a, b, col ? col : "(none)", want);
					if (dir != NULL && strcmp(dir, "both") == 0)
						fail_msg("%s by %s: n%d -> n%d has two heads", samples[s], placers[k], a, b);
					const char *label = agget(e, (char *)"label");
					char bytes[32] = "";
					if (cg->edges[ce].moved > 0)
						plv_fmt_bytes(bytes, sizeof bytes, (double)cg->edges[ce].moved);
					if (strcmp(label != NULL ? label : "", bytes) != 0)
						fail_msg("%s by %s: n%d -> n%d labelled '%s', it moves '%s'",
						    samples[s], placers[k], a, b, label ? label : "", bytes);
				}
			/* each device's peak as sim gives it (binary units) */
			for (int d = 0; d < f.c->n_dev; d++) {
				char hn[16], m1[32], m2[32], want_s[96];
				snprintf(hn, sizeof hn, "h%d", d);
				Agnode_t *h = agnode(ag, hn, 0);
				assert_non_null(h);
				if (f.t->res.peak_bytes[d] == 0)
					continue;
				snprintf(want_s, sizeof want_s, "%s / %s",
				    plv_fmt_mem(m1, sizeof m1, (double)f.t->res.peak_bytes[d]),
				    plv_fmt_mem(m2, sizeof m2, (double)f.c->dev[d].mem_bytes));
				if (strstr(agget(h, (char *)"label"), want_s) == NULL ||
				    strstr(want_s, "GiB") == NULL)
					fail_msg("%s by %s: %s's label lacks '%s'", samples[s], placers[k],
					    f.c->dev[d].name, want_s);
			}
			/* every cross-device edge of the coarse graph drawn, once */
			int want_cross = 0;
			for (int e = 0; e < cg->n_edges; e++)
				want_cross += cg->nodes[cg->edges[e].src].dev != cg->nodes[cg->edges[e].dst].dev;
			if (cross != want_cross)
				fail_msg("%s by %s: %d edges between devices drawn, the graph has %d",
				    samples[s], placers[k], cross, want_cross);
			if (strcmp(placers[k], "expert") != 0)
				assert_true(cross > 0);
			if (strcmp(placers[k], "random") == 0)
				assert_true(back > 0);	/* both directions of a pair met */
			agclose(ag);
			free(dot);
			pl_coarse_free(cg);
			fixture_free(&f);
		}
}

/* A PNG too big at --level 0, one node per device used (the fewest a
 * diagram draws), suggests no fewer nodes, neither by --max-nodes nor in
 * a front end's words; at the default budget it suggests fewer, no fewer
 * than the devices used. */
static void
test_png_fewest(void **state)
{
	(void)state;
	struct fixture f;
	fixture_sample(&f, "nmt4", "heft");
	struct plv_opts o;
	plv_opts_init(&o);
	o.format = PLV_FMT_PNG;
	o.dpi = 3000;
	o.max_nodes = 0;
	o.level = 0;
	char *cause = NULL;
	assert_int_equal(plv_export(f.p, f.pl, f.t, &o, "/nonexistent/l0.png", &cause), -1);
	if (strstr(cause, "more than cairo draws") == NULL || strstr(cause, "--dpi") == NULL ||
	    strstr(cause, "--max-nodes") != NULL || strstr(cause, "fewer nodes") != NULL)
		fail_msg("at the fewest nodes: %s", cause);
	free(cause);
	cause = NULL;
	o.fewer = "pick a smaller Detail";
	assert_int_equal(plv_export(f.p, f.pl, f.t, &o, "/nonexistent/l0.png", &cause), -1);
	if (strstr(cause, "more than cairo draws") == NULL || strstr(cause, "Detail") != NULL)
		fail_msg("at the fewest nodes, in a front end's words: %s", cause);
	free(cause);
	cause = NULL;
	o.fewer = NULL;
	o.max_nodes = 60;
	assert_int_equal(plv_export(f.p, f.pl, f.t, &o, "/nonexistent/60.png", &cause), -1);
	int used = 0, n = 0;
	for (int d = 0; d < f.p->c->n_dev; d++) {
		int any = 0;
		for (int v = 0; v < f.p->g->n_ops; v++)
			any |= f.pl->dev[v] == d;
		used += any;
	}
	const char *m = strstr(cause, "--max-nodes ");
	if (m == NULL || sscanf(m, "--max-nodes %d", &n) != 1 || n < used || n >= 60)
		fail_msg("at 60 nodes, %d devices used: %s", used, cause);
	free(cause);
	fixture_free(&f);
}

/* What a dot layout costs is known before it runs: nmt4 at full detail
 * (3 million layout nodes; it did not finish in 11 minutes) is refused at
 * once with what to do, through the call the explorer's Export view makes
 * too; the work grows with the detail; beyond PLV_FULL_EFFORT_WORK the
 * layout is bounded (straight edges, fewer ordering passes), below it is
 * not. */
static void
test_layout_work(void **state)
{
	(void)state;
	struct fixture f;
	fixture_sample(&f, "nmt4", "heft");
	struct plv_opts o;
	plv_opts_init(&o);
	o.max_nodes = 0;
	o.level = PL_COARSE_FULL;
	char *data = NULL, *cause = NULL;
	size_t len;
	alarm(120);	/* the layout itself would run for hours */
	int rc = plv_export(f.p, f.pl, f.t, &o, "/nonexistent/full.svg", &cause);
	alarm(0);
	assert_int_equal(rc, -1);
	if (strstr(cause, "--max-nodes") == NULL || strstr(cause, "--force") == NULL ||
	    strstr(cause, "DOT") == NULL || strstr(cause, "full.svg") == NULL)
		fail_msg("refusal without the path or its remedies: %s", cause);
	free(cause);
	cause = NULL;
	/* a front end with its own way to draw less (the explorer's
	 * Detail) hears that, and of no command-line flag */
	o.fewer = "pick a smaller Detail";
	alarm(120);
	rc = plv_export(f.p, f.pl, f.t, &o, "/nonexistent/full.svg", &cause);
	alarm(0);
	assert_int_equal(rc, -1);
	if (strstr(cause, "too much for dot") == NULL || strstr(cause, "pick a smaller Detail") == NULL ||
	    strstr(cause, "--") != NULL)
		fail_msg("refusal not in the front end's words: %s", cause);
	free(cause);
	cause = NULL;
	o.fewer = NULL;
	/* the work by detail, as the diagrams are built */
	long prev = 0;
	static const int budgets[] = { 60, 200, 0 };
	for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++) {
		o.max_nodes = budgets[k];
		struct pl_coarse *cg = plv_export_coarsen(f.p, f.pl, f.t, &o);
		o.rankdir = "LR";
		Agraph_t *g = plv_diagram_build(f.p, f.pl, f.t, cg, &o);
		long work;
		if (plv_diagram_work(g, &work, &cause) != 0)
			fail_msg("work: %s", cause);
		assert_true(work >= agnnodes(g) && work > prev);
		if (budgets[k] == 60)
			assert_true(work <= PLV_FULL_EFFORT_WORK);
		if (budgets[k] == 0)
			assert_true(work > PLV_MAX_WORK);
		prev = work;
		agclose(g);
		pl_coarse_free(cg);
	}
	fixture_free(&f);

	/* effort: the Transformer at full detail (115 ops, about 7,500 layout
	 * nodes) is laid out bounded; within 60 nodes in full */
	fixture_sample(&f, "transformer", "heft");
	static const int nodes[] = { 0, 60 };
	for (size_t k = 0; k < 2; k++) {
		plv_opts_init(&o);
		o.max_nodes = nodes[k];
		o.rankdir = "LR";
		struct pl_coarse *cg = plv_export_coarsen(f.p, f.pl, f.t, &o);
		Agraph_t *g = plv_diagram_build(f.p, f.pl, f.t, cg, &o);
		long work;
		assert_int_equal(plv_diagram_work(g, &work, &cause), 0);
		if (plv_diagram_render(g, &o, &data, &len, &cause) != 0)
			fail_msg("render: %s", cause);
		assert_non_null(strstr(data, "<svg"));
		const char *splines = agget(g, (char *)"splines");
		if (nodes[k] == 0) {
			assert_true(work > PLV_FULL_EFFORT_WORK);
			assert_string_equal(splines, "line");
		} else {
			assert_true(work <= PLV_FULL_EFFORT_WORK);
			assert_true(splines == NULL || strcmp(splines, "line") != 0);
		}
		free(data);
		agclose(g);
		pl_coarse_free(cg);
	}
	fixture_free(&f);
}

/* Units used in labels. */
static void
test_units(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 12), "12 B");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 1048576), "1.05 MB");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 340000), "340 kB");
	/* memory in binary units, as sim and compare: a K80's 12 GiB */
	assert_string_equal(plv_fmt_mem(b, sizeof b, 12884901888.0), "12.0 GiB");
	assert_string_equal(plv_fmt_mem(b, sizeof b, 1048576), "1.00 MiB");
	assert_string_equal(plv_fmt_mem(b, sizeof b, 1023), "1023 B");
	assert_string_equal(plv_fmt_mem(b, sizeof b, 1048575), "1.00 MiB");	/* not 1024 KiB */
	assert_string_equal(plv_fmt_time(b, sizeof b, 45), "45 µs");
	assert_string_equal(plv_fmt_time(b, sizeof b, 12345), "12.3 ms");
	assert_string_equal(plv_fmt_time(b, sizeof b, 2e6), "2 s");
	/* digits for the value as it prints, not as it is */
	assert_string_equal(plv_fmt_time(b, sizeof b, 999.8), "1.00 ms");
	assert_string_equal(plv_fmt_time(b, sizeof b, 99.97), "100 µs");
	assert_string_equal(plv_fmt_time(b, sizeof b, 9.997), "10.0 µs");
	assert_string_equal(plv_fmt_time(b, sizeof b, 999999.7), "1.00 s");
	assert_string_equal(plv_fmt_time(b, sizeof b, 5.5), "5.50 µs");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 999700), "1.00 MB");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 9997), "10.0 kB");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 99970), "100 kB");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, 999.7), "1.00 kB");
	assert_string_equal(plv_fmt_mem(b, sizeof b, 1023.6), "1.00 KiB");
	assert_string_equal(plv_fmt_mem(b, sizeof b, 10234), "9.99 KiB");
	assert_string_equal(plv_fmt_mem(b, sizeof b, 10235), "10.0 KiB");
	/* not a number: in the smallest unit, not the largest */
	assert_string_equal(plv_fmt_time(b, sizeof b, NAN), "nan µs");
	assert_string_equal(plv_fmt_bytes(b, sizeof b, NAN), "nan B");
	assert_string_equal(plv_fmt_mem(b, sizeof b, INFINITY), "inf B");
	assert_true(plv_dark("#0072B2"));
	assert_false(plv_dark("#F0E442"));
	assert_int_equal(plv_format_from_path("a/b.c/x.PNG"), PLV_FMT_PNG);
	assert_int_equal(plv_format_from_path("x.gv"), PLV_FMT_DOT);
	assert_int_equal(plv_format_from_path("a.d/x"), -1);
	assert_string_equal(plv_path_suffix("a.d/fig.1.svg"), "svg");
	assert_null(plv_path_suffix("a.d/fig"));
	assert_null(plv_path_suffix("a.d/.svg"));	/* a hidden name, no suffix */
	assert_null(plv_path_suffix(".md"));
	assert_string_equal(plv_path_suffix(".d/.fig.md"), "md");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coarsen_conserves),
		cmocka_unit_test(test_coarsen_auto),
		cmocka_unit_test(test_coarsen_below_level_one),
		cmocka_unit_test(test_legend_other_ops),
		cmocka_unit_test(test_coarsen_budget_samples),
		cmocka_unit_test(test_dot_parses_back),
		cmocka_unit_test(test_formats_render),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_timeline_narrow),
		cmocka_unit_test(test_golden_teach),
		cmocka_unit_test(test_moved_bytes),
		cmocka_unit_test(test_cross_edges_by_sender),
		cmocka_unit_test(test_layout_work),
		cmocka_unit_test(test_png_fewest),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_timeline_zero_cost),
		cmocka_unit_test(test_node_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
