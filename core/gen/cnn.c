/*
 * cnn — convolutional building blocks, ResNet-50 and Inception-V3.
 *
 * Invariant: layer shapes follow the published architectures (ResNet-50
 * v1.5 as in torchvision, Inception-V3 as in Keras/TF-slim without the
 * auxiliary head), so forward multiply-adds and parameter counts match
 * the published figures (tests/test-gen.c checks them).
 */
#include "cnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "xmalloc.h"

/* Output size of a window of k with stride s. */
static int
out_size(int in, int k, int s, int pad)
{
	return pad == CNN_SAME ? (in + s - 1) / s : (in - k) / s + 1;
}

/* ---- op granularity: TensorFlow's training-graph decomposition -------- */

/* A trainable variable `name` (elems) in the current scope and its read
 * (Identity, colocated with it); with `decay`, the model's weight-decay
 * ops on the read, registered as a regularisation loss.  Returns the
 * read. */
static int
op_var(struct gnet *n, const char *name, int64_t elems, int decay)
{
	char nm[128];
	int v = gnet_var(n, name, elems);
	snprintf(nm, sizeof nm, "%s/read", name);
	int r = gnet_op(n, nm, "Identity", GG_LINEAR, 0, 0, elems, 1, v);
	gnet_set_flags(n, r, GN_PASS);
	gnet_set_coloc(n, r, v);
	enum gnet_decay d = gnet_decay(n);
	if (!decay || d == GD_NONE)
		return r;
	snprintf(nm, sizeof nm, "%s/Regularizer/L2Loss", name);
	int l = gnet_op(n, nm, "L2Loss", GG_INPUT, 2.0 * (double)elems, 0, 1, 1, r);
	if (d == GD_SLIM) {
		snprintf(nm, sizeof nm, "%s/Regularizer/scale", name);
		int c = gnet_op(n, nm, "Const", GG_NONE, 0, 0, 1, 0);
		snprintf(nm, sizeof nm, "%s/Regularizer/mul", name);
		l = gnet_op(n, nm, "Mul", GG_PRODUCT, 1, 0, 1, 2, c, l);
		gnet_set_flags(n, l, GN_BCAST);
	}
	gnet_add_reg(n, l);
	return r;
}

/* A non-trainable variable (moving statistics) and its read; *var gets
 * the variable.  Returns the read. */
static int
op_state(struct gnet *n, const char *name, int64_t elems, int *var)
{
	char nm[128];
	int v = gnet_opa(n, name, "VariableV2", GG_NONE, 0, elems, elems, 0, NULL);
	gnet_set_flags(n, v, GN_STATE);
	snprintf(nm, sizeof nm, "%s/read", name);
	int r = gnet_op(n, nm, "Identity", GG_NONE, 0, 0, elems, 1, v);
	gnet_set_coloc(n, r, v);
	*var = v;
	return r;
}

/* A binary elementwise op with TF's broadcasting gradient. */
static int
op_bin(struct gnet *n, const char *name, const char *type, enum gnet_grad gk,
    double flops, int64_t elems, int a, int b)
{
	int v = gnet_op(n, name, type, gk, flops, 0, elems, 2, a, b);
	gnet_set_flags(n, v, GN_BCAST);
	return v;
}

/* A reduce-mean over all but the channel axis. */
static int
op_mean(struct gnet *n, const char *name, double flops, int64_t elems, int x)
{
	int v = gnet_op(n, name, "Mean", GG_LINEAR, flops, 0, elems, 1, x);
	gnet_set_flags(n, v, GN_MEAN);
	return v;
}

/* The moving-average update of one statistic: (var - value) * (1 -
 * decay), assigned by AssignSub on the variable. */
