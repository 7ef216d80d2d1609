/*
 * view-run — what the method views share: a placer stepped in time slices
 * between redraws, and a small line chart.
 * Invariant: steps run one at a time on the runner's worker thread, in
 * request order, so results do not depend on how they were sliced; the
 * main thread touches the placer only while no step is in flight, and
 * waits for a step at most until its slice's deadline, so keys answer
 * within one slice however long a step takes.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "explore.h"
#include "placer.h"
#include "pool.h"
#include "screen.h"
#include "view.h"
#include "xmalloc.h"

/* The worker thread of a runner: steps the placer on request. */
struct view_run_worker {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int in_flight;		/* a step requested and not finished */
	int outstanding;	/* a step requested and not collected (main thread) */
	int quit;
	enum pl_step_status st;
	struct pl_placer *pl;
};

/* The worker's loop. */
static void *
worker_main(void *arg)
{
	struct view_run_worker *k = arg;
	pthread_mutex_lock(&k->mu);
	for (;;) {
		while (!k->in_flight && !k->quit)
			pthread_cond_wait(&k->cv, &k->mu);
		if (k->quit)
			break;
		struct pl_placer *pl = k->pl;
		pthread_mutex_unlock(&k->mu);
		enum pl_step_status st = pl_placer_step(pl);
		pthread_mutex_lock(&k->mu);
		k->st = st;
		k->in_flight = 0;
		pthread_cond_broadcast(&k->cv);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

/* Start the worker thread once. */
static struct view_run_worker *
worker(struct view_run *r)
{
	if (r->worker != NULL)
		return r->worker;
	struct view_run_worker *k = pl_xcalloc(1, sizeof *k);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&k->th, NULL, worker_main, k) != 0) {
		fprintf(stderr, "placelab: cannot start a worker thread\n");
		abort();
	}
	r->worker = k;
	return k;
}

/* Whether a step is in flight or not yet taken in: the worker owns the
 * placer until collect(). */
int
view_run_busy(struct view_run *r)
{
	return r->worker != NULL && r->worker->outstanding;
}

/* The run's state for a header, and its colour role. */
const char *
view_run_state(const struct view_run *r, int placer_done, int *role)
{
	if (placer_done) {
		*role = SCR_GOOD;
		return "done";
	}
	*role = r->running || r->pending > 0 ? SCR_KEY : SCR_DIM;
	return r->running ? "running" : r->pending > 0 ? "stepping" : "paused";
}

/* Wait for the step in flight until the deadline (<= 0: no limit); 1 when
 * the worker is idle. */
static int
wait_idle(struct view_run *r, double deadline)
{
	struct view_run_worker *k = r->worker;
	if (k == NULL)
		return 1;
	pthread_mutex_lock(&k->mu);
	while (k->in_flight) {
		if (deadline <= 0) {
			pthread_cond_wait(&k->cv, &k->mu);
			continue;
		}
		struct timespec ts;
		ts.tv_sec = (time_t)deadline;
		ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
		if (pthread_cond_timedwait(&k->cv, &k->mu, &ts) != 0)
			break;
	}
	int idle = !k->in_flight;
	pthread_mutex_unlock(&k->mu);
	return idle;
}

/* The name of the placer's best as a source: "brkga best of generation
 * 11" (the view says when it was found), else "brkga best"; so an undo
 * step holding an earlier best says which. */
static char *
best_source(const struct view_run *r)
{
	char when[64] = "";
	if (r->best_when != NULL)
		r->best_when(r, when, sizeof when);
	return when[0] != '\0' ? pl_xasprintf("%s best of %s", r->cls->name, when)
	    : pl_xasprintf("%s best", r->cls->name);
}

/* Follow an improved best into the explorer's current placement while
 * the explorer lets this search replace it (the starting placement or
 * this search's own best, no hand edits); else say that 'a' takes it. */
static void
follow(struct view_run *r)
{
	if (!r->follow || r->pl->best == NULL)
		return;
	/* a new best (in the placer's order: one that fits before a faster
	 * one that does not) is looked at once */
	if (r->has_seen && !pl_result_better(&r->pl->best_res, &r->seen))
		return;
	r->seen = r->pl->best_res;
	r->has_seen = 1;
	if (r->ex->tr != NULL && !pl_result_better(&r->pl->best_res, &r->ex->tr->res))
		return;	/* not better than what is shown: 'a' still adopts it */
	if (!explore_may_follow(r->ex, r)) {
		char t[32];
		if (r->ex->msg == NULL || !r->ex->msg_error)	/* an error stays readable */
			explore_message(r->ex, 0, "%s found %s; a makes it current%s", r->cls->name,
			    screen_fmt_us(t, sizeof t, r->pl->best_res.makespan_us),
			    r->ex->dirty ? " once your edits are saved (w) or undone (u)" : "");
		return;
	}
	char *src = best_source(r);
	explore_take_best(r->ex, r->pl->best, src, r);
	free(src);
}

