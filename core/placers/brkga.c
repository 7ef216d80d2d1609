/*
 * brkga — REGAL's biased random-key genetic algorithm behind the placer
 * interface.  One step = one generation of every population.
 *
 * Invariant: after every step, population k's current buffer holds p
 * evaluated chromosomes and order[k] ranks them best first by the key
 * (fits in memory, primary, secondary, slot); the elite of the next
 * generation is order[0 .. n_elite).  Every chromosome is created by the job
 * that evaluates it, from its own random stream, and writes only its own
 * slot, so the result does not depend on the number of workers.  The best
 * chromosome so far is the best of the populations (elites survive), and
 * pl->best is its decoding.
 */
#include "clock.h"
#include "brkga.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "pool.h"
#include "rng.h"
#include "strbuf.h"
#include "xmalloc.h"

enum objective { OBJ_RUNTIME, OBJ_MEMORY, OBJ_MIX };

/* Stream salts, so that seeds and chromosomes never share a stream. */
#define SALT_CHROM 0x0ULL
#define SALT_SEED 0x5EED000000000000ULL

/* Genes sampled by the diversity measure. */
#define DIV_GENES 1024

/* Chromosomes above this many bytes of genes in all buffers are refused. */
#define MAX_GENE_BYTES ((size_t)2 << 30)

/* Ranking of one chromosome: lower is better, lexicographically. */
struct key {
	unsigned char oom;	/* does not fit in memory */
	double a;		/* oom: bytes above capacity; else the objective */
	double b;		/* tie-break: the objective, or the other measure */
};

/* One population: two buffers of p chromosomes (current and next). */
struct pop {
	float *genes[2];
	struct key *key[2];
	double *fit[2];
	struct pl_sim_result *res[2];
	int *order;		/* ranks of the current buffer, best first */
};

/* Per-worker state: a placement to decode into and a simulator workspace. */
struct worker {
	struct pl_placement *pl;
	struct pl_sim_ws *ws;
	double sim_s;
	char pad[64];
};

struct brkga {
	struct pl_brkga_layout lay;
	long G;			/* genes per chromosome */
	int p, P, ne, nm, nc;
	unsigned rho16;		/* elite bias as a 16-bit threshold (65536 = 1) */
	enum objective obj;
	double mix_w, t0_us, m0_bytes;
	long max_evals;
	int max_gens, patience, exchange, n_exchange;
	double max_seconds;

	double *alpha, *beta;	/* per gene; NULL = uniform */

	int cur;		/* index of the current buffers */
	struct pop *pops;
	int gen;		/* generations done */

	struct pl_pool *pool;
	int n_workers;
	struct worker *w;

	/* warm start */
	int n_seed_cls;
	const struct pl_placer_class **seed_cls;
	int n_seeds;
	float *seeds;

	/* best so far */
	struct key best_key;
	int have_best;
	float *best_genes;
	int stale;		/* generations without improvement */

	int n_hist, cap_hist;
	struct pl_brkga_gen *hist;
	double step_s;
	int *sort_tmp;
	double *div_acc;	/* 2 * DIV_GENES sums for diversity() */
};

static const struct pl_option_def brkga_options[] = {
	{ "evals", PL_OPT_INT, "5000",
	    "evaluation budget (0: none); 5000 is REGAL's \"BRKGA 5K\"" },
	{ "generations", PL_OPT_INT, "0",
	    "stop after generation N, the initial population being 0 (0: no limit)" },
	{ "seconds", PL_OPT_DOUBLE, "10",
	    "stop after this much search time (0: no limit); a run it stops "
	    "is not reproducible" },
	{ "patience", PL_OPT_INT, "0",
	    "stop after this many generations without improvement (0: never)" },
	{ "pop", PL_OPT_INT, "100", "chromosomes per population" },
	{ "elite", PL_OPT_DOUBLE, "0.1", "elite fraction (copied unchanged)" },
	{ "mutants", PL_OPT_DOUBLE, "0.1", "mutant fraction (fresh chromosomes)" },
	{ "rho", PL_OPT_DOUBLE, "0.7",
	    "elite bias: probability a child's gene comes from its elite parent" },
	{ "elite-bias", PL_OPT_BOOL, "1",
	    "use rho; 0 takes each gene from either parent with probability 1/2" },
	{ "populations", PL_OPT_INT, "1", "independent populations" },
	{ "exchange", PL_OPT_INT, "50",
	    "generations between exchanges of the best (0: never)" },
	{ "exchange-count", PL_OPT_INT, "2",
	    "chromosomes each population sends to every other one" },
	{ "objective", PL_OPT_STRING, "runtime",
	    "runtime, memory (the largest device peak) or mix:W (W weighs memory)" },
	{ "tensor-genes", PL_OPT_BOOL, "1",
	    "include tensor x device transfer priorities in the chromosome" },
	{ "seed-from", PL_OPT_STRING, "",
	    "warm start from these placers' results, e.g. heft+expert" },
	{ "beta-file", PL_OPT_FILE, "",
	    "per-gene Beta distributions for new chromosomes (docs/BRKGA.md)" },
	{ NULL, 0, NULL, NULL },
};

/* The numeric options' ranges; how they combine is checked by
 * read_options(). */
static const struct pl_option_range brkga_ranges[] = {
	{ "evals", "[0, inf)" },
	{ "generations", "[0, inf)" },
	{ "seconds", "[0, inf)" },
	{ "patience", "[0, inf)" },
	{ "pop", "[2, 1000000]" },
	{ "elite", "(0, 1)" },
	{ "mutants", "[0, 1)" },
	{ "rho", "[0.5, 1]" },
	{ "populations", "[1, 1000]" },
	{ "exchange", "[0, inf)" },
	{ "exchange-count", "[0, inf)" },
	{ NULL, NULL },
};

/* Whether key x ranks before key y (ties: not before). */
static int
key_less(const struct key *x, const struct key *y)
{
	if (x->oom != y->oom)
		return x->oom < y->oom;
	if (x->a != y->a)
		return x->a < y->a;
	return x->b < y->b;
}

/* ---- objective -------------------------------------------------------- */

/* Parse "runtime", "memory" or "mix:W". */
static int
parse_objective(struct brkga *b, const char *s, char **cause)
{
	if (strcmp(s, "runtime") == 0) {
		b->obj = OBJ_RUNTIME;
		return 0;
	}
	if (strcmp(s, "memory") == 0) {
		b->obj = OBJ_MEMORY;
		return 0;
	}
	if (strncmp(s, "mix:", 4) == 0) {
		double w;
		if (pl_parse_number(s + 4, &w) == 0 && w >= 0 && w <= 1) {
			b->obj = OBJ_MIX;
			b->mix_w = w;
			return 0;
		}
	}
	*cause = pl_xasprintf("brkga: option 'objective': '%s' is not runtime, "
	    "memory or mix:W with W in [0, 1]", s);
	return -1;
}

/* The ranking key and objective value of a simulated result. */
static void
make_key(const struct brkga *b, const struct pl_sim_result *r, struct key *k,
    double *fit)
{
	/* the largest device peak (REGAL's peak memory): bytes compare like
	 * for like, where the fullest device's could be another device's */
	double ms = r->makespan_us, mem = (double)r->peak_max, f, other;
	switch (b->obj) {
	case OBJ_MEMORY:
		f = mem;
		other = ms;
		break;
	case OBJ_MIX:
		f = (1 - b->mix_w) * ms / b->t0_us + b->mix_w * mem / b->m0_bytes;
		other = ms;
		break;
	default:
		f = ms;
		other = mem;
		break;
	}
	*fit = f;
	k->oom = r->oom_mask != 0;
	k->a = k->oom ? (double)r->oom_excess : f;
	k->b = k->oom ? f : other;
}

