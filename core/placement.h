/*
 * placement — a device for every op, and optionally a scheduling priority.
 *
 * Invariant: dev[i] is in [0, n_dev) for every op once a placement has been
 * checked with pl_placement_check(); prio is NULL (no priorities: the
 * simulator schedules first-ready first) or holds one finite value per op,
 * higher running first.  tprio optionally holds one priority per
 * (tensor, destination device): tprio[t * n_dev + d], with n_tensors set
 * (0 when tprio is NULL).
 *
 * Ownership: pl_placement_free() frees the arrays and the struct.
 */
#ifndef PL_PLACEMENT_H
#define PL_PLACEMENT_H

#include "cluster.h"
#include "graph.h"

struct pl_placement {
	int n_ops;
	int n_dev;
	int *dev;
	double *prio;		/* may be NULL */
	double *tprio;		/* may be NULL */
	int n_tensors;		/* tensors covered by tprio */
};

struct pl_placement *pl_placement_new(int n_ops, int n_dev);
struct pl_placement *pl_placement_clone(const struct pl_placement *p);
/* How many devices run at least one op. */
int pl_placement_devices_used(const struct pl_placement *p);
/* Copy src into dst (same sizes), including priorities (allocating them in
 * dst when needed, dropping them when src has none). */
void pl_placement_copy(struct pl_placement *dst, const struct pl_placement *src);
void pl_placement_free(struct pl_placement *p);
/* Whether a and b (same sizes) place and order alike: devices, op and
 * tensor priorities. */
int pl_placement_equal(const struct pl_placement *a, const struct pl_placement *b);
/* Give p an op priority array (zeroed) if it has none. */
void pl_placement_ensure_prio(struct pl_placement *p);
/* Give p a tensor priority array (zeroed) for n_tensors if it has none. */
void pl_placement_ensure_tprio(struct pl_placement *p, int n_tensors);

/*
 * Check a placement against a graph and cluster: every op on a device, the
 * op's constraint satisfied, all ops of a colocation group together.
 * Returns 0 or -1 with *cause naming the op.
 */
int pl_placement_check(const struct pl_placement *p, const struct pl_graph *g,
    const struct pl_cluster *c, char **cause);
/* The same, and *op is the op the cause names (-1: none), for a loader to
 * point at where that op is placed. */
int pl_placement_check_op(const struct pl_placement *p, const struct pl_graph *g,
    const struct pl_cluster *c, char **cause, int *op);

/* Whether device d satisfies op's constraint. */
int pl_constraint_allows(const struct pl_constraint *cons,
    const struct pl_cluster *c, int d);
/* A constraint as messages name it: its device name or its kind. */
const char *pl_constraint_name(const struct pl_constraint *cons);

#endif
