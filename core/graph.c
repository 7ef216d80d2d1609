/*
 * graph — building, validating and querying computation graphs.
 *
 * Invariant: see graph.h.  The builder accepts anything; pl_graph_build()
 * is the single place that checks, so every loader and generator gets the
 * same validation and the same error messages.
 */
#include "graph.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iheap.h"
#include "strbuf.h"
#include "strmap.h"
#include "xmalloc.h"

static const char *const kind_names[] = {
#define PL_X(e, s) s,
	PL_DEV_KINDS(PL_X)
#undef PL_X
};

/* Name of a device kind. */
const char *
pl_dev_kind_name(enum pl_dev_kind k)
{
	return (unsigned)k < PL_DEV_KIND_COUNT ? kind_names[k] : "?";
}

/* Device kind from its name, or -1. */
int
pl_dev_kind_parse(const char *s)
{
	for (int i = 0; i < PL_DEV_KIND_COUNT; i++)
		if (strcmp(s, kind_names[i]) == 0)
			return i;
	return -1;
}

struct pending_edge {
	char *src_name, *dst_name;	/* NULL when given by id */
	int src, dst, out;
	int64_t bytes;
	struct pl_src_pos pos;
};

struct pl_graph_builder {
	char *name;
	char *file;
	struct pl_src_pos cur;
	int n_ops, cap_ops;
	int n_added;		/* ops added; n_ops drops to 0 once they move */
	int64_t n_over;		/* ops past PL_MAX_OPS, not kept (nor their
				 * edges): pl_graph_build() refuses */
	struct pl_op *ops;
	char **op_group;
	struct pl_src_pos *op_pos;
	int n_edges, cap_edges;
	struct pending_edge *edges;
	struct pl_strmap names;
};

/* A new, empty builder. */
struct pl_graph_builder *
pl_graph_builder_new(const char *name)
{
	struct pl_graph_builder *b = pl_xcalloc(1, sizeof *b);
	b->name = pl_xstrdup(name != NULL ? name : "graph");
	pl_strmap_init(&b->names, 64);
	return b;
}

/* Free the strings of one op. */
static void
op_free_strings(struct pl_op *op)
{
	free(op->name);
	free(op->type);
	free(op->scope);
	free(op->cons.device);
	for (int i = 0; i < op->n_dev_times; i++)
		free(op->dev_times[i].device);
	free(op->dev_times);
}

/* Free a builder and everything it holds. */
void
pl_graph_builder_free(struct pl_graph_builder *b)
{
	if (b == NULL)
		return;
	for (int i = 0; i < b->n_ops; i++)
		op_free_strings(&b->ops[i]);
	for (int i = 0; i < b->n_added; i++)
		free(b->op_group[i]);
	for (int i = 0; i < b->n_edges; i++) {
		free(b->edges[i].src_name);
		free(b->edges[i].dst_name);
	}
	free(b->ops);
	free(b->op_group);
	free(b->op_pos);
	free(b->edges);
	pl_strmap_free(&b->names);
	free(b->name);
	free(b->file);
	free(b);
}

/* Rename the graph. */
void
pl_graph_builder_set_name(struct pl_graph_builder *b, const char *name)
{
	free(b->name);
	b->name = pl_xstrdup(name);
}

/* Name of the source file for messages. */
void
pl_graph_builder_set_source(struct pl_graph_builder *b, const char *file)
{
	free(b->file);
	b->file = file != NULL ? pl_xstrdup(file) : NULL;
}

/* Position of the next added item in the source. */
void
pl_graph_builder_set_line(struct pl_graph_builder *b, int line, int column)
{
	b->cur.line = line;
	b->cur.col = column;
}