/* ---- genes ------------------------------------------------------------- */

/* Fill x with a new chromosome drawn from the per-gene Betas. */
static void
sample_genes(const struct brkga *b, struct pl_rng *r, float *x)
{
	long G = b->G;
	if (b->alpha == NULL) {
		long i = 0;
		for (; i + 1 < G; i += 2) {
			uint64_t v = pl_rng_next(r);
			x[i] = (float)(v >> 40) * 0x1.0p-24f;
			x[i + 1] = (float)((v >> 16) & 0xffffff) * 0x1.0p-24f;
		}
		if (i < G)
			x[i] = (float)(pl_rng_next(r) >> 40) * 0x1.0p-24f;
		return;
	}
	for (long i = 0; i < G; i++) {
		double a = b->alpha[i], be = b->beta[i];
		if (a == 1 && be == 1)
			x[i] = (float)(pl_rng_next(r) >> 40) * 0x1.0p-24f;
		else
			x[i] = (float)pl_rng_beta(r, a, be);
	}
}

/* Gene of the elite parent when the 16-bit decision u is below thr, else
 * of the other one, blended through a mask (no branch to mispredict). */
static inline float
pick(float e, float o, uint32_t u, uint32_t thr)
{
	uint32_t m = 0u - (uint32_t)(u < thr), ev, ov, v;
	float x;
	memcpy(&ev, &e, sizeof ev);
	memcpy(&ov, &o, sizeof ov);
	v = (ev & m) | (ov & ~m);
	memcpy(&x, &v, sizeof x);
	return x;
}

/* Child of an elite and a non-elite parent: each gene from the elite with
 * probability rho (16-bit decisions, four per random word). */
static void
crossover(const struct brkga *b, struct pl_rng *r, const float *elite,
    const float *other, float *x)
{
	long G = b->G, i = 0;
	uint32_t thr = b->rho16;
	for (; i + 4 <= G; i += 4) {
		uint64_t bits = pl_rng_next(r);
		x[i] = pick(elite[i], other[i], (uint32_t)bits & 0xffff, thr);
		x[i + 1] = pick(elite[i + 1], other[i + 1],
		    (uint32_t)(bits >> 16) & 0xffff, thr);
		x[i + 2] = pick(elite[i + 2], other[i + 2],
		    (uint32_t)(bits >> 32) & 0xffff, thr);
		x[i + 3] = pick(elite[i + 3], other[i + 3],
		    (uint32_t)(bits >> 48), thr);
	}
	if (i < G) {
		uint64_t bits = pl_rng_next(r);
		for (; i < G; i++, bits >>= 16)
			x[i] = pick(elite[i], other[i], (uint32_t)bits & 0xffff, thr);
	}
}

/* Decode genes into out (prio and tprio already allocated as needed). */
static void
decode(const struct brkga *b, const struct pl_problem *prob, const float *x,
    struct pl_placement *out)
{
	const struct pl_graph *g = prob->g;
	int nd = b->lay.n_dev;
	const float *aff = x + b->lay.aff_off;
	for (int gi = 0; gi < g->n_groups; gi++) {
		uint64_t mask = prob->group_allowed[gi];
		const float *ga = aff + (long)gi * nd;
		int best = -1;
		float bv = 0;
		for (int d = 0; d < nd; d++) {
			if (!((mask >> d) & 1))
				continue;
			if (best < 0 || ga[d] > bv) {
				best = d;
				bv = ga[d];
			}
		}
		const struct pl_group *gr = &g->groups[gi];
		for (int j = 0; j < gr->count; j++)
			out->dev[g->group_ops[gr->first + j]] = best;
	}
	const float *pr = x + b->lay.prio_off;
	for (int v = 0; v < g->n_ops; v++)
		out->prio[v] = pr[v];
	if (b->lay.tprio_off >= 0) {
		const float *tp = x + b->lay.tprio_off;
		long n = (long)g->n_tensors * nd;
		for (long i = 0; i < n; i++)
			out->tprio[i] = tp[i];
	}
}

/* Give a placement the priority arrays the layout needs. */
static void
ensure_arrays(const struct brkga *b, struct pl_placement *out)
{
	pl_placement_ensure_prio(out);
	if (b->lay.tprio_off >= 0)
		pl_placement_ensure_tprio(out, b->lay.n_tensors);
}

/* ---- warm start --------------------------------------------------------- */

/* An op's place in the schedule of a placement without priorities: the
 * simulator ran it in (start, ready, topological index) order. */
struct sched_key {
	double start, ready;
	int topo, op;
};

/* Order of sched_key: earlier start, then earlier ready, then topological
 * index (qsort comparator). */
static int
sched_cmp(const void *pa, const void *pb)
{
	const struct sched_key *a = pa, *c = pb;
	if (a->start != c->start)
		return a->start < c->start ? -1 : 1;
	if (a->ready != c->ready)
		return a->ready < c->ready ? -1 : 1;
	return (a->topo > c->topo) - (a->topo < c->topo);
}

/*
 * Priority genes that replay the native schedule of src, a placement
 * without priorities (first-ready first, FIFO transfers): simulate it once
 * and rank the ops by (start, ready, topological index), earliest highest,
 * and, when tp is not NULL, each (tensor, destination) by the start of its
 * transfer (its place in the trace), earliest highest; pairs without a
 * transfer take the producer's gene.  Whenever a device or channel of the
 * seed's schedule picked, it took the waiting item that started first, so
 * list scheduling by these priorities makes the same choices.  0, or -1
 * + *cause.
 */
static int
schedule_genes(const struct brkga *b, const struct pl_problem *prob,
    const struct pl_placement *src, float *pr, float *tp, char **cause)
{
	const struct pl_graph *g = prob->g;
	int n = g->n_ops, nd = b->lay.n_dev;
	struct pl_sim_opts o = { .kind = PL_SIM_NATIVE, .mem = PL_MEM_NONE };
	struct pl_trace *tr = pl_sim_trace(prob, src, &o, cause);
	if (tr == NULL)
		return -1;
	/* when the data of each (tensor, destination) arrived */
	long nt = (long)g->n_tensors * nd;
	double *arrive = pl_xmalloc(sizeof *arrive * (size_t)(nt ? nt : 1));
	for (int i = 0; i < tr->n_xfers; i++)
		arrive[(long)tr->xfers[i].tensor * nd + tr->xfers[i].dst_dev] =
		    tr->xfers[i].end;
	struct sched_key *k = pl_xmalloc(sizeof *k * (size_t)(n ? n : 1));
	for (int v = 0; v < n; v++) {
		double ready = 0;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			const struct pl_edge *e = &g->edges[g->in_edge[j]];
			double a = src->dev[e->src] == src->dev[v] ?
			    tr->ops[e->src].end :
			    arrive[(long)e->tensor * nd + src->dev[v]];
			if (a > ready)
				ready = a;
		}
		k[v] = (struct sched_key){ tr->ops[v].start, ready, g->topo_pos[v], v };
	}
	qsort(k, (size_t)n, sizeof *k, sched_cmp);
	for (int rnk = 0; rnk < n; rnk++)
		pr[k[rnk].op] = (float)(1 - (rnk + 0.5) / n);
	if (tp != NULL) {
		for (int t = 0; t < g->n_tensors; t++)
			for (int d = 0; d < nd; d++)
				tp[(long)t * nd + d] = pr[g->tensors[t].op];
		int m = tr->n_xfers;
		for (int i = 0; i < m; i++)
			tp[(long)tr->xfers[i].tensor * nd + tr->xfers[i].dst_dev] =
			    (float)(1 - (i + 0.5) / m);
	}
	free(k);
	free(arrive);
	pl_trace_free(tr);
	return 0;
}

