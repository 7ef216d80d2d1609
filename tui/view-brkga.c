/*
 * view-brkga — watch REGAL's genetic algorithm evolve: run, pause or step
 * one generation; best, mean and worst fitness per generation as a chart,
 * the population's diversity, evaluations so far, and the elite's run
 * times.  While it runs, each new best becomes the explorer's current
 * placement, so the other views show it.
 *
 * O sets BRKGA's options (as `placelab run -a brkga --opt` takes them)
 * and restarts with them; options BRKGA refuses leave the run as it is.
 *
 * Invariant: the view reads the placer only through core/placers/brkga.h
 * and the generic placer fields; it never changes the placer except by
 * stepping it.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "placer.h"
#include "placers/brkga.h"
#include "screen.h"
#include "view.h"
#include "xmalloc.h"

struct brkga_view {
	struct explore *ex;
	struct view_run run;
	double *series[3];	/* best, mean, worst */
	double *div;
	int cap;
	double start_us;	/* the explorer's run time when the run began */
};

/* The generation that found the placer's best: the first whose best has
 * its run time and peak. */
static void
best_when(const struct view_run *r, char *buf, size_t n)
{
	int ng = 0;
	const struct pl_brkga_gen *h = pl_brkga_history(r->pl, &ng);
	for (int i = 0; i < ng; i++)
		if (h[i].best_makespan_us == r->pl->best_res.makespan_us &&
		    h[i].best_peak_bytes == r->pl->best_res.peak_fullest) {
			snprintf(buf, n, "generation %d", h[i].gen);
			return;
		}
}

/* Create the view (the placer is created on first use). */
static void *
bv_init(struct explore *ex)
{
	struct brkga_view *b = pl_xcalloc(1, sizeof *b);
	b->ex = ex;
	view_run_init(&b->run, ex, "brkga", NULL);
	b->run.follow = 1;
	b->run.best_when = best_when;
	b->run.step_noun = "generation";
	b->run.fresh = 1;
	return b;
}

/* Free the view and its placer. */
static void
bv_free(void *priv)
{
	struct brkga_view *b = priv;
	view_run_free(&b->run);
	for (int i = 0; i < 3; i++)
		free(b->series[i]);
	free(b->div);
	free(b);
}

/* Copy the history into chart series; returns its length. */
static int
history(struct brkga_view *b, const struct pl_brkga_gen **hp)
{
	int n = 0;
	const struct pl_brkga_gen *h = b->run.pl != NULL ? pl_brkga_history(b->run.pl, &n) : NULL;
	*hp = h;
	if (n > b->cap) {
		b->cap = n * 2;
		for (int i = 0; i < 3; i++)
			b->series[i] = pl_xreallocarray(b->series[i], b->cap, sizeof(double));
		b->div = pl_xreallocarray(b->div, b->cap, sizeof(double));
	}
	for (int i = 0; i < n; i++) {
		b->series[0][i] = h[i].best;
		b->series[1][i] = h[i].mean;
		b->series[2][i] = h[i].worst;
		b->div[i] = h[i].diversity;
	}
	return n;
}

/* Whether the objective is a time (runtime objective). */
static int
objective_is_time(const struct brkga_view *b)
{
	if (b->run.pl == NULL || !pl_options_has(b->run.pl->opts, "objective"))
		return 1;
	return strcmp(pl_opt_str(b->run.pl->opts, "objective"), "runtime") == 0;
}

