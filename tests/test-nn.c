/*
 * test-nn — the neural-network kit: every layer's backward pass against
 * central finite differences, the whole Placeto policy likewise, Adam,
 * clipping, seeded initialisation and weight files (round trip, corruption,
 * wrong version, truncation, shape mismatch).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fileio.h"
#include "nn/nn.h"
#include "nn/policy.h"
#include "rng.h"

/* A scalar loss of the parameters w and the input x; fills the analytic
 * gradients when gw / gx are not NULL. */
typedef double loss_fn(void *ctx, float *w, float *x, float *gw, float *gx);

/* Fill with uniform values in [-a, a]. */
static void
fill(struct pl_rng *r, float *v, size_t n, double a)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (float)((2 * pl_rng_uniform(r) - 1) * a);
}

/* Compare analytic and central-difference gradients of one vector. */
static void
check_vec(loss_fn *f, void *ctx, float *w, float *x, float *v, size_t n,
    const float *g, const char *what)
{
	const double h = 1e-3;
	double worst = 0;
	for (size_t i = 0; i < n; i++) {
		float keep = v[i];
		v[i] = keep + (float)h;
		double lp = f(ctx, w, x, NULL, NULL);
		v[i] = keep - (float)h;
		double lm = f(ctx, w, x, NULL, NULL);
		v[i] = keep;
		double num = (lp - lm) / (2 * h);
		double err = fabs(num - g[i]) / fmax(1.0, fabs(num) + fabs(g[i]));
		if (err > worst)
			worst = err;
		if (err > 2e-2)
			fail_msg("%s[%zu]: analytic %.6g, numeric %.6g", what, i, (double)g[i], num);
	}
	assert_true(worst <= 2e-2);
}

/* Check dL/dw and dL/dx. */
static void
check_grads(loss_fn *f, void *ctx, float *w, size_t nw, float *x, size_t nx)
{
	float *gw = calloc(nw ? nw : 1, sizeof *gw), *gx = calloc(nx ? nx : 1, sizeof *gx);
	f(ctx, w, x, gw, gx);
	double s = 0;
	for (size_t i = 0; i < nw; i++)
		s += fabs(gw[i]);
	assert_true(nw == 0 || s > 0);	/* the check must be able to fail */
	check_vec(f, ctx, w, x, w, nw, gw, "w");
	if (x != NULL)
		check_vec(f, ctx, w, x, x, nx, gx, "x");
	free(gw);
	free(gx);
}

/* ---- dense and MLP ------------------------------------------------------ */

struct mlp_ctx {
	struct pl_nn_mlp f;
	int n;
	float *c;	/* output weights of the loss */
};

/* L = sum c * mlp(x). */
static double
mlp_loss(void *vctx, float *w, float *x, float *gw, float *gx)
{
	struct mlp_ctx *c = vctx;
	int out = pl_nn_mlp_out(&c->f);
	float *tape = calloc(pl_nn_mlp_tape(&c->f, c->n), sizeof *tape);
	float *y = pl_nn_mlp_forward(&c->f, w, c->n, x, tape);
	double l = 0;
	for (int i = 0; i < c->n * out; i++)
		l += (double)c->c[i] * y[i];
	if (gw != NULL) {
		float *scratch = calloc(pl_nn_mlp_scratch(&c->f, c->n), sizeof *scratch);
		pl_nn_mlp_backward(&c->f, w, gw, c->n, x, tape, c->c, gx, scratch);
		free(scratch);
	}
	free(tape);
	return l;
}

/* Gradients of a dense layer, a linear MLP and a ReLU-output MLP. */
static void
test_mlp_grad(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 7);
	for (int variant = 0; variant < 3; variant++) {
		struct pl_nn_model *m = pl_nn_model_new();
		struct mlp_ctx c = { .n = 5 };
		int one[] = { 4, 3 }, two[] = { 4, 6, 5, 3 };
		if (variant == 0)
			pl_nn_mlp_init(m, &c.f, "dense", 2, one, 0);
		else
			pl_nn_mlp_init(m, &c.f, "mlp", 4, two, variant == 2);
		pl_nn_model_init(m, 11 + variant);
		/* non-zero biases so ReLUs are exercised on both sides */
		fill(&r, m->w, m->n_params, 0.8);
		float x[20], cc[15];
		fill(&r, x, 20, 1.0);
		fill(&r, cc, 15, 1.0);
		c.c = cc;
		check_grads(mlp_loss, &c, m->w, m->n_params, x, 20);
		pl_nn_model_free(m);
	}
}