static void
op_moving_avg(struct gnet *n, const char *pfx, int var, int read, int value, int c)
{
	char nm[128];
	snprintf(nm, sizeof nm, "%s/decay", pfx);
	int d = gnet_op(n, nm, "Const", GG_NONE, 0, 0, 1, 0);
	snprintf(nm, sizeof nm, "%s/sub", pfx);
	int s = gnet_op(n, nm, "Sub", GG_NONE, c, 0, c, 2, read, value);
	snprintf(nm, sizeof nm, "%s/mul", pfx);
	int m = gnet_op(n, nm, "Mul", GG_NONE, c, 0, c, 2, s, d);
	int a = gnet_op(n, pfx, "AssignSub", GG_NONE, c, 0, c, 2, var, m);
	gnet_set_coloc(n, a, var);
}

/* Batch normalisation in training mode as TF builds it unfused
 * (tf.nn.moments + tf.nn.batch_normalization + moving averages): mean,
 * stop-gradient, squared difference, variance, squeezes, var + epsilon,
 * rsqrt, scale by gamma, x * scale, beta - mean * scale, add; the moving
 * mean and variance updated by AssignMovingAvg.  Returns the output. */
static int
op_batchnorm(struct gnet *n, int x, int64_t elems, int c)
{
	double E = (double)elems, C = c;
	int gamma = op_var(n, "bn/gamma", c, 0), beta = op_var(n, "bn/beta", c, 0);
	int mm, mv;
	int mm_r = op_state(n, "bn/moving_mean", c, &mm);
	int mv_r = op_state(n, "bn/moving_variance", c, &mv);
	int mean = op_mean(n, "bn/moments/mean", E, c, x);
	int sg = gnet_op(n, "bn/moments/StopGradient", "StopGradient", GG_NONE, 0, 0, c, 1, mean);
	int sq = op_bin(n, "bn/moments/SquaredDifference", "SquaredDifference", GG_PRODUCT,
	    2 * E, elems, x, sg);
	int var = op_mean(n, "bn/moments/variance", E, c, sq);
	int msq = gnet_op(n, "bn/moments/Squeeze", "Squeeze", GG_LINEAR, 0, 0, c, 1, mean);
	int vsq = gnet_op(n, "bn/moments/Squeeze_1", "Squeeze", GG_LINEAR, 0, 0, c, 1, var);
	int eps = gnet_op(n, "bn/batchnorm/add/y", "Const", GG_NONE, 0, 0, 1, 0);
	int a = op_bin(n, "bn/batchnorm/add", "Add", GG_LINEAR, C, c, vsq, eps);
	int rs = gnet_op(n, "bn/batchnorm/Rsqrt", "Rsqrt", GG_OUTPUT, C, 0, c, 1, a);
	int scale = op_bin(n, "bn/batchnorm/mul", "Mul", GG_PRODUCT, C, c, rs, gamma);
	int y = op_bin(n, "bn/batchnorm/mul_1", "Mul", GG_PRODUCT, E, elems, x, scale);
	int ms = op_bin(n, "bn/batchnorm/mul_2", "Mul", GG_PRODUCT, C, c, msq, scale);
	int shift = op_bin(n, "bn/batchnorm/sub", "Sub", GG_LINEAR, C, c, beta, ms);
	int out = op_bin(n, "bn/batchnorm/add_1", "Add", GG_LINEAR, E, elems, y, shift);
	op_moving_avg(n, "bn/AssignMovingAvg", mm, mm_r, msq, c);
	op_moving_avg(n, "bn/AssignMovingAvg_1", mv, mv_r, vsq, c);
	return out;
}

/* The images placeholder. */
struct fmap
cnn_input(struct gnet *n, int batch, int c, int h, int w)
{
	gnet_scope(n, "input");
	int v = gnet_op(n, "images", "Placeholder", GG_NONE, 0, 0, (int64_t)batch * c * h * w, 0);
	return (struct fmap){ v, c, h, w };
}