/* Encode a placement as a chromosome: its devices get the top affinity;
 * its op priorities become priority genes and tensors inherit their
 * producer's, or, without any, genes that replay its native schedule
 * (schedule_genes()).  0, or -1 + *cause. */
static int
encode_placement(const struct brkga *b, const struct pl_problem *prob,
    const struct pl_placement *src, struct pl_rng *r, float *x, char **cause)
{
	const struct pl_graph *g = prob->g;
	int nd = b->lay.n_dev, n = g->n_ops;
	for (int gi = 0; gi < g->n_groups; gi++) {
		int d0 = src->dev[g->group_ops[g->groups[gi].first]];
		float *ga = x + b->lay.aff_off + (long)gi * nd;
		for (int d = 0; d < nd; d++) {
			float u = (float)(pl_rng_next(r) >> 40) * 0x1.0p-24f;
			ga[d] = d == d0 ? 0.5f + 0.5f * u : 0.5f * u;
		}
	}
	float *pr = x + b->lay.prio_off;
	if (src->prio == NULL)
		return schedule_genes(b, prob, src, pr, b->lay.tprio_off >= 0 ?
		    x + b->lay.tprio_off : NULL, cause);
	{
		/* rank by priority, ties by op id (stable merge sort) */
		int *idx = pl_xmalloc(sizeof *idx * (n ? n : 1));
		for (int v = 0; v < n; v++)
			idx[v] = v;
		int *tmp = pl_xmalloc(sizeof *tmp * (n ? n : 1));
		for (int w = 1; w < n; w *= 2) {
			for (int lo = 0; lo < n; lo += 2 * w) {
				int mid = lo + w < n ? lo + w : n;
				int hi = lo + 2 * w < n ? lo + 2 * w : n;
				int i = lo, j = mid, o = lo;
				while (i < mid && j < hi) {
					int a = idx[i], c = idx[j];
					if (src->prio[c] < src->prio[a])
						tmp[o++] = idx[j++];
					else
						tmp[o++] = idx[i++];
				}
				while (i < mid)
					tmp[o++] = idx[i++];
				while (j < hi)
					tmp[o++] = idx[j++];
			}
			memcpy(idx, tmp, sizeof *idx * n);
		}
		for (int rnk = 0; rnk < n; rnk++)
			pr[idx[rnk]] = (float)((rnk + 0.5) / n);
		free(tmp);
		free(idx);
	}
	if (b->lay.tprio_off >= 0) {
		float *tp = x + b->lay.tprio_off;
		for (int t = 0; t < g->n_tensors; t++)
			for (int d = 0; d < nd; d++)
				tp[(long)t * nd + d] = pr[g->tensors[t].op];
	}
	return 0;
}

/* Run the warm-start placers and encode their best placements. */
static int
run_seeds(struct pl_placer *pl, char **cause)
{
	struct brkga *b = pl->priv;
	int cap = b->p - 1;
	b->seeds = pl_xcalloc((size_t)(b->n_seed_cls ? b->n_seed_cls : 1) * b->G,
	    sizeof *b->seeds);
	for (int i = 0; i < b->n_seed_cls && b->n_seeds < cap; i++) {
		struct pl_run_opts run = pl->run;
		char *err = NULL;
		struct pl_placer *sub = pl_placer_new(b->seed_cls[i], pl->prob,
		    NULL, &run, &err);
		if (sub == NULL) {
			*cause = pl_xasprintf("brkga: seed-from %s: %s",
			    b->seed_cls[i]->name, err);
			free(err);
			return -1;
		}
		enum pl_step_status st = pl_placer_run(sub, 0, 0);
		if (st == PL_STEP_ERROR || sub->best == NULL) {
			*cause = pl_xasprintf("brkga: seed-from %s: %s",
			    b->seed_cls[i]->name, sub->error != NULL ?
			    sub->error : "no placement");
			pl_placer_free(sub);
			return -1;
		}
		struct pl_rng r;
		pl_rng_stream(&r, pl->run.seed, SALT_SEED + (uint64_t)i);
		if (encode_placement(b, pl->prob, sub->best, &r,
		    b->seeds + (long)b->n_seeds * b->G, &err) != 0) {
			*cause = pl_xasprintf("brkga: seed-from %s: %s",
			    b->seed_cls[i]->name, err);
			free(err);
			pl_placer_free(sub);
			return -1;
		}
		b->n_seeds++;
		pl_placer_free(sub);
	}
	return 0;
}

/* Add the placer named t (len bytes) to the warm-start list. */
static int
add_seed_class(struct brkga *b, const char *t, size_t len, char **cause)
{
	char *name = pl_xstrndup(t, len);
	const struct pl_placer_class *cls = pl_placer_find(name);
	if (cls == NULL || cls == &pl_placer_brkga) {
		*cause = pl_xasprintf("brkga: option 'seed-from': '%s' is "
		    "not another placer", name);
		free(name);
		return -1;
	}
	free(name);
	b->seed_cls = pl_xreallocarray(b->seed_cls, b->n_seed_cls + 1,
	    sizeof *b->seed_cls);
	b->seed_cls[b->n_seed_cls++] = cls;
	return 0;
}

/* Split a list on ',', '+' or ':' (or spaces, within an item) and look
 * every name up; an empty item (heft+, heft,,expert) is an error. */
static int
parse_seed_from(struct brkga *b, const char *spec, char **cause)
{
	if (spec[strspn(spec, " ")] == '\0')
		return 0;
	const char *p = spec;
	for (;;) {
		size_t item = strcspn(p, ",+:");
		if (strspn(p, " ") >= item) {	/* nothing but spaces before the next separator */
			*cause = pl_xasprintf("brkga: option 'seed-from': an empty name "
			    "in '%s' (expected names such as heft+expert)", spec);
			return -1;
		}
		for (size_t i = 0; i < item;) {
			i += strspn(p + i, " ");
			size_t w = strcspn(p + i, " ,+:");
			if (w > 0 && add_seed_class(b, p + i, w, cause) != 0)
				return -1;
			i += w;
		}
		if (p[item] == '\0')
			return 0;
		p += item + 1;
	}
}

/* ---- sorting ------------------------------------------------------------- */

/* Rank the slots of a buffer best first (stable merge sort by key, then
 * slot index). */
static void
rank_slots(struct brkga *b, const struct key *k, int *order)
{
	int n = b->p, *tmp = b->sort_tmp;
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int w = 1; w < n; w *= 2) {
		for (int lo = 0; lo < n; lo += 2 * w) {
			int mid = lo + w < n ? lo + w : n;
			int hi = lo + 2 * w < n ? lo + 2 * w : n;
			int i = lo, j = mid, o = lo;
			while (i < mid && j < hi) {
				if (key_less(&k[order[j]], &k[order[i]]))
					tmp[o++] = order[j++];
				else
					tmp[o++] = order[i++];
			}
			while (i < mid)
				tmp[o++] = order[i++];
			while (j < hi)
				tmp[o++] = order[j++];
		}
		memcpy(order, tmp, sizeof *order * n);
	}
}

/* ---- one generation ------------------------------------------------------ */

struct gen_ctx {
	struct pl_placer *pl;
	int per_pop;		/* jobs per population */
	int first;		/* first slot filled by jobs */
};

