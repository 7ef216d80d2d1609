/*
 * util — helpers the baseline placers share: keeping colocation groups
 * together inside their allowed device masks, a static per-device memory
 * estimate (Baechi's model: every op holds param + out + temp bytes on its
 * device), a contracted "group graph" for the partitioners, and the one
 * place that finishes a one-shot placer (check, simulate, offer, status).
 *
 * Invariant: every placement these helpers return or touch passes
 * pl_placement_check() once pl_pu_fix_groups() has run on it; they never
 * place a group outside prob->group_allowed[group].
 *
 * Ownership: pl_pu_cgraph_new() returns a graph freed with
 * pl_pu_cgraph_free(); everything else works on caller storage.
 */
#ifndef PL_PLACERS_UTIL_H
#define PL_PLACERS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "placement.h"
#include "placer.h"
#include "problem.h"

/* Baechi's static memory of one op: param + out + temp bytes. */
int64_t pl_pu_op_mem(const struct pl_graph *g, int v);
/* Static memory of a colocation group. */
int64_t pl_pu_group_mem(const struct pl_graph *g, int grp);
/* Mean op time over the op's allowed devices. */
double pl_pu_op_mean_us(const struct pl_problem *p, int v);

/* A seed (up to 2^53) in the 31 bits a partitioner's seed takes: seeds
 * below 2^31 as they are, larger ones mixed, so that every bit counts. */
int pl_pu_seed31(uint64_t seed);

/* Effective speed of each device relative to the mean device: the sum of
 * mean op times over the sum of op times on d (over ops allowed on d).
 * Handles measured times as well as roofline estimates. */
void pl_pu_device_speed(const struct pl_problem *p, double *speed);
/* The fastest device in mask (largest effective speed; ties: lowest index),
 * or -1 when mask is empty.  speed may be NULL (computed). */
int pl_pu_fastest_in(const struct pl_problem *p, uint64_t mask, const double *speed);

/* Put every op of group grp on device d. */
void pl_pu_set_group(const struct pl_problem *p, struct pl_placement *pl, int grp, int d);
/*
 * Make pl valid: every group ends on one device of its allowed mask — the
 * device most of its ops' compute already sits on when allowed (ties: the
 * device of the group's first op), else the fastest allowed device.
 * Devices out of range count as unset.  Returns the number of ops moved.
 */
int pl_pu_fix_groups(const struct pl_problem *p, struct pl_placement *pl);

/* Static memory per device of a placement (Baechi's model) into used[]. */
void pl_pu_static_mem(const struct pl_problem *p, const struct pl_placement *pl,
    int64_t *used);
/*
 * Move whole groups off devices whose static memory exceeds capacity onto
 * allowed devices with room (the fastest such device; ties: the most room),
 * groups with the most memory per unit of compute first.  Returns the bytes still above capacity (0: fits).
 */
int64_t pl_pu_fit_memory(const struct pl_problem *p, struct pl_placement *pl);

/*
 * The group graph: one vertex per colocation group, an undirected edge
 * between two groups that exchange tensors, weighted by the bytes (summed
 * over both directions; one tensor counted once per consuming group).
 * Adjacency in CSR form, symmetric, without self loops.
 */
struct pl_pu_cgraph {
	int n;			/* groups */
	int n_adj;		/* adjacency entries (twice the edges) */
	int *xadj;		/* n + 1 */
	int *adj;		/* n_adj */
	int64_t *ebytes;	/* n_adj: bytes on the edge */
	double *vus;		/* n: compute (sum of mean op times, us) */
	int64_t *vmem;		/* n: static memory */
};
struct pl_pu_cgraph *pl_pu_cgraph_new(const struct pl_problem *p);
void pl_pu_cgraph_free(struct pl_pu_cgraph *cg);
/*
 * Integer weights for the partitioners: each scaled so the total fits
 * comfortably in 31 bits (scale chosen from the total), minimum 1.
 * vw = compute (or memory when by_mem), ew = bytes.  Caller frees.
 */
void pl_pu_cgraph_int_weights(const struct pl_pu_cgraph *cg, int by_mem,
    int32_t **vw, int32_t **ew);
/* Sum of integer edge weights between groups in different parts (each
 * undirected edge once). */
int64_t pl_pu_cgraph_cut(const struct pl_pu_cgraph *cg, const int32_t *ew,
    const int *part);

/*
 * Finish a one-shot placer: fix groups, check, simulate, offer, set the
 * status ("12.3 ms" or "OOM: /gpu:0 needs 13.1 GiB of 12.0 GiB").  label
 * goes into the history note.  Returns PL_STEP_DONE, or PL_STEP_ERROR if the
 * placement could not be made valid (a bug).
 */
enum pl_step_status pl_pu_finish(struct pl_placer *pl, struct pl_placement *cand,
    const char *label);
/*
 * Memory budgets for the memory-constrained placers (m-TOPO, m-ETF): their
 * static model (Baechi's) misses the copies a device receives, so each
 * pass is simulated, and when a device's simulated peak overflows, its
 * budget shrinks by the excess and the placer makes another pass (at most
 * 16; the best placement is kept, one that fits before any that does not).
 * Both placers take the option table pl_pu_budget_options ("devices") and
 * use create/destroy below as their class's, which own pl->priv.
 */
struct pl_pu_budget {
	int64_t bytes[PL_MAX_DEVICES];	/* what a pass may fill, static model */
	int pass;
};
extern const struct pl_option_def pl_pu_budget_options[];
int pl_pu_budget_create(struct pl_placer *pl, char **cause);
void pl_pu_budget_destroy(struct pl_placer *pl);
int64_t pl_pu_budget_bytes(const struct pl_placer *pl, int d);
/* pl_pu_finish, then PL_STEP_MORE when another pass with smaller budgets
 * is worth making. */
enum pl_step_status pl_pu_finish_budget(struct pl_placer *pl,
    struct pl_placement *cand, const char *label);
/* Describe a result's memory state: "fits" or "OOM: dev needs X of Y"
 * (to free). */
char *pl_pu_describe_mem(const struct pl_problem *p, const struct pl_sim_result *r);

/* The devices a Baechi-style placer spreads over: "gpu" = the GPUs when
 * the cluster has any (else all devices), "all" = every device.  -1 for an
 * unknown name. */
int pl_pu_usable_mask(const struct pl_problem *p, const char *which, uint64_t *mask);
/* mask restricted to usable devices, or mask itself when that leaves none. */
static inline uint64_t
pl_pu_restrict(uint64_t mask, uint64_t usable)
{
	return (mask & usable) != 0 ? mask & usable : mask;
}

/* Number of devices of a kind, and their mask. */
int pl_pu_count_kind(const struct pl_cluster *c, enum pl_dev_kind k);
uint64_t pl_pu_kind_mask(const struct pl_cluster *c, enum pl_dev_kind k);

#endif