/* Take in a finished step (main thread, worker idle). */
static void
collect(struct view_run *r, enum pl_step_status st)
{
	r->worker->outstanding = 0;
	r->steps = r->pl->n_steps;
	r->collected++;
	if (r->on_step != NULL)
		r->on_step(r);
	if (r->pending > 0 && (r->stop == NULL || r->stop(r)))
		r->pending--;
	if (st == PL_STEP_ERROR) {
		free(r->error);
		r->error = pl_xstrdup(r->pl->error != NULL ? r->pl->error : "step failed");
	}
	if (st != PL_STEP_MORE) {
		r->done = 1;
		r->running = 0;
		r->pending = 0;
	}
	follow(r);
}

/* Wait for the step in flight and take it in. */
void
view_run_sync(struct view_run *r)
{
	struct view_run_worker *k = r->worker;
	if (k == NULL || !k->outstanding)
		return;
	wait_idle(r, 0);
	collect(r, k->st);
}

/* Set up a runner. */
void
view_run_init(struct view_run *r, struct explore *ex, const char *name,
    const char *optspec)
{
	memset(r, 0, sizeof *r);
	r->ex = ex;
	r->cls = pl_placer_find(name);
	r->optspec = optspec != NULL ? pl_xstrdup(optspec) : NULL;
	r->has_seen = 0;
}

/* (Re)create the placer. */
int
view_run_restart(struct view_run *r)
{
	view_run_sync(r);
	pl_placer_free(r->pl);
	r->pl = NULL;
	free(r->error);
	r->error = NULL;
	r->running = 0;
	r->pending = 0;
	r->steps = 0;
	r->done = 0;
	r->has_seen = 0;
	explore_search_restarted(r->ex, r);	/* a new run: not the best cur is */
	if (r->cls == NULL) {
		r->error = pl_xstrdup("this method is not in this build");
		return -1;
	}
	struct pl_run_opts run = {
		.sim = r->ex->sim,
		.seed = r->ex->opts.seed,
		.threads = r->ex->opts.threads > 0 ? r->ex->opts.threads : pl_ncores(),
	};
	char *cause = NULL;
	r->pl = pl_placer_new(r->cls, r->ex->p, r->optspec, &run, &cause);
	if (r->pl == NULL) {
		r->error = cause;
		return -1;
	}
	return 0;
}

/* Stop the worker and free everything. */
void
view_run_free(struct view_run *r)
{
	struct view_run_worker *k = r->worker;
	if (k != NULL && !wait_idle(r, pl_now_s() + 0.5)) {
		/* a long step (a generation of a big graph) is still running:
		 * the process is quitting, so leave the worker, its placer and
		 * the inputs it reads to the exit rather than make the user wait */
		pthread_mutex_lock(&k->mu);
		k->quit = 1;
		pthread_mutex_unlock(&k->mu);
		pthread_detach(k->th);
		r->ex->keep_inputs = 1;
		if (r->frame != NULL)
			delwin(r->frame);
		free(r->optspec);
		free(r->error);
		memset(r, 0, sizeof *r);
		return;
	}
	if (k != NULL) {
		pthread_mutex_lock(&k->mu);
		k->quit = 1;
		pthread_cond_broadcast(&k->cv);
		pthread_mutex_unlock(&k->mu);
		pthread_join(k->th, NULL);
		pthread_mutex_destroy(&k->mu);
		pthread_cond_destroy(&k->cv);
		free(k);
	}
	if (r->frame != NULL)
		delwin(r->frame);
	pl_placer_free(r->pl);
	free(r->optspec);
	free(r->error);
	memset(r, 0, sizeof *r);
}

/* Why the method would not start with optspec (see view.h). */
char *
view_run_refusal(struct explore *ex, const char *name, const char *optspec)
{
	struct view_run trial;
	view_run_init(&trial, ex, name, optspec);
	char *why = view_run_restart(&trial) != 0 ? pl_xstrdup(trial.error) : NULL;
	view_run_free(&trial);
	return why;
}

