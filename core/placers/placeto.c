/*
 * placeto — the Placeto MDP, its REINFORCE training and the placer class
 * (see placeto.h and docs/PLACETO.md).
 *
 * Structure: an `env` is one graph prepared for the MDP (grouped nodes,
 * their CSR both ways, ancestor/descendant/parallel sets, static features,
 * visit order, fixed initial placement, baseline history).  An `episode`
 * is one worker slot playing one episode on one env.  The `engine` holds
 * the policy, Adam, the worker slots and the pool, and is shared by the
 * placer class and the multi-graph trainer.
 *
 * Invariant: during a batch the policy weights are read-only; every slot
 * writes only its own buffers; everything order-dependent (offering
 * placements, summing gradients, baseline updates) happens on the caller's
 * thread in slot order.  Hence results never depend on the thread count.
 */
#include "placeto.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iheap.h"
#include "nn/nn.h"
#include "nn/policy.h"
#include "pool.h"
#include "rng.h"
#include "sim.h"
#include "strbuf.h"
#include "xmalloc.h"

const struct pl_option_def pl_placeto_options[] = {
	{ "policy", PL_OPT_FILE, "", "trained policy file (.plw); empty: train from scratch" },
	{ "finetune", PL_OPT_INT, "0", "training episodes on this graph before the greedy run (with policy)" },
	{ "episodes", PL_OPT_INT, "400", "training episodes without a policy" },
	{ "workers", PL_OPT_INT, "4", "episodes run in parallel per gradient update" },
	{ "groups", PL_OPT_INT, "128", "at most this many grouped nodes (colocation groups merged by scope; at least one per set of allowed devices); 0: every colocation group its own node (reference)" },
	{ "sim", PL_OPT_STRING, "run", "simulator of the MDP: run (the driver's), placeto or native" },
	{ "k", PL_OPT_INT, "8", "message-passing rounds" },
	{ "lr", PL_OPT_DOUBLE, "1e-3", "initial learning rate (Adam)" },
	{ "lr-end", PL_OPT_DOUBLE, "1e-4", "learning rate at the end of training (linear decay)" },
	{ "entropy", PL_OPT_DOUBLE, "1.0", "entropy bonus weight c" },
	{ "baseline", PL_OPT_INT, "10", "baseline: mean return per step over the last N episodes (this batch's included, so at least 2)" },
	{ "clip", PL_OPT_DOUBLE, "1.25", "global gradient-norm clipping" },
	{ "init", PL_OPT_STRING, "random-fixed", "initial placement: random-fixed, zero, random, best" },
	{ "order", PL_OPT_STRING, "topo", "visit order: topo or random-fixed" },
	{ "peers", PL_OPT_INT, "0", "parallel set: keep the N closest in start time (0: all)" },
	{ "pool", PL_OPT_STRING, "sum", "aggregation over node sets: sum (reference) or mean" },
	{ "mp", PL_OPT_STRING, "sum", "message aggregation over neighbours: sum (reference) or mean" },
	{ "mem-feature", PL_OPT_BOOL, "off", "add the memory feature column" },
	{ "mem-penalty", PL_OPT_DOUBLE, "0", "seconds per GB above max-mem on the worst device" },
	{ "max-mem", PL_OPT_DOUBLE, "8", "memory limit (GB) of the penalty" },
	{ "mem-cap", PL_OPT_DOUBLE, "10", "with a penalty, the most a run time plus its penalty counts (seconds)" },
	{ "penalty-mem", PL_OPT_STRING, "placeto", "peak memory of the penalty: placeto (reference: each output from its op's start to the latest of that start and its consumers' int(start) + int(cost) - 1) or run (the driver's memory model)" },
	{ "start-norm", PL_OPT_STRING, "max", "start-time feature: max (reference: offsets from the current node divided by their maximum, left as they are when it is 0) or absmax (divided by the largest |offset|, within [-1, 1])" },
	{ "edges", PL_OPT_STRING, "all", "grouped-graph edges for message passing and node sets: all (reference) or forward (acyclic: only edges forward in topological order)" },
	{ "accept", PL_OPT_STRING, "all", "moves kept: all (reference) or improve (a move that does not lower the run time is undone)" },
	{ "reward", PL_OPT_STRING, "seconds", "reward unit: seconds (reference) or relative (improvement / initial run time)" },
	{ "sched", PL_OPT_STRING, "fifo", "op order on a device: fifo (reference: first ready first) or rank (each placement gets priorities: longest path to the sink with its devices' op and transfer times)" },
	{ "escape", PL_OPT_STRING, "none", "way out of local optima: none (reference) or grow (after escape-after batches without a new best, each move also takes up to 2, 4, ..., escape-max nodes connected to the current one on its device)" },
	{ "escape-max", PL_OPT_INT, "8", "escape=grow: the most nodes one move takes (at least 2)" },
	{ "escape-after", PL_OPT_INT, "1", "escape=grow: batches without a new best before moves grow" },
	{ NULL, 0, NULL, NULL },
};

/* The numeric options' ranges (docs/PLACETO.md). */
const struct pl_option_range pl_placeto_ranges[] = {
	{ "finetune", "[0, inf)" },
	{ "episodes", "[0, inf)" },
	{ "workers", "[1, 256]" },
	{ "groups", "[0, inf)" },
	{ "k", "[0, 64]" },
	{ "lr", "[0, 1]" },
	{ "lr-end", "[0, 1]" },
	{ "entropy", "[0, inf)" },
	{ "baseline", "[2, inf)" },
	{ "clip", "(0, inf)" },
	{ "peers", "[0, inf)" },
	{ "mem-penalty", "[0, inf)" },
	{ "max-mem", "[0, inf)" },
	{ "mem-cap", "[0, inf)" },
	{ "escape-max", "[2, inf)" },
	{ "escape-after", "[0, inf)" },
	{ NULL, NULL },
};

enum init_kind { INIT_RANDOM_FIXED, INIT_ZERO, INIT_RANDOM, INIT_BEST };

/* ---- env: one graph prepared for the MDP ------------------------------- */

struct env {
	const struct pl_problem *prob;
	int n;				/* grouped nodes */
	int *node_of;			/* n_ops */
	int *nops_off, *nops;		/* ops of node i */
	char **name;
	uint64_t *allowed;
	int *pred_off, *pred_idx, *succ_off, *succ_idx;
	struct pl_nn_csr adj[2];
	uint8_t *anc, *desc, *par;	/* n x n, row = current node */
	int *order;
	float *stat;			/* n x 3: cost, out bytes, memory */
	int *init_dev;
	int *best_dev;
	double best_R;			/* the MDP's best (init=best): by R */
	struct pl_outcome shown;	/* the best reported: fits first */
	long stall;			/* batches since best_R last improved */
	double stall_R;			/* best_R when stall was last reset */
	int bl_cap, bl_count, bl_head;	/* baseline ring */
	double *bl_ret;			/* bl_cap x n */
	int *bl_len;
};

/* A bucket of colocation groups while coarsening. */
struct bucket {
	int depth;
	int n;
	int *cg;
	long ops;
	uint64_t mask;
	int stuck;
};

/* Component L of a slash-separated path; 0 if the path is shorter. */
static int
path_comp(const char *s, int L, const char **p, int *len)
{
	for (int i = 0; i < L; i++) {
		s = strchr(s, '/');
		if (s == NULL)
			return 0;
		s++;
	}
	if (*s == '\0')
		return 0;
	const char *e = strchr(s, '/');
	*p = s;
	*len = e != NULL ? (int)(e - s) : (int)strlen(s);
	return 1;
}

struct split_item {
	const char *k;
	int len;
	int cg;
	int leaf;
};

/* Order split items: keyed by key then cg, leaves last by cg. */
static int
split_cmp(const void *a, const void *b)
{
	const struct split_item *x = a, *y = b;
	if (x->leaf != y->leaf)
		return x->leaf - y->leaf;
	if (!x->leaf) {
		int m = x->len < y->len ? x->len : y->len;
		int c = memcmp(x->k, y->k, (size_t)m);
		if (c != 0)
			return c;
		if (x->len != y->len)
			return x->len - y->len;
	}
	return x->cg - y->cg;
}

/* Scope of a colocation group: its first op's. */
static const char *
cg_scope(const struct pl_graph *g, int cg)
{
	return g->ops[g->group_ops[g->groups[cg].first]].scope;
}

/* Coarsen the colocation groups into at most max_groups buckets. */
static struct bucket *
coarsen(const struct pl_problem *p, int max_groups, int *n_out)
{
	const struct pl_graph *g = p->g;
	int nb = 0, cap = 16;
	struct bucket *b = pl_xcalloc((size_t)cap, sizeof *b);
	/* one bucket per distinct device mask: each group's, then the
	 * buckets' members (arrays of their size) */
	int *of = pl_xcalloc((size_t)(g->n_groups ? g->n_groups : 1), sizeof(int));
	for (int cg = 0; cg < g->n_groups; cg++) {
		uint64_t m = p->group_allowed[cg];
		int i;
		for (i = 0; i < nb && b[i].mask != m; i++)
			;
		if (i == nb) {
			if (nb == cap) {
				cap *= 2;
				b = pl_xreallocarray(b, (size_t)cap, sizeof *b);
			}
			b[nb++] = (struct bucket){ .mask = m };
		}
		of[cg] = i;
		b[i].n++;
	}
	for (int i = 0; i < nb; i++) {
		b[i].cg = pl_xcalloc((size_t)b[i].n, sizeof(int));
		b[i].n = 0;
	}
	for (int cg = 0; cg < g->n_groups; cg++) {
		struct bucket *bk = &b[of[cg]];
		bk->cg[bk->n++] = cg;
		bk->ops += g->groups[cg].count;
	}
	free(of);
	struct split_item *it = pl_xcalloc((size_t)g->n_groups, sizeof *it);
	for (;;) {
		int pick = -1;
		for (int i = 0; i < nb; i++)
			if (!b[i].stuck && b[i].n > 1 && (pick < 0 || b[i].ops > b[pick].ops))
				pick = i;
		if (pick < 0)
			break;
		struct bucket *bk = &b[pick];
		int nchild = 0;
		for (;;) {
			for (int j = 0; j < bk->n; j++) {
				it[j].cg = bk->cg[j];
				it[j].leaf = !path_comp(cg_scope(g, bk->cg[j]), bk->depth, &it[j].k, &it[j].len);
			}
			qsort(it, (size_t)bk->n, sizeof *it, split_cmp);
			nchild = 0;
			for (int j = 0; j < bk->n; j++)
				if (j == 0 || it[j].leaf || split_cmp(&(struct split_item){ it[j].k, it[j].len, 0, 0 },
				    &(struct split_item){ it[j - 1].k, it[j - 1].len, 0, 0 }) != 0)
					nchild++;
			if (nchild == 1 && !it[0].leaf) {
				bk->depth++;
				continue;
			}
			break;
		}
		if (nchild <= 1 || nb - 1 + nchild > max_groups) {
			bk->stuck = 1;
			continue;
		}
		/* replace the bucket by its children */
		if (nb - 1 + nchild > cap) {
			while (nb - 1 + nchild > cap)
				cap *= 2;
			b = pl_xreallocarray(b, (size_t)cap, sizeof *b);
			bk = &b[pick];
		}
		struct bucket parent = *bk;
		int cur = -1;
		for (int j = 0; j < parent.n; j++) {
			int fresh = j == 0 || it[j].leaf || split_cmp(&(struct split_item){ it[j].k, it[j].len, 0, 0 },
			    &(struct split_item){ it[j - 1].k, it[j - 1].len, 0, 0 }) != 0;
			if (fresh) {
				/* its colocation groups: the run of items with its key */
				int z = j + 1;
				while (z < parent.n && !it[j].leaf && !it[z].leaf &&
				    split_cmp(&(struct split_item){ it[z].k, it[z].len, 0, 0 },
				    &(struct split_item){ it[j].k, it[j].len, 0, 0 }) == 0)
					z++;
				cur = cur < 0 ? pick : nb++;
				b[cur] = (struct bucket){ .depth = parent.depth + 1, .mask = parent.mask,
				    .cg = pl_xcalloc((size_t)(z - j), sizeof(int)), .stuck = it[j].leaf };
			}
			b[cur].cg[b[cur].n++] = it[j].cg;
			b[cur].ops += g->groups[it[j].cg].count;
		}
		free(parent.cg);
	}
	free(it);
	*n_out = nb;
	return b;
}

