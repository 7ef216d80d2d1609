/*
 * placer — every placement method behind one steppable interface.
 *
 * A method is a `const struct pl_placer_class` (name, title, options,
 * create, step, destroy) with designated initializers.  pl_placer_step()
 * does one meaningful unit of the method (one MDP decision for Placeto, one
 * generation for BRKGA, the whole pass for a one-shot heuristic) and must
 * return within a bounded time so a front end can interleave steps with
 * drawing.  The TUI, the batch runner and the tests drive every placer the
 * same way: create, step until PL_STEP_DONE (or a budget), read best.
 *
 * Invariant: best is NULL until a step has offered a placement; after that
 * it is always a valid placement (pl_placement_check passes) and best_res
 * is its simulated result under the placer's simulator options.  The
 * history only grows.
 *
 * Ownership: the placer borrows the problem; pl_placer_free() frees the
 * placer, its best placement, options and history.
 */
#ifndef PL_PLACER_H
#define PL_PLACER_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "placement.h"
#include "problem.h"
#include "sim.h"

enum pl_step_status { PL_STEP_MORE, PL_STEP_DONE, PL_STEP_ERROR };

struct pl_placer;

struct pl_placer_class {
	const char *name;		/* "heft" */
	const char *title;		/* "HEFT list scheduling" */
	const char *summary;		/* one sentence for --help and docs */
	const struct pl_option_def *options;	/* NULL-name terminated */
	/* The ranges of its numeric options (NULL-name terminated; NULL:
	 * none); every numeric option has one. */
	const struct pl_option_range *ranges;
	/* Set up pl->priv.  0, or -1 + *cause. */
	int (*create)(struct pl_placer *pl, char **cause);
	/* One unit of work; offers candidates with pl_placer_offer(). */
	enum pl_step_status (*step)(struct pl_placer *pl);
	void (*destroy)(struct pl_placer *pl);
	/* Optional: write the placer's own per-step history as CSV (header
	 * line first), for `placelab run --history FILE`.  0 or -1. */
	int (*history_csv)(const struct pl_placer *pl, FILE *f);
	/* Optional: 1 when option name does nothing with the others as set
	 * in o (the placer refuses it given there): `run --json` records it
	 * as null, so that the record can be given back. */
	int (*option_unused)(const struct pl_options *o, const char *name);
	int quick;	/* finishes within seconds on the largest sample */
};

/* What the driver gives every placer. */
struct pl_run_opts {
	struct pl_sim_opts sim;		/* simulator used for evaluation */
	uint64_t seed;
	int threads;			/* worker threads a step may use; >= 1 */
};

/* One history row per step (placer-specific detail lives in the placer). */
struct pl_hist_entry {
	int step;
	long evals;		/* simulator evaluations so far */
	double best_us;		/* best makespan after this step (INFINITY: none) */
	double wall_s;		/* search time so far */
	char *what;		/* what the step did, one line */
};

struct pl_placer {
	const struct pl_placer_class *cls;
	const struct pl_problem *prob;
	struct pl_options *opts;
	struct pl_run_opts run;
	void *priv;

	struct pl_placement *best;
	struct pl_sim_result best_res;
	int n_steps;
	long evals;
	double search_s;
	int done;
	char *error;		/* set when a step returned PL_STEP_ERROR */
	char *status;		/* short, human: "generation 12", "OOM: ..." */
	char *note;		/* set by the step for its history row */

	int n_hist, cap_hist;
	struct pl_hist_entry *hist;

	struct pl_sim_ws *ws;	/* for pl_placer_evaluate() */
};

/* Registry: NULL-terminated list of every method. */
extern const struct pl_placer_class *const pl_placer_classes[];
const struct pl_placer_class *pl_placer_find(const char *name);

/* Parse optspec (as pl_options_parse() reads it) against the class's
 * options and their ranges.  -1 + *cause ("brkga: option 'rho': 2 is
 * not in [0.5, 1]"). */
int pl_placer_options(const struct pl_placer_class *cls, const char *optspec,
    struct pl_options **out, char **cause);
/* Create a placer; optspec as in pl_placer_options().  NULL + *cause. */
struct pl_placer *pl_placer_new(const struct pl_placer_class *cls,
    const struct pl_problem *prob, const char *optspec,
    const struct pl_run_opts *run, char **cause);
void pl_placer_free(struct pl_placer *pl);

/* One step (timed, logged).  No-op returning PL_STEP_DONE once done. */
enum pl_step_status pl_placer_step(struct pl_placer *pl);
/* Step until done, or until max_steps (<= 0: no limit) or max_seconds
 * (<= 0: no limit; checked between steps, so the first step always
 * runs).  Returns the last status. */
enum pl_step_status pl_placer_run(struct pl_placer *pl, int max_steps,
    double max_seconds);
/* Asked before every step of pl_placer_run_watched() with the seconds
 * since the run began: nonzero stops the run there (a signal, a user). */
typedef int pl_step_watch(const struct pl_placer *pl, double elapsed_s, void *arg);
/* pl_placer_run() that asks watch (with arg) before every step. */
enum pl_step_status pl_placer_run_watched(struct pl_placer *pl, int max_steps,
    double max_seconds, pl_step_watch *watch, void *arg);

/* ---- for implementations ---------------------------------------------- */

/* Simulate cand with the placer's workspace and options; counts an eval. */
void pl_placer_evaluate(struct pl_placer *pl, const struct pl_placement *cand,
    struct pl_sim_result *r);
/* Offer a candidate with its result: kept (copied) if better than best.
 * Returns 1 if it became the best. */
int pl_placer_offer(struct pl_placer *pl, const struct pl_placement *cand,
    const struct pl_sim_result *r);
/* Evaluate and offer. */
int pl_placer_try(struct pl_placer *pl, const struct pl_placement *cand);
/* Set the status line (printf-style). */
void pl_placer_set_status(struct pl_placer *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Describe the current step for the history row (printf-style). */
void pl_placer_note(struct pl_placer *pl, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Whether result a is better than b: fitting in memory beats OOM; then the
 * shorter makespan; among OOM results the smaller excess. */
int pl_result_better(const struct pl_sim_result *a, const struct pl_sim_result *b);

/* What pl_result_better compares, kept without the rest of a result. */
struct pl_outcome {
	double us;		/* makespan */
	uint64_t oom;		/* devices out of memory */
	int64_t excess;		/* bytes above capacity, summed */
};
/* Worse than any result: what a best starts from. */
#define PL_OUTCOME_NONE ((struct pl_outcome){ INFINITY, ~(uint64_t)0, INT64_MAX })
/* Result r's outcome. */
struct pl_outcome pl_outcome_of(const struct pl_sim_result *r);
/* Whether a is better than b, by pl_result_better's rule. */
int pl_outcome_better(struct pl_outcome a, struct pl_outcome b);

#endif
