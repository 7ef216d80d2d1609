/*
 * nn — a small neural-network kit on OpenBLAS: dense layers and MLPs,
 * ReLU, message passing over a graph's CSR, masked sum/mean pooling over
 * node sets, softmax / log-probability / entropy, hand-written backward
 * passes, Adam, global-norm clipping, seeded initialisation and weight
 * files.
 *
 * Matrices are row-major float arrays, one row per node (or per sample).
 * A model is a list of named tensors laid out in ONE flat float vector, so
 * that weights, gradients and Adam moments are plain arrays of the same
 * length: forward passes read `const float *w`, backward passes add into
 * `float *gw` (several workers can run with one shared w and their own gw).
 *
 * Backward convention: every backward function ADDS into the parameter
 * gradients and into the input gradient dx (callers zero them first); the
 * output gradient dy is read only.
 *
 * Weight files (".plw"): magic "PLWEIGHT", a format version, a metadata
 * text, the tensor names and shapes, the float data (little-endian) and a
 * 64-bit FNV-1a checksum of everything before it.  Saved atomically through
 * core/fileio.h; loading a file of another version, another shape, a
 * truncated or corrupted file fails with a message naming file and field.
 *
 * Invariant: a model's tensors never overlap and cover w[0 .. n_params);
 * tensor shapes never change after pl_nn_model_add().
 *
 * Ownership: pl_nn_model_free() frees the model, its tensors and weights;
 * struct pl_nn_file from pl_nn_file_read() is freed with pl_nn_file_free().
 */
#ifndef PL_NN_H
#define PL_NN_H

#include <stddef.h>
#include <stdint.h>

#define PL_NN_FILE_MAGIC "PLWEIGHT"
#define PL_NN_FILE_VERSION 1
#define PL_NN_MAX_LAYERS 8

/* ---- models ------------------------------------------------------------ */

struct pl_nn_tensor {
	char *name;
	int rows, cols;
	size_t off;		/* offset in the flat vector */
};

struct pl_nn_model {
	int n_tensors, cap;
	struct pl_nn_tensor *t;
	size_t n_params;
	float *w;		/* n_params weights */
};

struct pl_nn_model *pl_nn_model_new(void);
void pl_nn_model_free(struct pl_nn_model *m);
/* Add a rows x cols tensor (zero-filled); returns its offset in w. */
size_t pl_nn_model_add(struct pl_nn_model *m, const char *name, int rows, int cols);
/* Glorot-uniform for every tensor whose name ends in "/w", zero for the
 * others ("/b").  Deterministic for a seed. */
void pl_nn_model_init(struct pl_nn_model *m, uint64_t seed);

/* ---- layers ------------------------------------------------------------ */

/* A dense layer y = x W + b with W in x out and b 1 x out. */
struct pl_nn_dense {
	int in, out;
	size_t w_off, b_off;
};

void pl_nn_dense_init(struct pl_nn_model *m, struct pl_nn_dense *l,
    const char *name, int in, int out);
/* y (n x out) = x (n x in) W + b. */
void pl_nn_dense_forward(const struct pl_nn_dense *l, const float *w, int n,
    const float *x, float *y);
/* gW += x^T dy, gb += colsum(dy), dx += dy W^T (dx may be NULL). */
void pl_nn_dense_backward(const struct pl_nn_dense *l, const float *w,
    float *gw, int n, const float *x, const float *dy, float *dx);

/* ReLU in place (y = max(x, 0)). */
void pl_nn_relu_forward(size_t n, float *y);
/* dx += dy where y > 0 (y the ReLU's output). */
void pl_nn_relu_backward(size_t n, const float *y, const float *dy, float *dx);

/*
 * An MLP: dense layers with ReLU between them and, if relu_out, after the
 * last.  sizes[0] is the input width, sizes[n_sizes-1] the output width.
 * The forward pass records every layer's output in a caller-provided tape
 * of pl_nn_mlp_tape(l, n) floats; the backward pass reads that tape and
 * needs pl_nn_mlp_scratch(l, n) floats of scratch.
 */
struct pl_nn_mlp {
	int n_layers;
	int relu_out;
	struct pl_nn_dense layer[PL_NN_MAX_LAYERS];
};

void pl_nn_mlp_init(struct pl_nn_model *m, struct pl_nn_mlp *f,
    const char *name, int n_sizes, const int *sizes, int relu_out);
int pl_nn_mlp_in(const struct pl_nn_mlp *f);
int pl_nn_mlp_out(const struct pl_nn_mlp *f);
size_t pl_nn_mlp_tape(const struct pl_nn_mlp *f, int n);
size_t pl_nn_mlp_scratch(const struct pl_nn_mlp *f, int n);
/* Forward over n rows; returns the output (n x out), which lives in tape. */
float *pl_nn_mlp_forward(const struct pl_nn_mlp *f, const float *w, int n,
    const float *x, float *tape);
/* Backward: dy is the gradient of the output; adds into gw and dx (dx may
 * be NULL). */
void pl_nn_mlp_backward(const struct pl_nn_mlp *f, const float *w, float *gw,
    int n, const float *x, const float *tape, const float *dy, float *dx,
    float *scratch);

/* ---- graphs -------------------------------------------------------------- */