/* Create, decode and evaluate the chromosome of job i. */
static void
gen_job(void *ctx, int i, int worker)
{
	struct gen_ctx *c = ctx;
	struct pl_placer *pl = c->pl;
	struct brkga *b = pl->priv;
	int k = i / c->per_pop, s = c->first + i % c->per_pop;
	struct pop *pp = &b->pops[k];
	int nx = 1 - b->cur;
	float *x = pp->genes[nx] + (long)s * b->G;
	struct pl_rng r;
	uint64_t id = ((uint64_t)b->gen * (uint64_t)b->P + (uint64_t)k) *
	    (uint64_t)b->p + (uint64_t)s;
	pl_rng_stream(&r, pl->run.seed, SALT_CHROM + id);

	if (b->gen == 0) {
		if (s < b->n_seeds)
			memcpy(x, b->seeds + (long)s * b->G, sizeof *x * b->G);
		else
			sample_genes(b, &r, x);
	} else if (s < b->ne + b->nc) {
		const float *cur = pp->genes[b->cur];
		int e = pp->order[pl_rng_below(&r, (uint64_t)b->ne)];
		int o = pp->order[b->ne + (int)pl_rng_below(&r,
		    (uint64_t)(b->p - b->ne))];
		crossover(b, &r, cur + (long)e * b->G, cur + (long)o * b->G, x);
	} else {
		sample_genes(b, &r, x);
	}

	struct worker *w = &b->w[worker];
	decode(b, pl->prob, x, w->pl);
	struct pl_sim_result *res = &pp->res[nx][s];
	double t0 = pl_now_s();
	if (pl_sim_eval(w->ws, w->pl, &pl->run.sim, res) != 0) {
		memset(res, 0, sizeof *res);
		res->makespan_us = INFINITY;
		res->oom_mask = 1;
		res->oom_excess = INT64_MAX;
	}
	w->sim_s += pl_now_s() - t0;
	make_key(b, res, &pp->key[nx][s], &pp->fit[nx][s]);
}

/* Copy the elite of every population into the next buffer. */
static void
copy_elite(struct brkga *b)
{
	int nx = 1 - b->cur;
	for (int k = 0; k < b->P; k++) {
		struct pop *pp = &b->pops[k];
		for (int s = 0; s < b->ne; s++) {
			int from = pp->order[s];
			memcpy(pp->genes[nx] + (long)s * b->G,
			    pp->genes[b->cur] + (long)from * b->G,
			    sizeof(float) * b->G);
			pp->key[nx][s] = pp->key[b->cur][from];
			pp->fit[nx][s] = pp->fit[b->cur][from];
			pp->res[nx][s] = pp->res[b->cur][from];
		}
	}
}

/* Every population's worst chromosomes are replaced by the best of every
 * other population (Toso & Resende's exchangeElite). */
static void
exchange_best(struct brkga *b)
{
	int M = b->n_exchange, c = b->cur;
	if (b->P < 2 || M <= 0)
		return;
	/* stage the best M of every population first */
	float *stage = pl_xmalloc(sizeof *stage * (size_t)b->P * M * b->G);
	struct key *sk = pl_xmalloc(sizeof *sk * (size_t)b->P * M);
	double *sf = pl_xmalloc(sizeof *sf * (size_t)b->P * M);
	struct pl_sim_result *sr = pl_xmalloc(sizeof *sr * (size_t)b->P * M);
	for (int k = 0; k < b->P; k++) {
		struct pop *pp = &b->pops[k];
		for (int m = 0; m < M; m++) {
			int s = pp->order[m];
			long at = (long)k * M + m;
			memcpy(stage + at * b->G, pp->genes[c] + (long)s * b->G,
			    sizeof *stage * b->G);
			sk[at] = pp->key[c][s];
			sf[at] = pp->fit[c][s];
			sr[at] = pp->res[c][s];
		}
	}
	for (int k = 0; k < b->P; k++) {
		struct pop *pp = &b->pops[k];
		int dst = b->p - 1;
		for (int j = 0; j < b->P; j++) {
			if (j == k)
				continue;
			for (int m = 0; m < M; m++, dst--) {
				int s = pp->order[dst];
				long at = (long)j * M + m;
				memcpy(pp->genes[c] + (long)s * b->G,
				    stage + at * b->G, sizeof *stage * b->G);
				pp->key[c][s] = sk[at];
				pp->fit[c][s] = sf[at];
				pp->res[c][s] = sr[at];
			}
		}
		rank_slots(b, pp->key[c], pp->order);
	}
	free(stage);
	free(sk);
	free(sf);
	free(sr);
}

/* Mean over a strided sample of at most DIV_GENES genes of the per-gene
 * standard deviation across each population, averaged over populations.
 * Rows are read in order (chromosome-major) to stay cache-friendly. */
static double
diversity(const struct brkga *b)
{
	long stride = (b->G + DIV_GENES - 1) / DIV_GENES;
	long n = (b->G + stride - 1) / stride;
	double *s1 = b->div_acc, *s2 = b->div_acc + DIV_GENES;
	double total = 0;
	for (int k = 0; k < b->P; k++) {
		const float *gs = b->pops[k].genes[b->cur];
		memset(b->div_acc, 0, sizeof *b->div_acc * 2 * DIV_GENES);
		for (int i = 0; i < b->p; i++) {
			const float *x = gs + (long)i * b->G;
			for (long j = 0; j < n; j++) {
				double v = x[j * stride];
				s1[j] += v;
				s2[j] += v * v;
			}
		}
		double acc = 0;
		for (long j = 0; j < n; j++) {
			double m = s1[j] / b->p, var = s2[j] / b->p - m * m;
			acc += var > 0 ? sqrt(var) : 0;
		}
		total += n ? acc / n : 0;
	}
	return total / b->P;
}

/* Make pl->best the decoding of the best chromosome. */
static void
set_best(struct pl_placer *pl, const float *x, const struct pl_sim_result *r)
{
	struct brkga *b = pl->priv;
	if (pl->best == NULL)
		pl->best = pl_placement_new(b->lay.n_ops, b->lay.n_dev);
	ensure_arrays(b, pl->best);
	decode(b, pl->prob, x, pl->best);
	pl->best_res = *r;
}

