/*
 * brkga — the biased random-key genetic algorithm of REGAL (docs/BRKGA.md).
 *
 * A chromosome is a vector of genes in [0, 1) laid out as
 *
 *   [ affinities: n_groups x n_dev | op priorities: n_ops |
 *     tensor priorities: n_tensors x n_dev ]
 *
 * (colocation groups share one set of affinity genes; the tensor part is
 * absent with tensor-genes=0).  The decoder puts every group on its allowed
 * device of highest affinity and copies the priority genes into the
 * placement's prio and tprio arrays, which the native simulator's list
 * scheduling reads.  Each pl_placer_step() is one generation of every
 * population; its statistics are appended to a history the explorer draws
 * and `placelab run --history` writes.
 *
 * Invariant: for a given seed and options the populations, the history
 * (wall times aside) and the best placement are the same whatever the
 * number of threads: chromosome i of generation n of population k draws
 * from its own stream pl_rng_stream(seed, f(n, k, i)), and results are
 * reduced in index order.
 *
 * Ownership: everything returned by the getters below belongs to the
 * placer and stays valid until its next step (history: until it is freed).
 */
#ifndef PL_BRKGA_H
#define PL_BRKGA_H

#include <stdint.h>

#include "placement.h"
#include "placer.h"

extern const struct pl_placer_class pl_placer_brkga;

/* Statistics of one generation (all populations together). */
struct pl_brkga_gen {
	int gen;		/* 0 = the initial population */
	long evals;		/* simulator evaluations so far */
	double wall_s;		/* search time so far */
	double best;		/* objective of the best chromosome so far */
	int best_oom;		/* the best so far does not fit in memory */
	double mean, worst;	/* objective over this generation's feasible
				 * chromosomes (NAN when none fits) */
	int n_oom;		/* chromosomes of this generation that do not fit */
	double best_makespan_us;	/* of the best so far */
	int64_t best_peak_bytes;	/* of the best so far: fullest device */
	double diversity;	/* mean per-gene standard deviation (uniform: 0.289) */
};

/* Where each part of a chromosome starts. */
struct pl_brkga_layout {
	long n_genes;
	long aff_off;		/* group g, device d: aff_off + g * n_dev + d */
	long prio_off;		/* op v: prio_off + v */
	long tprio_off;		/* tensor t, device d: tprio_off + t * n_dev + d;
				 * -1 without tensor genes */
	int n_groups, n_ops, n_tensors, n_dev;
	int pop_size, n_pops, n_elite, n_mutants;
};

/* The placer's chromosome layout and population sizes. */
void pl_brkga_layout(const struct pl_placer *pl, struct pl_brkga_layout *out);

/* The per-generation history; *n receives its length. */
const struct pl_brkga_gen *pl_brkga_history(const struct pl_placer *pl, int *n);

/*
 * Chromosome of rank r (0 = best) of population k after the last step: its
 * genes (layout n_genes of them), and in *fit and *oom (either may be NULL)
 * its objective and whether it runs out of memory.  NULL before the first
 * step or when k or r is out of range.
 */
const float *pl_brkga_chromosome(const struct pl_placer *pl, int k, int r,
    double *fit, int *oom);

/*
 * Per-gene Beta(alpha[i], beta[i]) distributions for new chromosomes (the
 * initial population when called before the first step, and every later
 * mutant).  n must equal the layout's n_genes; every parameter must be
 * finite and > 0.  NULL arrays restore the uniform Beta(1, 1).  This is
 * where learned distributions (REGAL's policy) plug in.  0, or -1 + *cause.
 */
int pl_brkga_set_beta(struct pl_placer *pl, const double *alpha,
    const double *beta, long n, char **cause);

/*
 * The same for one node, the way REGAL's policy emits them: Beta(alpha[d],
 * beta[d]) for the affinity genes of the op's group (n_dev of them; NULL
 * leaves them) and Beta(prio_alpha, prio_beta) for its priority gene (<= 0
 * leaves it).  Genes not set stay uniform.  0, or -1 + *cause.
 */
int pl_brkga_set_node_beta(struct pl_placer *pl, int op, const double *alpha,
    const double *beta, double prio_alpha, double prio_beta, char **cause);

/* Read distributions from a file in the format of docs/BRKGA.md
 * ("placelab-beta/1") and set them.  0, or -1 + *cause naming file:line. */
int pl_brkga_load_beta(struct pl_placer *pl, const char *path, char **cause);
/* The same from text already read (name labels messages). */
int pl_brkga_parse_beta(struct pl_placer *pl, const char *text, size_t len, const char *name,
    char **cause);
/*
 * Check such a text against problem prob (its ops, tensors and devices)
 * for the layout with or without tensor genes, without a placer: what
 * pl_brkga_parse_beta() would accept whatever the population sizes.  0, or
 * -1 + *cause naming file:line.
 */
int pl_brkga_check_beta(const struct pl_problem *prob, int tensor_genes, const char *text,
    size_t len, const char *name, char **cause);

/*
 * Decode genes (layout of pl) into out, which must have n_ops and n_dev of
 * the problem; out->prio (and out->tprio with tensor genes) are allocated on
 * first use and reused afterwards.
 */
void pl_brkga_decode(const struct pl_placer *pl, const float *genes,
    struct pl_placement *out);

/* Seconds spent inside the simulator (summed over workers) and in whole
 * steps, for the benchmark's "time outside the simulator". */
void pl_brkga_times(const struct pl_placer *pl, double *sim_s, double *step_s);

#endif
