/*
 * rnn — recurrent models unrolled over time: NMT (encoder-decoder LSTM
 * with attention, as in the TensorFlow NMT/GNMT models the placement
 * papers use), the RNN language model and ENAS-style random RNN cells.
 *
 * Invariant: scope paths follow docs/SAMPLES.md: emb/..., enc/l<k>/t<t>,
 * dec/l<k>/t<t>, attn/t<t>, softmax/t<t>, lstm/l<k>/t<t>; k and t from 0.
 * Weights of a layer are variables shared by all its time steps.
 */
#include "models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "xmalloc.h"

/* The state a recurrent layer carries from step to step. */
struct lstm_state {
	int h, c;		/* refs: the recurrent state */
	int out;		/* ref: what the next layer reads (h, plus the input
				 * with a residual connection) */
};

/* Dropout on x (TF's dropout: random mask, scale, multiply). */
static int
dropout(struct gnet *n, int x, int64_t elems)
{
	int ru = gnet_op(n, "dropout/random_uniform", "RandomUniform", GG_NONE, (double)elems, 0, elems, 0);
	int ad = gnet_op(n, "dropout/add", "Add", GG_NONE, (double)elems, 0, elems, 1, ru);
	int fl = gnet_op(n, "dropout/floor", "Floor", GG_NONE, (double)elems, 0, elems, 1, ad);
	int dv = gnet_op(n, "dropout/div", "RealDiv", GG_LINEAR, (double)elems, 0, elems, 1, x);
	int mu = gnet_op(n, "dropout/mul", "Mul", GG_PRODUCT, (double)elems, 0, elems, 2, dv, fl);
	gnet_set_flags(n, mu, GN_BCAST);
	return mu;
}

/* A binary elementwise op with TF's broadcasting gradient. */
static int
binop(struct gnet *n, const char *name, const char *type, enum gnet_grad gk,
    int64_t elems, int a, int b)
{
	int v = gnet_op(n, name, type, gk, (double)elems, 0, elems, 2, a, b);
	gnet_set_flags(n, v, GN_BCAST);
	return v;
}

/* One LSTM cell step in the current scope at op granularity (TF's
 * BasicLSTMCell with input dropout and optional residual connection). */
static struct lstm_state
lstm_ops(struct gnet *n, int x, int in_dim, struct lstm_state prev,
    int kernel, int bias, int batch, int hidden, int residual, int drop)
{
	int64_t B = batch, H = hidden, I = in_dim;
	int xd = drop ? dropout(n, x, B * I) : x;
	/* TF's scalar operands (concat axis, split dimension, forget bias). */
	int ax = gnet_op(n, "concat/axis", "Const", GG_NONE, 0, 0, 1, 0);
	int sd = gnet_op(n, "split/split_dim", "Const", GG_NONE, 0, 0, 1, 0);
	int fy = gnet_op(n, "add_forget_bias/y", "Const", GG_NONE, 0, 0, 1, 0);
	int cat = gnet_op(n, "concat", "ConcatV2", GG_LINEAR, 0, 0, B * (I + H), 3, xd, prev.h, ax);
	double macs = (double)B * (double)(I + H) * 4.0 * (double)H;
	gnet_count_macs(n, macs);
	int mm = gnet_op(n, "matmul", "MatMul", GG_PRODUCT, 2 * macs, 0, B * 4 * H, 2, cat, kernel);
	int ba = gnet_op(n, "bias_add", "BiasAdd", GG_LINEAR, (double)(B * 4 * H), 0, B * 4 * H, 2, mm, bias);
	int sp = gnet_op(n, "split", "Split", GG_LINEAR, 0, 0, B * 4 * H, 2, ba, sd);
	gnet_set_outputs(n, sp, 4);
	int gi = gnet_op(n, "sigmoid_i", "Sigmoid", GG_OUTPUT, (double)(4 * B * H), 0, B * H, 1, GREF(sp, 0));
	int gj = gnet_op(n, "tanh_j", "Tanh", GG_OUTPUT, (double)(4 * B * H), 0, B * H, 1, GREF(sp, 1));
	int fb = gnet_op(n, "add_forget_bias", "Add", GG_LINEAR, (double)(B * H), 0, B * H, 2, GREF(sp, 2), fy);
	int gf = gnet_op(n, "sigmoid_f", "Sigmoid", GG_OUTPUT, (double)(4 * B * H), 0, B * H, 1, fb);
	int go = gnet_op(n, "sigmoid_o", "Sigmoid", GG_OUTPUT, (double)(4 * B * H), 0, B * H, 1, GREF(sp, 3));
	int mc = binop(n, "mul_c", "Mul", GG_PRODUCT, B * H, prev.c, gf);
	int mij = binop(n, "mul_ij", "Mul", GG_PRODUCT, B * H, gi, gj);
	int c = binop(n, "add_c", "Add", GG_LINEAR, B * H, mc, mij);
	int tc = gnet_op(n, "tanh_c", "Tanh", GG_OUTPUT, (double)(4 * B * H), 0, B * H, 1, c);
	int h = binop(n, "mul_h", "Mul", GG_PRODUCT, B * H, tc, go);
	int out = h;
	/* GNMT's residual wrapper adds the input to the output, not the state. */
	if (residual && in_dim == hidden)
		out = binop(n, "residual", "Add", GG_LINEAR, B * H, h, x);
	return (struct lstm_state){ h, c, out };
}

