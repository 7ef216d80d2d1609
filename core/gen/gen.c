/*
 * gen — the model table, defaults, option checks and families.
 *
 * Invariant: pl_gen() fills every option the caller left at 0 from the
 * model's defaults (the table below, documented in docs/SAMPLES.md), then
 * calls exactly one builder; with --seed, a family model draws its shape
 * from pl_rng seeded with the seed alone, so a seed names one graph.
 */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "rng.h"
#include "xmalloc.h"

/* The options every framework model reads (the training step's shape). */
#define TRAINING_OPTS " --dtype-bytes --optimizer --granularity --forward-only"

const struct pl_gen_model pl_gen_models[] = {
	{ "nmt", "encoder-decoder LSTM NMT with attention, unrolled over time",
	  "GNMT (Wu et al. 2016) and the TensorFlow NMT tutorial: 1024 units, bidirectional bottom "
	  "layer, residual from layer 3, max length 50, Adam; 2/4/8 layers as in Mirhoseini et al. 2018; "
	  "batch 128 and 32k vocabulary our choice", 1,
	  "--batch --seq-len --hidden --layers --vocab" TRAINING_OPTS },
	{ "rnnlm", "LSTM language model (2 layers)",
	  "the 2-layer RNNLM benchmark of Mirhoseini et al. 2017; 2048 units, batch 64, 20 steps, "
	  "40k vocabulary our choice", 0,
	  "--batch --seq-len --hidden --layers --vocab" TRAINING_OPTS },
	{ "inception_v3", "Inception-V3 (299x299)",
	  "Szegedy et al. 2016; Keras/TF-slim layer shapes; batch 32", 0,
	  "--batch --image" TRAINING_OPTS },
	{ "resnet50", "ResNet-50 v1.5 (224x224)",
	  "He et al. 2016, stride on the 3x3 conv as in torchvision; batch 32", 0,
	  "--batch --image" TRAINING_OPTS },
	{ "nasnet_a", "NASNet-A Large (6@4032, 331x331)",
	  "Zoph et al. 2018 (NASNet-A cells of TF-slim nasnet_utils.py); batch 8, our choice so that "
	  "the whole model fits one 12 GB K80 like the papers' single-GPU expert placement", 0,
	  "--batch --image --cells --hidden" TRAINING_OPTS },
	{ "transformer", "Transformer base (6+6 layers, d_model 512)",
	  "Vaswani et al. 2017 base model: d_model 512, 8 heads, d_ff 2048, 37k shared vocabulary; 32x128 tokens", 0,
	  "--batch --seq-len --hidden --layers --vocab" TRAINING_OPTS },
	{ "enas-cnn", "random ENAS micro-search-space CNN (CIFAR-10)",
	  "Pham et al. 2018 micro search space (5 blocks, 5 ops); shapes drawn from --seed", 1,
	  "--batch --image --cells --hidden" TRAINING_OPTS },
	{ "enas-rnn", "random ENAS recurrent cell network (PTB)",
	  "Pham et al. 2018 recurrent cell (tanh/relu/identity/sigmoid, highway); shapes drawn from --seed", 1,
	  "--batch --seq-len --hidden --layers --cells --vocab" TRAINING_OPTS },
	{ "chain", "toy: a chain of 10 equal ops",
	  "named after Placeto's toy chain (Addanki et al. 2019); sizes ours (--layers: length)", 0,
	  "--layers" },
	{ "crown", "toy: 4 parallel points with a band, base and top",
	  "named after Placeto's toy crown (Addanki et al. 2019); shape and sizes ours (--layers: points, --seq-len: depth)", 0,
	  "--layers --seq-len" },
	{ "heft", "toy: the canonical HEFT example (10 tasks, 3 processors)",
	  "Topcuoglu, Hariri & Wu 2002, Fig. 2 (samples/clusters/heft3.json)", 0,
	  "" },
	{ "teach", "toy: 14 ops, two towers, one clear best placement (k80x2)", "placelab", 0,
	  "" },
	{ NULL, NULL, NULL, 0, NULL },
};

