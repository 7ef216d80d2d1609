/*
 * sim-placeto — Placeto's reference simulator, reimplemented to the
 * semantics of docs/SIMULATION.md, section 3: one global event queue ordered by
 * (time, kind REMOVE < BUS < DEV, key), FIFO waiting lists keyed
 * (ready time, sequence number), one compute queue and one outgoing bus per
 * device, one broadcast transfer per output index with a remote consumer,
 * delta1 after every non-zero-cost op, delta2 after every transfer, and the
 * run time as the time of the last event popped.
 *
 * How it runs without most of those events (docs/SIMULATION.md, section 3):
 *
 *  - Buses.  A bus carries the transfers of its device's ops in the order
 *    the ops run (ends never decrease on a device), so a transfer's start
 *    max(ready, bus free), its arrival and the bus's next free time are
 *    known as soon as its producer starts: the bus is computed then, with
 *    no event and no queue.
 *  - Deliveries.  The reference queues one REMOVE event per (parent,
 *    child) at the data's arrival and offers the child to its device when
 *    the last one pops.  Here a delivery is accounted when it is created,
 *    with the place its REMOVE event takes in the reference's pop order
 *    (an integer key, below); a child whose last parent is accounted enters
 *    its device's waiting list, kept sorted by (ready time, key), which is
 *    exactly the order in which the reference's FIFO would receive it.
 *  - Devices.  Device d's next event is at max(first ready time, free
 *    time) while something waits for it; a scan of the devices (a
 *    tournament tree above 8) picks the smallest (time, name rank), the
 *    reference's order for DEV events.  Up to 8, the other devices are
 *    scanned when an op starts on another device than the last one's
 *    (the scan then overlaps the op's work instead of waiting for it),
 *    its deliveries lower that minimum when they lower a device's time,
 *    and the next pick is one comparison.
 *
 * Delivery keys at arrival time a (ranks are name ranks under strcmp):
 *   source         v                      (offered first, in list order)
 *   a > creator    K_DELIVERY | u | w      REMOVE events pending at a, by (u, w)
 *   a = start of a transfer that was pending at a (a zero-byte transfer):
 *                  K_TIE | bus rank | chain | w
 *                  its BUS event pops with the pending BUS events of that
 *                  instant, by bus name (and a chain of such transfers on
 *                  one bus at one instant, when delta2 is 0, in bus order)
 *   a = the handler's own time (a zero-cost op; a transfer that starts at
 *       its producer's instant, whose BUS event the reference pops right
 *       after that op's handler):
 *                  K_TIE | K_HANDLER | handler number | w
 * and every allocation of the native memory model and every recorded
 * transfer carries the reference's handler order the same way, so the
 * memory log and the trace are sorted into the reference's event order.
 *
 * Invariant: every time is computed with the same double operations in the
 * same order as the reference, and ops start in the reference's order, so
 * results are bit-exact; the lean path allocates nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim-int.h"
#include "xmalloc.h"

#define K_DELIVERY ((uint64_t)1 << 48)
#define K_TIE ((uint64_t)1 << 63)
#define K_HANDLER ((uint64_t)1 << 62)
#define RANK_BITS 24
#define CHAIN_BITS 30

/* Order of an allocation or transfer among the reference's handlers at
 * one instant: pending BUS events by (bus rank, chain), then handlers in
 * the order they run. */
static inline uint64_t
okey_pending(int bus_rank, uint64_t chain)
{
	return (uint64_t)bus_rank << CHAIN_BITS | chain;
}

/* The place of handler number seq (after every pending BUS event). */
static inline uint64_t
okey_handler(uint64_t seq)
{
	return K_HANDLER | seq;
}

/* The key of a delivery at its creator's place okey, but for the child's
 * rank: after every REMOVE event pending at that time. */
static inline uint64_t
tie_key(uint64_t okey)
{
	return K_TIE | (okey & K_HANDLER) | (okey & ~K_HANDLER) << RANK_BITS;
}

/* ---- the device tournament -------------------------------------------- */

/*
 * The devices' next events by name rank: at[r] is the time of rank r's
 * next event (INFINITY: none).  Up to 8 devices the smallest (time, rank)
 * is found by a scan; above that a winner tree over P leaves (P a power
 * of two) keeps win[i], the leaf with the smallest (time, rank) below node
 * i, and win[1] is the next event.  Left subtrees hold the smaller ranks,
 * so ties go left, as the scan's strict comparison does.
 */