/* One LSTM cell step as a single op (layer granularity); weights holds
 * kernel and bias. */
static struct lstm_state
lstm_layer(struct gnet *n, int x, int in_dim, struct lstm_state prev,
    int weights, int batch, int hidden)
{
	int64_t B = batch, H = hidden, I = in_dim;
	double macs = (double)B * (double)(I + H) * 4.0 * (double)H;
	gnet_count_macs(n, macs);
	int v = gnet_op(n, "lstm", "LSTMCell", GG_INPUT, 2 * macs + 30.0 * (double)(B * H), 0,
	    2 * B * H, 4, x, prev.h, prev.c, weights);
	/* Kept for the backward pass: the [x, h] concat, the gate
	 * pre-activations and activations, tanh(c). */
	gnet_set_saved(n, v, B * (I + H) + 9 * B * H);
	gnet_set_outputs(n, v, 2);
	return (struct lstm_state){ GREF(v, 0), GREF(v, 1), GREF(v, 0) };
}

/* Variables of one LSTM layer in the current scope: refs kernel and bias
 * (op granularity) or one weights variable (layer granularity, in *kernel). */
static void
lstm_vars(struct gnet *n, int in_dim, int hidden, int *kernel, int *bias)
{
	int64_t I = in_dim, H = hidden;
	if (gnet_layer(n)) {
		*kernel = gnet_var(n, "weights", (I + H + 1) * 4 * H);
		*bias = -1;
	} else {
		*kernel = gnet_var(n, "kernel", (I + H) * 4 * H);
		*bias = gnet_var(n, "bias", 4 * H);
	}
}

/* A zero initial state for a layer. */
static struct lstm_state
zero_state(struct gnet *n, int batch, int hidden)
{
	int z = gnet_op(n, "zero_state", "Zeros", GG_NONE, 0, 0, 2 * (int64_t)batch * hidden, 0);
	gnet_set_outputs(n, z, 2);
	return (struct lstm_state){ GREF(z, 0), GREF(z, 1), GREF(z, 0) };
}

/* One step of a stack of LSTM layers: cell (l, t) in scope
 * "<side>/l<l>/t<t>"; updates st[] and returns the top output. */
static int
lstm_stack_step(struct gnet *n, const char *side, int t, int x, int in_dim,
    struct lstm_state *st, const int *kern, const int *bias, int first, int layers,
    int batch, int hidden, int residual_from)
{
	for (int l = first; l < layers; l++) {
		gnet_scope(n, "%s/l%d/t%d", side, l, t);
		int d = l == first ? in_dim : hidden;
		if (gnet_layer(n))
			st[l] = lstm_layer(n, x, d, st[l], kern[l], batch, hidden);
		else
			st[l] = lstm_ops(n, x, d, st[l], kern[l], bias[l], batch, hidden,
			    residual_from > 0 && l >= residual_from, 1);
		x = st[l].out;
	}
	return x;
}

/* Embedding lookup of step t from table with ids, in scope emb/<side>/t<t>. */
static int
lookup(struct gnet *n, const char *side, int t, int table, int ids, int batch, int dim)
{
	gnet_scope(n, "emb/%s/t%d", side, t);
	int v = gnet_op(n, "lookup", "Gather", GG_LINEAR, 0, 0, (int64_t)batch * dim, 2, table, ids);
	gnet_set_flags(n, v, GN_SPARSE);
	return v;
}