/* Order node ids by key (ctx: the key array). */
static int
key_cmp(const void *a, const void *b, void *ctx)
{
	const int *key = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	if (key[x] != key[y])
		return key[x] < key[y] ? -1 : 1;
	return x - y;
}

/*
 * CSR rows by dst of the edges (src[i], dst[i]), each row sorted and
 * without duplicates; returns the kept entry count.  O(n + m), however
 * many edges share a row: the edges are bucketed by src, then appended to
 * their rows in increasing src, so each row comes out sorted and a
 * duplicate is always the row's last entry.
 */
static int
csr_build(int n, int m, const int *src, const int *dst, int **off_out, int **idx_out)
{
	/* the edges bucketed by src (a counting sort) */
	int *soff = pl_xcalloc((size_t)n + 1, sizeof *soff);
	int *by_src = pl_xcalloc((size_t)(m ? m : 1), sizeof *by_src);
	for (int i = 0; i < m; i++)
		soff[src[i] + 1]++;
	for (int v = 0; v < n; v++)
		soff[v + 1] += soff[v];
	int *fill = pl_xcalloc((size_t)n + 1, sizeof *fill);
	for (int i = 0; i < m; i++)
		by_src[soff[src[i]] + fill[src[i]]++] = i;
	/* rows by dst, room for every edge; filled in increasing src */
	int *off = pl_xcalloc((size_t)n + 1, sizeof *off);
	int *idx = pl_xcalloc((size_t)(m ? m : 1), sizeof *idx);
	for (int i = 0; i < m; i++)
		off[dst[i] + 1]++;
	for (int v = 0; v < n; v++)
		off[v + 1] += off[v];
	memset(fill, 0, ((size_t)n + 1) * sizeof *fill);
	for (int q = 0; q < m; q++) {
		int i = by_src[q], v = dst[i];
		if (fill[v] == 0 || idx[off[v] + fill[v] - 1] != src[i])
			idx[off[v] + fill[v]++] = src[i];
	}
	/* compact the rows (an entry only ever moves down) */
	int w = 0;
	int *noff = pl_xcalloc((size_t)n + 1, sizeof *noff);
	for (int v = 0; v < n; v++) {
		noff[v] = w;
		for (int q = 0; q < fill[v]; q++)
			idx[w++] = idx[off[v] + q];
	}
	noff[n] = w;
	free(soff);
	free(by_src);
	free(off);
	free(fill);
	*off_out = noff;
	*idx_out = idx;
	return w;
}

/*
 * The grouped graph's topological order (the reference visits its nodes
 * in one): perm[i] is the i-th node, ready nodes taken by key (their
 * first op's topological position).  Colocation can close cycles, which
 * have no topological order: then the strongly connected components go in
 * topological order, each one's nodes by key.
 */
static void
grouped_topo_order(int n, const int *key, int m, const int *src, const int *dst, int *perm)
{
	int *off, *idx;
	csr_build(n, m, dst, src, &off, &idx);	/* successors */
	int *index = pl_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	int *low = pl_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	int *it = pl_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	int *comp = pl_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	int *st = pl_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	int *cs = pl_xmalloc(sizeof(int) * (size_t)(n ? n : 1));
	uint8_t *on = pl_xcalloc((size_t)(n ? n : 1), 1);
	for (int v = 0; v < n; v++)
		index[v] = -1;
	int counter = 0, sp = 0, nc = 0;
	/* Tarjan's strongly connected components, without recursion */
	for (int r = 0; r < n; r++) {
		if (index[r] >= 0)
			continue;
		int top = 0;
		cs[top++] = r;
		index[r] = low[r] = counter++;
		it[r] = off[r];
		st[sp++] = r;
		on[r] = 1;
		while (top > 0) {
			int v = cs[top - 1];
			if (it[v] < off[v + 1]) {
				int w = idx[it[v]++];
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					it[w] = off[w];
					st[sp++] = w;
					on[w] = 1;
					cs[top++] = w;
				} else if (on[w] && index[w] < low[v])
					low[v] = index[w];
				continue;
			}
			top--;
			if (low[v] == index[v]) {
				int w;
				do {
					w = st[--sp];
					on[w] = 0;
					comp[w] = nc;
				} while (w != v);
				nc++;
			}
			if (top > 0 && low[v] < low[cs[top - 1]])
				low[cs[top - 1]] = low[v];
		}
	}
	/* components: their smallest key, members, and edges between them */
	int *ckey = low, *indeg = index, *moff = it;	/* reused */
	for (int c = 0; c < nc; c++) {
		ckey[c] = INT_MAX;
		indeg[c] = 0;
		moff[c] = 0;
	}
	int *mem_off = pl_xcalloc((size_t)nc + 1, sizeof(int));
	for (int v = 0; v < n; v++) {
		if (key[v] < ckey[comp[v]])
			ckey[comp[v]] = key[v];
		mem_off[comp[v] + 1]++;
		for (int q = off[v]; q < off[v + 1]; q++)
			if (comp[idx[q]] != comp[v])
				indeg[comp[idx[q]]]++;
	}
	for (int c = 0; c < nc; c++)
		mem_off[c + 1] += mem_off[c];
	int *mem = st;	/* reused: members by component */
	for (int v = 0; v < n; v++)
		mem[mem_off[comp[v]] + moff[comp[v]]++] = v;
	for (int c = 0; c < nc; c++)
		qsort_r(mem + mem_off[c], (size_t)(mem_off[c + 1] - mem_off[c]), sizeof(int),
		    key_cmp, (void *)key);
	int *heap = cs, hn = 0, w = 0;	/* reused */
	for (int c = 0; c < nc; c++)
		if (indeg[c] == 0)
			pl_iheap_push(heap, &hn, ckey, c);
	while (hn > 0) {
		int c = pl_iheap_pop(heap, &hn, ckey);
		for (int i = mem_off[c]; i < mem_off[c + 1]; i++) {
			int v = mem[i];
			perm[w++] = v;
			for (int q = off[v]; q < off[v + 1]; q++) {
				int d = comp[idx[q]];
				if (d != c && --indeg[d] == 0)
					pl_iheap_push(heap, &hn, ckey, d);
			}
		}
	}
	free(mem_off);
	free(on);
	free(cs);
	free(st);
	free(comp);
	free(it);
	free(low);
	free(index);
	free(off);
	free(idx);
}

/* Free an env. */
static void
env_free(struct env *e)
{
	free(e->node_of);
	free(e->nops_off);
	free(e->nops);
	for (int i = 0; i < e->n; i++)
		free(e->name[i]);
	free(e->name);
	free(e->allowed);
	free(e->pred_off);
	free(e->pred_idx);
	free(e->succ_off);
	free(e->succ_idx);
	free(e->anc);
	free(e->desc);
	free(e->par);
	free(e->order);
	free(e->stat);
	free(e->init_dev);
	free(e->best_dev);
	free(e->bl_ret);
	free(e->bl_len);
}

/* A random allowed device of a mask. */
static int
random_dev(struct pl_rng *r, uint64_t mask, int n_dev)
{
	int cnt = 0;
	for (int d = 0; d < n_dev; d++)
		cnt += (mask >> d) & 1;
	int k = (int)pl_rng_below(r, (uint64_t)(cnt > 0 ? cnt : 1));
	for (int d = 0; d < n_dev; d++)
		if ((mask >> d) & 1 && k-- == 0)
			return d;
	return 0;
}

/* First allowed device of a mask. */
static int
first_dev(uint64_t mask)
{
	for (int d = 0; d < 64; d++)
		if ((mask >> d) & 1)
			return d;
	return 0;
}

/*
 * Prepare a graph for the MDP from its coarsening b (nb buckets, freed
 * here).  forward_only: the grouped graph keeps only
 * the edges that go forward in the groups' topological order, an acyclic
 * view (colocating backward ops with their forward ops makes the grouped
 * graph of a training step one big cycle, in which every group is
 * "parallel" to every other and no group has ancestors or descendants).
 */
