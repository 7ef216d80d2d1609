/*
 * explore — the explorer's state, the key → action dispatch and the one
 * main loop.
 * Invariant: see explore.h.  Only this file handles KEY_RESIZE, mouse
 * events, prompts, help and the frame (tabs, info line, status line); the
 * views draw only their body rectangle.
 */
#include "config.h"

#include "clock.h"
#include "explore.h"

#include <ctype.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fileio.h"
#include "io.h"
#include "placer.h"
#include "screen.h"
#include "strbuf.h"
#include "tui/cmd.h"
#include "viz/load.h"
#include "xmalloc.h"

/* The views, in tab order (the AV_* masks of action.h follow it). */
static const struct view_class *const view_list[EXPLORE_N_VIEWS] = {
	&view_ops_class,
	&view_timeline_class,
	&view_devices_class,
	&view_placeto_class,
	&view_brkga_class,
	&view_compare_class,
	&view_export_class,
};

/* Rows the demo explanation takes. */
#define DEMO_ROWS 5
/* Rows a long status message may take: a quarter of the screen (the
 * rest is cut). */
#define STATUS_ROWS (LINES / 4 > 2 ? LINES / 4 : 2)

/* Name of view i's class (scripts and tests). */
const char *
explore_view_name(int i)
{
	return i >= 0 && i < EXPLORE_N_VIEWS ? view_list[i]->name : "?";
}

/* Status message (any length: a long one takes more rows). */
void
explore_message(struct explore *ex, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = pl_xvasprintf(fmt, ap);
	va_end(ap);
	free(ex->msg);
	ex->msg = m;
	ex->msg_error = error;
	ex->msg_gen++;
}

/* Wall-clock text. */
const char *
explore_fmt_wall(const struct explore *ex, char *buf, int len, double s)
{
	if (ex->opts.fixed_clock)
		snprintf(buf, len, "-");
	else if (s < 1)
		snprintf(buf, len, "%.0f ms", s * 1e3);
	else
		snprintf(buf, len, "%.1f s", s);
	return buf;
}

/* Short device name. */
const char *
explore_dev_label(const struct explore *ex, int d)
{
	if (d < 0 || d >= ex->c->n_dev)
		return "-";
	const char *n = ex->c->dev[d].name;
	return n[0] == '/' ? n + 1 : n;
}

/* Text s (n bytes) into buf (len bytes): whole when it fits, else an
 * ellipsis (screen_ellipsis(): the same bytes either way) and as much of
 * its end as fits (on a character boundary). */
static void
keep_tail(char *buf, size_t len, const char *s, size_t n)
{
	if (len == 0)
		return;
	if (n < len) {
		memcpy(buf, s, n + 1);
		return;
	}
	const char *more = screen_ellipsis();
	size_t el = strlen(more), w = 0;
	if (len > el + 1) {
		memcpy(buf, more, el);
		w = el;
	}
	const char *t = s + n - (len - 1 - w);
	while (*t != '\0' && ((unsigned char)*t & 0xc0) == 0x80)
		t++;	/* not inside a character */
	memcpy(buf + w, t, strlen(t) + 1);
}

/* Component i (of those '/' separates) of a device label: its start and
 * length, or NULL when it has fewer. */
static const char *
label_part(const char *s, int i, size_t *n)
{
	for (; i > 0; i--) {
		s = strchr(s, '/');
		if (s == NULL)
			return NULL;
		s++;
	}
	*n = strcspn(s, "/");
	return s;
}

/* Device d's label without the components every device's label shares
 * (see explore.h). */
const char *
explore_dev_distinct(const struct explore *ex, int d, char *buf, size_t len)
{
	const char *me = explore_dev_label(ex, d);
	int parts = 1;
	for (const char *p = me; (p = strchr(p, '/')) != NULL; p++)
		parts++;
	/* never longer than the label: build it whole, then keep its end
	 * when buf is too small, where names that differ at all differ */
	char *own = pl_xmalloc(strlen(me) + 1);
	size_t w = 0;
	own[0] = '\0';
	for (int i = 0; i < parts; i++) {
		size_t n = 0, m = 0;
		const char *c = label_part(me, i, &n);
		int shared = i < parts - 1;
		for (int e = 0; e < ex->c->n_dev && shared; e++) {
			const char *o = label_part(explore_dev_label(ex, e), i, &m);
			shared = o != NULL && m == n && strncmp(o, c, n) == 0;
		}
		if (shared)
			continue;
		if (w > 0)
			own[w++] = '/';
		memcpy(own + w, c, n);
		w += n;
		own[w] = '\0';
	}
	keep_tail(buf, len, own, w);
	free(own);
	return buf;
}

/* Device d's short name in at most width columns (buf: len bytes): whole
 * when it fits, else without the components every device shares, cut in
 * the middle when still longer, so that long names that differ in their
 * middle ("task:0" against "task:1") or only at their end
 * ("…/device:GPU:3") stay apart. */
const char *
explore_dev_fit(const struct explore *ex, int d, int width, char *buf, size_t len)
{
	const char *full = explore_dev_label(ex, d);
	if (screen_width(full) <= width)
		return screen_mid(buf, len, full, width);
	char *own = pl_xmalloc(strlen(full) + 1);	/* the distinct part, whole */
	screen_mid(buf, len, explore_dev_distinct(ex, d, own, strlen(full) + 1), width);
	free(own);
	return buf;
}

/* Device d as its glyph (screen_dev_glyph, one per device), a space and
 * its short name (explore_dev_fit) in at most width columns: the glyph
 * tells apart devices whose cut names, or colours, match. */
const char *
explore_dev_tag(const struct explore *ex, int d, int width, char *buf, size_t len)
{
	if (d < 0 || d >= ex->c->n_dev || width < 1 || len < 2)
		return explore_dev_fit(ex, d, width, buf, len);
	buf[0] = (char)screen_dev_glyph(d);
	buf[1] = '\0';
	if (width >= 3 && len >= 3) {
		buf[1] = ' ';
		explore_dev_fit(ex, d, width - 2, buf + 2, len - 2);
	}
	return buf;
}

/* Columns the widest device's explore_dev_tag takes, at most most (and
 * at least 3): a column of tags no wider than its names need. */
int
explore_dev_tag_w(const struct explore *ex, int most)
{
	int w = 3;
	for (int d = 0; d < ex->c->n_dev && w < most; d++) {
		int n = 2 + screen_width(explore_dev_label(ex, d));
		w = n > w ? n : w;
	}
	return w < most ? w : most < 3 ? 3 : most;
}

/* The last component of a path. */
static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

/* Resimulate the current placement. */
static void
resimulate(struct explore *ex)
{
	char *cause = NULL;
	pl_trace_free(ex->tr);
	ex->tr = pl_sim_trace(ex->p, ex->cur, &ex->sim, &cause);
	if (ex->tr == NULL) {
		explore_message(ex, 1, "simulation failed: %s", cause != NULL ? cause : "?");
		free(cause);
	}
	for (int i = 0; i < EXPLORE_N_VIEWS; i++)
		if (ex->views[i].cls->changed != NULL)
			ex->views[i].cls->changed(&ex->views[i]);
}

/* Select an op in every view. */
void
explore_select(struct explore *ex, int op)
{
	if (op < -1 || op >= ex->g->n_ops)
		return;
	ex->sel_op = op;
	for (int i = 0; i < EXPLORE_N_VIEWS; i++)
		if (ex->views[i].cls->selected != NULL)
			ex->views[i].cls->selected(&ex->views[i]);
}

/* explore.follower of the starting placement: any search may replace it */
static const char any_search;

/* Free a stack's entries. */
static void
steps_free(struct explore_undo *st, int *n)
{
	for (int i = 0; i < *n; i++) {
		pl_placement_free(st[i].pl);
		free(st[i].source);
		free(st[i].source_file);
		free(st[i].save_path);
	}
	*n = 0;
}

/* Push the current placement on a stack (undo or redo), dropping its
 * oldest entry when full. */
static void
steps_push(struct explore *ex, struct explore_undo *st, int *n)
{
	if (*n == EXPLORE_UNDO) {
		int one = 1;
		steps_free(st, &one);
		memmove(st, st + 1, (EXPLORE_UNDO - 1) * sizeof *st);
		(*n)--;
	}
	st[*n].pl = pl_placement_clone(ex->cur);
	st[*n].source = pl_xstrdup(ex->source);
	st[*n].source_file = ex->source_file != NULL ? pl_xstrdup(ex->source_file) : NULL;
	st[*n].save_path = ex->save_path != NULL ? pl_xstrdup(ex->save_path) : NULL;
	st[*n].edit = ex->cur_edit;
	(*n)++;
}

/* A new change: the current placement becomes an undo step, and what
 * was undone before can no longer be redone. */
static void
push_undo(struct explore *ex)
{
	steps_push(ex, ex->undo, &ex->n_undo);
	steps_free(ex->redo, &ex->n_redo);
}

/* Whether an export is writing the file of real path rp. */
static int
being_written(const struct explore *ex, const char *rp)
{
	for (int i = 0; rp != NULL && i < ex->n_writing; i++)
		if (strcmp(ex->writing[i], rp) == 0)
			return 1;
	return 0;
}

/* Whether cur is held: a file holds it (and no export is replacing
 * that file), or it is clean (see the invariant). */
static int
held(const struct explore *ex)
{
	return (ex->source_file != NULL && !being_written(ex, ex->source_file)) ||
	    (!ex->clean_lost && pl_placement_equal(ex->cur, ex->clean) &&
	    !being_written(ex, ex->clean_file));
}

/* Whether cur holds hand edits not saved (see the invariant). */
static int
edits_unsaved(const struct explore *ex)
{
	return !held(ex) && !pl_placement_equal(ex->cur, ex->origin);
}

/* Whether the current placement is in no file. */
int
explore_unsaved(const struct explore *ex)
{
	return !held(ex);
}

/* Make pl current (undo step when push), from source, replaceable by
 * search `follower`; a take (not an edit) becomes origin. */
static void
set_current(struct explore *ex, const struct pl_placement *pl, const char *source,
    int edit, int push, const void *follower)
{
	if (push)
		push_undo(ex);
	pl_placement_copy(ex->cur, pl);
	free(ex->source);
	ex->source = pl_xstrdup(source);
	free(ex->source_file);
	ex->source_file = NULL;
	if (!edit)
		pl_placement_copy(ex->origin, ex->cur);
	ex->cur_edit = edit;
	ex->follower = follower;
	ex->follower_restarted = 0;
	ex->dirty = edits_unsaved(ex);
	resimulate(ex);
}

/* cur, taken again from source: nothing changes but its name (no undo
 * step, and the file that holds it still does). */