/* Convolution, batch norm and optional ReLU. */
struct fmap
cnn_conv(struct gnet *n, int batch, const char *scope, struct fmap x, int cout,
    int kh, int kw, int stride, int pad, int relu)
{
	int ho = out_size(x.h, kh, stride, pad), wo = out_size(x.w, kw, stride, pad);
	int64_t elems = (int64_t)batch * cout * ho * wo;
	double macs = (double)elems * kh * kw * x.c;
	int64_t params = (int64_t)kh * kw * x.c * cout;
	gnet_count_macs(n, macs);
	gnet_scope(n, "%s", scope);
	int v;
	if (gnet_layer(n)) {
		v = gnet_op(n, "conv", "Conv2D", GG_INPUT, 2 * macs + (4.0 + relu) * (double)elems,
		    params + 2 * cout, elems, 1, x.ref);
		/* Convolution (and batch-norm) outputs, read by the backward pass. */
		gnet_set_saved(n, v, (relu ? 2 : 1) * elems);
	} else {
		int w = op_var(n, "weights", params, 1);
		v = gnet_op(n, "conv", "Conv2D", GG_PRODUCT, 2 * macs, 0, elems, 2, x.ref, w);
		gnet_set_flags(n, v, GN_TFGRAD);
		v = op_batchnorm(n, v, elems, cout);
		if (relu)
			v = gnet_op(n, "relu", "Relu", GG_OUTPUT, (double)elems, 0, elems, 1, v);
	}
	return (struct fmap){ v, cout, ho, wo };
}

/* ReLU, depthwise and pointwise convolution, batch norm. */
struct fmap
cnn_sepconv(struct gnet *n, int batch, const char *scope, struct fmap x, int cout,
    int k, int stride)
{
	int ho = out_size(x.h, k, stride, CNN_SAME), wo = out_size(x.w, k, stride, CNN_SAME);
	int64_t in_elems = (int64_t)batch * x.c * x.h * x.w;
	int64_t dw_elems = (int64_t)batch * x.c * ho * wo;
	int64_t elems = (int64_t)batch * cout * ho * wo;
	double dmacs = (double)dw_elems * k * k, pmacs = (double)elems * x.c;
	int64_t dparams = (int64_t)k * k * x.c, pparams = (int64_t)x.c * cout;
	gnet_count_macs(n, dmacs + pmacs);
	gnet_scope(n, "%s", scope);
	int v;
	if (gnet_layer(n)) {
		v = gnet_op(n, "sepconv", "SeparableConv2D", GG_INPUT,
		    2 * (dmacs + pmacs) + (double)in_elems + 4.0 * (double)elems,
		    dparams + pparams + 2 * cout, elems, 1, x.ref);
		gnet_set_saved(n, v, in_elems + dw_elems + elems);
	} else {
		v = gnet_op(n, "relu", "Relu", GG_OUTPUT, (double)in_elems, 0, in_elems, 1, x.ref);
		int dw = op_var(n, "depthwise_weights", dparams, 1);
		v = gnet_op(n, "depthwise", "DepthwiseConv2dNative", GG_PRODUCT, 2 * dmacs, 0, dw_elems, 2, v, dw);
		gnet_set_flags(n, v, GN_TFGRAD);
		int pw = op_var(n, "pointwise_weights", pparams, 1);
		v = gnet_op(n, "pointwise", "Conv2D", GG_PRODUCT, 2 * pmacs, 0, elems, 2, v, pw);
		gnet_set_flags(n, v, GN_TFGRAD);
		v = op_batchnorm(n, v, elems, cout);
	}
	return (struct fmap){ v, cout, ho, wo };
}

/* Pooling. */
struct fmap
cnn_pool(struct gnet *n, int batch, const char *scope, const char *type,
    struct fmap x, int k, int stride, int pad)
{
	int ho = out_size(x.h, k, stride, pad), wo = out_size(x.w, k, stride, pad);
	int64_t elems = (int64_t)batch * x.c * ho * wo;
	gnet_scope(n, "%s", scope);
	int v = gnet_op(n, "pool", type, strcmp(type, "MaxPool") == 0 ? GG_INPUT : GG_LINEAR,
	    (double)elems * k * k, 0, elems, 1, x.ref);
	return (struct fmap){ v, x.c, ho, wo };
}