/* Adopt the best placement. */
void
view_run_adopt(struct view_run *r)
{
	view_run_sync(r);
	if (r->pl == NULL || r->pl->best == NULL) {
		explore_message(r->ex, 1, "no placement yet: step the method first");
		return;
	}
	if (explore_edits_block(r->ex))
		return;
	struct explore *ex = r->ex;
	char *src = best_source(r);
	int already = pl_placement_equal(ex->cur, r->pl->best);
	double was = ex->tr != NULL ? ex->tr->res.makespan_us : 0;
	explore_take_best(ex, r->pl->best, src, r);	/* followed from now on */
	r->seen = r->pl->best_res;
	r->has_seen = 1;
	char a[32], b[32];
	if (already)
		explore_message(ex, 0, "the current placement is already %s", src);
	else
		explore_message(ex, 0, "the current placement is now %s: step %s (was %s); u undoes", src,
		    screen_fmt_us(a, sizeof a, ex->tr != NULL ? ex->tr->res.makespan_us : 0),
		    screen_fmt_us(b, sizeof b, was));
	free(src);
}

/* Seconds between paced steps, by r->pace (0: full speed). */
static const double pace_s[] = { 0, 0.125, 0.25, 0.5, 1, 2 };
#define N_PACES ((int)(sizeof pace_s / sizeof *pace_s))

/* Run slower or faster. */
void
view_run_pace(struct view_run *r, int faster)
{
	int was = r->pace;
	r->pace += faster ? -1 : 1;
	r->pace = r->pace < 0 ? 0 : r->pace >= N_PACES ? N_PACES - 1 : r->pace;
	char b[64];
	const char *what = r->cls != NULL ? r->cls->name : "the method";
	if (r->pace == was)
		explore_message(r->ex, 0, "%s already runs %s", what,
		    r->pace == 0 ? "at full speed" : view_run_pace_label(r, b, sizeof b));
	else if (r->pace == 0)
		explore_message(r->ex, 0, "%s runs at full speed (- slower)", what);
	else
		explore_message(r->ex, 0, "%s runs %s (+ faster, - slower)", what,
		    view_run_pace_label(r, b, sizeof b));
}

/* The pace for the header. */
const char *
view_run_pace_label(const struct view_run *r, char *buf, size_t n)
{
	if (r->pace <= 0)
		return NULL;
	const char *noun = r->step_noun != NULL ? r->step_noun : "step";
	double s = pace_s[r->pace];
	if (s >= 1)
		snprintf(buf, n, "1 %s/%s", noun, s > 1 ? "2 s" : "s");
	else
		snprintf(buf, n, "%.0f %ss/s", 1 / s, noun);
	return buf;
}

/* Sleep until monotonic time t. */
static void
sleep_until(double t)
{
	double d = t - pl_now_s();
	if (d <= 0)
		return;
	struct timespec ts = { .tv_sec = (time_t)d, .tv_nsec = (long)((d - (double)(time_t)d) * 1e9) };
	nanosleep(&ts, NULL);
}

/* Step on the worker until the deadline, and leave a step in flight when
 * there is more to do; a paced run waits (asleep) for its next step's
 * time, at most until the deadline. */
int
view_run_tick(struct view_run *r, double deadline, int visible)
{
	if (r->pl == NULL)
		return 0;
	struct view_run_worker *k = worker(r);
	for (;;) {
		if (k->outstanding) {
			if (!wait_idle(r, deadline))
				return 1;
			collect(r, k->st);
		}
		if (r->done || (!r->running && r->pending <= 0))
			return 0;
		/* a view that draws the placer gets a fresh frame now and then */
		if (visible && r->fresh && r->collected > 0 &&
		    pl_now_s() - r->drawn_at > VIEW_RUN_FRAME_S)
			return 1;
		/* single steps (n, e) are not paced: they are asked for */
		if (r->running && r->pending <= 0 && r->pace > 0) {
			double next = r->paced_at + pace_s[r->pace];
			if (next > deadline) {
				sleep_until(deadline);
				return 1;
			}
			sleep_until(next);
			r->paced_at = pl_now_s();
		}
		/* the next step goes out even when the slice is over: it runs
		 * on its thread while other views take their turn */
		k->outstanding = 1;
		pthread_mutex_lock(&k->mu);
		k->pl = r->pl;
		k->in_flight = 1;
		pthread_cond_broadcast(&k->cv);
		pthread_mutex_unlock(&k->mu);
		if (pl_now_s() >= deadline)
			return 1;
	}
}