static void
retake_current(struct explore *ex, const char *source)
{
	free(ex->source);
	ex->source = pl_xstrdup(source);
	pl_placement_copy(ex->origin, ex->cur);
	ex->cur_edit = 0;
	ex->dirty = edits_unsaved(ex);
}

/* Replace the current placement; a take of the placement cur already is
 * only renames where it came from (no undo step, the file that holds it
 * still does), but it is the user's now: no search follows it. */
void
explore_set_placement(struct explore *ex, const struct pl_placement *pl,
    const char *source, int edit)
{
	if (edit || !pl_placement_equal(ex->cur, pl))
		set_current(ex, pl, source, edit, 1, NULL);
	else {
		retake_current(ex, source);
		ex->follower = NULL;
		ex->follower_restarted = 0;
	}
}

/* A restarted search's bests are a new run's (see explore.h). */
void
explore_search_restarted(struct explore *ex, const void *who)
{
	if (ex->follower == who)
		ex->follower_restarted = 1;
}

/* Whether a search may follow its best into cur. */
int
explore_may_follow(const struct explore *ex, const void *who)
{
	return !ex->dirty && who != NULL && (ex->follower == who || ex->follower == &any_search);
}

/* A search's best becomes current. */
void
explore_take_best(struct explore *ex, const struct pl_placement *pl,
    const char *source, const void *who)
{
	if (pl_placement_equal(ex->cur, pl)) {
		retake_current(ex, source);
		ex->follower = who;
		ex->follower_restarted = 0;
		return;
	}
	/* no undo step when the search replaces its own best, unless that
	 * was saved (u brings back what the file holds) or came from the
	 * search's run before a restart */
	int own = ex->follower == who && !ex->follower_restarted &&
	    pl_placement_equal(ex->cur, ex->origin) && ex->source_file == NULL;
	set_current(ex, pl, source, 0, !own, who);
}

/* Unsaved hand edits block replacing the placement: say so. */
int
explore_edits_block(struct explore *ex)
{
	if (!ex->dirty)
		return 0;
	explore_message(ex, 1, "save or undo your edits first (w saves, u undoes)");
	return 1;
}

/* Why path must not be written: it names the graph or cluster file (a
 * save never replaces an input) or a folder. */
char *
explore_input_clash(const struct explore *ex, const char *path)
{
	if (pl_file_same(path, ex->graph_path))
		return pl_xasprintf("%s is the graph file (choose another name)", path);
	const char *cfile = pl_cluster_arg_file(ex->opts.cluster);
	if (cfile != NULL && pl_file_same(path, cfile))
		return pl_xasprintf("%s is the cluster file (choose another name)", path);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return pl_xasprintf("%s is a folder (expected a file name)", path);
	return NULL;
}

/* Devices allowed for every group of the ops. */
static uint64_t
ops_mask(const struct explore *ex, const int *ops, int n)
{
	uint64_t m = ~(uint64_t)0;
	for (int i = 0; i < n; i++)
		m &= ex->p->group_allowed[ex->g->ops[ops[i]].group];
	return m;
}

/* Next allowed device. */
int
explore_next_device(struct explore *ex, const int *ops, int n, int dir)
{
	if (n <= 0)
		return -1;
	uint64_t m = ops_mask(ex, ops, n);
	int nd = ex->c->n_dev, d = ex->cur->dev[ops[0]];
	for (int k = 1; k < nd; k++) {
		int e = ((d + dir * k) % nd + nd) % nd;
		if (m & ((uint64_t)1 << e))
			return e;
	}
	return -1;
}

/* Move ops (with their groups) to device d as one edit. */
int
explore_move_ops(struct explore *ex, const int *ops, int n, int d)
{
	if (n <= 0 || d < 0 || d >= ex->c->n_dev)
		return 0;
	if (!(ops_mask(ex, ops, n) & ((uint64_t)1 << d))) {
		explore_message(ex, 1, "%s is not allowed for %s", explore_dev_label(ex, d),
		    n == 1 ? ex->g->ops[ops[0]].name : "these ops");
		return 0;
	}
	struct pl_placement *np = pl_placement_clone(ex->cur);
	int moved = 0;
	for (int i = 0; i < n; i++) {
		const struct pl_group *gr = &ex->g->groups[ex->g->ops[ops[i]].group];
		for (int k = 0; k < gr->count; k++) {
			int v = ex->g->group_ops[gr->first + k];
			if (np->dev[v] != d) {
				np->dev[v] = d;
				moved++;
			}
		}
	}
	if (moved == 0) {
		pl_placement_free(np);
		return 0;
	}
	double before = ex->tr != NULL ? ex->tr->res.makespan_us : NAN;
	explore_set_placement(ex, np, "hand edit", 1);
	pl_placement_free(np);
	if (ex->tr != NULL) {
		char a[32], b[32], c[32];
		explore_message(ex, 0, "moved %d op%s to %s: %s -> %s (%s)%s", moved,
		    moved == 1 ? "" : "s", explore_dev_label(ex, d),
		    screen_fmt_us(a, sizeof a, before),
		    screen_fmt_us(b, sizeof b, ex->tr->res.makespan_us),
		    screen_fmt_change(c, sizeof c, ex->tr->res.makespan_us, before),
		    ex->tr->res.oom_mask ? "  OUT OF MEMORY" : "");
	}
	return moved;
}

/* A placement when none is given: the expert's if that method exists, else
 * each group on its first allowed GPU (or first allowed device). */
static struct pl_placement *
initial_placement(struct explore *ex, char **source)
{
	const struct pl_placer_class *cls = pl_placer_find("expert");
	if (cls != NULL) {
		struct pl_run_opts run = { .sim = ex->sim, .seed = ex->opts.seed, .threads = 1 };
		char *cause = NULL;
		struct pl_placer *pl = pl_placer_new(cls, ex->p, NULL, &run, &cause);
		if (pl != NULL) {
			pl_placer_run(pl, 100, 5.0);
			if (pl->best != NULL) {
				struct pl_placement *r = pl_placement_clone(pl->best);
				pl_placer_free(pl);
				*source = pl_xstrdup("expert");
				return r;
			}
			pl_placer_free(pl);
		}
		free(cause);
	}
	struct pl_placement *r = pl_placement_new(ex->g->n_ops, ex->c->n_dev);
	for (int k = 0; k < ex->g->n_groups; k++) {
		uint64_t m = ex->p->group_allowed[k];
		int pick = -1;
		for (int d = 0; d < ex->c->n_dev && pick < 0; d++)
			if ((m & ((uint64_t)1 << d)) && ex->c->dev[d].kind == PL_DEV_GPU)
				pick = d;
		for (int d = 0; d < ex->c->n_dev && pick < 0; d++)
			if (m & ((uint64_t)1 << d))
				pick = d;
		const struct pl_group *gr = &ex->g->groups[k];
		for (int i = 0; i < gr->count; i++)
			r->dev[ex->g->group_ops[gr->first + i]] = pick;
	}
	*source = pl_xstrdup("first GPU");
	return r;
}

/* Load everything and make the views. */
int
explore_open(struct explore *ex, const struct explore_opts *o, char **cause)
{
	memset(ex, 0, sizeof *ex);
	/* the options' strings are the caller's: the one read later (the
	 * cluster argument, to refuse writing over its file) is copied, the
	 * others are only read here */
	ex->opts = *o;
	ex->cluster_arg = o->cluster != NULL ? pl_xstrdup(o->cluster) : NULL;
	ex->opts.cluster = ex->cluster_arg;
	ex->opts.graph_path = ex->opts.placement_path = ex->opts.sim = NULL;
	ex->sel_op = -1;
	char *warning = NULL;	/* the placement file's */
	char *gpath = o->graph_path != NULL ? pl_xstrdup(o->graph_path) :
	    cmd_data_path(o->demo ? "samples/teach.json" : "samples/nmt4.json");
	ex->g = plv_graph_load(gpath, cause);
	if (ex->g == NULL) {
		free(gpath);
		return -1;
	}
	ex->graph_path = gpath;
	/* the teaching graph is made for 1 CPU + 2 K80s (its best placement
	 * is clear there; on 4 equal GPUs the methods tie) */
	const char *cl = o->cluster != NULL ? o->cluster :
	    o->demo && o->graph_path == NULL ? PL_DEMO_CLUSTER : PL_DEFAULT_CLUSTER;
	ex->c = pl_cluster_from_arg(cl, cause);
	if (ex->c == NULL)
		goto fail;
	ex->p = pl_problem_new(ex->g, ex->c, cause);
	if (ex->p == NULL)
		goto fail;
	ex->sim.kind = PL_SIM_NATIVE;
	ex->sim.mem = PL_MEM_NATIVE;
	if (o->sim != NULL) {
		int k = pl_sim_kind_parse(o->sim);
		if (k < 0) {
			*cause = pl_xasprintf("--sim: unknown simulator '%s' (expected native or placeto)", o->sim);
			goto fail;
		}
		ex->sim.kind = (enum pl_sim_kind)k;
	}
	pl_bounds_compute(ex->p, &ex->bounds);
	if (o->placement_path != NULL) {
		ex->cur = pl_placement_load_json(o->placement_path, ex->g, ex->c, &warning, cause);
		if (ex->cur == NULL)
			goto fail;
		ex->source = pl_xasprintf("file %s", base_name(o->placement_path));
		ex->source_file = realpath(o->placement_path, NULL);
		ex->save_path = pl_xstrdup(o->placement_path);
	} else {
		ex->cur = initial_placement(ex, &ex->source);
		ex->follower = &any_search;
	}
	ex->clean = pl_placement_clone(ex->cur);
	ex->clean_file = ex->source_file != NULL ? pl_xstrdup(ex->source_file) : NULL;
	ex->origin = pl_placement_clone(ex->cur);
	ex->tr = pl_sim_trace(ex->p, ex->cur, &ex->sim, cause);
	if (ex->tr == NULL)
		goto fail;
	ex->start_us = ex->tr->res.makespan_us;
	for (int i = 0; i < EXPLORE_N_VIEWS; i++) {
		ex->views[i].cls = view_list[i];
		ex->views[i].ex = ex;
	}
	for (int i = 0; i < EXPLORE_N_VIEWS; i++)
		ex->views[i].priv = view_list[i]->init(ex);
	if (warning != NULL)	/* stderr would be hidden by the screen */
		explore_message(ex, 1, "placement from %s; %s", ex->source, warning);
	else if (o->demo)
		explore_message(ex, 0, "Teaching mode: Tab walks through the views.");
	else
		explore_message(ex, 0, "placement from %s (simulator: %s)",
		    ex->source, pl_sim_kind_name(ex->sim.kind));
	free(warning);
	return 0;
fail:
	free(warning);
	explore_close(ex);
	return -1;
}

