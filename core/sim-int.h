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

/* Native model: all the loop reads and writes of an op, one cache line. */
struct pl_nat_op {
	/* per eval */
	int dev;
	int pending;			/* input tensors not here yet */
	int topo;			/* topological index (static) */
	int pad;			/* (unused: the record stays one line) */
	double cost;			/* run time on its device */
	double start;
	/* static */
	int64_t ob, tb;			/* output, temporary bytes */
	int t_lo, t_hi;			/* its output tensors */
	int in_lo, in_hi;		/* its distinct inputs: entries of nat_in */
};
_Static_assert(sizeof(struct pl_nat_op) == 64, "one cache line per op");

/* Native model: a tensor's distinct consumers nat_c[c_lo .. c_hi). */
struct pl_nat_tensor {
	int c_lo, c_hi;
	int64_t bytes;
};

/* Native model: a consumer entry: the op, and its entry in hold[]. */
struct pl_nat_cons {
	int w, in;
};

/* Native model: a transfer of one tensor to one device, per eval (op and
 * tensor in the model's own numbering). */
struct pl_nat_xfer {
	int tensor, u;			/* the tensor and its producer */
	uint16_t q, dst;		/* its channel (a queue), its device */
	int cref;			/* its consumers (its end walks them) */
	int next;			/* next in its channel's FIFO, or -1 */
	int c_first;			/* its first consumer entry (see nat_clink) */
	int64_t bytes;
	double dur;			/* its time on the link */
};
_Static_assert(PL_MAX_DEVICES * (PL_MAX_DEVICES + 1) <= UINT16_MAX, "queues fit q");

/* Native model, memory: a holder of bytes on dev (an op's outputs, or a
 * received copy), freed when its count of holders not done reaches 0. */
struct pl_nat_hold {
	int64_t bytes;
	int ref, dev;
};

/* Placeto model: an op's record, one cache line: what a delivery reads
 * and writes of its child, and what running it reads. */
struct pl_pto_op {
	/* per eval */
	double ready;			/* latest delivery so far */
	uint64_t rkey;			/* its place in the reference's order */
	double cost;			/* run time on its device */
	double start;
	int pending;			/* parents not delivered yet */
	int pred;			/* the parent of that delivery */
	/* static */
	int npar;			/* distinct parents */
	int ch_lo, ch_hi;		/* its children: pto_ch[ch_lo .. ch_hi) */
	int rank;			/* its name rank */
	int pad[2];
};
_Static_assert(sizeof(struct pl_pto_op) == 64, "one cache line per op");

/* Placeto model: a child entry (see ch[] below). */
struct pl_pto_child {
	int w;				/* the child */
	int slot;			/* its output slot among the parent's */
	uint64_t rank;			/* the child's name rank */
	int64_t bytes;			/* S(u)[idx(u, w)] */
	double delay;			/* bytes / pto_speed, divided once */
};

/* Placeto model: the transfer of one output slot of the op being run. */
struct pl_pto_slot {
	double arrive;
	uint64_t key;			/* delivery key, but for the child's rank */
	uint64_t seen;			/* receiving devices so far */
	uint64_t gen;			/* valid when slot_gen */
};

struct pl_sim_ws {
	const struct pl_problem *p;
	const struct pl_graph *g;
	int n, n_dev, n_tensors;
	size_t bytes;
	char *arena;			/* large workspaces: the arrays, on */
	size_t arena_len, arena_used;	/* large pages (see ws_alloc()) */

	/* Per-op fields the loops read, packed (copies of the graph's, so
	 * that a run touches a few dense arrays only). */
	int64_t *ob, *tb, *pb;		/* out, temp and param bytes */

	/* Graph structure (native model): see struct pl_nat_op.  Its ops
	 * and tensors are numbered in its own order (sim-common.c,
	 * native_order()): nat_perm[i] is the op id at position i, nat_iperm
	 * the inverse, nat_tperm[t] the tensor id of tensor t. */
	int *nat_perm, *nat_iperm, *nat_tperm;
	double *nat_tt;			/* time_us, rows in that order */
	struct pl_nat_op *nat_op;	/* per op, 64-byte aligned in nat_op_mem */
	void *nat_op_mem;
	struct pl_nat_tensor *nat_t;	/* per tensor */
	struct pl_nat_cons *nat_c;	/* per consumer entry */
	uint8_t *nat_dev8;		/* per op by position, per eval: its device */
	int *nat_clink;			/* per consumer entry, per eval: the next
					 * entry served by the same transfer */
	int *nat_src, n_nat_src;	/* ops without inputs, topological order */
	enum { PL_STARTS_ARRAYS, PL_STARTS_NAT, PL_STARTS_PTO }
	    starts_in;			/* where the last run left its starts */

	/* Graph structure (Placeto model). */
	int *par_off, *par;		/* distinct parents per op */
	int *par_ce;			/* per par entry: the matching ch entry */
	int *ch_off, *ch;		/* distinct children per op, by id */
	int *ch_slot;			/* group slot of the child's output index */
	int *nslot;			/* distinct slots among an op's children */
	int64_t *ch_bytes;		/* S(u)[idx(u, w)] */
	int *ch_tensor;			/* tensor (u, idx(u, w)), or -1 */
	int *op_rank;			/* op names by strcmp */
	int n_src, *src;		/* ops without parents, by id */
	int *dev_rank, *rank_dev;	/* device names by strcmp */