static void
env_init(struct env *e, const struct pl_problem *p, struct bucket *b, int nb,
    int random_order, int forward_only, int baseline, uint64_t seed)
{
	const struct pl_graph *g = p->g;
	memset(e, 0, sizeof *e);
	e->prob = p;
	/* each bucket's first op in topological order */
	e->n = nb;
	e->node_of = pl_xcalloc((size_t)g->n_ops, sizeof(int));
	int *key = pl_xcalloc((size_t)nb, sizeof(int));
	for (int i = 0; i < nb; i++) {
		int m = INT32_MAX;
		for (int j = 0; j < b[i].n; j++) {
			const struct pl_group *gr = &g->groups[b[i].cg[j]];
			for (int q = 0; q < gr->count; q++) {
				int t = g->topo_pos[g->group_ops[gr->first + q]];
				if (t < m)
					m = t;
			}
		}
		key[i] = m;
	}
	/* number the nodes in a topological order of the grouped graph */
	int *bof = pl_xcalloc((size_t)(g->n_ops ? g->n_ops : 1), sizeof(int));
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < b[i].n; j++) {
			const struct pl_group *gr = &g->groups[b[i].cg[j]];
			for (int q = 0; q < gr->count; q++)
				bof[g->group_ops[gr->first + q]] = i;
		}
	int *bsrc = pl_xcalloc((size_t)(g->n_edges ? g->n_edges : 1), sizeof(int));
	int *bdst = pl_xcalloc((size_t)(g->n_edges ? g->n_edges : 1), sizeof(int));
	int bm = 0;
	for (int i = 0; i < g->n_edges; i++) {
		int a = bof[g->edges[i].src], z = bof[g->edges[i].dst];
		if (a != z) {
			bsrc[bm] = a;
			bdst[bm++] = z;
		}
	}
	int *perm = pl_xcalloc((size_t)nb, sizeof(int));
	grouped_topo_order(nb, key, bm, bsrc, bdst, perm);
	free(bof);
	e->nops_off = pl_xcalloc((size_t)nb + 1, sizeof(int));
	e->nops = pl_xcalloc((size_t)(g->n_ops ? g->n_ops : 1), sizeof(int));
	e->name = pl_xcalloc((size_t)nb, sizeof(char *));
	e->allowed = pl_xcalloc((size_t)nb, sizeof(uint64_t));
	int w = 0;
	for (int v = 0; v < nb; v++) {
		struct bucket *bk = &b[perm[v]];
		e->nops_off[v] = w;
		e->allowed[v] = bk->mask;
		for (int j = 0; j < bk->n; j++) {
			const struct pl_group *gr = &g->groups[bk->cg[j]];
			for (int q = 0; q < gr->count; q++) {
				int op = g->group_ops[gr->first + q];
				e->nops[w++] = op;
				e->node_of[op] = v;
			}
		}
		/* name: the common scope prefix, or the single group's name */
		if (bk->n == 1 && bk->stuck && g->groups[bk->cg[0]].name != NULL)
			e->name[v] = pl_xstrdup(g->groups[bk->cg[0]].name);
		else if (bk->n == 1)
			e->name[v] = pl_xstrdup(g->ops[g->group_ops[g->groups[bk->cg[0]].first]].name);
		else {
			const char *s = cg_scope(g, bk->cg[0]), *q = s;
			for (int L = 0; L < bk->depth && q != NULL; L++) {
				q = strchr(q, '/');
				if (q != NULL && L + 1 < bk->depth)
					q++;
			}
			size_t len = q != NULL ? (size_t)(q - s) : strlen(s);
			e->name[v] = len > 0 ? pl_xstrndup(s, len) : pl_xasprintf("(%d groups)", bk->n);
		}
	}
	e->nops_off[nb] = w;
	for (int i = 0; i < nb; i++)
		free(b[i].cg);
	free(b);
	free(key);
	free(perm);
	/* grouped edges, in edge order, by node (in the buckets' arrays) */
	int m = 0;
	for (int i = 0; i < g->n_edges; i++) {
		int a = e->node_of[g->edges[i].src], z = e->node_of[g->edges[i].dst];
		if (a != z && (!forward_only || a < z)) {
			bsrc[m] = a;
			bdst[m] = z;
			m++;
		}
	}
	csr_build(nb, m, bsrc, bdst, &e->pred_off, &e->pred_idx);
	csr_build(nb, m, bdst, bsrc, &e->succ_off, &e->succ_idx);
	free(bsrc);
	free(bdst);
	e->adj[0] = (struct pl_nn_csr){ nb, e->pred_off, e->pred_idx };
	e->adj[1] = (struct pl_nn_csr){ nb, e->succ_off, e->succ_idx };
	/* reachability: desc[c][v] = v reachable from c */
	size_t nn = (size_t)nb * (size_t)nb;
	e->anc = pl_xcalloc(nn ? nn : 1, 1);
	e->desc = pl_xcalloc(nn ? nn : 1, 1);
	e->par = pl_xcalloc(nn ? nn : 1, 1);
	int *stack = pl_xcalloc((size_t)nb + 1, sizeof(int));
	for (int c = 0; c < nb; c++) {
		uint8_t *row = e->desc + (size_t)c * nb;
		int sp = 0;
		stack[sp++] = c;
		while (sp > 0) {
			int u = stack[--sp];
			for (int q = e->succ_off[u]; q < e->succ_off[u + 1]; q++) {
				int v = e->succ_idx[q];
				if (!row[v]) {
					row[v] = 1;
					stack[sp++] = v;
				}
			}
		}
	}
	free(stack);
	/* as the reference: a node on a cycle with c (colocation can make
	 * cycles) is both an ancestor and a descendant; parallel nodes are
	 * neither */
	for (int c = 0; c < nb; c++)
		e->desc[(size_t)c * nb + c] = 0;
	for (int c = 0; c < nb; c++)
		for (int v = 0; v < nb; v++) {
			int down = e->desc[(size_t)c * nb + v], up = e->desc[(size_t)v * nb + c];
			e->anc[(size_t)c * nb + v] = up && v != c;
			e->par[(size_t)c * nb + v] = v != c && !up && !down;
		}
	/* visit order */
	e->order = pl_xcalloc((size_t)nb, sizeof(int));
	for (int v = 0; v < nb; v++)
		e->order[v] = v;	/* nodes are numbered in topological order */
	struct pl_rng r;
	pl_rng_stream(&r, seed, 0x6f72646572ULL);
	if (random_order)
		pl_rng_shuffle(&r, e->order, nb);
	/* static features, normalised by the column maximum */
	e->stat = pl_xcalloc((size_t)nb * 3, sizeof(float));
	double mx[3] = { 0, 0, 0 };
	double *raw = pl_xcalloc((size_t)nb * 3, sizeof(double));
	for (int v = 0; v < nb; v++) {
		for (int q = e->nops_off[v]; q < e->nops_off[v + 1]; q++) {
			int op = e->nops[q];
			raw[v * 3 + 0] += pl_problem_op_min_us(p, op);
			raw[v * 3 + 1] += (double)g->ops[op].out_bytes;
			raw[v * 3 + 2] += (double)g->ops[op].out_bytes + (double)g->ops[op].param_bytes;
		}
		for (int j = 0; j < 3; j++)
			if (raw[v * 3 + j] > mx[j])
				mx[j] = raw[v * 3 + j];
	}
	for (int v = 0; v < nb; v++)
		for (int j = 0; j < 3; j++)
			e->stat[v * 3 + j] = mx[j] > 0 ? (float)(raw[v * 3 + j] / mx[j]) : 0.0f;
	free(raw);
	/* the fixed random initial placement */
	e->init_dev = pl_xcalloc((size_t)nb, sizeof(int));
	pl_rng_stream(&r, seed, 0x696e6974ULL);
	for (int v = 0; v < nb; v++)
		e->init_dev[v] = random_dev(&r, e->allowed[v], p->n_dev);
	e->best_dev = pl_xcalloc((size_t)nb, sizeof(int));
	memcpy(e->best_dev, e->init_dev, (size_t)nb * sizeof(int));
	e->best_R = INFINITY;
	e->shown = PL_OUTCOME_NONE;
	e->stall_R = INFINITY;
	e->bl_cap = baseline > 0 ? baseline : 0;
	e->bl_ret = pl_xcalloc((size_t)(e->bl_cap ? e->bl_cap : 1) * (size_t)(nb ? nb : 1), sizeof(double));
	e->bl_len = pl_xcalloc((size_t)(e->bl_cap ? e->bl_cap : 1), sizeof(int));
}

/* Baseline at step t: mean return at t over the recorded episodes. */
static double
env_baseline(const struct env *e, int t)
{
	double s = 0;
	int c = 0;
	for (int i = 0; i < e->bl_count; i++)
		if (e->bl_len[i] > t) {
			s += e->bl_ret[(size_t)i * e->n + t];
			c++;
		}
	return c > 0 ? s / c : 0.0;
}

/* Record an episode's returns in the baseline ring. */
static void
env_push_returns(struct env *e, const double *ret, int len)
{
	if (e->bl_cap == 0)
		return;
	int slot = e->bl_head;
	memcpy(e->bl_ret + (size_t)slot * e->n, ret, (size_t)len * sizeof(double));
	e->bl_len[slot] = len;
	e->bl_head = (e->bl_head + 1) % e->bl_cap;
	if (e->bl_count < e->bl_cap)
		e->bl_count++;
}

/* ---- episodes and the engine ------------------------------------------ */

struct episode {
	int active, finished;
	int env_i;
	long id;
	int greedy;
	struct pl_rng rng;
	int t;
	int *dev, *done;
	double *start, *start_prev;
	struct pl_placement *pl;
	struct pl_sim_ws *sws;		/* lean simulator of env sws_env */
	int sws_env;
	struct pl_sim_result res;
	double R, R_init, init_us;
	struct pl_outcome best;		/* within the episode, fits first */
	float *x0s;			/* steps x n x d */
	uint8_t *pars;			/* steps x n (peers > 0) */
	int *act;
	double *rew, *ret;
	double ent_sum;
	struct pl_placeto_decision *dec;
	float *gw;
	struct pl_policy_ws *pws;
	char *err;
	int offered;			/* placements not yet offered */
	int reach;			/* escape=grow: most nodes one move takes */
	int *moved, n_moved;		/* nodes the current decision moved */
	uint8_t *seen;			/* n: scratch of the connected search */
};

struct engine {
	int n_env;
	struct env *envs;
	int max_n;
	struct pl_run_opts run;
	struct pl_sim_opts sim;
	struct pl_policy *pol;
	struct pl_nn_adam adam;
	float *gsum;
	int workers;
	struct episode *eps;
	struct pl_pool *pool;
	int d, n_dev, memf, peers, groups;
	double lr, lr_end, c_ent, clip, penalty, max_mem, mem_cap;
	int rel_reward, init_kind;
	int start_absmax;		/* start-norm=absmax */
	int accept_improve;		/* undo moves that do not lower R */
	int sched_rank;			/* prioritise by upward rank */
	int grow;			/* escape=grow */
	int escape_max, escape_after;
	long budget;			/* training episodes for the LR schedule */
	long next_id;			/* next episode number */
	struct pl_placeto_stats st;
	struct pl_outcome best;		/* st.best_us's: fits first */
	char **feat_names;
	char *err;			/* training stopped: why */
};

/* R of a simulated result: seconds; with a penalty, plus the penalty for
 * memory above max-mem, the sum capped at mem-cap (as the reference). */
static double
engine_R(const struct engine *E, const struct pl_sim_result *r)
{
	double R = r->makespan_us * 1e-6;
	if (E->penalty > 0) {
		double over = (double)r->peak_max / 1e9 - E->max_mem;
		R += E->penalty * (over > 0 ? over : 0);
		if (R > E->mem_cap)
			R = E->mem_cap;
	}
	return R;
}

/* Priorities of an op placement: its upward rank under those devices. */
static void
placement_rank(const struct pl_problem *p, struct pl_placement *pl)
{
	const struct pl_graph *g = p->g;
	pl_placement_ensure_prio(pl);
	for (int i = g->n_ops - 1; i >= 0; i--) {
		int v = g->topo[i];
		double tail = 0;
		for (int j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			const struct pl_edge *ed = &g->edges[g->out_edge[j]];
			double c = pl_problem_xfer_us(p, pl->dev[v], pl->dev[ed->dst],
			    g->tensors[ed->tensor].bytes) + pl->prio[ed->dst];
			if (c > tail)
				tail = c;
		}
		pl->prio[v] = pl_problem_op_us(p, v, pl->dev[v]) + tail;
	}
}

/* Simulate an episode's placement; fills res, R and group start times. */
static int
episode_simulate(struct engine *E, struct episode *ep)
{
	struct env *e = &E->envs[ep->env_i];
	const struct pl_graph *g = e->prob->g;
	for (int op = 0; op < g->n_ops; op++)
		ep->pl->dev[op] = ep->dev[e->node_of[op]];
	if (E->sched_rank)
		placement_rank(e->prob, ep->pl);
	if (ep->sws == NULL || ep->sws_env != ep->env_i) {
		pl_sim_ws_free(ep->sws);
		ep->sws = pl_sim_ws_new(e->prob);
		ep->sws_env = ep->env_i;
	}
	if (pl_sim_eval(ep->sws, ep->pl, &E->sim, &ep->res) != 0) {
		free(ep->err);
		ep->err = pl_xasprintf("graph '%s': simulation did not complete (a cycle?)",
		    g->name);
		return -1;
	}
	const double *st = pl_sim_ws_starts(ep->sws);
	for (int v = 0; v < e->n; v++) {
		double s = INFINITY;
		for (int q = e->nops_off[v]; q < e->nops_off[v + 1]; q++)
			if (st[e->nops[q]] < s)
				s = st[e->nops[q]];
		ep->start[v] = isfinite(s) ? s : 0.0;
	}
	ep->R = engine_R(E, &ep->res);
	ep->offered++;
	if (pl_outcome_better(pl_outcome_of(&ep->res), ep->best))
		ep->best = pl_outcome_of(&ep->res);
	return 0;
}

/*
 * escape=grow: how many nodes a move of slot s takes.  1 until the env's
 * best has not improved for escape-after batches; then 2, 4, ...,
 * escape-max in turn, one more doubling per stalled batch, slot s shifted
 * by s doublings so that parallel episodes try different sizes.
 */
static int
episode_reach(const struct engine *E, const struct env *e, int s)
{
	if (!E->grow || e->stall < E->escape_after)
		return 1;
	int levels = 0;
	while ((2L << levels) <= E->escape_max)
		levels++;
	long k = (e->stall - E->escape_after + s) % levels;
	return 2 << k;
}

