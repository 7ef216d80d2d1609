/*
 * view-run — what the method views share: a placer stepped in time slices
 * between redraws, and a small line chart.
 * Invariant: a step is never interrupted; a tick runs whole steps until
 * its deadline passes, so the loop answers keys within one slice plus one
 * step, and results do not depend on how the steps were sliced.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "placer.h"
#include "pool.h"
#include "screen.h"
#include "view.h"
#include "xmalloc.h"

/* Set up a runner. */
void
view_run_init(struct view_run *r, struct explore *ex, const char *name,
    const char *optspec)
{
	memset(r, 0, sizeof *r);
	r->ex = ex;
	r->cls = pl_placer_find(name);
	r->optspec = optspec != NULL ? pl_xstrdup(optspec) : NULL;
	r->followed_us = INFINITY;
}

/* (Re)create the placer. */
int
view_run_restart(struct view_run *r)
{
	pl_placer_free(r->pl);
	r->pl = NULL;
	free(r->error);
	r->error = NULL;
	r->running = 0;
	r->pending = 0;
	r->followed_us = INFINITY;
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

void
view_run_free(struct view_run *r)
{
	pl_placer_free(r->pl);
	free(r->optspec);
	free(r->error);
	memset(r, 0, sizeof *r);
}

int
view_run_done(const struct view_run *r)
{
	return r->pl != NULL && r->pl->done;
}

/* Adopt the best placement. */
void
view_run_adopt(struct view_run *r)
{
	if (r->pl == NULL || r->pl->best == NULL) {
		explore_message(r->ex, 1, "no placement yet: step the method first");
		return;
	}
	char *src = pl_xasprintf("%s best", r->cls->name);
	explore_set_placement(r->ex, r->pl->best, src, 0);
	free(src);
	r->ex->dirty = 0;
	r->followed_us = r->pl->best_res.makespan_us;
}

/* Follow an improved best, unless hand edits would be lost. */
static void
follow(struct view_run *r)
{
	if (!r->follow || r->pl->best == NULL)
		return;
	if (!(r->pl->best_res.makespan_us < r->followed_us))
		return;
	r->followed_us = r->pl->best_res.makespan_us;
	if (r->ex->tr != NULL && !pl_result_better(&r->pl->best_res, &r->ex->tr->res))
		return;	/* not better than what is shown: 'a' still adopts it */
	if (r->ex->dirty) {
		explore_message(r->ex, 0, "%s found %.0f us; press a to use it (your edits are unsaved)",
		    r->cls->name, r->pl->best_res.makespan_us);
		r->followed_us = r->pl->best_res.makespan_us;
		return;
	}
	char *src = pl_xasprintf("%s best", r->cls->name);
	explore_set_placement(r->ex, r->pl->best, src, 0);
	free(src);
	r->followed_us = r->pl->best_res.makespan_us;
}

/* Step in a time slice. */
int
view_run_tick(struct view_run *r, double deadline)
{
	if (r->pl == NULL || r->pl->done || (!r->running && r->pending <= 0))
		return 0;
	do {
		enum pl_step_status st = pl_placer_step(r->pl);
		if (r->on_step != NULL)
			r->on_step(r);
		if (r->pending > 0 && (r->stop == NULL || r->stop(r)))
			r->pending--;
		if (st == PL_STEP_ERROR) {
			free(r->error);
			r->error = pl_xstrdup(r->pl->error != NULL ? r->pl->error : "step failed");
		}
		if (st != PL_STEP_MORE) {
			r->running = 0;
			r->pending = 0;
			follow(r);
			return 0;
		}
	} while ((r->running || r->pending > 0) && explore_now() < deadline);
	follow(r);
	return r->running || r->pending > 0;
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

/* A small line chart. */
void
view_chart(WINDOW *w, const struct view_rect *r, int n_series,
    const double *const *ys, int n, const int *roles, const char *glyphs, int times)
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
	screen_printf(w, r->y + h, r->x, lw, 0, "%9d", 0);
	snprintf(buf, sizeof buf, "%d", n - 1);
	screen_put(w, r->y + h, r->x + r->w - (int)strlen(buf), (int)strlen(buf), 0, buf);
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
