/*
 * view-export — choose what to write (placement diagram, timeline,
 * comparison table, placement file), the format, the detail and the path;
 * see a preview of the text that will be written; write it through viz/
 * (plv_export) or core (compare writers, placement JSON), atomically.
 *
 * Invariant: the preview is rendered from the settings, the current
 * placement and the comparison table; any change of them marks it stale
 * (the table is compared with the preview every tick) and the next tick
 * renders it again.  A path typed with a format's suffix follows the
 * format chosen, and nothing is written under another format's suffix or
 * from a comparison that still has methods to come.
 * Graphviz layout cannot be sliced and can take long on big graphs, so
 * diagrams and timelines are rendered (and written) on a worker thread
 * from its own copy of the placement and its own trace: the explorer stays
 * live, and a result whose settings changed meanwhile is thrown away.  A
 * placement file's preview is made there too (half a million priorities
 * take about a second to write out).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "clock.h"
#include "compare.h"
#include "explore.h"
#include "fileio.h"
#include "io.h"
#include "placer.h"
#include "screen.h"
#include "view.h"
#include "viz/diagram.h"
#include "viz/export.h"
#include "xmalloc.h"

enum what { W_DIAGRAM, W_TIMELINE, W_TABLE, W_PLACEMENT, W_COUNT };
static const char *const what_names[W_COUNT] = {
	"placement diagram", "timeline", "comparison table", "placement file",
};
/* Formats per kind; the first is the default. */
static const char *const formats[W_COUNT][6] = {
	{ "svg", "pdf", "png", "dot", NULL },
	{ "svg", "pdf", "png", NULL },
	{ "md", "tex", "csv", "json", "table", NULL },
	{ "json", NULL },
};
/* max nodes (0: every op); the first, the default, is the command line's */
static const int details[] = { PLV_DEFAULT_MAX_NODES, 0, 100, 200, 400 };
#define N_DETAILS ((int)(sizeof details / sizeof details[0]))

enum field { F_WHAT, F_FORMAT, F_DETAIL, F_PATH, F_WRITE, F_COUNT };

/* A Graphviz rendering on a worker thread (see the invariant). */
struct job {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int finished;
	const struct pl_problem *p;	/* read only, shared */
	struct pl_sim_opts sim;
	struct pl_placement *pl;	/* the job's own copy */
	struct plv_opts o;
	char *path;			/* write here; NULL: preview */
	unsigned gen;			/* settings generation it renders */
	int nodes;			/* a preview's: the nodes its diagram lays out */
	int placement;			/* a placement file's text, not a picture */
	int rc;
	char *data;
	size_t len;
	char *cause;
	double took;
	struct job *next;		/* the next write waiting to start */
};

struct export_view {
	struct explore *ex;
	int what, format, detail;
	int field;
	char *path;		/* (the view's own) */
	int path_custom;	/* the user typed the path */
	int stale;
	unsigned gen;		/* bumped by every change of settings or placement */
	struct job *job;	/* a rendering in flight, or NULL */
	struct job *pending;	/* writes asked for while a job ran, not started,
				 * in order: the settings, placement and path
				 * of their x */
	char *preview;		/* text, or NULL */
	size_t preview_len;
	char *preview_note;	/* '\t'-separated fields, by rank
				 * (see preview_title()) */
	int preview_lead;	/* its fields that outrank the way to scroll
				 * sideways: what the preview is, a warning */
	int preview_nodes;	/* nodes the preview's diagram lays out, or 0 */
	int preview_n;		/* its lines (counted by preview_note()), */
	int preview_top;	/* the first shown, */
	int preview_h;		/* how many show (the last draw) */
	int preview_wide;	/* its widest line, in columns; */
	int preview_left;	/* the columns scrolled past, */
	int preview_w;		/* how many show (the last draw) */
	int keep_place;		/* the next preview keeps top and left (only
				 * the table's contents changed) */
};

/* Scroll the preview to line top, kept so that its last page fills the
 * area (Page Down stops at the end). */
static void
preview_scroll(struct export_view *e, int top)
{
	int n = e->preview != NULL ? e->preview_n : 0;
	int last = n - (e->preview_h > 0 ? e->preview_h : 1);
	if (top > last)
		top = last;
	e->preview_top = top > 0 ? top : 0;
}

/* Scroll the preview sideways to column left, kept so that its widest
 * line's end reaches the area's right edge, no further. */
static void
preview_hscroll(struct export_view *e, int left)
{
	int last = e->preview != NULL ? e->preview_wide - (e->preview_w > 0 ? e->preview_w : 1) : 0;
	if (left > last)
		left = last;
	e->preview_left = left > 0 ? left : 0;
}

/* The settings or the placement changed. */
static void
mark_stale(struct export_view *e)
{
	e->stale = 1;
	e->gen++;
	e->preview_nodes = 0;
	e->keep_place = 0;
}