/* A model by name. */
const struct pl_gen_model *
pl_gen_model_find(const char *name)
{
	for (const struct pl_gen_model *m = pl_gen_models; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

/* Set *f to v if the caller left it 0. */
static void
dflt(int *f, int v)
{
	if (*f == 0)
		*f = v;
}

/* Pick one of n values. */
static int
pick(struct pl_rng *r, const int *v, int n)
{
	return v[pl_rng_below(r, (uint64_t)n)];
}

/* Fill defaults (and, with a seed, the family's random shape). */
static void
fill_defaults(const char *m, struct pl_gen_opts *o, struct pl_rng *r)
{
	dflt(&o->dtype_bytes, 4);
	if (strcmp(m, "nmt") == 0) {
		if (o->seeded) {
			static const int L[] = { 2, 3, 4, 6, 8 }, H[] = { 256, 512, 768, 1024 };
			static const int B[] = { 64, 128 };
			dflt(&o->layers, pick(r, L, 5));
			dflt(&o->hidden, pick(r, H, 4));
			dflt(&o->seq_len, 10 + (int)pl_rng_below(r, 41));
			dflt(&o->batch, pick(r, B, 2));
		}
		dflt(&o->batch, 128);
		dflt(&o->seq_len, 50);
		dflt(&o->hidden, 1024);
		dflt(&o->layers, 4);
		dflt(&o->vocab, 32000);
	} else if (strcmp(m, "rnnlm") == 0) {
		dflt(&o->batch, 64);
		dflt(&o->seq_len, 20);
		dflt(&o->hidden, 2048);
		dflt(&o->layers, 2);
		dflt(&o->vocab, 40000);
	} else if (strcmp(m, "enas-rnn") == 0) {
		if (o->seeded) {
			static const int H[] = { 256, 512, 800, 1000 };
			dflt(&o->cells, 4 + (int)pl_rng_below(r, 9));
			dflt(&o->hidden, pick(r, H, 4));
			dflt(&o->seq_len, 10 + (int)pl_rng_below(r, 26));
			dflt(&o->layers, 1 + (int)pl_rng_below(r, 2));
		}
		dflt(&o->batch, 64);
		dflt(&o->seq_len, 35);
		dflt(&o->hidden, 1000);
		dflt(&o->layers, 1);
		dflt(&o->cells, 12);
		dflt(&o->vocab, 10000);
	} else if (strcmp(m, "inception_v3") == 0) {
		dflt(&o->batch, 32);
		dflt(&o->image, 299);
	} else if (strcmp(m, "resnet50") == 0) {
		dflt(&o->batch, 32);
		dflt(&o->image, 224);
	} else if (strcmp(m, "nasnet_a") == 0) {
		dflt(&o->batch, 8);
		dflt(&o->image, 331);
		dflt(&o->cells, 6);
		dflt(&o->hidden, 168);
	} else if (strcmp(m, "enas-cnn") == 0) {
		if (o->seeded) {
			static const int F[] = { 20, 24, 32, 36 };
			dflt(&o->cells, 1 + (int)pl_rng_below(r, 4));
			dflt(&o->hidden, pick(r, F, 4));
		}
		dflt(&o->batch, 64);
		dflt(&o->image, 32);
		dflt(&o->cells, 2);
		dflt(&o->hidden, 36);
	} else if (strcmp(m, "transformer") == 0) {
		dflt(&o->batch, 32);
		dflt(&o->seq_len, 128);
		dflt(&o->hidden, 512);
		dflt(&o->layers, 6);
		dflt(&o->vocab, 37000);
	}
}

/* Refuse an option the model does not read (see gen.h). */
int
pl_gen_check_applies(const struct pl_gen_model *mm, const struct pl_gen_opts *o, char **cause)
{
	const struct {
		const char *flag;
		int set;
	} f[] = {
		{ "--batch", o->batch != 0 }, { "--seq-len", o->seq_len != 0 },
		{ "--hidden", o->hidden != 0 }, { "--layers", o->layers != 0 },
		{ "--vocab", o->vocab != 0 }, { "--image", o->image != 0 },
		{ "--cells", o->cells != 0 }, { "--dtype-bytes", o->dtype_bytes != 0 },
		{ "--optimizer", o->optimizer != NULL },
		{ "--granularity", o->granularity != PL_GEN_OP },
		{ "--forward-only", o->forward_only != 0 },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		if (!f[i].set)
			continue;
		const char *at = strstr(mm->options, f[i].flag);
		size_t n = strlen(f[i].flag);
		if (at != NULL && (at[n] == ' ' || at[n] == '\0'))
			continue;
		if (*mm->options == '\0')
			*cause = pl_xasprintf("%s: %s does not apply (%s takes no options)", mm->name,
			    f[i].flag, mm->name);
		else
			*cause = pl_xasprintf("%s: %s does not apply (expected one of %s)", mm->name,
			    f[i].flag, mm->options);
		return -1;
	}
	return 0;
}

/* Reject options outside sane ranges. */
static int
check_opts(const char *m, const struct pl_gen_opts *o, char **cause)
{
	struct {
		const char *name;
		int v, lo, hi;
	} f[] = {
		{ "batch", o->batch, 0, 1 << 16 },
		{ "seq-len", o->seq_len, 0, 4096 },
		{ "hidden", o->hidden, 0, 1 << 16 },
		{ "layers", o->layers, 0, 256 },
		{ "vocab", o->vocab, 0, 1 << 22 },
		{ "image", o->image, 0, 4096 },
		{ "dtype-bytes", o->dtype_bytes, 0, 16 },
		{ "cells", o->cells, 0, 64 },
	};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i].v < f[i].lo || f[i].v > f[i].hi) {
			*cause = pl_xasprintf("%s: --%s %d (expected %d..%d)", m, f[i].name, f[i].v,
			    f[i].lo, f[i].hi);
			return -1;
		}
	if (strcmp(m, "inception_v3") == 0 && o->image != 0 && o->image < 75) {
		*cause = pl_xasprintf("inception_v3: --image %d (expected at least 75)", o->image);
		return -1;
	}
	if ((strcmp(m, "resnet50") == 0 || strcmp(m, "nasnet_a") == 0) && o->image != 0 && o->image < 32) {
		*cause = pl_xasprintf("%s: --image %d (expected at least 32)", m, o->image);
		return -1;
	}
	if (o->optimizer != NULL && strcmp(o->optimizer, "adam") != 0 &&
	    strcmp(o->optimizer, "sgd") != 0 && strcmp(o->optimizer, "momentum") != 0) {
		*cause = pl_xasprintf("%s: optimizer '%s' (expected adam, sgd or momentum)", m, o->optimizer);
		return -1;
	}
	return 0;
}