#define TOUR_SCAN 8
struct tour {
	int P;
	double at[PL_MAX_DEVICES];
	int win[2 * PL_MAX_DEVICES];
};

/* Every leaf idle. */
static void
tour_init(struct tour *tr, int D)
{
	int P = 2;
	while (P < D)
		P *= 2;
	tr->P = P;
	for (int r = 0; r < P; r++) {
		tr->at[r] = INFINITY;
		tr->win[P + r] = r;
	}
	for (int i = P - 1; i >= 1; i--)
		tr->win[i] = tr->win[2 * i];
}

/* Set leaf r's time (and replay its path to the root in the tree). */
static inline void
tour_set(struct tour *tr, int r, double t)
{
	tr->at[r] = t;
	if (tr->P <= TOUR_SCAN)
		return;
	for (int i = (tr->P + r) >> 1; i >= 1; i >>= 1) {
		int a = tr->win[2 * i], b = tr->win[2 * i + 1];
		tr->win[i] = tr->at[b] < tr->at[a] ? b : a;
	}
}

/* The rank with the smallest (time, rank); its time in *t. */
static inline int
tour_min(const struct tour *tr, double *t)
{
	if (tr->P > TOUR_SCAN) {
		*t = tr->at[tr->win[1]];
		return tr->win[1];
	}
	int best = 0;
	double bt = tr->at[0];
	for (int r = 1; r < tr->P; r++)
		if (tr->at[r] < bt) {
			bt = tr->at[r];
			best = r;
		}
	*t = bt;
	return best;
}

/* ---- the run ------------------------------------------------------------ */

/* What one evaluation keeps at hand.  Compute queues, buses and the
 * tournament are indexed by device name rank (ws->pto_dr8); the
 * memory log and the result by device. */
struct run {
	struct pl_sim_ws *ws;
	struct pl_sim_result *r;
	struct pl_pto_op *op;		/* ws->pto_op */
	const struct pl_pto_child *ch;	/* ws->pto_ch */
	struct pl_pto_slot *slot;	/* ws->pto_slot */
	uint8_t *dr8;			/* ws->pto_dr8 */
	const int *dev;			/* the placement */
	const int *rank_dev;
	double delta1, delta2, speed;
	enum pl_mem_model mem;
	int record;			/* transfers and copies are logged */
	double free_at[PL_MAX_DEVICES];
	double busy[PL_MAX_DEVICES];
	struct pl_hent *q;		/* waiting lists: rank r's is */
	int *qv;			/* q[qh[r] .. qt[r]), sorted, its */
	int qh[PL_MAX_DEVICES];		/* ops qv[] alongside; q[q0[r] .. */
	int qt[PL_MAX_DEVICES];		/* qh[r]) has run, in order */
	int q0[PL_MAX_DEVICES];
	double bus_free[PL_MAX_DEVICES];
	double bus_last[PL_MAX_DEVICES];	/* start of the bus's last transfer */
	uint64_t chain[PL_MAX_DEVICES];
	int64_t bytes_in[PL_MAX_DEVICES], bytes_out[PL_MAX_DEVICES];
	int log_off[PL_MAX_DEVICES + 1];	/* native memory: each device's */
	int log_n[PL_MAX_DEVICES];		/* entries in e_ord, in order */
	struct tour tour;
	double omin_t;			/* up to TOUR_SCAN devices: the smallest */
	int omin_r;			/* (time, rank) but the running device's */
};

/*
 * Child w (record o, device rank r) of u receives its data at t under key
 * k.  When it was the last parent, w joins its device's waiting list
 * (sorted by (ready, key); new entries usually go last) and, unless that
 * device is the one being handled, the device's next event may move
 * earlier, and with it the smallest of the others (R->omin_t, omin_r).
 */
