/*
 * sim-native — the native model: heterogeneous devices running one op at a
 * time, list scheduling by priority (or first-ready first, ties by
 * topological index), one transfer per (tensor, destination device) on its
 * link channel, and memory per device over time (docs/SIMULATION.md).
 *
 * Invariant: the simulation advances in batches of equal time: all
 * completions at time t are handled (releasing ops and creating transfers)
 * before any idle device or channel picks its next item at t, so the choice
 * among items that become ready together follows the priorities, never the
 * order of the completions.  Nothing here allocates.
 */
#include "cost.h"
#include "sim-int.h"

/* Mark queue q to be looked at before time advances. */
static inline void
mark(struct pl_sim_ws *ws, int *ndirty, int q)
{
	if (!(ws->q_busy[q] & 2)) {
		ws->q_busy[q] |= 2;
		ws->cnt[(*ndirty)++] = q;
	}
}

/* Push an item onto queue q (a heap). */
static inline void
qpush(struct pl_sim_ws *ws, int q, double k1, uint64_t k2)
{
	pl_heap_push(ws->qmem + ws->q_off[q], &ws->q_n[q], pl_hent_make(k1, k2));
}

/*
 * Op w has all its inputs at time t, the last from op `by`.  Without
 * priorities a device's queue is ordered by (ready time, topological
 * index); ready times only grow, so it is a FIFO in which an op goes
 * behind those of its own instant with a lower topological index (usually
 * at the very end).  With priorities it is a heap.
 */
static inline void
release(struct pl_sim_ws *ws, const struct pl_placement *pl, int *ndirty,
    int w, double t, int by)
{
	ws->ready[w] = t;
	if (ws->tr != NULL)
		ws->pred[w] = by;
	int d = ws->dev[w];
	if (pl->prio != NULL)
		qpush(ws, d, -pl->prio[w], (uint64_t)ws->g->topo_pos[w]);
	else {
		int *it = ws->qitem + ws->q_off[d];
		const int *tp = ws->g->topo_pos;
		int j = ws->q_n[d]++, p = tp[w];
		while (j > ws->q_head[d] && ws->ready[it[j - 1]] == t && tp[it[j - 1]] > p) {
			it[j] = it[j - 1];
			j--;
		}
		it[j] = w;
	}
	mark(ws, ndirty, d);
}

/*
 * Memory (native model).  Frees happen as things end: the event loop
 * handles every completion at t before anything starts at t, so what ends
 * at t is freed before what starts at t allocates, with no queue of
 * pending frees.
 */

/* One more holder of u's outputs (u itself, a local consumer, an outgoing
 * transfer) is done at t. */
static inline void
dec_out(struct pl_sim_ws *ws, int u, double t)
{
	if (--ws->ref[u] == 0)
		pl_sim_mem_release(ws, t, ws->dev[u], ws->ob[u]);
}

/* One more consumer of received copy x is done at t. */
static inline void
dec_copy(struct pl_sim_ws *ws, int x, double t)
{
	if (--ws->cref[x] == 0)
		pl_sim_mem_release(ws, t, ws->cdev[x], ws->cbytes[x]);
}

/* Op v, on d, ends at t. */
static void
mem_op_end(struct pl_sim_ws *ws, int v, int d, double t)
{
	pl_sim_mem_release(ws, t, d, ws->tb[v]);
	dec_out(ws, v, t);
	for (int i = ws->in_t_off[v]; i < ws->in_t_off[v + 1]; i++) {
		int u = ws->t_op[ws->in_t[i]];
		if (ws->dev[u] == d)
			dec_out(ws, u, t);
		else
			dec_copy(ws, ws->xfer_of[ws->in_to_cons[i]], t);
	}
}

