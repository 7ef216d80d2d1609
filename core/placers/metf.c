/*
 * metf — Baechi's memory-constrained Earliest Task First placer, m-ETF
 * (Jeon et al., SoCC 2020, after Hwang et al.'s ETF, SIAM J. Comput. 1989).
 * List scheduling: among the ready ops and the devices with memory room,
 * repeatedly pick the (op, device) pair that can start earliest (ties: the
 * op earlier in topological order, then the lower device index), counting
 * transfer times from the producers' devices.  The first op of a
 * colocation group reserves the whole group's memory (Baechi's model:
 * param + out + temp bytes per op, held for the step) and fixes its device.
 * By default only the GPUs take part (Baechi places on GPUs); groups
 * allowed on no GPU keep to their allowed devices.
 * The schedule's start order becomes the placement's priorities.
 * Invariant: a group is only put on a device where it fits, unless no
 * allowed device has room for it; the status then says OOM.
 */
#include <math.h>
#include <stdlib.h>

#include "baselines.h"
#include "xmalloc.h"

/* A binary min-heap of ops keyed by (key, tie). */
struct heap_item {
	double key;
	int tie;
	int op;
};
struct heap {
	struct heap_item *a;
	int n, cap;
};

/* Whether x orders before y. */
static int
item_less(const struct heap_item *x, const struct heap_item *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	return x->tie < y->tie;
}

/* Push an item. */
static void
heap_push(struct heap *h, struct heap_item it)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->a = pl_xreallocarray(h->a, h->cap, sizeof *h->a);
	}
	int i = h->n++;
	while (i > 0 && item_less(&it, &h->a[(i - 1) / 2])) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = it;
}