/* Free everything. */
void
explore_close(struct explore *ex)
{
	for (int i = 0; i < EXPLORE_N_VIEWS; i++)
		if (ex->views[i].cls != NULL && ex->views[i].cls->free != NULL)
			ex->views[i].cls->free(ex->views[i].priv);
	free(ex->cluster_arg);
	steps_free(ex->undo, &ex->n_undo);
	steps_free(ex->redo, &ex->n_redo);
	pl_trace_free(ex->tr);
	pl_placement_free(ex->cur);
	pl_placement_free(ex->clean);
	free(ex->clean_file);
	for (int i = 0; i < ex->n_writing; i++)
		free(ex->writing[i]);
	free(ex->writing);
	pl_placement_free(ex->origin);
	if (!ex->keep_inputs) {
		pl_problem_free(ex->p);
		pl_cluster_free(ex->c);
		pl_graph_free(ex->g);
	}
	free(ex->source);
	free(ex->source_file);
	free(ex->save_path);
	free(ex->save_asked);
	free(ex->recovered);
	free(ex->recover_error);
	free(ex->graph_path);
	free(ex->prompt_label);
	free(ex->prompt_buf);
	free(ex->msg);
	free(ex->search);
	free(ex->matches);
	memset(ex, 0, sizeof *ex);
}

/* ---- frame ---------------------------------------------------------------- */

/* Columns of tab i's label (x start and width) for drawing and clicks. */
static int
tab_layout(int i, int *x)
{
	int pos = 0;
	for (int k = 0; k < i; k++)
		pos += (int)strlen(view_list[k]->title) + 4;
	*x = pos;
	return (int)strlen(view_list[i]->title) + 3;
}

/* Row 0: the tabs. */
static void
draw_tabs(struct explore *ex)
{
	attrset(screen_attr(SCR_TAB));
	screen_fill(stdscr, 0, 0, COLS, ' ');
	for (int i = 0; i < EXPLORE_N_VIEWS; i++) {
		int x, w = tab_layout(i, &x);
		if (x + w > COLS)
			break;
		attrset(screen_attr(i == ex->view ? SCR_TAB_ON : SCR_TAB));
		screen_printf(stdscr, 0, x, w, 1, " %d %s", i + 1, view_list[i]->title);
	}
	attrset(screen_attr(SCR_TAB));
	const char *brand = ex->busy ? "running  placelab " : "placelab ";
	int bl = (int)strlen(brand);
	int x0, w0 = tab_layout(EXPLORE_N_VIEWS - 1, &x0);
	if (COLS - bl > x0 + w0)
		screen_put(stdscr, 0, COLS - bl, bl, 0, brand);
	attrset(A_NORMAL);
}

/* Put text at row 1, column *x, in attribute a, only when it fits whole
 * (a field cut short would read as another value); *x moves past it. */
static void
info_field(int *x, attr_t a, const char *text)
{
	if (screen_width(text) > COLS - *x)
		return;
	attrset(a);
	*x += screen_put(stdscr, 1, *x, COLS - *x, 0, text);
	attrset(A_NORMAL);
}

/* Row 1: graph, cluster, current run time and memory, most important
 * first; a field that does not fit whole is left out (never part of a
 * number), and a shorter one after it may still show. */
static void
draw_info(struct explore *ex)
{
	char t[32], m[32], f[96], gname[1024], cname[128];
	int x = 0;
	attrset(A_NORMAL);
	screen_fill(stdscr, 1, 0, COLS, ' ');
	/* long graph and cluster names are cut in the middle (the graph's to
	 * 12 columns at least), so that the fields after them still show:
	 * the step time and its change, OOM, the edit mark, peak and bound */
	const struct pl_sim_result *r = ex->tr != NULL ? &ex->tr->res : NULL;
	/* the step time against the session's starting placement, when
	 * they differ by 0.1% or more */
	char pct[32] = "";
	if (r != NULL && !(ex->start_us > 0 &&
	    screen_fmt_change(pct, sizeof pct, r->makespan_us, ex->start_us)[0] != '0'))
		pct[0] = '\0';
	int after = r == NULL ? screen_width("no simulation") :
	    screen_width("step   peak 1023.9 MiB  bound +10000%") +
	    screen_width(screen_fmt_us(t, sizeof t, r->makespan_us)) +
	    (pct[0] ? screen_width(pct) + screen_width("  vs start") : 0) +
	    (r->oom_mask ? 6 : 0) + (ex->dirty ? 9 : 0);
	screen_mid(cname, sizeof cname, ex->c->name, 24);
	char *on = COLS >= 100 ? pl_xasprintf(" on %s, %d ops  ", cname, ex->g->n_ops) :
	    pl_xasprintf(" on %s  ", cname);	/* room for where it came from */
	int name_w = COLS - screen_width(on) - after;
	screen_mid(gname, sizeof gname, ex->g->name, name_w > 12 ? name_w : 12);
	attrset(A_BOLD);
	x += screen_put(stdscr, 1, x, COLS - x, 0, gname);
	attrset(A_NORMAL);
	x += screen_put(stdscr, 1, x, COLS - x, 0, on);
	free(on);
	if (r == NULL) {
		attrset(screen_attr(SCR_ERROR));
		screen_put(stdscr, 1, x, COLS - x, 0, "no simulation");
		attrset(A_NORMAL);
		return;
	}
	snprintf(f, sizeof f, "step %s", t);
	if (screen_width(f) <= COLS - x) {
		x += screen_put(stdscr, 1, x, COLS - x, 0, "step ");
		info_field(&x, A_BOLD, t);
	}
	if (pct[0]) {
		snprintf(f, sizeof f, " %s vs start", pct);
		info_field(&x, screen_attr(pct[0] == '-' ? SCR_GOOD : SCR_BAD), f);
	}
	if (r->oom_mask && COLS - x >= 6) {
		x += screen_put(stdscr, 1, x, COLS - x, 0, " ");
		info_field(&x, screen_attr(SCR_OOM), " OOM ");
	}
	if (ex->dirty)
		info_field(&x, screen_attr(SCR_KEY), " [edited]");
	/* the fullest device's, as Compare's peak (the largest is the
	 * Devices view's to show) */
	snprintf(f, sizeof f, "  peak %s", screen_fmt_bytes(m, sizeof m, r->peak_fullest));
	info_field(&x, A_NORMAL, f);
	double gap = pl_bounds_gap(&ex->bounds, r->makespan_us);
	if (isnan(gap))
		snprintf(f, sizeof f, "  bound n/a");
	else
		snprintf(f, sizeof f, "  bound +%.0f%%", gap * 100);
	info_field(&x, A_NORMAL, f);
	/* where it came from: whole, or its start and an ellipsis when at
	 * least 8 columns of it show ("from file teach-he…"), else not at
	 * all (the status line says it too when the placement changes) */
	char *from = pl_xasprintf("  from %s", ex->source);
	const char *more = screen_ellipsis();
	int room = COLS - x - screen_width(more);
	if (screen_width(from) > COLS - x && room >= 7 + 8) {
		from[screen_head(from, room)] = '\0';	/* whole characters */
		char *cut = pl_xasprintf("%s%s", from, more);
		free(from);
		from = cut;
	}
	info_field(&x, screen_attr(SCR_DIM), from);
	free(from);
}

/* The key hints at the right of the status line: the help's, the current
 * view's own (a mode of it), or the explorer's. */
static const char *
status_hint(const struct explore *ex)
{
	if (ex->help)
		return "Esc/q close  Up/Down scroll";
	const struct view *v = &ex->views[ex->view];
	const char *own = v->cls->hint != NULL ? v->cls->hint(v) : NULL;
	return own != NULL ? own : "? help  Tab views  q quit";
}

/* Rows the status area takes at the bottom: 1, or up to STATUS_ROWS for
 * a message too long for one line, shown whole (wrapped) while it is the
 * current message; the body gives up the rows. */
static int
status_rows(const struct explore *ex)
{
	/* a question too long for a line is wrapped as a message is */
	const char *text = ex->prompt == PROMPT_KEY ? ex->prompt_label :
	    ex->prompt == PROMPT_NONE ? ex->msg : NULL;
	if (text == NULL || screen_width(text) <= COLS)
		return 1;
	int n = screen_wrap(NULL, 0, 0, STATUS_ROWS + 1, COLS, text);
	if (n > STATUS_ROWS)	/* a message is cut; a question is one line, */
		return ex->prompt == PROMPT_KEY ? 1 : STATUS_ROWS;	/* its end (the answers) kept */
	return n > 1 ? n : 1;
}

static void draw_prompt_text(struct explore *ex, int y, int x);

/* The status area: prompt, message or key hints. */
static void
draw_status(struct explore *ex)
{
	int rows = status_rows(ex), y = LINES - rows;
	attrset(screen_attr(SCR_STATUS));
	for (int i = 0; i < rows; i++)
		screen_fill(stdscr, y + i, 0, COLS, ' ');
	if (ex->prompt != PROMPT_NONE) {
		const char *label = ex->prompt_label, *more = "";
		if (ex->prompt == PROMPT_KEY && rows > 1) {	/* the whole question */
			screen_wrap(stdscr, y, 0, rows, COLS, label);
			attrset(A_NORMAL);
			return;
		}
		if (ex->prompt == PROMPT_KEY && screen_width(label) > COLS) {
			/* longer than the status area: its end holds the answers */
			more = screen_ellipsis();
			label = screen_tail(label, COLS - screen_width(more));
		}
		int x = screen_printf(stdscr, y, 0, COLS, 0, "%s%s", more, label);
		if (ex->prompt != PROMPT_KEY)
			draw_prompt_text(ex, y, x);
		attrset(A_NORMAL);
		return;
	}
	const char *hint = status_hint(ex);
	int hl = (int)strlen(hint);
	/* a message longer than the room beside the hints takes the line,
	 * or the lines it needs */
	int whole = ex->msg != NULL && screen_width(ex->msg) > COLS - hl - 2;
	if (ex->msg != NULL) {
		if (ex->msg_error)
			attrset(screen_attr(SCR_ERROR));
		if (rows > 1)
			screen_wrap(stdscr, y, 0, rows, COLS, ex->msg);
		else
			screen_put(stdscr, y, 0, whole ? COLS : COLS - hl - 2, 0, ex->msg);
		attrset(screen_attr(SCR_STATUS));
	}
	if (!whole)
		screen_put(stdscr, y, COLS - hl - 1, hl, 0, hint);
	attrset(A_NORMAL);
}

/* The keys of a text prompt (the search, a file name), which are no
 * actions: the help's last entry, and after the table of --keys. */