/* ReLU backward on its own. */
static void
test_relu(void **state)
{
	(void)state;
	float y[4] = { -1, 0.5f, 0, 2 }, dy[4] = { 1, 2, 3, 4 }, dx[4] = { 0 };
	pl_nn_relu_forward(4, y);
	assert_true(y[0] == 0 && y[1] == 0.5f && y[3] == 2);
	pl_nn_relu_backward(4, y, dy, dx);
	assert_true(dx[0] == 0 && dx[1] == 2 && dx[2] == 0 && dx[3] == 4);
}

/* ---- graph aggregation ----------------------------------------------- */

/* A 5-node DAG: 0->1, 0->2, 1->3, 2->3, 3->4, 0->4. */
static const int pred_off[] = { 0, 0, 1, 2, 4, 6 };
static const int pred_idx[] = { 0, 0, 1, 2, 3, 0 };
static const int succ_off[] = { 0, 3, 4, 5, 6, 6 };
static const int succ_idx[] = { 1, 2, 4, 3, 3, 4 };

struct agg_ctx {
	int d;
	float *c;
	int mean;
	const uint8_t *mask;
};

/* L = sum c * csr_mean(x). */
static double
csr_mean_loss(void *vctx, float *w, float *x, float *gw, float *gx)
{
	struct agg_ctx *c = vctx;
	struct pl_nn_csr a = { .n = 5, .off = pred_off, .idx = pred_idx };
	float y[5 * 3];
	pl_nn_csr_mean_forward(&a, c->d, x, y);
	double l = 0;
	for (int i = 0; i < 5 * c->d; i++)
		l += (double)c->c[i] * y[i];
	if (gx != NULL)
		pl_nn_csr_mean_backward(&a, c->d, c->c, gx);
	return l;
}

/* L = sum c * csr_sum(x). */
static double
csr_loss(void *vctx, float *w, float *x, float *gw, float *gx)
{
	struct agg_ctx *c = vctx;
	struct pl_nn_csr a = { .n = 5, .off = pred_off, .idx = pred_idx };
	float y[5 * 3];
	pl_nn_csr_sum_forward(&a, c->d, x, y);
	double l = 0;
	for (int i = 0; i < 5 * c->d; i++)
		l += (double)c->c[i] * y[i];
	if (gx != NULL)
		pl_nn_csr_sum_backward(&a, c->d, c->c, gx);
	return l;
}

/* L = sum c * pool(x). */
static double
pool_loss(void *vctx, float *w, float *x, float *gw, float *gx)
{
	struct agg_ctx *c = vctx;
	float y[3];
	pl_nn_pool_forward(5, c->d, x, c->mask, c->mean, y);
	double l = 0;
	for (int i = 0; i < c->d; i++)
		l += (double)c->c[i] * y[i];
	if (gx != NULL)
		pl_nn_pool_backward(5, c->d, c->mask, c->mean, c->c, gx);
	return l;
}

/* Message passing and masked sum/mean pooling. */
static void
test_agg_grad(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 3);
	float x[15], cc[15];
	fill(&r, x, 15, 1);
	fill(&r, cc, 15, 1);
	struct agg_ctx c = { .d = 3, .c = cc };
	/* forward values: node 3 sums nodes 1 and 2 */
	struct pl_nn_csr a = { .n = 5, .off = pred_off, .idx = pred_idx };
	float y[15];
	pl_nn_csr_sum_forward(&a, 3, x, y);
	assert_true(fabsf(y[9] - (x[3] + x[6])) < 1e-6f);
	assert_true(y[0] == 0 && y[1] == 0);
	check_grads(csr_loss, &c, NULL, 0, x, 15);
	check_grads(csr_mean_loss, &c, NULL, 0, x, 15);
	pl_nn_csr_mean_forward(&a, 3, x, y);
	assert_true(fabsf(y[9] - (x[3] + x[6]) / 2) < 1e-6f);
	static const uint8_t mask[5] = { 1, 0, 1, 1, 0 }, none[5] = { 0 };
	c.mask = mask;
	for (c.mean = 0; c.mean < 2; c.mean++)
		check_grads(pool_loss, &c, NULL, 0, x, 15);
	float p[3];
	pl_nn_pool_forward(5, 3, x, mask, 1, p);
	assert_true(fabsf(p[0] - (x[0] + x[6] + x[9]) / 3) < 1e-6f);
	pl_nn_pool_forward(5, 3, x, none, 1, p);
	assert_true(p[0] == 0 && p[1] == 0 && p[2] == 0);
}

/* ---- softmax, log-prob, entropy -------------------------------------------- */

struct sm_ctx {
	int a;
	double c_logp, c_ent;
	const uint8_t *allowed;
};

