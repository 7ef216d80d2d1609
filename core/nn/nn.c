/*
 * nn — dense layers, MLPs, graph aggregation, softmax family, Adam and
 * weight files (see nn.h).
 *
 * Invariant: forward functions only write their outputs (and tapes);
 * backward functions only add into gradients.  Every product of matrices
 * goes through cblas_sgemm.
 */
#include "nn.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "rng.h"
#include "xmalloc.h"

/* A new empty model. */
struct pl_nn_model *
pl_nn_model_new(void)
{
	return pl_xcalloc(1, sizeof(struct pl_nn_model));
}

/* Free a model. */
void
pl_nn_model_free(struct pl_nn_model *m)
{
	if (m == NULL)
		return;
	for (int i = 0; i < m->n_tensors; i++)
		free(m->t[i].name);
	free(m->t);
	free(m->w);
	free(m);
}

/* Append a zero tensor. */
size_t
pl_nn_model_add(struct pl_nn_model *m, const char *name, int rows, int cols)
{
	if (m->n_tensors == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->t = pl_xreallocarray(m->t, (size_t)m->cap, sizeof *m->t);
	}
	size_t off = m->n_params, sz = (size_t)rows * (size_t)cols;
	m->t[m->n_tensors++] = (struct pl_nn_tensor){
		.name = pl_xstrdup(name), .rows = rows, .cols = cols, .off = off,
	};
	m->n_params += sz;
	m->w = pl_xreallocarray(m->w, m->n_params ? m->n_params : 1, sizeof *m->w);
	memset(m->w + off, 0, sz * sizeof *m->w);
	return off;
}

/* Whether s ends with suffix. */
static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Glorot-uniform weights, zero biases. */
void
pl_nn_model_init(struct pl_nn_model *m, uint64_t seed)
{
	struct pl_rng r;
	pl_rng_seed(&r, seed);
	for (int i = 0; i < m->n_tensors; i++) {
		struct pl_nn_tensor *t = &m->t[i];
		size_t sz = (size_t)t->rows * (size_t)t->cols;
		float *w = m->w + t->off;
		if (!ends_with(t->name, "/w")) {
			memset(w, 0, sz * sizeof *w);
			continue;
		}
		double range = sqrt(6.0 / (double)(t->rows + t->cols));
		for (size_t k = 0; k < sz; k++)
			w[k] = (float)((2.0 * pl_rng_uniform(&r) - 1.0) * range);
	}
}

/* ---- layers ---------------------------------------------------------- */

/* Register a dense layer's W and b. */
void
pl_nn_dense_init(struct pl_nn_model *m, struct pl_nn_dense *l, const char *name,
    int in, int out)
{
	char buf[256];
	l->in = in;
	l->out = out;
	snprintf(buf, sizeof buf, "%s/w", name);
	l->w_off = pl_nn_model_add(m, buf, in, out);
	snprintf(buf, sizeof buf, "%s/b", name);
	l->b_off = pl_nn_model_add(m, buf, 1, out);
}

/* y = x W + b. */
void
pl_nn_dense_forward(const struct pl_nn_dense *l, const float *w, int n,
    const float *x, float *y)
{
	const float *b = w + l->b_off;
	for (int i = 0; i < n; i++)
		memcpy(y + (size_t)i * l->out, b, (size_t)l->out * sizeof *y);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, l->out, l->in,
	    1.0f, x, l->in, w + l->w_off, l->out, 1.0f, y, l->out);
}

/* Dense backward: parameter gradients and the input gradient. */
void
pl_nn_dense_backward(const struct pl_nn_dense *l, const float *w, float *gw,
    int n, const float *x, const float *dy, float *dx)
{
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, l->in, l->out, n,
	    1.0f, x, l->in, dy, l->out, 1.0f, gw + l->w_off, l->out);
	float *gb = gw + l->b_off;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < l->out; j++)
			gb[j] += dy[(size_t)i * l->out + j];
	if (dx != NULL)
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, l->in,
		    l->out, 1.0f, dy, l->out, w + l->w_off, l->out, 1.0f, dx,
		    l->in);
}