static const char prompt_keys_help[] =
    "Left/Right (^B/^F) move the cursor a character, Home/End (^A/^E) to "
    "either end; typing goes in at it; Backspace deletes the character "
    "before it, Delete (^D) the one under it, ^U all before it, ^K all "
    "after it, ^W (or Alt-Backspace) the word before it (blank-delimited; in a file name a "
    "'/' ends a word too); Enter takes the text, Esc (^G) cancels";

/* The help's text of entry i: action i, or past the table the prompt's
 * keys. */
static const char *
help_text(int i)
{
	return i < ACT_COUNT - 1 ? tui_actions[i].help : prompt_keys_help;
}

/* The rows help entry i takes at width tw. */
static int
help_rows(int tw, int i)
{
	int h = screen_wrap(NULL, 0, 0, 99, tw, help_text(i));
	return h > 0 ? h : 1;
}

/* An action's keys as the help shows them ("PgUp ^B"). */
static void
action_keys(const struct tui_action_def *a, char *keys, size_t size)
{
	char k1[16], k2[16];
	tui_key_name(a->key, k1, sizeof k1);
	if (a->alt && strcmp(k1, tui_key_name(a->alt, k2, sizeof k2)) != 0)
		snprintf(keys, size, "%s %s", k1, k2);
	else
		snprintf(keys, size, "%s", k1);
}

/* The views an action works in: "all" or their numbers, runs of three
 * or more as a range ("1-3,6,7"); the help screen's own bit is not a
 * view. */
static void
action_views(const struct tui_action_def *a, char *where, size_t size)
{
	where[0] = '\0';
	if (a->where == AV_ALL) {
		snprintf(where, size, "all");
		return;
	}
	for (int v = 0; v < EXPLORE_N_VIEWS; v++) {
		if (!(a->where & (1u << v)))
			continue;
		int e = v;
		while (e + 1 < EXPLORE_N_VIEWS && (a->where & (1u << (e + 1))))
			e++;
		size_t l = strlen(where);
		if (e >= v + 2)
			snprintf(where + l, size - l, "%s%d-%d", l ? "," : "", v + 1, e + 1);
		else
			snprintf(where + l, size - l, "%s%d", l ? "," : "", v + 1);
		if (e >= v + 2)
			v = e;
	}
}

/* Every key, as the help screen lists them, one per line, for the
 * terminal or the man page. */
void
explore_print_keys(FILE *f)
{
	fprintf(f, "%-12s %-16s %-7s %s\n", "Key", "Action", "Views", "What it does");
	for (int i = 0; i < ACT_COUNT - 1; i++) {
		char keys[40], where[64];
		action_keys(&tui_actions[i], keys, sizeof keys);
		action_views(&tui_actions[i], where, sizeof where);
		fprintf(f, "%-12s %-16s %-7s %s\n", keys, tui_actions[i].name, where, tui_actions[i].help);
	}
	fprintf(f, "\nViews:");
	for (int i = 0; i < EXPLORE_N_VIEWS; i++)
		fprintf(f, " %d %s%s", i + 1, view_list[i]->title, i + 1 < EXPLORE_N_VIEWS ? "," : ".\n");
	fprintf(f, "\nIn a text prompt: %s.\n", prompt_keys_help);
}

/* The help screen: every row of the action table, then the keys of a text
 * prompt, their text wrapped. */
static void
draw_help(struct explore *ex, const struct view_rect *r)
{
	attrset(screen_attr(SCR_HEADER));
	screen_printf(stdscr, r->y, r->x, r->w, 1, "%-12s %-16s %-7s %s", "Key", "Action", "Views", "What it does");
	attrset(A_NORMAL);
	/* an entry takes as many rows as its wrapped text; the last page
	 * ends with the last entry */
	int rows = r->h - 1, n = ACT_COUNT, tw = r->w - 38 > 10 ? r->w - 38 : 10;
	int max_top = n, used = 0;
	while (max_top > 0 && (used += help_rows(tw, max_top - 1)) <= rows)
		max_top--;
	if (ex->help_top > max_top)
		ex->help_top = max_top;
	if (ex->help_top < 0)
		ex->help_top = 0;
	for (int i = ex->help_top, y = r->y + 1; i < n; i++) {
		int h = help_rows(tw, i);
		if (y + h > r->y + 1 + rows)
			break;
		char keys[40] = "in a prompt", where[64] = "all";
		const char *name = "edit the text";	/* (the last entry) */
		if (i < ACT_COUNT - 1) {
			const struct tui_action_def *a = &tui_actions[i];
			action_keys(a, keys, sizeof keys);
			action_views(a, where, sizeof where);
			name = a->name;
		}
		attrset(screen_attr(SCR_KEY));
		screen_printf(stdscr, y, r->x, 13, 1, "%s", keys);
		attrset(A_NORMAL);
		screen_printf(stdscr, y, r->x + 13, 17, 1, "%s", name);
		attrset(screen_attr(SCR_DIM));
		screen_printf(stdscr, y, r->x + 30, 8, 1, "%s", where);
		attrset(A_NORMAL);
		screen_wrap(stdscr, y, r->x + 38, h, tw, help_text(i));
		y += h;
	}
}

/* The demo explanation box under the body. */
static void
draw_demo(struct explore *ex, int y)
{
	attrset(screen_attr(SCR_DEMO));
	for (int i = 0; i < DEMO_ROWS; i++)
		screen_fill(stdscr, y + i, 0, COLS, ' ');
	const char *text = ex->help ? "Every key is one named action; the same names drive the scripted tests." :
	    ex->views[ex->view].cls->demo;
	screen_printf(stdscr, y, 1, COLS - 2, 0, "About %s:", ex->help ? "keys" : ex->views[ex->view].cls->title);
	screen_wrap(stdscr, y + 1, 2, DEMO_ROWS - 1, COLS - 4, text != NULL ? text : "");
	attrset(A_NORMAL);
}

/* The body rectangle for the current size. */
static void
body_rect(const struct explore *ex, struct view_rect *r)
{
	r->y = 2;
	r->x = 0;
	r->w = COLS;
	r->h = LINES - 2 - status_rows(ex) - (ex->opts.demo ? DEMO_ROWS : 0);
}

/* Draw the whole screen. */
void
explore_draw(struct explore *ex)
{
	ex->redraws++;
	erase();
	if (!screen_big_enough()) {
		/* two lines, centred; on a very narrow terminal each is
		 * wrapped at its words, so that the size and how to quit
		 * stay in sight (while a prompt is open, q is typed into it
		 * or answers it: Esc closes it first) */
		char said[128], need[128];
		snprintf(said, sizeof said, "terminal too small: %dx%d", COLS, LINES);
		snprintf(need, sizeof need, "placelab needs %dx%d; %s", SCR_MIN_COLS, SCR_MIN_ROWS,
		    ex->prompt != PROMPT_NONE ? "Esc closes the prompt" :
		    ex->help ? "q closes the help, q again quits" : "q quits");
		int wrap = (int)strlen(said) > COLS || (int)strlen(need) > COLS;
		int rows = wrap ? screen_wrap(NULL, 0, 0, LINES, COLS, said) +
		    screen_wrap(NULL, 0, 0, LINES, COLS, need) : 2;
		int y = (LINES - rows) / 2;
		if (y < 0)
			y = 0;
		int xs = wrap ? 0 : (COLS - (int)strlen(said)) / 2, xn = wrap ? 0 : (COLS - (int)strlen(need)) / 2;
		attrset(screen_attr(SCR_ERROR));
		int used = screen_wrap(stdscr, y, xs, LINES - y, COLS - xs, said);
		attrset(A_NORMAL);
		if (y + used < LINES)
			used += screen_wrap(stdscr, y + used, xn, LINES - y - used, COLS - xn, need);
		if (ex->prompt != PROMPT_NONE && y + used < LINES)
			draw_status(ex);	/* q's question, or it would go unseen */
		wnoutrefresh(stdscr);
		return;
	}
	draw_tabs(ex);
	draw_info(ex);
	struct view_rect r;
	body_rect(ex, &r);
	if (ex->help)
		draw_help(ex, &r);
	else {
		struct view *v = &ex->views[ex->view];
		v->last = r;
		v->cls->draw(v, stdscr, &r);
	}
	if (ex->opts.demo)
		draw_demo(ex, r.y + r.h);
	draw_status(ex);
	attrset(A_NORMAL);
	wnoutrefresh(stdscr);
}

/* Re-layout after a size change: the one place that handles KEY_RESIZE. */
void
explore_resize(struct explore *ex)
{
	/* ncurses has already updated LINES and COLS; views lay out on draw
	 * from the rectangle they get, so a full redraw is all it takes. */
	clearok(curscr, TRUE);
	(void)ex;
}

/* ---- prompts, search, files ---------------------------------------------- */

/* Ask before replacing path, saying what it holds when it is a placelab
 * document (a comparison table, a policy, ...). */
void
explore_ask_overwrite(struct explore *ex, const char *path, explore_prompt_fn *done, void *arg)
{
	char kind[64];
	char *q = explore_writing(ex, path) ?
	    pl_xasprintf("%s is being written by an earlier export: replace it after? (y/n) ", path) :
	    pl_file_kind(path, kind, sizeof kind) ?
	    pl_xasprintf("%s exists and holds %s: overwrite? (y/n) ", path, pl_file_kind_name(kind)) :
	    pl_xasprintf("%s exists: overwrite? (y/n) ", path);
	explore_prompt(ex, PROMPT_KEY, q, NULL, done, arg);
	free(q);
}

/* Whether a key prompt's answer is yes. */
int
explore_said_yes(const char *text)
{
	return text != NULL && (*text == 'y' || *text == 'Y');
}

/* One byte more typed into the prompt, at the cursor (a UTF-8 character
 * comes a byte at a time, each after the one before; as prompt_map reads
 * the text before the cursor apart from the rest, the cursor stays off
 * the middle of any other, even where a byte typed would join the bytes
 * after it: a stray lead byte typed before stray continuation bytes, a
 * letter before a combining mark).  A character is taken only when the
 * whole of it fits in EXPLORE_PROMPT_MAX bytes with the NUL; one that does
 * not is dropped whole (its lead byte and the continuation bytes after
 * it), and the prompt says it is full: from then on nothing is taken
 * until it is empty again.  Bytes taken are never removed here. */