/* Output projection, softmax and cross-entropy of step t; returns the
 * per-step loss. */
static int
softmax_step(struct gnet *n, int t, int x, int proj, int pbias, int labels,
    int batch, int hidden, int vocab)
{
	int64_t B = batch, V = vocab;
	double macs = (double)B * hidden * (double)V;
	gnet_count_macs(n, macs);
	gnet_scope(n, "softmax/t%d", t);
	if (gnet_layer(n)) {
		int v = gnet_op(n, "softmax_loss", "SoftmaxCrossEntropy", GG_INPUT,
		    2 * macs + 6.0 * (double)(B * V), 0, B, 3, x, proj, labels);
		gnet_set_saved(n, v, 2 * B * V);	/* logits and softmax */
		return v;
	}
	int lg = gnet_op(n, "logits", "MatMul", GG_PRODUCT, 2 * macs, 0, B * V, 2, x, proj);
	int lb = gnet_op(n, "bias_add", "BiasAdd", GG_LINEAR, (double)(B * V), 0, B * V, 2, lg, pbias);
	return gnet_op(n, "xent", "SparseSoftmaxCrossEntropyWithLogits", GG_INPUT,
	    6.0 * (double)(B * V), 0, B, 2, lb, labels);
}

/* The total loss: mean of the per-step losses. */
static void
total_loss(struct gnet *n, const int *losses, int count, int batch)
{
	gnet_scope(n, "softmax");
	int s = gnet_opa(n, "loss_sum", "AddN", GG_LINEAR, (double)count * batch, 0, batch,
	    count, losses);
	int m = gnet_op(n, "loss", "Mean", GG_LINEAR, (double)batch, 0, 1, 1, s);
	gnet_set_flags(n, m, GN_LOSS);
}

/* NMT: embeddings, L-layer encoder, L-layer decoder with Luong attention
 * and input feeding, per-step softmax loss. */
