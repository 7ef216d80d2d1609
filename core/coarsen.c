/*
 * coarsen — scope-depth coarsening of a placed graph: see coarsen.h.
 *
 * Invariant: every op lands in exactly one node (keyed by device and path
 * prefix), so the sums in the header hold by construction; merged edges are
 * sorted by (src, dst) and never connect a node to itself; each transfer
 * adds its bytes to exactly one edge's moved.
 */
#include "coarsen.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* An op's path: scope components then the name (without a repeated scope). */
static char *
op_path(const struct pl_op *op)
{
	size_t sl = strlen(op->scope);
	if (sl == 0 || (strncmp(op->name, op->scope, sl) == 0 && op->name[sl] == '/'))
		return pl_xstrdup(op->name);
	if (strcmp(op->name, op->scope) == 0)
		return pl_xstrdup(op->name);
	return pl_xasprintf("%s/%s", op->scope, op->name);
}

/* Number of '/'-separated non-empty components of a path. */
static int
path_depth(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		if (*s == '/')
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

/* Length of the first L components of path s (without the trailing '/'),
 * or -1 when s has at most L components (the op stays by itself). */
static int
prefix_len(const char *s, int level)
{
	if (level < 0)
		return -1;
	int n = 0, in = 0;
	const char *end = s;
	for (const char *q = s; *q; q++) {
		if (*q == '/')
			in = 0;
		else if (!in) {
			if (n == level)
				return (int)(end - s);
			in = 1;
			n++;
		}
		if (*q != '/')
			end = q + 1;
	}
	return -1;
}

/*
 * Node keys without allocation: a collapsed op's key is (device, the first
 * bytes of its path), a lone op's key is its id.  A scope's key
 * (budget_levels) is the same with the prefix's depth in place of the op.
 */
struct key {
	int a;			/* device, or node id */
	int b;			/* op id when len < 0, else 0 (or a depth) */
	const char *p;		/* path */
	int len;		/* prefix length; -1: a lone op */
};

/* Open addressing over keys; at most half full. */
struct ktab {
	size_t cap, n;
	struct key *k;
	int *val;
	uint64_t *h;		/* 0: empty slot */
};

/* FNV-1a over the key's fields and prefix bytes; never 0. */
static uint64_t
key_hash(const struct key *k)
{
	uint64_t h = 1469598103934665603ULL;
	int f[3] = { k->a, k->b, k->len };
	const unsigned char *q = (const unsigned char *)f;
	for (size_t i = 0; i < sizeof f; i++) {
		h ^= q[i];
		h *= 1099511628211ULL;
	}
	for (int i = 0; i < k->len; i++) {
		h ^= (unsigned char)k->p[i];
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

/* Whether two keys are equal. */
static int
key_eq(const struct key *x, const struct key *y)
{
	return x->a == y->a && x->b == y->b && x->len == y->len &&
	    (x->len <= 0 || memcmp(x->p, y->p, (size_t)x->len) == 0);
}

/* An empty table for about `expected` keys. */
static void
ktab_init(struct ktab *t, size_t expected)
{
	size_t cap = 16;
	while (cap < expected * 2 + 2)
		cap <<= 1;
	t->cap = cap;
	t->n = 0;
	t->k = pl_xcalloc(cap, sizeof *t->k);
	t->val = pl_xcalloc(cap, sizeof *t->val);
	t->h = pl_xcalloc(cap, sizeof *t->h);
}

/* Free a table. */
static void
ktab_free(struct ktab *t)
{
	free(t->k);
	free(t->val);
	free(t->h);
	memset(t, 0, sizeof *t);
}

/* Insert k -> val unless present; returns the existing value or -1.
 * Sized for every op up front, so it never grows. */
static int
ktab_put(struct ktab *t, const struct key *k, int val)
{
	uint64_t h = key_hash(k);
	size_t mask = t->cap - 1, i = (size_t)h & mask;
	while (t->h[i] != 0) {
		if (t->h[i] == h && key_eq(&t->k[i], k))
			return t->val[i];
		i = (i + 1) & mask;
	}
	t->h[i] = h;
	t->k[i] = *k;
	t->val[i] = val;
	t->n++;
	return -1;
}

/* The node key of op v at level; *collapsed and *plen as in the key. */
static struct key
node_key(const char *path, int v, int dev, int level, int *collapsed, int *plen)
{
	int n = prefix_len(path, level);
	*plen = n;
	*collapsed = n >= 0;
	if (n < 0)
		return (struct key){ -1, v, NULL, -1 };
	return (struct key){ dev, 0, path, n };
}

/* Assign every op at its level lv[v] to a node, numbering nodes in
 * topological order of their first ops; returns the node count. */
static int
assign_nodes(const struct pl_graph *g, const struct pl_placement *pl,
    char **paths, const int *lv, int *node_of, int *collapsed, int *plen)
{
	struct ktab t;
	ktab_init(&t, (size_t)g->n_ops);
	int n = 0;
	for (int i = 0; i < g->n_ops; i++) {
		int v = g->topo[i];
		struct key k = node_key(paths[v], v, pl->dev[v], lv[v], &collapsed[v], &plen[v]);
		int id = ktab_put(&t, &k, n);
		if (id < 0)
			id = n++;
		node_of[v] = id;
	}
	ktab_free(&t);
	return n;
}

/* Every op's path. */
static char **
all_paths(const struct pl_graph *g)
{
	char **paths = pl_xcalloc(g->n_ops > 0 ? g->n_ops : 1, sizeof *paths);
	for (int v = 0; v < g->n_ops; v++)
		paths[v] = op_path(&g->ops[v]);
	return paths;
}

/* Free an array of n strings. */
static void
free_strings(char **s, int n)
{
	for (int i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

static int count_with(const struct pl_graph *, const struct pl_placement *,
    char **, int);

/* One cross-node edge before merging. */
struct raw_edge {
	int src, dst;
	int64_t bytes;
	int critical;
};

/* Order raw edges by (src, dst). */
static int
raw_cmp(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return 0;
}

/* Build the coarse graph with op v at level lv[v]; consumes paths. */
static struct pl_coarse *
build(const struct pl_problem *p, const struct pl_placement *pl, char **paths,
    const int *lv, int level, const int *critical, int n_critical)
{
	const struct pl_graph *g = p->g;
	int nops = g->n_ops;
	struct pl_coarse *c = pl_xcalloc(1, sizeof *c);
	c->level = level;
	c->node_of = pl_xcalloc(nops > 0 ? nops : 1, sizeof *c->node_of);

	int *collapsed = pl_xcalloc(nops > 0 ? nops : 1, sizeof *collapsed);
	int *plen = pl_xcalloc(nops > 0 ? nops : 1, sizeof *plen);
	c->n_nodes = assign_nodes(g, pl, paths, lv, c->node_of, collapsed, plen);

	int *pos = pl_xcalloc(nops > 0 ? nops : 1, sizeof *pos);
	for (int v = 0; v < nops; v++)
		pos[v] = -1;
	for (int i = 0; critical != NULL && i < n_critical; i++)
		if (critical[i] >= 0 && critical[i] < nops)
			pos[critical[i]] = i;

	c->nodes = pl_xcalloc(c->n_nodes > 0 ? c->n_nodes : 1, sizeof *c->nodes);
	for (int i = 0; i < nops; i++) {
		int v = g->topo[i];
		struct pl_coarse_node *nd = &c->nodes[c->node_of[v]];
		if (nd->n_ops == 0) {
			nd->dev = pl->dev[v];
			nd->op = v;
			nd->collapsed = collapsed[v];
			nd->depth = collapsed[v] ? lv[v] : -1;
			if (nd->depth > c->max_depth)
				c->max_depth = nd->depth;
			if (!collapsed[v])
				nd->label = pl_xstrdup(g->ops[v].name);
			else if (plen[v] == 0)
				nd->label = pl_xstrdup("(all ops)");
			else
				nd->label = pl_xstrndup(paths[v], (size_t)plen[v]);
		}
		nd->n_ops++;
		nd->time_us += pl_problem_op_us(p, v, pl->dev[v]);
		if (pos[v] >= 0)
			nd->n_critical++;
	}

	/* a device's node of level 0 beside others of that device holds the
	 * rest of its ops */
	int *per_dev = pl_xcalloc((size_t)p->c->n_dev, sizeof *per_dev);
	for (int i = 0; i < c->n_nodes; i++)
		per_dev[c->nodes[i].dev]++;
	for (int i = 0; i < c->n_nodes; i++)
		if (c->nodes[i].collapsed && c->nodes[i].depth == 0 && per_dev[c->nodes[i].dev] > 1) {
			free(c->nodes[i].label);
			c->nodes[i].label = pl_xstrdup("(other ops)");
		}
	free(per_dev);

	struct raw_edge *raw = pl_xcalloc(g->n_edges > 0 ? g->n_edges : 1, sizeof *raw);
	int nraw = 0;
	for (int e = 0; e < g->n_edges; e++) {
		const struct pl_edge *ed = &g->edges[e];
		int64_t bytes = g->tensors[ed->tensor].bytes;
		int a = c->node_of[ed->src], b = c->node_of[ed->dst];
		if (a == b) {
			c->internal_bytes += bytes;
			c->n_internal++;
			continue;
		}
		raw[nraw].src = a;
		raw[nraw].dst = b;
		raw[nraw].bytes = bytes;
		raw[nraw].critical = pos[ed->src] >= 0 && pos[ed->dst] == pos[ed->src] + 1;
		nraw++;
	}
	qsort(raw, (size_t)nraw, sizeof *raw, raw_cmp);
	c->edges = pl_xcalloc(nraw > 0 ? nraw : 1, sizeof *c->edges);
	for (int i = 0; i < nraw; i++) {
		struct pl_coarse_edge *last = c->n_edges > 0 ? &c->edges[c->n_edges - 1] : NULL;
		if (last == NULL || last->src != raw[i].src || last->dst != raw[i].dst) {
			last = &c->edges[c->n_edges++];
			last->src = raw[i].src;
			last->dst = raw[i].dst;
		}
		last->bytes += raw[i].bytes;
		last->n_edges++;
		last->critical |= raw[i].critical;
	}
	free(raw);
	free(pos);
	free(plen);
	free(collapsed);
	free_strings(paths, nops);
	return c;
}

/* Every op at the same level. */
static int *
uniform_levels(int nops, int level)
{
	int *lv = pl_xcalloc(nops > 0 ? nops : 1, sizeof *lv);
	for (int v = 0; v < nops; v++)
		lv[v] = level;
	return lv;
}

/* Coarsen at one level. */
struct pl_coarse *
pl_coarsen(const struct pl_problem *p, const struct pl_placement *pl,
    int level, const int *critical, int n_critical)
{
	if (level < 0)
		level = PL_COARSE_FULL;
	int *lv = uniform_levels(p->g->n_ops, level);
	struct pl_coarse *c = build(p, pl, all_paths(p->g), lv, level, critical, n_critical);
	free(lv);
	return c;
}

/* A scope node of the refinement tree: (device, path prefix of `depth`
 * components), offered one level deeper as a unit. */
struct scope {
	int id;
	int depth;
	int parent;		/* scope one level up, or -1 at depth 1 */
	int parts;		/* nodes it splits into one level deeper */
	int first;		/* topological position of its first op */
	double time_us;
};

/* The order scopes are offered in: shallower first, then those splitting
 * into at most PL_COARSE_FANOUT parts, then more time, then earlier. */
static int
scope_cmp(const void *a, const void *b)
{
	const struct scope *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	int wx = x->parts > PL_COARSE_FANOUT, wy = y->parts > PL_COARSE_FANOUT;
	if (wx != wy)
		return wx - wy;
	if (x->time_us != y->time_us)
		return x->time_us > y->time_us ? -1 : 1;
	return x->first - y->first;
}

/*
 * Levels within max_nodes, from level 1 (which must fit): build every
 * scope node of every depth, offer each in the fixed order, deepen it when
 * its parent was deepened and its parts fit what is left, and give every
 * op the depth of its first scope not deepened.  Fixed order and first fit
 * make the node count grow with the budget; offering all of a depth before
 * the next makes it at least as fine as the finest single level that fits.
 */
static void
budget_levels(const struct pl_problem *p, const struct pl_placement *pl,
    char **paths, int *lv, int max_nodes)
{
	const struct pl_graph *g = p->g;
	int nops = g->n_ops;
	int *ncomp = pl_xcalloc(nops > 0 ? nops : 1, sizeof *ncomp);
	int *at = pl_xcalloc(nops > 0 ? nops : 1, sizeof *at);	/* first slot in of[] */
	int total = 0;
	for (int v = 0; v < nops; v++) {
		ncomp[v] = path_depth(paths[v]);
		at[v] = total;
		total += ncomp[v] > 1 ? ncomp[v] - 1 : 0;
	}
	int *of = pl_xcalloc(total > 0 ? total : 1, sizeof *of);	/* op, depth -> scope */
	struct scope *sc = pl_xcalloc(total > 0 ? total : 1, sizeof *sc);
	int ns = 0, base = 0;
	struct ktab t;
	ktab_init(&t, (size_t)total);
	for (int i = 0; i < nops; i++) {
		int v = g->topo[i];
		double us = pl_problem_op_us(p, v, pl->dev[v]);
		if (ncomp[v] <= 1)
			base++;		/* alone at level 1 already */
		for (int d = 1; d < ncomp[v]; d++) {
			struct key k = { pl->dev[v], d, paths[v], prefix_len(paths[v], d) };
			int id = ktab_put(&t, &k, ns);
			if (id < 0) {
				id = ns++;
				sc[id].id = id;
				sc[id].depth = d;
				sc[id].parent = d > 1 ? of[at[v] + d - 2] : -1;
				sc[id].first = i;
				if (d > 1)
					sc[sc[id].parent].parts++;
				else
					base++;
			}
			sc[id].time_us += us;
			of[at[v] + d - 1] = id;
		}
		if (ncomp[v] > 1)
			sc[of[at[v] + ncomp[v] - 2]].parts++;	/* the op alone */
	}
	ktab_free(&t);

	struct scope *order = pl_xcalloc(ns > 0 ? (size_t)ns : 1, sizeof *order);
	memcpy(order, sc, (size_t)ns * sizeof *order);
	qsort(order, (size_t)ns, sizeof *order, scope_cmp);
	char *deep = pl_xcalloc(ns > 0 ? (size_t)ns : 1, 1);
	int left = max_nodes - base;
	for (int i = 0; i < ns; i++) {
		const struct scope *s = &order[i];
		if ((s->parent >= 0 && !deep[s->parent]) || s->parts - 1 > left)
			continue;
		deep[s->id] = 1;
		left -= s->parts - 1;
	}
	for (int v = 0; v < nops; v++) {
		int d = 1;
		while (d < ncomp[v] && deep[of[at[v] + d - 1]])
			d++;
		lv[v] = d;
	}
	free(deep);
	free(order);
	free(sc);
	free(of);
	free(at);
	free(ncomp);
}

/* A node of level 1 offered out of its device's node of level 0. */
struct unit {
	int id;			/* its node number at level 1 (topological) */
	int dev;
	double time_us;
};

/* More time first, then earlier. */
static int
unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	if (x->time_us != y->time_us)
		return x->time_us > y->time_us ? -1 : 1;
	return x->id - y->id;
}

/*
 * Levels 0 and 1 within max_nodes when level 1 is over it: from one node
 * per device, take out the nodes of level 1 (scopes and lone ops), most
 * time first, while the budget allows (taking a device's last one out
 * costs nothing: its node of level 0 goes); the rest of each device stays
 * one node.  Returns how many were taken out (0: level 0 it is).
 */
static int
budget_below_one(const struct pl_problem *p, const struct pl_placement *pl,
    char **paths, int *lv, int max_nodes)
{
	const struct pl_graph *g = p->g;
	int nops = g->n_ops, D = p->c->n_dev;
	int *node_of = pl_xcalloc(nops > 0 ? nops : 1, sizeof *node_of);
	int *collapsed = pl_xcalloc(nops > 0 ? nops : 1, sizeof *collapsed);
	int *plen = pl_xcalloc(nops > 0 ? nops : 1, sizeof *plen);
	int *one = uniform_levels(nops, 1);
	int nu = assign_nodes(g, pl, paths, one, node_of, collapsed, plen);
	struct unit *u = pl_xcalloc(nu > 0 ? (size_t)nu : 1, sizeof *u);
	int *left = pl_xcalloc((size_t)D, sizeof *left);	/* units still in dev's node */
	char *out = pl_xcalloc(nu > 0 ? (size_t)nu : 1, 1);
	for (int i = 0; i < nu; i++)
		u[i].id = i;
	for (int v = 0; v < nops; v++) {
		struct unit *x = &u[node_of[v]];
		x->dev = pl->dev[v];
		x->time_us += pl_problem_op_us(p, v, pl->dev[v]);
	}
	int nodes = 0;
	for (int i = 0; i < nu; i++)
		nodes += left[u[i].dev]++ == 0;
	qsort(u, (size_t)nu, sizeof *u, unit_cmp);
	int taken = 0;
	for (int i = 0; i < nu; i++) {
		int cost = left[u[i].dev] > 1;
		if (nodes + cost > max_nodes)
			continue;
		nodes += cost;
		left[u[i].dev]--;
		out[u[i].id] = 1;
		taken++;
	}
	for (int v = 0; v < nops; v++)
		lv[v] = out[node_of[v]] ? 1 : 0;
	free(out);
	free(left);
	free(u);
	free(one);
	free(plen);
	free(collapsed);
	free(node_of);
	return taken;
}

/* Coarsen within a node budget. */
struct pl_coarse *
pl_coarsen_auto(const struct pl_problem *p, const struct pl_placement *pl,
    int max_nodes, const int *critical, int n_critical)
{
	const struct pl_graph *g = p->g;
	if (g->n_ops <= max_nodes)
		return pl_coarsen(p, pl, PL_COARSE_FULL, critical, n_critical);
	char **paths = all_paths(g);
	int *lv = uniform_levels(g->n_ops, 1);
	if (count_with(g, pl, paths, 1) > max_nodes) {
		if (budget_below_one(p, pl, paths, lv, max_nodes) == 0) {
			free(lv);
			free_strings(paths, g->n_ops);
			return pl_coarsen(p, pl, 0, critical, n_critical);
		}
	} else
		budget_levels(p, pl, paths, lv, max_nodes);
	struct pl_coarse *c = build(p, pl, paths, lv, PL_COARSE_AUTO, critical, n_critical);
	free(lv);
	return c;
}

/* Free a coarse graph. */
void
pl_coarse_free(struct pl_coarse *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->n_nodes; i++)
		free(c->nodes[i].label);
	free(c->nodes);
	free(c->edges);
	free(c->node_of);
	free(c);
}

/* Binary search of the sorted edges. */
int
pl_coarse_find_edge(const struct pl_coarse *c, int src, int dst)
{
	int lo = 0, hi = c->n_edges - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const struct pl_coarse_edge *e = &c->edges[mid];
		if (e->src == src && e->dst == dst)
			return mid;
		if (e->src < src || (e->src == src && e->dst < dst))
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Put a transfer of tensor tn to device dst (-1: any device but the
 * producer's) on the edge to its first reader there. */
static void
add_moved(struct pl_coarse *c, const struct pl_graph *g, const struct pl_placement *pl,
    int tn, int dst, int64_t bytes)
{
	int u = g->tensors[tn].op, first = -1;
	for (int k = g->out_off[u]; k < g->out_off[u + 1]; k++) {
		const struct pl_edge *ed = &g->edges[g->out_edge[k]];
		int d = pl->dev[ed->dst];
		if (ed->tensor != tn || d == pl->dev[u] || (dst >= 0 && d != dst))
			continue;
		if (first < 0 || g->topo_pos[ed->dst] < g->topo_pos[first])
			first = ed->dst;
	}
	if (first < 0)
		return;		/* not a transfer of this placement */
	int e = pl_coarse_find_edge(c, c->node_of[u], c->node_of[first]);
	if (e < 0)
		return;
	c->edges[e].moved += bytes;
	c->moved_bytes += bytes;
}

/* Moved bytes from the transfers of t, or of the native model. */
void
pl_coarse_set_moved(struct pl_coarse *c, const struct pl_graph *g,
    const struct pl_placement *pl, const struct pl_trace *t)
{
	for (int e = 0; e < c->n_edges; e++)
		c->edges[e].moved = 0;
	c->moved_bytes = 0;
	if (t != NULL) {
		for (int i = 0; i < t->n_xfers; i++)
			add_moved(c, g, pl, t->xfers[i].tensor, t->xfers[i].dst_dev,
			    t->xfers[i].bytes);
		return;
	}
	for (int tn = 0; tn < g->n_tensors; tn++) {
		int u = g->tensors[tn].op;
		uint64_t seen = 0;
		for (int k = g->out_off[u]; k < g->out_off[u + 1]; k++) {
			const struct pl_edge *ed = &g->edges[g->out_edge[k]];
			int d = pl->dev[ed->dst];
			if (ed->tensor != tn || d == pl->dev[u] || ((seen >> d) & 1))
				continue;
			seen |= (uint64_t)1 << d;
			add_moved(c, g, pl, tn, d, g->tensors[tn].bytes);
		}
	}
}

/* Count nodes at a level, given the paths. */
static int
count_with(const struct pl_graph *g, const struct pl_placement *pl,
    char **paths, int level)
{
	if (level < 0)
		return g->n_ops;
	int nops = g->n_ops;
	int *node_of = pl_xcalloc(nops > 0 ? nops : 1, sizeof *node_of);
	int *collapsed = pl_xcalloc(nops > 0 ? nops : 1, sizeof *collapsed);
	int *plen = pl_xcalloc(nops > 0 ? nops : 1, sizeof *plen);
	int *lv = uniform_levels(nops, level);
	int n = assign_nodes(g, pl, paths, lv, node_of, collapsed, plen);
	free(lv);
	free(plen);
	free(collapsed);
	free(node_of);
	return n;
}

/* Node count at a level. */
int
pl_coarse_count(const struct pl_graph *g, const struct pl_placement *pl, int level)
{
	char **paths = all_paths(g);
	int n = count_with(g, pl, paths, level);
	free_strings(paths, g->n_ops);
	return n;
}

/* Deepest path. */
int
pl_coarse_max_depth(const struct pl_graph *g)
{
	int best = 0;
	for (int v = 0; v < g->n_ops; v++) {
		char *s = op_path(&g->ops[v]);
		int d = path_depth(s);
		free(s);
		if (d > best)
			best = d;
	}
	return best;
}

/* Finest level within max_nodes.  Counts grow with the level, so scan
 * upwards and stop at the first level that no longer fits. */
int
pl_coarse_pick_level(const struct pl_graph *g, const struct pl_placement *pl,
    int max_nodes)
{
	if (g->n_ops <= max_nodes)
		return PL_COARSE_FULL;
	char **paths = all_paths(g);
	int depth = 0;
	for (int v = 0; v < g->n_ops; v++) {
		int d = path_depth(paths[v]);
		if (d > depth)
			depth = d;
	}
	int best = 0;
	for (int level = 1; level < depth; level++) {
		if (count_with(g, pl, paths, level) > max_nodes)
			break;
		best = level;
	}
	free_strings(paths, g->n_ops);
	return best;
}
