/*
 * view-compare — the `placelab compare` table for the current graph,
 * filled in the background: the quick methods run one after another in
 * time slices (keys stay live), each adds its row when it finishes; the
 * current placement (with hand edits) is the last row.  Enter on a row
 * makes that method's placement the current one.
 *
 * Invariant: ex->cmp holds exactly the finished methods, in registry
 * order; `next` is the index of the method running or to run.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "compare.h"
#include "explore.h"
#include "placer.h"
#include "screen.h"
#include "view.h"
#include "xmalloc.h"


struct cmp_view {
	struct explore *ex;
	const struct pl_placer_class **methods;
	int n_methods;
	int next;
	struct view_run run;
	int started, paused;
	int cur, top, rows_h;
	int cur_is_current;	/* the user chose the current placement's row */
	double method_t0;
};

/* Create the view and the (empty) table. */
static void *
cv_init(struct explore *ex)
{
	struct cmp_view *c = pl_xcalloc(1, sizeof *c);
	c->ex = ex;
	char *cause = NULL;
	if (pl_compare_methods(NULL, &c->methods, &cause) != 0) {
		free(cause);
		c->methods = pl_xcalloc(1, sizeof *c->methods);
	}
	while (c->methods[c->n_methods] != NULL)
		c->n_methods++;
	struct pl_run_opts run = { .sim = ex->sim, .seed = ex->opts.seed, .threads = 1 };
	ex->cmp = pl_compare_new(ex->p, &run);
	return c;
}

/* Free the view and the table. */
static void
cv_free(void *priv)
{
	struct cmp_view *c = priv;
	view_run_free(&c->run);
	pl_compare_free(c->ex->cmp);
	c->ex->cmp = NULL;
	free(c->methods);
	free(c);
}

/* Add the row of the method `next` (its placer pl, or why it could not
 * run), keeping the selection on the row the user chose: the current
 * placement's row, always the last one, moves down with it. */
static void
add_row(struct cmp_view *c, const struct pl_placer *pl, const char *why)
{
	struct pl_compare *cmp = c->ex->cmp;
	if (pl != NULL)
		pl_compare_add_placer(cmp, pl);
	else
		pl_compare_add_failure(cmp, c->methods[c->next], why);
	if (c->cur_is_current)
		c->cur = cmp->n_rows;
}

/* Select row k (the current placement's when k is the number of method
 * rows), as the row for the selection to follow. */
static void
select_row(struct cmp_view *c, int k)
{
	c->cur = k;
	c->cur_is_current = k == c->ex->cmp->n_rows;
}

/* Start the next method, if any. */
static void
start_next(struct cmp_view *c)
{
	view_run_free(&c->run);
	if (c->next >= c->n_methods)
		return;
	view_run_init(&c->run, c->ex, c->methods[c->next]->name, NULL);
	if (view_run_restart(&c->run) != 0) {
		add_row(c, NULL, c->run.error);
		c->next++;
		start_next(c);
		return;
	}
	c->run.running = 1;
	c->method_t0 = c->run.pl->search_s;
}

/* Start from scratch. */
static void
restart(struct cmp_view *c)
{
	struct pl_run_opts run = c->ex->cmp->run;
	pl_compare_free(c->ex->cmp);
	c->ex->cmp = pl_compare_new(c->ex->p, &run);
	c->cur = 0;	/* the top row, as when the view opens: the table */
	c->cur_is_current = 0;	/* fills in below it */
	c->next = 0;
	c->started = 1;
	c->paused = 0;
	start_next(c);
}

/* Whether the placement equals the current one. */
static int
is_current(const struct explore *ex, const struct pl_placement *pl)
{
	return pl != NULL && pl_placement_equal(pl, ex->cur);
}

/* A percentage cell, at most 7 columns: past +99999% in powers of ten
 * ("+8e+13%"), so that values of different magnitude never read the
 * same. */
static const char *
pct(char *buf, int len, double v)
{
	if (v == 0)
		v = 0;	/* no "-0.0%" */
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (v >= 99999.5 || v <= -99999.5)
		snprintf(buf, len, "%+.0e%%", v);
	else if (v >= 999.5 || v <= -999.5)
		snprintf(buf, len, "%+.0f%%", v);
	else
		snprintf(buf, len, "%+.1f%%", v);
	return buf;
}

/* A step time in at most 10 columns, its unit kept: whole seconds from
 * 100000 s, then powers of ten. */
static const char *
cell_us(char *buf, int len, double us)
{
	screen_fmt_us(buf, len, us);
	if (strlen(buf) > 10)
		snprintf(buf, len, us < 1e14 ? "%.0f s" : "%.1e s", us / 1e6);
	return buf;
}

/* Bytes in at most 9 columns, its unit kept: "1008.0 MiB" (or
 * "1000.0 MiB", from 999.95) becomes "0.98 GiB". */
