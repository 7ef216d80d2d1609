/*
 * view — the interface every explorer view implements, tmux's window_mode
 * way: a `const struct view_class` of function pointers with designated
 * initializers, one per file (tui/view-*.c).
 *
 * A view reads the explorer's shared state (struct explore, explore.h) and
 * draws itself into the body rectangle it is given; actions arrive by name
 * (enum tui_action) and the view returns what should happen (VIEW_* flags)
 * instead of redrawing itself: the main loop acts on the flags.  Views
 * change the shared state only through explore_*() calls (select an op,
 * set the placement), so every view sees the same selection and placement.
 *
 * Invariant: draw() touches only the rectangle it is given and never
 * changes state; init() may be called before the graph has a trace.
 */
#ifndef TUI_VIEW_H
#define TUI_VIEW_H

#include <curses.h>

#include "action.h"
#include "sim.h"

struct explore;
struct view;

/* The narrowest time window a view zooms to: 1 ns. */
#define VIEW_MIN_SPAN_US 1e-3

/* What a handler wants the main loop to do. */
#define VIEW_UNHANDLED	0
#define VIEW_HANDLED	(1 << 0)
#define VIEW_REDRAW	(1 << 1)

/* The body rectangle a view draws in. */
struct view_rect {
	int y, x, h, w;
};

struct view_class {
	const char *name;		/* "ops": scripted tests and docs */
	const char *title;		/* tab label: "Ops" */
	const char *demo;		/* what the view teaches, for --demo */
	void *(*init)(struct explore *ex);
	void (*free)(void *priv);
	void (*draw)(struct view *v, WINDOW *w, const struct view_rect *r);
	int (*action)(struct view *v, enum tui_action a);
	/* A click at (y, x) inside the body (relative to the rectangle). */
	int (*click)(struct view *v, int y, int x);
	/* The shared placement or trace changed (resimulated). */
	void (*changed)(struct view *v);
	/* The shared selection changed. */
	void (*selected)(struct view *v);
	/* The view became the current one. */
	void (*shown)(struct view *v);
	/* Optional: the status line's key hints while this view is current,
	 * or NULL for the explorer's own. */
	const char *(*hint)(const struct view *v);
	/* Background work: run until the deadline (monotonic seconds); return
	 * 1 if there is more work to do, 0 when idle. */
	int (*tick)(struct view *v, double deadline);
};

struct view {
	const struct view_class *cls;
	struct explore *ex;
	void *priv;
	struct view_rect last;		/* where it was last drawn (for clicks) */
};

/* ---- running a placer in time slices (view-run.c) --------------------- */

struct pl_placer;
struct pl_placer_class;
struct view_run;
typedef void view_run_fn(struct view_run *r);

/*
 * A placer the view drives: created on demand with the explorer's seed,
 * simulator and threads; its steps run on a worker thread, one at a time,
 * while the main loop keeps answering keys and drawing.  Requests: run
 * until done or paused (`running`), or `pending` single steps (each ends
 * when `stop` says so, or after one step without it).
 *
 * Threading contract: while view_run_busy() the worker owns the placer and
 * the main thread must not read it; views draw their last frame then
 * (view_run_frame_save/restore).  on_step, follow and the counters below
 * are updated on the main thread, between steps.  When `follow` is set, a
 * best better than what the explorer shows becomes its current placement
 * while explore_may_follow allows it (the starting placement or this
 * search's own best, no hand edits); 'a' (view_run_adopt) takes it
 * whatever it replaces, unless hand edits would be lost.
 */
