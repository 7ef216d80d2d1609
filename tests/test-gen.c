/*
 * test-gen — the sample generators: published figures of the CNNs,
 * framework-sized NMT, determinism, validity, and the training step's
 * backward and update ops.
 */
#include <dirent.h>
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

#include "tui/cmd.h"
#include "gen/gen.h"
#include "gen/net.h"
#include "fileio.h"
#include "io.h"

/* Generate or fail the test. */
static struct pl_graph *
gen(const char *model, const struct pl_gen_opts *o, struct pl_gen_stats *st)
{
	char *cause = NULL;
	struct pl_graph *g = pl_gen(model, o, st, &cause);
	if (g == NULL)
		fail_msg("%s: %s", model, cause);
	return g;
}

static char *json(const struct pl_graph *g);

/* |x / want - 1| <= tol. */
static void
assert_near(double x, double want, double tol, const char *what)
{
	double rel = x / want - 1;
	if (rel < -tol || rel > tol)
		fail_msg("%s: %.4g, expected %.4g within %.0f%%", what, x, want, tol * 100);
}

/* Published figures of one CNN, forward pass per image. */
static void
check_cnn(const char *model, double gmacs, double mparams)
{
	struct pl_gen_opts o = { .forward_only = 1 };
	struct pl_gen_stats st;
	struct pl_graph *g = gen(model, &o, &st);
	assert_int_equal(st.batch, 32);
	assert_near(st.fwd_macs / st.batch, gmacs * 1e9, 0.10, "multiply-adds per image");
	/* The stored FLOPs (all ops, 2 per multiply-add) agree too. */
	assert_near(pl_graph_total_flops(g) / 2 / st.batch, gmacs * 1e9, 0.10, "graph FLOPs / 2 per image");
	assert_near((double)st.params, mparams * 1e6, 0.02, "parameters");
	assert_near((double)pl_graph_total_params(g), mparams * 4e6, 0.02, "parameter bytes");
	pl_graph_free(g);
}

/* ResNet-50: ~4.1 G multiply-adds per image, 25.6 M parameters. */
static void
test_resnet50_figures(void **state)
{
	(void)state;
	check_cnn("resnet50", 4.1, 25.6);
}

/* Inception-V3: ~5.7 G multiply-adds per image, 23.8 M parameters. */
static void
test_inception_v3_figures(void **state)
{
	(void)state;
	check_cnn("inception_v3", 5.7, 23.8);
}

/* A training step costs about three forward passes (dX and dW). */
static void
test_training_step_flops(void **state)
{
	(void)state;
	struct pl_gen_opts o = { .forward_only = 1 };
	struct pl_graph *f = gen("resnet50", &o, NULL);
	o.forward_only = 0;
	struct pl_graph *t = gen("resnet50", &o, NULL);
	double ratio = pl_graph_total_flops(t) / pl_graph_total_flops(f);
	if (ratio < 2.5 || ratio > 3.5)
		fail_msg("training / forward FLOPs = %.2f (expected about 3)", ratio);
	assert_true(t->n_ops > 3 * f->n_ops);
	pl_graph_free(f);
	pl_graph_free(t);
	/* Both granularities describe the same step. */
	static const char *const models[] = { "resnet50", "nmt", "transformer", "rnnlm" };
	for (int i = 0; i < 4; i++) {
		struct pl_gen_opts a = { .seq_len = 8 }, b = { .seq_len = 8, .granularity = PL_GEN_LAYER };
		struct pl_graph *ga = gen(models[i], &a, NULL), *gb = gen(models[i], &b, NULL);
		assert_near(pl_graph_total_flops(gb), pl_graph_total_flops(ga), 0.05, models[i]);
		pl_graph_free(ga);
		pl_graph_free(gb);
	}
}

