/*
 * sim-common — what both simulation models share: names, the workspace and
 * its precomputed graph structure, memory accounting, the lean and the
 * recording entry points, and the critical path.
 *
 * Invariant: pl_sim_ws_new() is the only place that allocates for the lean
 * path; pl_sim_eval() and the runners it calls only write into the
 * workspace.  pl_sim_trace() runs exactly the same runner with a recorder
 * attached, so both paths give the same numbers.
 */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "xmalloc.h"

static const char *const kind_names[] = {
#define PL_X(e, s) s,
	PL_SIM_KINDS(PL_X)
#undef PL_X
};
#define N_KINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

/* Kind by name, or -1. */
int
pl_sim_kind_parse(const char *s)
{
	if (s == NULL)
		return -1;
	for (int k = 0; k < N_KINDS; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return k;
	return -1;
}

/* Name of a kind. */
const char *
pl_sim_kind_name(enum pl_sim_kind k)
{
	return (unsigned)k < (unsigned)N_KINDS ? kind_names[k] : "?";
}

/* Memory model by name, or -1. */
int
pl_mem_model_parse(const char *s)
{
	if (s == NULL)
		return -1;
	if (strcmp(s, "native") == 0)
		return PL_MEM_NATIVE;
	if (strcmp(s, "placeto") == 0)
		return PL_MEM_PLACETO;
	if (strcmp(s, "none") == 0)
		return PL_MEM_NONE;
	return -1;
}

/* Name of a memory model. */
const char *
pl_mem_model_name(enum pl_mem_model m)
{
	switch (m) {
	case PL_MEM_NATIVE: return "native";
	case PL_MEM_PLACETO: return "placeto";
	case PL_MEM_NONE: return "none";
	}
	return "?";
}

/* ---- workspace ---------------------------------------------------------- */

/*
 * From this many ops + edges on, a workspace (about 300 bytes per op +
 * edge) outgrows what the TLB maps with 4 KiB pages, and a run's random
 * accesses would each add a page walk: its arrays are then carved from
 * one region on 2 MiB pages (ws->arena).  Not under AddressSanitizer,
 * which checks each array's bounds only when it is allocated on its own.
 */
#define ARENA_MIN 16384

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_OK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_OK 0
#endif
#endif
#ifndef ARENA_OK
#define ARENA_OK 1
#endif

/* Reserve the arena of a large workspace: an upper bound on what it will
 * take (pages are only used once touched), or nothing for a small one. */
static void
ws_arena_reserve(struct pl_sim_ws *ws, int E)
{
	size_t n = (size_t)ws->n, D = (size_t)ws->n_dev;
	if (!ARENA_OK || n + (size_t)E < ARENA_MIN)
		return;
	size_t len = (n + (size_t)E + (size_t)ws->n_tensors + 64) * 1024 +
	    n * D * 16 + ((size_t)4 << 20);
	ws->arena = pl_alloc_pages(len, &ws->arena_len);	/* NULL: none */
}

/* An allocation counted into the workspace's size, zeroed: from the arena
 * (64-byte aligned) when there is one and it has room, else on its own. */
static void *
ws_alloc(struct pl_sim_ws *ws, size_t n, size_t size)
{
	if (n == 0)
		n = 1;
	ws->bytes += n * size;
	if (ws->arena != NULL) {
		size_t at = (ws->arena_used + 63) & ~(size_t)63;
		if (at <= ws->arena_len && n * size <= ws->arena_len - at) {
			ws->arena_used = at + n * size;
			return ws->arena + at;
		}
	}
	return pl_xcalloc(n, size);
}

/* n records of size bytes (a multiple of 64) on 64-byte boundaries, one
 * cache line each: *mem is what to free. */
static void *
ws_alloc_lines(struct pl_sim_ws *ws, size_t n, size_t size, void **mem)
{
	*mem = ws_alloc(ws, n + 1, size);
	return (void *)(((uintptr_t)*mem + 63) & ~(uintptr_t)63);
}

struct name_id {
	const char *name;
	int id;
};

/* Order names by strcmp (names are unique). */
static int
name_id_cmp(const void *a, const void *b)
{
	const struct name_id *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c != 0 ? c : (x->id > y->id) - (x->id < y->id);
}

/* Ranks of n names by strcmp: rank[id] and, unless NULL, its inverse
 * inv[rank]. */
static void
name_ranks(const char *const *names, int n, int *rank, int *inv)
{
	struct name_id *a = pl_xmalloc(sizeof *a * (n ? n : 1));
	for (int i = 0; i < n; i++)
		a[i] = (struct name_id){ names[i], i };
	qsort(a, n, sizeof *a, name_id_cmp);
	for (int r = 0; r < n; r++) {
		rank[a[r].id] = r;
		if (inv != NULL)
			inv[r] = a[r].id;
	}
	free(a);
}

/*
 * The native model's op order: by topological depth (the longest chain of
 * inputs from a source), then topological index.  The ops a run handles
 * close together in time sit close together in this order, whatever the
 * placement, which ids in list order do not guarantee (on the benchmark's
 * random DAGs and the NMT samples an op starts a median of n/2 ids away
 * from the highest id started before it, and 60 to 80 positions away in
 * this order): the records of a large graph are then read from nearby
 * cache lines.  perm[i] is the op at position i, iperm its inverse.
 */
static void
native_order(const struct pl_graph *g, int *perm, int *iperm)
{
	int n = g->n_ops, maxd = 0;
	int *depth = pl_xmalloc(sizeof *depth * (n ? n : 1));
	for (int i = 0; i < n; i++) {
		int v = g->topo[i], d = 0;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			int u = g->edges[g->in_edge[j]].src;
			if (depth[u] + 1 > d)
				d = depth[u] + 1;
		}
		depth[v] = d;
		if (d > maxd)
			maxd = d;
	}
	int *off = pl_xcalloc((size_t)maxd + 2, sizeof *off);
	for (int v = 0; v < n; v++)
		off[depth[v] + 1]++;
	for (int d = 0; d <= maxd; d++)
		off[d + 1] += off[d];
	for (int i = 0; i < n; i++) {	/* topological order within a depth */
		int v = g->topo[i];
		perm[off[depth[v]]] = v;
		iperm[v] = off[depth[v]]++;
	}
	free(off);
	free(depth);
}