/*
 * The nodes a move of cur from device `from` to `to` takes: cur, then
 * breadth first over grouped edges (predecessors, then successors, in
 * index order) the nodes on `from` that may run on `to`, at most
 * ep->reach in all.  Fills ep->moved.
 */
static void
episode_take(const struct engine *E, struct episode *ep, int cur, int from, int to)
{
	const struct env *e = &E->envs[ep->env_i];
	ep->n_moved = 0;
	ep->moved[ep->n_moved++] = cur;
	if (ep->reach <= 1 || from == to)
		return;
	memset(ep->seen, 0, (size_t)e->n);
	ep->seen[cur] = 1;
	for (int h = 0; h < ep->n_moved && ep->n_moved < ep->reach; h++) {
		int u = ep->moved[h];
		for (int dir = 0; dir < 2; dir++) {
			const int *off = dir ? e->succ_off : e->pred_off;
			const int *idx = dir ? e->succ_idx : e->pred_idx;
			for (int q = off[u]; q < off[u + 1] && ep->n_moved < ep->reach; q++) {
				int w = idx[q];
				if (!ep->seen[w] && ep->dev[w] == from && ((e->allowed[w] >> to) & 1)) {
					ep->seen[w] = 1;
					ep->moved[ep->n_moved++] = w;
				}
			}
		}
	}
}

/* Start an episode in slot s on env env_i. */
static int
episode_start(struct engine *E, int s, int env_i, int greedy)
{
	struct episode *ep = &E->eps[s];
	struct env *e = &E->envs[env_i];
	ep->active = 1;
	ep->finished = 0;
	ep->env_i = env_i;
	ep->id = E->next_id++;
	ep->greedy = greedy;
	pl_rng_stream(&ep->rng, E->run.seed, 0x1000 + (uint64_t)ep->id);
	ep->t = 0;
	ep->ent_sum = 0;
	ep->best = PL_OUTCOME_NONE;
	ep->offered = 0;
	if (ep->pl == NULL || ep->pl->n_ops != e->prob->n_ops) {
		pl_placement_free(ep->pl);
		ep->pl = pl_placement_new(e->prob->n_ops, e->prob->n_dev);
	}
	for (int v = 0; v < e->n; v++) {
		switch (E->init_kind) {
		case INIT_ZERO:
			ep->dev[v] = first_dev(e->allowed[v]);
			break;
		case INIT_RANDOM:
			ep->dev[v] = random_dev(&ep->rng, e->allowed[v], E->n_dev);
			break;
		case INIT_BEST:
			ep->dev[v] = e->best_dev[v];
			break;
		default:
			ep->dev[v] = e->init_dev[v];
			break;
		}
		ep->done[v] = 0;
	}
	ep->reach = greedy ? 1 : episode_reach(E, e, s);
	if (episode_simulate(E, ep) != 0)
		return -1;
	ep->R_init = ep->R;
	ep->init_us = ep->res.makespan_us;
	return 0;
}

/* Column-normalised feature matrix for node cur into x (n x d). */
static void
episode_features(const struct engine *E, const struct episode *ep, int cur, float *x)
{
	const struct env *e = &E->envs[ep->env_i];
	int d = E->d, n = e->n;
	/* start offsets from cur, divided by their maximum (the reference;
	 * it is >= 0, cur's own offset being 0, and 0 leaves them as they
	 * are) or by the largest |offset| (start-norm=absmax) */
	double mx = 0;
	for (int v = 0; v < n; v++) {
		double a = ep->start[v] - ep->start[cur];
		if (E->start_absmax)
			a = fabs(a);
		if (a > mx)
			mx = a;
	}
	for (int v = 0; v < n; v++) {
		float *row = x + (size_t)v * d;
		memset(row, 0, (size_t)d * sizeof *row);
		row[0] = e->stat[v * 3 + 0];
		row[1] = e->stat[v * 3 + 1];
		row[2] = (float)ep->done[v];
		row[3] = v == cur ? 1.0f : 0.0f;
		row[4] = (float)(mx > 0 ? (ep->start[v] - ep->start[cur]) / mx :
		    ep->start[v] - ep->start[cur]);
		int j = 5;
		if (E->memf)
			row[j++] = e->stat[v * 3 + 2];
		row[j + ep->dev[v]] = 1.0f;
	}
}

/* The parallel set of cur, restricted to the `peers` closest in start time. */
static void
episode_peers(const struct engine *E, const struct episode *ep, int cur, uint8_t *mask)
{
	const struct env *e = &E->envs[ep->env_i];
	int n = e->n;
	memcpy(mask, e->par + (size_t)cur * n, (size_t)n);
	if (E->peers <= 0)
		return;
	int cnt = 0;
	for (int v = 0; v < n; v++)
		cnt += mask[v];
	while (cnt > E->peers) {
		int far = -1;
		double fd = -1;
		for (int v = 0; v < n; v++) {
			if (!mask[v])
				continue;
			double dd = fabs(ep->start[v] - ep->start[cur]);
			if (dd >= fd) {
				fd = dd;
				far = v;
			}
		}
		mask[far] = 0;
		cnt--;
	}
}

/* The policy inputs of step t of an episode. */
static void
episode_input(const struct engine *E, struct episode *ep, int t, struct pl_policy_in *in,
    uint8_t *allowed)
{
	const struct env *e = &E->envs[ep->env_i];
	int n = e->n, cur = e->order[t];
	for (int dv = 0; dv < E->n_dev; dv++)
		allowed[dv] = (uint8_t)((e->allowed[cur] >> dv) & 1);
	*in = (struct pl_policy_in){
		.n = n, .x0 = ep->x0s + (size_t)t * n * E->d,
		.adj = { &e->adj[0], &e->adj[1] }, .cur = cur,
		.set = { e->anc + (size_t)cur * n, e->desc + (size_t)cur * n,
		    E->peers > 0 ? ep->pars + (size_t)t * n : e->par + (size_t)cur * n },
		.allowed = allowed,
	};
}

/* One MDP decision of an episode (runs on a worker thread). */
static void
episode_decide(struct engine *E, struct episode *ep)
{
	struct env *e = &E->envs[ep->env_i];
	int t = ep->t, n = e->n, cur = e->order[t];
	episode_features(E, ep, cur, ep->x0s + (size_t)t * n * E->d);
	if (E->peers > 0)
		episode_peers(E, ep, cur, ep->pars + (size_t)t * n);
	struct pl_policy_in in;
	uint8_t allowed[PL_MAX_DEVICES];
	episode_input(E, ep, t, &in, allowed);
	float logits[PL_MAX_DEVICES], probs[PL_MAX_DEVICES];
	pl_policy_forward(E->pol, E->pol->m->w, &in, ep->pws, logits, probs);
	if (!pl_nn_logits_finite(E->n_dev, logits, allowed) && ep->err == NULL)
		/* (the step still picks an allowed device, and fails) */
		ep->err = pl_xasprintf("the policy's outputs are not finite numbers (episode %ld): its "
		    "weights have grown too large (train with a lower --lr)", ep->id);
	int a = ep->greedy ? pl_nn_argmax(E->n_dev, probs)
	    : pl_nn_sample(E->n_dev, probs, pl_rng_uniform(&ep->rng));
	struct pl_placeto_decision *dc = &ep->dec[t];
	memset(dc, 0, sizeof *dc);
	dc->episode = ep->id;
	dc->t = t;
	dc->greedy = ep->greedy;
	dc->group = cur;
	dc->n_feat = E->d;
	memcpy(dc->feat, in.x0 + (size_t)cur * E->d, (size_t)E->d * sizeof(float));
	dc->n_dev = E->n_dev;
	dc->allowed = e->allowed[cur];
	memcpy(dc->probs, probs, (size_t)E->n_dev * sizeof(float));
	dc->prev_dev = ep->dev[cur];
	dc->action = a;
	dc->before_us = ep->res.makespan_us;
	dc->before_s = ep->R;
	dc->entropy = pl_nn_entropy_nats(E->n_dev, probs);
	ep->ent_sum += dc->entropy;
	ep->act[t] = a;
	episode_take(E, ep, cur, dc->prev_dev, a);
	for (int i = 0; i < ep->n_moved; i++)
		ep->dev[ep->moved[i]] = a;
	dc->moved = a != dc->prev_dev ? ep->n_moved : 0;
	ep->done[cur]++;
	double before = ep->R;
	struct pl_sim_result before_res = ep->res;
	if (E->accept_improve)
		memcpy(ep->start_prev, ep->start, (size_t)n * sizeof *ep->start);
	if (episode_simulate(E, ep) != 0) {
		ep->active = 0;
		return;
	}
	dc->tried_us = ep->res.makespan_us;
	if (E->accept_improve && a != dc->prev_dev && !(ep->R < before)) {
		/* the state goes back to before the move (same simulation) */
		dc->undone = 1;
		for (int i = 0; i < ep->n_moved; i++) {
			int v = ep->moved[i];
			ep->dev[v] = dc->prev_dev;
			for (int q = e->nops_off[v]; q < e->nops_off[v + 1]; q++)
				ep->pl->dev[e->nops[q]] = dc->prev_dev;
		}
		if (E->sched_rank)
			placement_rank(e->prob, ep->pl);
		ep->R = before;
		ep->res = before_res;
		memcpy(ep->start, ep->start_prev, (size_t)n * sizeof *ep->start);
	}
	dc->after_us = ep->res.makespan_us;
	dc->after_s = ep->R;
	double r = before - ep->R;
	if (E->rel_reward)
		r = ep->R_init > 0 ? r / ep->R_init : 0.0;
	ep->rew[t] = r;
	dc->reward = r;
	dc->ret = (t > 0 ? ep->dec[t - 1].ret : 0.0) + r;
	ep->t++;
	if (ep->t >= n) {
		ep->active = 0;
		ep->finished = 1;
	}
}

/* Gradient of an episode's REINFORCE loss into its gw (worker thread). */
static void
episode_backward(struct engine *E, struct episode *ep)
{
	struct env *e = &E->envs[ep->env_i];
	int T = ep->t;
	memset(ep->gw, 0, E->pol->m->n_params * sizeof(float));
	for (int t = 0; t < T; t++) {
		double adv = ep->ret[t] - env_baseline(e, t);
		struct pl_policy_in in;
		uint8_t allowed[PL_MAX_DEVICES];
		episode_input(E, ep, t, &in, allowed);
		float logits[PL_MAX_DEVICES], probs[PL_MAX_DEVICES], dl[PL_MAX_DEVICES];
		pl_policy_forward(E->pol, E->pol->m->w, &in, ep->pws, logits, probs);
		memset(dl, 0, sizeof dl);
		/* loss = -adv log p(a) - c H(p) */
		pl_nn_softmax_backward(E->n_dev, probs, ep->act[t], -adv, -E->c_ent, dl);
		pl_policy_backward(E->pol, E->pol->m->w, ep->gw, &in, ep->pws, dl);
	}
}

struct pool_ctx {
	struct engine *E;
	int backward;
};

/* Worker body: one decision or one backward pass for slot i. */
static void
engine_worker(void *vctx, int i, int worker)
{
	struct pool_ctx *c = vctx;
	struct episode *ep = &c->E->eps[i];
	(void)worker;
	if (c->backward) {
		if (ep->finished && !ep->greedy)
			episode_backward(c->E, ep);
	} else if (ep->active)
		episode_decide(c->E, ep);
}

/* Parse an option value into an enum index; -1 + cause if unknown. */
static int
parse_choice(const char *name, const char *v, const char *const *choices, char **cause)
{
	for (int i = 0; choices[i] != NULL; i++)
		if (strcmp(v, choices[i]) == 0)
			return i;
	*cause = pl_xasprintf("placeto: option '%s': unknown value '%s'", name, v);
	return -1;
}