/* Add an op (copied). */
int
pl_graph_add_op(struct pl_graph_builder *b, const struct pl_op *op,
    const char *group_name)
{
	if (b->n_ops >= PL_MAX_OPS) {	/* only counted (the last one
					 * stands in): the build fails */
		b->n_over++;
		return b->n_ops - 1;
	}
	if (b->n_ops == b->cap_ops) {
		b->cap_ops = b->cap_ops ? b->cap_ops * 2 : 64;
		b->ops = pl_xreallocarray(b->ops, b->cap_ops, sizeof *b->ops);
		b->op_group = pl_xreallocarray(b->op_group, b->cap_ops, sizeof *b->op_group);
		b->op_pos = pl_xreallocarray(b->op_pos, b->cap_ops, sizeof *b->op_pos);
	}
	int id = b->n_ops++;
	b->n_added = b->n_ops;
	struct pl_op *o = &b->ops[id];
	*o = *op;
	o->name = pl_xstrdup(op->name != NULL ? op->name : "");
	o->type = pl_xstrdup(op->type != NULL ? op->type : "");
	o->scope = pl_xstrdup(op->scope != NULL ? op->scope : "");
	o->cons.device = op->cons.device != NULL ? pl_xstrdup(op->cons.device) : NULL;
	o->dev_times = NULL;
	if (op->n_dev_times > 0) {
		o->dev_times = pl_xmalloc(sizeof *o->dev_times * op->n_dev_times);
		for (int i = 0; i < op->n_dev_times; i++) {
			o->dev_times[i].device = pl_xstrdup(op->dev_times[i].device);
			o->dev_times[i].us = op->dev_times[i].us;
		}
	}
	o->group = -1;
	o->first_tensor = o->n_tensors = 0;
	b->op_group[id] = group_name != NULL && *group_name ? pl_xstrdup(group_name) : NULL;
	b->op_pos[id] = b->cur;
	/* First definition wins in the map; duplicates are reported in build. */
	pl_strmap_put(&b->names, o->name, id);
	return id;
}

/* Grow the edge array by one and return the new slot. */
static struct pending_edge *
new_edge(struct pl_graph_builder *b)
{
	if (b->n_edges == b->cap_edges) {
		b->cap_edges = b->cap_edges ? b->cap_edges * 2 : 64;
		b->edges = pl_xreallocarray(b->edges, b->cap_edges, sizeof *b->edges);
	}
	struct pending_edge *e = &b->edges[b->n_edges++];
	memset(e, 0, sizeof *e);
	e->pos = b->cur;
	return e;
}

/* Add an edge between named ops (resolved in build). */
void
pl_graph_add_edge_named(struct pl_graph_builder *b, const char *src,
    const char *dst, int src_output, int64_t bytes)
{
	struct pending_edge *e = new_edge(b);
	e->src_name = pl_xstrdup(src);
	e->dst_name = pl_xstrdup(dst);
	e->src = e->dst = -1;
	e->out = src_output;
	e->bytes = bytes;
}

/* Add an edge between op ids. */
void
pl_graph_add_edge(struct pl_graph_builder *b, int src, int dst,
    int src_output, int64_t bytes)
{
	if (b->n_over > 0)	/* the build fails: not kept */
		return;
	struct pending_edge *e = new_edge(b);
	e->src = src;
	e->dst = dst;
	e->out = src_output;
	e->bytes = bytes;
}

/* Op id by name among those added, or -1. */
int
pl_graph_builder_find(const struct pl_graph_builder *b, const char *name)
{
	return pl_strmap_get(&b->names, name);
}

/* Number of ops added so far. */
int
pl_graph_builder_n_ops(const struct pl_graph_builder *b)
{
	return b->n_ops;
}

/* An added op, for adjustment. */
struct pl_op *
pl_graph_builder_op(struct pl_graph_builder *b, int id)
{
	return &b->ops[id];
}

/* ---- validation --------------------------------------------------------- */

