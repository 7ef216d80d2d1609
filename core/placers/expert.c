/*
 * expert — the human-expert placements the papers compare against,
 * keyed on the graph's family (graph->name) and its scope conventions
 * (docs/BASELINES.md gives the rules and their sources):
 *  - RNNs (NMT, RNNLM, ENAS-RNN): embeddings on the CPU; LSTM layers
 *    (encoder then decoder, the LM's stack, ENAS-RNN's cell layers) one
 *    per GPU in turn,
 *    wrapping when layers outnumber GPUs; attention and softmax on the last
 *    GPU;
 *  - CNNs (Inception-V3, ResNet, NASNet, ENAS-CNN): the whole model on one
 *    GPU;
 *  - Transformer: contiguous blocks of layers across the GPUs, balanced by
 *    compute;
 *  - anything else: contiguous blocks of scopes in topological order,
 *    balanced by compute within memory.
 * Ops the rules do not name (loss, global step, ...) follow their first
 * producer (else their first consumer).  Device constraints and colocation
 * groups win over the rules (the group goes where most of its compute is).
 * Invariant: the rules never look at the simulator; an expert layout that
 * does not fit is reported as OOM, not repaired.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "baselines.h"
#include "strmap.h"
#include "xmalloc.h"

/* Whether s starts with prefix, ignoring case. */
static int
starts(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* The family of a graph. */
const char *
pl_expert_family(const struct pl_graph *g)
{
	const char *n = g->name != NULL ? g->name : "";
	if (starts(n, "nmt") || starts(n, "rnnlm") || starts(n, "enas-rnn") || starts(n, "enas_rnn"))
		return "rnn";
	if (starts(n, "inception") || starts(n, "resnet") || starts(n, "nasnet") ||
	    starts(n, "enas-cnn") || starts(n, "enas_cnn"))
		return "cnn";
	if (starts(n, "transformer"))
		return "transformer";
	return "generic";
}

/* Length of the first `depth` segments of a scope (whole scope if fewer). */
static size_t
prefix_len(const char *scope, int depth)
{
	const char *s = scope;
	for (int i = 0; i < depth; i++) {
		const char *slash = strchr(s, '/');
		if (slash == NULL)
			return strlen(scope);
		s = slash + 1;
	}
	return (size_t)(s - scope - 1);
}

/* Layer number of a segment "l<k>", or -1. */
static int
layer_of(const char *seg)
{
	if (seg[0] != 'l' || !isdigit((unsigned char)seg[1]))
		return -1;
	char *end;
	long k = strtol(seg + 1, &end, 10);
	if (*end != '\0' && *end != '/')
		return -1;
	return k > 1000000 ? -1 : (int)k;
}

/* Devices the block rule spreads over: GPUs if any, else every device. */
static int
block_devices(const struct pl_problem *p, int *devs)
{
	int n = 0;
	for (int d = 0; d < p->n_dev; d++)
		if (p->c->dev[d].kind == PL_DEV_GPU)
			devs[n++] = d;
	if (n == 0)
		for (int d = 0; d < p->n_dev; d++)
			devs[n++] = d;
	return n;
}

/* Sort units by the topological position of their first op. */
static int
cmp_first(const void *a, const void *b, void *ctx)
{
	const int *first = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	return first[x] != first[y] ? (first[x] < first[y] ? -1 : 1) : x - y;
}

/*
 * Contiguous blocks: units (unit[v] per op) in order of their first op,
 * packed onto devs[] in turn, fastest first, each device taking its
 * speed's share of the compute and no more than its memory.
 */
static void
place_blocks(const struct pl_problem *p, const int *unit, int n_units,
    struct pl_placement *out)
{
	const struct pl_graph *g = p->g;
	int devs[PL_MAX_DEVICES];
	int nd = block_devices(p, devs);
	double speed[PL_MAX_DEVICES];
	pl_pu_device_speed(p, speed);
	size_t nu = n_units ? (size_t)n_units : 1;
	int *first = pl_xmalloc(sizeof *first * nu);
	int *ord = pl_xmalloc(sizeof *ord * nu);
	int *udev = pl_xmalloc(sizeof *udev * nu);
	double *w = pl_xcalloc(nu, sizeof *w);
	int64_t *m = pl_xcalloc(nu, sizeof *m);
	for (int u = 0; u < n_units; u++) {
		first[u] = g->n_ops;
		ord[u] = u;
	}
	double total = 0, sum_speed = 0;
	for (int v = 0; v < g->n_ops; v++) {
		int u = unit[v];
		if (g->topo_pos[v] < first[u])
			first[u] = g->topo_pos[v];
		double t = pl_pu_op_mean_us(p, v);
		w[u] += t;
		total += t;
		m[u] += pl_pu_op_mem(g, v);
	}
	qsort_r(ord, n_units, sizeof *ord, cmp_first, first);
	for (int i = 0; i < nd; i++)
		sum_speed += speed[devs[i]];
	/* fastest first (in index order among equals), so that a slow
	 * device takes the last units, at most its share */
	for (int i = 1; i < nd; i++)
		for (int j = i; j > 0 && speed[devs[j]] > speed[devs[j - 1]]; j--) {
			int t = devs[j];
			devs[j] = devs[j - 1];
			devs[j - 1] = t;
		}
	double load = 0, done_share = 0;
	int64_t used = 0;
	int cur = 0, taken = 0;	/* units on devs[cur] */
	for (int i = 0; i < n_units; i++) {
		int u = ord[i];
		int d = devs[cur];
		double target = done_share + total * speed[d] / sum_speed;
		/* move on when this unit would end past the device's share (by
		 * more than half of it) or would not fit in memory; a device
		 * takes at least one unit */
		if (cur < nd - 1 && taken > 0 &&
		    (load + w[u] / 2 > target || used + m[u] > p->c->dev[d].mem_bytes)) {
			done_share = target;
			cur++;
			used = 0;
			taken = 0;
			d = devs[cur];
		}
		udev[u] = d;
		load += w[u];
		used += m[u];
		taken++;
	}
	for (int v = 0; v < g->n_ops; v++)
		out->dev[v] = udev[unit[v]];
	free(first);
	free(ord);
	free(udev);
	free(w);
	free(m);
}

/* Units keyed by scope prefix at some depth; returns the unit count.
 * Depth 0 means per op: 2 when the second segment is a layer ("enc/l3"),
 * else 1.  Ops with an empty scope are units of their own (by colocation
 * group). */
static int
scope_units(const struct pl_graph *g, int depth, int *unit)
{
	struct pl_strmap map;
	pl_strmap_init(&map, (size_t)g->n_ops);
	char **keys = pl_xmalloc(sizeof *keys * (size_t)(g->n_ops ? g->n_ops : 1));
	int n = 0;
	for (int v = 0; v < g->n_ops; v++) {
		const char *sc = g->ops[v].scope;
		int dv = depth;
		if (dv == 0) {
			const char *slash = strchr(sc, '/');
			dv = slash != NULL && layer_of(slash + 1) >= 0 ? 2 : 1;
		}
		char *key = *sc ? pl_xstrndup(sc, prefix_len(sc, dv))
		    : pl_xasprintf("\x01group %d", g->ops[v].group);
		int got = pl_strmap_put(&map, key, n);
		if (got >= 0) {
			unit[v] = got;
			free(key);
		} else {
			keys[n] = key;
			unit[v] = n++;
		}
	}
	pl_strmap_free(&map);
	for (int i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return n;
}

/* Generic rule: the shallowest scope depth giving enough units. */
static void
place_generic(const struct pl_problem *p, struct pl_placement *out)
{
	int *unit = pl_xmalloc(sizeof *unit * (size_t)(p->n_ops ? p->n_ops : 1));
	int devs[PL_MAX_DEVICES];
	int nd = block_devices(p, devs);
	int n = 0, prev = -1;
	for (int depth = 1; depth <= 16; depth++) {
		n = scope_units(p->g, depth, unit);
		if (n >= 2 * nd || n == prev)
			break;
		prev = n;
	}
	place_blocks(p, unit, n, out);
	free(unit);
}

/* Transformer: units are emb, enc/l<k>, dec/l<k>, softmax, ... */
static void
place_transformer(const struct pl_problem *p, struct pl_placement *out)
{
	int *unit = pl_xmalloc(sizeof *unit * (size_t)(p->n_ops ? p->n_ops : 1));
	int n = scope_units(p->g, 0, unit);
	place_blocks(p, unit, n, out);
	free(unit);
}

/* RNN rule; returns 0 when the graph has no layer scopes (use generic). */
static int
place_rnn(const struct pl_problem *p, struct pl_placement *out)
{
	const struct pl_graph *g = p->g;
	int gpus[PL_MAX_DEVICES], ng = 0, cpu = -1;
	for (int d = 0; d < p->n_dev; d++) {
		if (p->c->dev[d].kind == PL_DEV_GPU)
			gpus[ng++] = d;
		else if (p->c->dev[d].kind == PL_DEV_CPU && cpu < 0)
			cpu = d;
	}
	if (ng == 0)
		return 0;
	if (cpu < 0)
		cpu = gpus[0];
	int last = gpus[ng - 1];
	/* encoder layers come first in the layer numbering */
	int n_enc = 0, any_layer = 0;
	for (int v = 0; v < g->n_ops; v++) {
		const char *sc = g->ops[v].scope;
		if (strncmp(sc, "enc/", 4) == 0 && layer_of(sc + 4) >= n_enc)
			n_enc = layer_of(sc + 4) + 1;
	}
	for (int v = 0; v < g->n_ops; v++) {
		const char *sc = g->ops[v].scope;
		int d = -1, k;
		if (strncmp(sc, "emb/", 4) == 0 || strcmp(sc, "emb") == 0)
			d = cpu;
		else if (strncmp(sc, "enc/", 4) == 0 && (k = layer_of(sc + 4)) >= 0)
			d = gpus[k % ng];
		else if (strncmp(sc, "dec/", 4) == 0 && (k = layer_of(sc + 4)) >= 0)
			d = gpus[(n_enc + k) % ng];
		else if (strncmp(sc, "lstm/", 5) == 0 && (k = layer_of(sc + 5)) >= 0)
			d = gpus[k % ng];
		else if (strncmp(sc, "cell/", 5) == 0 && (k = layer_of(sc + 5)) >= 0)
			d = gpus[k % ng];	/* ENAS-RNN's recurrent cell layers */
		else if (strncmp(sc, "attn/", 5) == 0 || strcmp(sc, "attn") == 0 ||
		    strncmp(sc, "softmax/", 8) == 0 || strcmp(sc, "softmax") == 0)
			d = last;
		if (d >= 0 && (strncmp(sc, "enc/", 4) == 0 || strncmp(sc, "dec/", 4) == 0 ||
		    strncmp(sc, "lstm/", 5) == 0 || strncmp(sc, "cell/", 5) == 0))
			any_layer = 1;
		out->dev[v] = d;
	}
	if (!any_layer)
		return 0;
	/* Unnamed ops follow their first producer, else their first consumer. */
	for (int i = 0; i < g->n_ops; i++) {
		int v = g->topo[i];
		if (out->dev[v] >= 0)
			continue;
		for (int j = g->in_off[v]; j < g->in_off[v + 1] && out->dev[v] < 0; j++)
			out->dev[v] = out->dev[g->edges[g->in_edge[j]].src];
	}
	for (int i = g->n_ops - 1; i >= 0; i--) {
		int v = g->topo[i];
		if (out->dev[v] >= 0)
			continue;
		for (int j = g->out_off[v]; j < g->out_off[v + 1] && out->dev[v] < 0; j++)
			out->dev[v] = out->dev[g->edges[g->out_edge[j]].dst];
		if (out->dev[v] < 0)
			out->dev[v] = gpus[0];
	}
	return 1;
}

/* The expert placement. */
void
pl_expert_place(const struct pl_problem *p, struct pl_placement *out)
{
	const char *fam = pl_expert_family(p->g);
	if (strcmp(fam, "rnn") == 0) {
		if (!place_rnn(p, out))
			place_generic(p, out);
	} else if (strcmp(fam, "cnn") == 0) {
		uint64_t gm = pl_pu_kind_mask(p->c, PL_DEV_GPU);
		int d = pl_pu_fastest_in(p, gm ? gm : ~(uint64_t)0 >> (64 - p->n_dev), NULL);
		for (int v = 0; v < p->n_ops; v++)
			out->dev[v] = d;
	} else if (strcmp(fam, "transformer") == 0) {
		place_transformer(p, out);
	} else {
		place_generic(p, out);
	}
	pl_pu_fix_groups(p, out);
}

/* One pass. */
static enum pl_step_status
expert_step(struct pl_placer *pl)
{
	struct pl_placement *cand = pl_placement_new(pl->prob->n_ops, pl->prob->n_dev);
	pl_expert_place(pl->prob, cand);
	char label[64];
	snprintf(label, sizeof label, "expert rules (%s)", pl_expert_family(pl->prob->g));
	enum pl_step_status st = pl_pu_finish(pl, cand, label);
	pl_placement_free(cand);
	return st;
}

static const struct pl_option_def expert_options[] = {
	{ NULL, 0, NULL, NULL },
};

const struct pl_placer_class pl_placer_expert = {
	.name = "expert",
	.title = "human expert",
	.summary = "the papers' hand-made placements by model family (docs/BASELINES.md)",
	.options = expert_options,
	.step = expert_step,
	.quick = 1,
};
