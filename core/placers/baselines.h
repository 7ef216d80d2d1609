/*
 * baselines — the papers' baseline placers (single device, human expert,
 * Scotch, METIS min-cut, HEFT, Baechi's m-TOPO and m-ETF, random) and the
 * pieces of them that tests check against their sources (HEFT's schedule,
 * the libraries' partitions).  docs/BASELINES.md describes each method.
 *
 * Invariant: every class here respects colocation groups and device
 * constraints and offers only placements that pass pl_placement_check();
 * when it cannot fit in memory its status says OOM.
 */
#ifndef PL_PLACERS_BASELINES_H
#define PL_PLACERS_BASELINES_H

#include <stdint.h>
#include <stdio.h>

#include "placer.h"
#include "util.h"

extern const struct pl_placer_class pl_placer_single_cpu;
extern const struct pl_placer_class pl_placer_single_gpu;
extern const struct pl_placer_class pl_placer_expert;
extern const struct pl_placer_class pl_placer_random;
extern const struct pl_placer_class pl_placer_scotch;
extern const struct pl_placer_class pl_placer_scotch_mem;
extern const struct pl_placer_class pl_placer_mincut;
extern const struct pl_placer_class pl_placer_heft;
extern const struct pl_placer_class pl_placer_mtopo;
extern const struct pl_placer_class pl_placer_metf;

/* ---- HEFT (heft.c) -------------------------------------------------------- */

/* An insertion-based HEFT schedule (Topcuoglu et al., TPDS 2002). */
struct pl_heft_sched {
	int n_ops;
	int *dev;		/* device of each op */
	double *start, *finish;	/* us */
	double *rank;		/* upward rank (mean costs) */
	int *order;		/* ops in scheduling order (rank descending) */
	double makespan_us;
};
/* Schedule every op; colocation groups follow the device chosen for their
 * first scheduled op.  Caller frees with pl_heft_sched_free(). */
struct pl_heft_sched *pl_heft_schedule(const struct pl_problem *p);
void pl_heft_sched_free(struct pl_heft_sched *s);

/* ---- expert (expert.c) ------------------------------------------------- */

/* The family the expert rules recognise from graph->name: "rnn" (NMT,
 * RNNLM, ENAS-RNN), "cnn", "transformer" or "generic". */
const char *pl_expert_family(const struct pl_graph *g);
/* The expert placement (before memory checks); groups fixed. */
void pl_expert_place(const struct pl_problem *p, struct pl_placement *out);

/* ---- partitioners (scotch.c, mincut.c) --------------------------------- */

/*
 * Map the group graph with libscotch onto a weighted complete architecture
 * (weights = effective device speeds, or memory capacities when by_mem).
 * part[k] receives the device of group k (before constraint repair).  When
 * view is not NULL, SCOTCH_graphMapView's statistics are written there.
 * 0, or -1 + *cause.
 */
int pl_scotch_map(const struct pl_problem *p, const struct pl_pu_cgraph *cg,
    int by_mem, uint64_t seed, int *part, FILE *view, char **cause);
/*
 * Partition the group graph with METIS_PartGraphKway into one part per
 * device, target weights proportional to device speed, imbalance
 * tolerance ufactor (1/1000).  *objval receives METIS's edge cut, *said
 * what METIS printed (its complaints, one line; NULL when silent; the
 * caller frees it): nothing reaches stdout.  0, or -1 + *cause.
 */
int pl_metis_partition(const struct pl_problem *p, const struct pl_pu_cgraph *cg,
    uint64_t seed, int ufactor, int *part, int64_t *objval, char **said,
    char **cause);

#endif