/*
 * The native model's records, in its op order (native_order()): per op its
 * static fields (topological index, output and temporary bytes, its output
 * tensors, its distinct input tensors as entries of ws->nat_in), its run time
 * on each device; tensors renumbered by their producer's position, and per
 * tensor its distinct consumers (in op id order) and bytes, per consumer
 * entry the op and its input entry.
 */
static void
build_native(struct pl_sim_ws *ws)
{
	const struct pl_graph *g = ws->g;
	const double *tt = ws->p->time_us;
	int n = ws->n, T = ws->n_tensors, E = g->n_edges, D = ws->n_dev;
	int *mark = pl_xmalloc(sizeof *mark * (T ? T : 1));
	int *tnew = pl_xmalloc(sizeof *tnew * (T ? T : 1));
	for (int t = 0; t < T; t++)
		mark[t] = -1;
	int *in_t = pl_xmalloc(sizeof *in_t * (E ? E : 1));
	ws->nat_perm = ws_alloc(ws, n, sizeof(int));
	ws->nat_iperm = ws_alloc(ws, n, sizeof(int));
	ws->nat_tperm = ws_alloc(ws, T, sizeof(int));
	ws->nat_tt = ws_alloc(ws, (size_t)n * D, sizeof(double));
	ws->nat_op = ws_alloc_lines(ws, (size_t)n, sizeof *ws->nat_op, &ws->nat_op_mem);
	ws->nat_t = ws_alloc(ws, (size_t)T + 1, sizeof *ws->nat_t);
	ws->nat_c = ws_alloc(ws, E, sizeof *ws->nat_c);
	ws->nat_clink = ws_alloc(ws, E, sizeof *ws->nat_clink);
	ws->nat_dev8 = ws_alloc(ws, n, sizeof *ws->nat_dev8);
	native_order(g, ws->nat_perm, ws->nat_iperm);
	int t0 = 0;
	for (int i = 0; i < n; i++) {
		const struct pl_op *op = &g->ops[ws->nat_perm[i]];
		for (int t = 0; t < op->n_tensors; t++) {
			tnew[op->first_tensor + t] = t0 + t;
			ws->nat_tperm[t0 + t] = op->first_tensor + t;
		}
		t0 += op->n_tensors;
	}
	int k = 0;
	t0 = 0;
	for (int i = 0; i < n; i++) {
		int v = ws->nat_perm[i];
		struct pl_nat_op *o = &ws->nat_op[i];
		const struct pl_op *op = &g->ops[v];
		*o = (struct pl_nat_op){ .topo = g->topo_pos[v], .ob = op->out_bytes,
		    .tb = op->temp_bytes, .t_lo = t0, .t_hi = t0 + op->n_tensors,
		    .in_lo = k };
		t0 += op->n_tensors;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			int t = g->edges[g->in_edge[j]].tensor;
			if (mark[t] != v) {
				mark[t] = v;
				in_t[k++] = tnew[t];
			}
		}
		o->in_hi = k;
		for (int d = 0; d < D; d++)
			ws->nat_tt[(size_t)i * D + d] = tt[(size_t)v * D + d];
	}
	/* Ops without inputs, in topological order: ready at 0. */
	ws->nat_src = ws_alloc(ws, n, sizeof(int));
	ws->n_nat_src = 0;
	for (int i = 0; i < n; i++) {
		int pos = ws->nat_iperm[g->topo[i]];
		if (ws->nat_op[pos].in_hi == ws->nat_op[pos].in_lo)
			ws->nat_src[ws->n_nat_src++] = pos;
	}
	/* Transpose: consumers of each tensor in op id order. */
	int *off = pl_xcalloc((size_t)T + 1, sizeof *off);
	for (int i = 0; i < k; i++)
		off[in_t[i] + 1]++;
	for (int t = 0; t < T; t++)
		off[t + 1] += off[t];
	for (int t = 0; t < T; t++)
		ws->nat_t[t] = (struct pl_nat_tensor){ off[t], off[t + 1],
		    g->tensors[ws->nat_tperm[t]].bytes };
	for (int v = 0; v < n; v++) {
		int pos = ws->nat_iperm[v];
		for (int i = ws->nat_op[pos].in_lo; i < ws->nat_op[pos].in_hi; i++)
			ws->nat_c[off[in_t[i]]++] = (struct pl_nat_cons){ pos, i };
	}
	free(off);
	free(in_t);
	free(tnew);
	free(mark);
}

