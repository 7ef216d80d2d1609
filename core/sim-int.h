/*
 * sim-int — what the simulator files (sim-common.c, sim-native.c,
 * sim-placeto.c) share: the workspace, a binary heap on a flat array and
 * the memory accounting engine.  Not a public header.
 *
 * Invariant: everything in a workspace is sized once, from the problem, in
 * pl_sim_ws_new(); an evaluation only writes into those arrays, so the lean
 * path allocates nothing.  Arrays marked "per eval" are overwritten by each
 * evaluation; the others depend on the graph alone.
 */
#ifndef PL_SIM_INT_H
#define PL_SIM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* A heap entry: ordered by (t, k); k carries the payload in its low bits. */
struct pl_hent {
	double t;
	uint64_t k;
};

/* An entry for time t and key k. */
static inline struct pl_hent
pl_hent_make(double t, uint64_t k)
{
	return (struct pl_hent){ .t = t, .k = k };
}

/* Whether a sorts before b. */
static inline int
pl_hent_less(const struct pl_hent *a, const struct pl_hent *b)
{
	return a->t < b->t || (a->t == b->t && a->k < b->k);
}

/* Push e onto the min-heap h of *n entries (capacity is the caller's). */
static inline void
pl_heap_push(struct pl_hent *h, int *n, struct pl_hent e)
{
	int i = (*n)++;
	while (i > 0) {
		int up = (i - 1) >> 1;
		if (!pl_hent_less(&e, &h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = e;
}

/* Replace the smallest entry of a non-empty heap by e. */
static inline void
pl_heap_replace_top(struct pl_hent *h, int n, struct pl_hent e)
{
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && pl_hent_less(&h[c + 1], &h[c]))
			c++;
		if (!pl_hent_less(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

/* Pop the smallest entry of a non-empty heap. */
static inline struct pl_hent
pl_heap_pop(struct pl_hent *h, int *n)
{
	struct pl_hent top = h[0];
	struct pl_hent last = h[--(*n)];
	int m = *n, i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= m)
			break;
		if (c + 1 < m && pl_hent_less(&h[c + 1], &h[c]))
			c++;
		if (!pl_hent_less(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (m > 0)
		h[i] = last;
	return top;
}

/* Placeto model: what a delivery reads and writes of its child. */
struct pl_pto_op {
	double ready;			/* latest delivery so far */
	uint64_t rkey;			/* its place in the reference's order */
	int pending;			/* parents not delivered yet */
	int pred;			/* the parent of that delivery */
};

/* Placeto model: a child entry (see ch[] below). */
struct pl_pto_child {
	int w;				/* the child */
	int slot;			/* its output slot among the parent's */
	uint64_t rank;			/* the child's name rank */
	int64_t bytes;			/* S(u)[idx(u, w)] */
};

/* Placeto model: the transfer of one output slot of the op being run. */
struct pl_pto_slot {
	double arrive;
	uint64_t key;			/* delivery key, but for the child's rank */
	uint64_t seen;			/* receiving devices so far */
	unsigned gen;			/* valid when slot_gen */
};

struct pl_sim_ws {
	const struct pl_problem *p;
	const struct pl_graph *g;
	int n, n_dev, n_tensors;
	size_t bytes;

	/* Per-op and per-tensor fields the loops read, packed (copies of the
	 * graph's, so that a run touches a few dense arrays only). */
	int *op_t_off;			/* tensors of op v: [op_t_off[v], op_t_off[v+1]) */
	int64_t *ob, *tb;		/* out_bytes, temp_bytes */
	int *t_op;			/* producer of each tensor */
	int64_t *t_bytes;		/* bytes of each tensor */

	/* Graph structure (native model). */
	int *in_t_off, *in_t;		/* distinct input tensors per op */
	int *in_to_cons;		/* per in_t entry: its t_cons entry */
	int *t_cons_off, *t_cons;	/* distinct consumers per tensor, edge order */

	/* Graph structure (Placeto model). */
	int *par_off, *par;		/* distinct parents per op */
	int *par_ce;			/* per par entry: the matching ch entry */
	int *ch_off, *ch;		/* distinct children per op, by id */
	int *ch_slot;			/* group slot of the child's output index */
	int *nslot;			/* distinct slots among an op's children */
	int64_t *ch_bytes;		/* S(u)[idx(u, w)] */
	int *ch_tensor;			/* tensor (u, idx(u, w)), or -1 */
	int *op_rank, *rank_op;		/* op names by strcmp */
	int n_src, *src;		/* ops without parents, by id */
	int *dev_rank, *rank_dev;	/* device names by strcmp */

	/* Per eval. */
	int *dev;
	double *start, *end;
	int *pending;
	int *pred;			/* op that released this one, or -1 */
	int *prev_on_dev;		/* op that ran before on its device, or -1 */
	double *ready;
	uint64_t *rkey;			/* Placeto: latest delivery key so far */
	int *ref;			/* memory: holders of the op's outputs */
	double *maxend;
	unsigned slot_gen;		/* Placeto: generation of pto_slot */
	int *xfer_of;			/* native: per t_cons entry; Placeto: copy owner per ch entry */
	int *cref;			/* received copies: holders */
	int64_t *cbytes;
	int *cdev;
	/* transfers (at most one per t_cons / ch entry) */
	int n_x;
	int *x_a, *x_b;			/* native: tensor, dst; Placeto: op, slot */
	int *x_src;
	/* heaps */
	struct pl_hent *qmem;		/* all device / channel waiting lists */
	int *qitem;			/* the same as plain FIFOs (Placeto model) */
	int *q_off, *q_n;		/* per queue: offset into qmem and size */
	int *q_head;			/* per queue used as a FIFO in qitem: its head */
	int n_queues;
	int *q_busy;
	struct pl_hent *ev;		/* event queue */
	int n_ev;
	int ev_hole;			/* Placeto: the top is the event being handled */
	int *cnt;			/* scratch per queue */
	double *m_s;			/* Placeto memory: starts in device order */
	int64_t *m_diff;		/* and frees by the allocation they precede */
	/* native memory in the Placeto simulator: a log of allocations,
	 * and each device's entries in order in a region of e_ord */
	int n_e;
	int *e_ord;
	double *e_t, *e_f1, *e_f2;	/* allocated at, freed at (two parts) */
	int64_t *e_b, *e_b1, *e_b2;
	double *x_end;			/* arrival of each transfer */
	/* Placeto model (sim-placeto.c): per output slot of the op being
	 * run, its transfer's arrival, delivery key and receiving devices;
	 * the handler-order place of each transfer and log entry */
	struct pl_pto_slot *pto_slot;	/* per ch entry */
	uint64_t *x_okey, *e_key;
	struct pl_pto_op *pto_op;	/* per op, per eval */
	struct pl_pto_child *pto_ch;	/* ch[] with what the loop reads */

	/* memory engine */
	int64_t live[PL_MAX_DEVICES];

	/* recording (pl_sim_trace only) */
	struct pl_trace *tr;
	int cap_x;
	int *cap_mem;
};

/* Model runners (sim-native.c, sim-placeto.c).  0 or -1 (incomplete). */
int pl_sim_run_native(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r);
int pl_sim_run_placeto(struct pl_sim_ws *ws, const struct pl_placement *pl,
    enum pl_mem_model mem, struct pl_sim_result *r);

/* Memory engine (sim-common.c). */
void pl_sim_mem_begin(struct pl_sim_ws *ws, struct pl_sim_result *r,
    enum pl_mem_model mem);
/*
 * Placeto's peak-memory model, after a run: device d executed the ops
 * qitem[q_off[d] .. q_off[d] + count[d]) in that order.
 */
void pl_sim_mem_placeto(struct pl_sim_ws *ws, struct pl_sim_result *r,
    const int *count);

/* Recording the live bytes of d at t, from ws->live[d] (trace only). */
void pl_sim_rec_mem(struct pl_sim_ws *ws, int d, double t);

/* Allocate bytes on d at time t (the native simulator, as it goes). */
static inline void
pl_sim_mem_alloc(struct pl_sim_ws *ws, struct pl_sim_result *r, double t,
    int d, int64_t bytes)
{
	if (bytes <= 0)
		return;
	ws->live[d] += bytes;
	if (ws->live[d] > r->peak_bytes[d])
		r->peak_bytes[d] = ws->live[d];
	if (ws->tr != NULL)
		pl_sim_rec_mem(ws, d, t);
}

/* Free bytes on d now, at time t (the native simulator frees as it goes). */
static inline void
pl_sim_mem_release(struct pl_sim_ws *ws, double t, int d, int64_t bytes)
{
	if (bytes <= 0)
		return;
	ws->live[d] -= bytes;
	if (ws->tr != NULL)
		pl_sim_rec_mem(ws, d, t);
}

/* Recording a transfer (trace only). */
void pl_sim_rec_xfer(struct pl_sim_ws *ws, const struct pl_trace_xfer *x);

/* Fill the per-device totals of r from the run (busy time). */
void pl_sim_finish(struct pl_sim_ws *ws, struct pl_sim_result *r);

#endif
