/*
 * compare — the comparison table of placement methods on one problem: one
 * row per method with its step time, improvement over the human expert,
 * gap to the best row and to the lower bound, the peak memory of its
 * fullest device and OOM, bytes moved between devices, search time and
 * simulator evaluations.  Written as an aligned text table, Markdown,
 * CSV, LaTeX (booktabs) or JSON ("placelab-compare/1", docs/BASELINES.md),
 * always to a FILE * so the explorer and the exports reuse the writers.
 *
 * Methods can be added one at a time (pl_compare_run(), or
 * pl_compare_add_placer() for a placer the caller stepped itself), so a
 * front end can fill the table as each method finishes; the derived
 * columns (vs expert, gap to best) are recomputed after every addition.
 *
 * Invariant: rows keep the order they were added in; a row without a
 * placement (the method failed) has has_result == 0 and NAN numbers, and
 * its status says why.  Under --mem none (memory not modelled) a row's
 * peak memory and OOM are unknown (mem_known == 0) and every format says
 * so (n/a, empty, null) rather than showing zeros.  A table parsed back
 * from JSON holds no placements and no problem, but writes the same text.
 *
 * Ownership: the table borrows the problem; rows own their strings and
 * placements; pl_compare_free() frees all.
 */
#ifndef PL_COMPARE_H
#define PL_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "placer.h"
#include "problem.h"
#include "sim.h"

#define PL_FORMAT_COMPARE "placelab-compare/1"

#define PL_COMPARE_FORMATS(X) \
	X(TABLE, "table") X(MD, "md") X(CSV, "csv") X(TEX, "tex") X(JSON, "json")
enum pl_compare_format {
#define PL_X(e, s) PL_CMP_##e,
	PL_COMPARE_FORMATS(PL_X)
#undef PL_X
};
/* "table", "md" (or "markdown"), "csv", "tex" (or "latex"), "json"; -1. */
int pl_compare_format_parse(const char *s);
/* The format a file suffix (without the dot, any case) names: md (or
 * markdown), csv, tex (or latex), json, and txt for the text table; -1
 * for another, "table" included (a format's name, no suffix). */
int pl_compare_format_of_suffix(const char *ext);
const char *pl_compare_format_name(enum pl_compare_format f);

struct pl_compare_row {
	char *method;		/* class name, e.g. "heft" */
	char *title;		/* e.g. "HEFT" */
	char *status;		/* placer's status or error */
	int has_result;		/* 1: a placement was found */
	double makespan_us;	/* simulated step time */
	double time_vs_expert_pct;	/* (this - expert) / expert * 100, negative =
					 * faster; NAN: n/a */
	double gap_best_pct;	/* (this - best) / best * 100; best = fastest fitting row */
	double gap_bound_pct;	/* (this - bound) / bound * 100 */
	int64_t peak_bytes;	/* peak of the fullest device (peak / capacity) */
	int64_t peak_cap;	/* that device's capacity */
	char *peak_dev;		/* that device's name ("" when none) */
	int oom;		/* some device above capacity */
	int mem_known;		/* memory was modelled: peak and oom hold */
	int64_t bytes_moved;
	double search_s;
	long evals;
	int steps;
	int current;		/* 1: the explorer's current placement, not a
				 * method's: derived against the methods' rows,
				 * never the best (pl_compare_current_row) */
	struct pl_placement *best;	/* NULL when parsed back or failed */
};

struct pl_compare {
	const struct pl_problem *prob;	/* NULL when parsed back */
	struct pl_run_opts run;
	char *graph;			/* graph name */
	char *cluster;			/* cluster name */
	char *sim;			/* simulator name */
	char *mem;			/* memory model name ("none": not modelled) */
	double bound_us;		/* lower bound (pl_bounds_compute) */
	int n_rows, cap_rows;
	struct pl_compare_row *rows;
};

/* Budget for one method: steps and seconds, <= 0 meaning no limit. */
#define PL_COMPARE_SECONDS 60.0	/* the default: placelab compare's and
				 * the explorer's Compare view's */