struct gnet *
pl_gen_nmt(const char *name, const struct pl_gen_opts *o)
{
	int B = o->batch, T = o->seq_len, H = o->hidden, L = o->layers, V = o->vocab;
	struct gnet *n = gnet_new(name, o, "adam");
	int *ek = pl_xcalloc(L, sizeof *ek), *eb = pl_xcalloc(L, sizeof *eb);
	int *dk = pl_xcalloc(L, sizeof *dk), *db = pl_xcalloc(L, sizeof *db);
	struct lstm_state *es = pl_xcalloc(L, sizeof *es), *ds = pl_xcalloc(L, sizeof *ds);
	int *enc_top = pl_xcalloc(T, sizeof *enc_top), *losses = pl_xcalloc(T, sizeof *losses);

	gnet_scope(n, "emb/enc");
	int etab = gnet_var(n, "table", (int64_t)V * H);
	int eids = gnet_op(n, "ids", "Placeholder", GG_NONE, 0, 0, (int64_t)B * T, 0);
	gnet_scope(n, "emb/dec");
	int dtab = gnet_var(n, "table", (int64_t)V * H);
	int dids = gnet_op(n, "ids", "Placeholder", GG_NONE, 0, 0, (int64_t)B * T, 0);
	for (int l = 0; l < L; l++) {
		gnet_scope(n, "enc/l%d", l);
		lstm_vars(n, l == 1 ? 2 * H : H, H, &ek[l], &eb[l]);
		es[l] = zero_state(n, B, H);
	}
	/* Decoder layer 0 reads [embedding, previous attention] (input feeding). */
	for (int l = 0; l < L; l++) {
		gnet_scope(n, "dec/l%d", l);
		lstm_vars(n, l == 0 ? 2 * H : H, H, &dk[l], &db[l]);
		ds[l] = zero_state(n, B, H);
	}
	gnet_scope(n, "attn");
	int wmem = gnet_var(n, "memory_kernel", (int64_t)H * H);
	int watt = gnet_var(n, "attention_kernel", (int64_t)2 * H * H);
	int prev_att = gnet_op(n, "zero_attention", "Zeros", GG_NONE, 0, 0, (int64_t)B * H, 0);
	gnet_scope(n, "softmax");
	int proj = gnet_var(n, "kernel", (int64_t)H * V);
	int pbias = gnet_layer(n) ? -1 : gnet_var(n, "bias", V);
	int labels = gnet_op(n, "labels", "Placeholder", GG_NONE, 0, 0, (int64_t)B * T, 0);

	/* Encoder: GNMT's bidirectional bottom layer (the backward direction
	 * in enc/l0/t<t>/bw), then the unidirectional layers above. */
	int *emb = pl_xcalloc(T, sizeof *emb), *fw = pl_xcalloc(T, sizeof *fw);
	for (int t = 0; t < T; t++) {
		emb[t] = lookup(n, "enc", t, etab, eids, B, H);
		fw[t] = lstm_stack_step(n, "enc", t, emb[t], H, es, ek, eb, 0, 1, B, H, 0);
	}
	if (L > 1) {
		gnet_scope(n, "enc/l0/bw");
		int bk, bb;
		lstm_vars(n, H, H, &bk, &bb);
		struct lstm_state bs = zero_state(n, B, H);
		int *bwo = pl_xcalloc(T, sizeof *bwo);
		for (int t = T - 1; t >= 0; t--) {
			gnet_scope(n, "enc/l0/t%d/bw", t);
			if (gnet_layer(n))
				bs = lstm_layer(n, emb[t], H, bs, bk, B, H);
			else
				bs = lstm_ops(n, emb[t], H, bs, bk, bb, B, H, 0, 1);
			bwo[t] = bs.out;
		}
		for (int t = 0; t < T; t++) {
			gnet_scope(n, "enc/l1/t%d", t);
			int x = gnet_op(n, "bidi_concat", "ConcatV2", GG_LINEAR, 0, 0, 2 * (int64_t)B * H, 2, fw[t], bwo[t]);
			enc_top[t] = lstm_stack_step(n, "enc", t, x, 2 * H, es, ek, eb, 1, L, B, H, 2);
		}
		free(bwo);
	} else
		memcpy(enc_top, fw, sizeof *fw * T);
	free(emb);
	free(fw);
	/* Attention memory: the encoder's top outputs and their keys. */
	gnet_scope(n, "attn");
	double kmacs = (double)B * T * (double)H * H;
	gnet_count_macs(n, kmacs);
	int mem = gnet_opa(n, "memory", "Pack", GG_LINEAR, 0, 0, (int64_t)B * T * H, T, enc_top);
	int keys = gnet_op(n, "keys", "MatMul", GG_PRODUCT, 2 * kmacs, 0, (int64_t)B * T * H, 2, mem, wmem);
	for (int t = 0; t < T; t++) {
		int e = lookup(n, "dec", t, dtab, dids, B, H);
		int64_t b = B, h = H;
		gnet_scope(n, "dec/l0/t%d", t);
		int x = gnet_op(n, "input_feed", "ConcatV2", GG_LINEAR, 0, 0, 2 * b * h, 2, e, prev_att);
		int top = lstm_stack_step(n, "dec", t, x, 2 * H, ds, dk, db, 0, L, B, H, 2);
		gnet_scope(n, "attn/t%d", t);
		double smacs = (double)b * T * h, amacs = (double)b * 2 * h * h;
		gnet_count_macs(n, 2 * smacs + amacs);
		int att;
		if (gnet_layer(n)) {
			att = gnet_op(n, "attention", "Attention", GG_INPUT,
			    4 * smacs + 2 * amacs + 5.0 * b * T, 0, b * h, 4, top, keys, mem, watt);
			gnet_set_saved(n, att, 2 * b * T + 4 * b * h);
		} else {
			int sc = gnet_op(n, "score", "BatchMatMul", GG_PRODUCT, 2 * smacs, 0, b * T, 2, top, keys);
			int al = gnet_op(n, "alignments", "Softmax", GG_OUTPUT, 5.0 * b * T, 0, b * T, 1, sc);
			int cx = gnet_op(n, "context", "BatchMatMul", GG_PRODUCT, 2 * smacs, 0, b * h, 2, al, mem);
			int cc = gnet_op(n, "concat", "ConcatV2", GG_LINEAR, 0, 0, 2 * b * h, 2, cx, top);
			int mm = gnet_op(n, "matmul", "MatMul", GG_PRODUCT, 2 * amacs, 0, b * h, 2, cc, watt);
			att = gnet_op(n, "tanh", "Tanh", GG_OUTPUT, 4.0 * b * h, 0, b * h, 1, mm);
		}
		prev_att = att;
		losses[t] = softmax_step(n, t, att, proj, pbias, labels, B, H, V);
	}
	total_loss(n, losses, T, B);
	free(ek);
	free(eb);
	free(dk);
	free(db);
	free(es);
	free(ds);
	free(enc_top);
	free(losses);
	return n;
}