/* Free the engine. */
static void
engine_free(struct engine *E)
{
	if (E == NULL)
		return;
	for (int i = 0; i < E->n_env; i++)
		env_free(&E->envs[i]);
	free(E->envs);
	for (int s = 0; s < E->workers; s++) {
		struct episode *ep = &E->eps[s];
		free(ep->dev);
		free(ep->done);
		free(ep->start);
		free(ep->start_prev);
		pl_placement_free(ep->pl);
		pl_sim_ws_free(ep->sws);
		free(ep->x0s);
		free(ep->pars);
		free(ep->act);
		free(ep->rew);
		free(ep->ret);
		free(ep->dec);
		free(ep->moved);
		free(ep->seen);
		free(ep->gw);
		pl_policy_ws_free(ep->pws);
		free(ep->err);
	}
	free(E->eps);
	if (E->feat_names != NULL)
		for (int j = 0; j < E->d; j++)
			free(E->feat_names[j]);
	free(E->feat_names);
	free(E->err);
	pl_policy_free(E->pol);
	pl_nn_adam_free(&E->adam);
	free(E->gsum);
	pl_pool_free(E->pool);
	free(E);
}

/* The mem-feature a policy file was trained with (its features' count
 * depends on it, so the engine is built for it): 0 or 1, or -1 + *cause. */
static int
policy_mem_feature(const char *path, char **cause)
{
	char *meta = NULL;
	struct pl_policy *p = pl_policy_load(path, &meta, cause);
	if (p == NULL)
		return -1;
	int memf = pl_placeto_policy_check(p, meta, path, cause);
	pl_policy_free(p);
	free(meta);
	return memf;
}

/* The most the engine's allocations that grow as the square of the
 * grouped nodes may take, all graphs and workers together. */
#define MAX_SQUARE_BYTES ((size_t)2 << 30)
/* The most the baselines' rings of returns may take, all graphs
 * together. */
#define MAX_BASELINE_BYTES ((size_t)1 << 30)

/*
 * Bytes of the engine's allocations that grow as the square of the
 * grouped nodes, for graphs whose node counts squared sum to sum_sq, the
 * largest max_n: each graph's three node x node relation matrices
 * (ancestors, descendants, parallel nodes; bytes), and each worker's
 * episode of up to max_n steps, whose states are max_n x d floats a step
 * (and with peers, a parallel set of max_n bytes a step).  In double: it
 * may not fit an integer.
 */
static double
square_bytes(double sum_sq, int max_n, int workers, int d, int peers)
{
	double mn = (double)max_n;
	return 3.0 * sum_sq + (double)workers * mn * mn * ((double)d * sizeof(float) + (peers > 0));
}

/* Free the grouped nodes of n graphs (bk[i], nb[i] of them) and the
 * arrays, for an engine refused before they were handed over. */
static void
free_buckets(struct bucket **bk, int *nb, int n)
{
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < nb[i]; j++)
			free(bk[i][j].cg);
		free(bk[i]);
	}
	free(bk);
	free(nb);
}

/* The largest groups value whose nodes fit MAX_SQUARE_BYTES on n_env
 * graphs (each at most that many nodes). */
static int
square_fit(int n_env, int workers, int d, int peers)
{
	int g = (int)sqrt((double)MAX_SQUARE_BYTES / square_bytes(n_env, 1, workers, d, peers));
	while (g > 1 && square_bytes((double)n_env * g * g, g, workers, d, peers) >
	    (double)MAX_SQUARE_BYTES)
		g--;
	while (square_bytes((double)n_env * (g + 1.0) * (g + 1.0), g + 1, workers, d, peers) <=
	    (double)MAX_SQUARE_BYTES)
		g++;
	return g;
}

/* Build the engine over n problems with options o. */
static struct engine *
engine_new(const struct pl_problem *const *probs, int n, const struct pl_options *o,
    const struct pl_run_opts *run, char **cause)
{
	static const char *const inits[] = { "random-fixed", "zero", "random", "best", NULL };
	static const char *const orders[] = { "topo", "random-fixed", NULL };
	static const char *const pools[] = { "sum", "mean", NULL };
	static const char *const rewards[] = { "seconds", "relative", NULL };
	struct engine *E = pl_xcalloc(1, sizeof *E);
	E->run = *run;
	if (E->run.threads < 1)
		E->run.threads = 1;
	E->sim = run->sim;
	const char *simv = pl_opt_str(o, "sim");
	if (strcmp(simv, "run") != 0 && *simv) {
		int k = pl_sim_kind_parse(simv);
		if (k < 0) {
			*cause = pl_xasprintf("placeto: option 'sim': unknown simulator '%s' (expected run, placeto or native)", simv);
			free(E);
			return NULL;
		}
		E->sim.kind = (enum pl_sim_kind)k;
	}
	int init = parse_choice("init", pl_opt_str(o, "init"), inits, cause);
	int order = init < 0 ? -1 : parse_choice("order", pl_opt_str(o, "order"), orders, cause);
	int pool = order < 0 ? -1 : parse_choice("pool", pl_opt_str(o, "pool"), pools, cause);
	int mp = pool < 0 ? -1 : parse_choice("mp", pl_opt_str(o, "mp"), pools, cause);
	int rew = mp < 0 ? -1 : parse_choice("reward", pl_opt_str(o, "reward"), rewards, cause);
	static const char *const accepts[] = { "all", "improve", NULL };
	int acc = rew < 0 ? -1 : parse_choice("accept", pl_opt_str(o, "accept"), accepts, cause);
	static const char *const edge_kinds[] = { "all", "forward", NULL };
	int edges = acc < 0 ? -1 : parse_choice("edges", pl_opt_str(o, "edges"), edge_kinds, cause);
	static const char *const scheds[] = { "fifo", "rank", NULL };
	int sched = edges < 0 ? -1 : parse_choice("sched", pl_opt_str(o, "sched"), scheds, cause);
	static const char *const escapes[] = { "none", "grow", NULL };
	int escape = sched < 0 ? -1 : parse_choice("escape", pl_opt_str(o, "escape"), escapes, cause);
	static const char *const pmems[] = { "placeto", "run", NULL };
	int pmem = escape < 0 ? -1 : parse_choice("penalty-mem", pl_opt_str(o, "penalty-mem"), pmems, cause);
	static const char *const norms[] = { "max", "absmax", NULL };
	int norm = pmem < 0 ? -1 : parse_choice("start-norm", pl_opt_str(o, "start-norm"), norms, cause);
	if (norm < 0) {
		free(E);
		return NULL;
	}
	E->init_kind = init;
	E->start_absmax = norm == 1;
	E->rel_reward = rew == 1;
	E->accept_improve = acc == 1;
	E->sched_rank = sched == 1;
	E->grow = escape == 1;
	E->escape_max = (int)pl_opt_int(o, "escape-max");
	E->escape_after = (int)pl_opt_int(o, "escape-after");
	E->workers = (int)pl_opt_int(o, "workers");
	E->groups = (int)pl_opt_int(o, "groups");
	E->peers = (int)pl_opt_int(o, "peers");
	E->memf = pl_opt_bool(o, "mem-feature");
	const char *pol = pl_opt_str(o, "policy");
	if (*pol && !pl_options_given(o, "mem-feature")) {
		/* the policy's own (engine_load_policy checks one given) */
		if ((E->memf = policy_mem_feature(pol, cause)) < 0) {
			free(E);
			return NULL;
		}
	}
	E->lr = pl_opt_double(o, "lr");
	E->lr_end = pl_opt_double(o, "lr-end");
	E->c_ent = pl_opt_double(o, "entropy");
	E->clip = pl_opt_double(o, "clip");
	E->penalty = pl_opt_double(o, "mem-penalty");
	E->max_mem = pl_opt_double(o, "max-mem");
	E->mem_cap = pl_opt_double(o, "mem-cap");
	/* the penalty reads the reference's peak memory unless told to use
	 * the driver's model (what the placer reports is simulated again
	 * with the driver's, placer_collect) */
	if (E->penalty > 0 && pmem == 0)
		E->sim.mem = PL_MEM_PLACETO;
	if (E->penalty > 0 && pmem == 1 && E->sim.mem == PL_MEM_NONE) {
		*cause = pl_xasprintf("mem-penalty %g with penalty-mem=run, but the run models no "
		    "memory (--mem none): expected --mem native or placeto, or penalty-mem=placeto",
		    E->penalty);
		free(E);
		return NULL;
	}
	int k = (int)pl_opt_int(o, "k"), baseline = (int)pl_opt_int(o, "baseline");
	E->n_dev = probs[0]->n_dev;
	for (int i = 1; i < n; i++)
		if (probs[i]->n_dev != E->n_dev) {
			*cause = pl_xasprintf("graph '%s' is placed on %d devices, '%s' on %d: one policy needs one cluster",
			    probs[0]->g->name, E->n_dev, probs[i]->g->name, probs[i]->n_dev);
			free(E);
			return NULL;
		}
	E->d = 5 + E->memf + E->n_dev;
	/* the grouped nodes of each graph, then what they need, before
	 * anything is allocated for them */
	struct bucket **bk = pl_xcalloc((size_t)n, sizeof *bk);
	int *nb = pl_xcalloc((size_t)n, sizeof *nb), big = 0;
	double sum_sq = 0;
	for (int i = 0; i < n; i++) {
		bk[i] = coarsen(probs[i], E->groups > 0 ? E->groups : INT_MAX, &nb[i]);
		sum_sq += (double)nb[i] * nb[i];
		if (nb[i] > E->max_n) {
			E->max_n = nb[i];
			big = i;
		}
	}
	double need = square_bytes(sum_sq, E->max_n, E->workers, E->d, E->peers);
	if (need > (double)MAX_SQUARE_BYTES) {
		/* GiB rounded up, so that the need never reads as the limit */
		*cause = pl_xasprintf("placeto: graph '%s': %d grouped nodes need %.3f GiB "
		    "(workers=%d, each keeping an episode's states of nodes x nodes x %d features, "
		    "and the nodes' relations), more than the limit of %zu GiB; use groups=%d or "
		    "fewer (it caps the nodes; groups=0 makes each colocation group a node) or "
		    "fewer 'workers'", probs[big]->g->name, E->max_n, ceil(need / (1 << 30) * 1000) / 1000,
		    E->workers, E->d, MAX_SQUARE_BYTES >> 30,
		    square_fit(n, E->workers, E->d, E->peers));
		free_buckets(bk, nb, n);
		free(E);
		return NULL;
	}
	/* the baseline keeps each graph's last `baseline` episodes' returns,
	 * a double per node: refused past its own limit, where it aborted
	 * asking for terabytes */
	double sum_nb = 0;
	for (int i = 0; i < n; i++)
		sum_nb += nb[i] ? nb[i] : 1;
	double per_ep = sum_nb * sizeof(double) + (double)n * sizeof(int);
	if ((double)baseline * per_ep > (double)MAX_BASELINE_BYTES) {
		*cause = pl_xasprintf("placeto: baseline=%d keeps that many episodes' returns of "
		    "every node (%.1f GiB for %s), more than the limit of %zu GiB; use baseline=%.0f "
		    "or fewer (a baseline longer than training is its whole history)", baseline,
		    (double)baseline * per_ep / (1 << 30), n == 1 ? "this graph" : "these graphs",
		    MAX_BASELINE_BYTES >> 30, floor((double)MAX_BASELINE_BYTES / per_ep));
		free_buckets(bk, nb, n);
		free(E);
		return NULL;
	}
	E->n_env = n;
	E->envs = pl_xcalloc((size_t)n, sizeof *E->envs);
	for (int i = 0; i < n; i++)
		env_init(&E->envs[i], probs[i], bk[i], nb[i], order == 1, edges == 1, baseline,
		    run->seed + (uint64_t)i * 7919);
	free(bk);
	free(nb);
	struct pl_policy_cfg cfg = { .d = E->d, .n_dev = E->n_dev, .k = k, .pool_mean = pool == 1,
	    .mp_mean = mp == 1 };
	E->pol = pl_policy_new(&cfg, run->seed ^ 0x706f6c696379ULL);
	pl_nn_adam_init(&E->adam, E->pol->m->n_params);
	E->gsum = pl_xcalloc(E->pol->m->n_params, sizeof(float));
	/* OpenBLAS threads would oversubscribe our workers; the products are small */
	openblas_set_num_threads(1);
	E->pool = pl_pool_new(E->run.threads);
	E->eps = pl_xcalloc((size_t)E->workers, sizeof *E->eps);
	size_t mn = (size_t)(E->max_n ? E->max_n : 1);
	for (int s = 0; s < E->workers; s++) {
		struct episode *ep = &E->eps[s];
		ep->dev = pl_xcalloc(mn, sizeof(int));
		ep->done = pl_xcalloc(mn, sizeof(int));
		ep->start = pl_xcalloc(mn, sizeof(double));
		ep->start_prev = pl_xcalloc(mn, sizeof(double));
		ep->x0s = pl_xcalloc(mn * mn * (size_t)E->d, sizeof(float));
		if (E->peers > 0)
			ep->pars = pl_xcalloc(mn * mn, 1);
		ep->act = pl_xcalloc(mn, sizeof(int));
		ep->rew = pl_xcalloc(mn, sizeof(double));
		ep->ret = pl_xcalloc(mn, sizeof(double));
		ep->dec = pl_xcalloc(mn, sizeof *ep->dec);
		ep->moved = pl_xcalloc(mn, sizeof(int));
		ep->seen = pl_xcalloc(mn, 1);
		ep->gw = pl_xcalloc(E->pol->m->n_params, sizeof(float));
		ep->pws = pl_policy_ws_new(E->pol, E->max_n);
	}
	E->feat_names = pl_xcalloc((size_t)E->d, sizeof(char *));
	static const char *const fixed[] = { "cost", "out_bytes", "done", "current", "start_offset" };
	for (int j = 0; j < 5; j++)
		E->feat_names[j] = pl_xstrdup(fixed[j]);
	if (E->memf)
		E->feat_names[5] = pl_xstrdup("memory");
	for (int dv = 0; dv < E->n_dev; dv++)
		E->feat_names[5 + E->memf + dv] = pl_xasprintf("on:%s", probs[0]->c->dev[dv].name);
	E->best = PL_OUTCOME_NONE;
	E->st.best_us = INFINITY;
	E->st.last_mean_us = NAN;
	E->st.lr = E->lr;	/* what the first update will use */
	return E;
}

