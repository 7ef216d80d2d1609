/*
 * problem — a graph on a cluster, with everything precomputed that placers
 * and simulators need on every evaluation.
 *
 * Invariant: time_us[op * n_dev + d] is the op's run time on device d by the
 * cost model (core/cost), allowed[op] is the bit mask of devices the op may
 * run on (never 0: pl_problem_new() fails instead), and group_allowed[g] is
 * the intersection over the group's ops.  The problem borrows the graph and
 * the cluster: they must outlive it and are not freed with it.
 */
#ifndef PL_PROBLEM_H
#define PL_PROBLEM_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"

struct pl_problem {
	const struct pl_graph *g;
	const struct pl_cluster *c;
	int n_ops, n_dev;
	double *time_us;	/* n_ops * n_dev */
	uint64_t *allowed;	/* n_ops */
	uint64_t *group_allowed;	/* n_groups */
	/* transfer time of `bytes` from device a to b: see pl_problem_xfer_us() */
};

/*
 * Build the problem: cost table and constraint masks.  Fails (NULL, *cause)
 * when an op's constraint or a colocation group's combined constraints
 * match no device of the cluster.
 */
struct pl_problem *pl_problem_new(const struct pl_graph *g,
    const struct pl_cluster *c, char **cause);
void pl_problem_free(struct pl_problem *p);

/* Op time (us) on a device, from the table. */
static inline double
pl_problem_op_us(const struct pl_problem *p, int op, int d)
{
	return p->time_us[(long)op * p->n_dev + d];
}

/* Transfer time (us) of bytes from device a to device b (0 if a == b). */
double pl_problem_xfer_us(const struct pl_problem *p, int a, int b, int64_t bytes);

/* Run time of colocation group grp on device d (the sum of its ops'). */
double pl_problem_group_us(const struct pl_problem *p, int grp, int d);
/* The fastest allowed device's time for an op. */
double pl_problem_op_min_us(const struct pl_problem *p, int op);
/* The fastest time for an op on a device of mask (INFINITY: none). */
double pl_problem_op_min_us_on(const struct pl_problem *p, int op, uint64_t mask);

#endif