/*
 * Placeto's view: distinct parents per op with idx(u, v) = the output index
 * of the last edge u -> v in input order, children by op id, and per child
 * entry the group slot of its index among the parent's children and the
 * size of that output.
 */
static void
build_placeto(struct pl_sim_ws *ws)
{
	const struct pl_graph *g = ws->g;
	int n = ws->n, E = g->n_edges;
	int *mark = pl_xmalloc(sizeof *mark * (n ? n : 1));
	int *pos = pl_xmalloc(sizeof *pos * (n ? n : 1));
	int *pidx = pl_xmalloc(sizeof *pidx * (E ? E : 1));
	for (int v = 0; v < n; v++)
		mark[v] = -1;
	ws->par_off = ws_alloc(ws, n + 1, sizeof(int));
	ws->par = ws_alloc(ws, E, sizeof(int));
	ws->par_ce = ws_alloc(ws, E, sizeof(int));
	ws->ch_off = ws_alloc(ws, n + 1, sizeof(int));
	ws->ch = ws_alloc(ws, E, sizeof(int));
	ws->ch_slot = ws_alloc(ws, E, sizeof(int));
	ws->nslot = ws_alloc(ws, n, sizeof(int));
	ws->ch_bytes = ws_alloc(ws, E, sizeof(int64_t));
	ws->ch_tensor = ws_alloc(ws, E, sizeof(int));
	int k = 0;
	for (int v = 0; v < n; v++) {
		ws->par_off[v] = k;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			const struct pl_edge *e = &g->edges[g->in_edge[j]];
			int idx = g->tensors[e->tensor].index;
			if (mark[e->src] != v) {
				mark[e->src] = v;
				pos[e->src] = k;
				ws->par[k] = e->src;
				pidx[k++] = idx;
			} else
				pidx[pos[e->src]] = idx;	/* the last edge wins */
		}
	}
	ws->par_off[n] = k;
	ws->src = ws_alloc(ws, n, sizeof(int));
	for (int v = 0; v < n; v++)
		if (ws->par_off[v + 1] == ws->par_off[v])
			ws->src[ws->n_src++] = v;
	for (int i = 0; i < k; i++)
		ws->ch_off[ws->par[i] + 1]++;
	for (int v = 0; v < n; v++)
		ws->ch_off[v + 1] += ws->ch_off[v];
	int *fill = pos;
	for (int v = 0; v < n; v++)
		fill[v] = ws->ch_off[v];
	int *cidx = pl_xmalloc(sizeof *cidx * (E ? E : 1));
	for (int w = 0; w < n; w++)
		for (int i = ws->par_off[w]; i < ws->par_off[w + 1]; i++) {
			int c = fill[ws->par[i]]++;
			ws->ch[c] = w;
			cidx[c] = pidx[i];
			ws->par_ce[i] = c;
		}
	/* Slots: distinct indices in order of first use among the children. */
	int *slot_of = pl_xmalloc(sizeof *slot_of * PL_MAX_OUTPUTS);
	int *slot_gen = pl_xcalloc(PL_MAX_OUTPUTS, sizeof *slot_gen);
	for (int u = 0; u < n; u++) {
		int ns = 0;
		for (int c = ws->ch_off[u]; c < ws->ch_off[u + 1]; c++) {
			int idx = cidx[c];
			if (slot_gen[idx] != u + 1) {
				slot_gen[idx] = u + 1;
				slot_of[idx] = ns++;
			}
			ws->ch_slot[c] = slot_of[idx];
			int t = pl_graph_tensor_of(g, u, idx);
			ws->ch_tensor[c] = t;
			ws->ch_bytes[c] = t >= 0 ? g->tensors[t].bytes : 0;
		}
		ws->nslot[u] = ns;
	}
	free(slot_of);
	free(slot_gen);
	free(cidx);
	free(pidx);
	free(pos);
	free(mark);

	/* Name ranks replace strcmp in the event key. */
	const char **names = pl_xmalloc(sizeof *names * (n ? n : 1));
	for (int v = 0; v < n; v++)
		names[v] = g->ops[v].name;
	ws->op_rank = ws_alloc(ws, n, sizeof(int));
	name_ranks(names, n, ws->op_rank, NULL);
	free(names);
	const char *dn[PL_MAX_DEVICES];
	for (int d = 0; d < ws->n_dev; d++)
		dn[d] = ws->p->c->dev[d].name;
	ws->dev_rank = ws_alloc(ws, ws->n_dev, sizeof(int));
	ws->rank_dev = ws_alloc(ws, ws->n_dev, sizeof(int));
	name_ranks(dn, ws->n_dev, ws->dev_rank, ws->rank_dev);
}

