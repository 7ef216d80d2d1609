/*
 * sim-placeto — Placeto's reference simulator, reimplemented from
 * specs/placeto-sim.md: one global event queue ordered by
 * (time, kind REMOVE < BUS < DEV, key), FIFO waiting lists keyed
 * (ready time, sequence number), one compute queue and one outgoing bus per
 * device, one broadcast transfer per output index with a remote consumer,
 * delta1 after every non-zero-cost op, delta2 after every transfer, and the
 * run time as the time of the last event popped.
 *
 * Invariant: the key's string comparisons are replaced by ranks of the
 * names under strcmp (computed once per workspace), which order events
 * exactly as the strings do; every time is computed with the same double
 * operations in the same order as the reference, so results are bit-exact.
 * A resource has one pending event while busy and none while idle.
 */
#include <stdlib.h>

#include "sim-int.h"
#include "xmalloc.h"

#define K_REMOVE ((uint64_t)0)
#define K_BUS ((uint64_t)1 << 62)
#define K_DEV ((uint64_t)2 << 62)
#define RANK_MASK (((uint64_t)1 << 24) - 1)

/*
 * Push an event.  The event being handled stays at the top of the queue
 * until the first push of its handler, which takes its place (one sift
 * instead of a pop and a push); the loop pops it if nothing was pushed.
 */
static inline void
ev_push(struct pl_sim_ws *ws, struct pl_hent e)
{
	if (ws->ev_hole) {
		ws->ev_hole = 0;
		pl_heap_replace_top(ws->ev, ws->n_ev, e);
	} else
		pl_heap_push(ws->ev, &ws->n_ev, e);
}

/*
 * Offer transfer x, ready at r, to the bus of device d.  The lists are
 * keyed (ready, seq) in the reference; with the non-negative times that
 * validation guarantees, offers to one list come with non-decreasing ready
 * times (spec section 2), so a plain FIFO in offer order is the same order.
 * Like devices (sched_dev()), a bus has an event queued only when a
 * transfer waits, at max(ready, bus free): the reference's idle "bus free"
 * pops and its re-pushes while the data does not exist yet change nothing
 * but run_time, which the caller accounts for when a transfer starts.
 */
static inline void
offer_bus(struct pl_sim_ws *ws, int d, int x, double r, const double *bus_free)
{
	int q = ws->n_dev + d;
	ws->qitem[ws->q_off[q] + ws->q_n[q]++] = x;
	if (!ws->q_busy[q]) {
		ws->q_busy[q] = 1;
		ev_push(ws, pl_hent_make(
		    r > bus_free[d] ? r : bus_free[d], K_BUS | (uint64_t)ws->dev_rank[d]));
	}
}

/*
 * Deliveries, eagerly.  The reference queues one event per (parent u,
 * child w) at the data's arrival, key (t, REMOVE, u, w), and offers w to
 * its device (a FIFO) when the last of them pops.  Here a delivery is
 * accounted when it is created, with the place its event would take in the
 * reference's pop order; w keeps the latest, and when its last parent is
 * accounted it enters its device's ready heap under that place, so the
 * heap yields w where the FIFO would.  A device event at T sees the
 * entries the reference had offered: an entry is in the heap only once
 * its last delivery exists, and with time <= T it would have popped first
 * (REMOVE sorts before the other kinds at equal times).
 *
 * The place: a delivery at t later than the event creating it pops among
 * the deliveries at t by (t, u, w): key K_DELIVERY | u << 24 | w (ranks).
 * One at the creating event's own time (a zero-cost op, a zero-byte
 * transfer) sorts before that event, so the reference pops it right after
 * the handler, after every delivery at t popped so far and before any
 * later event's: key K_TIE | seq << 24 | w, seq the handler's number (all
 * deliveries of one handler come from one parent).  Sources enter first,
 * key (init_offset, id).
 */
#define K_DELIVERY ((uint64_t)1 << 48)
#define K_TIE ((uint64_t)1 << 63)