/* ReLU in place. */
void
pl_nn_relu_forward(size_t n, float *y)
{
	for (size_t i = 0; i < n; i++)
		if (!(y[i] > 0.0f))
			y[i] = 0.0f;
}

/* ReLU backward from its output. */
void
pl_nn_relu_backward(size_t n, const float *y, const float *dy, float *dx)
{
	for (size_t i = 0; i < n; i++)
		if (y[i] > 0.0f)
			dx[i] += dy[i];
}

/* Register an MLP's layers as NAME/0, NAME/1, ... */
void
pl_nn_mlp_init(struct pl_nn_model *m, struct pl_nn_mlp *f, const char *name,
    int n_sizes, const int *sizes, int relu_out)
{
	char buf[256];
	if (n_sizes < 2 || n_sizes > PL_NN_MAX_LAYERS + 1)
		abort();
	f->n_layers = n_sizes - 1;
	f->relu_out = relu_out;
	for (int i = 0; i < f->n_layers; i++) {
		snprintf(buf, sizeof buf, "%s/%d", name, i);
		pl_nn_dense_init(m, &f->layer[i], buf, sizes[i], sizes[i + 1]);
	}
}

/* Input width. */
int
pl_nn_mlp_in(const struct pl_nn_mlp *f)
{
	return f->layer[0].in;
}

/* Output width. */
int
pl_nn_mlp_out(const struct pl_nn_mlp *f)
{
	return f->layer[f->n_layers - 1].out;
}

/* Tape size: every layer's output for n rows. */
size_t
pl_nn_mlp_tape(const struct pl_nn_mlp *f, int n)
{
	size_t s = 0;
	for (int i = 0; i < f->n_layers; i++)
		s += (size_t)n * (size_t)f->layer[i].out;
	return s;
}

/* Widest layer. */
static int
mlp_width(const struct pl_nn_mlp *f)
{
	int w = f->layer[0].in;
	for (int i = 0; i < f->n_layers; i++)
		if (f->layer[i].out > w)
			w = f->layer[i].out;
	return w;
}

/* Scratch size: two gradient buffers of the widest layer. */
size_t
pl_nn_mlp_scratch(const struct pl_nn_mlp *f, int n)
{
	return 2 * (size_t)n * (size_t)mlp_width(f);
}

/* Forward, recording layer outputs. */
float *
pl_nn_mlp_forward(const struct pl_nn_mlp *f, const float *w, int n,
    const float *x, float *tape)
{
	const float *in = x;
	float *out = tape;
	for (int i = 0; i < f->n_layers; i++) {
		const struct pl_nn_dense *l = &f->layer[i];
		pl_nn_dense_forward(l, w, n, in, out);
		if (i < f->n_layers - 1 || f->relu_out)
			pl_nn_relu_forward((size_t)n * l->out, out);
		in = out;
		out += (size_t)n * l->out;
	}
	return (float *)in;
}

/* Backward through the recorded tape. */
void
pl_nn_mlp_backward(const struct pl_nn_mlp *f, const float *w, float *gw, int n,
    const float *x, const float *tape, const float *dy, float *dx,
    float *scratch)
{
	size_t half = (size_t)n * (size_t)mlp_width(f);
	float *ga = scratch, *gb = scratch + half;
	const float *outs[PL_NN_MAX_LAYERS];
	const float *p = tape;
	for (int i = 0; i < f->n_layers; i++) {
		outs[i] = p;
		p += (size_t)n * f->layer[i].out;
	}
	/* ga: gradient at the pre-activation of layer i. */
	int last = f->n_layers - 1;
	size_t sz = (size_t)n * f->layer[last].out;
	if (f->relu_out) {
		memset(ga, 0, sz * sizeof *ga);
		pl_nn_relu_backward(sz, outs[last], dy, ga);
	} else
		memcpy(ga, dy, sz * sizeof *ga);
	for (int i = last; i >= 0; i--) {
		const struct pl_nn_dense *l = &f->layer[i];
		const float *in = i > 0 ? outs[i - 1] : x;
		if (i == 0) {
			pl_nn_dense_backward(l, w, gw, n, in, ga, dx);
			break;
		}
		size_t isz = (size_t)n * l->in;
		memset(gb, 0, isz * sizeof *gb);
		pl_nn_dense_backward(l, w, gw, n, in, ga, gb);
		/* through the ReLU after layer i-1 */
		memset(ga, 0, isz * sizeof *ga);
		pl_nn_relu_backward(isz, outs[i - 1], gb, ga);
	}
}

