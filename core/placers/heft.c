/*
 * heft — insertion-based Heterogeneous Earliest Finish Time list scheduling
 * (Topcuoglu, Hariri and Wu, IEEE TPDS 2002).
 *
 * Upward rank with mean costs: rank(v) = w(v) + max over successors s of
 * (c(v,s) + rank(s)), where w is the op's time averaged over its allowed
 * devices and c the transfer time of the edge's bytes averaged over the
 * ordered pairs of distinct allowed devices.  Ops are scheduled by rank,
 * highest first (ties: topological order), each on the device giving the
 * earliest finish time, inserted into the earliest idle gap that holds it.
 * An op of length dur ready at r fits an idle gap [a, b) when
 * max(a, r) + dur <= b, so a zero-length op may take a gap's very end.
 * Colocation groups follow the device chosen for their first scheduled op.
 * The schedule's order (start, then finish) becomes the placement's
 * priorities.
 *
 * Invariant: every op starts no earlier than each predecessor's finish plus
 * the transfer time between their devices, and no two ops overlap on a
 * device; a zero-length op holds its instant, so no op placed later runs
 * across it, and the ops of a device are ordered by (start, finish).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "xmalloc.h"

/* An idle interval [s, e) of a device before its last busy end. */
struct gap {
	double s, e;
};

struct dev_sched {
	struct gap *gaps;
	int n, cap;
	double tail;		/* end of the last op */
};

/* Mean transfer time of bytes between distinct devices of the two masks. */
static double
mean_xfer(const struct pl_problem *p, uint64_t ma, uint64_t mb, int64_t bytes)
{
	double s = 0;
	int n = 0;
	for (int a = 0; a < p->n_dev; a++) {
		if (!((ma >> a) & 1))
			continue;
		for (int b = 0; b < p->n_dev; b++)
			if (b != a && ((mb >> b) & 1)) {
				s += pl_problem_xfer_us(p, a, b, bytes);
				n++;
			}
	}
	return n ? s / n : 0;
}

/* Earliest start >= ready of an op of length dur on a device; *gi gets the
 * gap used (-1: the tail). */
static double
earliest_slot(const struct dev_sched *ds, double ready, double dur, int *gi)
{
	/* first gap ending at or after ready (a zero-length op fits at the
	 * very end of a gap) */
	int lo = 0, hi = ds->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (ds->gaps[mid].e < ready)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < ds->n; i++) {
		double t = ds->gaps[i].s > ready ? ds->gaps[i].s : ready;
		if (t + dur <= ds->gaps[i].e) {
			*gi = i;
			return t;
		}
	}
	*gi = -1;
	return ds->tail > ready ? ds->tail : ready;
}

/* Occupy [t, t + dur) on a device (in gap gi, or at the tail).  A
 * zero-length op occupies the instant t: it splits its gap there, or moves
 * the tail to t, so that nothing placed later runs across it. */
static void
occupy(struct dev_sched *ds, int gi, double t, double dur)
{
	if (gi < 0) {
		if (t > ds->tail) {
			if (ds->n == ds->cap) {
				ds->cap = ds->cap ? ds->cap * 2 : 16;
				ds->gaps = pl_xreallocarray(ds->gaps, ds->cap, sizeof *ds->gaps);
			}
			ds->gaps[ds->n++] = (struct gap){ ds->tail, t };
		}
		ds->tail = t + dur;
		return;
	}
	struct gap g = ds->gaps[gi];
	struct gap left = { g.s, t }, right = { t + dur, g.e };
	int keep_l = left.e > left.s, keep_r = right.e > right.s;
	int n_new = keep_l + keep_r;
	if (n_new == 2 && ds->n == ds->cap) {
		ds->cap = ds->cap * 2;
		ds->gaps = pl_xreallocarray(ds->gaps, ds->cap, sizeof *ds->gaps);
	}
	/* replace gap gi by n_new gaps */
	memmove(&ds->gaps[gi + n_new], &ds->gaps[gi + 1], sizeof *ds->gaps * (size_t)(ds->n - gi - 1));
	ds->n += n_new - 1;
	int at = gi;
	if (keep_l)
		ds->gaps[at++] = left;
	if (keep_r)
		ds->gaps[at] = right;
}

/* Keys for sorting op ids. */
struct sort_keys {
	const double *val;
	const double *val2;	/* second key (cmp_start), or NULL */
	const int *tie;
};

/* Rank descending, then topological position. */
static int
cmp_rank(const void *a, const void *b, void *ctx)
{
	const struct sort_keys *k = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	if (k->val[x] != k->val[y])
		return k->val[x] > k->val[y] ? -1 : 1;
	return k->tie[x] - k->tie[y];
}