/*
 * (Re)schedule device d's event, now that its ready heap is not empty: at
 * max(earliest ready time, free time), as the reference does when it
 * offers the first waiting op.  An earlier time than the one scheduled
 * leaves the old event stale (skipped when it pops).
 */
static inline void
sched_dev(struct pl_sim_ws *ws, int d, const double *free_at, double *sched)
{
	double r = ws->qmem[ws->q_off[d]].t;
	double at = r > free_at[d] ? r : free_at[d];
	if (ws->q_busy[d] && !(at < sched[d]))
		return;
	ws->q_busy[d] = 1;
	sched[d] = at;
	ev_push(ws, pl_hent_make(at, K_DEV | (uint64_t)ws->dev_rank[d]));
}

/* Parent u's data reaches child w at t, from the handler number seq at
 * time now.  1 when w is ready (in its device's heap). */
static inline int
deliver(struct pl_sim_ws *ws, int u, int w, double t, double now, uint64_t seq)
{
	uint64_t k = t == now ? K_TIE | seq << 24 | (uint64_t)ws->op_rank[w] :
	    K_DELIVERY | ((uint64_t)ws->op_rank[u] << 24) | (uint64_t)ws->op_rank[w];
	if (t > ws->ready[w] || (t == ws->ready[w] && k > ws->rkey[w])) {
		ws->ready[w] = t;
		ws->rkey[w] = k;
		ws->pred[w] = u;
	}
	if (--ws->pending[w] != 0)
		return 0;
	int d = ws->dev[w];
	pl_heap_push(ws->qmem + ws->q_off[d], &ws->q_n[d],
	    pl_hent_make(ws->ready[w], ws->rkey[w]));
	return 1;
}

/*
 * The native memory model in this simulator.  During the run every
 * allocation is logged (an op's outputs and temporaries at its start, a
 * received copy per receiving device at the transfer's start), in event
 * order, hence in time order; after the run, when every end is known, each
 * allocation gets its free times: temporaries at the op's end; outputs
 * when the op, its local children and its transfers are done; a copy when
 * its receivers on that device are done.  A free takes effect before the
 * first later allocation of its device at or after its time; one sweep per
 * device then gives the peak (no queue of pending frees).
 */
static inline int
mlog(struct pl_sim_ws *ws, int d, double t, int64_t bytes)
{
	int e = ws->n_e++;
	ws->e_dev[e] = d;
	ws->e_t[e] = t;
	ws->e_b[e] = bytes;
	ws->e_f1[e] = ws->e_f2[e] = t;
	ws->e_b1[e] = ws->e_b2[e] = 0;
	return e;
}

