/*
 * problem — graph + cluster + precomputed cost table and constraint masks.
 * Invariant: see problem.h.
 */
#include "problem.h"

#include <math.h>
#include <stdlib.h>

#include "cost.h"
#include "placement.h"
#include "xmalloc.h"

/* Build the tables; fail when some op or group has no allowed device. */
struct pl_problem *
pl_problem_new(const struct pl_graph *g, const struct pl_cluster *c, char **cause)
{
	struct pl_problem *p = pl_xcalloc(1, sizeof *p);
	p->g = g;
	p->c = c;
	p->n_ops = g->n_ops;
	p->n_dev = c->n_dev;
	p->time_us = pl_xmalloc(sizeof *p->time_us * (size_t)g->n_ops * c->n_dev);
	p->allowed = pl_xmalloc(sizeof *p->allowed * g->n_ops);
	p->group_allowed = pl_xmalloc(sizeof *p->group_allowed * g->n_groups);
	for (int v = 0; v < g->n_ops; v++) {
		uint64_t mask = 0;
		for (int d = 0; d < c->n_dev; d++) {
			p->time_us[(size_t)v * c->n_dev + d] = pl_cost_op_us(g, v, c, d);
			if (pl_constraint_allows(&g->ops[v].cons, c, d))
				mask |= (uint64_t)1 << d;
		}
		if (mask == 0) {
			*cause = pl_graph_op_message(g, v, "op '%s': constraint '%s' matches no device of cluster '%s'",
			    g->ops[v].name, pl_constraint_name(&g->ops[v].cons), c->name);
			pl_problem_free(p);
			return NULL;
		}
		p->allowed[v] = mask;
	}
	for (int k = 0; k < g->n_groups; k++) {
		const struct pl_group *gr = &g->groups[k];
		uint64_t mask = ~(uint64_t)0;
		int last = g->group_ops[gr->first];
		for (int i = 0; i < gr->count && mask != 0; i++) {
			last = g->group_ops[gr->first + i];
			mask &= p->allowed[last];
		}
		if (mask == 0) {
			*cause = pl_graph_op_message(g, last, "colocation group '%s': its ops' constraints allow no common device of cluster '%s' (none is left with op '%s')",
			    gr->name ? gr->name : "?", c->name, g->ops[last].name);
			pl_problem_free(p);
			return NULL;
		}
		p->group_allowed[k] = mask;
	}
	return p;
}

/* Free the tables (not the graph or cluster). */
void
pl_problem_free(struct pl_problem *p)
{
	if (p == NULL)
		return;
	free(p->time_us);
	free(p->allowed);
	free(p->group_allowed);
	free(p);
}

/* Transfer time between devices. */
double
pl_problem_xfer_us(const struct pl_problem *p, int a, int b, int64_t bytes)
{
	return pl_cost_xfer_us(p->c, a, b, bytes);
}

/* Time of colocation group grp's ops together on device d. */
double
pl_problem_group_us(const struct pl_problem *p, int grp, int d)
{
	const struct pl_group *gr = &p->g->groups[grp];
	double s = 0;
	for (int i = 0; i < gr->count; i++)
		s += pl_problem_op_us(p, p->g->group_ops[gr->first + i], d);
	return s;
}

/* Fastest allowed time for op. */
double
pl_problem_op_min_us(const struct pl_problem *p, int op)
{
	return pl_problem_op_min_us_on(p, op, p->allowed[op]);
}

/* Fastest time for op on a device of mask. */
double
pl_problem_op_min_us_on(const struct pl_problem *p, int op, uint64_t mask)
{
	double best = INFINITY;
	for (int d = 0; d < p->n_dev; d++)
		if ((mask >> d) & 1) {
			double t = pl_problem_op_us(p, op, d);
			if (t < best)
				best = t;
		}
	return best;
}
