/*
 * nas — networks of NAS cells: NASNet-A (the normal and reduction cells
 * of TF-slim's nasnet_utils.py) and random cells of ENAS's micro search
 * space (Pham et al. 2018) stacked the same way.
 *
 * Invariant: a cell reads the two previous cell outputs (h_{-2}, h_{-1}),
 * brings both to `filters` channels at its resolution, runs B blocks of
 * two operations each and concatenates the hidden states no block or the
 * cell spec marks as used.  Scopes: cell_<k>/block_<b>/left|right.
 */
#include "cnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "xmalloc.h"

enum nas_op { SEP3, SEP5, SEP7, AVG3, MAX3, IDENT };

#define NAS_MAX_BLOCKS 8

struct cell_spec {
	int blocks;
	enum nas_op op[2 * NAS_MAX_BLOCKS];
	int idx[2 * NAS_MAX_BLOCKS];	/* input hidden state of each op */
	int used[NAS_MAX_BLOCKS + 2];	/* 1: not in the output concat */
	int reduction;
};

/* NASNet-A cells (nasnet_utils.NasNetANormalCell / ReductionCell). */
static const struct cell_spec nasnet_normal = {
	5,
	{ SEP5, SEP3, SEP5, SEP3, AVG3, IDENT, AVG3, AVG3, SEP3, IDENT },
	{ 0, 1, 1, 1, 0, 1, 1, 1, 0, 0 },
	{ 1, 0, 0, 0, 0, 0, 0 },
	0,
};
static const struct cell_spec nasnet_reduction = {
	5,
	{ SEP5, SEP7, MAX3, SEP7, AVG3, SEP5, IDENT, AVG3, SEP3, MAX3 },
	{ 0, 1, 0, 1, 0, 1, 3, 2, 2, 0 },
	{ 1, 1, 1, 0, 0, 0, 0 },
	1,
};

/* Bring x to `filters` channels at spatial size h (stride 2 if larger). */
static struct fmap
adjust(struct gnet *n, int B, const char *scope, struct fmap x, int filters, int h)
{
	if (x.c == filters && x.h == h)
		return x;
	return cnn_conv(n, B, scope, x, filters, 1, 1, x.h > h ? 2 : 1, CNN_SAME, 0);
}

/* One operation of a block. */
static struct fmap
apply_op(struct gnet *n, int B, const char *scope, enum nas_op op, struct fmap x,
    int filters, int stride)
{
	char sc[160];
	switch (op) {
	case SEP3:
	case SEP5:
	case SEP7: {
		int k = op == SEP3 ? 3 : op == SEP5 ? 5 : 7;
		snprintf(sc, sizeof sc, "%s/sep1", scope);
		x = cnn_sepconv(n, B, sc, x, filters, k, stride);
		snprintf(sc, sizeof sc, "%s/sep2", scope);
		return cnn_sepconv(n, B, sc, x, filters, k, 1);
	}
	case AVG3:
	case MAX3:
		x = cnn_pool(n, B, scope, op == AVG3 ? "AvgPool" : "MaxPool", x, 3, stride, CNN_SAME);
		if (x.c != filters)
			x = cnn_conv(n, B, scope, x, filters, 1, 1, 1, CNN_SAME, 0);
		return x;
	case IDENT:
	default:
		if (stride > 1 || x.c != filters)
			return cnn_conv(n, B, scope, x, filters, 1, 1, stride, CNN_SAME, 0);
		return x;
	}
}

/* One cell; returns its output. */
static struct fmap
cell(struct gnet *n, int B, const char *name, struct fmap prev, struct fmap cur,
    int filters, const struct cell_spec *sp)
{
	char sc[128];
	struct fmap st[NAS_MAX_BLOCKS + 2];
	snprintf(sc, sizeof sc, "%s/prev_1x1", name);
	st[0] = adjust(n, B, sc, prev, filters, cur.h);
	snprintf(sc, sizeof sc, "%s/cur_1x1", name);
	st[1] = adjust(n, B, sc, cur, filters, cur.h);
	int used[NAS_MAX_BLOCKS + 2];
	memcpy(used, sp->used, sizeof used);
	for (int b = 0; b < sp->blocks; b++) {
		struct fmap side[2];
		for (int s = 0; s < 2; s++) {
			int i = sp->idx[2 * b + s];
			int stride = sp->reduction && i < 2 ? 2 : 1;
			snprintf(sc, sizeof sc, "%s/block_%d/%s", name, b, s ? "right" : "left");
			side[s] = apply_op(n, B, sc, sp->op[2 * b + s], st[i], filters, stride);
		}
		snprintf(sc, sizeof sc, "%s/block_%d", name, b);
		st[b + 2] = cnn_add(n, B, sc, side, 2, 0);
	}
	struct fmap out[NAS_MAX_BLOCKS + 2];
	int k = 0;
	for (int i = 0; i < sp->blocks + 2; i++)
		if (!used[i]) {
			out[k] = st[i];
			if (out[k].h != st[sp->blocks + 1].h) {
				snprintf(sc, sizeof sc, "%s/reduce_%d", name, i);
				out[k] = adjust(n, B, sc, out[k], filters, st[sp->blocks + 1].h);
			}
			k++;
		}
	return cnn_concat(n, B, name, out, k);
}