static void
prompt_add(struct explore *ex, int byte)
{
	if ((byte & 0xC0) == 0x80 && ex->prompt_skip > 0) {
		ex->prompt_skip--;	/* the rest of a character dropped */
		return;
	}
	int need = byte >= 0xF8 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
	ex->prompt_skip = 0;
	if (ex->prompt_len + need >= EXPLORE_PROMPT_MAX || ex->prompt_full) {
		ex->prompt_skip = need - 1;
		ex->prompt_full = 1;	/* said after the text */
		return;
	}
	if (ex->prompt_len + 2 > ex->prompt_cap) {
		ex->prompt_cap *= 2;
		ex->prompt_buf = pl_xreallocarray(ex->prompt_buf, (size_t)ex->prompt_cap, 1);
	}
	char *at = ex->prompt_buf + ex->prompt_pos;
	memmove(at + 1, at, (size_t)(ex->prompt_len - ex->prompt_pos) + 1);
	*at = (char)byte;
	ex->prompt_len++;
	ex->prompt_pos++;
}

/* Open a prompt on the status line. */
void
explore_prompt(struct explore *ex, enum explore_prompt_kind kind,
    const char *label, const char *initial, explore_prompt_fn *done, void *arg)
{
	ex->prompt = kind;
	free(ex->prompt_label);
	ex->prompt_label = pl_xstrdup(label);
	ex->prompt_len = ex->prompt_pos = ex->prompt_view = 0;
	ex->prompt_full = ex->prompt_skip = 0;
	if (ex->prompt_buf == NULL) {
		ex->prompt_cap = 256;
		ex->prompt_buf = pl_xmalloc((size_t)ex->prompt_cap);
	}
	ex->prompt_buf[0] = '\0';
	for (const char *c = initial != NULL ? initial : ""; *c; c++)
		prompt_add(ex, (unsigned char)*c);
	ex->prompt_done = done;
	ex->prompt_arg = arg;
}

/* A typed path with a leading "~" or "~user" made the home folder's, as
 * a shell does (a new string; path itself when there is no such home). */
static char *
expand_home(const char *path)
{
	if (path[0] != '~')
		return pl_xstrdup(path);
	size_t ul = strcspn(path + 1, "/");
	const char *home = NULL;
	if (ul == 0)
		home = getenv("HOME");
	else {
		char *user = pl_xstrndup(path + 1, ul);
		struct passwd *pw = getpwnam(user);
		free(user);
		home = pw != NULL ? pw->pw_dir : NULL;
	}
	if (home == NULL || *home == '\0')
		return pl_xstrdup(path);
	return pl_xasprintf("%s%s", home, path + 1 + ul);
}

/* Finish the prompt with text (NULL: cancelled); a path's blanks at
 * either end are dropped and its "~" expanded. */
static void
prompt_finish(struct explore *ex, const char *text)
{
	explore_prompt_fn *done = ex->prompt_done;
	void *arg = ex->prompt_arg;
	char *buf = NULL;
	if (text != NULL) {
		const char *s = text;
		if (ex->prompt == PROMPT_PATH)
			while (*s == ' ' || *s == '\t')
				s++;
		size_t n = strlen(s);
		if (ex->prompt == PROMPT_PATH)
			while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
				n--;
		buf = pl_xstrndup(s, n);
		if (ex->prompt == PROMPT_PATH) {
			char *home = expand_home(buf);
			free(buf);
			buf = home;
		}
	}
	ex->prompt = PROMPT_NONE;
	ex->prompt_done = NULL;
	if (done != NULL)
		done(ex, buf, arg);
	free(buf);
}

/* A prompt's text as the cursor moves over it: where each character
 * starts (starts[i], a byte offset) and the columns before it (cols[i]),
 * n of them, and the end of the text as starts[n] and cols[n].  A
 * combining or zero-width character goes with the one before it.  The
 * text before the cursor and the text from it are read apart, so the
 * cursor is always at a character's start as drawn; a zero-width
 * character at the start of either (with nothing before it to go with)
 * is a character of its own, one column: drawn on a dotted circle (see
 * prompt_put), so that the cursor on it shows. */
struct prompt_map {
	int *starts, *cols;
	int n;
};

/* The map of a prompt's text (freed with prompt_map_free). */
static void
prompt_map(const struct explore *ex, struct prompt_map *pm)
{
	const char *b = ex->prompt_buf;
	int len = ex->prompt_len, pos = ex->prompt_pos, n = 0, used = 0;
	pm->starts = pl_xreallocarray(NULL, (size_t)len + 1, sizeof *pm->starts);
	pm->cols = pl_xreallocarray(NULL, (size_t)len + 1, sizeof *pm->cols);
	for (int i = 0; i < len; ) {
		int cw, part_end = i < pos ? pos : len;
		size_t bytes = screen_char(b + i, (size_t)(part_end - i), &cw);
		int alone = i == 0 || i == pos;	/* nothing before it to go with */
		if (cw == 0 && alone)
			cw = 1;	/* (on the dotted circle) */
		if (cw > 0) {
			pm->starts[n] = i;
			pm->cols[n++] = used;
		}
		used += cw;
		i += (int)bytes;
	}
	pm->starts[n] = len;
	pm->cols[n] = used;
	pm->n = n;
}

/* Free what prompt_map made. */
static void
prompt_map_free(struct prompt_map *pm)
{
	free(pm->starts);
	free(pm->cols);
}

/* The character at byte offset pos: the last that starts at or before
 * it (n: the end). */
static int
prompt_char_at(const struct prompt_map *pm, int pos)
{
	int k = 0;
	while (k < pm->n && pm->starts[k + 1] <= pos)
		k++;
	return k;
}

/* Remove bytes [from, to) of a prompt's text, the cursor at from; a
 * prompt emptied takes typing again (one full stays full until then). */
static void
prompt_cut(struct explore *ex, int from, int to)
{
	char *b = ex->prompt_buf;
	memmove(b + from, b + to, (size_t)(ex->prompt_len - to) + 1);
	ex->prompt_len -= to - from;
	ex->prompt_pos = from;
	if (ex->prompt_len == 0)
		ex->prompt_full = 0;
}

/* Where the word before the cursor starts, as ^W deletes it: the blanks
 * just before the cursor, then what is not blank before them, as bash's
 * unix-word-rubout; in a path '/' ends a word too, as its
 * unix-filename-rubout ("/a/b/c" becomes "/a/b/", then "/a/"). */
static int
prompt_word_start(const struct explore *ex)
{
	const char *b = ex->prompt_buf, *stop = ex->prompt == PROMPT_PATH ? " \t/" : " \t";
	int i = ex->prompt_pos;
	while (i > 0 && strchr(stop, b[i - 1]) != NULL)
		i--;
	while (i > 0 && strchr(stop, b[i - 1]) == NULL)
		i--;
	return i;
}

/* An editing key in a text prompt, readline's way: whether it was one.
 * The cursor moves a whole character at a time (with the combining ones
 * after it). */
static int
prompt_edit(struct explore *ex, int key)
{
	struct prompt_map pm;
	prompt_map(ex, &pm);
	int k = prompt_char_at(&pm, ex->prompt_pos), done = 1;
	int here = pm.starts[k], len = ex->prompt_len;
	ex->prompt_pos = here;
	switch (key) {
	case KEY_LEFT:
	case ACT_CTRL('b'):
		ex->prompt_pos = pm.starts[k > 0 ? k - 1 : 0];
		break;
	case KEY_RIGHT:
	case ACT_CTRL('f'):
		ex->prompt_pos = pm.starts[k < pm.n ? k + 1 : k];
		break;
	case KEY_HOME:
	case ACT_CTRL('a'):
		ex->prompt_pos = 0;
		break;
	case KEY_END:
	case ACT_CTRL('e'):
		ex->prompt_pos = len;
		break;
	case KEY_BACKSPACE:
	case 127:
	case ACT_CTRL('h'):
		if (k > 0)
			prompt_cut(ex, pm.starts[k - 1], here);
		break;
	case KEY_DC:
	case ACT_CTRL('d'):	/* (on nothing: nothing) */
		if (k < pm.n)
			prompt_cut(ex, here, pm.starts[k + 1]);
		break;
	case ACT_CTRL('u'):
		prompt_cut(ex, 0, here);
		break;
	case ACT_CTRL('k'):
		prompt_cut(ex, here, len);
		break;
	case ACT_CTRL('w'):
		prompt_cut(ex, prompt_word_start(ex), here);
		break;
	default:
		done = 0;
	}
	if (done)
		ex->prompt_skip = 0;	/* (a key between a character's bytes) */
	if (ex->prompt_len == 0)	/* (what was dropped past the most */
		ex->prompt_full = 0;	/* is not back until then) */
	prompt_map_free(&pm);
	return done;
}

/* Which character a prompt's text is shown from in room columns, the
 * cursor at character k: the one it was shown from (prompt_view) while
 * the cursor stays in sight, else only as far on or back as brings it
 * in; and further back while the whole rest of the text still fits. */
static int
prompt_scroll(struct explore *ex, const struct prompt_map *pm, int k, int room)
{
	int kv = prompt_char_at(pm, ex->prompt_view);
	if (kv > k)
		kv = k;
	int end = pm->cols[k < pm->n ? k + 1 : k];	/* past the cursor */
	while (kv < k && end - pm->cols[kv] > room)
		kv++;
	while (kv > 0 && pm->cols[pm->n] - pm->cols[kv - 1] <= room)
		kv--;
	ex->prompt_view = pm->starts[kv];
	return kv;
}

/* Draw bytes [from, to) of a prompt's text (whole characters of its map)
 * at (y, x) in at most width columns; the columns drawn.  A zero-width
 * character they start with is drawn on a dotted circle (U+25CC, as
 * editors show a combining mark alone), a column of its own. */
static int
prompt_put(const struct explore *ex, int y, int x, int width, int from, int to)
{
	int cw = 1;
	if (from < to)
		screen_char(ex->prompt_buf + from, (size_t)(to - from), &cw);
	char *s = pl_xasprintf("%s%.*s", cw == 0 ? (screen_utf8() ? "\u25cc" : " ") : "",
	    to - from, ex->prompt_buf + from);
	int used = screen_put(stdscr, y, x, width, 0, s);
	free(s);
	return used;
}

/* A text prompt's text from column x of the status line y to its end: the
 * part that fits around the cursor (see prompt_scroll), the cursor a cell
 * in the selection's colours (a blank one past the end), then "[full]"
 * when some of what was typed was not taken. */