/* Draw the view. */
static void
bv_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct brkga_view *b = v->priv;
	struct explore *ex = b->ex;
	char a1[32], a2[32], a3[32];
	int y = r->y;
	if (b->run.cls == NULL) {
		screen_put(w, y, r->x, r->w, 1, "BRKGA is not in this build.");
		return;
	}
	if (view_run_busy(&b->run)) {
		/* the worker owns the placer: show the last frame */
		if (!view_run_frame_restore(&b->run, w, r))
			screen_fill(w, y, r->x, r->w, ' ');
		wattrset(w, A_BOLD);
		screen_printf(w, y, r->x, r->w, 1, "BRKGA [%s] computing generation %d...",
		    b->run.running ? "running" : "stepping", b->run.steps);
		wattrset(w, A_NORMAL);
		return;
	}
	struct pl_placer *pl = b->run.pl;
	const struct pl_brkga_gen *h = NULL;
	int n = history(b, &h);
	/* status line */
	wattrset(w, A_BOLD);
	int x = screen_put(w, y, r->x, r->w, 0, "BRKGA ");
	wattrset(w, A_NORMAL);
	if (pl == NULL)
		x += screen_put(w, y, r->x + x, r->w - x, 0, "not started: n steps one generation, Space runs");
	else {
		int role;
		const char *state = view_run_state(&b->run, pl->done, &role);
		wattrset(w, screen_attr(role));
		x += screen_printf(w, y, r->x + x, r->w - x, 0, "[%s] ", state);
		char pace[48];
		if (!pl->done && view_run_pace_label(&b->run, pace, sizeof pace) != NULL)
			x += screen_printf(w, y, r->x + x, r->w - x, 0, "%s  ", pace);
		wattrset(w, A_NORMAL);
		x += screen_printf(w, y, r->x + x, r->w - x, 0, "generation %d  %ld evals  %s",
		    n > 0 ? h[n - 1].gen : 0, pl->evals, explore_fmt_wall(ex, a1, sizeof a1, pl->search_s));
		if (pl->best != NULL) {
			wattrset(w, A_BOLD);
			x += screen_printf(w, y, r->x + x, r->w - x, 0, "  best %s",
			    screen_fmt_us(a2, sizeof a2, pl->best_res.makespan_us));
			wattrset(w, A_NORMAL);
			if (pl->best_res.oom_mask) {
				wattrset(w, screen_attr(SCR_OOM));
				x += screen_put(w, y, r->x + x, r->w - x, 0, " OOM ");
				wattrset(w, A_NORMAL);
			}
			/* the run time's change, as everywhere: negative is
			 * faster; shown whole or not at all */
			char vs[48], pct[16];
			snprintf(vs, sizeof vs, " (%s vs run start)",
			    screen_fmt_change(pct, sizeof pct, pl->best_res.makespan_us, b->start_us));
			if (b->start_us > 0 && screen_width(vs) <= r->w - x)
				screen_put(w, y, r->x + x, r->w - x, 0, vs);
		}
	}
	y++;
	if (b->run.error != NULL) {
		wattrset(w, screen_attr(SCR_ERROR));
		screen_put(w, y++, r->x, r->w, 1, b->run.error);
		wattrset(w, A_NORMAL);
	}
	struct pl_brkga_layout lay;
	memset(&lay, 0, sizeof lay);
	if (pl != NULL) {
		pl_brkga_layout(pl, &lay);
		/* the seed comes last: a screen too narrow for the whole line
		 * gets a short form, which keeps it down to about 70 columns */
		const char *obj = pl_options_has(pl->opts, "objective") ?
		    pl_opt_str(pl->opts, "objective") : "runtime";
		char line[256];
		for (int shortf = 0; shortf < 2; shortf++) {
			snprintf(line, sizeof line, shortf ?
			    "%d pop%s of %d (elite %d, mutants %d), %ld genes, %s, seed %llu" :
			    "%d population%s of %d (elite %d, mutants %d), %ld genes, objective %s, seed %llu",
			    lay.n_pops, lay.n_pops == 1 ? "" : "s", lay.pop_size, lay.n_elite, lay.n_mutants,
			    lay.n_genes, obj, (unsigned long long)ex->opts.seed);
			if (screen_width(line) <= r->w)
				break;
		}
		/* the options set with O after it, or on a line of their own */
		char *with = b->run.optspec != NULL ? pl_xasprintf("with %s", b->run.optspec) : NULL;
		char *both = with != NULL ? pl_xasprintf("%s  %s", line, with) : NULL;
		wattrset(w, screen_attr(SCR_DIM));
		if (both != NULL && screen_width(both) <= r->w)
			screen_put(w, y++, r->x, r->w, 1, both);
		else {
			screen_put(w, y++, r->x, r->w, 1, line);
			if (with != NULL)
				screen_put(w, y++, r->x, r->w, 1, with);
		}
		wattrset(w, A_NORMAL);
		free(both);
		free(with);
	}
	/* chart (left) and elite (right) */
	int bottom = r->y + r->h - 3;
	int ew = r->w >= 100 ? 34 : 26;
	struct view_rect cr = { y, r->x, bottom - y, r->w - ew - 1 };
	const double *ys[3] = { b->series[2], b->series[1], b->series[0] };
	int roles[3] = { SCR_DIM, SCR_BAR_ALT, SCR_GOOD };
	wattrset(w, screen_attr(SCR_HEADER));
	screen_put(w, y, r->x + 11, cr.w - 11, 1, "fitness:  * best  o mean  . worst");
	wattrset(w, A_NORMAL);
	cr.y++;
	cr.h--;
	if (n > 0)
		view_chart(w, &cr, 3, ys, n, roles, ".o*", objective_is_time(b));
	else
		view_chart(w, &cr, 0, ys, 0, roles, ".o*", 1);
	int ex0 = r->x + r->w - ew;
	wattrset(w, screen_attr(SCR_HEADER));
	screen_put(w, y, ex0, ew, 1, "elite of population 1");
	wattrset(w, A_NORMAL);
	for (int rank = 0; pl != NULL && rank < lay.n_elite && y + 1 + rank < bottom; rank++) {
		double fit;
		int oom;
		if (pl_brkga_chromosome(pl, 0, rank, &fit, &oom) == NULL)
			break;
		int yy = y + 1 + rank;
		screen_printf(w, yy, ex0, 5, 1, "%3d.", rank + 1);
		wattrset(w, rank == 0 ? screen_attr(SCR_GOOD) : A_NORMAL);
		if (objective_is_time(b))
			screen_printf(w, yy, ex0 + 5, 11, 1, "%10s", screen_fmt_us(a1, sizeof a1, fit));
		else
			screen_printf(w, yy, ex0 + 5, 11, 1, "%10.4g", fit);
		wattrset(w, A_NORMAL);
		if (oom) {
			wattrset(w, screen_attr(SCR_OOM));
			screen_put(w, yy, ex0 + 17, 5, 0, " OOM ");
			wattrset(w, A_NORMAL);
		} else if (n > 0 && isfinite(h[n - 1].best) && h[n - 1].best > 0 && rank > 0)
			screen_printf(w, yy, ex0 + 17, ew - 17, 1, " %+.2f%%", (fit - h[n - 1].best) / h[n - 1].best * 100);
	}
	/* diversity and the last generation */
	y = bottom;
	if (n > 0) {
		const struct pl_brkga_gen *g = &h[n - 1];
		screen_printf(w, y, r->x, r->w, 1, "diversity %.3f (uniform 0.289)  %d of the last generation out of memory",
		    g->diversity, g->n_oom);
		int x0 = r->x + r->w - 24;
		for (int i = 0; r->w >= 100 && i < 22 && i < n; i++) {
			int k = n - 22 + i;
			if (k < 0)
				continue;
			screen_vcell(w, y, x0 + i, (int)(b->div[k] / 0.289 * 8 + 0.5), screen_attr(SCR_BAR_ALT));
		}
		y++;
		char a4[32], line[256];
		/* fields whole or left out, as a narrow screen allows */
		snprintf(line, sizeof line, "best %s (fullest device %s)\tthis generation: mean %s\tworst %s",
		    screen_fmt_us(a1, sizeof a1, g->best_makespan_us),
		    screen_fmt_bytes(a2, sizeof a2, g->best_peak_bytes),
		    objective_is_time(b) ? screen_fmt_us(a3, sizeof a3, g->mean) : "-",
		    objective_is_time(b) ? screen_fmt_us(a4, sizeof a4, g->worst) : "-");
		screen_put_fields(w, y, r->x, r->w, 1, "  ", line);
	}
	wattrset(w, screen_attr(SCR_DIM));
	screen_put_fields(w, r->y + r->h - 1, r->x, r->w, 1, "  ",
	    "n generation\tSpace run/pause\ta use best (followed as it improves)\t+/- speed\tr restart\tO options");
	wattrset(w, A_NORMAL);
	view_run_frame_save(&b->run, w, r);
}