/* L = c_logp log p_a + c_ent H(p). */
static double
sm_loss(void *vctx, float *w, float *x, float *gw, float *gx)
{
	struct sm_ctx *c = vctx;
	float p[4];
	pl_nn_softmax(4, x, c->allowed, p);
	double l = c->c_logp * pl_nn_log_prob(p, c->a) + c->c_ent * pl_nn_entropy(4, p);
	if (gx != NULL)
		pl_nn_softmax_backward(4, p, c->a, c->c_logp, c->c_ent, gx);
	return l;
}

/* Softmax gradients, masking, sampling. */
static void
test_softmax(void **state)
{
	(void)state;
	float z[4] = { 0.3f, -1.2f, 0.9f, 0.1f }, p[4];
	struct sm_ctx c = { .a = 2, .c_logp = -0.7, .c_ent = 0.4 };
	check_grads(sm_loss, &c, NULL, 0, z, 4);
	c.c_logp = 0;
	check_grads(sm_loss, &c, NULL, 0, z, 4);
	static const uint8_t allowed[4] = { 1, 0, 1, 1 };
	c.allowed = allowed;
	c.c_logp = 1.3;
	check_grads(sm_loss, &c, NULL, 0, z, 4);
	pl_nn_softmax(4, z, allowed, p);
	assert_true(p[1] == 0);
	assert_true(fabs(p[0] + p[2] + p[3] - 1) < 1e-6);
	assert_int_equal(pl_nn_argmax(4, p), 2);
	assert_int_equal(pl_nn_sample(4, p, 0.0), 0);
	assert_int_equal(pl_nn_sample(4, p, 0.999999), 3);
	/* a uniform distribution has the largest entropy */
	float u[4] = { 0.25f, 0.25f, 0.25f, 0.25f };
	assert_true(pl_nn_entropy(4, u) > pl_nn_entropy(4, p));
	/* the reported entropy: ln 4 for uniform, 0 for one-hot, and never
	 * below 0 near one-hot, where the objective's term is */
	assert_true(fabs(pl_nn_entropy_nats(4, u) - log(4.0)) < 1e-12);
	float one[4] = { 0, 1, 0, 0 }, near[4] = { 0.99999f, 0.0000033f, 0.0000033f, 0.0000034f };
	assert_true(pl_nn_entropy_nats(4, one) == 0);
	assert_true(pl_nn_entropy(4, near) < 0);
	assert_true(pl_nn_entropy_nats(4, near) > 0);
}

/* Logits that are not finite numbers still give a distribution over the
 * allowed entries only (a masked device is never chosen), and are told. */
static void
test_softmax_not_finite(void **state)
{
	(void)state;
	static const uint8_t allowed[4] = { 0, 1, 0, 1 };
	const float inf = INFINITY, nan = NAN;
	const float cases[][4] = {
		{ 5.0f, nan, 7.0f, 1.0f },	/* NaN: as -inf */
		{ inf, 2.0f, inf, inf },	/* +inf: the allowed ones share it */
		{ 3.0f, nan, inf, nan },	/* all NaN */
		{ 1.0f, -inf, 2.0f, -inf },	/* all -inf */
		{ inf, nan, inf, -inf },
	};
	const float want1[] = { 0, 0, 0.5f, 0.5f, 0.5f };	/* p[1] expected */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		float p[4];
		pl_nn_softmax(4, cases[i], allowed, p);
		assert_true(p[0] == 0 && p[2] == 0);
		assert_true(fabs(p[1] + p[3] - 1) < 1e-6);
		if (i > 1)
			assert_true(p[1] == want1[i]);
		int a = pl_nn_argmax(4, p);
		assert_true(a == 1 || a == 3);
		for (double u = 0; u < 1; u += 0.125) {
			a = pl_nn_sample(4, p, u);
			assert_true(a == 1 || a == 3);
		}
		assert_false(pl_nn_logits_finite(4, cases[i], allowed));
	}
	float p[4];
	pl_nn_softmax(4, cases[1], allowed, p);
	assert_true(p[1] == 0 && p[3] == 1);
	pl_nn_softmax(4, cases[0], allowed, p);
	assert_true(p[1] == 0 && p[3] == 1);
	const float fine[4] = { nan, 1.0f, inf, -3.0f };	/* only the allowed count */
	assert_true(pl_nn_logits_finite(4, fine, allowed));
	const float w[3] = { 1.0f, 2.0f, nan };
	assert_true(pl_nn_all_finite(w, 2));
	assert_false(pl_nn_all_finite(w, 3));
}

/* ---- the Placeto policy --------------------------------------------------- */