/* ---- graphs ------------------------------------------------------------- */

/* Sum over neighbours. */
void
pl_nn_csr_sum_forward(const struct pl_nn_csr *a, int d, const float *x, float *y)
{
	memset(y, 0, (size_t)a->n * (size_t)d * sizeof *y);
	for (int v = 0; v < a->n; v++) {
		float *yv = y + (size_t)v * d;
		for (int e = a->off[v]; e < a->off[v + 1]; e++) {
			const float *xu = x + (size_t)a->idx[e] * d;
			for (int j = 0; j < d; j++)
				yv[j] += xu[j];
		}
	}
}

/* Scatter the gradient back to the neighbours. */
void
pl_nn_csr_sum_backward(const struct pl_nn_csr *a, int d, const float *dy,
    float *dx)
{
	for (int v = 0; v < a->n; v++) {
		const float *dyv = dy + (size_t)v * d;
		for (int e = a->off[v]; e < a->off[v + 1]; e++) {
			float *dxu = dx + (size_t)a->idx[e] * d;
			for (int j = 0; j < d; j++)
				dxu[j] += dyv[j];
		}
	}
}

/* Mean over neighbours. */
void
pl_nn_csr_mean_forward(const struct pl_nn_csr *a, int d, const float *x, float *y)
{
	pl_nn_csr_sum_forward(a, d, x, y);
	for (int v = 0; v < a->n; v++) {
		int deg = a->off[v + 1] - a->off[v];
		if (deg > 1)
			for (int j = 0; j < d; j++)
				y[(size_t)v * d + j] /= (float)deg;
	}
}

/* Backward of the neighbour mean. */
void
pl_nn_csr_mean_backward(const struct pl_nn_csr *a, int d, const float *dy,
    float *dx)
{
	for (int v = 0; v < a->n; v++) {
		const float *dyv = dy + (size_t)v * d;
		int deg = a->off[v + 1] - a->off[v];
		float s = deg > 1 ? 1.0f / (float)deg : 1.0f;
		for (int e = a->off[v]; e < a->off[v + 1]; e++) {
			float *dxu = dx + (size_t)a->idx[e] * d;
			for (int j = 0; j < d; j++)
				dxu[j] += s * dyv[j];
		}
	}
}

/* Rows selected by a mask. */
static int
mask_count(int n, const uint8_t *mask)
{
	int c = 0;
	for (int v = 0; v < n; v++)
		c += mask[v] != 0;
	return c;
}

/* Masked sum or mean of rows. */
void
pl_nn_pool_forward(int n, int d, const float *x, const uint8_t *mask, int mean,
    float *y)
{
	memset(y, 0, (size_t)d * sizeof *y);
	for (int v = 0; v < n; v++) {
		if (!mask[v])
			continue;
		const float *xv = x + (size_t)v * d;
		for (int j = 0; j < d; j++)
			y[j] += xv[j];
	}
	int c = mean ? mask_count(n, mask) : 0;
	if (c > 1)
		for (int j = 0; j < d; j++)
			y[j] /= (float)c;
}