/* The HEFT schedule. */
struct pl_heft_sched *
pl_heft_schedule(const struct pl_problem *p)
{
	const struct pl_graph *g = p->g;
	int n = g->n_ops, nd = p->n_dev;
	struct pl_heft_sched *s = pl_xcalloc(1, sizeof *s);
	s->n_ops = n;
	s->dev = pl_xmalloc(sizeof *s->dev * (size_t)(n ? n : 1));
	s->start = pl_xmalloc(sizeof *s->start * (size_t)(n ? n : 1));
	s->finish = pl_xmalloc(sizeof *s->finish * (size_t)(n ? n : 1));
	s->rank = pl_xmalloc(sizeof *s->rank * (size_t)(n ? n : 1));
	s->order = pl_xmalloc(sizeof *s->order * (size_t)(n ? n : 1));

	/* Upward ranks in reverse topological order. */
	for (int i = n - 1; i >= 0; i--) {
		int v = g->topo[i];
		double best = 0;
		for (int j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			const struct pl_edge *e = &g->edges[g->out_edge[j]];
			double c = mean_xfer(p, p->allowed[v], p->allowed[e->dst],
			    g->tensors[e->tensor].bytes) + s->rank[e->dst];
			if (c > best)
				best = c;
		}
		s->rank[v] = pl_pu_op_mean_us(p, v) + best;
	}
	for (int v = 0; v < n; v++)
		s->order[v] = v;
	struct sort_keys rk = { s->rank, NULL, g->topo_pos };
	qsort_r(s->order, n, sizeof *s->order, cmp_rank, &rk);

	struct dev_sched *ds = pl_xcalloc(nd, sizeof *ds);
	int *group_dev = pl_xmalloc(sizeof *group_dev * (size_t)(g->n_groups ? g->n_groups : 1));
	for (int k = 0; k < g->n_groups; k++)
		group_dev[k] = -1;
	s->makespan_us = 0;
	for (int i = 0; i < n; i++) {
		int v = s->order[i];
		int gk = g->ops[v].group;
		uint64_t mask = group_dev[gk] >= 0 ? (uint64_t)1 << group_dev[gk] : p->group_allowed[gk];
		double best_f = INFINITY, best_t = 0, best_g = INFINITY;
		int best_d = -1, best_gi = -1;
		/* the op that fixes its group's device: an equal finish goes to
		 * the device that runs the whole group fastest (a zero-cost
		 * first op would otherwise take its group to device 0) */
		int heads = group_dev[gk] < 0 && g->groups[gk].count > 1;
		for (int d = 0; d < nd; d++) {
			if (!((mask >> d) & 1))
				continue;
			double ready = 0;
			for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
				const struct pl_edge *e = &g->edges[g->in_edge[j]];
				double r = s->finish[e->src] +
				    pl_problem_xfer_us(p, s->dev[e->src], d, g->tensors[e->tensor].bytes);
				if (r > ready)
					ready = r;
			}
			double dur = pl_problem_op_us(p, v, d);
			int gi;
			double t = earliest_slot(&ds[d], ready, dur, &gi);
			double gt = heads ? pl_problem_group_us(p, gk, d) : 0;
			if (t + dur < best_f || (heads && t + dur == best_f && gt < best_g)) {
				best_f = t + dur;
				best_t = t;
				best_g = gt;
				best_d = d;
				best_gi = gi;
			}
		}
		occupy(&ds[best_d], best_gi, best_t, best_f - best_t);
		s->dev[v] = best_d;
		s->start[v] = best_t;
		s->finish[v] = best_f;
		group_dev[gk] = best_d;
		if (best_f > s->makespan_us)
			s->makespan_us = best_f;
	}
	for (int d = 0; d < nd; d++)
		free(ds[d].gaps);
	free(ds);
	free(group_dev);
	return s;
}

/* Free a schedule. */
void
pl_heft_sched_free(struct pl_heft_sched *s)
{
	if (s == NULL)
		return;
	free(s->dev);
	free(s->start);
	free(s->finish);
	free(s->rank);
	free(s->order);
	free(s);
}

/* Start time, then finish time (a zero-length op before an op that starts
 * at the same instant), then scheduling position. */
static int
cmp_start(const void *a, const void *b, void *ctx)
{
	const struct sort_keys *k = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	if (k->val[x] != k->val[y])
		return k->val[x] < k->val[y] ? -1 : 1;
	if (k->val2[x] != k->val2[y])
		return k->val2[x] < k->val2[y] ? -1 : 1;
	return k->tie[x] - k->tie[y];
}

/* One pass: schedule, place, prioritise, simulate. */
static enum pl_step_status
heft_step(struct pl_placer *pl)
{
	const struct pl_problem *p = pl->prob;
	int n = p->n_ops;
	struct pl_heft_sched *s = pl_heft_schedule(p);
	struct pl_placement *cand = pl_placement_new(n, p->n_dev);
	memcpy(cand->dev, s->dev, sizeof *cand->dev * (size_t)n);
	pl_placement_ensure_prio(cand);
	int *pos = pl_xmalloc(sizeof *pos * (size_t)(n ? n : 1));
	int *by_start = pl_xmalloc(sizeof *by_start * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++) {
		pos[s->order[i]] = i;
		by_start[i] = i;
	}
	struct sort_keys sk = { s->start, s->finish, pos };
	qsort_r(by_start, n, sizeof *by_start, cmp_start, &sk);
	for (int i = 0; i < n; i++)
		cand->prio[by_start[i]] = (double)(n - i);
	char label[96];
	snprintf(label, sizeof label, "HEFT schedule %.1f us", s->makespan_us);
	enum pl_step_status st = pl_pu_finish(pl, cand, label);
	free(pos);
	free(by_start);
	pl_placement_free(cand);
	pl_heft_sched_free(s);
	return st;
}

static const struct pl_option_def heft_options[] = {
	{ NULL, 0, NULL, NULL },
};

const struct pl_placer_class pl_placer_heft = {
	.name = "heft",
	.title = "HEFT",
	.summary = "insertion-based HEFT list scheduling with mean-cost upward ranks (Topcuoglu et al. 2002)",
	.options = heft_options,
	.step = heft_step,
	.quick = 1,
};