struct pl_compare_budget {
	int max_steps;
	double max_seconds;
};

struct pl_compare *pl_compare_new(const struct pl_problem *p, const struct pl_run_opts *run);
void pl_compare_free(struct pl_compare *cmp);

/* Add a row from a placer's current state (best, status, counters). */
void pl_compare_add_placer(struct pl_compare *cmp, const struct pl_placer *pl);
/* Refresh row i from a placer still running (live tables); the row keeps
 * its position.  i must be a valid row index. */
void pl_compare_set_placer(struct pl_compare *cmp, int i, const struct pl_placer *pl);
/* Add a row for a method that could not run at all (e.g. bad options). */
void pl_compare_add_failure(struct pl_compare *cmp, const struct pl_placer_class *cls,
    const char *why);
/*
 * Create, run within the budget and add one method.  optspec as for
 * pl_placer_new().  Returns the row index; a method that fails to create
 * or errors still gets a row (with its reason).
 */
int pl_compare_run(struct pl_compare *cmp, const struct pl_placer_class *cls,
    const char *optspec, const struct pl_compare_budget *b);
/* Recompute the derived columns (done by every add). */
void pl_compare_update(struct pl_compare *cmp);
/* One row's derived columns (time vs expert, gaps to best and bound)
 * against the table's references; r need not be in the table (the
 * explorer's current placement). */
void pl_compare_derive(const struct pl_compare *cmp, struct pl_compare_row *r);
/*
 * Fill r (its strings allocated; pl_compare_row_free()) as the row of a
 * placement no method of the table found (the explorer's current one),
 * from its simulation res: method "current", the given title and status,
 * figures only (no placement kept), derived against the table's rows
 * without changing them.  cmp must have its problem (not parsed back).
 */
void pl_compare_current_row(const struct pl_compare *cmp, const char *title, const char *status,
    const struct pl_sim_result *res, struct pl_compare_row *r);
void pl_compare_row_free(struct pl_compare_row *r);
/* Index of the best fitting row (never a current row), or -1. */
int pl_compare_best(const struct pl_compare *cmp);

/*
 * Methods from a comma-separated list of class names ("all": every class;
 * NULL: the quick ones).  Fills a NULL-terminated array the caller
 * frees.  -1 + *cause naming an unknown method, one named twice or an
 * empty item (a stray comma), or when none is named.
 */
int pl_compare_methods(const char *list, const struct pl_placer_class ***out,
    char **cause);

/* The human-readable cells of a row, as the text formats show them, for
 * front ends that draw their own table: PL_COMPARE_NCOLS cells of at most
 * PL_COMPARE_CELL bytes, headed by pl_compare_headers[]. */
#define PL_COMPARE_NCOLS 10
#define PL_COMPARE_CELL 96
extern const char *const pl_compare_headers[PL_COMPARE_NCOLS];
void pl_compare_row_cells(const struct pl_compare_row *r,
    char cells[PL_COMPARE_NCOLS][PL_COMPARE_CELL]);
/* Write s as the text of a Markdown table cell that shows as written: a
 * backslash before '|' (a new column) and each character that could
 * start markup, control characters as spaces. */
void pl_compare_md_cell(FILE *f, const char *s);

/* Write the table in a format. */
void pl_compare_write(const struct pl_compare *cmp, enum pl_compare_format f, FILE *out);
/* The same with extra (if not NULL) as the last row. */
void pl_compare_write_with(const struct pl_compare *cmp, const struct pl_compare_row *extra,
    enum pl_compare_format f, FILE *out);
/* Parse a "placelab-compare/1" document back.  NULL + *cause. */
struct pl_compare *pl_compare_parse_json(const char *text, size_t len, const char *name,
    char **cause);

/*
 * One placer's result as a "placelab-result/1" JSON object (method,
 * graph, cluster, simulator, step time, per-device peak memory, OOM, bytes
 * moved, search time, evaluations, steps, status, and the placement in
 * the placelab-placement/1 layout).  Caller frees.
 */
char *pl_result_to_json(const struct pl_placer *pl);

#endif