/* The options a policy file fixes (its network's shape): each one's
 * value in the file's configuration as option text (k, pool, mp). */
static void
policy_option_values(const struct pl_policy_cfg *cfg, char k[16], const char **pool,
    const char **mp)
{
	snprintf(k, 16, "%d", cfg->k);
	*pool = cfg->pool_mean ? "mean" : "sum";
	*mp = cfg->mp_mean ? "mean" : "sum";
}

/* The options a policy file fixes (see placeto.h). */
const char *const pl_placeto_policy_fixed[] = { "k", "pool", "mp", "start-norm", "mem-feature",
	NULL };

/* The mem-feature (0 or 1) of policy p with metadata meta, whose input
 * width must be Placeto's features for it: 5 + mem-feature + devices;
 * -1 + *cause (naming path) when it is not. */
int
pl_placeto_policy_check(const struct pl_policy *p, const char *meta, const char *path,
    char **cause)
{
	long memf = pl_policy_meta_int(meta, "mem-feature", 0);
	if ((memf != 0 && memf != 1) || p->cfg.d != 5 + (int)memf + p->cfg.n_dev) {
		*cause = pl_xasprintf("%s: metadata '%s': expected mem-feature 0 or 1 and d = 5 + mem-feature "
		    "+ devices", path, meta);
		return -1;
	}
	return (int)memf;
}

/* Replace the engine's policy by one loaded from a file.  An option the
 * file fixes (k, pool, mp, start-norm) that o gives explicitly must agree with it;
 * used (may be NULL) receives the file's values, which are the ones used. */
static int
engine_load_policy(struct engine *E, const char *path, const struct pl_options *o,
    struct pl_options *used, char **cause)
{
	char *meta = NULL;
	struct pl_policy *p = pl_policy_load(path, &meta, cause);
	if (p == NULL)
		return -1;
	int memf = pl_placeto_policy_check(p, meta, path, cause);
	if (memf < 0) {
		pl_policy_free(p);
		free(meta);
		return -1;
	}
	/* (a mem-feature given that is not the file's is refused below) */
	if (p->cfg.n_dev != E->n_dev) {
		*cause = pl_xasprintf("%s: trained for %d devices with %d features (mem-feature=%d); "
		    "this cluster has %d devices and mem-feature=%d",
		    path, p->cfg.n_dev, p->cfg.d, memf, E->n_dev, E->memf);
		pl_policy_free(p);
		free(meta);
		return -1;
	}
	/* the start-time normalisation it was trained with (files without
	 * the key predate the option and were trained with absmax) */
	int absmax = (int)pl_policy_meta_int(meta, "start-absmax", 1) != 0;
	free(meta);
	char k[16];
	const char *const *names = pl_placeto_policy_fixed;	/* vals in its order */
	const char *vals[5] = { k, NULL, NULL, absmax ? "absmax" : "max", memf ? "on" : "off" };
	policy_option_values(&p->cfg, k, &vals[1], &vals[2]);
	for (int i = 0; names[i] != NULL; i++) {
		/* k and mem-feature by value (k=8e0 is k=8, on is 1) */
		int differs = i == 0 ? pl_opt_int(o, "k") != p->cfg.k :
		    i == 4 ? pl_opt_bool(o, "mem-feature") != memf :
		    strcmp(pl_opt_str(o, names[i]), vals[i]) != 0;
		if (pl_options_given(o, names[i]) && differs) {
			*cause = pl_xasprintf("placeto: option '%s': %s contradicts the policy %s, "
			    "trained with %s=%s (leave the option out: the policy fixes it)",
			    names[i], pl_opt_str(o, names[i]), path, names[i], vals[i]);
			pl_policy_free(p);
			return -1;
		}
		if (used != NULL && pl_options_set(used, names[i], vals[i], cause) != 0) {
			pl_policy_free(p);
			return -1;
		}
	}
	pl_policy_free(E->pol);
	E->pol = p;
	E->start_absmax = absmax;
	for (int s = 0; s < E->workers; s++) {
		pl_policy_ws_free(E->eps[s].pws);
		E->eps[s].pws = pl_policy_ws_new(p, E->max_n);
	}
	return 0;
}

/* Advance every active slot by one decision. */
static void
engine_advance(struct engine *E)
{
	struct pool_ctx c = { E, 0 };
	pl_pool_for(E->pool, E->workers, engine_worker, &c);
}

/* Whether any slot is still playing. */
static int
engine_any_active(const struct engine *E)
{
	for (int s = 0; s < E->workers; s++)
		if (E->eps[s].active)
			return 1;
	return 0;
}

/* The engine's error, else the first slot error, or NULL. */
static const char *
engine_error(const struct engine *E)
{
	if (E->err != NULL)
		return E->err;
	for (int s = 0; s < E->workers; s++)
		if (E->eps[s].err != NULL)
			return E->eps[s].err;
	return NULL;
}

/* Start a training batch: slot s plays episode next_id + s; the last
 * batch of a budget plays only the episodes left (the other slots sit
 * it out), so that exactly the budget is trained. */
static int
engine_start_batch(struct engine *E)
{
	long left = E->budget > 0 ? E->budget - E->st.episodes : E->workers;
	int n = left < 1 ? 1 : left < E->workers ? (int)left : E->workers;
	for (int s = 0; s < E->workers; s++) {
		if (s >= n) {
			E->eps[s].active = E->eps[s].finished = E->eps[s].offered = 0;
			continue;
		}
		int env_i = (int)((E->next_id) % E->n_env);
		if (episode_start(E, s, env_i, 0) != 0)
			return -1;
	}
	return 0;
}

/* Finish a batch: returns into the baselines, backward, summed gradient,
 * clip, Adam. */
static void
engine_finish_batch(struct engine *E)
{
	/* as the reference, the baseline at step t is the mean return at t
	 * over the last N episodes including this batch's (slot order) */
	for (int s = 0; s < E->workers; s++) {
		struct episode *ep = &E->eps[s];
		if (!ep->finished || ep->greedy)
			continue;
		double acc = 0;
		for (int t = ep->t - 1; t >= 0; t--) {
			acc += ep->rew[t];
			ep->ret[t] = acc;
		}
		env_push_returns(&E->envs[ep->env_i], ep->ret, ep->t);
	}
	struct pool_ctx c = { E, 1 };
	pl_pool_for(E->pool, E->workers, engine_worker, &c);
	size_t np = E->pol->m->n_params;
	memset(E->gsum, 0, np * sizeof(float));
	double mean_us = 0, ent = 0;
	int cnt = 0;
	long steps = 0;
	for (int s = 0; s < E->workers; s++) {
		struct episode *ep = &E->eps[s];
		if (!ep->finished || ep->greedy)
			continue;
		for (size_t q = 0; q < np; q++)
			E->gsum[q] += ep->gw[q];
		mean_us += ep->res.makespan_us;
		ent += ep->ent_sum;
		steps += ep->t;
		cnt++;
	}
	/* escape: batches since each env's best last improved */
	for (int i = 0; i < E->n_env; i++) {
		struct env *e = &E->envs[i];
		int played = 0;
		for (int s = 0; s < E->workers; s++)
			played |= E->eps[s].finished && !E->eps[s].greedy && E->eps[s].env_i == i;
		if (!played)
			continue;
		if (e->best_R < e->stall_R) {
			e->stall_R = e->best_R;
			e->stall = 0;
		} else
			e->stall++;
	}
	if (cnt == 0)
		return;
	double frac = E->budget > 0 ? (double)E->st.episodes / (double)E->budget : 1.0;
	if (frac > 1)
		frac = 1;
	double lr = E->lr + (E->lr_end - E->lr) * frac;
	E->st.grad_norm = pl_nn_clip_global(E->gsum, np, E->clip);
	if (!isfinite(E->st.grad_norm)) {
		/* the weights stay as they were: a policy that still loads */
		E->err = pl_xasprintf("training diverged after %ld episodes: the policy gradient is "
		    "not a finite number (try a lower --lr or --entropy)", E->st.episodes);
		return;
	}
	pl_nn_adam_step(&E->adam, E->pol->m->w, E->gsum, lr);
	if (!pl_nn_all_finite(E->pol->m->w, np)) {
		E->err = pl_xasprintf("training diverged after %ld episodes: the policy's weights "
		    "are no longer finite numbers (try a lower --lr)", E->st.episodes);
		return;
	}
	E->st.lr = lr;
	E->st.updates++;
	E->st.episodes += cnt;
	E->st.last_mean_us = mean_us / cnt;
	E->st.last_entropy = steps > 0 ? ent / (double)steps : 0;
}