/* RNN language model: embedding, L LSTM layers, softmax at every step. */
struct gnet *
pl_gen_rnnlm(const char *name, const struct pl_gen_opts *o)
{
	int B = o->batch, T = o->seq_len, H = o->hidden, L = o->layers, V = o->vocab;
	struct gnet *n = gnet_new(name, o, "sgd");
	int *k = pl_xcalloc(L, sizeof *k), *bs = pl_xcalloc(L, sizeof *bs);
	struct lstm_state *st = pl_xcalloc(L, sizeof *st);
	int *losses = pl_xcalloc(T, sizeof *losses);
	gnet_scope(n, "emb");
	int tab = gnet_var(n, "table", (int64_t)V * H);
	int ids = gnet_op(n, "ids", "Placeholder", GG_NONE, 0, 0, (int64_t)B * T, 0);
	for (int l = 0; l < L; l++) {
		gnet_scope(n, "lstm/l%d", l);
		lstm_vars(n, H, H, &k[l], &bs[l]);
		st[l] = zero_state(n, B, H);
	}
	gnet_scope(n, "softmax");
	int proj = gnet_var(n, "kernel", (int64_t)H * V);
	int pbias = gnet_layer(n) ? -1 : gnet_var(n, "bias", V);
	int labels = gnet_op(n, "labels", "Placeholder", GG_NONE, 0, 0, (int64_t)B * T, 0);
	for (int t = 0; t < T; t++) {
		gnet_scope(n, "emb/t%d", t);
		int x = gnet_op(n, "lookup", "Gather", GG_LINEAR, 0, 0, (int64_t)B * H, 2, tab, ids);
		gnet_set_flags(n, x, GN_SPARSE);
		int top = lstm_stack_step(n, "lstm", t, x, H, st, k, bs, 0, L, B, H, 0);
		losses[t] = softmax_step(n, t, top, proj, pbias, labels, B, H, V);
	}
	total_loss(n, losses, T, B);
	free(k);
	free(bs);
	free(st);
	free(losses);
	return n;
}

/* ENAS recurrent cell activations. */
static const char *const enas_act[] = { "Tanh", "Relu", "Identity", "Sigmoid" };

/*
 * ENAS RNN (Pham et al. 2018, search space of §2.1): a cell of `nodes`
 * nodes; node 0 reads x_t and h_{t-1}, node j>0 reads one earlier node
 * chosen at random and applies a random activation with a highway gate;
 * the cell output is the mean of the loose ends.  `layers` cells are
 * stacked, unrolled over seq_len steps, with an embedding and a softmax.
 */