	/* Per eval. */
	double *start, *end;
	int *pred;			/* op that released this one, or -1 */
	int *prev_on_dev;		/* op that ran before on its device, or -1 */
	double *ready;
	int *ref;			/* Placeto: the op's memory log entry */
	double *maxend;			/* per op: when its outputs are freed
					 * (the memory models, after a run) */
	uint64_t slot_gen;		/* Placeto: ops run (pto_slot's stamp) */
	int *xfer_of;			/* Placeto: copy owner per ch entry */
	/* transfers (at most one per t_cons / ch entry) */
	int n_x;
	int *x_a, *x_b;			/* Placeto: op, slot */
	int *x_src;			/* Placeto: first receiver entry */
	/* native model (sim-native.c) */
	struct pl_nat_xfer *nat_x;	/* per transfer, in creation order */
	int *nat_in;			/* per input entry, per eval: its holder
					 * in nat_hold (producer, or n + copy) */
	struct pl_nat_hold *nat_hold;	/* per op, then per transfer (n + x),
					 * per eval */
	double run_t[PL_MAX_DEVICES];	/* FIFO device queues: the current */
	int run_lo[PL_MAX_DEVICES];	/* instant and where its ops start */
	/* heaps */
	struct pl_hent *qmem;		/* all device / channel waiting lists */
	int *qitem;			/* the same as plain FIFOs of ops */
	int *q_off, *q_n;		/* per queue: offset into qmem and size */
	int *q_head;			/* per queue used as a FIFO in qitem: its head */
	int *q_busy;
	struct pl_hent *ev;		/* event queue */
	int *cnt;			/* scratch per queue (native: dirty list) */
	double *m_s;			/* Placeto memory: starts in device order */
	int *m_tab;			/* Placeto memory: starts by time bucket */
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
	double pto_speed;		/* the transfer speed of pto_ch's delays */
	struct pl_pto_slot *pto_slot;	/* per slot of one op */
	uint64_t *x_okey, *e_key;
	struct pl_pto_op *pto_op;	/* per op, 64-byte aligned in pto_op_mem */
	uint8_t *pto_dr8;		/* per op, per eval: its device's name rank */
	void *pto_op_mem;
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

/* The Placeto model's start and end times into ws->start, ws->end. */
void pl_sim_pto_gather(struct pl_sim_ws *ws);

/* Memory engine (sim-common.c). */
void pl_sim_mem_begin(struct pl_sim_ws *ws, struct pl_sim_result *r,
    enum pl_mem_model mem, const int *dev);
/*
 * Placeto's peak-memory model, after a run of placement dev (by op id)
 * whose starts are in ws->start (by op id): device d executed the ops
 * qitem[q_off[d] .. q_off[d] + count[d]) in that order.
 */
void pl_sim_mem_placeto(struct pl_sim_ws *ws, struct pl_sim_result *r,
    const int *dev, const int *count);

/*
 * Places in a sorted list of times s[0 .. m) without a search: buckets of
 * time hold, in tab[b], the number of times whose bucket is below b, all of
 * them below any time in bucket b since the bucket of a time never falls
 * as the time grows; the few times of that bucket are then stepped over.
 * pl_sim_buckets() sets s[m] to INFINITY (s has room for it), fills
 * tab[0 .. PL_SIM_BUCKETS * m + 3) and sets *k (buckets per unit of time)
 * and *B (the last bucket).
 */
#define PL_SIM_BUCKETS 2
void pl_sim_buckets(double *s, int m, int *tab, double *k, int *B);

/* The bucket of time x. */
static inline int
pl_sim_bucket(double x, double k, int B)
{
	double y = x * k;
	return y <= 0 ? 0 : y >= B ? B : (int)y;
}

/* The number of times in s that are <= f. */
static inline int
pl_sim_count_le(const double *s, const int *tab, double k, int B, double f)
{
	int j = tab[pl_sim_bucket(f, k, B)];
	j += s[j] <= f;
	while (s[j] <= f)
		j++;
	return j;
}

/* The number of times in s that are < f, at least lo. */
static inline int
pl_sim_count_lt(const double *s, const int *tab, double k, int B, double f, int lo)
{
	int j = tab[pl_sim_bucket(f, k, B)];
	j = j > lo ? j : lo;
	j += s[j] < f;
	while (s[j] < f)
		j++;
	return j;
}

/* Recording the live bytes of d at t, from ws->live[d] (trace only). */
void pl_sim_rec_mem(struct pl_sim_ws *ws, int d, double t);

/* Recording a transfer (trace only). */
void pl_sim_rec_xfer(struct pl_sim_ws *ws, const struct pl_trace_xfer *x);

/* Fill the per-device totals of r from the run (busy time). */
void pl_sim_finish(struct pl_sim_ws *ws, struct pl_sim_result *r);

#endif