static inline __attribute__((always_inline)) void
deliver(struct run *R, struct pl_pto_op *o, int u, int w, int r, double t,
    uint64_t k, int handling)
{
	if (t > o->ready || (t == o->ready && k > o->rkey)) {
		o->ready = t;
		o->rkey = k;
		o->pred = u;
	}
	if (--o->pending != 0)
		return;
	/* its children's entries, which its run reads, come in meanwhile */
	__builtin_prefetch(&R->ch[o->ch_lo]);
	struct pl_hent e = pl_hent_make(o->ready, o->rkey);
	struct pl_hent *q = R->q;
	int *qv = R->qv;
	int j = R->qt[r]++, head = R->qh[r];
	while (j > head && pl_hent_less(&e, &q[j - 1])) {
		q[j] = q[j - 1];
		qv[j] = qv[j - 1];
		j--;
	}
	q[j] = e;
	qv[j] = w;
	if (j != head || r == handling)
		return;
	double at = e.t > R->free_at[r] ? e.t : R->free_at[r];
	if (at < R->tour.at[r]) {
		tour_set(&R->tour, r, at);
		if (at < R->omin_t || (at == R->omin_t && r < R->omin_r)) {
			R->omin_t = at;
			R->omin_r = r;
		}
	}
}

/*
 * Log an allocation of the native memory model on d at t, at place okey in
 * the handler order: it joins d's entries in e_ord, kept sorted by (time,
 * place) (new entries usually go last or close to it).
 */
static inline int
mlog(struct run *R, int d, double t, int64_t bytes, uint64_t okey)
{
	struct pl_sim_ws *ws = R->ws;
	int e = ws->n_e++;
	ws->e_t[e] = t;
	ws->e_key[e] = okey;
	ws->e_b[e] = bytes;
	ws->e_f1[e] = ws->e_f2[e] = t;
	ws->e_b1[e] = ws->e_b2[e] = 0;
	int *L = ws->e_ord + R->log_off[d];
	int j = R->log_n[d]++;
	while (j > 0 && (ws->e_t[L[j - 1]] > t ||
	    (ws->e_t[L[j - 1]] == t && ws->e_key[L[j - 1]] > okey))) {
		L[j] = L[j - 1];
		j--;
	}
	L[j] = e;
	return e;
}

/*
 * Logs the copies of transfer x (one per receiving device; every receiver
 * entry of the child list points at its device's copy) and records x in
 * the trace.
 */
static void
log_transfer(struct run *R, int x, double start, double arrive, double bfree,
    int64_t bytes)
{
	struct pl_sim_ws *ws = R->ws;
	int u = ws->x_a[x], slot = ws->x_b[x], k0 = ws->x_src[x], d = R->dev[u];
	int own[PL_MAX_DEVICES];
	uint64_t seen = 0;
	for (int k = k0; k < ws->ch_off[u + 1]; k++) {
		int w = ws->ch[k], dw = R->dev[w];
		if (ws->ch_slot[k] != slot || dw == d)
			continue;
		if (R->mem == PL_MEM_NATIVE) {
			if (!((seen >> dw) & 1)) {
				seen |= (uint64_t)1 << dw;
				own[dw] = mlog(R, dw, start, bytes, ws->x_okey[x]);
			}
			ws->xfer_of[k] = own[dw];	/* the copy it reads */
		}
	}
	if (ws->tr != NULL)
		pl_sim_rec_xfer(ws, &(struct pl_trace_xfer){
		    .tensor = ws->ch_tensor[k0], .src_dev = d, .dst_dev = -1,
		    .channel = d, .start = start, .end = arrive,
		    .busy_until = bfree, .bytes = bytes });
}

/*
 * Op v (record o) starts on the device of rank rk at t (handler number
 * seq): its end, its device's free time, its local children's deliveries
 * and its transfers (the bus computed now).  Returns how many handler
 * numbers its transfers used (those that start at t run right after it in
 * the reference).
 */
