/*
 * transformer — the Transformer encoder-decoder (Vaswani et al. 2017):
 * shared embeddings tied with the output projection, L encoder layers
 * (self-attention, feed-forward), L decoder layers (masked
 * self-attention, cross-attention, feed-forward), post-layer-norm,
 * dropout on every sub-layer output.
 *
 * Invariant: scopes emb/..., enc/l<k>/..., dec/l<k>/..., softmax/...;
 * every matmul runs over all B x T tokens of the batch.
 */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

struct tf {
	struct gnet *n;
	int64_t B, T, d, ff, heads;
};

/* A dense layer x[B*T, din] -> [B*T, dout] with bias, in the current scope. */
static int
dense(struct tf *t, const char *name, int x, int64_t din, int64_t dout)
{
	int64_t rows = t->B * t->T;
	double macs = (double)rows * din * dout;
	gnet_count_macs(t->n, macs);
	char nm[64];
	snprintf(nm, sizeof nm, "%s/bias_add", name);
	int m = gnet_op(t->n, name, "MatMul", GG_PRODUCT, 2 * macs, din * dout, rows * dout, 1, x);
	return gnet_op(t->n, nm, "BiasAdd", GG_LINEAR, (double)(rows * dout), dout, rows * dout, 1, m);
}

/* Dropout, residual add and layer norm after a sub-layer. */
static int
add_norm(struct tf *t, int y, int res)
{
	int64_t e = t->B * t->T * t->d;
	struct gnet *n = t->n;
	int ru = gnet_op(n, "dropout/random_uniform", "RandomUniform", GG_NONE, (double)e, 0, e, 0);
	int mk = gnet_op(n, "dropout/mask", "GreaterEqual", GG_NONE, (double)e, 0, e, 1, ru);
	int dm = gnet_op(n, "dropout/mul", "Mul", GG_PRODUCT, 2.0 * e, 0, e, 2, y, mk);
	gnet_set_flags(n, dm, GN_BCAST);
	int a = gnet_op(n, "residual", "Add", GG_LINEAR, (double)e, 0, e, 2, dm, res);
	gnet_set_flags(n, a, GN_BCAST);
	return gnet_op(n, "layer_norm", "LayerNorm", GG_INPUT, 8.0 * e, 2 * t->d, e, 1, a);
}

/* Multi-head attention of queries q over keys/values kv (kv_len steps). */
static int
attention(struct tf *t, int q, int kv)
{
	struct gnet *n = t->n;
	int64_t B = t->B, T = t->T, d = t->d, rows = B * T, e = rows * d;
	int qq = dense(t, "q", q, d, d);
	int kk = dense(t, "k", kv, d, d);
	int vv = dense(t, "v", kv, d, d);
	int qh = gnet_op(n, "q_heads", "Transpose", GG_LINEAR, 0, 0, e, 1, qq);
	int kh = gnet_op(n, "k_heads", "Transpose", GG_LINEAR, 0, 0, e, 1, kk);
	int vh = gnet_op(n, "v_heads", "Transpose", GG_LINEAR, 0, 0, e, 1, vv);
	double smacs = (double)B * T * T * d;
	gnet_count_macs(n, 2 * smacs);
	int64_t se = B * t->heads * T * T;
	int sc = gnet_op(n, "scores", "BatchMatMul", GG_PRODUCT, 2 * smacs, 0, se, 2, qh, kh);
	int ss = gnet_op(n, "scale", "Mul", GG_LINEAR, (double)se, 0, se, 1, sc);
	int sm = gnet_op(n, "softmax", "Softmax", GG_OUTPUT, 5.0 * se, 0, se, 1, ss);
	int cx = gnet_op(n, "context", "BatchMatMul", GG_PRODUCT, 2 * smacs, 0, e, 2, sm, vh);
	int mh = gnet_op(n, "merge_heads", "Transpose", GG_LINEAR, 0, 0, e, 1, cx);
	return dense(t, "output", mh, d, d);
}

/* Feed-forward sub-layer. */
static int
ffn(struct tf *t, int x)
{
	int64_t e = t->B * t->T * t->ff;
	int h = dense(t, "dense_1", x, t->d, t->ff);
	h = gnet_op(t->n, "relu", "Relu", GG_OUTPUT, (double)e, 0, e, 1, h);
	return dense(t, "dense_2", h, t->ff, t->d);
}

/* Embedding lookup, scaling and positional encoding for one side. */
static int
embed(struct tf *t, const char *side, int table)
{
	struct gnet *n = t->n;
	int64_t rows = t->B * t->T, e = rows * t->d;
	gnet_scope(n, "emb/%s", side);
	int ids = gnet_op(n, "ids", "Placeholder", GG_NONE, 0, 0, rows, 0);
	int g = gnet_op(n, "lookup", "Gather", GG_LINEAR, 0, 0, e, 2, table, ids);
	gnet_set_flags(n, g, GN_SPARSE);
	int s = gnet_op(n, "scale", "Mul", GG_LINEAR, (double)e, 0, e, 1, g);
	int pe = gnet_op(n, "positional", "Const", GG_NONE, 0, 0, t->T * t->d, 0);
	int a = gnet_op(n, "add_positional", "Add", GG_LINEAR, (double)e, 0, e, 2, s, pe);
	return a;
}