/* A message prefixed "FILE:LINE:COL: " with what of it is known. */
static char *
vmsg_at(const char *file, struct pl_src_pos pos, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static char *
vmsg_at(const char *file, struct pl_src_pos pos, const char *fmt, va_list ap)
{
	char *msg = pl_xvasprintf(fmt, ap), *full;	/* whole, however long */
	if (file == NULL)
		return msg;
	if (pos.line > 0 && pos.col > 0)
		full = pl_xasprintf("%s:%d:%d: %s", file, pos.line, pos.col, msg);
	else if (pos.line > 0)
		full = pl_xasprintf("%s:%d: %s", file, pos.line, msg);
	else
		full = pl_xasprintf("%s: %s", file, msg);
	free(msg);
	return full;
}

/* Format an error with the source position. */
static char *
errat(const struct pl_graph_builder *b, struct pl_src_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static char *
errat(const struct pl_graph_builder *b, struct pl_src_pos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = vmsg_at(b->file != NULL ? b->file : b->name, pos, fmt, ap);
	va_end(ap);
	return m;
}

/* A message about op v, prefixed with where the op was defined. */
char *
pl_graph_op_message(const struct pl_graph *g, int v, const char *fmt, ...)
{
	struct pl_src_pos none = { 0, 0 };
	va_list ap;
	va_start(ap, fmt);
	char *m = vmsg_at(g->source, g->op_pos != NULL ? g->op_pos[v] : none, fmt, ap);
	va_end(ap);
	return m;
}

/* Check that a byte count is sane. */
static int
bad_bytes(int64_t v)
{
	return v < 0 || v > PL_MAX_BYTES;
}

/* Check one op's numbers; returns a message or NULL. */
static char *
check_op(const struct pl_graph_builder *b, int i)
{
	const struct pl_op *o = &b->ops[i];
	struct pl_src_pos pos = b->op_pos[i];
	if (o->name[0] == '\0')
		return errat(b, pos, "op #%d: empty name (expected a non-empty string)", i);
	if (!isfinite(o->flops) || o->flops < 0 || o->flops > PL_MAX_FLOPS)
		return errat(b, pos, "op '%s': field 'flops' is %s (expected a finite number in [0, %g])",
		    o->name, pl_fmt_exact((char[32]){ 0 }, 32, o->flops), PL_MAX_FLOPS);
	const struct { const char *f; int64_t v; } bytes[] = {
		{ "param_bytes", o->param_bytes },
		{ "out_bytes", o->out_bytes },
		{ "temp_bytes", o->temp_bytes },
	};
	for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++)
		if (bad_bytes(bytes[k].v) && !(k == 1 && bytes[k].v == PL_OUT_BYTES_SUM))
			return errat(b, pos, "op '%s': field '%s' is %lld (expected bytes in [0, 2^50])",
			    o->name, bytes[k].f, (long long)bytes[k].v);
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++) {
		double t = o->measured_us[k];
		if (isnan(t) || isinf(t) || t > 1e12)
			return errat(b, pos, "op '%s': measured time on %s is %s (expected a finite number of us)",
			    o->name, pl_dev_kind_name(k), pl_fmt_exact((char[32]){ 0 }, 32, t));
	}
	for (int k = 0; k < o->n_dev_times; k++) {
		double t = o->dev_times[k].us;
		if (isnan(t) || t < 0 || t > 1e12)
			return errat(b, pos, "op '%s': measured time on '%s' is %s (expected a finite number of us >= 0)",
			    o->name, o->dev_times[k].device, pl_fmt_exact((char[32]){ 0 }, 32, t));
	}
	if (o->cons.kind == PL_CONS_DEVICE && (o->cons.device == NULL || !*o->cons.device))
		return errat(b, pos, "op '%s': device constraint without a device name", o->name);
	return NULL;
}

/* Topological order by Kahn's algorithm, ties by list order.  Returns the
 * number of ops ordered (< n_ops iff there is a cycle). */
static int
topo_sort(struct pl_graph *g)
{
	int n = g->n_ops;
	int *indeg = pl_xcalloc(n, sizeof *indeg);
	int *heap = pl_xmalloc(sizeof *heap * (n ? n : 1));
	int hn = 0, k = 0;
	for (int e = 0; e < g->n_edges; e++)
		indeg[g->edges[e].dst]++;
	for (int v = 0; v < n; v++)
		if (indeg[v] == 0)
			pl_iheap_push(heap, &hn, NULL, v);
	while (hn > 0) {
		int v = pl_iheap_pop(heap, &hn, NULL);
		g->topo[k++] = v;
		for (int j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			int w = g->edges[g->out_edge[j]].dst;
			if (--indeg[w] == 0)
				pl_iheap_push(heap, &hn, NULL, w);
		}
	}
	free(indeg);
	free(heap);
	return k;
}