/* Backward of the masked pooling. */
void
pl_nn_pool_backward(int n, int d, const uint8_t *mask, int mean,
    const float *dy, float *dx)
{
	int c = mean ? mask_count(n, mask) : 0;
	float s = c > 1 ? 1.0f / (float)c : 1.0f;
	for (int v = 0; v < n; v++) {
		if (!mask[v])
			continue;
		float *dxv = dx + (size_t)v * d;
		for (int j = 0; j < d; j++)
			dxv[j] += s * dy[j];
	}
}

/* ---- distributions ---------------------------------------------------- */

/* Masked softmax; a distribution over the allowed entries whatever the
 * logits (see nn.h). */
void
pl_nn_softmax(int n, const float *logits, const uint8_t *allowed, float *p)
{
	double mx = -INFINITY, sum = 0.0;
	for (int i = 0; i < n; i++)
		if ((allowed == NULL || allowed[i]) && logits[i] > mx)	/* (false for NaN) */
			mx = logits[i];
	for (int i = 0; i < n; i++) {
		double e = 0.0;	/* (a device not allowed: probability 0) */
		if (allowed == NULL || allowed[i]) {
			if (mx == INFINITY)	/* the infinite ones share it */
				e = logits[i] == INFINITY;
			else if (mx == -INFINITY)	/* nothing to tell them apart */
				e = 1.0;
			else if (!isnan(logits[i]))
				e = exp(logits[i] - mx);
		}
		p[i] = (float)e;
		sum += e;
	}
	for (int i = 0; i < n; i++)
		p[i] = sum > 0 ? (float)(p[i] / sum) : 0.0f;
}

/* Whether every allowed logit is a finite number. */
int
pl_nn_logits_finite(int n, const float *logits, const uint8_t *allowed)
{
	for (int i = 0; i < n; i++)
		if ((allowed == NULL || allowed[i]) && !isfinite(logits[i]))
			return 0;
	return 1;
}

/* Whether all n weights are finite numbers. */
int
pl_nn_all_finite(const float *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(w[i]))
			return 0;
	return 1;
}

/* log p[a]. */
double
pl_nn_log_prob(const float *p, int a)
{
	return log(p[a] > 1e-30f ? (double)p[a] : 1e-30);
}

/* Entropy with Placeto's epsilon inside the log. */
double
pl_nn_entropy(int n, const float *p)
{
	double h = 0.0;
	for (int i = 0; i < n; i++)
		h -= p[i] * log(p[i] + PL_NN_ENTROPY_EPS);
	return h;
}

/* Shannon entropy in nats. */
double
pl_nn_entropy_nats(int n, const float *p)
{
	double h = 0.0;
	for (int i = 0; i < n; i++)
		if (p[i] > 0)
			h -= p[i] * log(p[i]);
	return h > 0 ? h : 0.0;	/* p summing to a hair over 1 */
}

/* d/dz of c_logp * log p_a + c_ent * H. */
void
pl_nn_softmax_backward(int n, const float *p, int a, double c_logp,
    double c_ent, float *dlogits)
{
	double hp[64], mean = 0.0;
	double *h = n <= 64 ? hp : pl_xcalloc((size_t)n, sizeof *h);
	for (int i = 0; i < n; i++) {
		h[i] = -log(p[i] + PL_NN_ENTROPY_EPS) - p[i] / (p[i] + PL_NN_ENTROPY_EPS);
		mean += p[i] * h[i];
	}
	for (int j = 0; j < n; j++) {
		double g = c_logp * ((j == a ? 1.0 : 0.0) - p[j]);
		g += c_ent * p[j] * (h[j] - mean);
		dlogits[j] += (float)g;
	}
	if (h != hp)
		free(h);
}

/* Arg-max, first on ties. */
int
pl_nn_argmax(int n, const float *p)
{
	int b = 0;
	for (int i = 1; i < n; i++)
		if (p[i] > p[b])
			b = i;
	return b;
}

