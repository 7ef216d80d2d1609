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
 * order of the completions.  Which idle queue starts first within a batch
 * changes nothing but the order of the trace's records.  Nothing here
 * allocates.
 *
 * Layout: everything a run reads and writes of an op is one 64-byte record
 * (struct pl_nat_op) but for memory's 16-byte holder record (see
 * "Memory" below), a transfer is one record, a consumer entry is one
 * pair, so that the random accesses of a large graph touch one cache line
 * each (and an op's device is also one byte of ws->nat_dev8, so that an
 * op's end learns which consumers are remote without their records);
 * start times stay in the records unless a trace or the Placeto memory
 * model needs them as arrays.  Ops and tensors are numbered in the
 * model's own order (by depth, see native_order() in sim-common.c), which
 * keeps those accesses close together; what goes in or out by op or
 * tensor id (the placement, priorities, starts, the trace) is mapped
 * through ws->nat_perm and ws->nat_tperm, and events at one time are
 * handled in op id order, so the order changes nothing else.
 */
#include "cost.h"
#include "sim-int.h"

#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#define CTZ64(x) __builtin_ctzll(x)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define HOT static inline
#define PREFETCH(p) ((void)(p))
/* The index of the lowest set bit of x (not 0). */
static inline int
CTZ64(uint64_t x)
{
	int i = 0;
	while (!(x & 1)) {
		x >>= 1;
		i++;
	}
	return i;
}
#endif

/* Queue flags (ws->q_busy, general path). */
#define Q_BUSY 1		/* running an item */
#define Q_DIRTY 2		/* on the dirty list */

/*
 * Two loops.  The fast one (lean, at most 64 queues) keeps the busy and
 * the to-look-at queues as bit sets and the events in flight in a sorted
 * array; the general one (a trace, or more queues) keeps a list of queues
 * to look at in marking order (the trace's record order) and the events in
 * a heap.  Both give the same results; the tests compare them.
 */
#define FAST_MAX_QUEUES 64

/*
 * From this many ops on, the op records (64 bytes each) outgrow the L2
 * cache, and a consumer's record is usually not in any cache when its
 * producer ends: the loops then prefetch the records of an op's first
 * consumers when it starts, a few events before they are needed (and,
 * when it becomes ready, the record of its first output tensor, which
 * that start reads to find them).
 */
#define PREFETCH_MIN_OPS 4096

/*
 * From this many ops on, native memory accounting also prefetches, when an
 * op starts, the holder records its end writes (see prefetch_holds()).
 * Below it those 16-byte records (one per op and per transfer) mostly stay
 * in the L2 cache from an op's start to its end, and the prefetch loop,
 * whose exit on the number of inputs mispredicts, costs more than it saves
 * (paired, without it: 0.96-0.97 on 10k and 15k ops, even on 20k to 30k,
 * 1.10 on 40k and 1.05 on 60k).
 */
#define PREFETCH_HOLDS_MIN_OPS 32768

/* One run's state: the helpers below are inlined into the runner, so
 * these live in registers or on its stack. */
struct nrun {
	struct pl_sim_ws *ws;
	const struct pl_placement *pl;
	const struct pl_cluster *c;
	struct pl_sim_result *r;
	struct pl_nat_op *op;
	const int *perm;		/* op id by position (ws->nat_perm) */
	struct pl_nat_xfer *X;
	const struct pl_nat_tensor *T;
	const struct pl_nat_cons *C;
	int *clink;			/* ws->nat_clink */
	uint8_t *dev8;			/* ws->nat_dev8 */
	int *in;			/* ws->nat_in */
	struct pl_nat_hold *hold;	/* ws->nat_hold */
	int n;
	int *qitem, *q_off, *q_n, *q_head, *q_busy;
	int *dirty, ndirty;		/* general: queues to look at */
	uint64_t busy_m, dirty_m;	/* fast: the same as bit sets */
	int n_x;
	int D, shared, memn;
	int fast;			/* the fast loop (see above) */
	int prefetch;			/* see PREFETCH_MIN_OPS */
	int prefetch_holds;		/* see PREFETCH_HOLDS_MIN_OPS */
	int trace;			/* recording */
	double t;
};

/*
 * The events in flight (at most one per queue): in the fast loop a sorted
 * array, latest first, so that the next event is the last entry; else a
 * heap.  Both give events in (time, key) order.  A key is EV_KEY(order,
 * item): completions at one time are handled by order (an op's id, then
 * transfers by creation), and item is what completes (an op's position,
 * or n + transfer).
 */
#define EV_KEY(order, item) ((uint64_t)(order) << 32 | (uint32_t)(item))

/* Add an event at t with key k. */
HOT void
ev_push(struct pl_hent *ev, int *n, int sorted, double t, uint64_t k)
{
	struct pl_hent e = pl_hent_make(t, k);
	if (!sorted) {
		pl_heap_push(ev, n, e);
		return;
	}
	int j = (*n)++;
	while (j > 0 && pl_hent_less(&ev[j - 1], &e)) {
		ev[j] = ev[j - 1];
		j--;
	}
	ev[j] = e;
}

/* The next event (the set is not empty). */
HOT const struct pl_hent *
ev_next(const struct pl_hent *ev, int n, int sorted)
{
	return sorted ? &ev[n - 1] : &ev[0];
}

/* Remove the next event; its key. */
HOT int
ev_pop(struct pl_hent *ev, int *n, int sorted)
{
	if (sorted)
		return (int)(uint32_t)ev[--(*n)].k;
	return (int)(uint32_t)pl_heap_pop(ev, n).k;
}

/* The channel of a transfer from device a to device b: its queue index. */
HOT int
channel_of(const struct nrun *R, int a, int b)
{
	return R->D + (R->shared ? 0 : a * R->D + b);
}

/* Mark queue q to be looked at before time advances.  A busy queue is
 * looked at anyway when its item completes, so the lean paths skip busy
 * queues (the fast one when it looks); a recording run marks every time,
 * which keeps the order in which queues start (the trace's record order)
 * stable. */
HOT void
mark(struct nrun *R, int q)
{
	if (R->fast) {
		R->dirty_m |= (uint64_t)1 << q;
		return;
	}
	int b = R->q_busy[q];
	if (!(b & Q_DIRTY) && (R->trace || !(b & Q_BUSY))) {
		R->q_busy[q] = b | Q_DIRTY;
		R->dirty[R->ndirty++] = q;
	}
}

/*
 * Op w has all its inputs at time t, the last from op `by`.  Without
 * priorities a device's queue is ordered by (ready time, topological
 * index); ready times only grow, so it is a FIFO in which an op goes
 * behind those of its own instant with a lower topological index (the
 * ops of the current instant are q[run_lo[d] ..)).  With priorities it is
 * a heap.
 */
HOT void
release(struct nrun *R, int w, int by)
{
	struct pl_sim_ws *ws = R->ws;
	if (R->trace) {
		ws->ready[R->perm[w]] = R->t;
		ws->pred[R->perm[w]] = by < 0 ? -1 : R->perm[by];
	}
	const struct pl_nat_op *o = &R->op[w];
	int d = o->dev;
	if (R->prefetch)	/* its outputs, for prefetch_consumers() */
		PREFETCH(&R->T[o->t_lo]);
	if (R->pl->prio != NULL)
		pl_heap_push(ws->qmem + R->q_off[d], &R->q_n[d],
		    pl_hent_make(-R->pl->prio[R->perm[w]], (uint64_t)o->topo));
	else {
		int *it = R->qitem + R->q_off[d];
		int j = R->q_n[d]++;
		if (ws->run_t[d] != R->t) {
			ws->run_t[d] = R->t;
			ws->run_lo[d] = j;
		}
		int lo = ws->run_lo[d] > R->q_head[d] ? ws->run_lo[d] : R->q_head[d];
		while (j > lo && R->op[it[j - 1]].topo > o->topo) {
			it[j] = it[j - 1];
			j--;
		}
		it[j] = w;
	}
	mark(R, d);
}

/*
 * Memory (native model).  Frees happen as things end: the event loop
 * handles every completion at t before anything starts at t, so what ends
 * at t is freed before what starts at t allocates, with no queue of
 * pending frees.  What is held (an op's outputs from its end on, a
 * received copy from its transfer's end on) is a 16-byte record of
 * ws->nat_hold with its bytes, device and count of holders not done, and
 * a consumer's input entry in ws->nat_in names the record it holds: a
 * release touches that small record, not the producer's op record.
 */

/* Allocate bytes on d at t. */
HOT void
mem_alloc(struct nrun *R, struct pl_sim_result *r, int d, int64_t bytes)
{
	struct pl_sim_ws *ws = R->ws;
	if (bytes <= 0)
		return;
	ws->live[d] += bytes;
	if (ws->live[d] > r->peak_bytes[d])
		r->peak_bytes[d] = ws->live[d];
	if (R->trace)
		pl_sim_rec_mem(ws, d, R->t);
}

/* Free bytes on d at t. */
HOT void
mem_free(struct nrun *R, int d, int64_t bytes)
{
	if (bytes <= 0)
		return;
	R->ws->live[d] -= bytes;
	if (R->trace)
		pl_sim_rec_mem(R->ws, d, R->t);
}

/* Free bytes on d at t when last (the count of holders reached 0).  The
 * lean paths subtract 0 otherwise instead of branching: whether a holder
 * is the last is as good as random to the branch predictor. */
HOT void
mem_free_if(struct nrun *R, int last, int d, int64_t bytes)
{
	if (R->trace) {
		if (last)
			mem_free(R, d, bytes);
		return;
	}
	R->ws->live[d] -= bytes & -(int64_t)last;
}

/* One more holder of holder h's bytes is done at t. */
HOT void
dec_hold(struct nrun *R, int h)
{
	struct pl_nat_hold *H = &R->hold[h];
	mem_free_if(R, --H->ref == 0, H->dev, H->bytes);
}

/* Op v, on d, ends at t with `holders` new holders of its outputs (its
 * local consumers and transfers): its temporaries, its own hold on its
 * outputs (the last when there are no others) and its hold on each
 * input. */
HOT void
mem_op_end(struct nrun *R, int v, int d, int holders)
{
	const struct pl_nat_op *o = &R->op[v];
	mem_free(R, d, o->tb);
	R->hold[v] = (struct pl_nat_hold){ o->ob, holders, d };
	mem_free_if(R, holders == 0, d, o->ob);
	for (int i = o->in_lo; i < o->in_hi; i++)
		dec_hold(R, R->in[i]);
}

/* Append transfer x to channel q (a FIFO through next, or a heap by
 * priority, ties by creation). */
HOT void
xfer_queue(struct nrun *R, int q, int x, int tn, int dw)
{
	const double *tp = R->pl->tprio;
	if (tp != NULL)
		pl_heap_push(R->ws->qmem + R->q_off[q], &R->q_n[q],
		    pl_hent_make(-tp[(size_t)R->ws->nat_tperm[tn] * R->D + dw], (uint64_t)x));
	else {
		if (R->q_head[q] < 0)
			R->q_head[q] = x;
		else
			R->X[R->q_n[q]].next = x;
		R->q_n[q] = x;		/* the tail */
	}
	mark(R, q);
}

/*
 * Op v, on d, ends at t: release its local consumers and create one
 * transfer per (output tensor, other device) on its channel, in order of
 * readiness; then free memory.
 */
HOT void
op_done(struct nrun *R, int v, int d)
{
	struct pl_nat_op *ov = &R->op[v];
	int holders = 0;
	for (int tn = ov->t_lo; tn < ov->t_hi; tn++) {
		const struct pl_nat_tensor *T = &R->T[tn];
		uint64_t seen = (uint64_t)1 << d;
		int xd[PL_MAX_DEVICES], xl[PL_MAX_DEVICES];	/* its last entry */
		for (int kc = T->c_lo; kc < T->c_hi; kc++) {
			const struct pl_nat_cons *cn = &R->C[kc];
			int dw = R->dev8[cn->w], x;
			if (dw == d) {
				struct pl_nat_op *o = &R->op[cn->w];
				holders++;
				if (R->memn)
					R->in[cn->in] = v;
				if (--o->pending == 0)
					release(R, cn->w, v);
				continue;
			}
			if (!((seen >> dw) & 1)) {
				seen |= (uint64_t)1 << dw;
				x = R->n_x++;
				xd[dw] = x;
				holders++;
				int q = channel_of(R, d, dw);
				int64_t bytes = T->bytes;
				R->X[x] = (struct pl_nat_xfer){ .tensor = tn, .u = v,
				    .q = (uint16_t)q, .dst = (uint16_t)dw, .cref = 0,
				    .next = -1, .c_first = kc, .bytes = bytes,
				    .dur = pl_cost_xfer_us(R->c, d, dw, bytes) };
				/* every transfer created runs: count it now */
				R->r->bytes_moved += bytes;
				R->r->bytes_out[d] += bytes;
				R->r->bytes_in[dw] += bytes;
				R->r->n_transfers++;
				xfer_queue(R, q, x, tn, dw);
			} else {
				x = xd[dw];
				R->clink[xl[dw]] = kc;
			}
			xl[dw] = kc;
			R->X[x].cref++;
			if (R->memn)
				R->in[cn->in] = R->n + x;
		}
	}
	if (R->memn)
		mem_op_end(R, v, d, holders);
}

/* Transfer x ends at t: release its consumers (its cref entries, in
 * order, linked through clink: none has ended yet). */
HOT void
xfer_done(struct nrun *R, int x)
{
	const struct pl_nat_xfer *X = &R->X[x];
	if (R->memn) {	/* the copy's holders: no consumer is done yet */
		R->hold[R->n + x] = (struct pl_nat_hold){ X->bytes, X->cref, X->dst };
		dec_hold(R, X->u);
	}
	for (int i = 0, kc = X->c_first; i < X->cref; i++, kc = R->clink[kc]) {
		int w = R->C[kc].w;
		if (--R->op[w].pending == 0)
			release(R, w, X->u);
	}
}

/* Channel sizes for prioritised transfers (heaps need their room): one
 * transfer per (tensor, other device among its consumers). */
static void
size_channels(const struct nrun *R, int n, int *cnt)
{
	for (int u = 0; u < n; u++) {
		const struct pl_nat_op *ou = &R->op[u];
		int du = ou->dev;
		for (int t = ou->t_lo; t < ou->t_hi; t++) {
			uint64_t seen = (uint64_t)1 << du;
			for (int k = R->T[t].c_lo; k < R->T[t].c_hi; k++) {
				int dw = R->op[R->C[k].w].dev;
				if (!((seen >> dw) & 1)) {
					seen |= (uint64_t)1 << dw;
					cnt[channel_of(R, du, dw)]++;
				}
			}
		}
	}
}

/* Op o starts: fetch its first four consumers' records into the cache
 * (repeating the last when it has fewer; none when it has none). */
HOT void
prefetch_consumers(const struct nrun *R, const struct pl_nat_op *o)
{
	if (o->t_hi == o->t_lo)
		return;
	int lo = R->T[o->t_lo].c_lo, m = R->T[o->t_hi - 1].c_hi - lo - 1;
	if (m < 0)
		return;
	PREFETCH(&R->op[R->C[lo].w]);
	PREFETCH(&R->op[R->C[lo + (m < 1 ? m : 1)].w]);
	PREFETCH(&R->op[R->C[lo + (m < 2 ? m : 2)].w]);
	PREFETCH(&R->op[R->C[lo + (m < 3 ? m : 3)].w]);
}

/* Op o starts (native memory): fetch the counts its end decrements, of
 * each input's holder (its producer, or the received copy), and its own
 * holder record, which its end writes. */
HOT void
prefetch_holds(const struct nrun *R, const struct pl_nat_op *o)
{
	for (int i = o->in_lo; i < o->in_hi; i++)
		PREFETCH(&R->hold[R->in[i]]);
	PREFETCH(&R->hold[o - R->op]);
}

/* Queue q starts an item: busy. */
HOT void
set_busy(struct nrun *R, int q)
{
	if (R->fast)
		R->busy_m |= (uint64_t)1 << q;
	else
		R->q_busy[q] |= Q_BUSY;
}

/* Queue q has finished its item: idle, and to be looked at. */
HOT void
set_idle(struct nrun *R, int q)
{
	if (R->fast)
		R->busy_m &= ~((uint64_t)1 << q);
	else
		R->q_busy[q] &= ~Q_BUSY;
	mark(R, q);
}

/* Run the native model; fast and memn are constants in each copy. */
HOT int
run_native(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r, const int fast,
    const int memn)
{
	const int trace = !fast && ws->tr != NULL;	/* fast: never */
	const struct pl_graph *g = ws->g;
	const struct pl_cluster *c = ws->p->c;
	const double *tt = ws->nat_tt;	/* rows by position */
	int n = ws->n, D = ws->n_dev;
	int shared = c->shared_bus;
	int nq = D + (shared ? 1 : D * D);
	int last[PL_MAX_DEVICES], exec[PL_MAX_DEVICES];
	const int has_prio = pl->prio != NULL, has_tprio = pl->tprio != NULL;
	/* starts as an array: for a trace and the Placeto memory model (a
	 * trace keeps the ends too); the lean path leaves the starts in the
	 * op records */
	const int arrays = trace || mem == PL_MEM_PLACETO;
	struct nrun R = { .ws = ws, .pl = pl, .c = c, .r = r, .op = ws->nat_op,
	    .perm = ws->nat_perm, .X = ws->nat_x,
	    .T = ws->nat_t, .C = ws->nat_c, .clink = ws->nat_clink, .dev8 = ws->nat_dev8, .in = ws->nat_in, .hold = ws->nat_hold, .n = ws->n, .qitem = ws->qitem,
	    .q_off = ws->q_off, .q_n = ws->q_n, .q_head = ws->q_head,
	    .q_busy = ws->q_busy, .dirty = ws->cnt, .D = D, .shared = shared,
	    .memn = memn, .fast = fast, .trace = trace,
	    .prefetch = n >= PREFETCH_MIN_OPS,
	    .prefetch_holds = memn && n >= PREFETCH_HOLDS_MIN_OPS };
	struct pl_nat_op *op = R.op;
	int *cnt = R.q_n;		/* queue sizes, before the queues */

	/* Setup: devices, run times, missing inputs; queues. */
	for (int q = 0; q < nq; q++)
		cnt[q] = 0;
	for (int v = 0; v < n; v++) {
		struct pl_nat_op *o = &op[v];
		int d = pl->dev[R.perm[v]];
		o->dev = d;
		R.dev8[v] = (uint8_t)d;
		o->pending = o->in_hi - o->in_lo;
		o->cost = tt[(size_t)v * D + d];
		o->start = 0;
		cnt[d]++;
	}
	if (R.trace)
		for (int v = 0; v < n; v++) {
			ws->pred[v] = -1;
			ws->prev_on_dev[v] = -1;
		}
	if (has_tprio)
		size_channels(&R, n, cnt);
	int off = 0;
	for (int q = 0; q < nq; q++) {
		int fifo_ch = q >= D && !has_tprio;	/* a list through nat_x */
		R.q_off[q] = off;
		off += fifo_ch ? 0 : cnt[q];
		R.q_n[q] = fifo_ch ? -1 : 0;
		R.q_head[q] = fifo_ch ? -1 : 0;
		R.q_busy[q] = 0;
	}
	for (int d = 0; d < D; d++) {
		last[d] = -1;
		exec[d] = 0;
		ws->run_t[d] = -1;
	}
	int n_ev = 0;
	struct pl_hent *ev = ws->ev;
	pl_sim_mem_begin(ws, r, mem, pl->dev);

	int done = 0;
	double ms = 0, t = 0;
	R.t = 0;
	for (int i = 0; i < ws->n_nat_src; i++)
		release(&R, ws->nat_src[i], -1);
	for (;;) {
		/* Idle devices and channels take their best waiting item
		 * (starting one marks nothing). */
		uint64_t todo = R.dirty_m & ~R.busy_m;
		R.dirty_m = 0;
		for (;;) {
			int q;
			if (fast) {
				if (todo == 0)
					break;
				q = CTZ64(todo);
				todo &= todo - 1;
			} else {
				if (R.ndirty == 0)
					break;
				q = R.dirty[--R.ndirty];
				R.q_busy[q] &= ~Q_DIRTY;
				if (R.q_busy[q] & Q_BUSY)
					continue;
			}
			if (q < D) {
				int v;
				if (has_prio) {
					if (R.q_n[q] == 0)
						continue;
					v = ws->nat_iperm[g->topo[pl_heap_pop(ws->qmem + R.q_off[q], &R.q_n[q]).k]];
					R.qitem[R.q_off[q] + exec[q]++] = v;
				} else {
					if (R.q_head[q] == R.q_n[q])
						continue;
					v = R.qitem[R.q_off[q] + R.q_head[q]++];
				}
				set_busy(&R, q);
				struct pl_nat_op *o = &op[v];
				if (R.prefetch) {
					prefetch_consumers(&R, o);
					if (R.prefetch_holds)
						prefetch_holds(&R, o);
				}
				double e = t + o->cost;
				o->start = t;
				if (arrays)
					ws->start[R.perm[v]] = t;
				if (e > ms)
					ms = e;
				if (R.trace) {
					ws->end[R.perm[v]] = e;
					ws->prev_on_dev[R.perm[v]] = last[q];
					last[q] = R.perm[v];
				}
				r->busy_us[q] += o->cost;
				ev_push(ev, &n_ev, fast, e, EV_KEY(R.perm[v], v));
				if (R.memn)
					mem_alloc(&R, r, q, o->ob + o->tb);
				continue;
			}
			int x;
			if (has_tprio) {
				if (R.q_n[q] == 0)
					continue;
				x = (int)pl_heap_pop(ws->qmem + R.q_off[q], &R.q_n[q]).k;
			} else {
				x = R.q_head[q];
				if (x < 0)
					continue;
				R.q_head[q] = R.X[x].next;
				if (R.q_head[q] < 0)
					R.q_n[q] = -1;
			}
			set_busy(&R, q);
			const struct pl_nat_xfer *X = &R.X[x];
			int64_t bytes = X->bytes;
			double e = t + X->dur;
			ev_push(ev, &n_ev, fast, e, EV_KEY(n + x, n + x));
			if (R.memn)
				mem_alloc(&R, r, X->dst, bytes);
			if (R.trace)
				pl_sim_rec_xfer(ws, &(struct pl_trace_xfer){
				    .tensor = ws->nat_tperm[X->tensor], .src_dev = op[X->u].dev, .dst_dev = X->dst,
				    .channel = q - D, .start = t, .end = e,
				    .busy_until = e, .bytes = bytes });
		}
		if (n_ev == 0)
			break;
		/* Every completion at the next time: the queue is free again,
		 * then what the item releases. */
		R.t = t = ev_next(ev, n_ev, fast)->t;
		do {
			int k = ev_pop(ev, &n_ev, fast);
			if (k < n) {
				int d = op[k].dev;
				set_idle(&R, d);
				done++;
				op_done(&R, k, d);
			} else {
				set_idle(&R, R.X[k - n].q);
				xfer_done(&R, k - n);
			}
		} while (n_ev > 0 && ev_next(ev, n_ev, fast)->t == t);
	}
	ws->starts_in = arrays ? PL_STARTS_ARRAYS : PL_STARTS_NAT;
	if (mem == PL_MEM_PLACETO) {
		/* its run order by device, as op ids */
		const int *ran = has_prio ? exec : R.q_head;
		for (int d = 0; d < D; d++)
			for (int i = 0; i < ran[d]; i++)
				R.qitem[R.q_off[d] + i] = R.perm[R.qitem[R.q_off[d] + i]];
		pl_sim_mem_placeto(ws, r, pl->dev, ran);
	}
	r->makespan_us = ms;
	return done == n ? 0 : -1;
}

/* Run the native model: a copy of the loop per (fast or general, memory
 * accounting or not), with the tests on those compiled out. */
int
pl_sim_run_native(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r)
{
	int nq = ws->n_dev + (ws->p->c->shared_bus ? 1 : ws->n_dev * ws->n_dev);
	int fast = ws->tr == NULL && nq <= FAST_MAX_QUEUES;
	int memn = mem == PL_MEM_NATIVE;
	if (fast)
		return memn ? run_native(ws, pl, mem, r, 1, 1) : run_native(ws, pl, mem, r, 1, 0);
	return memn ? run_native(ws, pl, mem, r, 0, 1) : run_native(ws, pl, mem, r, 0, 0);
}