/* A workspace sized for problem p. */
struct pl_sim_ws *
pl_sim_ws_new(const struct pl_problem *p)
{
	struct pl_sim_ws *ws = pl_xcalloc(1, sizeof *ws);
	const struct pl_graph *g = p->g;
	ws->bytes = sizeof *ws;
	ws->p = p;
	ws->g = g;
	ws->n = g->n_ops;
	ws->n_dev = p->n_dev;
	ws->n_tensors = g->n_tensors;
	int n = ws->n, E = g->n_edges, D = ws->n_dev;
	ws_arena_reserve(ws, E);
	ws->ob = ws_alloc(ws, n, sizeof(int64_t));
	ws->tb = ws_alloc(ws, n, sizeof(int64_t));
	ws->pb = ws_alloc(ws, n, sizeof(int64_t));
	for (int v = 0; v < n; v++) {
		ws->ob[v] = g->ops[v].out_bytes;
		ws->tb[v] = g->ops[v].temp_bytes;
		ws->pb[v] = g->ops[v].param_bytes;
	}
	build_native(ws);
	build_placeto(ws);
	ws->start = ws_alloc(ws, n, sizeof(double));
	ws->end = ws_alloc(ws, n, sizeof(double));
	ws->ready = ws_alloc(ws, n, sizeof(double));
	ws->maxend = ws_alloc(ws, n, sizeof(double));
	ws->pred = ws_alloc(ws, n, sizeof(int));
	ws->prev_on_dev = ws_alloc(ws, n, sizeof(int));
	ws->ref = ws_alloc(ws, n, sizeof(int));
	ws->xfer_of = ws_alloc(ws, E, sizeof(int));
	ws->nat_x = ws_alloc(ws, E, sizeof *ws->nat_x);
	ws->nat_in = ws_alloc(ws, E, sizeof(int));
	ws->nat_hold = ws_alloc(ws, (size_t)n + E, sizeof *ws->nat_hold);
	ws->x_a = ws_alloc(ws, E, sizeof(int));
	ws->x_b = ws_alloc(ws, E, sizeof(int));
	ws->x_src = ws_alloc(ws, E, sizeof(int));
	int nq = D + (D * D > D ? D * D : D);
	ws->q_off = ws_alloc(ws, nq + 1, sizeof(int));
	ws->q_n = ws_alloc(ws, nq, sizeof(int));
	ws->q_busy = ws_alloc(ws, nq, sizeof(int));
	ws->q_head = ws_alloc(ws, nq, sizeof(int));
	ws->cnt = ws_alloc(ws, nq + 1, sizeof(int));
	ws->qmem = ws_alloc(ws, (size_t)n + E + 1, sizeof(struct pl_hent));
	ws->qitem = ws_alloc(ws, (size_t)n + E + 1, sizeof(int));
	ws->m_s = ws_alloc(ws, (size_t)n + E + 2, sizeof(double));
	ws->m_tab = ws_alloc(ws, (size_t)PL_SIM_BUCKETS * ((size_t)n + E + 1) + 3, sizeof(int));
	ws->m_diff = ws_alloc(ws, (size_t)n + E + 1, sizeof(int64_t));
	ws->e_ord = ws_alloc(ws, (size_t)n + E + 1, sizeof(int));
	ws->e_t = ws_alloc(ws, (size_t)n + E + 1, sizeof(double));
	ws->e_f1 = ws_alloc(ws, (size_t)n + E + 1, sizeof(double));
	ws->e_f2 = ws_alloc(ws, (size_t)n + E + 1, sizeof(double));
	ws->e_b = ws_alloc(ws, (size_t)n + E + 1, sizeof(int64_t));
	ws->e_b1 = ws_alloc(ws, (size_t)n + E + 1, sizeof(int64_t));
	ws->e_b2 = ws_alloc(ws, (size_t)n + E + 1, sizeof(int64_t));
	ws->x_end = ws_alloc(ws, E, sizeof(double));
	int max_slot = 1;
	for (int v = 0; v < n; v++)
		max_slot = ws->nslot[v] > max_slot ? ws->nslot[v] : max_slot;
	ws->pto_slot = ws_alloc(ws, max_slot, sizeof *ws->pto_slot);
	ws->x_okey = ws_alloc(ws, E, sizeof(uint64_t));
	ws->e_key = ws_alloc(ws, (size_t)n + E + 1, sizeof(uint64_t));
	ws->pto_op = ws_alloc_lines(ws, (size_t)n, sizeof *ws->pto_op, &ws->pto_op_mem);
	for (int v = 0; v < n; v++) {
		struct pl_pto_op *o = &ws->pto_op[v];
		o->npar = ws->par_off[v + 1] - ws->par_off[v];
		o->ch_lo = ws->ch_off[v];
		o->ch_hi = ws->ch_off[v + 1];
		o->rank = ws->op_rank[v];
	}
	ws->pto_dr8 = ws_alloc(ws, n, sizeof *ws->pto_dr8);
	ws->pto_ch = ws_alloc(ws, E, sizeof *ws->pto_ch);
	for (int k = 0; k < ws->ch_off[n]; k++)
		ws->pto_ch[k] = (struct pl_pto_child){ ws->ch[k], ws->ch_slot[k],
		    (uint64_t)ws->op_rank[ws->ch[k]], ws->ch_bytes[k], 0 };
	ws->pto_speed = 0;	/* no delays yet (a speed is positive) */
	ws->ev = ws_alloc(ws, (size_t)E + nq + D + 1, sizeof(struct pl_hent));
	return ws;
}