/* Inverse-CDF sampling; never returns a zero-probability entry. */
int
pl_nn_sample(int n, const float *p, double u)
{
	double c = 0.0;
	int last = -1;
	for (int i = 0; i < n; i++) {
		if (p[i] <= 0.0f)
			continue;
		last = i;
		c += p[i];
		if (u < c)
			return i;
	}
	return last >= 0 ? last : 0;
}

/* ---- optimisation --------------------------------------------------------- */

/* Zero moments. */
void
pl_nn_adam_init(struct pl_nn_adam *a, size_t n)
{
	a->n = n;
	a->m = pl_xcalloc(n ? n : 1, sizeof *a->m);
	a->v = pl_xcalloc(n ? n : 1, sizeof *a->v);
	a->t = 0;
	a->beta1 = 0.9;
	a->beta2 = 0.999;
	a->eps = 1e-8;
}

/* Free the moments. */
void
pl_nn_adam_free(struct pl_nn_adam *a)
{
	free(a->m);
	free(a->v);
	a->m = a->v = NULL;
}

/* One Adam step. */
void
pl_nn_adam_step(struct pl_nn_adam *a, float *w, const float *g, double lr)
{
	a->t++;
	double c1 = 1.0 - pow(a->beta1, (double)a->t);
	double c2 = 1.0 - pow(a->beta2, (double)a->t);
	for (size_t i = 0; i < a->n; i++) {
		double m = a->beta1 * a->m[i] + (1.0 - a->beta1) * g[i];
		double v = a->beta2 * a->v[i] + (1.0 - a->beta2) * (double)g[i] * g[i];
		a->m[i] = (float)m;
		a->v[i] = (float)v;
		w[i] -= (float)(lr * (m / c1) / (sqrt(v / c2) + a->eps));
	}
}

/* Global-norm clipping. */
double
pl_nn_clip_global(float *g, size_t n, double max_norm)
{
	double s = 0.0;
	for (size_t i = 0; i < n; i++)
		s += (double)g[i] * g[i];
	double norm = sqrt(s);
	if (max_norm > 0 && norm > max_norm) {
		float k = (float)(max_norm / norm);
		for (size_t i = 0; i < n; i++)
			g[i] *= k;
	}
	return norm;
}

/* ---- weight files ------------------------------------------------------------ */

