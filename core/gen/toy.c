/*
 * toy — small graphs for teaching and tests: a chain, a crown, the
 * canonical HEFT example (Topcuoglu, Hariri & Wu 2002, Fig. 2) and a
 * teaching graph with one clearly best placement.
 *
 * Invariant: toy graphs are forward-only, fixed (no randomness) and small
 * enough to reason about by hand; their documented properties (HEFT's
 * costs, the teaching graph's best placement) are what tests check.
 */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* A zeroed op with no measured times. */
static struct pl_op
toy_op(const char *name, const char *type, const char *scope, double flops,
    int64_t param_bytes, int64_t out_bytes)
{
	struct pl_op op;
	memset(&op, 0, sizeof op);
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		op.measured_us[k] = -1;
	op.name = (char *)name;
	op.type = (char *)type;
	op.scope = (char *)scope;
	op.flops = flops;
	op.param_bytes = param_bytes;
	op.out_bytes = out_bytes;
	return op;
}

/* A chain of n equal ops (each 20 GFLOPs, 4 MB between neighbours). */
static struct pl_graph *
chain(int n, char **cause)
{
	struct pl_graph_builder *b = pl_graph_builder_new("chain");
	const int64_t mb4 = 4 << 20;
	for (int i = 0; i < n; i++) {
		char nm[32], sc[32];
		snprintf(nm, sizeof nm, "chain/op%d", i);
		snprintf(sc, sizeof sc, "chain");
		struct pl_op op = toy_op(nm, "MatMul", sc, 2e10, 16 << 20, i + 1 < n ? mb4 : 0);
		pl_graph_add_op(b, &op, NULL);
		if (i > 0)
			pl_graph_add_edge(b, i - 1, i, 0, mb4);
	}
	return pl_graph_build(b, cause);
}

/*
 * A crown: a base op fans out to k points, each a short chain of depth
 * ops; neighbouring points exchange a tensor half way up (the crown's
 * band), and all points meet in a top op.  Parallel work with some
 * cross traffic: the shape where splitting helps but not for free.
 */
static struct pl_graph *
crown(int k, int depth, char **cause)
{
	struct pl_graph_builder *b = pl_graph_builder_new("crown");
	const int64_t mb = 1 << 20;
	struct pl_op op = toy_op("crown/base", "Conv2D", "crown/base", 5e9, 8 * mb, 8 * mb);
	int base = pl_graph_add_op(b, &op, NULL);
	int *last = pl_xcalloc(k, sizeof *last);
	int *mid = pl_xcalloc(k, sizeof *mid);
	for (int p = 0; p < k; p++) {
		int prev = base;
		for (int d = 0; d < depth; d++) {
			char nm[48], sc[32];
			snprintf(sc, sizeof sc, "crown/point%d", p);
			snprintf(nm, sizeof nm, "crown/point%d/op%d", p, d);
			op = toy_op(nm, "Conv2D", sc, 2e10, 16 * mb, 8 * mb);
			int v = pl_graph_add_op(b, &op, NULL);
			pl_graph_add_edge(b, prev, v, 0, 8 * mb);
			if (d == depth / 2)
				mid[p] = v;
			prev = v;
		}
		last[p] = prev;
	}
	/* The band: point p's middle op also feeds point p+1's next op. */
	for (int p = 0; p + 1 < k; p++) {
		int dst = mid[p + 1] + 1;
		if (depth / 2 + 1 < depth)
			pl_graph_add_edge(b, mid[p], dst, 0, 8 * mb);
	}
	op = toy_op("crown/top", "ConcatV2", "crown/top", 1e8, 0, 8 * mb);
	int top = pl_graph_add_op(b, &op, NULL);
	for (int p = 0; p < k; p++)
		pl_graph_add_edge(b, last[p], top, 0, 8 * mb);
	free(last);
	free(mid);
	return pl_graph_build(b, cause);
}

/* The canonical HEFT example: costs per processor, edge data volumes. */
static const double heft_cost[10][3] = {
	{ 14, 16, 9 }, { 13, 19, 18 }, { 11, 13, 19 }, { 13, 8, 17 }, { 12, 13, 10 },
	{ 13, 16, 9 }, { 7, 15, 11 }, { 5, 11, 14 }, { 18, 12, 20 }, { 21, 7, 16 },
};
static const int heft_edge[15][3] = {
	{ 0, 1, 18 }, { 0, 2, 12 }, { 0, 3, 9 }, { 0, 4, 11 }, { 0, 5, 14 },
	{ 1, 7, 19 }, { 1, 8, 16 }, { 2, 6, 23 }, { 3, 7, 27 }, { 3, 8, 23 },
	{ 4, 8, 13 }, { 5, 7, 15 }, { 6, 9, 17 }, { 7, 9, 11 }, { 8, 9, 13 },
};