/* Record statistics and the best of this generation. */
static void
finish_generation(struct pl_placer *pl, double t0)
{
	struct brkga *b = pl->priv;
	int c = b->cur;
	int improved = 0;
	int bk = -1;
	for (int k = 0; k < b->P; k++) {
		struct pop *pp = &b->pops[k];
		int s = pp->order[0];
		if (bk < 0 || key_less(&pp->key[c][s],
		    &b->pops[bk].key[c][b->pops[bk].order[0]]))
			bk = k;
	}
	struct pop *bp = &b->pops[bk];
	int bs = bp->order[0];
	if (!b->have_best || key_less(&bp->key[c][bs], &b->best_key)) {
		b->have_best = 1;
		b->best_key = bp->key[c][bs];
		memcpy(b->best_genes, bp->genes[c] + (long)bs * b->G,
		    sizeof *b->best_genes * b->G);
		set_best(pl, b->best_genes, &bp->res[c][bs]);
		improved = 1;
	}
	b->stale = improved ? 0 : b->stale + 1;

	double sum = 0, worst = -INFINITY;
	int n_ok = 0, n_oom = 0;
	for (int k = 0; k < b->P; k++)
		for (int s = 0; s < b->p; s++) {
			if (b->pops[k].key[c][s].oom) {
				n_oom++;
				continue;
			}
			double f = b->pops[k].fit[c][s];
			sum += f;
			if (f > worst)
				worst = f;
			n_ok++;
		}
	b->step_s += pl_now_s() - t0;
	if (b->n_hist == b->cap_hist) {
		b->cap_hist = b->cap_hist ? 2 * b->cap_hist : 64;
		b->hist = pl_xreallocarray(b->hist, b->cap_hist, sizeof *b->hist);
	}
	struct pl_brkga_gen *h = &b->hist[b->n_hist++];
	const struct pl_sim_result *br = &pl->best_res;
	double bestf;
	struct key dummy;
	make_key(b, br, &dummy, &bestf);
	*h = (struct pl_brkga_gen){
		.gen = b->gen,
		.evals = pl->evals,
		.wall_s = b->step_s,
		.best = bestf,
		.best_oom = b->best_key.oom,
		.mean = n_ok ? sum / n_ok : NAN,
		.worst = n_ok ? worst : NAN,
		.n_oom = n_oom,
		.best_makespan_us = br->makespan_us,
		.best_peak_bytes = br->peak_fullest,
		.diversity = diversity(b),
	};
	/* the objective in its unit: ms, bytes of the largest device peak,
	 * or the mix's unitless sum */
	char fit[48];
	if (b->obj == OBJ_RUNTIME)
		snprintf(fit, sizeof fit, "%.3f ms", bestf / 1000);
	else if (b->obj == OBJ_MEMORY)
		pl_fmt_mem(fit, sizeof fit, bestf);
	else
		snprintf(fit, sizeof fit, "%.6g (mix)", bestf);
	pl_placer_set_status(pl, "generation %d: best %s%s, %ld evals", b->gen,
	    fit, h->best_oom ? " (OOM)" : "", pl->evals);
	pl_placer_note(pl, "generation %d: best %.6g mean %.6g oom %d div %.3f%s",
	    b->gen, bestf, h->mean, n_oom, h->diversity, improved ? " *" : "");
}

/* Whether the budgets allow another generation. */
static int
budget_left(const struct pl_placer *pl)
{
	const struct brkga *b = pl->priv;
	long next = (long)b->P * (b->p - b->ne);
	if (b->max_evals > 0 && pl->evals + next > b->max_evals)
		return 0;
	if (b->max_gens > 0 && b->gen > b->max_gens)
		return 0;
	if (b->max_seconds > 0 && b->step_s >= b->max_seconds)
		return 0;
	if (b->patience > 0 && b->stale >= b->patience)
		return 0;
	return 1;
}

/* One generation: the initial population, or elite + children + mutants. */
static enum pl_step_status
brkga_step(struct pl_placer *pl)
{
	struct brkga *b = pl->priv;
	double t0 = pl_now_s();
	struct gen_ctx ctx = { .pl = pl };
	if (b->gen == 0) {
		if (b->n_seed_cls > 0 && b->seeds == NULL) {
			char *cause = NULL;
			if (run_seeds(pl, &cause) != 0) {
				pl_placer_note(pl, "%s", cause);
				free(cause);
				return PL_STEP_ERROR;
			}
		}
		ctx.per_pop = b->p;
		ctx.first = 0;
	} else {
		copy_elite(b);
		ctx.per_pop = b->p - b->ne;
		ctx.first = b->ne;
	}
	int n = ctx.per_pop * b->P;
	pl_pool_for(b->pool, n, gen_job, &ctx);
	pl->evals += n;
	b->cur = 1 - b->cur;
	for (int k = 0; k < b->P; k++)
		rank_slots(b, b->pops[k].key[b->cur], b->pops[k].order);
	if (b->exchange > 0 && b->gen > 0 && b->gen % b->exchange == 0)
		exchange_best(b);
	finish_generation(pl, t0);
	b->gen++;
	return budget_left(pl) ? PL_STEP_MORE : PL_STEP_DONE;
}

/* ---- life cycle ------------------------------------------------------------ */

/* Free everything the placer owns. */
static void
brkga_destroy(struct pl_placer *pl)
{
	struct brkga *b = pl->priv;
	if (b == NULL)
		return;
	for (int k = 0; b->pops != NULL && k < b->P; k++) {
		for (int j = 0; j < 2; j++) {
			free(b->pops[k].genes[j]);
			free(b->pops[k].key[j]);
			free(b->pops[k].fit[j]);
			free(b->pops[k].res[j]);
		}
		free(b->pops[k].order);
	}
	free(b->pops);
	for (int i = 0; b->w != NULL && i < b->n_workers; i++) {
		pl_placement_free(b->w[i].pl);
		pl_sim_ws_free(b->w[i].ws);
	}
	free(b->w);
	if (b->pool != NULL)
		pl_pool_free(b->pool);
	free(b->alpha);
	free(b->beta);
	free(b->seed_cls);
	free(b->seeds);
	free(b->best_genes);
	free(b->hist);
	free(b->sort_tmp);
	free(b->div_acc);
	free(b);
	pl->priv = NULL;
}

/* Read the options (each within its range) and check how they combine;
 * 0 or -1 + *cause. */
static int
read_options(struct pl_placer *pl, struct brkga *b, char **cause)
{
	const struct pl_options *o = pl->opts;
	b->p = (int)pl_opt_int(o, "pop");
	b->P = (int)pl_opt_int(o, "populations");
	b->ne = (int)lround(pl_opt_double(o, "elite") * (double)b->p);
	if (b->ne < 1)
		b->ne = 1;
	b->nm = (int)lround(pl_opt_double(o, "mutants") * (double)b->p);
	if (b->ne + b->nm >= b->p) {
		*cause = pl_xasprintf("brkga: options 'elite' and 'mutants': %d "
		    "elite and %d mutants leave no room in a population of %d",
		    b->ne, b->nm, b->p);
		return -1;
	}
	b->nc = b->p - b->ne - b->nm;
	double rho = pl_opt_bool(o, "elite-bias") ? pl_opt_double(o, "rho") : 0.5;
	b->rho16 = (unsigned)lround(rho * 65536);
	b->max_evals = (long)pl_opt_int(o, "evals");
	b->max_gens = (int)pl_opt_int(o, "generations");
	b->max_seconds = pl_opt_double(o, "seconds");
	b->patience = (int)pl_opt_int(o, "patience");
	b->exchange = (int)pl_opt_int(o, "exchange");
	b->n_exchange = (int)pl_opt_int(o, "exchange-count");
	if (b->max_evals > 0 && b->max_evals < (long)b->P * b->p) {
		*cause = pl_xasprintf("brkga: option 'evals': %ld is less than the "
		    "initial population (%d x %d)", b->max_evals, b->P, b->p);
		return -1;
	}
	/* (with exchange 0 nothing is ever exchanged: the count is moot) */
	if (b->exchange > 0 && (long)b->n_exchange * (b->P - 1) > b->p - b->ne) {
		*cause = pl_xasprintf("brkga: option 'exchange-count': %d from each "
		    "of %d other populations does not fit among the %d non-elite",
		    b->n_exchange, b->P - 1, b->p - b->ne);
		return -1;
	}
	if (parse_objective(b, pl_opt_str(o, "objective"), cause) != 0)
		return -1;
	if (parse_seed_from(b, pl_opt_str(o, "seed-from"), cause) != 0)
		return -1;
	/* a population keeps one chromosome of its own: the seeds fill
	 * the rest at most, and a longer list is refused */
	if (b->n_seed_cls > b->p - 1) {
		*cause = pl_xasprintf("brkga: option 'seed-from': %d placers, but a "
		    "population of %d takes at most %d (expected pop above %d)",
		    b->n_seed_cls, b->p, b->p - 1, b->n_seed_cls);
		return -1;
	}
	return 0;
}