/* Remove the top item. */
static void
heap_pop(struct heap *h)
{
	struct heap_item last = h->a[--h->n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && item_less(&h->a[c + 1], &h->a[c]))
			c++;
		if (!item_less(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n > 0)
		h->a[i] = last;
}

struct metf {
	const struct pl_problem *p;
	int nd;
	double dev_free[PL_MAX_DEVICES];
	int64_t used[PL_MAX_DEVICES];
	int64_t budget[PL_MAX_DEVICES];	/* bytes this pass may fill */
	int *group_dev;
	int64_t *gmem;
	char *done;
	/* per device: ready ops by data-ready time (waiting), and ops whose
	 * data are there by the time the device is free, by topo position */
	struct heap waiting[PL_MAX_DEVICES], avail[PL_MAX_DEVICES];
	struct heap all;	/* every ready op by topo position (OOM path) */
};

/* Whether op v can still go to device d (lazy deletion test). */
static int
usable_on(const struct metf *m, int v, int d)
{
	int k = m->p->g->ops[v].group;
	if (m->done[v])
		return 0;
	if (m->group_dev[k] >= 0)
		return m->group_dev[k] == d;
	return m->used[d] + m->gmem[k] <= m->budget[d];
}

/* Device d's best candidate: start time and op (-1 if none). */
static int
device_best(struct metf *m, int d, double *start)
{
	struct heap *w = &m->waiting[d], *a = &m->avail[d];
	while (w->n > 0 && (!usable_on(m, w->a[0].op, d) || w->a[0].key <= m->dev_free[d])) {
		struct heap_item it = w->a[0];
		heap_pop(w);
		if (usable_on(m, it.op, d))
			heap_push(a, (struct heap_item){ (double)it.tie, it.tie, it.op });
	}
	while (a->n > 0 && !usable_on(m, a->a[0].op, d))
		heap_pop(a);
	if (a->n > 0) {
		*start = m->dev_free[d];
		return a->a[0].op;
	}
	if (w->n > 0) {
		*start = w->a[0].key;
		return w->a[0].op;
	}
	return -1;
}

/* One pass of m-ETF. */
static enum pl_step_status
metf_step(struct pl_placer *pl)
{
	const struct pl_problem *p = pl->prob;
	const struct pl_graph *g = p->g;
	int n = g->n_ops, nd = p->n_dev, ng = g->n_groups;
	size_t nn = n ? (size_t)n : 1;
	struct metf m = { .p = p, .nd = nd };
	for (int d = 0; d < nd; d++)
		m.budget[d] = pl_pu_budget_bytes(pl, d);
	int *missing = pl_xmalloc(sizeof *missing * nn);
	double *finish = pl_xmalloc(sizeof *finish * nn);
	m.group_dev = pl_xmalloc(sizeof *m.group_dev * (size_t)(ng ? ng : 1));
	m.gmem = pl_xmalloc(sizeof *m.gmem * (size_t)(ng ? ng : 1));
	m.done = pl_xcalloc(nn, 1);
	struct pl_placement *cand = pl_placement_new(n, nd);
	pl_placement_ensure_prio(cand);
	for (int k = 0; k < ng; k++) {
		m.group_dev[k] = -1;
		m.gmem[k] = pl_pu_group_mem(g, k);
	}
	uint64_t usable;
	pl_pu_usable_mask(p, pl_opt_str(pl->opts, "devices"), &usable);
	int oom = 0;
	for (int v = 0; v < n; v++)
		missing[v] = g->in_off[v + 1] - g->in_off[v];
	/* op v is ready: compute its data-ready time on every device it may use */
#define MAKE_READY(v) do {							\
		int k_ = g->ops[(v)].group;					\
		uint64_t mask_ = m.group_dev[k_] >= 0 ? (uint64_t)1 << m.group_dev[k_] \
		    : pl_pu_restrict(p->group_allowed[k_], usable);		\
		for (int d_ = 0; d_ < nd; d_++) {				\
			if (!((mask_ >> d_) & 1))				\
				continue;					\
			double at_ = 0;						\
			for (int q_ = g->in_off[(v)]; q_ < g->in_off[(v) + 1]; q_++) { \
				const struct pl_edge *ie_ = &g->edges[g->in_edge[q_]]; \
				double r_ = finish[ie_->src] + pl_problem_xfer_us(p, \
				    cand->dev[ie_->src], d_, g->tensors[ie_->tensor].bytes); \
				if (r_ > at_)					\
					at_ = r_;				\
			}							\
			heap_push(&m.waiting[d_], (struct heap_item){ at_, g->topo_pos[(v)], (v) }); \
		}							\
		heap_push(&m.all, (struct heap_item){ (double)g->topo_pos[(v)], g->topo_pos[(v)], (v) }); \
	} while (0)
	for (int v = 0; v < n; v++)
		if (missing[v] == 0)
			MAKE_READY(v);
	for (int step = 0; step < n; step++) {
		double best_t = INFINITY, best_f = INFINITY, best_g = INFINITY;
		int bv = -1, bd = -1;
		for (int d = 0; d < nd; d++) {
			double t;
			int v = device_best(&m, d, &t);
			if (v < 0)
				continue;
			/* earliest start; on a tie the earlier finish (the
			 * faster device), then for an op that fixes its group's
			 * device the device that runs the group fastest, then
			 * the earlier op */
			double f = t + pl_problem_op_us(p, v, d);
			int k = g->ops[v].group;
			double gt = m.group_dev[k] < 0 && g->groups[k].count > 1 ?
			    pl_problem_group_us(p, k, d) : 0;
			if (t < best_t || (t == best_t && (f < best_f || (f == best_f &&
			    (gt < best_g || (gt == best_g && g->topo_pos[v] < g->topo_pos[bv])))))) {
				best_t = t;
				best_f = f;
				best_g = gt;
				bv = v;
				bd = d;
			}
		}
		if (bv < 0) {
			/* Nothing fits: the ready op first in topological order
			 * goes to its group's device, else the allowed device
			 * with the most room. */
			while (m.all.n > 0 && m.done[m.all.a[0].op])
				heap_pop(&m.all);
			bv = m.all.a[0].op;
			int k = g->ops[bv].group;
			bd = m.group_dev[k];
			if (bd < 0) {
				int64_t room = 0;
				uint64_t mask = pl_pu_restrict(p->group_allowed[k], usable);
				for (int d = 0; d < nd; d++) {
					int64_t r = m.budget[d] - m.used[d];
					if (((mask >> d) & 1) && (bd < 0 || r > room)) {
						bd = d;
						room = r;
					}
				}
				oom = 1;
			}
			best_t = m.dev_free[bd];
			for (int q = g->in_off[bv]; q < g->in_off[bv + 1]; q++) {
				const struct pl_edge *ie = &g->edges[g->in_edge[q]];
				double r = finish[ie->src] + pl_problem_xfer_us(p, cand->dev[ie->src], bd,
				    g->tensors[ie->tensor].bytes);
				if (r > best_t)
					best_t = r;
			}
		}
		int k = g->ops[bv].group;
		m.done[bv] = 1;
		if (m.group_dev[k] < 0) {
			m.group_dev[k] = bd;
			m.used[bd] += m.gmem[k];
		}
		cand->dev[bv] = bd;
		cand->prio[bv] = (double)(n - step);
		finish[bv] = best_t + pl_problem_op_us(p, bv, bd);
		m.dev_free[bd] = finish[bv];
		for (int j = g->out_off[bv]; j < g->out_off[bv + 1]; j++) {
			int w = g->edges[g->out_edge[j]].dst;
			if (--missing[w] == 0)
				MAKE_READY(w);
		}
	}
#undef MAKE_READY
	double makespan = 0;
	for (int d = 0; d < nd; d++)
		if (m.dev_free[d] > makespan)
			makespan = m.dev_free[d];
	char label[96];
	snprintf(label, sizeof label, "m-ETF schedule %.1f us%s", makespan,
	    oom ? " (static memory exceeded)" : "");
	enum pl_step_status st = pl_pu_finish_budget(pl, cand, label);
	for (int d = 0; d < nd; d++) {
		free(m.waiting[d].a);
		free(m.avail[d].a);
	}
	free(m.all.a);
	free(missing);
	free(finish);
	free(m.group_dev);
	free(m.gmem);
	free(m.done);
	pl_placement_free(cand);
	return st;
}

const struct pl_placer_class pl_placer_metf = {
	.name = "m-etf",
	.title = "m-ETF",
	.summary = "Baechi's memory-constrained earliest-task-first list scheduling: never above a device's memory",
	.options = pl_pu_budget_options,
	.create = pl_pu_budget_create,
	.step = metf_step,
	.destroy = pl_pu_budget_destroy,
	.quick = 1,
};