/* Tasks T0..T9 with measured times on P0, P1, P2; each edge is its own
 * output so that every edge keeps its own data volume. */
static struct pl_graph *
heft(char **cause)
{
	struct pl_graph_builder *b = pl_graph_builder_new("heft");
	static const char *const dev[3] = { "P0", "P1", "P2" };
	for (int i = 0; i < 10; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "T%d", i);
		int64_t out = 0;
		for (int e = 0; e < 15; e++)
			if (heft_edge[e][0] == i)
				out += heft_edge[e][2];
		struct pl_op op = toy_op(nm, "Task", "heft", 0, 0, out);
		struct pl_dev_time t[3];
		for (int p = 0; p < 3; p++)
			t[p] = (struct pl_dev_time){ (char *)dev[p], heft_cost[i][p] };
		op.n_dev_times = 3;
		op.dev_times = t;
		pl_graph_add_op(b, &op, NULL);
	}
	int outs[10] = { 0 };
	for (int e = 0; e < 15; e++) {
		int s = heft_edge[e][0];
		pl_graph_add_edge(b, s, heft_edge[e][1], outs[s]++, heft_edge[e][2]);
	}
	return pl_graph_build(b, cause);
}

/*
 * The teaching graph (14 ops): an input pipeline pinned to the CPU feeds
 * two independent towers of five heavy convolutions (200 GFLOPs each,
 * ~46 ms on a K80) that exchange nothing until a small join.  On k80x2
 * the best placement is obvious: input on the CPU, tower_a on /gpu:0,
 * tower_b on /gpu:1 (about half the single-GPU makespan); anything on the
 * CPU is ~9x slower.
 */
static struct pl_graph *
teach(char **cause)
{
	struct pl_graph_builder *b = pl_graph_builder_new("teach");
	const int64_t mb = 1 << 20;
	struct pl_op op = toy_op("input/read", "ReaderRead", "input", 0, 0, 4 * mb);
	op.cons.kind = PL_CONS_KIND;
	op.cons.dev_kind = PL_DEV_CPU;
	int rd = pl_graph_add_op(b, &op, NULL);
	op = toy_op("input/decode", "DecodeJpeg", "input", 2e8, 0, 8 * mb);
	op.cons.kind = PL_CONS_KIND;
	op.cons.dev_kind = PL_DEV_CPU;
	int dc = pl_graph_add_op(b, &op, NULL);
	pl_graph_add_edge(b, rd, dc, 0, 4 * mb);
	int tops[2];
	for (int tw = 0; tw < 2; tw++) {
		int prev = dc;
		for (int i = 0; i < 5; i++) {
			char nm[32], sc[16];
			snprintf(sc, sizeof sc, "tower_%c", 'a' + tw);
			snprintf(nm, sizeof nm, "tower_%c/conv%d", 'a' + tw, i);
			op = toy_op(nm, "Conv2D", sc, 2e11, 64 * mb, 8 * mb);
			int v = pl_graph_add_op(b, &op, NULL);
			pl_graph_add_edge(b, prev, v, 0, 8 * mb);
			prev = v;
		}
		tops[tw] = prev;
	}
	op = toy_op("head/concat", "ConcatV2", "head", 1e6, 0, 16 * mb);
	int cc = pl_graph_add_op(b, &op, NULL);
	pl_graph_add_edge(b, tops[0], cc, 0, 8 * mb);
	pl_graph_add_edge(b, tops[1], cc, 0, 8 * mb);
	op = toy_op("head/loss", "SoftmaxCrossEntropy", "head", 1e7, 4 * mb, 4);
	int ls = pl_graph_add_op(b, &op, NULL);
	pl_graph_add_edge(b, cc, ls, 0, 16 * mb);
	return pl_graph_build(b, cause);
}

/* Build a toy graph by name. */
struct pl_graph *
pl_gen_toy(const char *model, const struct pl_gen_opts *o, char **cause)
{
	if (strcmp(model, "chain") == 0)
		return chain(o->layers > 0 ? o->layers : 10, cause);
	if (strcmp(model, "crown") == 0)
		return crown(o->layers > 0 ? o->layers : 4, o->seq_len > 0 ? o->seq_len : 4, cause);
	if (strcmp(model, "heft") == 0)
		return heft(cause);
	if (strcmp(model, "teach") == 0)
		return teach(cause);
	*cause = pl_xasprintf("no toy graph '%s'", model);
	return NULL;
}