/* The chromosome layout of problem prob, with or without tensor genes
 * (population sizes left 0). */
static void
make_layout(const struct pl_problem *prob, int tensor_genes,
    struct pl_brkga_layout *L)
{
	const struct pl_graph *g = prob->g;
	memset(L, 0, sizeof *L);
	L->n_groups = g->n_groups;
	L->n_ops = g->n_ops;
	L->n_tensors = g->n_tensors;
	L->n_dev = prob->n_dev;
	L->aff_off = 0;
	L->prio_off = (long)g->n_groups * prob->n_dev;
	L->n_genes = L->prio_off + g->n_ops;
	L->tprio_off = -1;
	if (tensor_genes) {
		L->tprio_off = L->n_genes;
		L->n_genes += (long)g->n_tensors * prob->n_dev;
	}
}

/* Set up layout, populations, workers and distributions. */
static int
brkga_create(struct pl_placer *pl, char **cause)
{
	const struct pl_problem *prob = pl->prob;
	const struct pl_graph *g = prob->g;
	struct brkga *b = pl_xcalloc(1, sizeof *b);
	pl->priv = b;
	if (read_options(pl, b, cause) != 0) {
		brkga_destroy(pl);
		return -1;
	}
	struct pl_brkga_layout *L = &b->lay;
	make_layout(prob, pl_opt_bool(pl->opts, "tensor-genes"), L);
	L->pop_size = b->p;
	L->n_pops = b->P;
	L->n_elite = b->ne;
	L->n_mutants = b->nm;
	b->G = L->n_genes > 0 ? L->n_genes : 1;
	size_t bytes = 2 * sizeof(float) * (size_t)b->P * (size_t)b->p * (size_t)b->G;
	if (bytes > MAX_GENE_BYTES) {
		/* GiB rounded up, so that the need never reads as the limit */
		*cause = pl_xasprintf("brkga: %d x %d chromosomes of %ld genes need "
		    "%.3f GiB, more than the limit of %zu GiB; use a smaller 'pop', "
		    "fewer 'populations' or tensor-genes=0", b->P, b->p, b->G,
		    ceil((double)bytes / (1 << 30) * 1000) / 1000,
		    MAX_GENE_BYTES >> 30);
		brkga_destroy(pl);
		return -1;
	}

	if (b->obj == OBJ_MIX) {
		struct pl_bounds bd;
		pl_bounds_compute(prob, &bd);
		b->t0_us = bd.best_us > 0 ? bd.best_us : 1;
		double m = 0;
		for (int d = 0; d < prob->n_dev; d++)
			m += (double)prob->c->dev[d].mem_bytes;
		b->m0_bytes = m > 0 ? m / prob->n_dev : 1;
	}

	b->pops = pl_xcalloc(b->P, sizeof *b->pops);
	for (int k = 0; k < b->P; k++) {
		struct pop *pp = &b->pops[k];
		for (int j = 0; j < 2; j++) {
			pp->genes[j] = pl_xmalloc(sizeof(float) * (size_t)b->p * b->G);
			pp->key[j] = pl_xcalloc(b->p, sizeof *pp->key[j]);
			pp->fit[j] = pl_xcalloc(b->p, sizeof *pp->fit[j]);
			pp->res[j] = pl_xcalloc(b->p, sizeof *pp->res[j]);
		}
		pp->order = pl_xcalloc(b->p, sizeof *pp->order);
	}
	b->sort_tmp = pl_xcalloc(b->p, sizeof *b->sort_tmp);
	b->div_acc = pl_xcalloc(2 * DIV_GENES, sizeof *b->div_acc);
	b->best_genes = pl_xcalloc(b->G, sizeof *b->best_genes);

	b->pool = pl_pool_new(pl->run.threads);
	b->n_workers = pl_pool_size(b->pool);
	b->w = pl_xcalloc(b->n_workers, sizeof *b->w);
	for (int i = 0; i < b->n_workers; i++) {
		b->w[i].pl = pl_placement_new(g->n_ops, prob->n_dev);
		ensure_arrays(b, b->w[i].pl);
		b->w[i].ws = pl_sim_ws_new(prob);
	}

	const char *bf = pl_opt_str(pl->opts, "beta-file");
	if (*bf != '\0' && pl_brkga_load_beta(pl, bf, cause) != 0) {
		brkga_destroy(pl);
		return -1;
	}
	pl_placer_set_status(pl, "BRKGA: %d x %d chromosomes of %ld genes",
	    b->P, b->p, L->n_genes);
	return 0;
}

/* ---- Beta distributions ------------------------------------------------------ */

/* Set per-gene Beta parameters. */
int
pl_brkga_set_beta(struct pl_placer *pl, const double *alpha, const double *beta,
    long n, char **cause)
{
	struct brkga *b = pl->priv;
	if (alpha == NULL || beta == NULL) {
		free(b->alpha);
		free(b->beta);
		b->alpha = b->beta = NULL;
		return 0;
	}
	if (n != b->lay.n_genes) {
		*cause = pl_xasprintf("brkga: %ld Beta parameters given, the "
		    "chromosome has %ld genes", n, b->lay.n_genes);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		if (!(isfinite(alpha[i]) && alpha[i] > 0 && isfinite(beta[i]) &&
		    beta[i] > 0)) {
			*cause = pl_xasprintf("brkga: gene %ld: Beta(%g, %g) needs "
			    "finite parameters > 0", i, alpha[i], beta[i]);
			return -1;
		}
	}
	if (b->alpha == NULL) {
		b->alpha = pl_xmalloc(sizeof *b->alpha * (size_t)b->G);
		b->beta = pl_xmalloc(sizeof *b->beta * (size_t)b->G);
	}
	memcpy(b->alpha, alpha, sizeof *alpha * n);
	memcpy(b->beta, beta, sizeof *beta * n);
	return 0;
}

/* Make the per-gene arrays exist (uniform). */
static void
ensure_beta(struct brkga *b)
{
	if (b->alpha != NULL)
		return;
	b->alpha = pl_xmalloc(sizeof *b->alpha * (size_t)b->G);
	b->beta = pl_xmalloc(sizeof *b->beta * (size_t)b->G);
	for (long i = 0; i < b->G; i++)
		b->alpha[i] = b->beta[i] = 1;
}

/* Whether a and b are valid Beta parameters. */
static int
beta_ok(double a, double c)
{
	return isfinite(a) && a > 0 && isfinite(c) && c > 0;
}

/* Set one node's affinity and priority distributions. */
int
pl_brkga_set_node_beta(struct pl_placer *pl, int op, const double *alpha,
    const double *beta, double prio_alpha, double prio_beta, char **cause)
{
	struct brkga *b = pl->priv;
	int nd = b->lay.n_dev;
	if (op < 0 || op >= b->lay.n_ops) {
		*cause = pl_xasprintf("brkga: op %d is not in [0, %d)", op, b->lay.n_ops);
		return -1;
	}
	for (int d = 0; alpha != NULL && beta != NULL && d < nd; d++)
		if (!beta_ok(alpha[d], beta[d])) {
			*cause = pl_xasprintf("brkga: op %d, device %d: Beta(%g, %g) "
			    "needs finite parameters > 0", op, d, alpha[d], beta[d]);
			return -1;
		}
	int set_prio = prio_alpha > 0 || prio_beta > 0;
	if (set_prio && !beta_ok(prio_alpha, prio_beta)) {
		*cause = pl_xasprintf("brkga: op %d: priority Beta(%g, %g) needs "
		    "finite parameters > 0", op, prio_alpha, prio_beta);
		return -1;
	}
	ensure_beta(b);
	if (alpha != NULL && beta != NULL) {
		long base = b->lay.aff_off + (long)pl->prob->g->ops[op].group * nd;
		for (int d = 0; d < nd; d++) {
			b->alpha[base + d] = alpha[d];
			b->beta[base + d] = beta[d];
		}
	}
	if (set_prio) {
		b->alpha[b->lay.prio_off + op] = prio_alpha;
		b->beta[b->lay.prio_off + op] = prio_beta;
	}
	return 0;
}