/* The committed samples are what the generator writes today. */
static void
test_committed_samples(void **state)
{
	(void)state;
	static const struct {
		const char *file, *model;
		int layers, layer;
	} s[] = {
		{ "nmt4", "nmt", 4, 1 }, { "nmt2", "nmt", 2, 1 }, { "rnnlm", "rnnlm", 0, 1 },
		{ "resnet50", "resnet50", 0, 1 }, { "inception_v3", "inception_v3", 0, 1 },
		{ "nasnet_a", "nasnet_a", 0, 1 }, { "transformer", "transformer", 0, 1 },
		{ "chain", "chain", 0, 0 }, { "crown", "crown", 0, 0 }, { "heft", "heft", 0, 0 },
		{ "teach", "teach", 0, 0 },
	};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		char path[1024], *cause = NULL;
		size_t len;
		snprintf(path, sizeof path, "%s/samples/%s.json", PL_SRCDIR, s[i].file);
		char *text = pl_file_read(path, &len, &cause);
		if (text == NULL)
			fail_msg("%s", cause);
		struct pl_gen_opts o = { .layers = s[i].layers,
			.granularity = s[i].layer ? PL_GEN_LAYER : PL_GEN_OP };
		struct pl_graph *g = gen(s[i].model, &o, NULL);
		char *j = json(g);
		if (strcmp(j, text) != 0)
			fail_msg("%s differs from 'placelab gen' output (run make samples-update)", path);
		free(j);
		free(text);
		pl_graph_free(g);
	}
}

/* Op-level 8-layer NMT is framework-sized: around 80,000 ops. */
static void
test_nmt8_op_count(void **state)
{
	(void)state;
	struct pl_gen_opts o = { .layers = 8 };
	struct pl_graph *g = gen("nmt", &o, NULL);
	if (g->n_ops < 64000 || g->n_ops > 96000)
		fail_msg("nmt8 has %d ops (expected around 80,000)", g->n_ops);
	assert_string_equal(g->name, "nmt8");
	/* Scope paths name layer and time step. */
	int enc = pl_graph_find(g, "enc/l7/t49/matmul"), dec = pl_graph_find(g, "dec/l3/t0/matmul");
	assert_true(enc >= 0 && dec >= 0);
	assert_string_equal(g->ops[enc].scope, "enc/l7/t49");
	assert_true(pl_graph_find(g, "attn/t10/score") >= 0);
	assert_true(pl_graph_find(g, "softmax/t49/logits") >= 0);
	/* Layer granularity is far smaller. */
	o.granularity = PL_GEN_LAYER;
	struct pl_graph *l = gen("nmt", &o, NULL);
	assert_true(l->n_ops * 10 < g->n_ops);
	assert_true(pl_graph_find(l, "enc/l7/t49/lstm") >= 0);
	pl_graph_free(g);
	pl_graph_free(l);
}

/* Type of op `name` in g, or fail. */
static const char *
type_of(const struct pl_graph *g, const char *name)
{
	int v = pl_graph_find(g, name);
	if (v < 0)
		fail_msg("%s: no op '%s'", g->name, name);
	return g->ops[v].type;
}

/* Whether ops a and b of g are in the same colocation group. */
static int
same_group(const struct pl_graph *g, const char *a, const char *b)
{
	int x = pl_graph_find(g, a), y = pl_graph_find(g, b);
	if (x < 0 || y < 0)
		fail_msg("%s: no op '%s' or '%s'", g->name, a, b);
	return g->ops[x].group == g->ops[y].group;
}

/* Op-level CNNs are framework-sized (TF's unfused batch norm, variables
 * and reads, weight decay, their gradients and updates) and describe the
 * same step as the layer graphs: same multiply-adds and parameters,
 * FLOPs within 1%. */