/* Free a workspace. */
void
pl_sim_ws_free(struct pl_sim_ws *ws)
{
	if (ws == NULL)
		return;
	void *arrays[] = { ws->ob, ws->tb, ws->pb, ws->nat_op_mem, ws->nat_t, ws->nat_c, ws->nat_clink, ws->nat_dev8,
	    ws->nat_perm, ws->nat_iperm, ws->nat_tperm, ws->nat_tt, ws->nat_src,
	    ws->par_off, ws->par, ws->par_ce, ws->ch_off, ws->ch,
	    ws->ch_slot, ws->nslot, ws->ch_bytes, ws->ch_tensor, ws->op_rank, ws->dev_rank,
	    ws->rank_dev, ws->start, ws->end, ws->ready, ws->maxend,
	    ws->pred, ws->prev_on_dev, ws->ref,
	    ws->xfer_of, ws->nat_x, ws->nat_in, ws->nat_hold, ws->x_a,
	    ws->x_b, ws->x_src, ws->q_off, ws->q_n, ws->q_head, ws->q_busy, ws->cnt,
	    ws->qmem, ws->qitem, ws->ev, ws->m_s, ws->m_tab, ws->m_diff,
	    ws->e_ord, ws->e_t, ws->e_f1, ws->e_f2, ws->e_b, ws->e_b1,
	    ws->e_b2, ws->x_end, ws->src, ws->pto_slot, ws->x_okey, ws->e_key, ws->pto_op_mem, ws->pto_ch, ws->pto_dr8 };
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
		uintptr_t a = (uintptr_t)arrays[i], lo = (uintptr_t)ws->arena;
		if (ws->arena == NULL || a < lo || a - lo >= ws->arena_len)
			free(arrays[i]);
	}
	pl_free_pages(ws->arena, ws->arena_len);
	free(ws);
}

/* Bytes held by the workspace. */
size_t
pl_sim_ws_bytes(const struct pl_sim_ws *ws)
{
	return ws->bytes;
}

/* The Placeto model's start and end times into ws->start, ws->end. */
void
pl_sim_pto_gather(struct pl_sim_ws *ws)
{
	for (int v = 0; v < ws->n; v++) {
		const struct pl_pto_op *o = &ws->pto_op[v];
		ws->start[v] = o->start;
		ws->end[v] = o->start + o->cost;
	}
	ws->starts_in = PL_STARTS_ARRAYS;
}

/* Start times of the last evaluation, by op id (both models keep them in
 * their op records: gathered here, on demand). */
const double *
pl_sim_ws_starts(struct pl_sim_ws *ws)
{
	if (ws->starts_in == PL_STARTS_NAT)
		for (int i = 0; i < ws->n; i++)
			ws->start[ws->nat_perm[i]] = ws->nat_op[i].start;
	else if (ws->starts_in == PL_STARTS_PTO)
		pl_sim_pto_gather(ws);
	ws->starts_in = PL_STARTS_ARRAYS;
	return ws->start;
}

/* ---- memory ------------------------------------------------------------- */

/* Append a memory point for device d (trace only). */
void
pl_sim_rec_mem(struct pl_sim_ws *ws, int d, double t)
{
	struct pl_trace *tr = ws->tr;
	int n = tr->n_mem[d];
	if (n == ws->cap_mem[d]) {
		ws->cap_mem[d] = ws->cap_mem[d] ? 2 * ws->cap_mem[d] : 64;
		tr->mem[d] = pl_xreallocarray(tr->mem[d], ws->cap_mem[d],
		    sizeof *tr->mem[d]);
	}
	tr->mem[d][n] = (struct pl_mem_point){ t, ws->live[d] };
	tr->n_mem[d] = n + 1;
}