/* Index of the first entry j > i of L with time >= f (or m). */
static inline int
first_at_or_after(const struct pl_sim_ws *ws, const int *L, int m, int i, double f)
{
	int lo = i, step = 1, hi = i + 1;
	while (hi < m && ws->e_t[L[hi]] < f) {
		lo = hi;
		step *= 2;
		hi = lo + step;
	}
	if (hi > m)
		hi = m;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (ws->e_t[L[mid]] < f)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

struct mfree {
	double f;
	int own;
	int64_t b;
};

/* Order frees by time, then by their allocation. */
static int
mfree_cmp(const void *a, const void *b)
{
	const struct mfree *x = a, *y = b;
	if (x->f != y->f)
		return x->f < y->f ? -1 : 1;
	return (x->own > y->own) - (x->own < y->own);
}

/* The trace's memory curve of device d (entries L[0..m)). */
static void
mem_native_curve(struct pl_sim_ws *ws, int d, const int *L, int m)
{
	struct mfree *fr = pl_xmalloc(sizeof *fr * (2 * (size_t)m + 1));
	int nf = 0;
	for (int i = 0; i < m; i++) {
		int e = L[i];
		if (ws->e_b1[e] > 0)
			fr[nf++] = (struct mfree){ ws->e_f1[e], i, ws->e_b1[e] };
		if (ws->e_b2[e] > 0)
			fr[nf++] = (struct mfree){ ws->e_f2[e], i, ws->e_b2[e] };
	}
	qsort(fr, nf, sizeof *fr, mfree_cmp);
	int k = 0;
	for (int j = 0; j < m; j++) {
		double t = ws->e_t[L[j]];
		for (; k < nf && fr[k].f <= t && fr[k].own < j; k++) {
			ws->live[d] -= fr[k].b;
			pl_sim_rec_mem(ws, d, fr[k].f);
		}
		if (ws->e_b[L[j]] > 0) {
			ws->live[d] += ws->e_b[L[j]];
			pl_sim_rec_mem(ws, d, t);
		}
	}
	for (; k < nf; k++) {
		ws->live[d] -= fr[k].b;
		pl_sim_rec_mem(ws, d, fr[k].f);
	}
	free(fr);
}

/* Free times of the logged allocations, then the peaks. */
static void
mem_native_post(struct pl_sim_ws *ws, struct pl_sim_result *r)
{
	int n = ws->n, D = ws->n_dev, ne = ws->n_e;
	const double *end = ws->end;
	double *F = ws->maxend;
	for (int v = 0; v < n; v++)
		F[v] = end[v];
	for (int u = 0; u < n; u++)
		for (int k = ws->ch_off[u]; k < ws->ch_off[u + 1]; k++) {
			int w = ws->ch[k];
			if (ws->dev[w] == ws->dev[u] && end[w] > F[u])
				F[u] = end[w];
		}
	for (int x = 0; x < ws->n_x; x++) {
		int u = ws->x_a[x], slot = ws->x_b[x], k0 = ws->x_src[x];
		if (ws->x_end[x] > F[u])
			F[u] = ws->x_end[x];
		for (int k = k0; k < ws->ch_off[u + 1]; k++) {
			int w = ws->ch[k];
			if (ws->ch_slot[k] != slot || ws->dev[w] == ws->dev[u])
				continue;
			int e = ws->xfer_of[k];
			ws->e_b1[e] = ws->e_b[e];
			if (end[w] > ws->e_f1[e])
				ws->e_f1[e] = end[w];
		}
	}
	for (int v = 0; v < n; v++) {
		int e = ws->ref[v];
		ws->e_f1[e] = F[v];
		ws->e_b1[e] = ws->ob[v];
		ws->e_f2[e] = end[v];
		ws->e_b2[e] = ws->tb[v];
	}
	/* entries by device, in time order */
	int off[PL_MAX_DEVICES + 1], fill[PL_MAX_DEVICES];
	for (int d = 0; d <= D; d++)
		off[d] = 0;
	for (int e = 0; e < ne; e++)
		off[ws->e_dev[e] + 1]++;
	for (int d = 0; d < D; d++) {
		off[d + 1] += off[d];
		fill[d] = off[d];
	}
	for (int e = 0; e < ne; e++)
		ws->e_ord[fill[ws->e_dev[e]]++] = e;
	int64_t *diff = ws->m_diff;
	for (int d = 0; d < D; d++) {
		const int *L = ws->e_ord + off[d];
		int m = off[d + 1] - off[d];
		for (int i = 0; i < m; i++)
			diff[i] = 0;
		for (int i = 0; i < m; i++) {
			int e = L[i], j;
			if (ws->e_b1[e] > 0 && (j = first_at_or_after(ws, L, m, i, ws->e_f1[e])) < m)
				diff[j] += ws->e_b1[e];
			if (ws->e_b2[e] > 0 && (j = first_at_or_after(ws, L, m, i, ws->e_f2[e])) < m)
				diff[j] += ws->e_b2[e];
		}
		int64_t live = ws->live[d], peak = r->peak_bytes[d];
		for (int i = 0; i < m; i++) {
			live += ws->e_b[L[i]] - diff[i];
			if (live > peak)
				peak = live;
		}
		r->peak_bytes[d] = peak;
		if (ws->tr != NULL)
			mem_native_curve(ws, d, L, m);
	}
}

/* Next stamp generation (stamps mark groups already seen for an op). */
static inline unsigned
next_gen(struct pl_sim_ws *ws)
{
	if (++ws->stamp_gen == 0) {
		for (int i = 0; i < ws->ch_off[ws->n]; i++)
			ws->stamp[i] = 0;
		ws->stamp_gen = 1;
	}
	return ws->stamp_gen;
}

/* Run the Placeto model. */
int
pl_sim_run_placeto(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r)
{
	const struct pl_cluster *c = ws->p->c;
	const double *tt = ws->p->time_us;
	const double delta1 = c->placeto.delta1, delta2 = c->placeto.delta2;
	const double speed = c->placeto.transfer_speed;
	const double init = c->placeto.init_offset;
	int n = ws->n, D = ws->n_dev, nq = 2 * D;
	int last[PL_MAX_DEVICES];
	double free_at[PL_MAX_DEVICES], bus_free[PL_MAX_DEVICES], sched[PL_MAX_DEVICES];

	/* Setup: devices, pending parents, queue sizes (a bus carries at most
	 * one transfer per output slot of each op of its device). */
	for (int q = 0; q < nq; q++)
		ws->cnt[q] = 0;
	for (int v = 0; v < n; v++) {
		int d = pl->dev[v];
		ws->dev[v] = d;
		ws->cnt[d]++;
		ws->cnt[D + d] += ws->nslot[v];
		ws->pending[v] = ws->par_off[v + 1] - ws->par_off[v];
		ws->ready[v] = -1;
	}
	if (ws->tr != NULL)
		for (int v = 0; v < n; v++) {
			ws->pred[v] = -1;
			ws->prev_on_dev[v] = -1;
		}
	unsigned gen;
	ws->n_e = 0;
	int off = 0;
	for (int q = 0; q < nq; q++) {
		ws->q_off[q] = off;
		off += ws->cnt[q];
		ws->q_n[q] = 0;
		ws->q_busy[q] = 0;
	}
	for (int d = 0; d < D; d++) {
		last[d] = -1;
		free_at[d] = 0;
		bus_free[d] = 0;
		sched[d] = 0;
	}
	ws->n_x = 0;
	ws->n_ev = 0;
	ws->ev_hole = 0;
	pl_sim_mem_begin(ws, r, mem);
	gen = next_gen(ws);

	/* Sources, in list order, at init_offset. */
	for (int q = 0; q < nq; q++)
		ws->cnt[q] = 0;		/* ops run per device; head of each bus FIFO */
	for (int i = 0; i < ws->n_src; i++) {
		int v = ws->src[i], d = ws->dev[v];
		ws->ready[v] = init;
		pl_heap_push(ws->qmem + ws->q_off[d], &ws->q_n[d],
		    pl_hent_make(init, (uint64_t)v));
	}
	for (int d = 0; d < D; d++)
		if (ws->q_n[d] > 0)
			sched_dev(ws, d, free_at, sched);

	double run_time = 0;
	int done = 0;
	uint64_t seq = 0;	/* handlers run */
	while (ws->n_ev > 0) {
		if (ws->ev_hole) {
			(void)pl_heap_pop(ws->ev, &ws->n_ev);
			ws->ev_hole = 0;
		}
		if (ws->n_ev == 0)
			break;
		struct pl_hent e = ws->ev[0];
		ws->ev_hole = 1;
		double t = e.t;
		if (e.k >= K_DEV) {
			int d = ws->rank_dev[e.k & RANK_MASK];
			if (!ws->q_busy[d] || t != sched[d])
				continue;	/* stale: rescheduled earlier */
			if (t > run_time)
				run_time = t;
			seq++;
			ws->q_busy[d] = 0;
			struct pl_hent top = pl_heap_pop(ws->qmem + ws->q_off[d], &ws->q_n[d]);
			int v = top.k >= K_DELIVERY ? ws->rank_op[top.k & RANK_MASK] : (int)top.k;
			ws->qitem[ws->q_off[d] + ws->cnt[d]++] = v;	/* run order */
			double cost = tt[(size_t)v * D + d];
			double end = t + cost;
			double free = cost == 0 ? end : end + delta1;
			ws->start[v] = t;
			ws->end[v] = end;
			if (ws->tr != NULL) {
				ws->prev_on_dev[v] = last[d];
				last[d] = v;
			}
			done++;
			r->busy_us[d] += cost;
			free_at[d] = free;
			if (free > run_time)
				run_time = free;
			if (mem == PL_MEM_NATIVE)
				ws->ref[v] = mlog(ws, d, t, ws->ob[v] + ws->tb[v]);
			int base = ws->ch_off[v];
			for (int k = base; k < ws->ch_off[v + 1]; k++) {
				int w = ws->ch[k];
				if (ws->dev[w] == d) {
					deliver(ws, v, w, end, t, seq);
					continue;
				}
				int s = base + ws->ch_slot[k];
				if (ws->stamp[s] == (int)gen)
					continue;
				ws->stamp[s] = (int)gen;
				int x = ws->n_x++;
				ws->x_a[x] = v;
				ws->x_b[x] = ws->ch_slot[k];
				ws->x_src[x] = k;	/* first receiver entry */
				offer_bus(ws, d, x, end, bus_free);
			}
			if (ws->q_n[d] > 0)
				sched_dev(ws, d, free_at, sched);
		} else {
			/* a transfer is waiting and its data exists (offer_bus()) */
			if (t > run_time)
				run_time = t;
			seq++;
			int d = ws->rank_dev[e.k & RANK_MASK];
			int q = D + d;
			int x = ws->qitem[ws->q_off[q] + ws->cnt[q]++];
			int u = ws->x_a[x], slot = ws->x_b[x], k0 = ws->x_src[x];
			int64_t bytes = ws->ch_bytes[k0];
			double delay = (double)bytes / speed;
			double arrive = t + delay;
			double bfree = arrive + delta2;
			bus_free[d] = bfree;
			if (bfree > run_time)
				run_time = bfree;
			if (ws->cnt[q] != ws->q_n[q]) {
				double rn = ws->end[ws->x_a[ws->qitem[ws->q_off[q] + ws->cnt[q]]]];
				ev_push(ws, pl_hent_make(
				    rn > bfree ? rn : bfree, K_BUS | (uint64_t)ws->dev_rank[d]));
			} else
				ws->q_busy[q] = 0;
			uint64_t seen = 0;
			int own[PL_MAX_DEVICES];
			ws->x_end[x] = arrive;
			for (int k = k0; k < ws->ch_off[u + 1]; k++) {
				int w = ws->ch[k], dw = ws->dev[w];
				if (ws->ch_slot[k] != slot || dw == d)
					continue;
				if (deliver(ws, u, w, arrive, t, seq))
					sched_dev(ws, dw, free_at, sched);
				if (!((seen >> dw) & 1)) {
					seen |= (uint64_t)1 << dw;
					r->bytes_in[dw] += bytes;
					if (mem == PL_MEM_NATIVE)
						own[dw] = mlog(ws, dw, t, bytes);
				}
				if (mem == PL_MEM_NATIVE)
					ws->xfer_of[k] = own[dw];	/* the copy it reads */
			}
			r->bytes_moved += bytes;
			r->bytes_out[d] += bytes;
			r->n_transfers++;
			if (ws->tr != NULL)
				pl_sim_rec_xfer(ws, &(struct pl_trace_xfer){
				    .tensor = ws->ch_tensor[k0], .src_dev = d, .dst_dev = -1,
				    .channel = d, .start = t, .end = arrive,
				    .busy_until = bfree, .bytes = bytes });
		}
	}
	if (mem == PL_MEM_PLACETO)
		pl_sim_mem_placeto(ws, r, ws->cnt);
	else if (mem == PL_MEM_NATIVE && done == n)
		mem_native_post(ws, r);
	r->makespan_us = run_time;
	return done == n ? 0 : -1;
}