/* Run the native model. */
int
pl_sim_run_native(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r)
{
	const struct pl_graph *g = ws->g;
	const struct pl_cluster *c = ws->p->c;
	const double *tt = ws->p->time_us;
	int n = ws->n, D = ws->n_dev;
	int shared = c->shared_bus;
	int nq = D + (shared ? 1 : D * D);
	int last[PL_MAX_DEVICES], exec[PL_MAX_DEVICES];
	const int has_prio = pl->prio != NULL, has_tprio = pl->tprio != NULL;

	/* Setup: devices, pending inputs, holders of outputs, queue sizes. */
	for (int q = 0; q <= nq; q++)
		ws->cnt[q] = 0;
	for (int v = 0; v < n; v++) {
		int d = pl->dev[v];
		ws->dev[v] = d;
		ws->cnt[d]++;
		ws->pending[v] = ws->in_t_off[v + 1] - ws->in_t_off[v];
		ws->ref[v] = 1;
	}
	if (ws->tr != NULL)
		for (int v = 0; v < n; v++) {
			ws->pred[v] = -1;
			ws->prev_on_dev[v] = -1;
		}
	for (int t = 0; t < ws->n_tensors; t++) {
		int u = ws->t_op[t], du = ws->dev[u];
		uint64_t seen = 0;
		for (int k = ws->t_cons_off[t]; k < ws->t_cons_off[t + 1]; k++) {
			int dw = ws->dev[ws->t_cons[k]];
			if (dw == du) {
				if (mem == PL_MEM_NATIVE)
					ws->ref[u]++;
			} else if (!((seen >> dw) & 1)) {
				seen |= (uint64_t)1 << dw;
				if (mem == PL_MEM_NATIVE)
					ws->ref[u]++;
				ws->cnt[D + (shared ? 0 : du * D + dw)]++;
			}
		}
	}
	int off = 0;
	for (int q = 0; q < nq; q++) {
		ws->q_off[q] = off;
		off += ws->cnt[q];
		ws->q_n[q] = 0;
		ws->q_head[q] = 0;
		ws->q_busy[q] = 0;
	}
	for (int d = 0; d < D; d++) {
		last[d] = -1;
		exec[d] = 0;
	}
	ws->n_x = 0;
	ws->n_ev = 0;
	pl_sim_mem_begin(ws, r, mem);

	int ndirty = 0, done = 0;
	double t = 0;
	for (int i = 0; i < n; i++)
		if (ws->pending[g->topo[i]] == 0)
			release(ws, pl, &ndirty, g->topo[i], 0, -1);
	for (;;) {
		/* Idle devices and channels take their best waiting item. */
		while (ndirty > 0) {
			int q = ws->cnt[--ndirty];
			ws->q_busy[q] &= ~2;
			if (ws->q_busy[q] & 1)
				continue;
			int heap = q < D ? has_prio : has_tprio;
			int item;
			if (heap) {
				if (ws->q_n[q] == 0)
					continue;
				uint64_t k = pl_heap_pop(ws->qmem + ws->q_off[q], &ws->q_n[q]).k;
				item = q < D ? g->topo[k] : (int)k;
			} else {
				if (ws->q_head[q] == ws->q_n[q])
					continue;
				item = ws->qitem[ws->q_off[q] + ws->q_head[q]++];
			}
			ws->q_busy[q] |= 1;
			if (q < D) {
				int v = item;
				double cost = tt[(size_t)v * D + q];
				double e = t + cost;
				ws->start[v] = t;
				ws->end[v] = e;
				if (ws->tr != NULL) {
					ws->prev_on_dev[v] = last[q];
					last[q] = v;
				}
				if (heap)
					ws->qitem[ws->q_off[q] + exec[q]++] = v;
				r->busy_us[q] += cost;
				pl_heap_push(ws->ev, &ws->n_ev, pl_hent_make(e, (uint64_t)v));
				if (mem == PL_MEM_NATIVE)
					pl_sim_mem_alloc(ws, r, t, q, ws->ob[v] + ws->tb[v]);
			} else {
				int x = item;
				int src = ws->x_src[x], dst = ws->x_b[x];
				int64_t bytes = ws->cbytes[x];
				double e = t + pl_cost_xfer_us(c, src, dst, bytes);
				pl_heap_push(ws->ev, &ws->n_ev, pl_hent_make(e, (uint64_t)(n + x)));
				r->bytes_moved += bytes;
				r->bytes_out[src] += bytes;
				r->bytes_in[dst] += bytes;
				r->n_transfers++;
				if (mem == PL_MEM_NATIVE)
					pl_sim_mem_alloc(ws, r, t, dst, bytes);
				if (ws->tr != NULL)
					pl_sim_rec_xfer(ws, &(struct pl_trace_xfer){
					    .tensor = ws->x_a[x], .src_dev = src, .dst_dev = dst,
					    .channel = q - D, .start = t, .end = e,
					    .busy_until = e, .bytes = bytes });
			}
		}
		if (ws->n_ev == 0)
			break;
		/* Every completion at the next time. */
		t = ws->ev[0].t;
		while (ws->n_ev > 0 && ws->ev[0].t == t) {
			int k = (int)pl_heap_pop(ws->ev, &ws->n_ev).k;
			if (k < n) {
				int v = k, d = ws->dev[v];
				ws->q_busy[d] &= ~1;
				mark(ws, &ndirty, d);
				done++;
				if (mem == PL_MEM_NATIVE)
					mem_op_end(ws, v, d, t);
				for (int tn = ws->op_t_off[v]; tn < ws->op_t_off[v + 1]; tn++) {
					int x0 = ws->n_x;
					uint64_t seen = 0;
					for (int kc = ws->t_cons_off[tn]; kc < ws->t_cons_off[tn + 1]; kc++) {
						int w = ws->t_cons[kc], dw = ws->dev[w];
						if (dw == d) {
							if (--ws->pending[w] == 0)
								release(ws, pl, &ndirty, w, t, v);
							continue;
						}
						int x;
						if (!((seen >> dw) & 1)) {
							seen |= (uint64_t)1 << dw;
							x = ws->n_x++;
							ws->x_a[x] = tn;
							ws->x_b[x] = dw;
							ws->x_src[x] = d;
							ws->cref[x] = 0;
							ws->cbytes[x] = ws->t_bytes[tn];
							ws->cdev[x] = dw;
							int q = D + (shared ? 0 : d * D + dw);
							/* transfers are created in order of
							 * readiness: a FIFO unless prioritised */
							if (pl->tprio != NULL)
								qpush(ws, q, -pl->tprio[(size_t)tn * D + dw], (uint64_t)x);
							else
								ws->qitem[ws->q_off[q] + ws->q_n[q]++] = x;
							mark(ws, &ndirty, q);
						} else {
							for (x = x0; ws->x_b[x] != dw; x++)
								;
						}
						ws->xfer_of[kc] = x;
						ws->cref[x]++;
					}
				}
			} else {
				int x = k - n, tn = ws->x_a[x], dst = ws->x_b[x];
				int q = D + (shared ? 0 : ws->x_src[x] * D + dst);
				ws->q_busy[q] &= ~1;
				mark(ws, &ndirty, q);
				int u = ws->t_op[tn];
				if (mem == PL_MEM_NATIVE)
					dec_out(ws, u, t);
				for (int kc = ws->t_cons_off[tn]; kc < ws->t_cons_off[tn + 1]; kc++) {
					int w = ws->t_cons[kc];
					if (ws->dev[w] == dst && --ws->pending[w] == 0)
						release(ws, pl, &ndirty, w, t, u);
				}
			}
		}
	}
	if (mem == PL_MEM_PLACETO)
		pl_sim_mem_placeto(ws, r, pl->prio != NULL ? exec : ws->q_head);
	double ms = 0;
	for (int v = 0; v < n; v++)
		if (ws->end[v] > ms)
			ms = ws->end[v];
	r->makespan_us = ms;
	return done == n ? 0 : -1;
}