/*
 * Start accounting for a placement of devices dev: parameters are resident
 * from time 0 in the native model; the Placeto model counts outputs only
 * (after the run).
 */
void
pl_sim_mem_begin(struct pl_sim_ws *ws, struct pl_sim_result *r,
    enum pl_mem_model mem, const int *dev)
{
	for (int d = 0; d < ws->n_dev; d++)
		ws->live[d] = 0;
	if (mem != PL_MEM_NATIVE)
		return;		/* Placeto: pl_sim_mem_placeto() after the run */
	for (int v = 0; v < ws->n; v++)
		ws->live[dev[v]] += ws->pb[v];
	for (int d = 0; d < ws->n_dev; d++) {
		r->peak_bytes[d] = ws->live[d];
		if (ws->tr != NULL)
			pl_sim_rec_mem(ws, d, 0);
	}
}

/* A memory event of the trace: bytes (negative: a free) at t. */
struct mem_ev {
	double t;
	int64_t bytes;
};

/* Order frees by time. */
static int
mem_ev_cmp(const void *a, const void *b)
{
	const struct mem_ev *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

/* The bucket table of sorted times s[0 .. m) (see sim-int.h): the times
 * spread over PL_SIM_BUCKETS buckets per time up to the last; s[m] is set
 * to INFINITY, which stops every step over a bucket. */
void
pl_sim_buckets(double *s, int m, int *tab, double *k, int *B)
{
	int last = PL_SIM_BUCKETS * m + 1;
	double kk = m > 0 && s[m - 1] > 0 ? (double)(last - 1) / s[m - 1] : 0;
	if (!(kk < INFINITY))
		kk = 0;
	s[m] = INFINITY;
	for (int b = 0; b <= last + 1; b++)
		tab[b] = 0;
	for (int i = 0; i < m; i++)
		tab[pl_sim_bucket(s[i], kk, last) + 1]++;
	for (int b = 1; b <= last + 1; b++)
		tab[b] += tab[b - 1];
	*k = kk;
	*B = last;
}

/* x truncated toward zero, as Python's int() does to a float (doubles of
 * 2^52 and more are whole already); two conversions rather than trunc(),
 * which without SSE4.1 may be a call into the maths library. */
static inline double
trunc_int(double x)
{
	return fabs(x) < 4503599627370496.0 ? (double)(int64_t)x : x;
}

/*
 * Placeto's model, as the reference code computes it
 * (`ImportantOpsSimulator.simulate(sim_mem_usage=True)`): op u's outputs
 * count on its device from its start s(u) until
 *   F(u) = max(s(u), max over consumers c of int(s(c)) + int(cost(c)) - 1)
 * (whole microseconds, truncated, minus one: a consumer's end as that code
 * takes it), additions before removals at equal times; an op nobody reads
 * counts only at its start.
 *
 * A device runs its ops one after the other, so their starts s[] are
 * sorted in execution order.  u's free takes effect at its device's first
 * allocation that starts after F(u): the number of starts <= F(u) (always
 * after u's own place, since s(u) <= F(u)).  Adding the freed bytes there
 * and sweeping the allocations once gives the live bytes after each
 * allocation, hence the peak.  The place comes from buckets of time
 * (pl_sim_buckets()), with no search.  The trace's memory curve is built
 * separately (it may sort).
 */
void
pl_sim_mem_placeto(struct pl_sim_ws *ws, struct pl_sim_result *r,
    const int *dev, const int *count)
{
	const double *start = ws->start;
	const int64_t *ob = ws->ob;
	double *F = ws->maxend, *s = ws->m_s;
	int64_t *diff = ws->m_diff;
	int *tab = ws->m_tab;
	int n = ws->n, D = ws->n_dev, total = 0;
	for (int d = 0; d < D; d++) {
		total += count[d];
		r->peak_bytes[d] = 0;
	}
	if (total != n)
		return;		/* an incomplete run: nothing sensible to say */
	memcpy(F, start, sizeof *F * (size_t)n);
	for (int c = 0; c < n; c++) {	/* each op's end as a consumer, to its producers */
		double ce = trunc_int(start[c]) + trunc_int(pl_problem_op_us(ws->p, c, dev[c])) - 1;
		for (int k = ws->par_off[c]; k < ws->par_off[c + 1]; k++) {
			int u = ws->par[k];
			F[u] = ce > F[u] ? ce : F[u];
		}
	}
	for (int d = 0; d < D; d++) {
		const int *ops = ws->qitem + ws->q_off[d];
		int m = count[d];
		for (int i = 0; i < m; i++) {
			s[i] = start[ops[i]];
			diff[i] = 0;
		}
		double k;
		int B;
		pl_sim_buckets(s, m, tab, &k, &B);
		for (int i = 0; i < m; i++) {
			int64_t b = ob[ops[i]];
			if (b <= 0)
				continue;
			int j = pl_sim_count_le(s, tab, k, B, F[ops[i]]);
			if (j < m)
				diff[j] += b;
		}
		int64_t alloc = 0, freed = 0, peak = 0;
		for (int i = 0; i < m; i++) {
			freed += diff[i];
			int64_t b = ob[ops[i]];
			if (b <= 0)
				continue;
			alloc += b;
			if (alloc - freed > peak)
				peak = alloc - freed;
		}
		r->peak_bytes[d] = peak;
		if (ws->tr == NULL)
			continue;
		/* the curve: allocations at starts, frees at F, a free first
		 * only when strictly earlier */
		struct mem_ev *fe = pl_xmalloc(sizeof *fe * (m ? m : 1));
		int nf = 0;
		for (int i = 0; i < m; i++)
			if (ob[ops[i]] > 0)
				fe[nf++] = (struct mem_ev){ F[ops[i]], ob[ops[i]] };
		qsort(fe, nf, sizeof *fe, mem_ev_cmp);
		int64_t live = 0;
		int j = 0;
		ws->live[d] = 0;
		pl_sim_rec_mem(ws, d, 0);
		for (int i = 0; i < m; i++) {
			int64_t b = ob[ops[i]];
			if (b <= 0)
				continue;
			for (; j < nf && fe[j].t < s[i]; j++) {
				ws->live[d] = live -= fe[j].bytes;
				pl_sim_rec_mem(ws, d, fe[j].t);
			}
			ws->live[d] = live += b;
			pl_sim_rec_mem(ws, d, s[i]);
		}
		for (; j < nf; j++) {
			ws->live[d] = live -= fe[j].bytes;
			pl_sim_rec_mem(ws, d, fe[j].t);
		}
		free(fe);
	}
}

/* Totals that follow from the peaks. */
void
pl_sim_finish(struct pl_sim_ws *ws, struct pl_sim_result *r)
{
	const struct pl_cluster *c = ws->p->c;
	r->oom_mask = 0;
	r->peak_max = 0;
	r->oom_excess = 0;
	r->fullest = 0;
	for (int d = 0; d < ws->n_dev; d++) {
		if (r->peak_bytes[d] > r->peak_max)
			r->peak_max = r->peak_bytes[d];
		/* peak / capacity above the fullest's so far (cross-multiplied) */
		if ((double)r->peak_bytes[d] * (double)c->dev[r->fullest].mem_bytes >
		    (double)r->peak_bytes[r->fullest] * (double)c->dev[d].mem_bytes)
			r->fullest = d;
		if (r->peak_bytes[d] > c->dev[d].mem_bytes) {
			r->oom_mask |= (uint64_t)1 << d;
			r->oom_excess += r->peak_bytes[d] - c->dev[d].mem_bytes;
		}
	}
	r->peak_fullest = r->peak_bytes[r->fullest];
}

/* Record one transfer into the trace. */
void
pl_sim_rec_xfer(struct pl_sim_ws *ws, const struct pl_trace_xfer *x)
{
	struct pl_trace *tr = ws->tr;
	if (tr->n_xfers == ws->cap_x) {
		ws->cap_x = ws->cap_x ? 2 * ws->cap_x : 64;
		tr->xfers = pl_xreallocarray(tr->xfers, ws->cap_x, sizeof *tr->xfers);
	}
	tr->xfers[tr->n_xfers++] = *x;
}

/* ---- entry points ------------------------------------------------------- */

/* The lean path. */
int
pl_sim_eval(struct pl_sim_ws *ws, const struct pl_placement *pl,
    const struct pl_sim_opts *o, struct pl_sim_result *r)
{
	enum pl_sim_kind kind = o != NULL ? o->kind : PL_SIM_NATIVE;
	enum pl_mem_model mem = o != NULL ? o->mem : PL_MEM_NATIVE;
	int rc;
	memset(r, 0, sizeof *r);
	r->n_dev = ws->n_dev;
	ws->starts_in = PL_STARTS_ARRAYS;
	if (kind == PL_SIM_PLACETO)
		rc = pl_sim_run_placeto(ws, pl, mem, r);
	else
		rc = pl_sim_run_native(ws, pl, mem, r);
	pl_sim_finish(ws, r);
	return rc;
}

/* The op a critical path continues with after v, or -1. */
static int
critical_step(const struct pl_sim_ws *ws, int v)
{
	if (ws->prev_on_dev[v] >= 0 && ws->start[v] > ws->ready[v])
		return ws->prev_on_dev[v];
	return ws->pred[v];
}

/*
 * The op a critical path starts from: of the ops that end last, the first in
 * list order that is a sink of the tie: no other op ending then consumes its
 * output or continues its path with it.  (Every op has a later one unless
 * one is such a sink; the first that ends last is kept if none is.)
 */
static int
critical_last(const struct pl_sim_ws *ws, char *tied)
{
	const struct pl_graph *g = ws->g;
	int n = ws->n, last = -1;
	for (int v = 0; v < n; v++)
		if (last < 0 || ws->end[v] > ws->end[last])
			last = v;
	if (last < 0)
		return -1;
	double t = ws->end[last];
	for (int v = 0; v < n; v++)
		tied[v] = ws->end[v] == t;
	/* 2: the path of another op ending then goes through it, or one consumes it */
	for (int v = 0; v < n; v++) {
		if (tied[v] == 0)
			continue;
		int u = critical_step(ws, v);
		if (u >= 0 && tied[u])
			tied[u] = 2;
		for (int i = g->out_off[v]; i < g->out_off[v + 1]; i++)
			if (tied[g->edges[g->out_edge[i]].dst])
				tied[v] = 2;
	}
	int first = -1;
	for (int v = 0; v < n && first < 0; v++)
		if (tied[v] == 1)
			first = v;
	memset(tied, 0, n);
	return first >= 0 ? first : last;
}

/*
 * The critical path: from the op that ends last (critical_last()), follow
 * what held each op back: its device when it started after it was ready,
 * else the op whose output released it.
 */
static void
critical_path(struct pl_sim_ws *ws, struct pl_trace *tr)
{
	int n = ws->n;
	tr->critical_mask = pl_xcalloc(n ? n : 1, 1);
	tr->critical = pl_xmalloc(sizeof *tr->critical * (n ? n : 1));
	int last = critical_last(ws, tr->critical_mask);
	int k = 0;
	for (int v = last; v >= 0 && k < n && !tr->critical_mask[v];) {
		tr->critical[k++] = v;
		tr->critical_mask[v] = 1;
		v = critical_step(ws, v);
	}
	for (int i = 0; i < k / 2; i++) {
		int x = tr->critical[i];
		tr->critical[i] = tr->critical[k - 1 - i];
		tr->critical[k - 1 - i] = x;
	}
	tr->n_critical = k;
}

/* The full path. */
struct pl_trace *
pl_sim_trace(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_sim_opts *o, char **cause)
{
	if (pl_placement_check(pl, p->g, p->c, cause) != 0)
		return NULL;
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_trace *tr = pl_xcalloc(1, sizeof *tr);
	int D = p->n_dev;
	tr->n_dev = D;
	tr->n_mem = pl_xcalloc(D, sizeof *tr->n_mem);
	tr->mem = pl_xcalloc(D, sizeof *tr->mem);
	ws->cap_mem = pl_xcalloc(D, sizeof *ws->cap_mem);
	ws->tr = tr;
	int rc = pl_sim_eval(ws, pl, o, &tr->res);
	free(ws->cap_mem);
	ws->cap_mem = NULL;
	ws->tr = NULL;
	if (rc != 0) {
		*cause = pl_xasprintf("graph '%s': simulation did not complete (a cycle?)",
		    p->g->name);
		pl_sim_ws_free(ws);
		pl_trace_free(tr);
		return NULL;
	}
	int n = p->n_ops;
	tr->n_ops = n;
	tr->ops = pl_xmalloc(sizeof *tr->ops * (n ? n : 1));
	for (int v = 0; v < n; v++)
		tr->ops[v] = (struct pl_trace_op){ ws->start[v], ws->end[v], pl->dev[v] };
	const struct pl_cluster *c = p->c;
	if (o != NULL && o->kind == PL_SIM_PLACETO) {
		tr->n_channels = D;
		tr->channel_name = pl_xmalloc(sizeof *tr->channel_name * D);
		for (int d = 0; d < D; d++)
			tr->channel_name[d] = pl_xasprintf("/bus%s", c->dev[d].name);
	} else if (c->shared_bus) {
		tr->n_channels = 1;
		tr->channel_name = pl_xmalloc(sizeof *tr->channel_name);
		tr->channel_name[0] = pl_xstrdup("bus");
	} else {
		tr->n_channels = D * D;
		tr->channel_name = pl_xmalloc(sizeof *tr->channel_name * D * D);
		for (int a = 0; a < D; a++)
			for (int b = 0; b < D; b++)
				tr->channel_name[a * D + b] = pl_xasprintf("%s->%s",
				    c->dev[a].name, c->dev[b].name);
	}
	critical_path(ws, tr);
	pl_sim_ws_free(ws);
	return tr;
}

/* Free a trace. */
void
pl_trace_free(struct pl_trace *t)
{
	if (t == NULL)
		return;
	free(t->ops);
	free(t->xfers);
	for (int i = 0; i < t->n_channels; i++)
		free(t->channel_name[i]);
	free(t->channel_name);
	for (int d = 0; d < t->n_dev; d++)
		free(t->mem != NULL ? t->mem[d] : NULL);
	free(t->mem);
	free(t->n_mem);
	free(t->critical);
	free(t->critical_mask);
	free(t);
}