struct pol_ctx {
	struct pl_policy *p;
	struct pl_policy_in in;
	struct pl_policy_ws *ws;
	int a;
	double adv, c_ent;
};

/* The REINFORCE per-step objective adv*log p(a) + c*H. */
static double
pol_loss(void *vctx, float *w, float *x, float *gw, float *gx)
{
	struct pol_ctx *c = vctx;
	float logits[8], probs[8];
	int nd = c->p->cfg.n_dev;
	pl_policy_forward(c->p, w, &c->in, c->ws, logits, probs);
	double l = c->adv * pl_nn_log_prob(probs, c->a) + c->c_ent * pl_nn_entropy(nd, probs);
	if (gw != NULL) {
		float dl[8] = { 0 };
		pl_nn_softmax_backward(nd, probs, c->a, c->adv, c->c_ent, dl);
		pl_policy_backward(c->p, w, gw, &c->in, c->ws, dl);
	}
	return l;
}

/* The whole policy (message passing both ways, pooling, head). */
static void
test_policy_grad(void **state)
{
	(void)state;
	for (int mean = 0; mean < 2; mean++) {
		struct pl_policy_cfg cfg = { .d = 4, .n_dev = 3, .k = 2, .pool_mean = mean, .mp_mean = mean };
		struct pol_ctx c = { .p = pl_policy_new(&cfg, 5), .a = 1, .adv = 0.8, .c_ent = 0.3 };
		struct pl_rng r;
		pl_rng_seed(&r, 99);
		fill(&r, c.p->m->w, c.p->m->n_params, 0.6);
		float x0[5 * 4];
		fill(&r, x0, 20, 1);
		struct pl_nn_csr pred = { 5, pred_off, pred_idx }, succ = { 5, succ_off, succ_idx };
		static const uint8_t anc[5] = { 1, 1, 1, 0, 0 }, desc[5] = { 0, 0, 0, 0, 1 },
		    par[5] = { 0 };
		c.in = (struct pl_policy_in){ .n = 5, .x0 = x0, .adj = { &pred, &succ },
		    .cur = 3, .set = { anc, desc, par } };
		c.ws = pl_policy_ws_new(c.p, 2);	/* grows on demand */
		check_grads(pol_loss, &c, c.p->m->w, c.p->m->n_params, NULL, 0);
		pl_policy_ws_free(c.ws);
		pl_policy_free(c.p);
	}
}

/* ---- optimisation ------------------------------------------------------ */

/* Adam minimises a quadratic; clipping bounds the norm; init is seeded. */
static void
test_adam_clip_init(void **state)
{
	(void)state;
	float w[3] = { 3, -2, 1 }, g[3];
	struct pl_nn_adam a;
	pl_nn_adam_init(&a, 3);
	for (int it = 0; it < 2000; it++) {
		for (int i = 0; i < 3; i++)
			g[i] = 2 * (w[i] - (float)i);
		pl_nn_adam_step(&a, w, g, 0.01);
	}
	for (int i = 0; i < 3; i++)
		assert_true(fabsf(w[i] - (float)i) < 0.05f);
	pl_nn_adam_free(&a);
	float v[2] = { 3, 4 };
	assert_true(fabs(pl_nn_clip_global(v, 2, 1.25) - 5) < 1e-9);
	assert_true(fabs(hypot(v[0], v[1]) - 1.25) < 1e-5);
	float u[2] = { 0.3f, 0.4f };
	pl_nn_clip_global(u, 2, 1.25);
	assert_true(u[0] == 0.3f && u[1] == 0.4f);
	struct pl_policy_cfg cfg = { .d = 6, .n_dev = 4, .k = 3 };
	struct pl_policy *p1 = pl_policy_new(&cfg, 42), *p2 = pl_policy_new(&cfg, 42),
	    *p3 = pl_policy_new(&cfg, 43);
	assert_memory_equal(p1->m->w, p2->m->w, p1->m->n_params * sizeof(float));
	assert_memory_not_equal(p1->m->w, p3->m->w, p1->m->n_params * sizeof(float));
	pl_policy_free(p1);
	pl_policy_free(p2);
	pl_policy_free(p3);
}

/* ---- weight files ---------------------------------------------------------- */

/* Expect a load failure whose message contains want. */
static void
expect_bad(const unsigned char *buf, size_t len, const char *want)
{
	char *cause = NULL;
	struct pl_nn_file *f = pl_nn_file_decode(buf, len, "w.plw", &cause);
	assert_null(f);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("expected '%s' in '%s'", want, cause);
	assert_non_null(strstr(cause, "w.plw"));
	free(cause);
}

