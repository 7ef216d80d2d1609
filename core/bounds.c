/*
 * bounds — lower bounds on the native model's makespan of any placement.
 *
 * Invariant: every value returned is <= the makespan that pl_sim_eval()
 * reports (native model) for every valid placement and every priority
 * list.  Both bounds relax the schedule:
 *  - critical path: every op on its fastest allowed device (allowed by its
 *    own constraint and by every other op of its colocation group, which
 *    shares its device), transfers free, no device contention: the
 *    longest path is then a lower bound, since an op cannot start before
 *    all its producers have ended;
 *  - work: for any weights lambda_d >= 0 summing to 1, the makespan M is at
 *    least max_d load_d >= sum_d lambda_d load_d >= sum_G min_d lambda_d
 *    t(G, d), the weighted total work, where a colocation group G (an op
 *    alone is a group of one) runs all its ops on one allowed device d.  This is the dual of the fractional
 *    assignment; weights proportional to the devices' throughput give
 *    "total work over combined throughput" and a few multiplicative
 *    refinement rounds tighten it (any weights are valid).
 * The critical path needs no margin: rounded addition is monotone, so the
 * simulator's end times, built by the same additions from larger or equal
 * terms, are never below it.  The work bound is a sum in another order
 * with products, so it is scaled by (1 - 1e-12) to stay below any schedule
 * whatever the rounding.
 */
#include <math.h>
#include <stdlib.h>

#include "sim.h"
#include "xmalloc.h"

#define SAFETY (1 - 1e-12)
#define ROUNDS 30

/* The devices op v may run on in a valid placement: those its colocation
 * group allows (which its own constraint allows too). */
static uint64_t
op_mask(const struct pl_problem *p, int v)
{
	return p->group_allowed[p->g->ops[v].group];
}

/* Longest path with each op at its fastest allowed time. */
static double
critical_path(const struct pl_problem *p)
{
	const struct pl_graph *g = p->g;
	double *f = pl_xmalloc(sizeof *f * (g->n_ops ? g->n_ops : 1));
	double best = 0;
	for (int i = 0; i < g->n_ops; i++) {
		int v = g->topo[i];
		double s = 0;
		for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++) {
			int u = g->edges[g->in_edge[j]].src;
			if (f[u] > s)
				s = f[u];
		}
		f[v] = s + pl_problem_op_min_us_on(p, v, op_mask(p, v));
		if (f[v] > best)
			best = f[v];
	}
	free(f);
	return best;
}

/* sum_G min_d lam[d] t(G, d) over colocation groups G; fills load[d] with
 * the argmin's loads. */
static double
weighted_work(const struct pl_problem *p, const double *lam, double *load)
{
	int D = p->n_dev;
	double sum = 0;
	for (int d = 0; d < D; d++)
		load[d] = 0;
	for (int k = 0; k < p->g->n_groups; k++) {
		double best = INFINITY, bt = 0;
		int bd = -1;
		for (int d = 0; d < D; d++) {
			if (!((p->group_allowed[k] >> d) & 1))
				continue;
			double t = pl_problem_group_us(p, k, d), x = lam[d] * t;
			if (x < best) {
				best = x;
				bd = d;
				bt = t;
			}
		}
		if (bd >= 0) {
			sum += best;
			load[bd] += bt;
		}
	}
	return sum;
}

/* The best weighted-work bound found from throughput weights. */
static double
work_bound(const struct pl_problem *p)
{
	int D = p->n_dev;
	double lam[PL_MAX_DEVICES] = { 0 }, load[PL_MAX_DEVICES] = { 0 };
	double tot[PL_MAX_DEVICES] = { 0 };
	/* Throughput of device d: 1 / (its time for the ops it may run, per op). */
	double sum = 0;
	for (int d = 0; d < D; d++) {
		double w = 0;
		int k = 0;
		for (int v = 0; v < p->n_ops; v++)
			if ((op_mask(p, v) >> d) & 1) {
				w += pl_problem_op_us(p, v, d);
				k++;
			}
		tot[d] = k > 0 && w > 0 ? (double)k / w : 0;
		sum += tot[d];
	}
	for (int d = 0; d < D; d++)
		lam[d] = sum > 0 ? tot[d] / sum : 1.0 / D;
	double best = weighted_work(p, lam, load);
	/* Also the uniform weights (plain total work / devices). */
	double uni[PL_MAX_DEVICES] = { 0 };
	for (int d = 0; d < D; d++)
		uni[d] = 1.0 / D;
	double b = weighted_work(p, uni, tot);
	if (b > best)
		best = b;
	/* Refine: weigh up the devices the relaxation overloads. */
	double eta = 0.5;
	for (int it = 0; it < ROUNDS; it++) {
		double mean = 0, z = 0;
		for (int d = 0; d < D; d++)
			mean += load[d];
		mean /= D;
		if (mean <= 0)
			break;
		for (int d = 0; d < D; d++) {
			lam[d] *= exp(eta * (load[d] / mean - 1));
			z += lam[d];
		}
		for (int d = 0; d < D; d++)
			lam[d] /= z;
		b = weighted_work(p, lam, load);
		if (b > best)
			best = b;
		eta *= 0.9;
	}
	return best;
}

/* Compute the bounds of problem p. */
void
pl_bounds_compute(const struct pl_problem *p, struct pl_bounds *b)
{
	b->critical_path_us = critical_path(p);
	b->work_us = work_bound(p) * SAFETY;
	b->best_us = b->critical_path_us > b->work_us ? b->critical_path_us : b->work_us;
}