/* The graph's name: model, size, seed, granularity. */
static char *
graph_name(const char *m, const struct pl_gen_opts *o)
{
	const char *suffix = o->granularity == PL_GEN_LAYER ? "-layer" : "";
	if (o->seeded)
		return pl_xasprintf("%s-s%llu%s", m, (unsigned long long)o->seed, suffix);
	if (strcmp(m, "nmt") == 0)
		return pl_xasprintf("nmt%d%s", o->layers, suffix);
	return pl_xasprintf("%s%s", m, suffix);
}

/* Generate a model. */
struct pl_graph *
pl_gen(const char *model, const struct pl_gen_opts *opts, struct pl_gen_stats *st,
    char **cause)
{
	const struct pl_gen_model *mm = pl_gen_model_find(model);
	if (mm == NULL) {
		char names[512] = "";
		size_t used = 0;
		for (const struct pl_gen_model *m = pl_gen_models; m->name != NULL && used < sizeof names - 40; m++)
			used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", m->name);
		*cause = pl_xasprintf("no model '%s' (expected one of %s)", model, names);
		return NULL;
	}
	struct pl_gen_opts o = *opts;
	if (check_opts(model, &o, cause) != 0)
		return NULL;
	struct pl_rng r;
	pl_rng_seed(&r, o.seed);
	if (!mm->family && o.seeded) {
		*cause = pl_xasprintf("%s: --seed applies to the families (enas-cnn, enas-rnn, nmt) only", model);
		return NULL;
	}
	fill_defaults(model, &o, &r);
	if (st != NULL) {
		memset(st, 0, sizeof *st);
		st->batch = o.batch;
	}
	if (strcmp(model, "chain") == 0 || strcmp(model, "crown") == 0 ||
	    strcmp(model, "heft") == 0 || strcmp(model, "teach") == 0) {
		struct pl_graph *g = pl_gen_toy(model, &o, cause);
		if (g != NULL && st != NULL) {
			st->fwd_flops = pl_graph_total_flops(g);
			st->params = pl_graph_total_params(g) / 4;
		}
		return g;
	}
	char *name = graph_name(model, &o);
	struct gnet *n = NULL;
	if (strcmp(model, "nmt") == 0)
		n = pl_gen_nmt(name, &o);
	else if (strcmp(model, "rnnlm") == 0)
		n = pl_gen_rnnlm(name, &o);
	else if (strcmp(model, "enas-rnn") == 0)
		n = pl_gen_enas_rnn(name, &o, &r);
	else if (strcmp(model, "resnet50") == 0)
		n = pl_gen_resnet50(name, &o);
	else if (strcmp(model, "inception_v3") == 0)
		n = pl_gen_inception_v3(name, &o);
	else if (strcmp(model, "nasnet_a") == 0)
		n = pl_gen_nasnet_a(name, &o);
	else if (strcmp(model, "enas-cnn") == 0)
		n = pl_gen_enas_cnn(name, &o, &r);
	else if (strcmp(model, "transformer") == 0)
		n = pl_gen_transformer(name, &o);
	free(name);
	if (n == NULL) {
		*cause = pl_xasprintf("model '%s' has no builder", model);
		return NULL;
	}
	if (st != NULL)
		gnet_stats(n, st);
	return gnet_build(n, cause);
}

/* Member i of a family: the model with seed (seed + i). */
struct pl_graph *
pl_gen_family_member(const char *family, int i, uint64_t seed,
    const struct pl_gen_opts *o, char **cause)
{
	const struct pl_gen_model *m = pl_gen_model_find(family);
	if (m == NULL || !m->family) {
		*cause = pl_xasprintf("no family '%s' (expected enas-cnn, enas-rnn or nmt)", family);
		return NULL;
	}
	struct pl_gen_opts mo = *o;
	mo.seed = seed + (uint64_t)i;
	mo.seeded = 1;
	return pl_gen(family, &mo, NULL, cause);
}