/* Round trip through a file; every kind of damage is detected. */
static void
test_weight_file(void **state)
{
	(void)state;
	struct pl_policy_cfg cfg = { .d = 5, .n_dev = 3, .k = 2, .pool_mean = 1, .mp_mean = 1 };
	struct pl_policy *p = pl_policy_new(&cfg, 1);
	char dir[] = "/tmp/test-nn-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/policy.plw", dir);
	char *cause = NULL;
	assert_int_equal(pl_policy_save(p, "groups=16", path, &cause), 0);
	char *extra = NULL;
	struct pl_policy *q = pl_policy_load(path, &extra, &cause);
	assert_non_null(q);
	assert_int_equal(q->cfg.d, 5);
	assert_int_equal(q->cfg.n_dev, 3);
	assert_int_equal(q->cfg.k, 2);
	assert_int_equal(q->cfg.pool_mean, 1);
	assert_int_equal(q->cfg.mp_mean, 1);
	assert_int_equal(pl_policy_meta_int(extra, "groups", 0), 16);
	assert_int_equal(q->m->n_params, p->m->n_params);
	assert_memory_equal(q->m->w, p->m->w, p->m->n_params * sizeof(float));
	free(extra);
	pl_policy_free(q);

	size_t len;
	unsigned char *buf = pl_nn_file_encode(p->m, "placeto-policy d=5 devices=3 k=2", &len);
	/* intact */
	struct pl_nn_file *f = pl_nn_file_decode(buf, len, "w.plw", &cause);
	assert_non_null(f);
	pl_nn_file_free(f);
	/* one flipped bit in the weights */
	unsigned char *bad = malloc(len);
	memcpy(bad, buf, len);
	bad[len / 2] ^= 0x10;
	expect_bad(bad, len, "checksum mismatch");
	/* truncated */
	expect_bad(buf, len - 9, "checksum");
	expect_bad(buf, 6, "not a placelab weight file");
	/* wrong magic */
	memcpy(bad, buf, len);
	bad[0] = 'X';
	expect_bad(bad, len, "not a placelab weight file");
	/* another version (checksum recomputed so the version check speaks) */
	memcpy(bad, buf, len);
	bad[8] = 7;
	uint64_t h = pl_nn_fnv1a(bad, len - 8);
	for (int i = 0; i < 8; i++)
		bad[len - 8 + i] = (unsigned char)(h >> (8 * i));
	expect_bad(bad, len, "version 7");
	free(bad);
	/* a file that is not a weight file at all */
	snprintf(path, sizeof path, "%s/junk.plw", dir);
	assert_int_equal(pl_file_write_atomic(path, "{\"format\": 1}\n", 14, &cause), 0);
	assert_null(pl_policy_load(path, NULL, &cause));
	assert_non_null(strstr(cause, "not a placelab weight file"));
	free(cause);
	/* another of placelab's files: named as such */
	assert_int_equal(pl_file_write_atomic(path, "{\"format\": \"placelab-graph/1\"}\n", 30, &cause), 0);
	assert_null(pl_policy_load(path, NULL, &cause));
	assert_non_null(strstr(cause, "junk.plw: holds a graph (placelab-graph/1), not a trained policy "
	    "(expected a placelab weight file, magic 'PLWEIGHT' at byte 0)"));
	free(cause);
	unlink(path);
	/* shape mismatch: a model with other widths */
	f = pl_nn_file_decode(buf, len, "w.plw", &cause);
	struct pl_policy_cfg other = { .d = 6, .n_dev = 3, .k = 2 };
	struct pl_policy *o = pl_policy_new(&other, 1);
	assert_int_equal(pl_nn_model_assign(o->m, f, "w.plw", &cause), -1);
	assert_non_null(strstr(cause, "model expects"));
	free(cause);
	pl_policy_free(o);
	pl_nn_file_free(f);
	free(buf);
	/* a missing file */
	snprintf(path, sizeof path, "%s/missing.plw", dir);
	assert_null(pl_policy_load(path, NULL, &cause));
	assert_non_null(strstr(cause, "missing.plw"));
	free(cause);
	snprintf(path, sizeof path, "%s/policy.plw", dir);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);	/* no temporary file left behind */
	pl_policy_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlp_grad),
		cmocka_unit_test(test_relu),
		cmocka_unit_test(test_agg_grad),
		cmocka_unit_test(test_softmax),
		cmocka_unit_test(test_softmax_not_finite),
		cmocka_unit_test(test_policy_grad),
		cmocka_unit_test(test_adam_clip_init),
		cmocka_unit_test(test_weight_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