/* FNV-1a, 64 bits. */
uint64_t
pl_nn_fnv1a(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A growing byte buffer. */
struct wbuf {
	unsigned char *p;
	size_t n, cap;
};

/* Append bytes. */
static void
wb_put(struct wbuf *b, const void *data, size_t len)
{
	if (b->n + len > b->cap) {
		while (b->n + len > b->cap)
			b->cap = b->cap ? 2 * b->cap : 1024;
		b->p = pl_xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

/* Append a little-endian integer of `bytes` bytes. */
static void
wb_uint(struct wbuf *b, uint64_t v, int bytes)
{
	unsigned char c[8];
	for (int i = 0; i < bytes; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	wb_put(b, c, (size_t)bytes);
}

/* Encode the model. */
unsigned char *
pl_nn_file_encode(const struct pl_nn_model *m, const char *meta, size_t *len)
{
	struct wbuf b = { 0 };
	if (meta == NULL)
		meta = "";
	wb_put(&b, PL_NN_FILE_MAGIC, 8);
	wb_uint(&b, PL_NN_FILE_VERSION, 4);
	wb_uint(&b, strlen(meta), 4);
	wb_put(&b, meta, strlen(meta));
	wb_uint(&b, (uint64_t)m->n_tensors, 4);
	for (int i = 0; i < m->n_tensors; i++) {
		wb_uint(&b, strlen(m->t[i].name), 4);
		wb_put(&b, m->t[i].name, strlen(m->t[i].name));
		wb_uint(&b, (uint64_t)m->t[i].rows, 4);
		wb_uint(&b, (uint64_t)m->t[i].cols, 4);
	}
	for (size_t k = 0; k < m->n_params; k++) {
		uint32_t u;
		memcpy(&u, &m->w[k], 4);
		wb_uint(&b, u, 4);
	}
	wb_uint(&b, pl_nn_fnv1a(b.p, b.n), 8);
	*len = b.n;
	return b.p;
}

/* Save atomically. */
int
pl_nn_model_save(const struct pl_nn_model *m, const char *meta, const char *path,
    char **cause)
{
	size_t len;
	unsigned char *buf = pl_nn_file_encode(m, meta, &len);
	int rc = pl_file_write_atomic(path, buf, len, cause);
	free(buf);
	return rc;
}

/* A bounds-checked reader. */
struct rbuf {
	const unsigned char *p;
	size_t n, at;
	const char *name;
	char **cause;
};

/* Read a little-endian integer; -1 + cause if the file ends. */
static int
rb_uint(struct rbuf *r, int bytes, uint64_t *v, const char *what)
{
	if (r->n - r->at < (size_t)bytes) {
		*r->cause = pl_xasprintf("%s: truncated at byte %zu while reading %s",
		    r->name, r->at, what);
		return -1;
	}
	*v = 0;
	for (int i = 0; i < bytes; i++)
		*v |= (uint64_t)r->p[r->at + i] << (8 * i);
	r->at += (size_t)bytes;
	return 0;
}

/* Read a length-prefixed string into a fresh buffer. */
static char *
rb_str(struct rbuf *r, uint64_t max, const char *what)
{
	uint64_t len;
	if (rb_uint(r, 4, &len, what) != 0)
		return NULL;
	if (len > max || r->n - r->at < len) {
		*r->cause = pl_xasprintf("%s: byte %zu: %s of %llu bytes does not fit the file",
		    r->name, r->at, what, (unsigned long long)len);
		return NULL;
	}
	char *s = pl_xstrndup((const char *)r->p + r->at, (size_t)len);
	r->at += (size_t)len;
	return s;
}

/* Free a decoded file. */
void
pl_nn_file_free(struct pl_nn_file *f)
{
	if (f == NULL)
		return;
	for (int i = 0; i < f->n_tensors; i++)
		free(f->t[i].name);
	free(f->t);
	free(f->meta);
	free(f->data);
	free(f);
}

/* Decode a weight file. */
struct pl_nn_file *
pl_nn_file_decode(const unsigned char *buf, size_t len, const char *name,
    char **cause)
{
	struct rbuf r = { .p = buf, .n = len, .at = 0, .name = name, .cause = cause };
	uint64_t v;
	if (len < 8 || memcmp(buf, PL_NN_FILE_MAGIC, 8) != 0) {
		char kind[64];	/* another of placelab's files: said so */
		if (pl_text_kind((const char *)buf, len, kind, sizeof kind))
			*cause = pl_xasprintf("%s: holds %s (%s), not a trained policy (expected a "
			    "placelab weight file, magic '%s' at byte 0)", name,
			    pl_file_kind_name(kind), kind, PL_NN_FILE_MAGIC);
		else
			*cause = pl_xasprintf("%s: not a placelab weight file (expected magic '%s' at byte 0)",
			    name, PL_NN_FILE_MAGIC);
		return NULL;
	}
	r.at = 8;
	if (rb_uint(&r, 4, &v, "the format version") != 0)
		return NULL;
	if (v != PL_NN_FILE_VERSION) {
		*cause = pl_xasprintf("%s: weight file format version %llu, this build reads version %d",
		    name, (unsigned long long)v, PL_NN_FILE_VERSION);
		return NULL;
	}
	if (len < 8 + 4 + 8) {
		*cause = pl_xasprintf("%s: truncated (%zu bytes)", name, len);
		return NULL;
	}
	uint64_t want = 0;
	for (int i = 0; i < 8; i++)
		want |= (uint64_t)buf[len - 8 + i] << (8 * i);
	uint64_t got = pl_nn_fnv1a(buf, len - 8);
	if (want != got) {
		*cause = pl_xasprintf("%s: checksum mismatch (file says %016llx, content gives %016llx): the file is corrupt or truncated",
		    name, (unsigned long long)want, (unsigned long long)got);
		return NULL;
	}
	r.n = len - 8;
	struct pl_nn_file *f = pl_xcalloc(1, sizeof *f);
	f->version = (uint32_t)v;
	if ((f->meta = rb_str(&r, r.n, "the metadata")) == NULL)
		goto fail;
	if (rb_uint(&r, 4, &v, "the tensor count") != 0)
		goto fail;
	if (v > 100000) {
		*cause = pl_xasprintf("%s: tensor count %llu is absurd", name, (unsigned long long)v);
		goto fail;
	}
	f->t = pl_xcalloc(v ? v : 1, sizeof *f->t);
	for (uint64_t i = 0; i < v; i++) {
		struct pl_nn_tensor *t = &f->t[i];
		uint64_t rows, cols;
		if ((t->name = rb_str(&r, 4096, "a tensor name")) == NULL)
			goto fail;
		f->n_tensors++;
		if (rb_uint(&r, 4, &rows, "a tensor's rows") != 0 ||
		    rb_uint(&r, 4, &cols, "a tensor's columns") != 0)
			goto fail;
		if (rows > (1u << 24) || cols > (1u << 24) || rows * cols > ((uint64_t)1 << 30)) {
			*cause = pl_xasprintf("%s: tensor '%s': shape %llux%llu is absurd",
			    name, t->name, (unsigned long long)rows, (unsigned long long)cols);
			goto fail;
		}
		t->rows = (int)rows;
		t->cols = (int)cols;
		t->off = f->n_params;
		f->n_params += rows * cols;
	}
	if (r.n - r.at != f->n_params * 4) {
		*cause = pl_xasprintf("%s: %zu bytes of weights, the shapes need %zu",
		    name, r.n - r.at, f->n_params * 4);
		goto fail;
	}
	f->data = pl_xcalloc(f->n_params ? f->n_params : 1, sizeof *f->data);
	for (size_t k = 0; k < f->n_params; k++) {
		uint64_t u;
		rb_uint(&r, 4, &u, "weights");
		uint32_t u32 = (uint32_t)u;
		memcpy(&f->data[k], &u32, 4);
		if (!isfinite(f->data[k])) {
			*cause = pl_xasprintf("%s: weight %zu is not finite", name, k);
			goto fail;
		}
	}
	return f;
fail:
	pl_nn_file_free(f);
	return NULL;
}

/* Read and decode a file. */
struct pl_nn_file *
pl_nn_file_read(const char *path, char **cause)
{
	size_t len;
	char *buf = pl_file_read(path, &len, cause);
	if (buf == NULL)
		return NULL;
	struct pl_nn_file *f = pl_nn_file_decode((unsigned char *)buf, len, path, cause);
	free(buf);
	return f;
}

/* Copy matching tensors into the model. */
int
pl_nn_model_assign(struct pl_nn_model *m, const struct pl_nn_file *f,
    const char *name, char **cause)
{
	if (f->n_tensors != m->n_tensors) {
		*cause = pl_xasprintf("%s: %d tensors, the model has %d", name,
		    f->n_tensors, m->n_tensors);
		return -1;
	}
	for (int i = 0; i < m->n_tensors; i++) {
		const struct pl_nn_tensor *a = &f->t[i], *b = &m->t[i];
		if (strcmp(a->name, b->name) != 0) {
			*cause = pl_xasprintf("%s: tensor %d is '%s', the model expects '%s'",
			    name, i, a->name, b->name);
			return -1;
		}
		if (a->rows != b->rows || a->cols != b->cols) {
			*cause = pl_xasprintf("%s: tensor '%s' is %dx%d, the model expects %dx%d",
			    name, a->name, a->rows, a->cols, b->rows, b->cols);
			return -1;
		}
	}
	memcpy(m->w, f->data, m->n_params * sizeof *m->w);
	return 0;
}
