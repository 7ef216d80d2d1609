/*
 * placer — the driver every front end uses to run placement methods.
 * Invariant: see placer.h; best only changes through pl_placer_offer().
 */
#include "placer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "xmalloc.h"

/* A registered class by name. */
const struct pl_placer_class *
pl_placer_find(const char *name)
{
	for (int i = 0; pl_placer_classes[i] != NULL; i++)
		if (strcmp(pl_placer_classes[i]->name, name) == 0)
			return pl_placer_classes[i];
	return NULL;
}

/* The class's options from a spec, checked against their ranges. */
int
pl_placer_options(const struct pl_placer_class *cls, const char *optspec,
    struct pl_options **out, char **cause)
{
	if (pl_options_parse_ranged(cls->options, cls->ranges, optspec, out, cause) == 0)
		return 0;
	char *inner = *cause;
	*cause = pl_xasprintf("%s: %s", cls->name, inner);
	free(inner);
	return -1;
}

/* Create a placer and run its class's create(). */
struct pl_placer *
pl_placer_new(const struct pl_placer_class *cls, const struct pl_problem *prob,
    const char *optspec, const struct pl_run_opts *run, char **cause)
{
	struct pl_placer *pl = pl_xcalloc(1, sizeof *pl);
	pl->cls = cls;
	pl->prob = prob;
	pl->run = *run;
	if (pl->run.threads < 1)
		pl->run.threads = 1;
	pl->best_res.makespan_us = INFINITY;
	if (pl_placer_options(cls, optspec, &pl->opts, cause) != 0) {
		free(pl);
		return NULL;
	}
	pl->ws = pl_sim_ws_new(prob);
	pl->status = pl_xstrdup("ready");
	if (cls->create != NULL && cls->create(pl, cause) != 0) {
		pl->cls = NULL;	/* destroy() must not run on a failed create */
		pl_placer_free(pl);
		return NULL;
	}
	return pl;
}

/* Free the placer and all it owns. */
void
pl_placer_free(struct pl_placer *pl)
{
	if (pl == NULL)
		return;
	if (pl->cls != NULL && pl->cls->destroy != NULL)
		pl->cls->destroy(pl);
	pl_options_free(pl->opts);
	pl_placement_free(pl->best);
	pl_sim_ws_free(pl->ws);
	for (int i = 0; i < pl->n_hist; i++)
		free(pl->hist[i].what);
	free(pl->hist);
	free(pl->error);
	free(pl->status);
	free(pl->note);
	free(pl);
}

/* One timed step, with its history row. */
enum pl_step_status
pl_placer_step(struct pl_placer *pl)
{
	if (pl->done)
		return PL_STEP_DONE;
	double t0 = pl_now_s();
	enum pl_step_status st = pl->cls->step(pl);
	pl->search_s += pl_now_s() - t0;
	pl->n_steps++;
	if (st != PL_STEP_MORE)
		pl->done = 1;
	if (st == PL_STEP_ERROR && pl->error == NULL)
		pl->error = pl_xstrdup(pl->note != NULL ? pl->note : "step failed");
	if (pl->n_hist == pl->cap_hist) {
		pl->cap_hist = pl->cap_hist ? pl->cap_hist * 2 : 64;
		pl->hist = pl_xreallocarray(pl->hist, pl->cap_hist, sizeof *pl->hist);
	}
	pl->hist[pl->n_hist++] = (struct pl_hist_entry){
		.step = pl->n_steps,
		.evals = pl->evals,
		.best_us = pl->best != NULL ? pl->best_res.makespan_us : INFINITY,
		.wall_s = pl->search_s,
		.what = pl->note != NULL ? pl->note : pl_xstrdup(""),
	};
	pl->note = NULL;
	return st;
}

/* Step until done, a budget runs out or watch says stop. */
enum pl_step_status
pl_placer_run_watched(struct pl_placer *pl, int max_steps, double max_seconds,
    pl_step_watch *watch, void *arg)
{
	enum pl_step_status st = pl->done ? PL_STEP_DONE : PL_STEP_MORE;
	double t0 = pl_now_s();
	for (int i = 0; st == PL_STEP_MORE; i++) {
		if (max_steps > 0 && i >= max_steps)
			break;
		double elapsed = pl_now_s() - t0;
		if (watch != NULL && watch(pl, elapsed, arg) != 0)
			break;
		if (max_seconds > 0 && i > 0 && elapsed >= max_seconds)
			break;	/* (the first step always runs) */
		st = pl_placer_step(pl);
	}
	return st;
}

/* Step until done or a budget runs out. */
enum pl_step_status
pl_placer_run(struct pl_placer *pl, int max_steps, double max_seconds)
{
	return pl_placer_run_watched(pl, max_steps, max_seconds, NULL, NULL);
}

/* Evaluate with the placer's workspace. */
void
pl_placer_evaluate(struct pl_placer *pl, const struct pl_placement *cand,
    struct pl_sim_result *r)
{
	pl_sim_eval(pl->ws, cand, &pl->run.sim, r);
	pl->evals++;
}

/* Result ordering: a result that fits first; between two that fit, the
 * smaller makespan; between two that do not, the smaller memory excess,
 * then the smaller makespan. */
int
pl_result_better(const struct pl_sim_result *a, const struct pl_sim_result *b)
{
	return pl_outcome_better(pl_outcome_of(a), pl_outcome_of(b));
}

/* Result r's outcome (see placer.h). */
struct pl_outcome
pl_outcome_of(const struct pl_sim_result *r)
{
	return (struct pl_outcome){ r->makespan_us, r->oom_mask, r->oom_excess };
}

/* Whether a is better than b (see placer.h). */
int
pl_outcome_better(struct pl_outcome a, struct pl_outcome b)
{
	int aok = a.oom == 0, bok = b.oom == 0;
	if (aok != bok)
		return aok;
	if (!aok && a.excess != b.excess)
		return a.excess < b.excess;
	return a.us < b.us;
}

/* Keep cand if it beats the best. */
int
pl_placer_offer(struct pl_placer *pl, const struct pl_placement *cand,
    const struct pl_sim_result *r)
{
	if (pl->best != NULL && !pl_result_better(r, &pl->best_res))
		return 0;
	if (pl->best == NULL)
		pl->best = pl_placement_clone(cand);
	else
		pl_placement_copy(pl->best, cand);
	pl->best_res = *r;
	return 1;
}

/* Evaluate and offer. */
int
pl_placer_try(struct pl_placer *pl, const struct pl_placement *cand)
{
	struct pl_sim_result r;
	pl_placer_evaluate(pl, cand, &r);
	return pl_placer_offer(pl, cand, &r);
}

/* Replace a string field with formatted text. */
static void __attribute__((format(printf, 2, 0)))
set_text(char **field, const char *fmt, va_list ap)
{
	char *t = pl_xvasprintf(fmt, ap);	/* whole: never cut in a character */
	free(*field);
	*field = t;
}

/* Set the status line. */
void
pl_placer_set_status(struct pl_placer *pl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&pl->status, fmt, ap);
	va_end(ap);
}

/* Describe the current step. */
void
pl_placer_note(struct pl_placer *pl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_text(&pl->note, fmt, ap);
	va_end(ap);
}