static const char *
cell_bytes(char *buf, int len, int64_t b)
{
	static const char *units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	screen_fmt_bytes(buf, len, b);
	if (strlen(buf) <= 9)
		return buf;
	double v = (double)b / 1024;
	int u = 0;
	while (v >= 999.95 && u < 5) {	/* (999.95 prints as 1000.0) */
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, units[u]);
	return buf;
}

/* Draw one row (method row i, or the current placement when i < 0). */
static void
draw_row(struct cmp_view *c, WINDOW *w, int y, int x, int width, int i, int wide)
{
	struct explore *ex = c->ex;
	const struct pl_compare *cmp = ex->cmp;
	char t[32], p1[16], p2[16], p3[16], pk[32], mv[32], s[32];
	int sel = i == c->cur || (i < 0 && c->cur == cmp->n_rows);
	const char *mark = " ";
	struct pl_compare_row cr;
	const struct pl_compare_row *r;
	if (i >= 0) {
		r = &cmp->rows[i];
		if (is_current(ex, r->best))
			mark = screen_utf8() ? "●" : "*";
	} else {
		/* the current placement, with the table's references */
		pl_compare_current_row(cmp, "current", "", &ex->tr->res, &cr);
		r = &cr;
		mark = ">";
	}
	attr_t base = sel ? screen_attr(SCR_SELECT) : i < 0 ? A_BOLD : A_NORMAL;
	wattrset(w, base);
	screen_fill(w, y, x, width, ' ');
	screen_printf(w, y, x, 2, 1, "%s", mark);
	screen_printf(w, y, x + 2, 14, 1, "%s", r == &cr && ex->dirty ? "current*" : r->method);
	if (!r->has_result) {
		screen_printf(w, y, x + 16, width - 16, 1, "no placement: %s", r->status != NULL ? r->status : "?");
		wattrset(w, A_NORMAL);
		if (r == &cr)
			pl_compare_row_free(&cr);
		return;
	}
	if (i >= 0 && i == pl_compare_best(cmp) && !sel)
		wattrset(w, screen_attr(SCR_GOOD));
	screen_printf(w, y, x + 16, 10, 1, "%10s", cell_us(t, sizeof t, r->makespan_us));
	wattrset(w, base);
	/* narrow: no 'to best' (the best step is highlighted) and no evals */
	int cx = x + 26;
	/* the run time's change against the expert, like every other
	 * percentage: negative is faster */
	cx += screen_printf(w, y, cx, 8, 1, " %7s", pct(p1, sizeof p1, r->time_vs_expert_pct));
	if (wide)
		cx += screen_printf(w, y, cx, 8, 1, " %7s", pct(p2, sizeof p2, r->gap_best_pct));
	cx += screen_printf(w, y, cx, 8, 1, " %7s", pct(p3, sizeof p3, r->gap_bound_pct));
	cx += screen_printf(w, y, cx, 10, 1, " %9s",
	    r->mem_known ? cell_bytes(pk, sizeof pk, r->peak_bytes) : "n/a");
	if (r->mem_known && r->oom) {
		wattrset(w, screen_attr(SCR_OOM));
		screen_put(w, y, cx + 1, 3, 1, "OOM");
		wattrset(w, base);
	}
	cx += 4;
	cx += screen_printf(w, y, cx, 10, 1, " %9s", cell_bytes(mv, sizeof mv, r->bytes_moved));
	if (i >= 0)
		cx += screen_printf(w, y, cx, 9, 1, " %8s", explore_fmt_wall(ex, s, sizeof s, r->search_s));
	if (i >= 0 && wide)
		screen_printf(w, y, cx, 9, 1, " %8ld", r->evals);
	wattrset(w, A_NORMAL);
	if (r == &cr)
		pl_compare_row_free(&cr);
}