struct view_run {
	struct explore *ex;
	const struct pl_placer_class *cls;
	char *optspec;
	struct pl_placer *pl;
	int running;		/* run until done or paused */
	int pending;		/* single steps still requested */
	int (*stop)(struct view_run *r);	/* ends a multi-step request */
	view_run_fn *on_step;	/* after every step (main thread) */
	/* Optional: when the placer's best was found, for its name ("brkga
	 * best of generation 11"): "generation 11" into buf, or "" */
	void (*best_when)(const struct view_run *r, char *buf, size_t n);
	void *arg;		/* for the callbacks */
	int follow;
	struct pl_sim_result seen;	/* the best looked at last (has_seen) */
	int has_seen;
	/* pace while running, for a demo: 0 full speed, else an index of
	 * the steps' minimum spacing (view_run_pace) */
	int pace;
	double paced_at;	/* when the last paced step went out */
	const char *step_noun;	/* "generation", "decision" */
	char *error;
	/* between steps, for the main thread */
	int steps, done;
	/* fresh frames: a view that draws the placer shows one at least every
	 * VIEW_RUN_FRAME_S while running */
	int fresh;
	double drawn_at;
	int collected;		/* steps collected since the last fresh frame */
	WINDOW *frame;
	struct view_rect frame_rect;
	struct view_run_worker *worker;
};

#define VIEW_RUN_FRAME_S 0.1

/* Set up for class `name` (r->cls NULL if this build has none). */
void view_run_init(struct view_run *r, struct explore *ex, const char *name,
    const char *optspec);
/* (Re)create the placer (waits for a step in flight).  0, or -1 with
 * r->error set. */
int view_run_restart(struct view_run *r);
void view_run_free(struct view_run *r);
/* Why method `name` would not start with optspec (a trial placer, made
 * and freed), or NULL when it would.  Caller frees. */
char *view_run_refusal(struct explore *ex, const char *name, const char *optspec);
/* Run steps on the worker until the deadline while there is work; 1 if
 * work remains.  visible: the view is on screen (fresh frames). */
int view_run_tick(struct view_run *r, double deadline, int visible);
/* Whether a step is in flight (the placer must not be read). */
int view_run_busy(struct view_run *r);
/* The run's state as its header names it: "done" (placer_done), "running",
 * "stepping" (steps requested by n or e still to come, between slices)
 * or "paused"; *role is its colour role. */
const char *view_run_state(const struct view_run *r, int placer_done, int *role);
/* Run slower (faster 0) or faster (1) while running, and say so. */
void view_run_pace(struct view_run *r, int faster);
/* The pace as the header shows it ("2 generations/s"), or NULL at full
 * speed. */
const char *view_run_pace_label(const struct view_run *r, char *buf, size_t n);
/* Wait until no step is in flight. */
void view_run_sync(struct view_run *r);
/* Make the placer's best the explorer's current placement. */
void view_run_adopt(struct view_run *r);
/* Keep the frame just drawn in rectangle rc; put it back while busy
 * (returns 0 when there is none of that size). */
void view_run_frame_save(struct view_run *r, WINDOW *w, const struct view_rect *rc);
int view_run_frame_restore(struct view_run *r, WINDOW *w, const struct view_rect *rc);

/* A line chart of up to 4 series of n points in rectangle r, with the
 * value axis labelled as times (us) when times is set.  Series are drawn
 * in order, later ones on top, each with its role and glyph.  The x axis
 * numbers the first and the last point from 0 (view_chart_from: from x0);
 * a single point gets a single number. */
void view_chart(WINDOW *w, const struct view_rect *r, int n_series,
    const double *const *ys, int n, const int *roles, const char *glyphs,
    int times);
void view_chart_from(WINDOW *w, const struct view_rect *r, int n_series,
    const double *const *ys, int n, const int *roles, const char *glyphs,
    int times, int x0);

/* How to draw fewer nodes than the Export view's Detail of max_nodes
 * (0: every op) does, as its refusals advise; NULL when no Detail has
 * that budget. */
const char *view_export_fewer(int max_nodes);

extern const struct view_class view_ops_class;
extern const struct view_class view_timeline_class;
extern const struct view_class view_devices_class;
extern const struct view_class view_placeto_class;
extern const struct view_class view_brkga_class;
extern const struct view_class view_compare_class;
extern const struct view_class view_export_class;

#endif