/* Neighbour lists: the neighbours of node v are idx[off[v] .. off[v+1]). */
struct pl_nn_csr {
	int n;
	const int *off;
	const int *idx;
};

/* Message passing: y[v] = sum of x[u] over u in N(v) (rows of width d);
 * nodes without neighbours get zero. */
void pl_nn_csr_sum_forward(const struct pl_nn_csr *a, int d, const float *x,
    float *y);
/* dx[u] += dy[v] for every u in N(v). */
void pl_nn_csr_sum_backward(const struct pl_nn_csr *a, int d, const float *dy,
    float *dx);
/* The same with the mean over N(v) instead of the sum. */
void pl_nn_csr_mean_forward(const struct pl_nn_csr *a, int d, const float *x,
    float *y);
void pl_nn_csr_mean_backward(const struct pl_nn_csr *a, int d, const float *dy,
    float *dx);

/* Masked pooling: y (1 x d) = sum (or mean if mean) of the rows x[v] with
 * mask[v] != 0; zero when the mask is empty. */
void pl_nn_pool_forward(int n, int d, const float *x, const uint8_t *mask,
    int mean, float *y);
void pl_nn_pool_backward(int n, int d, const uint8_t *mask, int mean,
    const float *dy, float *dx);

/* ---- distributions --------------------------------------------------------- */

#define PL_NN_ENTROPY_EPS 1e-3

/* Softmax of n logits over the entries with allowed[i] != 0 (allowed may be
 * NULL: all); others get probability 0.  Computed in double, max-shifted.
 * Whatever the logits, the allowed entries share probability 1 (when one
 * is allowed): NaN counts as -inf, +inf entries share it all, and all
 * -inf or NaN gives a uniform distribution. */
void pl_nn_softmax(int n, const float *logits, const uint8_t *allowed,
    float *p);
/* Whether every allowed logit is a finite number (a policy whose outputs
 * are not is broken, whatever softmax makes of them). */
int pl_nn_logits_finite(int n, const float *logits, const uint8_t *allowed);
/* Whether all n weights are finite numbers. */
int pl_nn_all_finite(const float *w, size_t n);
/* log p[a] (with a floor of 1e-30). */
double pl_nn_log_prob(const float *p, int a);
/* Entropy -sum p log(p + PL_NN_ENTROPY_EPS): the training objective's
 * (Placeto's) term, slightly below zero for a distribution near one-hot. */
double pl_nn_entropy(int n, const float *p);
/* Shannon entropy -sum p ln p in nats (0 ln 0 = 0), never negative: the
 * distribution's entropy as reported to people. */
double pl_nn_entropy_nats(int n, const float *p);
/* Gradient with respect to the logits of c_logp * log p[a] + c_ent * H(p),
 * added into dlogits. */
void pl_nn_softmax_backward(int n, const float *p, int a, double c_logp,
    double c_ent, float *dlogits);
/* Arg-max of p (first on ties). */
int pl_nn_argmax(int n, const float *p);
/* Sample an index from p given u uniform in [0, 1). */
int pl_nn_sample(int n, const float *p, double u);

/* ---- optimisation ------------------------------------------------------------ */

struct pl_nn_adam {
	size_t n;
	float *m, *v;
	long t;
	double beta1, beta2, eps;
};

/* Adam with the usual defaults (0.9, 0.999, 1e-8). */
void pl_nn_adam_init(struct pl_nn_adam *a, size_t n);
void pl_nn_adam_free(struct pl_nn_adam *a);
/* One descent step w -= lr * mhat / (sqrt(vhat) + eps) on gradient g. */
void pl_nn_adam_step(struct pl_nn_adam *a, float *w, const float *g, double lr);
/* Scale g so its global L2 norm is at most max_norm; returns the norm
 * before clipping. */
double pl_nn_clip_global(float *g, size_t n, double max_norm);

/* ---- weight files ------------------------------------------------------------- */

struct pl_nn_file {
	uint32_t version;
	char *meta;		/* NUL-terminated metadata text */
	int n_tensors;
	struct pl_nn_tensor *t;	/* offsets into data */
	size_t n_params;
	float *data;
};

/* Serialise a model with a metadata text into a byte buffer (caller frees). */
unsigned char *pl_nn_file_encode(const struct pl_nn_model *m, const char *meta,
    size_t *len);
/* Save atomically.  0, or -1 + *cause. */
int pl_nn_model_save(const struct pl_nn_model *m, const char *meta,
    const char *path, char **cause);
/* Parse a buffer (name labels messages).  NULL + *cause. */
struct pl_nn_file *pl_nn_file_decode(const unsigned char *buf, size_t len,
    const char *name, char **cause);
/* Read and parse a file.  NULL + *cause. */
struct pl_nn_file *pl_nn_file_read(const char *path, char **cause);
void pl_nn_file_free(struct pl_nn_file *f);
/* Copy a file's weights into a model with the same tensor names and
 * shapes.  0, or -1 + *cause naming the first mismatching tensor. */
int pl_nn_model_assign(struct pl_nn_model *m, const struct pl_nn_file *f,
    const char *name, char **cause);
/* 64-bit FNV-1a of a buffer. */
uint64_t pl_nn_fnv1a(const void *buf, size_t len);

#endif