static inline uint64_t
run_op(struct run *R, int v, struct pl_pto_op *o, int rk, double t, uint64_t seq)
{
	struct pl_sim_ws *ws = R->ws;
	const double delta2 = R->delta2;
	uint64_t gen = ++ws->slot_gen;	/* this op's slots */
	double cost = o->cost;
	double end = t + cost;
	double free = cost == 0 ? end : end + R->delta1;
	o->start = t;
	R->busy[rk] += cost;
	R->free_at[rk] = free;
	uint64_t own_key = K_DELIVERY | (uint64_t)o->rank << RANK_BITS;
	uint64_t local_key = end == t ? tie_key(okey_handler(seq)) : own_key;
	uint64_t used = 0;
	const struct pl_pto_child *ch = R->ch;
	struct pl_pto_op *op = R->op;
	for (int k = o->ch_lo; k < o->ch_hi; k++) {
		int w = ch[k].w;
		struct pl_pto_op *ow = &op[w];
		int dw = R->dr8[w];
		if (dw == rk) {
			deliver(R, ow, v, w, dw, end, local_key | ch[k].rank, rk);
			continue;
		}
		struct pl_pto_slot *sl = &R->slot[ch[k].slot];
		if (sl->gen != gen) {
			/* the first receiver of this output: its transfer */
			int64_t bytes = ch[k].bytes;
			double bf = R->bus_free[rk];
			double start = end > bf ? end : bf;
			double delay = ch[k].delay;
			double arrive = start + delay;
			double bfree = arrive + delta2;
			R->bus_free[rk] = bfree;
			R->chain[rk] = start == R->bus_last[rk] ? R->chain[rk] + 1 : 0;
			R->bus_last[rk] = start;
			/* its place among the handlers, then its deliveries' key:
			 * a tie only when the data arrives as the transfer starts */
			uint64_t okey = start == t ? okey_handler(seq + ++used) :
			    okey_pending(rk, R->chain[rk]);
			uint64_t key = arrive != start ? own_key : tie_key(okey);
			*sl = (struct pl_pto_slot){ arrive, key, 0, gen };
			R->r->bytes_moved += bytes;
			R->bytes_out[rk] += bytes;
			R->r->n_transfers++;
			if (R->record) {
				int x = ws->n_x++;
				ws->x_a[x] = v;
				ws->x_b[x] = ch[k].slot;
				ws->x_src[x] = k;	/* first receiver entry */
				ws->x_end[x] = arrive;
				ws->x_okey[x] = okey;
				log_transfer(R, x, start, arrive, bfree, bytes);
			}
		}
		if (!((sl->seen >> dw) & 1)) {
			sl->seen |= (uint64_t)1 << dw;
			R->bytes_in[dw] += ch[k].bytes;
		}
		deliver(R, ow, v, w, dw, sl->arrive, sl->key | ch[k].rank, rk);
	}
	return used;
}