/* Describe a cycle among the ops not in the topological order. */
static char *
describe_cycle(const struct pl_graph_builder *b, const struct pl_graph *g, int ordered)
{
	int n = g->n_ops;
	char *in_order = pl_xcalloc(n, 1);
	for (int i = 0; i < ordered; i++)
		in_order[g->topo[i]] = 1;
	/* Walk backwards along unordered predecessors until a node repeats:
	 * every unordered op has an unordered predecessor. */
	int *seen_at = pl_xmalloc(sizeof *seen_at * n);
	for (int i = 0; i < n; i++)
		seen_at[i] = -1;
	int *walk = pl_xmalloc(sizeof *walk * (n + 1));
	int v = 0;
	while (in_order[v])
		v++;
	int len = 0;
	while (seen_at[v] < 0) {
		seen_at[v] = len;
		walk[len++] = v;
		int next = -1;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			int u = g->edges[g->in_edge[j]].src;
			if (!in_order[u]) {
				next = u;
				break;
			}
		}
		v = next;
	}
	/* The cycle is walk[seen_at[v] .. len), reversed (we walked backwards). */
	/* about 800 bytes of it: each name whole up to 120 bytes (else its
	 * start, cut between characters, and "…"), then "..." */
	struct pl_strbuf path = { 0 };
	int count = len - seen_at[v];
	for (int i = len - 1; i >= seen_at[v] - 1; i--) {
		if (path.len > 800) {
			pl_sb_printf(&path, "...");
			break;
		}
		const char *name = g->ops[walk[i < seen_at[v] ? len - 1 : i]].name;
		pl_sb_printf(&path, "'%.*s%s'%s", PL_SHOWN(name), i >= seen_at[v] ? " -> " : "");
	}
	char *msg = errat(b, b->op_pos[walk[len - 1]],
	    "the graph has a cycle of %d op%s: %s (expected a DAG)", count, count == 1 ? "" : "s",
	    path.s != NULL ? path.s : "");
	free(path.s);
	free(in_order);
	free(seen_at);
	free(walk);
	return msg;
}

/* Compare pending edges by (src, out) for tensor building. */
struct tkey {
	int src, out, edge;
};

static int
tkey_cmp(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->out != y->out)
		return x->out < y->out ? -1 : 1;
	return x->edge < y->edge ? -1 : x->edge > y->edge;
}

/* Build CSR arrays for one direction. */
static void
build_csr(const struct pl_graph *g, int dir_out, int **off_out, int **idx_out)
{
	int n = g->n_ops;
	int *off = pl_xcalloc((size_t)n + 1, sizeof *off);
	int *idx = pl_xmalloc(sizeof *idx * (g->n_edges ? g->n_edges : 1));
	for (int e = 0; e < g->n_edges; e++)
		off[(dir_out ? g->edges[e].src : g->edges[e].dst) + 1]++;
	for (int v = 0; v < n; v++)
		off[v + 1] += off[v];
	int *fill = pl_xmalloc(sizeof *fill * (n ? n : 1));
	memcpy(fill, off, sizeof *fill * n);
	for (int e = 0; e < g->n_edges; e++)
		idx[fill[dir_out ? g->edges[e].src : g->edges[e].dst]++] = e;
	free(fill);
	*off_out = off;
	*idx_out = idx;
}