/* Channel concatenation. */
struct fmap
cnn_concat(struct gnet *n, int batch, const char *scope, const struct fmap *x, int k)
{
	int in[65], c = 0;
	if (k > 64)
		k = 64;
	for (int i = 0; i < k; i++) {
		in[i] = x[i].ref;
		c += x[i].c;
	}
	gnet_scope(n, "%s", scope);
	int layer = gnet_layer(n);
	if (!layer)	/* TF's ConcatV2 takes the axis as its last input. */
		in[k] = gnet_op(n, "concat/axis", "Const", GG_NONE, 0, 0, 1, 0);
	int v = gnet_opa(n, "concat", "ConcatV2", GG_LINEAR, 0, 0,
	    (int64_t)batch * c * x[0].h * x[0].w, k + !layer, in);
	if (!layer)
		gnet_set_flags(n, v, GN_TFGRAD);
	return (struct fmap){ v, c, x[0].h, x[0].w };
}

/* Sum of k maps, optionally followed by ReLU. */
struct fmap
cnn_add(struct gnet *n, int batch, const char *scope, const struct fmap *x, int k, int relu)
{
	int64_t elems = (int64_t)batch * x[0].c * x[0].h * x[0].w;
	int in[64];
	for (int i = 0; i < k && i < 64; i++)
		in[i] = x[i].ref;
	gnet_scope(n, "%s", scope);
	int v;
	if (k == 2) {
		v = gnet_op(n, "add", "Add", GG_LINEAR, (double)elems, 0, elems, 2, in[0], in[1]);
		if (!gnet_layer(n))
			gnet_set_flags(n, v, GN_BCAST);
	} else {
		v = gnet_opa(n, "add", "AddN", GG_LINEAR, (double)elems * (k - 1), 0, elems, k, in);
		if (!gnet_layer(n))
			gnet_set_flags(n, v, GN_PASS);
	}
	if (relu)
		v = gnet_op(n, "relu", "Relu", GG_OUTPUT, (double)elems, 0, elems, 1, v);
	return (struct fmap){ v, x[0].c, x[0].h, x[0].w };
}

/* Global average pool, fully connected classifier, loss. */
void
cnn_head(struct gnet *n, int batch, struct fmap x, int classes)
{
	int64_t B = batch, in = (int64_t)batch * x.c * x.h * x.w;
	double macs = (double)B * x.c * classes;
	gnet_count_macs(n, macs);
	gnet_scope(n, "logits");
	int labels = gnet_op(n, "labels", "Placeholder", GG_NONE, 0, 0, B, 0);
	int p = gnet_op(n, "avg_pool", "Mean", GG_LINEAR, (double)in, 0, B * x.c, 1, x.ref);
	int l;
	if (gnet_layer(n)) {
		l = gnet_op(n, "fc", "MatMul", GG_PRODUCT, 2 * macs + (double)(B * classes), (int64_t)x.c * classes + classes,
		    B * classes, 1, p);
		int loss = gnet_op(n, "xent", "SoftmaxCrossEntropyWithLogits", GG_INPUT,
		    6.0 * (double)(B * classes), 0, B, 2, l, labels);
		gnet_set_flags(n, loss, GN_LOSS);
		return;
	}
	gnet_set_flags(n, p, GN_MEAN);
	enum gnet_decay d = gnet_decay(n);
	int w = op_var(n, "weights", (int64_t)x.c * classes, 1);
	l = gnet_op(n, "fc", "MatMul", GG_PRODUCT, 2 * macs, 0, B * classes, 2, p, w);
	int b = op_var(n, "biases", classes, d == GD_SUM);
	l = gnet_op(n, "bias_add", "BiasAdd", GG_LINEAR, (double)(B * classes), 0, B * classes, 2, l, b);
	int xent = gnet_op(n, "xent", "SoftmaxCrossEntropyWithLogits", GG_INPUT, 6.0 * (double)(B * classes),
	    0, B, 2, l, labels);
	int loss = op_mean(n, "xent_mean", (double)B, 1, xent);
	int k = gnet_reg_count(n);
	if (d == GD_SLIM && k > 0) {
		/* tf.losses.get_total_loss(): AddN of the loss and every
		 * regularisation loss. */
		int *li = pl_xmalloc(sizeof *li * (k + 1));
		li[0] = loss;
		memcpy(li + 1, gnet_regs(n), sizeof *li * k);
		gnet_scope(n, "total_loss");
		loss = gnet_opa(n, "AddN", "AddN", GG_LINEAR, k, 0, 1, k + 1, li);
		gnet_set_flags(n, loss, GN_PASS);
		free(li);
	} else if (d == GD_SUM && k > 0) {
		/* Official ResNet: loss + weight_decay * AddN(L2Loss). */
		gnet_scope(n, "l2_loss");
		int s = k > 1 ? gnet_opa(n, "AddN", "AddN", GG_LINEAR, k - 1, 0, 1, k, gnet_regs(n)) :
		    gnet_regs(n)[0];
		if (k > 1)
			gnet_set_flags(n, s, GN_PASS);
		int c = gnet_op(n, "weight_decay", "Const", GG_NONE, 0, 0, 1, 0);
		s = op_bin(n, "mul", "Mul", GG_PRODUCT, 1, 1, c, s);
		gnet_scope(n, "total_loss");
		loss = op_bin(n, "add", "Add", GG_LINEAR, 1, 1, loss, s);
	}
	gnet_set_flags(n, loss, GN_LOSS);
}