static void
test_cnn_op_sizes(void **state)
{
	(void)state;
	static const struct {
		const char *model;
		int min_ops;
	} m[] = { { "resnet50", 5000 }, { "inception_v3", 10000 }, { "nasnet_a", 20000 } };
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		for (int fwd = 0; fwd < 2; fwd++) {
			struct pl_gen_opts a = { .forward_only = fwd };
			struct pl_gen_opts b = { .forward_only = fwd, .granularity = PL_GEN_LAYER };
			struct pl_gen_stats sa, sb;
			struct pl_graph *ga = gen(m[i].model, &a, &sa), *gb = gen(m[i].model, &b, &sb);
			if (!fwd && ga->n_ops < m[i].min_ops)
				fail_msg("%s: %d ops at op granularity (expected >= %d)", m[i].model,
				    ga->n_ops, m[i].min_ops);
			assert_true(ga->n_ops > 10 * gb->n_ops);
			assert_near(pl_graph_total_flops(ga), pl_graph_total_flops(gb), 0.01, m[i].model);
			assert_true(sa.fwd_macs == sb.fwd_macs);
			assert_true(sa.params == sb.params);
			pl_graph_free(ga);
			pl_graph_free(gb);
		}
	}
	/* TF's ops, where TF puts them. */
	struct pl_gen_opts o = { 0 };
	struct pl_graph *g = gen("inception_v3", &o, NULL);
	const char *c = "mixed_5b/branch1x1";
	static const char *const fwd[][2] = {
		{ "weights", "VariableV2" }, { "weights/read", "Identity" }, { "conv", "Conv2D" },
		{ "bn/moments/mean", "Mean" }, { "bn/moments/SquaredDifference", "SquaredDifference" },
		{ "bn/moments/variance", "Mean" }, { "bn/batchnorm/Rsqrt", "Rsqrt" },
		{ "bn/batchnorm/add_1", "Add" }, { "bn/AssignMovingAvg", "AssignSub" },
		{ "bn/AssignMovingAvg_1/mul", "Mul" }, { "weights/Regularizer/L2Loss", "L2Loss" },
		{ "relu", "Relu" }, { "conv/grad_0", "Conv2DBackpropInput" },
		{ "conv/grad_1", "Conv2DBackpropFilter" }, { "bn/batchnorm/mul_1/grad_bcast", "BroadcastGradientArgs" },
		{ "bn/moments/mean/grad_tile", "Tile" }, { "conv/grad_accum", "AddN" },
		{ "weights/update", "ApplyMomentum" }, { "bn/gamma/update", "ApplyMomentum" },
	};
	char a[256], b[256];
	for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) {
		snprintf(a, sizeof a, "%s/%s", c, fwd[i][0]);
		assert_string_equal(type_of(g, a), fwd[i][1]);
	}
	snprintf(a, sizeof a, "%s/weights", c);
	snprintf(b, sizeof b, "%s/weights/read", c);
	assert_true(same_group(g, a, b));
	snprintf(b, sizeof b, "%s/weights/update", c);
	assert_true(same_group(g, a, b));
	snprintf(a, sizeof a, "%s/bn/moving_mean", c);
	snprintf(b, sizeof b, "%s/bn/AssignMovingAvg", c);
	assert_true(same_group(g, a, b));
	snprintf(a, sizeof a, "%s/bn/moving_mean", c);
	assert_int_equal(g->ops[pl_graph_find(g, a)].param_bytes, 64 * 4);
	/* The moving statistics take no gradient. */
	snprintf(a, sizeof a, "%s/bn/moving_mean/update", c);
	assert_int_equal(pl_graph_find(g, a), -1);
	assert_string_equal(type_of(g, "total_loss/AddN"), "AddN");
	assert_string_equal(type_of(g, "total_loss/AddN/grad_ys"), "Fill");
	/* Concatenation's gradient: shapes, offsets, one Slice per input. */
	assert_string_equal(type_of(g, "mixed_5b/concat/grad_offset"), "ConcatOffset");
	assert_string_equal(type_of(g, "mixed_5b/concat/grad_0"), "Slice");
	assert_string_equal(type_of(g, "mixed_5b/branch1x1/conv/grad_shapes"), "ShapeN");
	/* The optimizer's slot lives with its variable and holds its bytes. */
	snprintf(a, sizeof a, "%s/weights/Momentum", c);
	snprintf(b, sizeof b, "%s/weights", c);
	assert_true(same_group(g, a, b));
	assert_string_equal(type_of(g, a), "VariableV2");
	int64_t wb = g->ops[pl_graph_find(g, b)].param_bytes;
	snprintf(a, sizeof a, "%s/weights/update", c);
	assert_int_equal(g->ops[pl_graph_find(g, a)].param_bytes, wb);
	assert_string_equal(type_of(g, "Momentum"), "AssignAdd");
	assert_true(same_group(g, "Momentum", "global_step"));
	pl_graph_free(g);
	/* ResNet-50: the official model's loss + 1e-4 * AddN(L2Loss). */
	g = gen("resnet50", &o, NULL);
	assert_string_equal(type_of(g, "l2_loss/AddN"), "AddN");
	assert_string_equal(type_of(g, "logits/biases/Regularizer/L2Loss"), "L2Loss");
	assert_int_equal(pl_graph_find(g, "res2a/branch2a/weights/Regularizer/mul"), -1);
	pl_graph_free(g);
}