static void
draw_prompt_text(struct explore *ex, int y, int x)
{
	const char *full = ex->prompt_full ? "  [full]" : "";
	int room = COLS - x - 1 - screen_width(full), start = x;
	if (room < 0)
		room = 0;
	struct prompt_map pm;
	prompt_map(ex, &pm);
	int k = prompt_char_at(&pm, ex->prompt_pos);
	int kv = prompt_scroll(ex, &pm, k, room);
	x += prompt_put(ex, y, x, room, pm.starts[kv], pm.starts[k]);
	if (k < pm.n) {
		attrset(screen_attr(SCR_SELECT));
		x += prompt_put(ex, y, x, start + room - x, pm.starts[k], pm.starts[k + 1]);
		attrset(screen_attr(SCR_STATUS));
		x += prompt_put(ex, y, x, start + room - x, pm.starts[k + 1], ex->prompt_len);
		if (x < COLS)
			x++;	/* where the cursor goes at the end */
	} else {
		attrset(screen_attr(SCR_SELECT));
		if (x < COLS)
			x += screen_put(stdscr, y, x, 1, 1, " ");
	}
	attrset(screen_attr(SCR_ERROR));
	if (x < COLS)
		screen_put(stdscr, y, x, COLS - x, 0, full);
	prompt_map_free(&pm);
}

/* A key while a prompt is open. */
static void
prompt_key(struct explore *ex, int key)
{
	if (key == 27 || key == ACT_CTRL('g')) {
		prompt_finish(ex, NULL);
		return;
	}
	if (ex->prompt == PROMPT_KEY) {
		char s[2] = { (char)key, 0 };
		if (key > 0 && key < 256)
			prompt_finish(ex, s);
		return;
	}
	if ((key == '\r' || key == '\n' || key == KEY_ENTER) && ex->prompt_full) {
		/* what was typed is not all there: never used cut short */
		const char *what = ex->prompt == PROMPT_PATH ? "path" : "prompt";
		prompt_finish(ex, NULL);
		explore_message(ex, 1, "not taken: more than %d bytes (the most a %s holds)",
		    EXPLORE_PROMPT_MAX - 1, what);
		return;
	}
	if (key == '\r' || key == '\n' || key == KEY_ENTER) {
		prompt_finish(ex, ex->prompt_buf);
		return;
	}
	if (key >= 32 && key < 256 && key != 127)
		prompt_add(ex, key);
	else
		prompt_edit(ex, key);
}

/* The search prompt: it opens empty; Enter on nothing repeats the last. */
#define SEARCH_PROMPT "Search ops by name or type: "

/* Case-insensitive substring. */
static int
contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (strncasecmp(p, needle, n) == 0)
			return 1;
	return n == 0;
}

/* Jump to match k (wrapping). */
static void
search_go(struct explore *ex, int dir)
{
	if (ex->n_matches == 0) {
		explore_message(ex, 1, "no op matches '%s'", ex->search != NULL ? ex->search : "");
		return;
	}
	ex->match_pos = ((ex->match_pos + dir) % ex->n_matches + ex->n_matches) % ex->n_matches;
	explore_select(ex, ex->matches[ex->match_pos]);
	const struct pl_op *o = &ex->g->ops[ex->sel_op];
	explore_message(ex, 0, "match %d of %d for '%s': %s (%s)", ex->match_pos + 1,
	    ex->n_matches, ex->search, o->name, o->type);
}

/* The search prompt's answer. */
static void
search_done(struct explore *ex, const char *text, void *arg)
{
	(void)arg;
	if (text == NULL)
		return;
	if (*text == '\0') {	/* the last search again, shown as a new one is */
		if (ex->search != NULL) {
			if (ex->view != 0 && ex->view != 1)
				explore_show(ex, 0);
			search_go(ex, 1);
		}
		return;
	}
	free(ex->search);
	ex->search = pl_xstrdup(text);
	free(ex->matches);
	ex->matches = pl_xcalloc(ex->g->n_ops, sizeof *ex->matches);
	ex->n_matches = 0;
	for (int v = 0; v < ex->g->n_ops; v++)
		if (contains_ci(ex->g->ops[v].name, text) || contains_ci(ex->g->ops[v].type, text))
			ex->matches[ex->n_matches++] = v;
	ex->match_pos = -1;
	if (ex->view != 0 && ex->view != 1)
		explore_show(ex, 0);
	search_go(ex, 1);
}

/* Undo and redo steps as one list: step i. */
static struct explore_undo *
step_at(struct explore *ex, int i)
{
	return i < ex->n_undo ? &ex->undo[i] : &ex->redo[i - ex->n_undo];
}

/* A placement whose file (*file, a real path) is rp says that the file
 * no longer holds it: its source gains "(since overwritten)". */
static void
mark_overwritten(char **source, char **file, const char *rp)
{
	if (*file == NULL || strcmp(*file, rp) != 0)
		return;
	char *s = pl_xasprintf("%s (since overwritten)", *source);
	free(*source);
	*source = s;
	free(*file);
	*file = NULL;
}

/* The file at path (real path rp) now holds keep (NULL: no placement):
 * undo and redo steps that came from it with another placement say it no
 * longer holds them. */
static void
overwritten(struct explore *ex, const char *rp, const struct pl_placement *keep)
{
	for (int i = 0; i < ex->n_undo + ex->n_redo; i++) {
		struct explore_undo *u = step_at(ex, i);
		if (keep == NULL || !pl_placement_equal(u->pl, keep))
			mark_overwritten(&u->source, &u->source_file, rp);
	}
}

/* The file at path now holds cur (see explore.h). */
void
explore_saved_to(struct explore *ex, const char *path)
{
	free(ex->save_path);
	ex->save_path = pl_xstrdup(path);
	pl_placement_copy(ex->clean, ex->cur);
	char *rp = realpath(path, NULL);
	if (rp != NULL) {
		overwritten(ex, rp, ex->cur);
		free(ex->source_file);
		ex->source_file = pl_xstrdup(rp);
	}
	free(ex->clean_file);
	ex->clean_file = rp;
	ex->clean_lost = 0;
	ex->dirty = 0;
}

/* Export replaced path with another kind of file (see explore.h). */
void
explore_file_replaced(struct explore *ex, const char *path)
{
	char *rp = realpath(path, NULL);
	if (rp == NULL)
		return;
	overwritten(ex, rp, NULL);
	mark_overwritten(&ex->source, &ex->source_file, rp);
	if (ex->clean_file != NULL && strcmp(ex->clean_file, rp) == 0)
		ex->clean_lost = 1;
	/* 'w' no longer writes there unasked, also after an undo */
	if (ex->save_path != NULL && pl_file_same(ex->save_path, path)) {
		free(ex->save_path);
		ex->save_path = NULL;
	}
	for (int i = 0; i < ex->n_undo + ex->n_redo; i++) {
		struct explore_undo *u = step_at(ex, i);
		if (u->save_path != NULL && pl_file_same(u->save_path, path)) {
			free(u->save_path);
			u->save_path = NULL;
		}
	}
	ex->dirty = edits_unsaved(ex);
	free(rp);
}

/* The real path of the file a write to path replaces, or of the file it
 * would create (its folder's real path and its last name; through a
 * symbolic link to a file not made yet, the file the link names); NULL
 * when the folder is not there. */
static char *
write_key(const char *given)
{
	char *target = pl_file_write_target(given);	/* (a dangling link's) */
	const char *path = target;
	char *rp = realpath(path, NULL);
	if (rp != NULL) {
		free(target);
		return rp;
	}
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL ? pl_xstrdup(".") :
	    slash == path ? pl_xstrdup("/") : pl_xstrndup(path, (size_t)(slash - path));
	char *rdir = realpath(dir, NULL);
	free(dir);
	if (rdir == NULL) {
		free(target);
		return NULL;
	}
	const char *base = slash == NULL ? path : slash + 1;
	char *key = pl_xasprintf("%s%s%s", rdir, strcmp(rdir, "/") == 0 ? "" : "/", base);
	free(rdir);
	free(target);
	return key;
}

/* Whether an export in flight or waiting will write path (see
 * explore.h). */
int
explore_writing(const struct explore *ex, const char *path)
{
	char *key = write_key(path);
	int w = being_written(ex, key);
	free(key);
	return w;
}

/* An export starts writing path (see explore.h). */
void
explore_write_begin(struct explore *ex, const char *path)
{
	char *rp = write_key(path);	/* (a file it creates too) */
	if (rp == NULL)	/* no folder: the write fails */
		return;
	ex->writing = pl_xreallocarray(ex->writing, (size_t)ex->n_writing + 1, sizeof *ex->writing);
	ex->writing[ex->n_writing++] = rp;
	ex->dirty = edits_unsaved(ex);
}

/* An export's write of path ended (see explore.h). */
void
explore_write_end(struct explore *ex, const char *path, int ok)
{
	char *rp = write_key(path);
	for (int i = 0; rp != NULL && i < ex->n_writing; i++)
		if (strcmp(ex->writing[i], rp) == 0) {
			free(ex->writing[i]);
			ex->writing[i] = ex->writing[--ex->n_writing];
			break;
		}
	free(rp);
	if (ok)
		explore_file_replaced(ex, path);
	ex->dirty = edits_unsaved(ex);
}

/* Write the current placement to path (quitting: then quit). */
static void
save_now(struct explore *ex, const char *path, int quitting)
{
	char *cause = NULL;
	if (pl_placement_save_json(ex->cur, ex->g, ex->c, path, &cause) != 0) {
		explore_message(ex, 1, "not saved: %s", cause);
		free(cause);
		return;
	}
	explore_saved_to(ex, path);
	explore_message(ex, 0, "saved the placement of %d ops to %s", ex->g->n_ops, path);
	if (quitting)
		ex->quit = 1;
}

/* The answer to "exists: overwrite?" (arg non-NULL: quitting). */
static void
overwrite_done(struct explore *ex, const char *text, void *arg)
{
	char *path = ex->save_asked;
	ex->save_asked = NULL;
	if (explore_said_yes(text))
		save_now(ex, path, arg != NULL);
	else
		explore_message(ex, 0, "not saved: %s kept as it was", path);
	free(path);
}

/* The save prompt's answer (arg non-NULL: saving before quitting): an
 * input file is refused; another file that exists is replaced only when
 * the user says so, except the one this placement was opened from or
 * last saved to. */
static void
save_done(struct explore *ex, const char *path, void *arg)
{
	if (path == NULL)	/* cancelled */
		return;
	if (*path == '\0') {
		explore_message(ex, 1, "not saved: no file name given");
		return;
	}
	char *cause = explore_input_clash(ex, path);
	if (cause != NULL) {
		explore_message(ex, 1, "not saved: %s", cause);
		free(cause);
		return;
	}
	if (explore_writing(ex, path)) {	/* it would replace this save */
		explore_message(ex, 1, "not saved: an export is still writing %s (wait for it, or choose another name)", path);
		return;
	}
	struct stat st;
	int exists = stat(path, &st) == 0;
	if (exists && (ex->save_path == NULL || !pl_file_same(path, ex->save_path))) {
		free(ex->save_asked);
		ex->save_asked = pl_xstrdup(path);
		explore_ask_overwrite(ex, path, overwrite_done, arg);
		return;
	}
	save_now(ex, path, arg != NULL);
}