/* ---- ResNet-50 ---------------------------------------------------------- */

/* One bottleneck block res<stage><letter>. */
static struct fmap
bottleneck(struct gnet *n, int B, struct fmap x, int stage, int idx, int mid, int stride)
{
	char blk[32], sc[64];
	snprintf(blk, sizeof blk, "res%d%c", stage, 'a' + idx);
	struct fmap sh = x;
	if (idx == 0) {
		snprintf(sc, sizeof sc, "%s/branch1", blk);
		sh = cnn_conv(n, B, sc, x, 4 * mid, 1, 1, stride, CNN_SAME, 0);
	}
	snprintf(sc, sizeof sc, "%s/branch2a", blk);
	struct fmap y = cnn_conv(n, B, sc, x, mid, 1, 1, 1, CNN_SAME, 1);
	snprintf(sc, sizeof sc, "%s/branch2b", blk);
	y = cnn_conv(n, B, sc, y, mid, 3, 3, stride, CNN_SAME, 1);
	snprintf(sc, sizeof sc, "%s/branch2c", blk);
	y = cnn_conv(n, B, sc, y, 4 * mid, 1, 1, 1, CNN_SAME, 0);
	struct fmap s[2] = { y, sh };
	return cnn_add(n, B, blk, s, 2, 1);
}

/* ResNet-50 v1.5 for image x image inputs, 1000 classes. */
struct gnet *
pl_gen_resnet50(const char *name, const struct pl_gen_opts *o)
{
	int B = o->batch;
	struct gnet *n = gnet_new(name, o, "momentum");
	/* TF official ResNet: L2 weight decay 1e-4 on every non-BN variable. */
	gnet_set_decay(n, GD_SUM);
	gnet_set_tf_optimizer(n);
	struct fmap x = cnn_input(n, B, 3, o->image, o->image);
	x = cnn_conv(n, B, "conv1", x, 64, 7, 7, 2, CNN_SAME, 1);
	x = cnn_pool(n, B, "pool1", "MaxPool", x, 3, 2, CNN_SAME);
	static const int blocks[4] = { 3, 4, 6, 3 }, mid[4] = { 64, 128, 256, 512 };
	for (int s = 0; s < 4; s++)
		for (int i = 0; i < blocks[s]; i++)
			x = bottleneck(n, B, x, s + 2, i, mid[s], i == 0 && s > 0 ? 2 : 1);
	cnn_head(n, B, x, 1000);
	return n;
}

/* ---- Inception-V3 ------------------------------------------------------- */