/*
 * How to draw fewer nodes, in the explorer's terms, from each Detail: the
 * next smaller node budget, or only the dot format from the smallest.
 * Filled once (fewer_once) and read by the render jobs.
 */
static char fewer_text[N_DETAILS][96];
static pthread_once_t fewer_once = PTHREAD_ONCE_INIT;

/* Fill fewer_text. */
static void
fewer_init(void)
{
	for (int i = 0; i < N_DETAILS; i++) {
		int next = 0;	/* the largest budget below Detail i's */
		for (int j = 0; j < N_DETAILS; j++)
			if (details[j] > 0 && (details[i] == 0 || details[j] < details[i]) &&
			    details[j] > next)
				next = details[j];
		if (next > 0)
			snprintf(fewer_text[i], sizeof fewer_text[i],
			    "pick a Detail of <=%d nodes%s, or the dot format", next,
			    details[i] == 0 ? " or fewer" : "");
		else
			snprintf(fewer_text[i], sizeof fewer_text[i], "pick the dot format");
	}
}

/* How to draw fewer nodes than Detail i does. */
static const char *
fewer_nodes(int i)
{
	pthread_once(&fewer_once, fewer_init);
	return fewer_text[i];
}

/* How to draw fewer nodes than the Detail of max_nodes (0: every op)
 * does; NULL when no Detail has that budget. */
const char *
view_export_fewer(int max_nodes)
{
	for (int i = 0; i < N_DETAILS; i++)
		if (details[i] == max_nodes)
			return fewer_nodes(i);
	return NULL;
}