/* Validate and freeze the graph. */
struct pl_graph *
pl_graph_build(struct pl_graph_builder *b, char **cause)
{
	char *err = NULL;
	struct pl_graph *g = NULL;

	if (b->n_ops == 0) {
		err = errat(b, (struct pl_src_pos){ 0, 0 }, "the graph has no ops (expected at least one)");
		goto fail;
	}
	if (b->n_over > 0) {
		err = errat(b, (struct pl_src_pos){ 0, 0 }, "%lld ops is more than the %d supported (expected a smaller graph)",
		    (long long)b->n_ops + b->n_over, PL_MAX_OPS);
		goto fail;
	}
	int64_t held = 0;	/* bytes of the ops and edges so far */
	for (int i = 0; i < b->n_ops; i++) {
		if ((err = check_op(b, i)) != NULL)
			goto fail;
		const struct pl_op *o = &b->ops[i];
		held += o->param_bytes + (o->out_bytes > 0 ? o->out_bytes : 0) + o->temp_bytes;
		if (held > PL_MAX_GRAPH_BYTES) {
			err = errat(b, b->op_pos[i], "op '%s': the ops up to here hold more than 2^56 bytes in all (expected at most 64 PiB in a graph)",
			    o->name);
			goto fail;
		}
		int first = pl_strmap_get(&b->names, b->ops[i].name);
		if (first != i) {
			if (b->op_pos[first].line > 0)
				err = errat(b, b->op_pos[i], "op '%s': duplicate name (first defined at line %d)",
				    b->ops[i].name, b->op_pos[first].line);
			else
				err = errat(b, b->op_pos[i], "op '%s': duplicate name (first defined as op #%d)",
				    b->ops[i].name, first);
			goto fail;
		}
	}
	/* Resolve edges. */
	for (int i = 0; i < b->n_edges; i++) {
		struct pending_edge *e = &b->edges[i];
		if (e->src_name != NULL) {
			e->src = pl_strmap_get(&b->names, e->src_name);
			e->dst = pl_strmap_get(&b->names, e->dst_name);
			if (e->src < 0 || e->dst < 0) {
				err = errat(b, e->pos, "edge '%s' -> '%s': unknown op '%s' (expected the name of an op of the graph)",
				    e->src_name, e->dst_name, e->src < 0 ? e->src_name : e->dst_name);
				goto fail;
			}
		}
		if (e->src < 0 || e->src >= b->n_ops || e->dst < 0 || e->dst >= b->n_ops) {
			err = errat(b, e->pos, "edge #%d: op id out of range", i);
			goto fail;
		}
		if (e->src == e->dst) {
			err = errat(b, e->pos, "the graph has a cycle of 1 op: '%s' -> '%s' (expected a DAG)",
			    b->ops[e->src].name, b->ops[e->src].name);
			goto fail;
		}
		if (e->out < 0 || e->out >= PL_MAX_OUTPUTS) {
			err = errat(b, e->pos, "edge '%s' -> '%s': output index %d (expected 0..%d)",
			    b->ops[e->src].name, b->ops[e->dst].name, e->out, PL_MAX_OUTPUTS - 1);
			goto fail;
		}
		if (bad_bytes(e->bytes)) {
			err = errat(b, e->pos, "edge '%s' -> '%s': bytes is %lld (expected bytes in [0, 2^50])",
			    b->ops[e->src].name, b->ops[e->dst].name, (long long)e->bytes);
			goto fail;
		}
		held += e->bytes;
		if (held > PL_MAX_GRAPH_BYTES) {
			err = errat(b, e->pos, "edge '%s' -> '%s': the ops and edges up to here hold more than 2^56 bytes in all (expected at most 64 PiB in a graph)",
			    b->ops[e->src].name, b->ops[e->dst].name);
			goto fail;
		}
	}

	g = pl_xcalloc(1, sizeof *g);
	g->name = pl_xstrdup(b->name);
	g->n_ops = b->n_ops;
	g->n_edges = b->n_edges;
	g->ops = pl_xcalloc(g->n_ops, sizeof *g->ops);
	memcpy(g->ops, b->ops, sizeof *g->ops * g->n_ops);
	/* Ownership of the op strings moves to the graph. */
	b->n_ops = 0;
	g->edges = pl_xcalloc(g->n_edges ? g->n_edges : 1, sizeof *g->edges);

	/* Tensors: distinct (src, out), consistent bytes. */
	struct tkey *keys = pl_xmalloc(sizeof *keys * (g->n_edges ? g->n_edges : 1));
	for (int i = 0; i < g->n_edges; i++)
		keys[i] = (struct tkey){ b->edges[i].src, b->edges[i].out, i };
	qsort(keys, g->n_edges, sizeof *keys, tkey_cmp);
	g->tensors = pl_xmalloc(sizeof *g->tensors * (g->n_edges ? g->n_edges : 1));
	for (int i = 0; i < g->n_edges; i++) {
		const struct pending_edge *pe = &b->edges[keys[i].edge];
		if (i == 0 || keys[i].src != keys[i - 1].src || keys[i].out != keys[i - 1].out) {
			g->tensors[g->n_tensors++] = (struct pl_tensor){ pe->src, pe->out, pe->bytes };
		} else if (g->tensors[g->n_tensors - 1].bytes != pe->bytes) {
			err = errat(b, pe->pos, "edge '%s' -> '%s': output %d of '%s' carries %lld bytes here but %lld on another edge (expected one size per tensor)",
			    g->ops[pe->src].name, g->ops[pe->dst].name, pe->out, g->ops[pe->src].name,
			    (long long)pe->bytes, (long long)g->tensors[g->n_tensors - 1].bytes);
			free(keys);
			goto fail;
		}
		g->edges[keys[i].edge] = (struct pl_edge){ pe->src, pe->dst, g->n_tensors - 1 };
	}
	free(keys);
	for (int v = 0; v < g->n_ops; v++)
		g->ops[v].first_tensor = -1;
	for (int t = 0; t < g->n_tensors; t++) {
		struct pl_op *o = &g->ops[g->tensors[t].op];
		if (o->first_tensor < 0)
			o->first_tensor = t;
		o->n_tensors++;
	}
	for (int v = 0; v < g->n_ops; v++) {
		struct pl_op *o = &g->ops[v];
		if (o->first_tensor < 0)
			o->first_tensor = 0;
		int64_t sum = 0;
		for (int t = o->first_tensor; t < o->first_tensor + o->n_tensors; t++)
			sum += g->tensors[t].bytes;
		/* a file's out_bytes below its tensors is refused; a program's
		 * (a generator's, 0 for "their sum") is raised to them */
		if (o->out_bytes == PL_OUT_BYTES_SUM || (o->out_bytes < sum && b->file == NULL))
			o->out_bytes = sum;
		else if (o->out_bytes < sum) {
			err = errat(b, b->op_pos[v], "op '%s': field 'out_bytes' is %lld, less than its "
			    "output tensors' %lld bytes (expected at least %lld, or leave it out: "
			    "it defaults to their sum)", o->name, (long long)o->out_bytes,
			    (long long)sum, (long long)sum);
			goto fail;
		}
	}

	build_csr(g, 1, &g->out_off, &g->out_edge);
	build_csr(g, 0, &g->in_off, &g->in_edge);
	g->topo = pl_xmalloc(sizeof *g->topo * g->n_ops);
	g->topo_pos = pl_xmalloc(sizeof *g->topo_pos * g->n_ops);
	int ordered = topo_sort(g);
	if (ordered < g->n_ops) {
		err = describe_cycle(b, g, ordered);
		goto fail;
	}
	for (int i = 0; i < g->n_ops; i++)
		g->topo_pos[g->topo[i]] = i;

	/* Groups: named colocation groups, singletons for the rest. */
	struct pl_strmap gm;
	pl_strmap_init(&gm, 64);
	g->groups = pl_xmalloc(sizeof *g->groups * g->n_ops);
	for (int v = 0; v < g->n_ops; v++) {
		const char *gn = b->op_group[v];
		int id = gn != NULL ? pl_strmap_get(&gm, gn) : -1;
		if (id < 0) {
			id = g->n_groups++;
			g->groups[id] = (struct pl_group){ gn != NULL ? pl_xstrdup(gn) : NULL, 0, 0 };
			if (gn != NULL)
				pl_strmap_put(&gm, g->groups[id].name, id);
		}
		g->ops[v].group = id;
		g->groups[id].count++;
	}
	pl_strmap_free(&gm);
	g->groups = pl_xreallocarray(g->groups, g->n_groups, sizeof *g->groups);
	g->group_ops = pl_xmalloc(sizeof *g->group_ops * g->n_ops);
	int acc = 0;
	for (int k = 0; k < g->n_groups; k++) {
		g->groups[k].first = acc;
		acc += g->groups[k].count;
		g->groups[k].count = 0;
	}
	for (int v = 0; v < g->n_ops; v++) {
		struct pl_group *gr = &g->groups[g->ops[v].group];
		g->group_ops[gr->first + gr->count++] = v;
	}
	/* Where each op came from, for later messages. */
	g->source = b->file;
	b->file = NULL;
	g->op_pos = pl_xreallocarray(b->op_pos, g->n_ops, sizeof *g->op_pos);
	b->op_pos = NULL;
	pl_graph_builder_free(b);
	return g;

fail:
	if (g != NULL) {
		pl_graph_free(g);
	}
	pl_graph_builder_free(b);
	if (cause != NULL)
		*cause = err;
	else
		free(err);
	return NULL;
}