/* Serialise, or fail. */
static char *
json(const struct pl_graph *g)
{
	char *s = pl_graph_to_json(g);
	assert_non_null(s);
	return s;
}

/* The same seed gives the same graph; another seed another graph. */
static void
test_determinism(void **state)
{
	(void)state;
	static const char *const fam[] = { "enas-cnn", "enas-rnn", "nmt" };
	for (int i = 0; i < 3; i++) {
		struct pl_gen_opts o = { .granularity = PL_GEN_LAYER, .seed = 7, .seeded = 1 };
		struct pl_graph *a = gen(fam[i], &o, NULL), *b = gen(fam[i], &o, NULL);
		char *ja = json(a), *jb = json(b);
		assert_string_equal(ja, jb);
		int differs = 0;
		for (uint64_t s = 8; s < 12 && !differs; s++) {
			o.seed = s;
			struct pl_graph *c = gen(fam[i], &o, NULL);
			char *jc = json(c);
			differs = strcmp(ja, jc) != 0;
			free(jc);
			pl_graph_free(c);
		}
		if (!differs)
			fail_msg("%s: seeds 8..11 all gave seed 7's graph", fam[i]);
		free(ja);
		free(jb);
		pl_graph_free(a);
		pl_graph_free(b);
	}
	/* Family member i is the model with seed (seed + i). */
	char *cause = NULL;
	struct pl_gen_opts o = { .granularity = PL_GEN_LAYER };
	struct pl_graph *m = pl_gen_family_member("enas-cnn", 3, 4, &o, &cause);
	assert_non_null(m);
	o.seed = 7;
	o.seeded = 1;
	struct pl_graph *d = gen("enas-cnn", &o, NULL);
	char *jm = json(m), *jd = json(d);
	assert_string_equal(jm, jd);
	free(jm);
	free(jd);
	pl_graph_free(m);
	pl_graph_free(d);
	assert_null(pl_gen_family_member("resnet50", 0, 0, &o, &cause));
	free(cause);
}

/* Every model at both granularities builds, survives a JSON round trip,
 * and has sensible figures. */
static void
test_all_validate(void **state)
{
	(void)state;
	for (const struct pl_gen_model *m = pl_gen_models; m->name != NULL; m++)
		for (int gr = 0; gr < 2; gr++) {
			struct pl_gen_opts o = { .granularity = gr ? PL_GEN_LAYER : PL_GEN_OP };
			/* Keep the big op-level ones small enough for a quick test. */
			if (strcmp(m->name, "nmt") == 0 || strcmp(m->name, "enas-rnn") == 0 ||
			    strcmp(m->name, "rnnlm") == 0)
				o.seq_len = 6;
			if (strcmp(m->name, "nasnet_a") == 0)
				o.cells = 2;
			struct pl_graph *g = gen(m->name, &o, NULL);
			char *s = json(g), *cause = NULL;
			struct pl_graph *h = pl_graph_parse_json(s, strlen(s), m->name, &cause);
			if (h == NULL)
				fail_msg("%s: %s", m->name, cause);
			assert_int_equal(h->n_ops, g->n_ops);
			assert_int_equal(h->n_edges, g->n_edges);
			assert_true(pl_graph_total_flops(g) > 0 || strcmp(m->name, "heft") == 0);
			assert_true(strncmp(g->name, m->name, strlen(m->name)) == 0);
			for (int v = 0; v < g->n_ops; v++)
				assert_true(g->ops[v].scope[0] != '\0');
			free(s);
			pl_graph_free(g);
			pl_graph_free(h);
		}
	char *cause = NULL;
	struct pl_gen_opts bad = { .batch = -1 };
	assert_null(pl_gen("resnet50", &bad, NULL, &cause));
	assert_non_null(strstr(cause, "batch"));
	free(cause);
	struct pl_gen_opts seeded = { .seed = 1, .seeded = 1 };
	assert_null(pl_gen("resnet50", &seeded, NULL, &cause));
	assert_non_null(strstr(cause, "--seed"));
	free(cause);
	struct pl_gen_opts none = { 0 };
	assert_null(pl_gen("alexnet", &none, NULL, &cause));
	assert_non_null(strstr(cause, "alexnet"));
	free(cause);
}