/* Open a placement file. */
static void
open_done(struct explore *ex, const char *path, void *arg)
{
	(void)arg;
	if (path == NULL)	/* cancelled */
		return;
	if (*path == '\0') {
		explore_message(ex, 1, "nothing opened: no file name given");
		return;
	}
	char *cause = NULL, *warning = NULL;
	/* (the warning goes to the status line: stderr is the screen) */
	struct pl_placement *pl = pl_placement_load_json(path, ex->g, ex->c, &warning, &cause);
	if (pl == NULL) {
		explore_message(ex, 1, "%s", cause);
		free(cause);
		return;
	}
	char *src = pl_xasprintf("file %s", base_name(path));
	explore_set_placement(ex, pl, src, 0);
	free(src);
	free(ex->source_file);
	ex->source_file = realpath(path, NULL);
	pl_placement_copy(ex->clean, pl);	/* what the file holds (dirty is
						 * 0: a take is origin too) */
	pl_placement_free(pl);
	free(ex->clean_file);
	ex->clean_file = ex->source_file != NULL ? pl_xstrdup(ex->source_file) : NULL;
	ex->clean_lost = 0;
	free(ex->save_path);
	ex->save_path = pl_xstrdup(path);
	if (warning != NULL)
		explore_message(ex, 1, "opened %s; %s", path, warning);
	else
		explore_message(ex, 0, "opened %s", path);
	free(warning);
}

/* name as one safe file name component of at most max bytes (whole
 * characters), appended to sb: separators and control characters become
 * '_', and leading dots and '_' are dropped (so no "..", no hidden file);
 * "x" when nothing is left. */
static void
safe_component(struct pl_strbuf *sb, const char *name, size_t max)
{
	size_t start = sb->len;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		int bad = *p == '/' || *p == '\\' || *p < 32 || *p == 127;
		if (sb->len == start && (bad || *p == '.' || *p == '_'))
			continue;
		char c = bad ? '_' : (char)*p;
		pl_sb_put(sb, &c, 1);
	}
	if (sb->len - start > max)
		sb->len = start + pl_utf8_cut(sb->s + start, sb->len - start, max);
	if (sb->len == start)
		pl_sb_put(sb, "x", 1);
	sb->s[sb->len] = '\0';
}

/* "GRAPH-CLUSTER", each name made a safe file name component; at most
 * 180 bytes, so that with any suffix the name stays below the 255 bytes
 * a file name may have. */
char *
explore_file_stem(const struct explore *ex)
{
	struct pl_strbuf sb = { 0 };
	safe_component(&sb, ex->g->name, 120);
	pl_sb_put(&sb, "-", 1);
	safe_component(&sb, ex->c->name, 59);
	return pl_sb_take(&sb);
}

/* The default path to save to. */
static char *
default_save_path(const struct explore *ex)
{
	if (ex->save_path != NULL)
		return pl_xstrdup(ex->save_path);
	char *stem = explore_file_stem(ex);
	char *path = pl_xasprintf("%s.placement.json", stem);
	free(stem);
	return path;
}

/* The answer to "unsaved edits" on quit. */
static void
quit_done(struct explore *ex, const char *text, void *arg)
{
	(void)arg;
	if (text == NULL)
		return;
	/* only d discards: a "yes" (y) or a second q may mean to save */
	if (*text == 'd') {
		ex->quit = 1;
	} else if (*text == 's') {
		char *path = default_save_path(ex);
		explore_prompt(ex, PROMPT_PATH, "Save placement to: ", path, save_done, ex);
		free(path);
	} else
		explore_message(ex, 0, "not quit: at the question, d discards and quits, s saves");
}

/* Quit, or ask first when something would be lost; asked after ^C
 * (by_ctrl_c), the question says that a second ^C discards too. */
static void
ask_quit(struct explore *ex, int by_ctrl_c)
{
	const char *answers = by_ctrl_c ? "(s)ave, (d)iscard and quit (^C too), Esc cancel? "
	    : "(s)ave, (d)iscard and quit, Esc cancel? ";
	char *q;
	if (ex->dirty)
		q = pl_xasprintf("Unsaved edits: %s", answers);
	else if (explore_unsaved(ex))
		q = pl_xasprintf("The placement from %s is not saved: %s", ex->source, answers);
	else {
		ex->quit = 1;
		return;
	}
	explore_prompt(ex, PROMPT_KEY, q, NULL, quit_done, NULL);
	free(q);
}

/* Write text to a new file named after base (STEM.recovered.json,
 * STEM.recovered-N.json: the first name not taken, never over a file)
 * in dir (NULL: base's own folder).  The name, or NULL with *cause. */
static char *
write_recovery(const char *base, const char *dir, const char *text, char **cause)
{
	const char *b = strrchr(base, '/');
	char *stem = dir == NULL ? pl_xstrdup(base) :
	    pl_xasprintf("%s/%s", dir, b != NULL ? b + 1 : base);
	size_t n = strlen(stem);
	if (n > 5 && strcmp(stem + n - 5, ".json") == 0)
		stem[n - 5] = '\0';
	char *path = NULL;
	for (int i = 1; i <= 1000; i++) {
		free(path);
		path = i == 1 ? pl_xasprintf("%s.recovered.json", stem) :
		    pl_xasprintf("%s.recovered-%d.json", stem, i);
		char *why = NULL;
		if (pl_file_write_new(path, text, strlen(text), &why) == 0) {
			free(stem);
			return path;
		}
		if (why != NULL) {	/* not a name taken: this folder will not do */
			free(*cause);
			*cause = why;
			break;
		}
	}
	if (*cause == NULL)
		*cause = pl_xasprintf("%s.recovered-1000.json and every name before it are taken", stem);
	free(stem);
	free(path);
	return NULL;
}

/* SIGHUP or SIGTERM (see explore.h): the placement goes beside the file it
 * would be saved to, else to the working folder, else to the folder for
 * temporary files; named after that file, else (a name too long for the
 * suffix) placelab.placement.recovered.json. */
void
explore_hangup(struct explore *ex, int sig)
{
	ex->quit = 1;
	ex->hangup = sig;
	if (!ex->dirty && !explore_unsaved(ex))
		return;
	char *text = pl_placement_to_json(ex->cur, ex->g, ex->c), *cause = NULL;
	char *base = default_save_path(ex);
	const char *tmpdir = getenv("TMPDIR");
	const char *dirs[] = { NULL, ".", tmpdir != NULL && *tmpdir ? tmpdir : "/tmp" };
	for (int named = 1; named >= 0 && ex->recovered == NULL; named--)
		for (size_t k = named ? 0 : 1; k < sizeof dirs / sizeof dirs[0] && ex->recovered == NULL; k++)
			ex->recovered = write_recovery(named ? base : "placelab.placement.json", dirs[k],
			    text, &cause);
	if (ex->recovered == NULL)
		ex->recover_error = cause;
	else
		free(cause);
	free(base);
	free(text);
}

/* ^C: quit as q does (asking first when something would be lost),
 * whatever prompt or help is open; ^C at the quit question quits. */
void
explore_interrupt(struct explore *ex)
{
	if (ex->prompt != PROMPT_NONE && ex->prompt_done == quit_done) {
		ex->quit = ex->interrupted = 1;
		return;
	}
	if (ex->prompt != PROMPT_NONE)
		prompt_finish(ex, NULL);
	ex->help = 0;
	if (!ex->quit)
		ask_quit(ex, 1);
	ex->interrupted = ex->quit;
}

/* ---- actions ----------------------------------------------------------------- */

/* Switch views. */
void
explore_show(struct explore *ex, int i)
{
	if (i < 0 || i >= EXPLORE_N_VIEWS)
		return;
	if (i != ex->view) {	/* a message belongs to the view it came from */
		free(ex->msg);
		ex->msg = NULL;
	}
	ex->view = i;
	ex->help = 0;
	if (ex->views[i].cls->shown != NULL)
		ex->views[i].cls->shown(&ex->views[i]);
}