/*
 * The native memory model in this simulator.  During the run every
 * allocation is logged (an op's outputs and temporaries at its start, a
 * received copy per receiving device at the transfer's start) with its
 * place in the reference's handler order; after the run each device's log
 * is sorted by (time, place), and each allocation gets its free times:
 * temporaries at the op's end; outputs when the op, its local children and
 * its transfers are done; a copy when its receivers on that device are
 * done.  A free takes effect before the first later allocation of its
 * device at or after its time; one sweep per device then gives the peak
 * (no queue of pending frees).
 */

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
mem_native_post(const struct run *R, struct pl_sim_result *r)
{
	struct pl_sim_ws *ws = R->ws;
	const int *dev = R->dev;
	int n = ws->n, D = ws->n_dev;
	const double *end = ws->end;
	double *F = ws->maxend;
	for (int v = 0; v < n; v++)
		F[v] = end[v];
	for (int u = 0; u < n; u++)
		for (int k = ws->ch_off[u]; k < ws->ch_off[u + 1]; k++) {
			int w = ws->ch[k];
			if (dev[w] == dev[u] && end[w] > F[u])
				F[u] = end[w];
		}
	for (int x = 0; x < ws->n_x; x++) {
		int u = ws->x_a[x], slot = ws->x_b[x], k0 = ws->x_src[x];
		if (ws->x_end[x] > F[u])
			F[u] = ws->x_end[x];
		for (int k = k0; k < ws->ch_off[u + 1]; k++) {
			int w = ws->ch[k];
			if (ws->ch_slot[k] != slot || dev[w] == dev[u])
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
	int64_t *diff = ws->m_diff;
	double *s = ws->m_s;	/* a device's allocation times, in order */
	int *tab = ws->m_tab;
	for (int d = 0; d < D; d++) {
		const int *L = ws->e_ord + R->log_off[d];
		int m = R->log_n[d];
		for (int i = 0; i < m; i++) {
			diff[i] = 0;
			s[i] = ws->e_t[L[i]];
		}
		double k;
		int B;
		pl_sim_buckets(s, m, tab, &k, &B);
		/* a free at f takes effect at the first later entry at or
		 * after f */
		for (int i = 0; i < m; i++) {
			int e = L[i], j;
			if (ws->e_b1[e] > 0 && (j = pl_sim_count_lt(s, tab, k, B, ws->e_f1[e], i + 1)) < m)
				diff[j] += ws->e_b1[e];
			if (ws->e_b2[e] > 0 && (j = pl_sim_count_lt(s, tab, k, B, ws->e_f2[e], i + 1)) < m)
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

struct xfer_place {
	double start;
	uint64_t okey;
	int i;
};

/* Order transfers by start, then place. */
static int
xfer_place_cmp(const void *a, const void *b)
{
	const struct xfer_place *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->okey > y->okey) - (x->okey < y->okey);
}

/* The trace's transfers in the reference's order: by start, then place. */
static void
sort_trace_xfers(struct pl_sim_ws *ws)
{
	struct pl_trace *tr = ws->tr;
	int m = tr->n_xfers;
	if (m < 2)
		return;
	struct xfer_place *o = pl_xmalloc(sizeof *o * (size_t)m);
	struct pl_trace_xfer *x = pl_xmalloc(sizeof *x * (size_t)m);
	for (int i = 0; i < m; i++)
		o[i] = (struct xfer_place){ tr->xfers[i].start, ws->x_okey[i], i };
	qsort(o, (size_t)m, sizeof *o, xfer_place_cmp);
	for (int i = 0; i < m; i++)
		x[i] = tr->xfers[o[i].i];
	memcpy(tr->xfers, x, sizeof *x * (size_t)m);
	free(x);
	free(o);
}

/* Run the Placeto model. */
int
pl_sim_run_placeto(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r)
{
	const struct pl_cluster *c = ws->p->c;
	const double init = c->placeto.init_offset;
	const double *time_us = ws->p->time_us;
	const int *dev = pl->dev, *dev_rank = ws->dev_rank;
	int n = ws->n, D = ws->n_dev;
	struct run R;
	R.ws = ws;
	R.r = r;
	R.op = ws->pto_op;
	R.ch = ws->pto_ch;
	R.slot = ws->pto_slot;
	R.dr8 = ws->pto_dr8;
	R.dev = dev;
	R.rank_dev = ws->rank_dev;
	R.q = ws->qmem;
	R.qv = ws->qitem;
	R.delta1 = c->placeto.delta1;
	R.delta2 = c->placeto.delta2;
	R.speed = c->placeto.transfer_speed;
	if (ws->pto_speed != R.speed) {	/* the delays, for this speed */
		for (int k = 0; k < ws->ch_off[n]; k++)
			ws->pto_ch[k].delay = (double)ws->pto_ch[k].bytes / R.speed;
		ws->pto_speed = R.speed;
	}
	R.mem = mem;
	R.record = mem == PL_MEM_NATIVE || ws->tr != NULL;

	/* Setup: each op's device rank, run time and pending parents,
	 * waiting-list regions (one slot per op of the device), nothing
	 * delivered yet (every real key is above 0). */
	int cnt[PL_MAX_DEVICES];	/* ops by device rank */
	for (int d = 0; d < D; d++) {
		cnt[d] = 0;
		R.free_at[d] = 0;
		R.busy[d] = 0;
		R.bus_free[d] = 0;
		R.bus_last[d] = -INFINITY;
		R.chain[d] = 0;
		R.bytes_in[d] = R.bytes_out[d] = 0;
	}
	for (int v = 0; v < n; v++) {
		struct pl_pto_op *o = &R.op[v];
		int d = dev[v], rk = dev_rank[d];
		cnt[rk]++;
		o->ready = 0;
		o->rkey = 0;
		o->cost = time_us[(size_t)v * D + d];
		o->pending = o->npar;
		o->pred = -1;
		R.dr8[v] = (uint8_t)rk;
	}
	if (mem == PL_MEM_NATIVE) {
		/* log regions: a device logs its ops and at most one copy per
		 * input of each of them */
		for (int d = 0; d <= D; d++)
			R.log_off[d] = 0;
		for (int v = 0; v < n; v++)
			R.log_off[dev[v] + 1] += 1 + R.op[v].npar;
		for (int d = 0; d < D; d++) {
			R.log_off[d + 1] += R.log_off[d];
			R.log_n[d] = 0;
		}
	}
	if (ws->tr != NULL)
		for (int v = 0; v < n; v++)
			ws->prev_on_dev[v] = -1;
	int off = 0;
	for (int rk = 0; rk < D; rk++) {
		R.q0[rk] = R.qh[rk] = R.qt[rk] = off;
		ws->q_off[R.rank_dev[rk]] = off;
		off += cnt[rk];
	}
	ws->n_x = 0;
	ws->n_e = 0;
	pl_sim_mem_begin(ws, r, mem, dev);
	tour_init(&R.tour, D);

	/* Sources, in list order, at init_offset. */
	for (int i = 0; i < ws->n_src; i++) {
		int v = ws->src[i], rk = R.dr8[v];
		R.op[v].ready = init;
		R.qv[R.qt[rk]] = v;
		R.q[R.qt[rk]++] = pl_hent_make(init, (uint64_t)v);
	}
	for (int rk = 0; rk < D; rk++)
		if (R.qt[rk] > R.qh[rk])
			tour_set(&R.tour, rk, init);

	int last[PL_MAX_DEVICES];
	for (int rk = 0; rk < D; rk++)
		last[rk] = -1;
	r->makespan_us = 0;
	uint64_t seq = 0;	/* handlers run */
	/* The next device: up to TOUR_SCAN, the smallest of the others is
	 * found while an op runs (its deliveries may lower it), so that the
	 * next pick after it is one comparison; its time t is carried from
	 * that comparison (R.omin_t is always R.tour.at[R.omin_r]), not
	 * read back. */
	const int scan = R.tour.P <= TOUR_SCAN;
	R.omin_t = INFINITY;	/* (kept but unused above TOUR_SCAN) */
	R.omin_r = 0;
	double t;
	int stay = 0;	/* rk runs on: the others' smallest still holds */
	for (int rk = tour_min(&R.tour, &t);;) {
		if (t == INFINITY)
			break;
		if (scan && !stay) {	/* the others' smallest */
			R.tour.at[rk] = INFINITY;
			R.omin_r = tour_min(&R.tour, &R.omin_t);
		}
		seq++;
		int v = R.qv[R.qh[rk]++];	/* qv[q0 ..] is the run order */
		struct pl_pto_op *o = &R.op[v];
		if (ws->tr != NULL) {
			ws->prev_on_dev[v] = last[rk];
			last[rk] = v;
		}
		if (mem == PL_MEM_NATIVE)
			ws->ref[v] = mlog(&R, R.rank_dev[rk], t, ws->ob[v] + ws->tb[v],
			    okey_handler(seq));
		seq += run_op(&R, v, o, rk, t, seq);
		double next = INFINITY;
		if (R.qh[rk] < R.qt[rk]) {
			double rd = R.q[R.qh[rk]].t;
			next = rd > R.free_at[rk] ? rd : R.free_at[rk];
		}
		tour_set(&R.tour, rk, next);
		if (!scan)
			rk = tour_min(&R.tour, &t);
		else if (!(next < R.omin_t || (next == R.omin_t && rk < R.omin_r))) {
			rk = R.omin_r;
			t = R.omin_t;
			stay = 0;
		} else {
			t = next;
			stay = 1;
		}
	}
	/* The run time: a device's free time and its bus's only grow, so
	 * the last of each is its latest. */
	int done = 0, ran[PL_MAX_DEVICES];	/* ops run, by device */
	for (int rk = 0; rk < D; rk++) {
		int d = R.rank_dev[rk];
		if (R.free_at[rk] > r->makespan_us)
			r->makespan_us = R.free_at[rk];
		if (R.bus_free[rk] > r->makespan_us)
			r->makespan_us = R.bus_free[rk];
		r->busy_us[d] = R.busy[rk];
		r->bytes_in[d] = R.bytes_in[rk];
		r->bytes_out[d] = R.bytes_out[rk];
		ran[d] = R.qh[rk] - R.q0[rk];
		done += ran[d];
	}
	ws->starts_in = PL_STARTS_PTO;
	if (ws->tr != NULL || mem != PL_MEM_NONE)
		pl_sim_pto_gather(ws);
	if (ws->tr != NULL) {
		sort_trace_xfers(ws);
		for (int v = 0; v < n; v++) {	/* for the critical path */
			ws->ready[v] = R.op[v].ready;
			ws->pred[v] = R.op[v].pred;
		}
	}
	if (mem == PL_MEM_PLACETO)
		pl_sim_mem_placeto(ws, r, pl->dev, ran);
	else if (mem == PL_MEM_NATIVE && done == n)
		mem_native_post(&R, r);
	return done == n ? 0 : -1;
}