/* The forward op a backward or update op belongs to, or -1. */
static int
forward_of(const struct pl_graph *g, const char *name)
{
	const char *p = strstr(name, "/grad");
	if (p == NULL) {
		size_t l = strlen(name);
		if (l > 7 && strcmp(name + l - 7, "/update") == 0)
			p = name + l - 7;
	}
	if (p == NULL)
		return -2;
	char buf[512];
	size_t l = (size_t)(p - name);
	assert_true(l < sizeof buf);
	memcpy(buf, name, l);
	buf[l] = '\0';
	return pl_graph_find(g, buf);
}

/* Backward ops exist, have their forward op's scope and group; update
 * ops are colocated with their parameters' owner. */
static void
check_training(const char *model, enum pl_gen_granularity gr)
{
	struct pl_gen_opts o = { .granularity = gr, .seq_len = 5 };
	struct pl_graph *g = gen(model, &o, NULL);
	int grads = 0, updates = 0;
	int64_t owned = 0;
	for (int v = 0; v < g->n_ops; v++) {
		const struct pl_op *op = &g->ops[v];
		int f = forward_of(g, op->name);
		if (f == -2) {
			if (op->param_bytes > 0) {
				owned += op->param_bytes;
				char *u = NULL;
				size_t l = strlen(op->name) + 8;
				u = malloc(l);
				snprintf(u, l, "%s/update", op->name);
				int w = pl_graph_find(g, u);
				free(u);
				if (w < 0 && strcmp(op->type, "VariableV2") == 0) {
					/* Non-trainable state (moving statistics,
					 * optimizer slots, global_step): updated by
					 * an Assign or Apply op in its group. */
					const struct pl_group *og = &g->groups[op->group];
					for (int k = 0; k < og->count && w < 0; k++) {
						const char *t = g->ops[g->group_ops[og->first + k]].type;
						if (strncmp(t, "Assign", 6) == 0 || strncmp(t, "Apply", 5) == 0)
							w = g->group_ops[og->first + k];
					}
				}
				if (w < 0)
					fail_msg("%s: '%s' owns parameters but has no update op", model, op->name);
				assert_int_equal(g->ops[w].group, op->group);
			}
			continue;
		}
		if (f < 0)
			fail_msg("%s: '%s' has no forward op", model, op->name);
		assert_int_equal(op->group, g->ops[f].group);
		assert_string_equal(op->scope, g->ops[f].scope);
		assert_non_null(g->groups[op->group].name);
		if (strstr(op->name, "/update") != NULL)
			updates++;
		else
			grads++;
	}
	assert_true(grads > 0);
	assert_true(updates > 0);
	assert_true(owned > 0);
	/* The backward pass reads forward activations: some edge goes from a
	 * forward op straight into a gradient op of another op. */
	int kept = 0;
	for (int e = 0; e < g->n_edges && !kept; e++) {
		const char *s = g->ops[g->edges[e].src].name, *d = g->ops[g->edges[e].dst].name;
		kept = strstr(s, "/grad") == NULL && strstr(d, "/grad") != NULL &&
		    g->ops[g->edges[e].src].group != g->ops[g->edges[e].dst].group;
	}
	assert_true(kept);
	pl_graph_free(g);
}

/* The training-step rules on CNN, NMT, Transformer and ENAS-RNN graphs. */
static void
test_backward_colocated(void **state)
{
	(void)state;
	check_training("resnet50", PL_GEN_OP);
	check_training("inception_v3", PL_GEN_OP);
	check_training("resnet50", PL_GEN_LAYER);
	check_training("nmt", PL_GEN_OP);
	check_training("nmt", PL_GEN_LAYER);
	check_training("transformer", PL_GEN_LAYER);
	check_training("enas-rnn", PL_GEN_OP);
}