/* Intermediates a fused attention sub-layer keeps for backward: q, k, v,
 * context, output, dropout mask and residual (7 x tokens x d) and the
 * scores and their softmax (2 x heads x T x T per sequence). */
static int64_t
attn_saved(const struct tf *t)
{
	return 7 * t->B * t->T * t->d + 2 * t->B * t->heads * t->T * t->T;
}

/* Same for the feed-forward sub-layer: both sides of the ReLU, the
 * output, dropout mask and residual. */
static int64_t
ffn_saved(const struct tf *t)
{
	return 2 * t->B * t->T * t->ff + 3 * t->B * t->T * t->d;
}

/* One encoder layer. */
static int
enc_layer(struct tf *t, int l, int x)
{
	struct gnet *n = t->n;
	int64_t e = t->B * t->T * t->d;
	if (gnet_layer(n)) {
		double am = 4.0 * t->B * t->T * t->d * t->d + 2.0 * t->B * t->T * t->T * t->d;
		double fm = 2.0 * t->B * t->T * t->d * t->ff;
		gnet_count_macs(n, am + fm);
		gnet_scope(n, "enc/l%d", l);
		x = gnet_op(n, "self_attn", "MultiHeadAttention", GG_INPUT, 2 * am + 30.0 * e,
		    4 * t->d * t->d + 6 * t->d, e, 1, x);
		gnet_set_saved(n, x, attn_saved(t));
		x = gnet_op(n, "ffn", "FeedForward", GG_INPUT, 2 * fm + 20.0 * e,
		    2 * t->d * t->ff + t->ff + 3 * t->d, e, 1, x);
		gnet_set_saved(n, x, ffn_saved(t));
		return x;
	}
	gnet_scope(n, "enc/l%d/self_attn", l);
	x = add_norm(t, attention(t, x, x), x);
	gnet_scope(n, "enc/l%d/ffn", l);
	return add_norm(t, ffn(t, x), x);
}

/* One decoder layer reading the encoder output mem. */
static int
dec_layer(struct tf *t, int l, int x, int mem)
{
	struct gnet *n = t->n;
	int64_t e = t->B * t->T * t->d;
	if (gnet_layer(n)) {
		double am = 4.0 * t->B * t->T * t->d * t->d + 2.0 * t->B * t->T * t->T * t->d;
		double fm = 2.0 * t->B * t->T * t->d * t->ff;
		gnet_count_macs(n, 2 * am + fm);
		gnet_scope(n, "dec/l%d", l);
		x = gnet_op(n, "self_attn", "MultiHeadAttention", GG_INPUT, 2 * am + 30.0 * e,
		    4 * t->d * t->d + 6 * t->d, e, 1, x);
		gnet_set_saved(n, x, attn_saved(t));
		x = gnet_op(n, "cross_attn", "MultiHeadAttention", GG_INPUT, 2 * am + 30.0 * e,
		    4 * t->d * t->d + 6 * t->d, e, 2, x, mem);
		gnet_set_saved(n, x, attn_saved(t));
		x = gnet_op(n, "ffn", "FeedForward", GG_INPUT, 2 * fm + 20.0 * e,
		    2 * t->d * t->ff + t->ff + 3 * t->d, e, 1, x);
		gnet_set_saved(n, x, ffn_saved(t));
		return x;
	}
	gnet_scope(n, "dec/l%d/self_attn", l);
	x = add_norm(t, attention(t, x, x), x);
	gnet_scope(n, "dec/l%d/cross_attn", l);
	x = add_norm(t, attention(t, x, mem), x);
	gnet_scope(n, "dec/l%d/ffn", l);
	return add_norm(t, ffn(t, x), x);
}

/* Transformer: hidden = d_model, d_ff = 4 d_model, heads = d_model / 64. */
struct gnet *
pl_gen_transformer(const char *name, const struct pl_gen_opts *o)
{
	struct tf t = { gnet_new(name, o, "adam"), o->batch, o->seq_len, o->hidden,
		4 * (int64_t)o->hidden, o->hidden >= 64 ? o->hidden / 64 : 1 };
	struct gnet *n = t.n;
	int64_t V = o->vocab, rows = t.B * t.T;
	gnet_scope(n, "emb");
	int table = gnet_var(n, "shared_table", V * t.d);
	int x = embed(&t, "enc", table);
	for (int l = 0; l < o->layers; l++)
		x = enc_layer(&t, l, x);
	int mem = x;
	int y = embed(&t, "dec", table);
	for (int l = 0; l < o->layers; l++)
		y = dec_layer(&t, l, y, mem);
	gnet_scope(n, "softmax");
	double macs = (double)rows * t.d * V;
	gnet_count_macs(n, macs);
	int labels = gnet_op(n, "labels", "Placeholder", GG_NONE, 0, 0, rows, 0);
	int lg = gnet_op(n, "logits", "MatMul", GG_PRODUCT, 2 * macs, 0, rows * V, 2, y, table);
	int xe = gnet_op(n, "xent", "SparseSoftmaxCrossEntropyWithLogits", GG_INPUT, 6.0 * rows * V, 0,
	    rows, 2, lg, labels);
	int loss = gnet_op(n, "loss", "Mean", GG_LINEAR, (double)rows, 0, 1, 1, xe);
	gnet_set_flags(n, loss, GN_LOSS);
	return n;
}