/* Keep the frame just drawn. */
void
view_run_frame_save(struct view_run *r, WINDOW *w, const struct view_rect *rc)
{
	r->drawn_at = pl_now_s();
	r->collected = 0;
	if (r->frame != NULL && (r->frame_rect.h != rc->h || r->frame_rect.w != rc->w)) {
		delwin(r->frame);
		r->frame = NULL;
	}
	if (r->frame == NULL)
		r->frame = newwin(rc->h, rc->w, 0, 0);
	if (r->frame == NULL)
		return;
	r->frame_rect = *rc;
	copywin(w, r->frame, rc->y, rc->x, 0, 0, rc->h - 1, rc->w - 1, FALSE);
}

/* Put the last frame back. */
int
view_run_frame_restore(struct view_run *r, WINDOW *w, const struct view_rect *rc)
{
	if (r->frame == NULL || r->frame_rect.h != rc->h || r->frame_rect.w != rc->w)
		return 0;
	copywin(r->frame, w, 0, 0, rc->y, rc->x, rc->y + rc->h - 1, rc->x + rc->w - 1, FALSE);
	return 1;
}

/* Value axis label. */
static const char *
axis_label(char *buf, int len, double v, int times)
{
	if (times)
		return screen_fmt_us(buf, len, v);
	snprintf(buf, len, "%.4g", v);
	return buf;
}

/* A small line chart, points numbered from 0. */
void
view_chart(WINDOW *w, const struct view_rect *r, int n_series,
    const double *const *ys, int n, const int *roles, const char *glyphs, int times)
{
	view_chart_from(w, r, n_series, ys, n, roles, glyphs, times, 0);
}

/* A small line chart, points numbered from x0. */
void
view_chart_from(WINDOW *w, const struct view_rect *r, int n_series,
    const double *const *ys, int n, const int *roles, const char *glyphs, int times,
    int x0)
{
	char buf[32];
	int lw = 10, pw = r->w - lw - 1, h = r->h - 1;
	if (pw < 4 || h < 2)
		return;
	double lo = INFINITY, hi = -INFINITY;
	for (int s = 0; s < n_series; s++)
		for (int i = 0; i < n; i++)
			if (isfinite(ys[s][i])) {
				lo = fmin(lo, ys[s][i]);
				hi = fmax(hi, ys[s][i]);
			}
	wattrset(w, screen_attr(SCR_DIM));
	for (int y = 0; y < h; y++)
		screen_vline(w, r->y + y, r->x + lw, 1);
	if (screen_utf8())
		mvwaddnwstr(w, r->y + h, r->x + lw, L"└", 1);
	else
		mvwaddch(w, r->y + h, r->x + lw, '+');
	screen_hline(w, r->y + h, r->x + lw + 1, pw);
	if (n == 0 || !isfinite(lo)) {
		wattrset(w, A_NORMAL);
		screen_put(w, r->y + h / 2, r->x + lw + 2, pw - 2, 0, "(nothing yet)");
		return;
	}
	if (hi - lo < 1e-12 * fmax(1, fabs(hi))) {
		hi += fmax(fabs(hi) * 0.05, 1e-9);
		lo -= fmax(fabs(lo) * 0.05, 1e-9);
	}
	screen_printf(w, r->y, r->x, lw - 1, 0, "%9s", axis_label(buf, sizeof buf, hi, times));
	screen_printf(w, r->y + h - 1, r->x, lw - 1, 0, "%9s", axis_label(buf, sizeof buf, lo, times));
	screen_printf(w, r->y + h, r->x, lw, 0, "%9d", x0);
	if (n > 1) {	/* one point, one number */
		snprintf(buf, sizeof buf, "%d", x0 + n - 1);
		screen_put(w, r->y + h, r->x + r->w - (int)strlen(buf), (int)strlen(buf), 0, buf);
	}
	wattrset(w, A_NORMAL);
	int cols = n < pw ? n : pw;
	for (int s = 0; s < n_series; s++) {
		wattrset(w, screen_attr(roles[s]));
		for (int c = 0; c < cols; c++) {
			int i = cols == n ? c : (int)((double)c * (n - 1) / (cols - 1 > 0 ? cols - 1 : 1));
			double v = ys[s][i];
			if (!isfinite(v))
				continue;
			int row = (int)floor((hi - v) / (hi - lo) * (h - 1) + 0.5);
			int x = cols == n && n > 1 ? (int)((double)c * (pw - 1) / (n - 1)) : c;
			mvwaddch(w, r->y + row, r->x + lw + 1 + x, (chtype)(unsigned char)glyphs[s]);
		}
	}
	wattrset(w, A_NORMAL);
}