struct gnet *
pl_gen_enas_rnn(const char *name, const struct pl_gen_opts *o, struct pl_rng *r)
{
	int B = o->batch, T = o->seq_len, H = o->hidden, V = o->vocab, L = o->layers;
	int N = o->cells > 0 ? o->cells : 8;
	int64_t b = B, h = H;
	struct gnet *n = gnet_new(name, o, "sgd");
	int *prev = pl_xcalloc(N, sizeof *prev), *act = pl_xcalloc(N, sizeof *act);
	for (int j = 1; j < N; j++)
		prev[j] = (int)pl_rng_below(r, (uint64_t)j);
	for (int j = 0; j < N; j++)
		act[j] = (int)pl_rng_below(r, 4);
	int *losses = pl_xcalloc(T, sizeof *losses);
	int *w = pl_xcalloc((size_t)L * N, sizeof *w), *hs = pl_xcalloc(L, sizeof *hs);
	int *node = pl_xcalloc(N, sizeof *node), *used = pl_xcalloc(N, sizeof *used);
	int *ends = pl_xcalloc(N, sizeof *ends);
	gnet_scope(n, "emb");
	int tab = gnet_var(n, "table", (int64_t)V * H);
	int ids = gnet_op(n, "ids", "Placeholder", GG_NONE, 0, 0, b * T, 0);
	for (int l = 0; l < L; l++) {
		gnet_scope(n, "cell/l%d", l);
		for (int j = 0; j < N; j++) {
			char nm[32];
			snprintf(nm, sizeof nm, "w_node%d", j);
			w[l * N + j] = gnet_var(n, nm, (j == 0 ? 2 : 1) * h * 2 * h);
		}
		int z = gnet_op(n, "zero_state", "Zeros", GG_NONE, 0, 0, b * h, 0);
		hs[l] = z;
	}
	for (int j = 1; j < N; j++)
		used[prev[j]] = 1;
	gnet_scope(n, "softmax");
	int proj = gnet_var(n, "kernel", h * V);
	int pbias = gnet_layer(n) ? -1 : gnet_var(n, "bias", V);
	int labels = gnet_op(n, "labels", "Placeholder", GG_NONE, 0, 0, b * T, 0);
	for (int t = 0; t < T; t++) {
		gnet_scope(n, "emb/t%d", t);
		int x = gnet_op(n, "lookup", "Gather", GG_LINEAR, 0, 0, b * h, 2, tab, ids);
		gnet_set_flags(n, x, GN_SPARSE);
		for (int l = 0; l < L; l++) {
			for (int j = 0; j < N; j++) {
				gnet_scope(n, "cell/l%d/t%d/node%d", l, t, j);
				int in_dim = j == 0 ? 2 : 1;
				double macs = (double)b * in_dim * h * 2 * h;
				gnet_count_macs(n, macs);
				int src = j == 0 ? -1 : node[prev[j]];
				if (gnet_layer(n)) {
					int v = j == 0 ?
					    gnet_op(n, "node", "EnasNode", GG_INPUT, 2 * macs + 12.0 * b * h, 0, b * h, 3, x, hs[l], w[l * N + j]) :
					    gnet_op(n, "node", "EnasNode", GG_INPUT, 2 * macs + 12.0 * b * h, 0, b * h, 2, src, w[l * N + j]);
					gnet_set_saved(n, v, 5 * b * h);
					node[j] = v;
					continue;
				}
				int in = src;
				if (j == 0)
					in = gnet_op(n, "concat", "ConcatV2", GG_LINEAR, 0, 0, 2 * b * h, 2, x, hs[l]);
				int mm = gnet_op(n, "matmul", "MatMul", GG_PRODUCT, 2 * macs, 0, 2 * b * h, 2, in, w[l * N + j]);
				int sp = gnet_op(n, "split", "Split", GG_LINEAR, 0, 0, 2 * b * h, 1, mm);
				gnet_set_outputs(n, sp, 2);
				int c = gnet_op(n, "gate", "Sigmoid", GG_OUTPUT, 4.0 * b * h, 0, b * h, 1, GREF(sp, 0));
				int a = gnet_op(n, "activation", enas_act[act[j]], GG_OUTPUT, 4.0 * b * h, 0, b * h, 1, GREF(sp, 1));
				int base = j == 0 ? hs[l] : src;
				int d = binop(n, "sub", "Sub", GG_LINEAR, b * h, a, base);
				int m = binop(n, "mul", "Mul", GG_PRODUCT, b * h, c, d);
				node[j] = binop(n, "highway", "Add", GG_LINEAR, b * h, base, m);
			}
			int ne = 0;
			for (int j = 0; j < N; j++)
				if (!used[j])
					ends[ne++] = node[j];
			gnet_scope(n, "cell/l%d/t%d", l, t);
			int s = gnet_opa(n, "output_sum", "AddN", GG_LINEAR, (double)(ne - 1) * b * h, 0, b * h, ne, ends);
			hs[l] = gnet_op(n, "output", "Mul", GG_LINEAR, (double)(b * h), 0, b * h, 1, s);
			x = hs[l];
		}
		losses[t] = softmax_step(n, t, x, proj, pbias, labels, B, H, V);
	}
	total_loss(n, losses, T, B);
	free(prev);
	free(act);
	free(losses);
	free(w);
	free(hs);
	free(node);
	free(used);
	free(ends);
	return n;
}