/* (Re)start the run from the explorer's run time.  0, or -1 with the
 * run's error set. */
static int
restart(struct brkga_view *b)
{
	b->start_us = b->ex->tr != NULL ? b->ex->tr->res.makespan_us : 0;
	return view_run_restart(&b->run);
}

/* Start a run if needed. */
static int
ensure(struct brkga_view *b)
{
	if (b->run.pl != NULL)
		return 0;
	return restart(b);
}

/* The options prompt's answer: restart with the options (empty: the
 * defaults) if BRKGA starts with them; if not, keep the options and the
 * run as they are, and say why. */
static void
options_done(struct explore *ex, const char *text, void *arg)
{
	struct brkga_view *b = arg;
	if (text == NULL)
		return;
	const char *spec = *text ? text : NULL;
	char *why = view_run_refusal(ex, "brkga", spec);
	if (why != NULL) {
		explore_message(ex, 1, "Not used (BRKGA keeps its current options): %s", why);
		free(why);
		return;
	}
	free(b->run.optspec);
	b->run.optspec = spec != NULL ? pl_xstrdup(spec) : NULL;
	restart(b);
	explore_message(ex, 0, "BRKGA restarted with %s", spec != NULL ? spec : "the defaults");
}

/* Step, run/pause, restart, options, adopt. */
static int
bv_action(struct view *v, enum tui_action a)
{
	struct brkga_view *b = v->priv;
	switch (a) {
	case ACT_BRKGA_STEP:
		if (ensure(b) == 0) {
			if (b->run.done)
				explore_message(b->ex, 0, "BRKGA has finished its budget; r restarts");
			b->run.running = 0;
			b->run.pending++;
		}
		break;
	case ACT_RUN:
		if (ensure(b) == 0) {
			if (b->run.done)
				explore_message(b->ex, 0, "BRKGA has finished its budget; r restarts");
			b->run.running = !b->run.running;
			b->run.pending = 0;
		}
		break;
	case ACT_RESTART:
		restart(b);
		break;
	case ACT_OPTIONS:
		explore_prompt(b->ex, PROMPT_TEXT, "BRKGA options (k=v,...; empty: defaults): ",
		    b->run.optspec, options_done, b);
		break;
	case ACT_ADOPT:
		view_run_adopt(&b->run);
		break;
	case ACT_SLOWER:
	case ACT_FASTER:
		view_run_pace(&b->run, a == ACT_FASTER);
		break;
	default:
		return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Background generations. */
static int
bv_tick(struct view *v, double deadline)
{
	struct brkga_view *b = v->priv;
	return view_run_tick(&b->run, deadline, &b->ex->views[b->ex->view] == v);
}

const struct view_class view_brkga_class = {
	.name = "brkga",
	.title = "BRKGA",
	.demo = "A genetic algorithm: a population of candidate placements; the best (elite) "
	    "survive, children mix an elite and a random parent, mutants bring new genes. "
	    "Watch the best (*) fall generation by generation; diversity shows how much "
	    "the population still explores.",
	.init = bv_init,
	.free = bv_free,
	.draw = bv_draw,
	.action = bv_action,
	.tick = bv_tick,
};