/* Parse the ALPHA and BETA tokens sa, sb (numbers as JSON writes them,
 * > 0) of a line whose form is usage; 0, or -1 with what is wrong in
 * what[0 .. wn). */
static int
parse_params(const char *sa, const char *sb, double *a, double *b,
    const char *usage, char *what, size_t wn)
{
	const char *tok[2] = { sa, sb };
	double *out[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		if (tok[i] == NULL) {
			snprintf(what, wn, "%s is missing (expected '%s')", i ? "BETA" : "ALPHA", usage);
			return -1;
		}
		if (pl_parse_number(tok[i], out[i]) != 0 || *out[i] <= 0) {
			snprintf(what, wn, "%s '%.*s%s' is not a number > 0 (expected one as JSON "
			    "writes it: 2, 0.5, 1e-3; not .5, +2 or 1.)", i ? "BETA" : "ALPHA",
			    (int)pl_utf8_cut(tok[i], strlen(tok[i]), 40), tok[i],
			    strlen(tok[i]) > 40 ? "..." : "");
			return -1;
		}
	}
	return 0;
}

/* Device index by name or "*" (-2), or -1. */
static int
parse_device(const struct pl_problem *prob, const char *s)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "*") == 0)
		return -2;
	return pl_cluster_find(prob->c, s);
}

/* How many bytes of s to quote in a message: at most 100, whole UTF-8
 * characters. */
static int
quote_len(const char *s)
{
	return (int)pl_utf8_cut(s, strlen(s), 100);
}

/* The message for an op name op (NULL: none given) that graph g lacks,
 * on a line of the form form. */
static void
unknown_op(const struct pl_graph *g, const char *op, const char *form, char *what, size_t wn)
{
	if (op == NULL)
		snprintf(what, wn, "no op given (expected '%s')", form);
	else
		snprintf(what, wn, "op '%.*s%s' is not in graph '%.*s' (expected the name of "
		    "one of its ops)", quote_len(op), op, strlen(op) > 100 ? "..." : "",
		    quote_len(g->name), g->name);
}

#define BETA_FIELDS 5	/* a keyword and up to four fields */

/*
 * The fields of one line of a Beta file, in place: separated by spaces or
 * tabs, up to a '#' that starts a comment; a field in double quotes may
 * hold spaces and '#' (a name such as "enc l1/x#2"), with \" and \\ for
 * a quote and a backslash.  Up to max fields in tok[], their count in *n
 * (one more than max when there are more).  0, or -1 with what went
 * wrong in what[0 .. wn).
 */
static int
beta_fields(char *line, char **tok, int max, int *n, char *what, size_t wn)
{
	char *p = line;
	*n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (*p == '\0' || *p == '#')
			return 0;
		if (*n == max) {
			(*n)++;
			return 0;
		}
		char *out = p, *start = p;
		if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0') {
					snprintf(what, wn, "%s", "a quoted name is not closed (expected '\"')");
					return -1;
				}
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				*out++ = *p;
			}
			p++;
			if (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#') {
				snprintf(what, wn, "%s", "text after a quoted name (expected a space)");
				return -1;
			}
		} else {
			while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#')
				out = ++p;
		}
		int end = *p == '\0' || *p == '#';
		*out = '\0';
		tok[(*n)++] = start;
		if (end)
			return 0;
		p++;
	}
}

/* Apply one line of a Beta file, its fields tok[0 .. n), to the genes of
 * layout lay in al and be (both NULL: check only); 0, or -1 with what went
 * wrong in what[0 .. wn). */
static int
beta_line(const struct pl_brkga_layout *lay, const struct pl_problem *prob, char **tok,
    int n, double *al, double *be, char *what, size_t wn)
{
	const struct pl_graph *g = prob->g;
	int nd = lay->n_dev;
	if (n > BETA_FIELDS || (n > 3 && strcmp(tok[0], "default") == 0)) {
		snprintf(what, wn, "%s", strcmp(tok[0], "default") == 0 ?
		    "too many fields (expected 'default ALPHA BETA')" :
		    "too many fields (a name with spaces or '#' goes in double quotes)");
		return -1;
	}
	const char *kw = tok[0];
	char *f[4];
	for (int i = 0; i < 4; i++)
		f[i] = i + 1 < n ? tok[i + 1] : NULL;
	double a, c;
	if (strcmp(kw, "default") == 0) {
		if (parse_params(f[0], f[1], &a, &c, "default ALPHA BETA", what, wn) != 0)
			return -1;
		for (long i = 0; al != NULL && i < lay->n_genes; i++) {
			al[i] = a;
			be[i] = c;
		}
		return 0;
	}
	if (strcmp(kw, "priority") == 0) {
		int v = f[0] ? pl_graph_find(g, f[0]) : -1;
		if (v < 0) {
			unknown_op(g, f[0], "priority OP ALPHA BETA", what, wn);
			return -1;
		}
		if (f[3] != NULL) {
			snprintf(what, wn, "%s", "too many fields (expected 'priority OP ALPHA BETA'; "
			    "a name with spaces or '#' goes in double quotes)");
			return -1;
		}
		if (parse_params(f[1], f[2], &a, &c, "priority OP ALPHA BETA", what, wn) != 0)
			return -1;
		if (al != NULL) {
			al[lay->prio_off + v] = a;
			be[lay->prio_off + v] = c;
		}
		return 0;
	}
	long base;
	if (strcmp(kw, "affinity") == 0) {
		int v = f[0] ? pl_graph_find(g, f[0]) : -1;
		if (v < 0) {
			unknown_op(g, f[0], "affinity OP DEVICE ALPHA BETA", what, wn);
			return -1;
		}
		base = lay->aff_off + (long)g->ops[v].group * nd;
	} else if (strcmp(kw, "tensor") == 0) {
		if (lay->tprio_off < 0) {
			snprintf(what, wn, "%s", "tensor line, but the chromosome has no tensor genes");
			return -1;
		}
		char *colon = f[0] ? strrchr(f[0], ':') : NULL;
		int v = -1;
		long idx = -1;
		if (colon != NULL) {
			*colon = '\0';
			long long x;
			if (pl_parse_whole(colon + 1, &x) == 0 && x >= 0 && x < PL_MAX_OUTPUTS)
				idx = (long)x;
			v = pl_graph_find(g, f[0]);
		}
		int t = v >= 0 && idx >= 0 ? pl_graph_tensor_of(g, v, idx) : -1;
		if (t < 0) {
			snprintf(what, wn, "%s", "expected an existing tensor OP:INDEX");
			return -1;
		}
		base = lay->tprio_off + (long)t * nd;
	} else {
		snprintf(what, wn, "%s", "unknown keyword (expected default, affinity, priority or tensor)");
		return -1;
	}
	int d = parse_device(prob, f[1]);
	if (d == -1) {
		if (f[1] == NULL)
			snprintf(what, wn, "no device given (expected a device of cluster '%.*s' or *)",
			    quote_len(prob->c->name), prob->c->name);
		else
			snprintf(what, wn, "device '%.*s%s' is not in cluster '%.*s' (expected one of its "
			    "devices or *)", quote_len(f[1]), f[1], strlen(f[1]) > 100 ? "..." : "",
			    quote_len(prob->c->name), prob->c->name);
		return -1;
	}
	if (parse_params(f[2], f[3], &a, &c, strcmp(kw, "affinity") == 0 ?
	    "affinity OP DEVICE ALPHA BETA" : "tensor OP:INDEX DEVICE ALPHA BETA", what, wn) != 0)
		return -1;
	for (int j = 0; al != NULL && j < nd; j++) {
		if (d == -2 || d == j) {
			al[base + j] = a;
			be[base + j] = c;
		}
	}
	return 0;
}