/* A conv in block/branch scope. */
static struct fmap
iconv(struct gnet *n, int B, const char *blk, const char *br, struct fmap x, int cout,
    int kh, int kw, int stride, int pad)
{
	char sc[96];
	snprintf(sc, sizeof sc, "%s/%s", blk, br);
	return cnn_conv(n, B, sc, x, cout, kh, kw, stride, pad, 1);
}

/* A pool in block/branch scope. */
static struct fmap
ipool(struct gnet *n, int B, const char *blk, const char *br, const char *type,
    struct fmap x, int stride, int pad)
{
	char sc[96];
	snprintf(sc, sizeof sc, "%s/%s", blk, br);
	return cnn_pool(n, B, sc, type, x, 3, stride, pad);
}

/* Mixed_5b..5d (35x35). */
static struct fmap
block_a(struct gnet *n, int B, const char *blk, struct fmap x, int pool_c)
{
	struct fmap br[4];
	br[0] = iconv(n, B, blk, "branch1x1", x, 64, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch5x5_1", x, 48, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch5x5_2", br[1], 64, 5, 5, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch3x3dbl_1", x, 64, 1, 1, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch3x3dbl_2", br[2], 96, 3, 3, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch3x3dbl_3", br[2], 96, 3, 3, 1, CNN_SAME);
	br[3] = ipool(n, B, blk, "branch_pool_avg", "AvgPool", x, 1, CNN_SAME);
	br[3] = iconv(n, B, blk, "branch_pool", br[3], pool_c, 1, 1, 1, CNN_SAME);
	return cnn_concat(n, B, blk, br, 4);
}

/* Mixed_6a (35 -> 17). */
static struct fmap
block_b(struct gnet *n, int B, const char *blk, struct fmap x)
{
	struct fmap br[3];
	br[0] = iconv(n, B, blk, "branch3x3", x, 384, 3, 3, 2, CNN_VALID);
	br[1] = iconv(n, B, blk, "branch3x3dbl_1", x, 64, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch3x3dbl_2", br[1], 96, 3, 3, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch3x3dbl_3", br[1], 96, 3, 3, 2, CNN_VALID);
	br[2] = ipool(n, B, blk, "branch_pool", "MaxPool", x, 2, CNN_VALID);
	return cnn_concat(n, B, blk, br, 3);
}

/* Mixed_6b..6e (17x17, factorised 7x7). */
static struct fmap
block_c(struct gnet *n, int B, const char *blk, struct fmap x, int c7)
{
	struct fmap br[4];
	br[0] = iconv(n, B, blk, "branch1x1", x, 192, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch7x7_1", x, c7, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch7x7_2", br[1], c7, 1, 7, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch7x7_3", br[1], 192, 7, 1, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch7x7dbl_1", x, c7, 1, 1, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch7x7dbl_2", br[2], c7, 7, 1, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch7x7dbl_3", br[2], c7, 1, 7, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch7x7dbl_4", br[2], c7, 7, 1, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch7x7dbl_5", br[2], 192, 1, 7, 1, CNN_SAME);
	br[3] = ipool(n, B, blk, "branch_pool_avg", "AvgPool", x, 1, CNN_SAME);
	br[3] = iconv(n, B, blk, "branch_pool", br[3], 192, 1, 1, 1, CNN_SAME);
	return cnn_concat(n, B, blk, br, 4);
}

/* Mixed_7a (17 -> 8). */
static struct fmap
block_d(struct gnet *n, int B, const char *blk, struct fmap x)
{
	struct fmap br[3];
	br[0] = iconv(n, B, blk, "branch3x3_1", x, 192, 1, 1, 1, CNN_SAME);
	br[0] = iconv(n, B, blk, "branch3x3_2", br[0], 320, 3, 3, 2, CNN_VALID);
	br[1] = iconv(n, B, blk, "branch7x7x3_1", x, 192, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch7x7x3_2", br[1], 192, 1, 7, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch7x7x3_3", br[1], 192, 7, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch7x7x3_4", br[1], 192, 3, 3, 2, CNN_VALID);
	br[2] = ipool(n, B, blk, "branch_pool", "MaxPool", x, 2, CNN_VALID);
	return cnn_concat(n, B, blk, br, 3);
}

/* Mixed_7b, 7c (8x8, expanded filter banks). */
static struct fmap
block_e(struct gnet *n, int B, const char *blk, struct fmap x)
{
	struct fmap br[6];
	br[0] = iconv(n, B, blk, "branch1x1", x, 320, 1, 1, 1, CNN_SAME);
	struct fmap a = iconv(n, B, blk, "branch3x3_1", x, 384, 1, 1, 1, CNN_SAME);
	br[1] = iconv(n, B, blk, "branch3x3_2a", a, 384, 1, 3, 1, CNN_SAME);
	br[2] = iconv(n, B, blk, "branch3x3_2b", a, 384, 3, 1, 1, CNN_SAME);
	struct fmap d = iconv(n, B, blk, "branch3x3dbl_1", x, 448, 1, 1, 1, CNN_SAME);
	d = iconv(n, B, blk, "branch3x3dbl_2", d, 384, 3, 3, 1, CNN_SAME);
	br[3] = iconv(n, B, blk, "branch3x3dbl_3a", d, 384, 1, 3, 1, CNN_SAME);
	br[4] = iconv(n, B, blk, "branch3x3dbl_3b", d, 384, 3, 1, 1, CNN_SAME);
	br[5] = ipool(n, B, blk, "branch_pool_avg", "AvgPool", x, 1, CNN_SAME);
	br[5] = iconv(n, B, blk, "branch_pool", br[5], 192, 1, 1, 1, CNN_SAME);
	return cnn_concat(n, B, blk, br, 6);
}

/* Inception-V3 without the auxiliary head, 1000 classes. */
struct gnet *
pl_gen_inception_v3(const char *name, const struct pl_gen_opts *o)
{
	int B = o->batch;
	struct gnet *n = gnet_new(name, o, "momentum");
	/* TF-slim inception_v3_arg_scope: l2_regularizer(4e-5) on weights. */
	gnet_set_decay(n, GD_SLIM);
	gnet_set_tf_optimizer(n);
	struct fmap x = cnn_input(n, B, 3, o->image, o->image);
	x = cnn_conv(n, B, "conv2d_1a_3x3", x, 32, 3, 3, 2, CNN_VALID, 1);
	x = cnn_conv(n, B, "conv2d_2a_3x3", x, 32, 3, 3, 1, CNN_VALID, 1);
	x = cnn_conv(n, B, "conv2d_2b_3x3", x, 64, 3, 3, 1, CNN_SAME, 1);
	x = cnn_pool(n, B, "maxpool_3a_3x3", "MaxPool", x, 3, 2, CNN_VALID);
	x = cnn_conv(n, B, "conv2d_3b_1x1", x, 80, 1, 1, 1, CNN_VALID, 1);
	x = cnn_conv(n, B, "conv2d_4a_3x3", x, 192, 3, 3, 1, CNN_VALID, 1);
	x = cnn_pool(n, B, "maxpool_5a_3x3", "MaxPool", x, 3, 2, CNN_VALID);
	x = block_a(n, B, "mixed_5b", x, 32);
	x = block_a(n, B, "mixed_5c", x, 64);
	x = block_a(n, B, "mixed_5d", x, 64);
	x = block_b(n, B, "mixed_6a", x);
	x = block_c(n, B, "mixed_6b", x, 128);
	x = block_c(n, B, "mixed_6c", x, 160);
	x = block_c(n, B, "mixed_6d", x, 160);
	x = block_c(n, B, "mixed_6e", x, 192);
	x = block_d(n, B, "mixed_7a", x);
	x = block_e(n, B, "mixed_7b", x);
	x = block_e(n, B, "mixed_7c", x);
	cnn_head(n, B, x, 1000);
	return n;
}