/* Free a graph. */
void
pl_graph_free(struct pl_graph *g)
{
	if (g == NULL)
		return;
	for (int i = 0; i < g->n_ops; i++)
		op_free_strings(&g->ops[i]);
	if (g->groups != NULL)
		for (int k = 0; k < g->n_groups; k++)
			free(g->groups[k].name);
	free(g->ops);
	free(g->edges);
	free(g->tensors);
	free(g->groups);
	free(g->group_ops);
	free(g->out_off);
	free(g->out_edge);
	free(g->in_off);
	free(g->in_edge);
	free(g->topo);
	free(g->topo_pos);
	free(g->op_pos);
	free(g->source);
	free(g->name);
	free(g);
}

/* ---- queries ------------------------------------------------------------ */

/* Op id by name (linear scan is avoided by a lazily built map). */
int
pl_graph_find(const struct pl_graph *g, const char *name)
{
	/* The graph is immutable and shared between threads, so no lazy state:
	 * a linear scan, fine for interactive use.  Hot paths use ids. */
	for (int i = 0; i < g->n_ops; i++)
		if (strcmp(g->ops[i].name, name) == 0)
			return i;
	return -1;
}

/* Op v's tensor of output index idx (see graph.h). */
int
pl_graph_tensor_of(const struct pl_graph *g, int v, long idx)
{
	const struct pl_op *o = &g->ops[v];
	for (int t = o->first_tensor; t < o->first_tensor + o->n_tensors; t++)
		if (g->tensors[t].index == idx)
			return t;
	return -1;
}