/* Note a simulated placement of slot s in the env's best. */
static void
engine_note_best(struct engine *E, struct episode *ep)
{
	struct env *e = &E->envs[ep->env_i];
	E->st.placements++;
	/* what is reported puts a placement that fits first, as every
	 * method's best does; the MDP's own best (init=best) is by R */
	struct pl_outcome o = pl_outcome_of(&ep->res);
	if (pl_outcome_better(o, E->best)) {
		E->best = o;
		E->st.best_us = o.us;
		E->st.best_oom = o.oom;
	}
	if (pl_outcome_better(o, e->shown))
		e->shown = o;
	if (ep->R < e->best_R) {
		e->best_R = ep->R;
		memcpy(e->best_dev, ep->dev, (size_t)e->n * sizeof(int));
	}
}

/* The log entry of a finished episode. */
static struct pl_placeto_episode_log
episode_log(const struct episode *ep)
{
	return (struct pl_placeto_episode_log){
		.episode = ep->id, .graph = ep->env_i, .greedy = ep->greedy,
		.init_us = ep->init_us, .final_us = ep->res.makespan_us, .best_us = ep->best.us,
		.entropy = ep->t > 0 ? ep->ent_sum / ep->t : 0,
		.ret = ep->t > 0 ? ep->dec[ep->t - 1].ret : 0,	/* the whole return */
	};
}

/* ---- the placer class --------------------------------------------------- */

/* One row of the per-step log. */
struct log_row {
	long episode;
	int worker, t, group, prev, action, greedy;
	float p_action, entropy;
	int undone, moved;
	double before_us, after_us, reward, ret;
};

struct priv {
	struct engine *E;
	int phase;			/* 0 training, 1 greedy, 2 done */
	long budget;
	int in_batch, in_greedy;
	struct log_row *log;
	long n_log, cap_log;
	struct pl_placeto_episode_log *eplog;	/* every finished episode */
	long n_eplog, cap_eplog;
	long best_episode;		/* whose placement is pl->best (-1: */
	int best_greedy;		/* none yet), and whether greedy */
};

#define LOG_MAX 1000000L	/* rows kept for --history (64 MB) */

/* Offer slot s's newest placement to the placer and log its decision. */
static void
placer_collect(struct pl_placer *pl, struct priv *P, int s, int logged_t)
{
	struct engine *E = P->E;
	struct episode *ep = &E->eps[s];
	if (ep->offered == 0)
		return;
	ep->offered = 0;
	pl->evals++;
	engine_note_best(E, ep);
	int kept;
	if (E->sim.kind == pl->run.sim.kind && E->sim.mem == pl->run.sim.mem)
		kept = pl_placer_offer(pl, ep->pl, &ep->res);
	else {
		struct pl_sim_result r;
		pl_placer_evaluate(pl, ep->pl, &r);
		kept = pl_placer_offer(pl, ep->pl, &r);
	}
	if (kept) {
		P->best_episode = ep->id;
		P->best_greedy = ep->greedy;
	}
	if (logged_t < 0 || P->n_log >= LOG_MAX)
		return;
	if (P->n_log == P->cap_log) {
		P->cap_log = P->cap_log ? 2 * P->cap_log : 1024;
		P->log = pl_xreallocarray(P->log, (size_t)P->cap_log, sizeof *P->log);
	}
	const struct pl_placeto_decision *dc = &ep->dec[logged_t];
	P->log[P->n_log++] = (struct log_row){
		.episode = dc->episode, .worker = s, .t = dc->t, .group = dc->group,
		.prev = dc->prev_dev, .action = dc->action, .greedy = dc->greedy, .undone = dc->undone,
		.moved = dc->moved,
		.p_action = dc->probs[dc->action], .entropy = (float)dc->entropy,
		.before_us = dc->before_us, .after_us = dc->after_us,
		.reward = dc->reward, .ret = dc->ret,
	};
}

/* Log slot s's finished episode. */
static void
placer_log_episode(struct priv *P, int s)
{
	if (P->n_eplog == P->cap_eplog) {
		P->cap_eplog = P->cap_eplog ? 2 * P->cap_eplog : 64;
		P->eplog = pl_xreallocarray(P->eplog, (size_t)P->cap_eplog, sizeof *P->eplog);
	}
	P->eplog[P->n_eplog++] = episode_log(&P->E->eps[s]);
}

/* Fail the step with the engine's error (a simulation's, or why training
 * stopped). */
static enum pl_step_status
placer_fail(struct pl_placer *pl, struct priv *P)
{
	const char *e = engine_error(P->E);
	pl_placer_note(pl, "%s", e != NULL ? e : "simulation failed");
	return PL_STEP_ERROR;
}

/* Set up the engine and load a policy when given. */
static int
placeto_create(struct pl_placer *pl, char **cause)
{
	const char *path = pl_opt_str(pl->opts, "policy");
	if (!*path && pl_options_given(pl->opts, "finetune")) {
		*cause = pl_xstrdup("placeto: option 'finetune' trains a loaded policy: "
		    "it needs 'policy' (without one, 'episodes' sets the training)");
		return -1;
	}
	if (*path && pl_options_given(pl->opts, "episodes")) {
		*cause = pl_xstrdup("placeto: option 'episodes' trains from scratch: "
		    "with 'policy', 'finetune' sets the episodes on this graph");
		return -1;
	}
	struct priv *P = pl_xcalloc(1, sizeof *P);
	P->best_episode = -1;
	const struct pl_problem *probs[1] = { pl->prob };
	P->E = engine_new(probs, 1, pl->opts, &pl->run, cause);
	if (P->E == NULL) {
		free(P);
		return -1;
	}
	if (*path) {
		if (engine_load_policy(P->E, path, pl->opts, pl->opts, cause) != 0) {
			engine_free(P->E);
			free(P);
			return -1;
		}
		P->budget = pl_opt_int(pl->opts, "finetune");
	} else
		P->budget = pl_opt_int(pl->opts, "episodes");
	if (P->budget < 0)
		P->budget = 0;
	P->E->budget = P->budget;
	P->phase = P->budget > 0 ? 0 : 1;
	pl->priv = P;
	pl_placer_set_status(pl, "%d groups, %s", P->E->envs[0].n,
	    P->phase == 0 ? "training" : "greedy episode");
	return 0;
}

/* The status's mark of a best placement that does not fit in memory (as
 * BRKGA's): its run time may then exceed the mean of fitting ones. */
static const char *
best_oom(const struct pl_placer *pl)
{
	return pl->best != NULL && pl->best_res.oom_mask != 0 ? " (OOM)" : "";
}

/* One MDP decision in every playing slot. */
static enum pl_step_status
placeto_step(struct pl_placer *pl)
{
	struct priv *P = pl->priv;
	struct engine *E = P->E;
	if (P->phase == 0) {
		if (!P->in_batch) {
			if (engine_start_batch(E) != 0)
				return placer_fail(pl, P);
			for (int s = 0; s < E->workers; s++)
				placer_collect(pl, P, s, -1);
			P->in_batch = 1;
		}
		int t0[256];
		for (int s = 0; s < E->workers; s++)
			t0[s] = E->eps[s].active ? E->eps[s].t : -1;
		engine_advance(E);
		if (engine_error(E) != NULL)
			return placer_fail(pl, P);
		for (int s = 0; s < E->workers; s++)
			if (t0[s] >= 0)
				placer_collect(pl, P, s, t0[s]);
		const struct episode *e0 = &E->eps[0];
		const struct pl_placeto_decision *dc = &e0->dec[e0->t - 1];
		pl_placer_note(pl, "episode %ld step %d: group %d -> %s, reward %.4g",
		    dc->episode, dc->t, dc->group, pl->prob->c->dev[dc->action].name, dc->reward);
		if (!engine_any_active(E)) {
			engine_finish_batch(E);
			if (engine_error(E) != NULL)
				return placer_fail(pl, P);
			P->in_batch = 0;
			for (int s = 0; s < E->workers; s++)
				if (E->eps[s].finished)
					placer_log_episode(P, s);
			pl_placer_set_status(pl, "episode %ld/%ld, mean %.4g us, best %.4g us%s, entropy %.3f",
			    E->st.episodes, P->budget, E->st.last_mean_us, pl->best_res.makespan_us,
			    best_oom(pl), E->st.last_entropy);
			if (E->st.episodes >= P->budget)
				P->phase = 1;
		}
		return PL_STEP_MORE;
	}
	if (P->phase == 1) {
		if (!P->in_greedy) {
			for (int s = 1; s < E->workers; s++)
				E->eps[s].active = E->eps[s].finished = 0;
			if (episode_start(E, 0, 0, 1) != 0)
				return placer_fail(pl, P);
			placer_collect(pl, P, 0, -1);
			P->in_greedy = 1;
		}
		int t = E->eps[0].t;
		engine_advance(E);
		if (engine_error(E) != NULL)
			return placer_fail(pl, P);
		placer_collect(pl, P, 0, t);
		const struct pl_placeto_decision *dc = &E->eps[0].dec[t];
		pl_placer_note(pl, "greedy step %d: group %d -> %s, reward %.4g", dc->t, dc->group,
		    pl->prob->c->dev[dc->action].name, dc->reward);
		if (!E->eps[0].active) {
			placer_log_episode(P, 0);
			P->phase = 2;
			pl_placer_set_status(pl, "done: greedy episode %.4g us, best %.4g us%s",
			    E->eps[0].res.makespan_us, pl->best_res.makespan_us, best_oom(pl));
			return PL_STEP_DONE;
		}
		return PL_STEP_MORE;
	}
	return PL_STEP_DONE;
}

/* Free the placer's state. */
static void
placeto_destroy(struct pl_placer *pl)
{
	struct priv *P = pl->priv;
	if (P == NULL)
		return;
	engine_free(P->E);
	free(P->log);
	free(P->eplog);
	free(P);
	pl->priv = NULL;
}

/* The per-step log as CSV. */
static int
placeto_history_csv(const struct pl_placer *pl, FILE *f)
{
	const struct priv *P = pl->priv;
	const struct env *e = &P->E->envs[0];
	fprintf(f, "episode,worker,step,greedy,group,group_name,prev_device,device,p_action,entropy,before_us,after_us,reward,return,undone,moved\n");
	for (long i = 0; i < P->n_log; i++) {
		const struct log_row *r = &P->log[i];
		struct pl_strbuf b = { 0 };
		pl_sb_printf(&b, "%ld,%d,%d,%d,%d,", r->episode, r->worker, r->t, r->greedy, r->group);
		pl_sb_csv(&b, e->name[r->group]);
		pl_sb_put(&b, ",", 1);
		pl_sb_csv(&b, pl->prob->c->dev[r->prev].name);
		pl_sb_put(&b, ",", 1);
		pl_sb_csv(&b, pl->prob->c->dev[r->action].name);
		char *row = pl_sb_take(&b);
		fprintf(f, "%s,%.6g,%.6g,%.6f,%.6f,%.9g,%.9g,%d,%d\n", row,
		    (double)r->p_action, (double)r->entropy, r->before_us, r->after_us,
		    r->reward, r->ret, r->undone, r->moved);
		free(row);
	}
	return ferror(f) ? -1 : 0;
}

/* episodes without a policy, finetune with one: the other does nothing
 * (placeto_create refuses it given). */
static int
placeto_option_unused(const struct pl_options *o, const char *name)
{
	int policy = *pl_opt_str(o, "policy") != '\0';
	return (policy && strcmp(name, "episodes") == 0) ||
	    (!policy && strcmp(name, "finetune") == 0);
}

const struct pl_placer_class pl_placer_placeto = {
	.name = "placeto",
	.title = "Placeto (graph-network RL)",
	.summary = "MDP of per-group placement improvements with a message-passing policy trained by REINFORCE; zero-shot with a trained policy",
	.options = pl_placeto_options,
	.ranges = pl_placeto_ranges,
	.create = placeto_create,
	.step = placeto_step,
	.destroy = placeto_destroy,
	.history_csv = placeto_history_csv,
	.option_unused = placeto_option_unused,
	.quick = 0,
};