/* The toy graphs: HEFT's published costs and volumes, the teaching graph. */
static void
test_toys(void **state)
{
	(void)state;
	struct pl_gen_opts o = { 0 };
	struct pl_graph *h = gen("heft", &o, NULL);
	assert_int_equal(h->n_ops, 10);
	assert_int_equal(h->n_edges, 15);
	int t0 = pl_graph_find(h, "T0"), t9 = pl_graph_find(h, "T9");
	assert_int_equal(h->ops[t0].n_dev_times, 3);
	assert_string_equal(h->ops[t0].dev_times[2].device, "P2");
	assert_true(h->ops[t0].dev_times[2].us == 9);
	assert_true(h->ops[t9].dev_times[1].us == 7);
	int64_t vol = 0;
	for (int e = 0; e < h->n_edges; e++)
		vol += h->tensors[h->edges[e].tensor].bytes;
	assert_int_equal(vol, 18 + 12 + 9 + 11 + 14 + 19 + 16 + 23 + 27 + 23 + 13 + 15 + 17 + 11 + 13);
	pl_graph_free(h);
	struct pl_graph *t = gen("teach", &o, NULL);
	assert_true(t->n_ops >= 10 && t->n_ops <= 20);
	assert_int_equal(t->ops[pl_graph_find(t, "input/read")].cons.kind, PL_CONS_KIND);
	pl_graph_free(t);
	struct pl_graph *c = gen("chain", &o, NULL);
	assert_int_equal(c->n_edges, c->n_ops - 1);
	pl_graph_free(c);
	struct pl_graph *cr = gen("crown", &o, NULL);
	assert_true(cr->n_ops > 10);
	pl_graph_free(cr);
}

/* `placelab gen` from the command line: a family written to a directory
 * equals the models with seeds seed+i; bad usage exits 2. */
static void
test_cli_family(void **state)
{
	(void)state;
	char dir[] = "/tmp/test-gen-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *out = NULL;
	char a0[] = "gen", a1[] = "family", a2[] = "enas-rnn", a3[] = "--count", a4[] = "3",
	    a5[] = "--seed", a6[] = "5", a7[] = "-g", a8[] = "layer", a9[] = "-o";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, dir, NULL };
	assert_int_equal(cmd_gen(11, argv), 0);
	for (int i = 0; i < 3; i++) {
		char path[256], *cause = NULL;
		size_t len;
		snprintf(path, sizeof path, "%s/enas-rnn-%02d.json", dir, i);
		char *text = pl_file_read(path, &len, &cause);
		if (text == NULL)
			fail_msg("%s", cause);
		struct pl_gen_opts o = { .granularity = PL_GEN_LAYER, .seed = 5 + (uint64_t)i, .seeded = 1 };
		struct pl_graph *g = gen("enas-rnn", &o, NULL);
		out = json(g);
		assert_string_equal(out, text);
		free(out);
		free(text);
		pl_graph_free(g);
		unlink(path);
	}
	rmdir(dir);
	char b0[] = "gen", b1[] = "resnet50", b2[] = "--batch", b3[] = "3x";
	char *bad[] = { b0, b1, b2, b3, NULL };
	assert_int_equal(cmd_gen(4, bad), 2);
	char c0[] = "gen", c1[] = "--granularity", c2[] = "block", c3[] = "nmt";
	char *bad2[] = { c0, c1, c2, c3, NULL };
	assert_int_equal(cmd_gen(4, bad2), 2);
	/* A preset as a cluster file. */
	char cpath[] = "/tmp/test-gen-cluster-XXXXXX";
	int fd = mkstemp(cpath);
	assert_true(fd >= 0);
	close(fd);
	char e0[] = "gen", e1[] = "cluster", e2[] = "k80x4", e3[] = "-o";
	char *cl[] = { e0, e1, e2, e3, cpath, NULL };
	assert_int_equal(cmd_gen(5, cl), 0);
	char *cause = NULL;
	struct pl_cluster *c = pl_cluster_load_json(cpath, &cause);
	if (c == NULL)
		fail_msg("%s", cause);
	assert_int_equal(c->n_dev, 5);
	assert_string_equal(c->dev[4].name, "/gpu:3");
	pl_cluster_free(c);
	unlink(cpath);
	char f2[] = "k99";
	char *cl2[] = { e0, e1, f2, NULL };
	assert_int_equal(cmd_gen(3, cl2), 2);
	char d0[] = "gen", d1[] = "family", d2[] = "resnet50", d3[] = "-o", d4[] = "/tmp";
	char *bad3[] = { d0, d1, d2, d3, d4, NULL };
	assert_int_equal(cmd_gen(5, bad3), 2);
}