/* Perform a named action. */
int
explore_action(struct explore *ex, enum tui_action a)
{
	if (a == ACT_NONE)
		return 0;
	if (ex->help) {
		switch (a) {
		case ACT_UP: ex->help_top--; return 1;
		case ACT_DOWN: ex->help_top++; return 1;
		case ACT_PAGE_UP: ex->help_top -= 10; return 1;
		case ACT_PAGE_DOWN: ex->help_top += 10; return 1;
		case ACT_HOME: ex->help_top = 0; return 1;
		case ACT_END: ex->help_top = ACT_COUNT; return 1;
		case ACT_QUIT:
		case ACT_CANCEL:
		case ACT_HELP: ex->help = 0; return 1;
		case ACT_REDRAW: clearok(curscr, TRUE); return 1;
		default:
			ex->help = 0;
			break;
		}
	}
	if (!screen_big_enough() && a != ACT_QUIT && a != ACT_REDRAW)
		return 0;
	struct view *v = &ex->views[ex->view];
	if (v->cls->action != NULL && (v->cls->action(v, a) & VIEW_HANDLED))
		return 1;
	switch (a) {
	case ACT_QUIT:
		ask_quit(ex, 0);
		return 1;
	case ACT_HELP:
		ex->help = 1;
		ex->help_top = 0;
		return 1;
	case ACT_NEXT_VIEW:
		explore_show(ex, (ex->view + 1) % EXPLORE_N_VIEWS);
		return 1;
	case ACT_PREV_VIEW:
		explore_show(ex, (ex->view + EXPLORE_N_VIEWS - 1) % EXPLORE_N_VIEWS);
		return 1;
	case ACT_VIEW_OPS: case ACT_VIEW_TIMELINE: case ACT_VIEW_DEVICES:
	case ACT_VIEW_PLACETO: case ACT_VIEW_BRKGA: case ACT_VIEW_COMPARE:
	case ACT_VIEW_EXPORT:
		explore_show(ex, (int)(a - ACT_VIEW_OPS));
		return 1;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		return 1;
	case ACT_CANCEL:
		free(ex->msg);
		ex->msg = NULL;
		return 1;
	case ACT_SEARCH:
		explore_prompt(ex, PROMPT_TEXT, SEARCH_PROMPT, NULL, search_done, NULL);
		return 1;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		if (ex->search == NULL) {
			explore_prompt(ex, PROMPT_TEXT, SEARCH_PROMPT, NULL, search_done, NULL);
			return 1;
		}
		search_go(ex, a == ACT_SEARCH_NEXT ? 1 : -1);
		return 1;
	case ACT_CRIT_NEXT: {
		if (ex->tr == NULL || ex->tr->n_critical == 0)
			return 1;
		int k = 0;
		for (int i = 0; i < ex->tr->n_critical; i++)
			if (ex->tr->critical[i] == ex->sel_op)
				k = (i + 1) % ex->tr->n_critical;
		explore_select(ex, ex->tr->critical[k]);
		explore_message(ex, 0, "critical path: op %d of %d", k + 1, ex->tr->n_critical);
		return 1;
	}
	case ACT_DEV_NEXT:
	case ACT_DEV_PREV:
		if (ex->sel_op < 0) {
			explore_message(ex, 1, "select an op first");
			return 1;
		}
		{
			int d = explore_next_device(ex, &ex->sel_op, 1, a == ACT_DEV_NEXT ? 1 : -1);
			const struct pl_op *op = &ex->g->ops[ex->sel_op];
			uint64_t own = ex->p->allowed[ex->sel_op];
			if (d < 0 && (own & (own - 1)) != 0 && ex->g->groups[op->group].name != NULL)
				explore_message(ex, 1, "%s can run on no other device with its colocation "
				    "group %s", op->name, ex->g->groups[op->group].name);
			else if (d < 0)
				explore_message(ex, 1, "%s can run on no other device", op->name);
			else
				explore_move_ops(ex, &ex->sel_op, 1, d);
		}
		return 1;
	case ACT_UNDO:
	case ACT_REDO: {
		int undo = a == ACT_UNDO;
		struct explore_undo *from = undo ? ex->undo : ex->redo;
		int *n_from = undo ? &ex->n_undo : &ex->n_redo;
		if (*n_from == 0) {
			explore_message(ex, 0, undo ? "nothing to undo" : "nothing to redo");
			return 1;
		}
		/* the current placement goes on the other stack, the step
		 * becomes current as it was made: a hand edit, or a placement
		 * taken from elsewhere, which is origin again (no edits to
		 * keep); clean stays, the session's file is the step's, and no
		 * search replaces what undo or redo brought back */
		steps_push(ex, undo ? ex->redo : ex->undo, undo ? &ex->n_redo : &ex->n_undo);
		struct explore_undo *u = &from[--*n_from];
		set_current(ex, u->pl, u->source, u->edit, 0, NULL);
		ex->source_file = u->source_file;	/* set_current cleared it */
		free(ex->save_path);
		ex->save_path = u->save_path;
		ex->dirty = edits_unsaved(ex);	/* with the file that holds it */
		pl_placement_free(u->pl);
		free(u->source);
		explore_message(ex, 0, "%s: the placement from %s (%d more)", undo ? "undone" : "redone",
		    ex->source, *n_from);
		return 1;
	}
	case ACT_SAVE: {
		char *path = default_save_path(ex);
		explore_prompt(ex, PROMPT_PATH, "Save placement to: ", path, save_done, NULL);
		free(path);
		return 1;
	}
	case ACT_OPEN:
		if (explore_edits_block(ex))
			return 1;
		explore_prompt(ex, PROMPT_PATH, "Open placement: ", ex->save_path, open_done, NULL);
		return 1;
	default:
		return 0;
	}
}

/* A mouse event at screen (y, x). */
static int
mouse_event(struct explore *ex, int y, int x, mmask_t b)
{
	if (b & BUTTON4_PRESSED)
		return explore_action(ex, ACT_UP);
	if (b & BUTTON5_PRESSED)
		return explore_action(ex, ACT_DOWN);
	if (!screen_big_enough())
		return 0;
	if (y == 0) {
		for (int i = 0; i < EXPLORE_N_VIEWS; i++) {
			int tx, tw = tab_layout(i, &tx);
			if (x >= tx && x < tx + tw) {
				explore_show(ex, i);
				return 1;
			}
		}
		return 0;
	}
	struct view *v = &ex->views[ex->view];
	const struct view_rect *r = &v->last;
	if (ex->help || v->cls->click == NULL)
		return 0;
	if (y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w)
		return v->cls->click(v, y - r->y, x - r->x) != 0;
	return 0;
}

static int key_action(struct explore *ex, int key);

/* Handle one key: a message already shown goes with the next key that
 * does something, unless that key says something itself (as in less or
 * vi), so that old news never stands beside what the user does next. */
int
explore_key(struct explore *ex, int key)
{
	if (key == KEY_RESIZE) {
		explore_resize(ex);
		return 1;
	}
	/* ESC with a key sequence right behind it is a key curses does not
	 * know (Alt-x, Shift-Left in some terminals): dropped whole, never
	 * read as Esc and then keys */
	if (key == 27) {
		int alt = screen_drop_escape();
		/* Alt-Backspace in a text prompt: ^W, as readline has it */
		if (alt == 2 && ex->prompt != PROMPT_NONE && ex->prompt != PROMPT_KEY)
			key = ACT_CTRL('w');
		else if (alt)
			return 1;
	}
	if (ex->prompt != PROMPT_NONE) {
		/* what came with a text prompt's Enter (a paste's next lines)
		 * is no command: dropped before the answer runs */
		if (ex->prompt != PROMPT_KEY && (key == '\r' || key == '\n' || key == KEY_ENTER))
			screen_drain_input();
		prompt_key(ex, key);
		return 1;
	}
	unsigned gen = ex->msg_gen;
	int done = key_action(ex, key);
	if (done && ex->msg != NULL && ex->msg_gen == gen) {
		free(ex->msg);
		ex->msg = NULL;
	}
	return done;
}

/* What a key (not a prompt's) does. */
static int
key_action(struct explore *ex, int key)
{
	if (key == KEY_MOUSE) {
		MEVENT ev;
		if (getmouse(&ev) != OK)
			return 0;
		return mouse_event(ex, ev.y, ev.x, ev.bstate);
	}
	if (key == '\n')
		key = '\r';
	enum tui_action a = ACT_NONE;
	if (ex->help)	/* the help scrolls over any view */
		a = tui_action_for_key(key, AV_HELP_INDEX);
	if (a == ACT_NONE)
		a = tui_action_for_key(key, ex->view);
	if (a == ACT_NONE)
		return 0;
	return explore_action(ex, a);
}

/*
 * Time slices for the views' background work, in view order (a view may
 * use what an earlier one did in the same slice).  A view with work may
 * spend the rest of the slice waiting for its steps, so the views before
 * the favoured one get none of it (they start a step, which runs on its
 * own thread, and return), and the favour passes to the next view with
 * work: two searches running at once take turns.
 */
int
explore_tick(struct explore *ex, double deadline)
{
	unsigned more = 0;
	for (int i = 0; i < EXPLORE_N_VIEWS; i++) {
		struct view *v = &ex->views[i];
		double d = i < ex->tick_first ? pl_now_s() : deadline;
		if (v->cls->tick != NULL && v->cls->tick(v, d))
			more |= 1u << i;
	}
	int next = 0;	/* the next view with work after the favoured, cyclically */
	for (int j = 1; j <= EXPLORE_N_VIEWS; j++) {
		int i = (ex->tick_first + j) % EXPLORE_N_VIEWS;
		if (more & 1u << i) {
			next = i;
			break;
		}
	}
	ex->tick_first = next;
	ex->busy = more != 0;
	return more != 0;
}

/* The main loop. */
int
explore_run(struct explore *ex)
{
	int need_draw = 1, busy = 1;
	while (!ex->quit) {
		if (need_draw) {
			explore_draw(ex);
			doupdate();
			need_draw = 0;
		}
		wtimeout(stdscr, busy ? 0 : 500);
		int ch = wgetch(stdscr);
		if (ch != ERR) {
			need_draw |= explore_key(ex, ch);
			busy = 1;
		}
		int hs = screen_hungup();
		if (hs != 0) {	/* the terminal closed, or a kill */
			explore_hangup(ex, hs);
			break;
		}
		if (screen_interrupted()) {	/* ^C */
			explore_interrupt(ex);
			need_draw = 1;
			continue;
		}
		if (ch != ERR)
			continue;
		if (busy) {
			/* a slice of background work, then show what it did */
			busy = explore_tick(ex, pl_now_s() + EXPLORE_SLICE_S);
			need_draw = 1;
		}
		char said[200];
		if (screen_stderr_news(said, sizeof said)) {
			explore_message(ex, 1, "stderr: %s (printed in full on exit)", said);
			need_draw = 1;
		}
	}
	return 0;
}

/* ---- the action table (action.h) ------------------------------------------ */

const struct tui_action_def tui_actions[] = {
#define ACT_X(e, n, w, k1, k2, h) { ACT_##e, n, w, k1, k2, h },
	TUI_ACTIONS(ACT_X)
#undef ACT_X
};

/* The action of a key in a view: the view's own row first, then AV_ALL. */
enum tui_action
tui_action_for_key(int key, int view)
{
	unsigned bit = 1u << view;
	enum tui_action global = ACT_NONE;
	for (int i = 0; i < ACT_COUNT - 1; i++) {
		const struct tui_action_def *a = &tui_actions[i];
		if (a->key != key && (a->alt == 0 || a->alt != key))
			continue;
		if (a->where == AV_ALL) {
			if (global == ACT_NONE)
				global = a->action;
		} else if (a->where & bit)
			return a->action;
	}
	return global;
}

/* An action by its name. */
enum tui_action
tui_action_by_name(const char *name)
{
	for (int i = 0; i < ACT_COUNT - 1; i++)
		if (strcmp(tui_actions[i].name, name) == 0)
			return tui_actions[i].action;
	return ACT_NONE;
}

/* The name of an action. */
const char *
tui_action_name(enum tui_action a)
{
	if (a <= ACT_NONE || a >= ACT_COUNT)
		return "none";
	return tui_actions[a - 1].name;
}

/* Printable key name. */
const char *
tui_key_name(int key, char *buf, int len)
{
	static const struct { int key; const char *name; } named[] = {
		{ '\t', "Tab" }, { KEY_BTAB, "S-Tab" }, { ' ', "Space" },
		{ '\r', "Enter" }, { KEY_ENTER, "Enter" }, { 27, "Esc" },
		{ KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" },
		{ KEY_RIGHT, "Right" }, { KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" },
		{ KEY_HOME, "Home" }, { KEY_END, "End" }, { KEY_F(1), "F1" },
	};
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (named[i].key == key) {
			snprintf(buf, len, "%s", named[i].name);
			return buf;
		}
	if (key > 0 && key < 32)
		snprintf(buf, len, "^%c", key + '@');
	else if (key >= 32 && key < 127)
		snprintf(buf, len, "%c", key);
	else
		snprintf(buf, len, "#%d", key);
	return buf;
}