/* ---- getters ---------------------------------------------------------------- */

/* The placer's private state (NULL for another class). */
static const struct priv *
get_priv(const struct pl_placer *pl)
{
	if (pl == NULL || pl->cls != &pl_placer_placeto)
		return NULL;
	return pl->priv;
}

/* Number of grouped nodes. */
int
pl_placeto_n_groups(const struct pl_placer *pl)
{
	const struct priv *P = get_priv(pl);
	return P != NULL ? P->E->envs[0].n : 0;
}

/* Name of grouped node i. */
const char *
pl_placeto_group_name(const struct pl_placer *pl, int i)
{
	const struct priv *P = get_priv(pl);
	return P != NULL && i >= 0 && i < P->E->envs[0].n ? P->E->envs[0].name[i] : NULL;
}

/* Ops of grouped node i. */
const int *
pl_placeto_group_ops(const struct pl_placer *pl, int i, int *n)
{
	const struct priv *P = get_priv(pl);
	if (P == NULL || i < 0 || i >= P->E->envs[0].n) {
		*n = 0;
		return NULL;
	}
	const struct env *e = &P->E->envs[0];
	*n = e->nops_off[i + 1] - e->nops_off[i];
	return e->nops + e->nops_off[i];
}

/* Grouped node of every op. */
const int *
pl_placeto_group_of(const struct pl_placer *pl)
{
	const struct priv *P = get_priv(pl);
	return P != NULL ? P->E->envs[0].node_of : NULL;
}

/* Relation of grouped node v to cur (ancestor, descendant, parallel). */
int
pl_placeto_relation(const struct pl_placer *pl, int cur, int v)
{
	const struct priv *P = get_priv(pl);
	if (P == NULL || cur == v)
		return 0;
	const struct env *e = &P->E->envs[0];
	size_t k = (size_t)cur * e->n + v;
	return e->anc[k] && e->desc[k] ? 'c' : e->anc[k] ? 'a' : e->desc[k] ? 'd' :
	    e->par[k] ? 'p' : 0;
}

/* Predecessors (dir 0) or successors (dir 1) of grouped node v. */
const int *
pl_placeto_neighbours(const struct pl_placer *pl, int v, int dir, int *n)
{
	const struct priv *P = get_priv(pl);
	*n = 0;
	if (P == NULL || v < 0 || v >= P->E->envs[0].n || (dir != 0 && dir != 1))
		return NULL;
	const struct pl_nn_csr *a = &P->E->envs[0].adj[dir];
	*n = a->off[v + 1] - a->off[v];
	return a->idx + a->off[v];
}

/* Feature width. */
int
pl_placeto_n_feat(const struct pl_placer *pl)
{
	const struct priv *P = get_priv(pl);
	return P != NULL ? P->E->d : 0;
}

/* Name of feature column j. */
const char *
pl_placeto_feat_name(const struct pl_placer *pl, int j)
{
	const struct priv *P = get_priv(pl);
	return P != NULL && j >= 0 && j < P->E->d ? P->E->feat_names[j] : NULL;
}

/* Worker 0's decisions this episode. */
const struct pl_placeto_decision *
pl_placeto_decisions(const struct pl_placer *pl, int *n)
{
	const struct priv *P = get_priv(pl);
	*n = 0;
	if (P == NULL || P->E->eps[0].t == 0)
		return NULL;
	*n = P->E->eps[0].t;
	return P->E->eps[0].dec;
}

/* Worker 0's feature matrix at step t of its episode. */
const float *
pl_placeto_state(const struct pl_placer *pl, int t, int *n)
{
	const struct priv *P = get_priv(pl);
	*n = 0;
	if (P == NULL || t < 0 || t >= P->E->eps[0].t)
		return NULL;
	const struct episode *ep = &P->E->eps[0];
	*n = P->E->envs[ep->env_i].n;
	return ep->x0s + (size_t)t * (size_t)*n * (size_t)P->E->d;
}

/* Worker 0's last decision. */
const struct pl_placeto_decision *
pl_placeto_last(const struct pl_placer *pl)
{
	int n;
	const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
	return d != NULL ? &d[n - 1] : NULL;
}

/* The episode that found the placer's best (see placeto.h). */
int
pl_placeto_best_episode(const struct pl_placer *pl, long *episode, int *greedy)
{
	const struct priv *P = get_priv(pl);
	if (P == NULL || P->best_episode < 0)
		return -1;
	*episode = P->best_episode;
	*greedy = P->best_greedy;
	return 0;
}

/* Worker 0's current placement. */
const struct pl_placement *
pl_placeto_current(const struct pl_placer *pl)
{
	const struct priv *P = get_priv(pl);
	return P != NULL ? P->E->eps[0].pl : NULL;
}

/* Every episode the placer finished. */
const struct pl_placeto_episode_log *
pl_placeto_episodes(const struct pl_placer *pl, long *n)
{
	const struct priv *P = get_priv(pl);
	*n = P != NULL ? P->n_eplog : 0;
	return P != NULL ? P->eplog : NULL;
}

/* Training statistics. */
void
pl_placeto_get_stats(const struct pl_placer *pl, struct pl_placeto_stats *st)
{
	const struct priv *P = get_priv(pl);
	memset(st, 0, sizeof *st);
	if (P == NULL)
		return;
	*st = P->E->st;
	st->budget = P->budget;
	st->phase = P->phase;
}

/* Metadata note of a policy file: options that must match at load time. */
static char *
policy_note(const struct engine *E, const char *note)
{
	return pl_xasprintf("mem-feature=%d groups=%d start-absmax=%d%s%s", E->memf, E->groups,
	    E->start_absmax,
	    note != NULL && *note ? " " : "", note != NULL ? note : "");
}

/* Save the placer's policy. */
int
pl_placeto_save_policy(const struct pl_placer *pl, const char *path, char **cause)
{
	const struct priv *P = get_priv(pl);
	if (P == NULL) {
		*cause = pl_xstrdup("not a Placeto placer");
		return -1;
	}
	char *note = policy_note(P->E, NULL);
	int rc = pl_policy_save(P->E->pol, note, path, cause);
	free(note);
	return rc;
}

/* ---- the multi-graph trainer ----------------------------------------------- */

struct pl_placeto_trainer {
	struct engine *E;
	struct pl_options *own;
};

/* A trainer over several problems. */
struct pl_placeto_trainer *
pl_placeto_trainer_new(const struct pl_problem *const *probs, int n,
    const struct pl_options *opts, const struct pl_run_opts *run, char **cause)
{
	if (n < 1) {
		*cause = pl_xstrdup("no graph to train on");
		return NULL;
	}
	struct pl_placeto_trainer *tr = pl_xcalloc(1, sizeof *tr);
	if (opts == NULL) {
		if (pl_options_parse_ranged(pl_placeto_options, pl_placeto_ranges, NULL, &tr->own,
		    cause) != 0) {
			free(tr);
			return NULL;
		}
		opts = tr->own;
	}
	if (pl_options_given(opts, "finetune")) {
		*cause = pl_xstrdup("placeto: option 'finetune' is for a run with a policy; "
		    "training runs 'episodes' (from 'policy' when given)");
		pl_options_free(tr->own);
		free(tr);
		return NULL;
	}
	tr->E = engine_new(probs, n, opts, run, cause);
	if (tr->E == NULL) {
		pl_options_free(tr->own);
		free(tr);
		return NULL;
	}
	tr->E->budget = pl_opt_int(opts, "episodes");
	const char *path = pl_opt_str(opts, "policy");
	if (*path && engine_load_policy(tr->E, path, opts, NULL, cause) != 0) {
		pl_placeto_trainer_free(tr);
		return NULL;
	}
	return tr;
}

/* Free a trainer. */
void
pl_placeto_trainer_free(struct pl_placeto_trainer *tr)
{
	if (tr == NULL)
		return;
	engine_free(tr->E);
	pl_options_free(tr->own);
	free(tr);
}

/* One batch of episodes and one update. */
int
pl_placeto_trainer_batch(struct pl_placeto_trainer *tr,
    struct pl_placeto_episode_log *logs, int *n_logs, char **cause)
{
	struct engine *E = tr->E;
	*n_logs = 0;
	if (engine_start_batch(E) != 0)
		goto fail;
	for (int s = 0; s < E->workers; s++) {
		if (E->eps[s].active)	/* a slot sitting out the last batch has none */
			engine_note_best(E, &E->eps[s]);
		E->eps[s].offered = 0;
	}
	while (engine_any_active(E)) {
		engine_advance(E);
		if (engine_error(E) != NULL)
			goto fail;
		for (int s = 0; s < E->workers; s++)
			if (E->eps[s].offered) {
				engine_note_best(E, &E->eps[s]);
				E->eps[s].offered = 0;
			}
	}
	engine_finish_batch(E);
	if (engine_error(E) != NULL)
		goto fail;
	for (int s = 0; s < E->workers; s++)
		if (E->eps[s].finished)
			logs[(*n_logs)++] = episode_log(&E->eps[s]);
	return 0;
fail:
	*cause = pl_xstrdup(engine_error(E) != NULL ? engine_error(E) : "simulation failed");
	return -1;
}

/* A greedy episode on problem i. */
int
pl_placeto_trainer_greedy(struct pl_placeto_trainer *tr, int i, double *makespan_us,
    uint64_t *oom_mask, char **cause)
{
	struct engine *E = tr->E;
	if (i < 0 || i >= E->n_env) {
		*cause = pl_xasprintf("no graph %d", i);
		return -1;
	}
	for (int s = 0; s < E->workers; s++)
		E->eps[s].active = E->eps[s].finished = 0;
	long keep = E->next_id;
	if (episode_start(E, 0, i, 1) != 0)
		goto fail;
	while (E->eps[0].active) {
		episode_decide(E, &E->eps[0]);
		if (E->eps[0].err != NULL)
			goto fail;
	}
	E->next_id = keep;	/* evaluation does not shift training episodes */
	E->eps[0].finished = 0;
	*makespan_us = E->eps[0].res.makespan_us;
	if (oom_mask != NULL)
		*oom_mask = E->eps[0].res.oom_mask;
	return 0;
fail:
	E->next_id = keep;
	*cause = pl_xstrdup(E->eps[0].err != NULL ? E->eps[0].err : "simulation failed");
	return -1;
}

/* Training statistics. */
void
pl_placeto_trainer_stats(const struct pl_placeto_trainer *tr, struct pl_placeto_stats *st)
{
	*st = tr->E->st;
	st->budget = tr->E->budget;
}

/* The best placement's makespan on problem i (see placeto.h). */
double
pl_placeto_trainer_best(const struct pl_placeto_trainer *tr, int i)
{
	return tr->E->envs[i].shown.us;
}

/* The devices out of memory in the best placement seen on problem i. */
uint64_t
pl_placeto_trainer_best_oom(const struct pl_placeto_trainer *tr, int i)
{
	const struct env *e = &tr->E->envs[i];
	return isfinite(e->shown.us) ? e->shown.oom : 0;	/* (never played: none) */
}

/* The simulator of the MDP, whose times the trainer reports. */
enum pl_sim_kind
pl_placeto_trainer_sim(const struct pl_placeto_trainer *tr)
{
	return tr->E->sim.kind;
}

/* Episodes per batch. */
int
pl_placeto_trainer_workers(const struct pl_placeto_trainer *tr)
{
	return tr->E->workers;
}

/* Save the trainer's policy. */
int
pl_placeto_trainer_save(const struct pl_placeto_trainer *tr, const char *path,
    const char *note, char **cause)
{
	char *n = policy_note(tr->E, note);
	int rc = pl_policy_save(tr->E->pol, n, path, cause);
	free(n);
	return rc;
}