/* Stack from (prev, cur): (N normal + reduction) x 2, N normal, head. */
static void
stack(struct gnet *n, int B, struct fmap prev, struct fmap cur, int N, int filters,
    const struct cell_spec *normal, const struct cell_spec *reduction, int classes)
{
	int k = 0, f = filters;
	char name[32];
	for (int r = 0; r < 3; r++) {
		if (r > 0) {
			f *= 2;
			snprintf(name, sizeof name, "reduction_cell_%d", r - 1);
			struct fmap y = cell(n, B, name, prev, cur, f, reduction);
			prev = cur;
			cur = y;
		}
		for (int i = 0; i < N; i++, k++) {
			snprintf(name, sizeof name, "cell_%d", k);
			struct fmap y = cell(n, B, name, prev, cur, f, normal);
			prev = cur;
			cur = y;
		}
	}
	gnet_scope(n, "final");
	int64_t el = (int64_t)B * cur.c * cur.h * cur.w;
	cur.ref = gnet_op(n, "relu", "Relu", GG_OUTPUT, (double)el, 0, el, 1, cur.ref);
	cnn_head(n, B, cur, classes);
}

/* NASNet-A Large: stem conv, two stem reduction cells, 3 x N cells. */
struct gnet *
pl_gen_nasnet_a(const char *name, const struct pl_gen_opts *o)
{
	int B = o->batch, F = o->hidden, N = o->cells;
	struct gnet *n = gnet_new(name, o, "momentum");
	/* TF-slim nasnet_large_arg_scope: l2_regularizer(5e-5) on the
	 * weights of convolutions, separable convolutions and the classifier. */
	gnet_set_decay(n, GD_SLIM);
	gnet_set_tf_optimizer(n);
	struct fmap x = cnn_input(n, B, 3, o->image, o->image);
	x = cnn_conv(n, B, "conv0", x, 96, 3, 3, 2, CNN_VALID, 0);
	struct fmap s0 = cell(n, B, "cell_stem_0", x, x, F / 4, &nasnet_reduction);
	struct fmap s1 = cell(n, B, "cell_stem_1", x, s0, F / 2, &nasnet_reduction);
	stack(n, B, s0, s1, N, F, &nasnet_normal, &nasnet_reduction, 1000);
	return n;
}

/* A random ENAS micro cell: inputs uniform over earlier states, ops
 * uniform over {sep3x3, sep5x5, avg3x3, max3x3, identity}. */
static void
random_cell(struct pl_rng *r, struct cell_spec *sp, int reduction)
{
	static const enum nas_op ops[5] = { SEP3, SEP5, AVG3, MAX3, IDENT };
	memset(sp, 0, sizeof *sp);
	sp->blocks = 5;
	sp->reduction = reduction;
	/* ENAS concatenates the unused block outputs, never the cell inputs. */
	sp->used[0] = sp->used[1] = 1;
	for (int b = 0; b < 5; b++)
		for (int s = 0; s < 2; s++) {
			int i = (int)pl_rng_below(r, (uint64_t)(b + 2));
			sp->idx[2 * b + s] = i;
			sp->op[2 * b + s] = ops[pl_rng_below(r, 5)];
			sp->used[i] = 1;
		}
}

/* ENAS-CNN for CIFAR-10: stem, random normal and reduction cells. */
struct gnet *
pl_gen_enas_cnn(const char *name, const struct pl_gen_opts *o, struct pl_rng *r)
{
	int B = o->batch, F = o->hidden, N = o->cells;
	struct cell_spec normal, reduction;
	random_cell(r, &normal, 0);
	random_cell(r, &reduction, 1);
	struct gnet *n = gnet_new(name, o, "momentum");
	struct fmap x = cnn_input(n, B, 3, o->image, o->image);
	x = cnn_conv(n, B, "stem", x, 3 * F, 3, 3, 1, CNN_SAME, 0);
	stack(n, B, x, x, N, F, &normal, &reduction, 10);
	return n;
}