/* The worker: trace its placement and render. */
static void *
job_main(void *arg)
{
	struct job *j = arg;
	double t0 = pl_now_s();
	char *cause = NULL;
	struct pl_trace *tr = NULL;
	int rc = -1;
	if (j->placement) {
		j->data = pl_placement_to_json(j->pl, j->p->g, j->p->c);
		j->len = strlen(j->data);
		rc = 0;
	} else if ((tr = pl_sim_trace(j->p, j->pl, &j->sim, &cause)) != NULL) {
		if (j->path != NULL)
			rc = plv_export(j->p, j->pl, tr, &j->o, j->path, &cause);
		else
			rc = plv_export_data_counted(j->p, j->pl, tr, &j->o, &j->data, &j->len,
			    &j->nodes, &cause);
		pl_trace_free(tr);
	}
	pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->cause = cause;
	j->took = pl_now_s() - t0;
	j->finished = 1;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* A rendering of the current placement with options o (path NULL: a
 * preview), not started. */
static struct job *
job_new(struct export_view *e, const struct plv_opts *o, const char *path)
{
	struct job *j = pl_xcalloc(1, sizeof *j);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	j->p = e->ex->p;
	j->sim = e->ex->sim;
	j->pl = pl_placement_clone(e->ex->cur);
	j->o = *o;
	j->path = path != NULL ? pl_xstrdup(path) : NULL;
	j->gen = e->gen;
	return j;
}

/* Start job j on the worker (no job in flight). */
static void
job_run(struct export_view *e, struct job *j)
{
	if (pthread_create(&j->th, NULL, job_main, j) != 0) {
		fprintf(stderr, "placelab: cannot start a worker thread\n");
		abort();
	}
	e->job = j;
}

/* Wait for the job until the deadline; 1 when it has finished. */
static int
job_wait(struct job *j, double deadline)
{
	struct timespec ts;
	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	pthread_mutex_lock(&j->mu);
	while (!j->finished)
		if (pthread_cond_timedwait(&j->cv, &j->mu, &ts) != 0)
			break;
	int done = j->finished;
	pthread_mutex_unlock(&j->mu);
	return done;
}

/* Free a job that never started. */
static void
job_discard(struct job *j)
{
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	pl_placement_free(j->pl);
	free(j->path);
	free(j->data);
	free(j->cause);
	free(j);
}

/* Free a finished job. */
static void
job_free(struct job *j)
{
	pthread_join(j->th, NULL);
	job_discard(j);
}

/* Say how a finished write went: on the status line, or on stderr when
 * the explorer is closing (ex NULL). */
static void
report_write(struct explore *ex, const struct job *j)
{
	struct stat st;
	char b[32];
	const char *size = stat(j->path, &st) == 0 ? screen_fmt_bytes(b, sizeof b, st.st_size) : "?";
	const char *cause = j->cause != NULL ? j->cause : "?";
	if (ex == NULL && j->rc != 0)
		fprintf(stderr, "placelab: %s not written: %s\n", j->path, cause);
	else if (ex == NULL)
		fprintf(stderr, "placelab: wrote %s (%s)\n", j->path, size);
	else if (j->rc != 0)
		explore_message(ex, 1, "not written: %s", cause);
	else
		explore_message(ex, 0, "wrote %s (%s)", j->path, size);
}

/* The suffix format i of kind `what` is written with. */
static const char *
format_ext(int what, int i)
{
	return strcmp(formats[what][i], "table") == 0 ? "txt" : formats[what][i];
}

/* The format of kind `what` that path's suffix names ("gv" is DOT), or
 * -1. */
static int
format_of_path(int what, const char *path)
{
	const char *ext = plv_path_suffix(path);
	if (ext == NULL)
		return -1;
	if (strcasecmp(ext, "gv") == 0)
		ext = "dot";
	for (int i = 0; formats[what][i] != NULL; i++)
		if (strcasecmp(ext, format_ext(what, i)) == 0)
			return i;
	return -1;
}

/* Whether path's suffix names a format of any kind. */
static int
known_suffix(const char *path)
{
	for (int w = 0; w < W_COUNT; w++)
		if (format_of_path(w, path) >= 0)
			return 1;
	return 0;
}

/* The path for the settings: the default name, or a typed path whose
 * suffix names a format, with the chosen format's suffix. */
static void
settings_path(struct export_view *e)
{
	const char *ext = format_ext(e->what, e->format);
	if (e->path_custom) {
		if (!known_suffix(e->path))
			return;
		int stem = (int)(plv_path_suffix(e->path) - e->path);
		char *path = pl_xasprintf("%.*s%s", stem, e->path, ext);
		free(e->path);
		e->path = path;
		return;
	}
	/* one safe name, as w's; a placement file is named as w names it */
	static const char *const stem[W_COUNT] = { "-placement", "-timeline", "-compare", ".placement" };
	char *base = explore_file_stem(e->ex);
	free(e->path);
	e->path = pl_xasprintf("%s%s.%s", base, stem[e->what], ext);
	free(base);
}

/* Create the view with the defaults. */
static void *
ev_init(struct explore *ex)
{
	struct export_view *e = pl_xcalloc(1, sizeof *e);
	e->ex = ex;
	mark_stale(e);
	settings_path(e);
	return e;
}

/* Free the view. */
static void
ev_free(void *priv)
{
	struct export_view *e = priv;
	/* ^C or a hangup: the write under way ends, none more starts */
	int interrupted = e->ex->interrupted || e->ex->hangup;
	if (e->job != NULL && (e->job->path != NULL || (e->pending != NULL && !interrupted))) {
		/* a write asked for is done before the explorer goes (its
		 * diagram is within the node budget, so Graphviz ends) */
		if (e->job->path != NULL)
			fprintf(stderr, "placelab: finishing the write of %s\n", e->job->path);
		while (!job_wait(e->job, pl_now_s() + 1))
			;
		if (e->job->path != NULL)
			report_write(NULL, e->job);
		job_free(e->job);
		e->job = NULL;
	}
	while (e->pending != NULL) {	/* on this thread, one at a time */
		struct job *j = e->pending;
		e->pending = j->next;
		if (interrupted)
			fprintf(stderr, "placelab: %s not written (interrupted before it started)\n", j->path);
		else {
			fprintf(stderr, "placelab: writing %s before quitting\n", j->path);
			job_main(j);
			report_write(NULL, j);
		}
		job_discard(j);
	}
	if (e->job != NULL) {
		if (job_wait(e->job, pl_now_s() + 0.5))
			job_free(e->job);
		else {
			/* a rendering (Graphviz's, a placement file's) cannot
			 * be stopped: leave the worker to the process's exit,
			 * with the inputs it reads */
			pthread_detach(e->job->th);
			e->ex->keep_inputs = 1;
		}
	}
	free(e->preview);
	free(e->preview_note);
	free(e->path);
	free(e);
}

/* Fill viz options from the settings. */
static void
viz_opts(const struct export_view *e, struct plv_opts *o, int for_preview)
{
	plv_opts_init(o);
	int f = plv_format_parse(formats[e->what][e->format]);
	o->format = f >= 0 ? (enum plv_format)f : PLV_FMT_SVG;
	if (for_preview && e->what == W_DIAGRAM)
		o->format = PLV_FMT_DOT;
	if (for_preview && e->what == W_TIMELINE)
		o->format = PLV_FMT_SVG;
	o->timeline = e->what == W_TIMELINE;
	o->max_nodes = details[e->detail];
	o->fewer = fewer_nodes(e->detail);
}

/*
 * How far the comparison is: NULL when every method the Compare view runs
 * (the quick ones, pl_compare_methods(NULL), which it adds in that order
 * as each finishes) has its row, else "N of M methods so far (X to
 * come)" or "(X and K more to come)".  Caller frees.
 */
static char *
table_progress(const struct pl_compare *cmp)
{
	const struct pl_placer_class **cls;
	char *cause = NULL;
	if (pl_compare_methods(NULL, &cls, &cause) != 0) {
		free(cause);
		return NULL;
	}
	int all = 0, done = 0, first = -1;
	for (; cls[all] != NULL; all++) {
		int found = 0;
		for (int r = 0; r < cmp->n_rows && !found; r++)
			found = strcmp(cmp->rows[r].method, cls[all]->name) == 0;
		done += found;
		if (!found && first < 0)
			first = all;
	}
	char *s = NULL;
	if (first >= 0 && all - done > 1)
		s = pl_xasprintf("%d of %d methods so far (%s and %d more to come)", done, all,
		    cls[first]->title, all - done - 1);
	else if (first >= 0)
		s = pl_xasprintf("%d of %d methods so far (%s to come)", done, all, cls[first]->title);
	free(cls);
	return s;
}

/* Render a comparison table for the settings (the rest renders on the
 * worker).  0 or -1. */
static int
render(struct export_view *e, char **data, size_t *len, char **cause)
{
	struct explore *ex = e->ex;
	*data = NULL;
	*len = 0;
	if (e->what == W_TABLE) {
		if (ex->cmp == NULL || ex->cmp->n_rows == 0) {
			*cause = pl_xstrdup("the comparison table is empty: open Compare (6) and let it run");
			return -1;
		}
		int f = pl_compare_format_parse(formats[e->what][e->format]);
		FILE *m = open_memstream(data, len);
		if (m == NULL) {
			*cause = pl_xstrdup("out of memory");
			return -1;
		}
		/* the current placement as the last row, as Compare shows
		 * it, unless it is a method's */
		int found = 0;
		for (int i = 0; i < ex->cmp->n_rows && !found; i++)
			found = ex->cmp->rows[i].best != NULL &&
			    pl_placement_equal(ex->cmp->rows[i].best, ex->cur);
		struct pl_compare_row cur;
		if (!found) {
			char *status = pl_xasprintf("the explorer's placement: %s%s", ex->source,
			    ex->dirty ? ", edited" : "");
			pl_compare_current_row(ex->cmp, ex->dirty ? "current (edited)" : "current",
			    status, &ex->tr->res, &cur);
			free(status);
		}
		pl_compare_write_with(ex->cmp, found ? NULL : &cur, (enum pl_compare_format)f, m);
		if (!found)
			pl_compare_row_free(&cur);
		fclose(m);
		/* open_memstream allocates with malloc; copy into our allocator */
		char *copy = pl_xstrndup(*data, *len);
		free(*data);
		*data = copy;
		return 0;
	}
	*cause = pl_xstrdup("diagrams and placement files render on the worker");
	return -1;
}

/* Describe preview text of len bytes rendered in `took` seconds. */
static void
preview_note(struct export_view *e, size_t len, double took)
{
	char b[32], t[32];
	int lines = 0;
	e->preview_wide = 0;
	for (size_t i = 0; i < len; i++) {	/* (a tab shows as one blank) */
		size_t j = i;
		int plain = 1;	/* printable ASCII: a column a byte */
		while (j < len && e->preview[j] != '\n') {
			unsigned char ch = (unsigned char)e->preview[j++];
			plain &= ch >= 0x20 && ch < 0x7f;
		}
		int cols = (int)(j - i);
		if (!plain) {
			char *line = pl_xstrndup(e->preview + i, j - i);
			cols = screen_width(line);
			free(line);
		}
		if (cols > e->preview_wide)
			e->preview_wide = cols;
		lines += j < len;
		i = j;
	}
	e->preview_n = lines + (len > 0 && e->preview[len - 1] != '\n');	/* (an unended last line) */
	const char *fmt = formats[e->what][e->format];
	char *progress = e->what == W_TABLE ? table_progress(e->ex->cmp) : NULL;
	free(e->preview_note);
	e->preview_lead = 1;
	if (progress != NULL)
		e->preview_note = pl_xasprintf("%s; written once all are in", progress);
	else if (e->what == W_DIAGRAM && strcmp(fmt, "dot") != 0 &&
	    e->preview_nodes > PLV_MAX_LAYOUT_NODES) {
		/* the warning: x will refuse it */
		e->preview_lead = 2;
		e->preview_note = pl_xasprintf("the Graphviz source of the %s\t%d nodes: too many "
		    "to lay out\t%s\t%d lines", fmt, e->preview_nodes,
		    screen_fmt_bytes(b, sizeof b, (int64_t)len), lines);
	} else if (e->what == W_DIAGRAM && strcmp(fmt, "dot") != 0)
		e->preview_note = pl_xasprintf("the Graphviz source of the %s\t%s\t%d lines\tmade in %s",
		    fmt, screen_fmt_bytes(b, sizeof b, (int64_t)len), lines,
		    explore_fmt_wall(e->ex, t, sizeof t, took));
	else if (e->what == W_TIMELINE && strcmp(fmt, "svg") != 0)
		e->preview_note = pl_xasprintf("the SVG the %s is made from\t%s\t%d lines", fmt,
		    screen_fmt_bytes(b, sizeof b, (int64_t)len), lines);
	else
		e->preview_note = pl_xasprintf("%s\t%d lines", screen_fmt_bytes(b, sizeof b, (int64_t)len), lines);
	free(progress);
	e->preview_len = len;
}

/* Make the preview: tables here, pictures and placement files on the
 * worker. */
static void
make_preview(struct export_view *e)
{
	if (!e->keep_place)
		e->preview_top = e->preview_left = 0;
	e->keep_place = 0;
	if (e->what == W_DIAGRAM || e->what == W_TIMELINE || e->what == W_PLACEMENT) {
		if (e->job != NULL)
			return;		/* collected first; it may be stale */
		struct plv_opts o;
		viz_opts(e, &o, 1);
		struct job *j = job_new(e, &o, NULL);
		j->placement = e->what == W_PLACEMENT;
		job_run(e, j);
		return;
	}
	free(e->preview);
	free(e->preview_note);
	e->preview = NULL;
	e->preview_note = NULL;
	char *cause = NULL;
	size_t len;
	if (render(e, &e->preview, &len, &cause) != 0) {
		e->preview_note = pl_xasprintf("cannot render: %s", cause != NULL ? cause : "?");
		e->preview_lead = 1;
		free(cause);
		e->stale = 0;
		return;
	}
	preview_note(e, len, 0);
	e->stale = 0;
}

/* A table preview no longer showing the comparison table is stale (the
 * Compare view fills the table in the background). */
static void
check_table(struct export_view *e)
{
	if (e->what != W_TABLE || e->stale)
		return;
	char *data = NULL, *cause = NULL;
	size_t len;
	int same;
	if (render(e, &data, &len, &cause) != 0)
		same = e->preview == NULL;
	else
		same = e->preview != NULL && len == e->preview_len &&
		    memcmp(data, e->preview, len) == 0;
	free(data);
	free(cause);
	if (!same) {
		mark_stale(e);
		e->keep_place = 1;	/* a row filled in: the reader stays put */
	}
}

/* Draw a field row. */
static void
draw_field(struct export_view *e, WINDOW *w, int y, int x, int width, int f,
    const char *label, const char *const *values, int n, int on)
{
	int sel = e->field == f;
	wattrset(w, sel ? screen_attr(SCR_SELECT) : A_BOLD);
	screen_printf(w, y, x, 9, 1, " %s", label);
	wattrset(w, A_NORMAL);
	int cx = x + 10;
	for (int i = 0; i < n && cx < x + width; i++) {
		char cell[64];
		snprintf(cell, sizeof cell, i == on ? "[%s]" : " %s ", values[i]);
		wattrset(w, i == on ? (sel ? screen_attr(SCR_KEY) | A_REVERSE : screen_attr(SCR_KEY)) : A_NORMAL);
		cx += screen_put(w, y, cx, x + width - cx, 0, cell);
		wattrset(w, A_NORMAL);
		cx += screen_put(w, y, cx, x + width - cx, 0, " ");
	}
}

/* Columns text takes with each '\t' shown as ", ". */
static int
title_width(const char *s)
{
	int w = screen_width(s);	/* (a tab counts one) */
	for (const char *q = s; (q = strchr(q, '\t')) != NULL; q++)
		w++;
	return w;
}

#define SCROLL_KEYS "< > scroll"

/* The preview's title in width columns, for screen_put_fields():
 * " Preview: ", note's fields, then cols (the columns shown and
 * SCROLL_KEYS; "" when all shows), '\t' between fields.  When not all of
 * it fits, the fields go by rank: note's first `lead` fields (what the
 * preview is and any warning, such as that x refuses a diagram too big to
 * lay out; the first cut short to leave the others room), then the way to
 * the rest of a wide line (SCROLL_KEYS alone when the columns do not fit
 * too), then the size, lines and time.  Caller frees. */
static char *
preview_title(const char *note, int lead, const char *cols, int width)
{
	char *title = pl_xasprintf(" Preview: %s%s%s", note, *cols != '\0' ? "\t" : "", cols);
	if (title_width(title) <= width)
		return title;
	free(title);
	size_t head = 0;	/* the bytes of the lead fields */
	for (int i = 0; i < lead && note[head] != '\0'; i++)
		head += (i > 0) + strcspn(note + head + (i > 0), "\t");
	size_t first = strlen(" Preview: ") + strcspn(note, "\t");
	char *top = pl_xasprintf(" Preview: %.*s", (int)head, note);
	int over = title_width(top) - width;
	if (over > 0 && first < strlen(top)) {
		const char *more = screen_utf8() ? "\u2026" : "...";
		char *f = pl_xstrndup(top, first);
		int keep = screen_width(f) - over - screen_width(more);
		if (keep > 0) {
			char *cut = pl_xasprintf("%.*s%s%s", (int)screen_head(f, keep), f, more, top + first);
			free(top);
			top = cut;
		}
		free(f);
	}
	const char *hint = *cols != '\0' && title_width(top) + 2 + screen_width(cols) > width ?
	    SCROLL_KEYS : cols;
	title = pl_xasprintf("%s%s%s%s", top, *hint != '\0' ? "\t" : "", hint, note + head);
	free(top);
	return title;
}

/* Draw the view. */
static void
ev_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct export_view *e = v->priv;
	int y = r->y;
	draw_field(e, w, y++, r->x, r->w, F_WHAT, "What", what_names, W_COUNT, e->what);
	int nf = 0;
	while (formats[e->what][nf] != NULL)
		nf++;
	draw_field(e, w, y++, r->x, r->w, F_FORMAT, "Format", formats[e->what], nf, e->format);
	char first[32];
	snprintf(first, sizeof first, "<=%d nodes", details[0]);
	const char *const dnames[N_DETAILS] = { first, "every op", "<=100", "<=200", "<=400" };
	if (e->what == W_DIAGRAM)
		draw_field(e, w, y, r->x, r->w, F_DETAIL, "Detail", dnames, N_DETAILS, e->detail);
	else {
		wattrset(w, screen_attr(SCR_DIM));
		screen_put(w, y, r->x, r->w, 1, " Detail   (diagrams only)");
		wattrset(w, A_NORMAL);
	}
	y++;
	wattrset(w, e->field == F_PATH ? screen_attr(SCR_SELECT) : A_BOLD);
	screen_put(w, y, r->x, 10, 1, " Path");
	wattrset(w, A_NORMAL);
	/* a long path shows its end (the name and suffix) after an ellipsis */
	const char *edits = e->field == F_PATH ? "   (Enter edits)" : "";
	int px = r->x + 10 + screen_put_name(w, y, r->x + 10, r->w - 10 - screen_width(edits), 0, e->path);
	screen_put(w, y++, px, r->w - (px - r->x), 1, edits);
	wattrset(w, e->field == F_WRITE ? screen_attr(SCR_SELECT) : screen_attr(SCR_KEY));
	screen_put(w, y, r->x + 10, 9, 0, "[ Write ]");
	wattrset(w, A_NORMAL);
	screen_put(w, y++, r->x + 20, r->w - 20, 1, " x or Enter writes (atomically)");
	wattrset(w, screen_attr(SCR_DIM));
	screen_hline(w, y, r->x, r->w);
	wattrset(w, screen_attr(SCR_HEADER));
	/* the note's fields shown whole or left out, by rank when not all
	 * fit (preview_title()); lines wider than the area say how to see
	 * the rest */
	e->preview_w = r->w - 1;
	preview_hscroll(e, e->preview_left);	/* (the area may have grown) */
	int wide = !e->stale && e->preview != NULL && e->preview_wide > e->preview_w;
	char cols[96] = "";
	if (wide)
		snprintf(cols, sizeof cols, "columns %d-%d of %d, " SCROLL_KEYS, e->preview_left + 1,
		    e->preview_left + e->preview_w, e->preview_wide);
	const char *note = !e->stale ? (e->preview_note != NULL ? e->preview_note : "") :
	    e->what == W_PLACEMENT ? "rendering (keys stay live)..." :
	    e->what == W_TABLE ? "rendering..." : "rendering (Graphviz; keys stay live)...";
	char *title = preview_title(note, e->stale ? 1 : e->preview_lead, cols, r->w - 5);
	int tw = screen_put_fields(w, y, r->x + 2, r->w - 5, 0, ", ", title);
	screen_put(w, y++, r->x + 2 + tw, 1, 0, " ");
	free(title);
	wattrset(w, A_NORMAL);
	if (e->preview == NULL || e->stale)
		return;
	e->preview_h = r->y + r->h - y;
	preview_scroll(e, e->preview_top);	/* (the area may have grown) */
	const char *p = e->preview;
	for (int skip = 0; skip < e->preview_top && p != NULL; skip++) {
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	for (; y < r->y + r->h && p != NULL && *p; y++) {
		const char *nl = strchr(p, '\n');
		size_t l = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char *line = pl_xstrndup(p, l);
		for (char *q = line; *q; q++)
			if (*q == '\t')
				*q = ' ';
		/* the columns scrolled past; the half of a wide character
		 * they cut shows as a blank */
		size_t h = screen_head(line, e->preview_left);
		char c = line[h];
		line[h] = '\0';
		int gap = e->preview_left - screen_width(line) > 0 && c != '\0';
		line[h] = c;
		if (gap) {
			h += screen_head(line + h, 2);
			screen_put(w, y, r->x + 1, 1, 1, "");
		}
		screen_put(w, y, r->x + 1 + gap, r->w - 1 - gap, 1, line + h);
		free(line);
		p = nl != NULL ? nl + 1 : NULL;
	}
}

/* Why the settings must not be written (caller frees), or NULL: a path
 * named for another format, or a comparison with methods to come. */
static char *
write_refusal(const struct export_view *e)
{
	char *clash = explore_input_clash(e->ex, e->path);
	if (clash != NULL)
		return clash;
	/* a diagram or timeline waits its turn; anything else would be
	 * written now and replaced by the export still to come */
	if (e->what != W_DIAGRAM && e->what != W_TIMELINE && explore_writing(e->ex, e->path))
		return pl_xasprintf("an export is still writing %s (wait for it, or choose another name)", e->path);
	if (known_suffix(e->path) && format_of_path(e->what, e->path) != e->format)
		return pl_xasprintf("%s does not end in .%s", e->path, format_ext(e->what, e->format));
	char *big = !e->stale && e->what == W_DIAGRAM && strcmp(formats[e->what][e->format], "dot") != 0 ?
	    plv_too_many_nodes(e->preview_nodes, fewer_nodes(e->detail)) : NULL;
	if (big != NULL)
		return big;
	char *progress = e->what == W_TABLE && e->ex->cmp != NULL ? table_progress(e->ex->cmp) : NULL;
	if (progress == NULL)
		return NULL;
	char *why = pl_xasprintf("%s: wait for Compare (6)", progress);
	free(progress);
	return why;
}

/* Write the file now. */
static void
write_now(struct export_view *e)
{
	struct explore *ex = e->ex;
	char *cause = write_refusal(e);
	int rc;
	if (cause != NULL) {
		explore_message(ex, 1, "not written: %s", cause);
		free(cause);
		return;
	}
	if (e->what == W_DIAGRAM || e->what == W_TIMELINE) {
		/* a placement the file holds is not held while the write
		 * runs (quitting asks first), and in it no more once written */
		explore_write_begin(ex, e->path);
		/* on the worker, after the rendering in flight if any, with
		 * what is shown now (later changes are for the next write) */
		struct plv_opts o;
		viz_opts(e, &o, 0);
		struct job *j = job_new(e, &o, e->path);
		if (e->job == NULL)
			job_run(e, j);
		else {	/* after the others waiting */
			struct job **at = &e->pending;
			while (*at != NULL)
				at = &(*at)->next;
			*at = j;
		}
		ex->busy = 1;
		explore_message(ex, 0, "writing %s (Graphviz lays it out; keys stay live)", e->path);
		return;
	} else if (e->what == W_PLACEMENT) {
		rc = pl_placement_save_json(ex->cur, ex->g, ex->c, e->path, &cause);
		if (rc == 0)
			explore_saved_to(ex, e->path);
	} else {
		char *data;
		size_t len;
		rc = render(e, &data, &len, &cause);
		if (rc == 0) {
			rc = pl_file_write_atomic(e->path, data, len, &cause);
			free(data);
		}
		if (rc == 0)	/* a placement the file held is in it no more */
			explore_file_replaced(ex, e->path);
	}
	if (rc != 0) {
		explore_message(ex, 1, "not written: %s", cause != NULL ? cause : "?");
		free(cause);
		return;
	}
	struct stat st;
	char b[32];
	explore_message(ex, 0, "wrote %s (%s)", e->path,
	    stat(e->path, &st) == 0 ? screen_fmt_bytes(b, sizeof b, st.st_size) : "?");
}

/* Answer to "overwrite?". */
static void
overwrite_done(struct explore *ex, const char *text, void *arg)
{
	struct export_view *e = arg;
	if (explore_said_yes(text))
		write_now(e);
	else	/* the last "wrote" must not stand for this answer */
		explore_message(ex, 0, "not written: %s kept as it was", e->path);
}

/* Write, asking before replacing a file (not before a refusal). */
static void
do_write(struct export_view *e)
{
	struct stat st;
	char *why = write_refusal(e);
	int ask = why == NULL && (stat(e->path, &st) == 0 || explore_writing(e->ex, e->path));
	free(why);
	if (ask) {
		explore_ask_overwrite(e->ex, e->path, overwrite_done, e);
		return;
	}
	write_now(e);		/* says why when it must not write */
}

/* The path prompt's answer. */
static void
path_done(struct explore *ex, const char *text, void *arg)
{
	struct export_view *e = arg;
	if (text == NULL)	/* cancelled */
		return;
	if (*text == '\0') {
		explore_message(ex, 1, "the path is unchanged: no file name given");
		return;
	}
	free(e->path);
	e->path = pl_xstrdup(text);
	e->path_custom = 1;
	int f = format_of_path(e->what, text);
	if (f >= 0)
		e->format = f;
	mark_stale(e);
}

/* Change the selected field's value. */
static void
cycle(struct export_view *e, int dir)
{
	int nf = 0;
	while (formats[e->what][nf] != NULL)
		nf++;
	switch (e->field) {
	case F_WHAT:
		e->what = (e->what + dir + W_COUNT) % W_COUNT;
		e->format = 0;
		break;
	case F_FORMAT:
		e->format = (e->format + dir + nf) % nf;
		break;
	case F_DETAIL:
		if (e->what == W_DIAGRAM)
			e->detail = (e->detail + dir + N_DETAILS) % N_DETAILS;
		break;
	default:
		return;
	}
	settings_path(e);
	mark_stale(e);
}

/* Whether field f applies to what is written (Detail: diagrams only). */
static int
field_applies(const struct export_view *e, int f)
{
	return f != F_DETAIL || e->what == W_DIAGRAM;
}

/* The field dir (-1 or 1) rows from the selected one that applies, or
 * the selected one at either end. */
static int
next_field(const struct export_view *e, int dir)
{
	for (int f = e->field + dir; f >= 0 && f < F_COUNT; f += dir)
		if (field_applies(e, f))
			return f;
	return e->field;
}

/* Move between fields (over one that does not apply), change values,
 * write. */
static int
ev_action(struct view *v, enum tui_action a)
{
	struct export_view *e = v->priv;
	switch (a) {
	case ACT_UP: e->field = next_field(e, -1); break;
	case ACT_DOWN: e->field = next_field(e, 1); break;
	case ACT_LEFT: cycle(e, -1); break;
	case ACT_RIGHT: cycle(e, 1); break;
	/* the preview scrolls by its height */
	case ACT_PAGE_DOWN: preview_scroll(e, e->preview_top + (e->preview_h > 1 ? e->preview_h - 1 : 1)); break;
	case ACT_PAGE_UP: preview_scroll(e, e->preview_top - (e->preview_h > 1 ? e->preview_h - 1 : 1)); break;
	case ACT_HOME: preview_scroll(e, 0); preview_hscroll(e, 0); break;
	case ACT_PAN_LEFT:	/* sideways by half its width */
	case ACT_PAN_RIGHT: {
		int step = e->preview_w > 3 ? e->preview_w / 2 : 1;
		preview_hscroll(e, e->preview_left + (a == ACT_PAN_LEFT ? -step : step));
		break;
	}
	case ACT_END: preview_scroll(e, e->preview_n); break;
	case ACT_ENTER:
		if (e->field == F_PATH)
			explore_prompt(e->ex, PROMPT_PATH, "Export to: ", e->path, path_done, e);
		else if (e->field == F_WRITE)
			do_write(e);
		else
			cycle(e, 1);
		break;
	case ACT_EXPORT_WRITE:
		do_write(e);
		break;
	default:
		return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Click: pick a field (and a value on the value rows). */
static int
ev_click(struct view *v, int y, int x)
{
	struct export_view *e = v->priv;
	(void)x;
	if (y < 0 || y >= F_COUNT || !field_applies(e, y))
		return 0;
	if (e->field == y)
		return ev_action(v, ACT_ENTER);
	e->field = y;
	return 1;
}

/* A new placement: the preview is stale. */
static void
ev_changed(struct view *v)
{
	struct export_view *e = v->priv;
	mark_stale(e);
}

/* Render a stale preview while the view is shown. */
static int
ev_tick(struct view *v, double deadline)
{
	struct export_view *e = v->priv;
	struct explore *ex = e->ex;
	if (e->job != NULL) {
		if (!job_wait(e->job, deadline))
			return 1;
		struct job *j = e->job;
		e->job = NULL;
		if (j->path != NULL) {
			report_write(ex, j);
			explore_write_end(ex, j->path, j->rc == 0);
		} else if (j->gen == e->gen) {
			free(e->preview);
			e->preview = NULL;
			if (j->rc != 0) {
				free(e->preview_note);
				e->preview_note = pl_xasprintf("cannot render: %s", j->cause != NULL ? j->cause : "?");
				e->preview_lead = 1;
			} else {
				e->preview = j->data;
				j->data = NULL;
				e->preview_nodes = j->nodes;
				preview_note(e, j->len, j->took);
			}
			e->stale = 0;
		}
		job_free(j);
	}
	if (e->pending != NULL) {
		struct job *j = e->pending;
		e->pending = j->next;
		j->next = NULL;
		job_run(e, j);
		return 1;
	}
	check_table(e);
	if (e->stale && &ex->views[ex->view] == v) {
		make_preview(e);
		return e->job != NULL;
	}
	return 0;
}

/* Showing the view renders a stale preview. */
static void
ev_shown(struct view *v)
{
	struct export_view *e = v->priv;
	check_table(e);
	if (e->stale)
		e->ex->busy = 1;
}

const struct view_class view_export_class = {
	.name = "export",
	.title = "Export",
	.demo = "Pictures and tables for a paper, from what you see: the placement as a "
	    "Graphviz diagram (one box per device), the timeline, or the comparison table. "
	    "Left/Right change a setting; the preview shows what will be written.",
	.init = ev_init,
	.free = ev_free,
	.draw = ev_draw,
	.action = ev_action,
	.click = ev_click,
	.changed = ev_changed,
	.tick = ev_tick,
	.shown = ev_shown,
};