/* Sum of op flops. */
double
pl_graph_total_flops(const struct pl_graph *g)
{
	double s = 0;
	for (int i = 0; i < g->n_ops; i++)
		s += g->ops[i].flops;
	return s;
}

/* Sum of parameter bytes. */
int64_t
pl_graph_total_params(const struct pl_graph *g)
{
	int64_t s = 0;
	for (int i = 0; i < g->n_ops; i++)
		s += g->ops[i].param_bytes;
	return s;
}

/* Whether an op type is an optimizer's update: TF's Apply followed by the
 * optimizer's name, with the Resource and Sparse variants (ApplyAdam,
 * ResourceSparseApplyMomentum; not "Applied"). */
static int
is_update_type(const char *t)
{
	if (strncmp(t, "Resource", 8) == 0)
		t += 8;
	if (strncmp(t, "Sparse", 6) == 0)
		t += 6;
	return strncmp(t, "Apply", 5) == 0 && t[5] >= 'A' && t[5] <= 'Z';
}

/* Parameters and optimizer state apart: update ops (by type) hold the
 * optimizer's slots, every other op's param_bytes are parameters. */
void
pl_graph_param_bytes(const struct pl_graph *g, int64_t *params, int64_t *optimizer)
{
	*params = *optimizer = 0;
	for (int v = 0; v < g->n_ops; v++) {
		if (is_update_type(g->ops[v].type))
			*optimizer += g->ops[v].param_bytes;
		else
			*params += g->ops[v].param_bytes;
	}
}

/* Sum of output bytes. */
int64_t
pl_graph_total_activations(const struct pl_graph *g)
{
	int64_t s = 0;
	for (int i = 0; i < g->n_ops; i++)
		s += g->ops[i].out_bytes;
	return s;
}

/* Longest path by flops (dynamic programming over the topological order). */
double
pl_graph_longest_flops_path(const struct pl_graph *g, int *path, int *len)
{
	int n = g->n_ops;
	double *best = pl_xmalloc(sizeof *best * n);
	int *prev = pl_xmalloc(sizeof *prev * n);
	int end = n > 0 ? g->topo[0] : 0;	/* computed before it is compared */
	for (int i = 0; i < n; i++) {
		int v = g->topo[i];
		double b = 0;
		prev[v] = -1;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			int u = g->edges[g->in_edge[j]].src;
			if (best[u] > b || (prev[v] < 0 && best[u] >= b)) {
				b = best[u];
				prev[v] = u;
			}
		}
		best[v] = b + g->ops[v].flops;
		if (best[v] > best[end])
			end = v;
	}
	double total = best[end];
	int k = 0;
	for (int v = end; v >= 0; v = prev[v])
		k++;
	if (len != NULL)
		*len = k;
	if (path != NULL) {
		int i = k;
		for (int v = end; v >= 0; v = prev[v])
			path[--i] = v;
	}
	free(best);
	free(prev);
	return total;
}