/* Read a placelab-beta/1 text (name labels messages) for the genes of
 * layout lay into al and be (both NULL: check only), which start uniform.
 * 0, or -1 + *cause. */
static int
read_beta(const struct pl_brkga_layout *lay, const struct pl_problem *prob,
    const char *text0, size_t len, const char *name, double *al, double *be,
    char **cause)
{
	char kind[64];	/* another of placelab's files: said so */
	if (pl_text_kind(text0, len, kind, sizeof kind) && strncmp(kind, "placelab-beta/", 14) != 0) {
		*cause = pl_xasprintf("%s: holds %s (%s), not BRKGA's Beta parameters "
		    "(expected a placelab-beta/1 file)", name, pl_file_kind_name(kind), kind);
		return -1;
	}
	if ((*cause = pl_text_error(name, text0, len)) != NULL)
		return -1;
	if (len >= 3 && memcmp(text0, "\xEF\xBB\xBF", 3) == 0) {	/* a byte order mark */
		text0 += 3;
		len -= 3;
	}
	char *text = pl_xmalloc(len + 1);
	memcpy(text, text0, len);
	text[len] = '\0';
	for (long i = 0; al != NULL && i < lay->n_genes; i++)
		al[i] = be[i] = 1;
	int lineno = 0, seen_header = 0, rc = 0;
	char *next = text;
	char what[512];
	while (next != NULL) {
		char *line = next;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		char *tok[BETA_FIELDS];
		int n;
		what[0] = '\0';
		if (beta_fields(line, tok, BETA_FIELDS, &n, what, sizeof what) == 0) {
			if (n == 0)
				continue;
			if (!seen_header) {
				if (n != 1 || strcmp(tok[0], "placelab-beta/1") != 0)
					snprintf(what, sizeof what, "expected the header 'placelab-beta/1'");
				seen_header = 1;
			} else {
				(void)beta_line(lay, prob, tok, n, al, be, what, sizeof what);
			}
		}
		if (what[0] != '\0') {
			*cause = pl_xasprintf("%s:%d: %s", name, lineno, what);
			rc = -1;
			break;
		}
	}
	if (rc == 0 && !seen_header) {
		*cause = pl_xasprintf("%s: empty; expected the header 'placelab-beta/1'", name);
		rc = -1;
	}
	free(text);
	return rc;
}

/* Read a placelab-beta/1 text (name labels messages) and set it. */
int
pl_brkga_parse_beta(struct pl_placer *pl, const char *text, size_t len, const char *name,
    char **cause)
{
	struct brkga *b = pl->priv;
	long G = b->lay.n_genes;
	double *al = pl_xmalloc(sizeof *al * (size_t)(G ? G : 1));
	double *be = pl_xmalloc(sizeof *be * (size_t)(G ? G : 1));
	int rc = read_beta(&b->lay, pl->prob, text, len, name, al, be, cause);
	if (rc == 0)
		rc = pl_brkga_set_beta(pl, al, be, G, cause);
	free(al);
	free(be);
	return rc;
}

/* Check a placelab-beta/1 text against a problem, without a placer. */
int
pl_brkga_check_beta(const struct pl_problem *prob, int tensor_genes, const char *text,
    size_t len, const char *name, char **cause)
{
	struct pl_brkga_layout lay;
	make_layout(prob, tensor_genes, &lay);
	return read_beta(&lay, prob, text, len, name, NULL, NULL, cause);
}

/* Load a placelab-beta/1 file. */
int
pl_brkga_load_beta(struct pl_placer *pl, const char *path, char **cause)
{
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return -1;
	int rc = pl_brkga_parse_beta(pl, text, len, path, cause);
	free(text);
	return rc;
}

/* ---- getters ------------------------------------------------------------------ */

/* Layout and sizes. */
void
pl_brkga_layout(const struct pl_placer *pl, struct pl_brkga_layout *out)
{
	const struct brkga *b = pl->priv;
	*out = b->lay;
}

/* The history. */
const struct pl_brkga_gen *
pl_brkga_history(const struct pl_placer *pl, int *n)
{
	const struct brkga *b = pl->priv;
	*n = b->n_hist;
	return b->hist;
}

/* Chromosome of rank r in population k. */
const float *
pl_brkga_chromosome(const struct pl_placer *pl, int k, int r, double *fit,
    int *oom)
{
	const struct brkga *b = pl->priv;
	if (b->gen == 0 || k < 0 || k >= b->P || r < 0 || r >= b->p)
		return NULL;
	const struct pop *pp = &b->pops[k];
	int s = pp->order[r];
	if (fit != NULL)
		*fit = pp->fit[b->cur][s];
	if (oom != NULL)
		*oom = pp->key[b->cur][s].oom;
	return pp->genes[b->cur] + (long)s * b->G;
}

/* Public decoder. */
void
pl_brkga_decode(const struct pl_placer *pl, const float *genes,
    struct pl_placement *out)
{
	const struct brkga *b = pl->priv;
	ensure_arrays(b, out);
	decode(b, pl->prob, genes, out);
}

/* Time in the simulator and in steps. */
void
pl_brkga_times(const struct pl_placer *pl, double *sim_s, double *step_s)
{
	const struct brkga *b = pl->priv;
	double s = 0;
	for (int i = 0; i < b->n_workers; i++)
		s += b->w[i].sim_s;
	*sim_s = s;
	*step_s = b->step_s;
}

/* Write the per-generation history as CSV. */
static int
brkga_history_csv(const struct pl_placer *pl, FILE *f)
{
	const struct brkga *b = pl->priv;
	fprintf(f, "generation,evals,wall_s,best,best_oom,mean,worst,n_oom,"
	    "best_makespan_us,best_peak_bytes,diversity\n");
	for (int i = 0; i < b->n_hist; i++) {
		const struct pl_brkga_gen *h = &b->hist[i];
		fprintf(f, "%d,%ld,%.6f,%.17g,%d,%.17g,%.17g,%d,%.17g,%lld,%.6f\n",
		    h->gen, h->evals, h->wall_s, h->best, h->best_oom, h->mean,
		    h->worst, h->n_oom, h->best_makespan_us,
		    (long long)h->best_peak_bytes, h->diversity);
	}
	return ferror(f) ? -1 : 0;
}

const struct pl_placer_class pl_placer_brkga = {
	.name = "brkga",
	.title = "BRKGA",
	.summary = "REGAL's biased random-key genetic algorithm over device "
	    "affinities and op/transfer priorities; one step per generation",
	.options = brkga_options,
	.ranges = brkga_ranges,
	.create = brkga_create,
	.step = brkga_step,
	.destroy = brkga_destroy,
	.history_csv = brkga_history_csv,
	.quick = 1,
};
