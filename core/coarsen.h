/*
 * coarsen — collapse a placed graph by scope depth so that big graphs stay
 * readable in pictures.
 *
 * An op's path is its scope's components followed by its name (the name's
 * own scope prefix is not repeated when the name already starts with the
 * scope).  At level L, ops on the same device whose paths share their first
 * L components and have more than L components become one node; an op whose
 * path has at most L components stays a node of its own.  Level 0 gives one
 * node per device; PL_COARSE_FULL keeps every op.  Edges between two nodes
 * are merged into one, with their bytes summed; edges inside a node are
 * counted as internal.
 *
 * With a node budget instead of a level (pl_coarsen_auto), levels differ
 * between scopes.  Starting from level 1, each scope (ops of one device
 * under one prefix) is offered one level deeper in a fixed order: all
 * scopes of one depth before any deeper one; within a depth those that
 * split into at most PL_COARSE_FANOUT parts first (structure before
 * repetitions: the 8 layers of an encoder before 50 unrolled time steps
 * of attention), then the most time first.  A scope is split when its
 * parent was and its parts fit in what is left of the budget.  So a budget
 * is always at least as fine as the finest single level within it
 * (pl_coarse_pick_level), and a larger budget never gives fewer nodes.
 *
 * Invariant: every op belongs to exactly one node, all of a node's ops are
 * on one device, and the totals are conserved: the nodes' times sum to the
 * ops' times on their devices, their op counts to n_ops, and the merged
 * edges' bytes plus the internal bytes to the sum of every edge's tensor
 * bytes.  Node ids follow the topological position of each node's first
 * op, so a coarse graph is deterministic.
 *
 * Bytes moved are another count: a tensor read by k ops of another device
 * crosses once, not k times.  pl_coarse_set_moved() puts each transfer of
 * a simulated step (one per tensor and destination device) on one merged
 * edge, the one to its first reader there (in topological order), so the
 * edges' moved bytes sum to the step's bytes moved, and per pair of
 * devices to what the trace's transfers carry between them.
 *
 * Ownership: pl_coarse_free() frees the struct and everything in it.
 */
#ifndef PL_COARSEN_H
#define PL_COARSEN_H

#include <stdint.h>

#include "placement.h"
#include "problem.h"
#include "sim.h"

#define PL_COARSE_FULL (-1)
#define PL_COARSE_AUTO (-2)	/* levels chosen per scope by a budget */
#define PL_COARSE_FANOUT 16

struct pl_coarse_node {
	char *label;		/* scope prefix when collapsed, else the op name */
	int dev;
	int n_ops;
	int op;			/* the op when n_ops == 1, else its first op */
	int collapsed;		/* 1: stands for a scope prefix */
	int depth;		/* components in the prefix; -1 for an op */
	double time_us;		/* sum of its ops' times on dev */
	int n_critical;		/* its ops on the critical path */
};

struct pl_coarse_edge {
	int src, dst;
	int64_t bytes;		/* sum over the merged edges */
	int64_t moved;		/* transfers it stands for (pl_coarse_set_moved) */
	int n_edges;
	int critical;		/* contains a step of the critical path */
};

struct pl_coarse {
	int level;		/* PL_COARSE_FULL, PL_COARSE_AUTO or >= 0 */
	int max_depth;		/* deepest prefix of a collapsed node (0 if none) */
	int n_nodes, n_edges;
	struct pl_coarse_node *nodes;
	struct pl_coarse_edge *edges;	/* sorted by (src, dst) */
	int *node_of;		/* n_ops: op -> node */
	int64_t internal_bytes;	/* bytes of edges inside one node */
	int n_internal;
	int64_t moved_bytes;	/* sum of the edges' moved */
};

/*
 * Coarsen placement pl of problem p at level (PL_COARSE_FULL or >= 0).
 * critical (may be NULL) holds the critical path's op ids in order; a
 * merged edge is critical when it contains an edge between two consecutive
 * ops of it.  The placement must be valid.
 */
struct pl_coarse *pl_coarsen(const struct pl_problem *p,
    const struct pl_placement *pl, int level, const int *critical,
    int n_critical);
/* Coarsen within max_nodes nodes (>= 1): every op when the graph fits,
 * else per-scope levels as above.  When even level 1 is too many, the
 * nodes of level 1 with the most time are taken out of their devices'
 * nodes of level 0 while the budget allows (the rest of a device is one
 * node labelled "(other ops)"; a device's only node of level 1 is taken
 * out for nothing); level 0 when none can be taken out. */
struct pl_coarse *pl_coarsen_auto(const struct pl_problem *p,
    const struct pl_placement *pl, int max_nodes, const int *critical,
    int n_critical);
void pl_coarse_free(struct pl_coarse *c);

/* Index of the merged edge src -> dst, or -1. */
int pl_coarse_find_edge(const struct pl_coarse *c, int src, int dst);

/*
 * Set every edge's moved bytes from the transfers of trace t (as above; a
 * Placeto broadcast counts on the edge to its first reader off its
 * device), or without a trace from the transfers the native model makes:
 * one per tensor and device other than its producer's that reads it.
 * pl must be the placement c was made from (and t simulated).
 */
void pl_coarse_set_moved(struct pl_coarse *c, const struct pl_graph *g,
    const struct pl_placement *pl, const struct pl_trace *t);

/* Number of nodes pl_coarsen() would make at level, without building it. */
int pl_coarse_count(const struct pl_graph *g, const struct pl_placement *pl,
    int level);
/* The largest number of path components of any op. */
int pl_coarse_max_depth(const struct pl_graph *g);
/*
 * The finest level whose node count is at most max_nodes: PL_COARSE_FULL
 * when the whole graph fits, else the largest level L that fits, else 0.
 */
int pl_coarse_pick_level(const struct pl_graph *g,
    const struct pl_placement *pl, int max_nodes);

#endif