/* Draw the view. */
static void
cv_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct cmp_view *c = v->priv;
	struct explore *ex = c->ex;
	const struct pl_compare *cmp = ex->cmp;
	char a[32];
	int wide = r->w >= 100;
	int y = r->y;
	if (!c->started)
		screen_printf(w, y, r->x, r->w, 1, "%d quick methods to compare on %s / %s: Space starts",
		    c->n_methods, ex->g->name, ex->c->name);
	else if (c->next < c->n_methods) {
		wattrset(w, screen_attr(c->paused ? SCR_DIM : SCR_KEY));
		screen_printf(w, y, r->x, r->w, 1, "%s %s (%d of %d), %d steps so far%s",
		    c->paused ? "paused at" : "running", c->methods[c->next]->title,
		    c->next + 1, c->n_methods, c->run.steps,
		    c->paused ? ": Space resumes" : "; keys stay live, Space pauses");
		wattrset(w, A_NORMAL);
	} else
		screen_printf(w, y, r->x, r->w, 1, "all %d methods done, simulator %s, lower bound %s",
		    c->n_methods, cmp->sim, screen_fmt_us(a, sizeof a, cmp->bound_us));
	y++;
	wattrset(w, screen_attr(SCR_HEADER));
	screen_printf(w, y, r->x, r->w, 1, "  %-14s%10s %7s%s %7s %9s %3s %9s %8s%s", "method", "step",
	    "vs exp", wide ? " to best" : "", "to bnd", "peak mem", "", "moved", "search",
	    wide ? "    evals" : "");
	wattrset(w, A_NORMAL);
	y++;
	int rows_h = r->y + r->h - 2 - y;
	c->rows_h = rows_h;
	int n = cmp->n_rows + 1;
	if (c->cur >= n)
		c->cur = n - 1;
	if (c->cur < c->top)
		c->top = c->cur;
	if (c->cur >= c->top + rows_h)
		c->top = c->cur - rows_h + 1;
	for (int i = 0; i < rows_h && c->top + i < n; i++) {
		int k = c->top + i;
		draw_row(c, w, y + i, r->x, r->w, k < cmp->n_rows ? k : -1, wide);
	}
	wattrset(w, screen_attr(SCR_DIM));
	screen_put(w, r->y + r->h - 1, r->x, r->w, 1,
	    screen_utf8() ? "Enter uses the row  Space run/pause  r rerun  ● = current  -% = faster" :
	    "Enter uses the row  Space run/pause  r rerun  * = current  -% = faster");
	wattrset(w, A_NORMAL);
}

/* Move, run/pause, rerun, use a row. */
static int
cv_action(struct view *v, enum tui_action a)
{
	struct cmp_view *c = v->priv;
	struct pl_compare *cmp = c->ex->cmp;
	int n = cmp->n_rows + 1;
	switch (a) {
	case ACT_UP: if (c->cur > 0) select_row(c, c->cur - 1); break;
	case ACT_DOWN: if (c->cur < n - 1) select_row(c, c->cur + 1); break;
	case ACT_HOME: case ACT_PAGE_UP: select_row(c, 0); break;
	case ACT_END: case ACT_PAGE_DOWN: select_row(c, n - 1); break;
	case ACT_RUN:
		if (!c->started)
			restart(c);
		else
			c->paused = !c->paused;
		break;
	case ACT_RESTART:
		restart(c);
		break;
	case ACT_ENTER:
		if (c->cur < cmp->n_rows) {
			const struct pl_compare_row *r = &cmp->rows[c->cur];
			if (r->best == NULL) {
				explore_message(c->ex, 1, "%s found no placement", r->title);
				break;
			}
			if (explore_edits_block(c->ex))
				break;
			explore_set_placement(c->ex, r->best, r->method, 0);
			explore_message(c->ex, 0, "the current placement is now %s's", r->title);
		}
		break;
	default:
		return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Click selects a row; a second click uses it. */
static int
cv_click(struct view *v, int y, int x)
{
	struct cmp_view *c = v->priv;
	(void)x;
	int k = c->top + y - 2;
	if (y < 2 || y - 2 >= c->rows_h || k > c->ex->cmp->n_rows)
		return 0;
	if (k == c->cur)
		return cv_action(v, ACT_ENTER);
	select_row(c, k);
	return 1;
}

/* Run methods in the slice. */
static int
cv_tick(struct view *v, double deadline)
{
	struct cmp_view *c = v->priv;
	if (!c->started || c->paused)
		return 0;
	/* once at least, however little of the slice is left: another view
	 * may have taken it */
	for (int once = 1; c->next < c->n_methods && (once || pl_now_s() < deadline); once = 0) {
		view_run_tick(&c->run, deadline, 0);
		if (view_run_busy(&c->run))
			break;
		struct pl_placer *pl = c->run.pl;
		if (pl != NULL && (c->run.done || pl->search_s - c->method_t0 > PL_COMPARE_SECONDS)) {
			if (!pl->done)
				pl_placer_set_status(pl, "stopped after %.0f s", PL_COMPARE_SECONDS);
			add_row(c, pl, NULL);
			c->next++;
			start_next(c);
		}
	}
	return c->next < c->n_methods;
}

/* The first visit starts the comparison. */
static void
cv_shown(struct view *v)
{
	struct cmp_view *c = v->priv;
	if (!c->started)
		restart(c);
}

const struct view_class view_compare_class = {
	.name = "compare",
	.title = "Compare",
	.demo = "Every quick method places the same graph; the table fills in as each "
	    "finishes. 'vs exp' is the change of run time against a human expert's placement (negative = faster), 'to bnd' "
	    "the distance to a provable lower bound. Enter makes a row the current placement.",
	.init = cv_init,
	.free = cv_free,
	.draw = cv_draw,
	.action = cv_action,
	.click = cv_click,
	.tick = cv_tick,
	.shown = cv_shown,
};