/* Check up to `limit` graph files of at most 2 MB in dir (the big
 * generated ones come from the generator the other tests cover, and
 * loading them is slow under ASan): each loads, names its model, has
 * work. */
static int
check_sample_dir(const char *dir, int limit)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
			continue;
		char path[1024], *cause = NULL;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (n >= limit || stat(path, &st) != 0 || st.st_size > (2 << 20))
			continue;
		struct pl_graph *g = pl_graph_load_json(path, &cause);
		if (g == NULL)
			fail_msg("%s", cause);
		int known = 0;
		for (const struct pl_gen_model *m = pl_gen_models; m->name != NULL; m++)
			known |= strncmp(g->name, m->name, strlen(m->name)) == 0;
		if (!known)
			fail_msg("%s: graph '%s' names no model", path, g->name);
		assert_true(g->n_ops >= 10);
		if (strcmp(g->name, "heft") != 0 && !(pl_graph_total_flops(g) > 0))
			fail_msg("%s: no FLOPs", path);
		pl_graph_free(g);
		n++;
	}
	closedir(d);
	return n;
}

/* Every shipped sample (committed, and generated ones once built) loads
 * with sensible figures. */
static void
test_shipped_samples(void **state)
{
	(void)state;
	assert_true(check_sample_dir(PL_SRCDIR "/samples", 1000) >= 11);
	check_sample_dir(PL_BUILDDIR "/samples", 1000);
	check_sample_dir(PL_BUILDDIR "/samples/families/enas-cnn", 4);
	check_sample_dir(PL_BUILDDIR "/samples/families/enas-rnn", 4);
	check_sample_dir(PL_BUILDDIR "/samples/families/nmt", 4);
}

/* A training step of more ops than a graph may have is refused from its
 * count, before any op is built: the message gives the exact number (a
 * builder stopped at the limit could only say how many it reached, after
 * a minute and gigabytes for the largest models). */
static void
test_training_step_too_large(void **state)
{
	(void)state;
	struct pl_gen_opts o = { 0 };
	struct gnet *n = gnet_new("wide", &o, "sgd");
	int a = gnet_var(n, "a", 1), b = gnet_var(n, "b", 1);
	/* each broadcast product: 1 forward op, 9 gradient ops and the sum
	 * of its two gradients: 11 ops; the first two sums are single */
	const int F = 1600000;
	for (int k = 0; k < F; k++) {
		gnet_scope(n, "m%d", k);
		int c = gnet_op(n, "mul", "Mul", GG_PRODUCT, 1, 0, 1, 2, a, b);
		gnet_set_flags(n, c, GN_BCAST | (k == F - 1 ? GN_LOSS : 0));
		a = b;
		b = c;
	}
	char *cause = NULL;
	struct pl_graph *g = gnet_build(n, &cause);
	assert_null(g);
	assert_non_null(cause);
	long long ops = 0;
	assert_int_equal(sscanf(cause, "wide: %lld ops, more than the", &ops), 1);
	assert_true(ops > PL_MAX_OPS);
	assert_non_null(strstr(cause, " ops, more than the 16777216 supported"));
	/* the forward nodes, their gradients, the sums, the updates */
	assert_true(ops >= 11LL * F - 2 && ops <= 11LL * F + 8);
	assert_non_null(strstr(cause, "expected a smaller model"));
	free(cause);
}

/* One group, one TAP plan. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resnet50_figures),
		cmocka_unit_test(test_inception_v3_figures),
		cmocka_unit_test(test_training_step_flops),
		cmocka_unit_test(test_nmt8_op_count),
		cmocka_unit_test(test_training_step_too_large),
		cmocka_unit_test(test_cnn_op_sizes),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_all_validate),
		cmocka_unit_test(test_backward_colocated),
		cmocka_unit_test(test_toys),
		cmocka_unit_test(test_committed_samples),
		cmocka_unit_test(test_cli_family),
		cmocka_unit_test(test_shipped_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
