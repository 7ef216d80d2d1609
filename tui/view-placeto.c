/*
 * view-placeto — step Placeto's MDP: one decision (`n`), one episode
 * (`e`), or run/pause (Space).  Shows the group being placed and its
 * neighbourhood, its features, the policy's probabilities over devices as
 * bars, the action, the run time before and after, the reward and the
 * return, and the learning curve (final run time per episode).  A trained
 * policy can be loaded (zero-shot, `L`); without one the policy trains
 * live.
 *
 * Invariant: the view follows worker 0 of the placer; curve[] holds the
 * final run time of every episode the placer has finished (all workers'),
 * in order, so point i is episode i + 1 as the header numbers them.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "placer.h"
#include "placers/placeto.h"
#include "screen.h"
#include "view.h"
#include "strbuf.h"
#include "xmalloc.h"

struct placeto_view {
	struct explore *ex;
	struct view_run run;
	char *policy;		/* loaded policy path, or NULL: train live */
	char *opts;		/* Placeto options (k=v,...), or NULL: defaults */
	char *held;		/* options a loaded policy fixes, taken out of
				 * opts: given back when training live again */
	char *refused;		/* why the last policy or options were refused */
	double *curve, *curve_best;
	int n_curve, cap_curve;
	int *seen;		/* scratch: group marks */
	int n_seen;
};

/* Take in the episodes finished by the step for the learning curve. */
static void
on_step(struct view_run *r)
{
	struct placeto_view *p = r->arg;
	long n;
	const struct pl_placeto_episode_log *lg = pl_placeto_episodes(r->pl, &n);
	for (; p->n_curve < n; p->n_curve++) {
		if (p->n_curve == p->cap_curve) {
			p->cap_curve = p->cap_curve ? p->cap_curve * 2 : 64;
			p->curve = pl_xreallocarray(p->curve, p->cap_curve, sizeof *p->curve);
			p->curve_best = pl_xreallocarray(p->curve_best, p->cap_curve, sizeof *p->curve_best);
		}
		double prev = p->n_curve > 0 ? p->curve_best[p->n_curve - 1] : INFINITY;
		p->curve[p->n_curve] = lg[p->n_curve].final_us;
		p->curve_best[p->n_curve] = fmin(prev, lg[p->n_curve].final_us);
	}
}

/* Whether worker 0 has just finished an episode (ends `e`). */
static int
episode_over(struct view_run *r)
{
	const struct pl_placeto_decision *d = pl_placeto_last(r->pl);
	return d == NULL || d->t == pl_placeto_n_groups(r->pl) - 1;
}

/* The options the teaching mode starts with: the reference's defaults keep
 * the policy near uniform (entropy weight 1) or saturated (sums over
 * paths, and raw start offsets in us at the last node, whose offsets are
 * all <= 0), so a demo's learning curve would not fall; these learn
 * within a few hundred episodes on the teaching graph.  O shows and
 * changes them. */
#define DEMO_OPTIONS "mp=mean,pool=mean,reward=relative,entropy=0.01,start-norm=absmax"

/* The placer's option text for a policy and options (NULL each: none). */
static char *
optspec(const char *policy, const char *opts)
{
	if (policy != NULL)
		return pl_xasprintf("policy=%s%s%s", policy, opts != NULL ? "," : "",
		    opts != NULL ? opts : "");
	return opts != NULL ? pl_xstrdup(opts) : NULL;
}

/* (Re)start with the loaded policy or training live. */
static int
restart(struct placeto_view *p)
{
	free(p->run.optspec);
	p->run.optspec = optspec(p->policy, p->opts);
	p->n_curve = 0;
	int rc = view_run_restart(&p->run);
	if (rc == 0) {
		free(p->seen);
		p->n_seen = pl_placeto_n_groups(p->run.pl);
		p->seen = pl_xcalloc(p->n_seen > 0 ? p->n_seen : 1, sizeof *p->seen);
	}
	return rc;
}

/* Forget the last refusal (the user has moved on). */
static void
clear_refused(struct placeto_view *p)
{
	free(p->refused);
	p->refused = NULL;
}

/* Restart with a new policy and options (each NULL: none; the view takes
 * them) if Placeto can start with them; if not, keep the current ones and
 * the run as they are, and say why.  0 or -1. */
static int
reconfigure(struct placeto_view *p, char *policy, char *opts, const char *what)
{
	char *spec = optspec(policy, opts);
	char *why = view_run_refusal(p->ex, "placeto", spec);
	free(spec);
	if (why != NULL) {
		free(p->refused);
		p->refused = pl_xasprintf("Not used (Placeto keeps its current %s): %s", what, why);
		explore_message(p->ex, 1, "%s", p->refused);
		free(why);
		free(policy);
		free(opts);
		return -1;
	}
	clear_refused(p);
	free(p->policy);
	free(p->opts);
	p->policy = policy;
	p->opts = opts;
	return restart(p);
}

/* The episode that found the placer's best (the placer records it as
 * the best is kept: in the driver's simulator, one that fits first). */
static void
best_when(const struct view_run *r, char *buf, size_t n)
{
	long episode;
	int greedy;
	if (pl_placeto_best_episode(r->pl, &episode, &greedy) != 0)
		return;
	if (greedy)
		snprintf(buf, n, "its greedy episode");
	else
		snprintf(buf, n, "episode %ld", episode + 1);
}

/* Create the view (the placer is created on first use). */
static void *
pv_init(struct explore *ex)
{
	struct placeto_view *p = pl_xcalloc(1, sizeof *p);
	p->ex = ex;
	if (ex->opts.demo)	/* a class sees the curve fall (docs/PLACETO.md) */
		p->opts = pl_xstrdup(DEMO_OPTIONS);
	view_run_init(&p->run, ex, "placeto", p->opts);
	p->run.on_step = on_step;
	p->run.stop = episode_over;
	p->run.best_when = best_when;
	p->run.step_noun = "decision";
	p->run.arg = p;
	p->run.fresh = 1;
	return p;
}

/* Free the view and its placer. */
static void
pv_free(void *priv)
{
	struct placeto_view *p = priv;
	view_run_free(&p->run);
	free(p->policy);
	free(p->opts);
	free(p->held);
	free(p->refused);
	free(p->curve);
	free(p->curve_best);
	free(p->seen);
	free(p);
}

/* The group's neighbours (groups with an edge to or from it). */
static void
draw_neighbours(struct placeto_view *p, WINDOW *w, int y, int x, int width, int rows,
    int group, const struct pl_placement *pl)
{
	const struct pl_placer *pc = p->run.pl;
	const struct pl_graph *g = p->ex->g;
	const int *of = pl_placeto_group_of(pc);
	int n;
	const int *ops = pl_placeto_group_ops(pc, group, &n);
	memset(p->seen, 0, p->n_seen * sizeof *p->seen);
	p->seen[group] = 3;
	int nw = width * 2 / 5;	/* the device column: glyph, name, a blank */
	nw = 1 + explore_dev_tag_w(p->ex, nw < 8 ? 8 : nw > 19 ? 19 : nw);
	int row = 0, more = 0;
	for (int dir = 0; dir < 2; dir++)
		for (int i = 0; i < n; i++) {
			int v = ops[i];
			int lo = dir == 0 ? g->in_off[v] : g->out_off[v];
			int hi = dir == 0 ? g->in_off[v + 1] : g->out_off[v + 1];
			for (int k = lo; k < hi; k++) {
				const struct pl_edge *e = &g->edges[dir == 0 ? g->in_edge[k] : g->out_edge[k]];
				int o = dir == 0 ? e->src : e->dst;
				int gg = of[o];
				if (p->seen[gg])
					continue;
				p->seen[gg] = 1 + dir;
				if (row >= rows) {
					more++;
					continue;
				}
				int d = pl != NULL ? pl->dev[o] : -1;
				int xx = x;
				xx += screen_put(w, y + row, xx, 2, 0, dir == 0 ? "< " : "> ");
				wattrset(w, screen_dev_fg(d));
				char lb[128];	/* glyph and name: unambiguous */
				xx += screen_printf(w, y + row, xx, nw, 1, "%s ",
				    explore_dev_tag(p->ex, d, nw - 1, lb, sizeof lb));
				wattrset(w, A_NORMAL);
				screen_put_name(w, y + row, xx, width - (xx - x), 1, pl_placeto_group_name(pc, gg));
				row++;
			}
		}
	if (more > 0 && rows > 0)
		screen_printf(w, y + rows - 1, x, width, 1, "  ... and %d more neighbours", more + 1);
}

/*
 * The header: a status line (state, episode, decision, best) and a
 * configuration line (policy, options, training progress), each made of
 * fields that are shown whole or not at all, so that no number or word is
 * ever cut at the edge.  A line that is too long first drops its optional
 * fields (ranked above HDR_OPTIONAL, unless the view is tall); if it is
 * still too long and may take a second row, it wraps there, dropping
 * fields from the highest rank down only when two rows are not enough,
 * the htop way.
 */
#define HDR_FIELDS	24
#define HDR_OPTIONAL	3	/* fields ranked above go before a row is added */
#define TALL_ROWS	30	/* a body this tall has room to spare */

struct hdr_field {
	char text[256];
	attr_t attr;
	int sep;		/* spaces before it when it follows another */
	int rank;		/* 0: always shown; the highest goes first */
	int group;		/* fields of one group (not 0) go together */
	int shown, row, col;	/* the layout */
};

struct hdr_line {
	struct hdr_field f[HDR_FIELDS];
	int n;
	int max_rows;
	int optional;		/* fields ranked above go before a row is added */
};

/* Append a field to a header line; NULL when the line is full. */
static struct hdr_field *
hdr_add(struct hdr_line *l, int rank, attr_t attr, int sep, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static struct hdr_field *
hdr_add(struct hdr_line *l, int rank, attr_t attr, int sep, const char *fmt, ...)
{
	if (l->n == HDR_FIELDS)
		return NULL;
	struct hdr_field *f = &l->f[l->n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof f->text, fmt, ap);
	va_end(ap);
	f->attr = attr;
	f->sep = sep;
	f->rank = rank;
	f->group = 0;
	return f;
}

/* Append a prefix and a comma-separated list as one group of fields: shown
 * or dropped together, but free to wrap after any comma. */
static void
hdr_add_list(struct hdr_line *l, int rank, attr_t attr, int sep, const char *prefix,
    const char *list)
{
	int group = l->n + 1;
	for (const char *s = list; *s != '\0' && l->n < HDR_FIELDS; ) {
		size_t len = strcspn(s, ",");
		if (s[len] == ',')
			len++;
		if (l->n == HDR_FIELDS - 1)
			len = strlen(s);	/* the last field takes the rest */
		struct hdr_field *f = hdr_add(l, rank, attr, s == list ? sep : 0, "%s%.*s",
		    s == list ? prefix : "", (int)len, s);
		f->group = group;
		s += len;
	}
}

/* Place the shown fields in at most `rows` rows of `cols` columns; the
 * rows used, or 0 if they do not fit.  Bytes count as columns: never less
 * than the columns UTF-8 text takes. */
static int
hdr_fit(struct hdr_line *l, int cols, int rows)
{
	int row = 0, col = 0;
	for (int i = 0; i < l->n; i++) {
		struct hdr_field *f = &l->f[i];
		if (!f->shown)
			continue;
		int len = (int)strlen(f->text), need = col > 0 ? f->sep + len : len;
		if (col > 0 && col + need > cols) {
			row++;
			col = 0;
			need = len;
		}
		if (need > cols || row >= rows)
			return 0;
		f->row = row;
		f->col = col + need - len;
		col += need;
	}
	return row + 1;
}

/* Lay a header line out in `cols` columns; the rows it takes. */
static int
hdr_layout(struct hdr_line *l, int cols)
{
	for (int rows = 1; rows <= l->max_rows; rows++) {
		int floor = rows < l->max_rows ? l->optional : 0;
		for (int i = 0; i < l->n; i++)
			l->f[i].shown = 1;
		for (;;) {
			int used = hdr_fit(l, cols, rows);
			if (used > 0)
				return used;
			int v = -1;
			for (int i = 0; i < l->n; i++)
				if (l->f[i].shown && l->f[i].rank > floor &&
				    (v < 0 || l->f[i].rank >= l->f[v].rank))
					v = i;
			if (v < 0)
				break;
			for (int i = 0; i < l->n; i++)
				if (i == v || (l->f[v].group != 0 && l->f[i].group == l->f[v].group))
					l->f[i].shown = 0;
		}
	}
	/* narrower than the fields always shown: one row, cut at the edge */
	for (int i = 0; i < l->n; i++)
		l->f[i].shown = l->f[i].rank == 0;
	return hdr_fit(l, INT_MAX / 2, 1);
}

/* Lay out and draw a header line at (y, x) in `width` columns; the rows
 * it took. */
static int
hdr_draw(struct hdr_line *l, WINDOW *w, int y, int x, int width)
{
	int rows = hdr_layout(l, width);
	for (int i = 0; i < l->n; i++) {
		const struct hdr_field *f = &l->f[i];
		if (!f->shown)
			continue;
		wattrset(w, f->attr);
		screen_put(w, y + f->row, x + f->col, width - f->col, 0, f->text);
	}
	wattrset(w, A_NORMAL);
	return rows;
}

/* "s" for a count other than one. */
static const char *
plural(long n)
{
	return n == 1 ? "" : "s";
}

/* Whether the options (the placer's, or those set for the next run)
 * fine-tune the loaded policy: finetune above 0. */
static int
finetunes(const struct placeto_view *p)
{
	if (p->run.pl != NULL)
		return pl_opt_int(p->run.pl->opts, "finetune") > 0;
	struct pl_options *o = NULL;
	char *cause = NULL;
	if (p->opts == NULL ||
	    pl_options_parse_ranged(pl_placeto_options, pl_placeto_ranges, p->opts, &o, &cause) != 0) {
		free(cause);
		return 0;
	}
	int r = pl_opt_int(o, "finetune") > 0;
	pl_options_free(o);
	return r;
}
/* The configuration line's first fields: the policy, the options. */
static void
add_config(struct hdr_line *l, const struct placeto_view *p, attr_t dim)
{
	hdr_add(l, 0, dim, 0, "%s", p->policy == NULL ? "training live from scratch" :
	    finetunes(p) ? "fine-tuning a loaded policy on this graph" :
	    "zero-shot with a loaded policy");
	if (p->opts != NULL)
		hdr_add_list(l, 1, dim, 1, "with ", p->opts);
}

/* Draw the header at the top of rectangle r; the rows it took. */
static int
draw_header(struct placeto_view *p, WINDOW *w, const struct view_rect *r)
{
	struct pl_placer *pl = p->run.pl;
	int y = r->y, x = r->x, width = r->w;
	struct hdr_line l = { .max_rows = 1, .optional = HDR_OPTIONAL };
	hdr_add(&l, 0, A_BOLD, 0, "Placeto");
	attr_t dim = screen_attr(SCR_DIM);
	if (pl == NULL) {
		hdr_add(&l, 0, A_NORMAL, 1, "not started: n one decision, e one episode, Space runs");
		int rows = hdr_draw(&l, w, y, x, width);
		l = (struct hdr_line){ .max_rows = 2, .optional = HDR_OPTIONAL };
		add_config(&l, p, dim);
		return rows + hdr_draw(&l, w, y + rows, x, width);
	}
	const struct pl_placeto_decision *d = pl_placeto_last(pl);
	struct pl_placeto_stats st;
	pl_placeto_get_stats(pl, &st);
	int role;
	const char *state = view_run_state(&p->run, pl->done, &role);
	hdr_add(&l, 0, screen_attr(role), 1, "[%s]", state);
	char pace[48];
	if (!pl->done && view_run_pace_label(&p->run, pace, sizeof pace) != NULL)
		hdr_add(&l, 0, screen_attr(role), 1, "%s", pace);
	/* before the first decision the placer's phase says which comes */
	int greedy = d != NULL ? d->greedy : st.phase != 0;
	hdr_add(&l, 0, A_NORMAL, 1, "episode %ld (%s)", d != NULL ? d->episode + 1 : 0,
	    greedy ? "greedy" : "training");
	hdr_add(&l, 2, A_NORMAL, 1, "decision %d/%d", d != NULL ? d->t + 1 : 0,
	    pl_placeto_n_groups(pl));
	hdr_add(&l, 5, A_NORMAL, 2, "%ld placement%s", st.placements, plural(st.placements));
	char a[32];
	if (pl->best != NULL)
		/* the best placement any decision tried, not the curve's (*):
		 * placements that fit first, so it rises when the first one
		 * that fits replaces a faster one that did not, which says OOM */
		hdr_add(&l, 1, pl->best_res.oom_mask ? screen_attr(SCR_OOM) : A_NORMAL, 2,
		    "best tried %s%s", screen_fmt_us(a, sizeof a, pl->best_res.makespan_us),
		    pl->best_res.oom_mask ? " OOM" : "");
	int rows = hdr_draw(&l, w, y, x, width);

	l = (struct hdr_line){ .max_rows = 2,
	    .optional = r->h >= TALL_ROWS ? INT_MAX : HDR_OPTIONAL };
	add_config(&l, p, dim);
	hdr_add(&l, 6, dim, 2, "%d groups", pl_placeto_n_groups(pl));
	if (st.phase == 0 || st.updates > 0) {	/* it trains */
		hdr_add(&l, 2, dim, 2, "%ld episode%s in %ld update%s", st.episodes,
		    plural(st.episodes), st.updates, plural(st.updates));
		hdr_add(&l, 4, dim, 2, "lr %.2g", st.lr);
		if (st.updates > 0)
			hdr_add(&l, 4, dim, 2, "entropy %.3f", st.last_entropy);
	}
	return rows + hdr_draw(&l, w, y + rows, x, width);
}

/* Rows of the policy panel besides the bars: its heading, then the
 * action, the run time, the reward and the return. */
#define POLICY_ROWS	5
/* The learning curve's fewest rows: its heading and a 3-row chart. */
#define CURVE_MIN_ROWS	4

/* Longest label of a policy bar: longer device names are cut in the
 * middle (explore_dev_fit), so that the bars and numbers keep their room. */
#define LABEL_MAX	16

/* Columns of the label column of the policy bars: the widest device
 * label, at most LABEL_MAX. */
static int
label_width(const struct explore *ex, int n_dev)
{
	int lw = 0;
	for (int k = 0; k < n_dev; k++) {
		int l = screen_width(explore_dev_label(ex, k));
		if (l > lw)
			lw = l;
	}
	return lw < LABEL_MAX ? lw : LABEL_MAX;
}

/* A policy cell's fewest columns: label, probability, marker, gap. */
static int
policy_cell_min(const struct explore *ex, int n_dev)
{
	return label_width(ex, n_dev) + 1 + 5 + 2;
}

/* How many columns the policy's n_dev bars take so that they fit in
 * `rows` rows of `width` columns: the fewest that fit, as many as the
 * width allows when none does. */
static int
policy_columns(const struct explore *ex, int n_dev, int rows, int width)
{
	int most = width / policy_cell_min(ex, n_dev);
	int cols = 1;
	while (cols < most && (n_dev + cols - 1) / cols > rows)
		cols++;
	return cols;
}

/* The devices draw_policy() shows in n cells, in device order: all when
 * they fit, else the chosen one and the likeliest (ties: the lower index)
 * in n - 1, the last cell left for "+N more" (one cell: the chosen one
 * alone).  Returns how many. */
static int
policy_shown(const struct pl_placeto_decision *d, int n, int *show)
{
	if (d->n_dev <= n) {
		for (int k = 0; k < d->n_dev; k++)
			show[k] = k;
		return d->n_dev;
	}
	if (n <= 1) {	/* one cell: the chosen device, or nothing */
		show[0] = d->action;
		return n == 1 && d->action >= 0 && d->action < d->n_dev;
	}
	char keep[PL_MAX_DEVICES] = { 0 };
	int m = 0;
	if (d->action >= 0 && d->action < d->n_dev) {
		keep[d->action] = 1;
		m = 1;
	}
	for (; m < n - 1; m++) {
		int best = -1;
		for (int k = 0; k < d->n_dev; k++)
			if (!keep[k] && (best < 0 || d->probs[k] > d->probs[best]))
				best = k;
		keep[best] = 1;
	}
	m = 0;
	for (int k = 0; k < d->n_dev; k++)
		if (keep[k])
			show[m++] = k;
	return m;
}

/* The policy's probability of each device as bars at (y, x) in `cols`
 * columns of `width` / cols (at most `rows` rows), the chosen device
 * marked; returns the rows used.  One column has room for "◀ chose",
 * more only for the arrow.  Short of room, the chosen device and the
 * likeliest show, and a last cell counts the others. */
static int
draw_policy(const struct explore *ex, const struct pl_placeto_decision *d, WINDOW *w,
    int y, int x, int width, int cols, int rows)
{
	int cw = width / cols, lc = label_width(ex, d->n_dev) + 1;
	if (cols == 1 && lc < 7)
		lc = 7;	/* one column: the labels' usual column */
	if (lc > cw - 7)	/* a narrow cell: the probability's room first */
		lc = cw - 7 > 2 ? cw - 7 : 2;
	const char *mark = cols == 1 ? (screen_utf8() ? " ◀ chose" : " < chose") :
	    (screen_utf8() ? "◀" : "<");
	int markw = cols == 1 ? 8 : 1;
	if (rows < 1)
		return 0;
	int show[PL_MAX_DEVICES];
	int n = policy_shown(d, cols * rows, show);
	int per_col = n < d->n_dev ? rows : (n + cols - 1) / cols, used = 0;
	if (n < d->n_dev && n < cols * rows) {	/* the last cell */
		int row = n % per_col;
		double rest = 0;
		for (int k = 0, i = 0; k < d->n_dev; k++) {
			if (i < n && show[i] == k)
				i++;
			else
				rest += d->probs[k];
		}
		wattrset(w, screen_attr(SCR_DIM));
		screen_printf(w, y + row, x + (n / per_col) * cw, cw - (cols > 1), 1,
		    "+%d more, %.3f", d->n_dev - n, rest);
		wattrset(w, A_NORMAL);
		used = rows;
	}
	for (int i = 0; i < n; i++) {
		int k = show[i], row = i % per_col, cx = x + (i / per_col) * cw;
		if (row + 1 > used)
			used = row + 1;
		/* label, bar, " 0.123", marker, and a gap between columns */
		int barw = cw - lc - 6 - markw - (cols > 1);
		wattrset(w, screen_dev_fg(k));
		char lb[256];
		screen_printf(w, y + row, cx, lc, 1, "%s", explore_dev_fit(ex, k, lc - 1, lb, sizeof lb));
		wattrset(w, A_NORMAL);
		if (!((d->allowed >> k) & 1)) {	/* masked out, not a choice */
			wattrset(w, screen_attr(SCR_DIM));
			screen_put(w, y + row, cx + lc, cw - lc - (cols > 1), 1, " not allowed");
			wattrset(w, A_NORMAL);
			continue;
		}
		if (barw > 0)
			screen_bar(w, y + row, cx + lc, barw, d->probs[k], screen_dev_block(k), A_NORMAL);
		int px = cx + lc + (barw > 0 ? barw : 0);
		screen_printf(w, y + row, px, cx + cw - px, 1, " %.3f%s", d->probs[k],
		    k == d->action ? mark : "");
	}
	return used;
}

/* Whether feature j of decision d is a column of the device one-hot
 * ("on:DEVICE") that is not set. */
static int
unset_device_feat(const struct pl_placer *pl, const struct pl_placeto_decision *d, int j)
{
	return strncmp(pl_placeto_feat_name(pl, j), "on:", 3) == 0 && d->feat[j] == 0;
}

/* Draw the view. */
static void
pv_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct placeto_view *p = v->priv;
	struct explore *ex = p->ex;
	char a[32], b[32];
	int y = r->y;
	if (p->run.cls == NULL) {
		screen_put(w, y, r->x, r->w, 1, "Placeto is not in this build.");
		return;
	}
	if (view_run_busy(&p->run)) {
		/* the worker owns the placer: show the last frame */
		if (!view_run_frame_restore(&p->run, w, r))
			screen_fill(w, y, r->x, r->w, ' ');
		wattrset(w, A_BOLD);
		screen_printf(w, y, r->x, r->w, 1, "Placeto [%s] deciding (step %d)...",
		    p->run.running ? "running" : "stepping", p->run.steps + 1);
		wattrset(w, A_NORMAL);
		return;
	}
	struct pl_placer *pl = p->run.pl;
	const struct pl_placeto_decision *d = pl != NULL ? pl_placeto_last(pl) : NULL;
	y += draw_header(p, w, r);
	const char *error = p->refused != NULL ? p->refused : p->run.error;
	if (error != NULL) {
		wattrset(w, screen_attr(SCR_ERROR));
		y += screen_wrap(w, y, r->x, 2, r->w, error);
		wattrset(w, A_NORMAL);
	}
	int curve_h = r->h >= TALL_ROWS ? 10 : 6;
	int mid_h = r->y + r->h - 1 - curve_h - y;
	int lw = r->w / 2, cols = 1;
	if (d != NULL) {
		/* every device's bar shows: in columns, then with a lower curve */
		int spare = curve_h - CURVE_MIN_ROWS;
		cols = policy_columns(ex, d->n_dev, mid_h - POLICY_ROWS + spare, r->w - lw - 1);
		int need = POLICY_ROWS + (d->n_dev + cols - 1) / cols - mid_h;
		if (need > 0) {
			curve_h -= need < spare ? need : spare;
			mid_h = r->y + r->h - 1 - curve_h - y;
		}
	}
	if (d != NULL && mid_h > 2) {
		/* left: the group, its features and neighbours */
		int n_ops = 0;
		pl_placeto_group_ops(pl, d->group, &n_ops);
		wattrset(w, screen_attr(SCR_HEADER));
		/* the count stays whole; a long name gives way */
		char head[32], tail[32];
		snprintf(head, sizeof head, "group %d: ", d->group);
		snprintf(tail, sizeof tail, " (%d op%s)", n_ops, n_ops == 1 ? "" : "s");
		int gx = r->x + screen_put(w, y, r->x, lw - 1, 0, head);
		int gw = lw - 1 - (gx - r->x) - screen_width(tail);
		gx += screen_put_name(w, y, gx, gw > 0 ? gw : 0, 0, pl_placeto_group_name(pl, d->group));
		screen_put(w, y, gx, lw - 1 - (gx - r->x), 1, tail);
		wattrset(w, A_NORMAL);
		int fy = y + 1, fx = r->x;
		int nf = pl_placeto_n_feat(pl) < d->n_feat ? pl_placeto_n_feat(pl) : d->n_feat;
		/* two features a row, above at least a row of neighbours */
		int room = 2 * (y + mid_h - fy - 2);
		room = room < 2 ? 2 : room;
		/* short of room, the device one-hot shows only its set column,
		 * and a last cell says how many are not shown */
		int zeros = 0;
		for (int j = 0; j < nf; j++)
			zeros += unset_device_feat(pl, d, j);
		int skip_zero = nf > room;
		int shown = nf - (skip_zero ? zeros : 0);
		int note = skip_zero || shown > room;
		int cut = note && shown >= room ? room - 1 : shown;
		int frows = 0;
		for (int j = 0; j < nf && frows < cut; j++) {
			if (skip_zero && unset_device_feat(pl, d, j))
				continue;
			/* the name cut in its middle, so that a long device
			 * name keeps its end (on:/job:w…/device:GPU:1) */
			int cx = fx + frows % 2 * (lw / 2), nw = lw / 2 - 8;	/* "%7.3f" after */
			char name[256], val[32];
			snprintf(val, sizeof val, "%7.3f", d->feat[j]);
			/* a blank between them when the value has none before it */
			screen_mid(name, sizeof name, pl_placeto_feat_name(pl, j), nw - (val[0] != ' '));
			screen_put(w, fy + frows / 2, cx, nw, 1, name);
			screen_put(w, fy + frows / 2, cx + nw, 7, 1, val);
			frows++;
		}
		if (note) {
			wattrset(w, screen_attr(SCR_DIM));
			if (cut < shown)
				screen_printf(w, fy + frows / 2, fx + frows % 2 * (lw / 2), lw / 2 - 1, 1,
				    "+%d more", nf - cut);
			else
				screen_printf(w, fy + frows / 2, fx + frows % 2 * (lw / 2), lw / 2 - 1, 1,
				    "on: others 0");
			wattrset(w, A_NORMAL);
			frows++;
		}
		int ny = fy + (frows + 1) / 2;
		if (ny < y + mid_h) {
			wattrset(w, screen_attr(SCR_HEADER));
			screen_put(w, ny, r->x, lw - 1, 1, "neighbours");
			wattrset(w, A_NORMAL);
			draw_neighbours(p, w, ny + 1, r->x, lw - 1, y + mid_h - ny - 1, d->group, pl_placeto_current(pl));
		}
		/* right: the policy, the action, the reward */
		int rx = r->x + lw + 1, rw = r->w - lw - 1;
		wattrset(w, screen_attr(SCR_HEADER));
		/* a node pinned to one device has no choice: say so, so that
		 * its certain-looking 1.000 is not read as the policy's */
		int n_allowed = 0;
		for (int k = 0; k < d->n_dev; k++)
			n_allowed += (int)((d->allowed >> k) & 1);
		if (n_allowed == 1)
			screen_printf(w, y, rx, rw, 1, "policy over devices (pinned)");
		else
			screen_printf(w, y, rx, rw, 1, "policy over devices (%s)", d->greedy ? "arg-max" : "sampled");
		wattrset(w, A_NORMAL);
		int py = y + 1 + draw_policy(ex, d, w, y + 1, rx, rw, cols,
		    mid_h - POLICY_ROWS);
		wattrset(w, A_BOLD);
		char with[48] = "";	/* escape=grow: connected groups came along */
		if (d->moved > 1)
			snprintf(with, sizeof with, ", with %d connected group%s",
			    d->moved - 1, d->moved > 2 ? "s" : "");
		/* both ends in the room, their names cut in the middle */
		int aw = (rw - (int)strlen("action:  -> ") - screen_width(with)) / 2;
		char from[512], to[512];
		aw = aw < 6 ? 6 : aw;
		screen_printf(w, py++, rx, rw, 1, "action: %s -> %s%s",
		    explore_dev_fit(ex, d->prev_dev, aw, from, sizeof from),
		    explore_dev_fit(ex, d->action, aw, to, sizeof to), with);
		wattrset(w, A_NORMAL);
		if (d->undone) {
			screen_printf(w, py++, rx, rw, 1, "run time %s -> %s: undone",
			    screen_fmt_us(a, sizeof a, d->before_us),
			    screen_fmt_us(b, sizeof b, d->tried_us));
		} else
			screen_printf(w, py++, rx, rw, 1, "run time %s -> %s",
			    screen_fmt_us(a, sizeof a, d->before_us),
			    screen_fmt_us(b, sizeof b, d->after_us));
		wattrset(w, screen_attr(d->reward > 0 ? SCR_GOOD : d->reward < 0 ? SCR_BAD : SCR_NORMAL));
		screen_printf(w, py++, rx, rw, 1, "reward %+.4g", d->reward);
		wattrset(w, A_NORMAL);
		screen_printf(w, py++, rx, rw, 1, "return so far %+.4g   entropy %.3f", d->ret, d->entropy);
	} else if (d != NULL && mid_h > 0) {
		/* too short for the panels: the decision on one line (never
		 * the intro, which is for before the first) */
		char before[32], after[32], to[128];
		int tw = r->w / 4 < 8 ? 8 : r->w / 4 > 32 ? 32 : r->w / 4;	/* the device, cut */
		screen_printf(w, y, r->x, r->w, 1, "group %d: %s to %s, p %.3f, run time %s -> %s, "
		    "reward %+.4g", d->group, pl_placeto_group_name(pl, d->group),
		    explore_dev_fit(ex, d->action, tw, to, sizeof to), d->probs[d->action],
		    screen_fmt_us(before, sizeof before, d->before_us),
		    screen_fmt_us(after, sizeof after, d->after_us), d->reward);
	} else if (mid_h > 0) {
		screen_wrap(w, y, r->x + 2, mid_h, r->w - 4,
		    "Each decision picks a device for one group of ops, then simulates the whole "
		    "graph; the reward is how much the run time dropped. An episode visits every "
		    "group once. Press n for one decision.");
	}
	/* learning curve */
	struct view_rect cr = { r->y + r->h - 1 - curve_h, r->x, curve_h, r->w };
	wattrset(w, screen_attr(SCR_HEADER));
	screen_printf(w, cr.y, r->x + 11, r->w - 11, 1, "learning curve: run time at each episode's end (o), lowest so far (*)");
	wattrset(w, A_NORMAL);
	cr.y++;
	cr.h--;
	const double *ys[2] = { p->curve, p->curve_best };
	int roles[2] = { SCR_BAR_ALT, SCR_GOOD };
	view_chart_from(w, &cr, p->n_curve > 0 ? 2 : 0, ys, p->n_curve, roles, "o*", 1, 1);
	wattrset(w, screen_attr(SCR_DIM));
	screen_put_fields(w, r->y + r->h - 1, r->x, r->w, 1, "  ",
	    "n decision\te episode\tSpace run\ta use best\t+/- speed\tr restart\tL policy\tO options");
	wattrset(w, A_NORMAL);
	view_run_frame_save(&p->run, w, r);
}

/* Start when needed. */
static int
ensure(struct placeto_view *p)
{
	if (p->run.pl != NULL)
		return 0;
	return restart(p);
}

/* The options of spec (k=v,...) but those named in keys (NULL-ended);
 * NULL when none are left.  The names left out go to *dropped (", "
 * separated, caller frees; NULL: none), and the entries left out to
 * *taken unless it is NULL (k=v,...; NULL: none). */
static char *
split_keys(const char *spec, const char *const *keys, char **dropped, char **taken)
{
	struct pl_strbuf kept = { 0 }, out = { 0 }, ent = { 0 };
	*dropped = NULL;
	if (taken != NULL)
		*taken = NULL;
	if (spec == NULL)
		return NULL;
	char *copy = pl_xstrdup(spec), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		size_t kl = strcspn(t, "=");
		int is_fixed = 0;
		for (const char *const *f = keys; *f != NULL; f++)
			is_fixed |= strlen(*f) == kl && strncmp(t, *f, kl) == 0;
		if (is_fixed) {
			pl_sb_printf(&out, "%s%.*s", out.len > 0 ? ", " : "", (int)kl, t);
			pl_sb_printf(&ent, "%s%s", ent.len > 0 ? "," : "", t);
		} else
			pl_sb_printf(&kept, "%s%s", kept.len > 0 ? "," : "", t);
	}
	free(copy);
	*dropped = out.s;
	if (taken != NULL)
		*taken = ent.s;
	else
		free(ent.s);
	return kept.s;
}

/* split_keys() without the entries left out. */
static char *
without_keys(const char *spec, const char *const *keys, char **dropped)
{
	return split_keys(spec, keys, dropped, NULL);
}

/* spec with the entries of extra whose keys spec lacks ("k=v,..."; NULL:
 * none).  Caller frees. */
static char *
with_entries(const char *spec, const char *extra)
{
	struct pl_strbuf sb = { 0 };
	if (spec != NULL)
		pl_sb_printf(&sb, "%s", spec);
	char *copy = extra != NULL ? pl_xstrdup(extra) : NULL, *save = NULL;
	for (char *t = copy != NULL ? strtok_r(copy, ",", &save) : NULL; t != NULL;
	    t = strtok_r(NULL, ",", &save)) {
		char key[64];
		snprintf(key, sizeof key, "%.*s", (int)strcspn(t, "="), t);
		const char *keys[] = { key, NULL };
		char *names = NULL, *k = without_keys(spec, keys, &names);
		if (names == NULL)	/* not set in spec */
			pl_sb_printf(&sb, "%s%s", sb.len > 0 ? "," : "", t);
		free(k);
		free(names);
	}
	free(copy);
	return sb.s;
}

static void load_policy(struct explore *ex, struct placeto_view *p, const char *text,
    const char *base);

/* The policy prompt's answer: restart with it if it loads, the options
 * it fixes left to it (and given back when training live again). */
static void
policy_done(struct explore *ex, const char *text, void *arg)
{
	struct placeto_view *p = arg;
	if (text != NULL)
		load_policy(ex, p, text, p->opts);
}

/* Restart with policy file text (empty: train live) and the options base
 * (k=v,...; NULL: none) as a policy takes them: the options it fixes
 * left to it (and given back when training live again), episodes left
 * out with a policy and finetune without one; if Placeto refuses them,
 * nothing changes. */
static void
load_policy(struct explore *ex, struct placeto_view *p, const char *text, const char *base)
{
	char *policy = *text ? pl_xstrdup(text) : NULL, *dropped = NULL, *unused = NULL;
	/* a policy runs with the options it fixes (pl_placeto_policy_fixed)
	 * and fine-tunes rather than trains; without one, nothing is
	 * fine-tuned */
	static const char *const with_policy[] = { "episodes", NULL };
	static const char *const without_policy[] = { "finetune", NULL };
	char *held = NULL;
	char *opts = policy != NULL ? split_keys(base, pl_placeto_policy_fixed, &dropped, &held) :
	    with_entries(base, p->held);
	char *left = without_keys(opts, policy != NULL ? with_policy : without_policy, &unused);
	free(opts);
	if (reconfigure(p, policy, left, "policy") == 0) {
		if (policy == NULL || held != NULL) {	/* (a policy after one keeps them) */
			free(p->held);
			p->held = held;
			held = NULL;
		}
		if (p->policy == NULL)
			explore_message(ex, 0, "training live from scratch%s%s", unused != NULL ?
			    " (left out: " : "", unused != NULL ? "finetune, for a loaded policy)" : "");
		else
			explore_message(ex, 0, "loaded %s%s%s%s: n steps the greedy episode", p->policy,
			    dropped != NULL ? ", with its own " : "", dropped != NULL ? dropped : "",
			    unused != NULL ? " (episodes left out: finetune sets them)" : "");
	}
	free(held);
	free(unused);
	free(dropped);
}

/* The options prompt's answer: restart with them if they are valid.  A
 * policy among them (policy=FILE, the last one; empty: none) is loaded
 * with them as L loads it, with what a policy implies. */
static void
options_done(struct explore *ex, const char *text, void *arg)
{
	struct placeto_view *p = arg;
	if (text == NULL)
		return;
	static const char *const policy_key[] = { "policy", NULL };
	char *named = NULL, *taken = NULL;
	char *opts = split_keys(*text ? text : NULL, policy_key, &named, &taken);
	if (taken != NULL) {	/* one restart, with the policy and the rest */
		const char *last = strrchr(taken, ',') != NULL ? strrchr(taken, ',') + 1 : taken;
		size_t kl = strcspn(last, "=");
		load_policy(ex, p, last[kl] == '=' ? last + kl + 1 : "", opts);
		free(opts);
	} else if (reconfigure(p, p->policy != NULL ? pl_xstrdup(p->policy) : NULL, opts, "options") == 0)
		explore_message(ex, 0, "Placeto restarted with %s", p->opts != NULL ? p->opts : "the reference defaults");
	free(named);
	free(taken);
}

/* Decision, episode, run/pause, restart, policy, options, adopt. */
static int
pv_action(struct view *v, enum tui_action a)
{
	struct placeto_view *p = v->priv;
	switch (a) {
	case ACT_PLACETO_STEP:
	case ACT_PLACETO_EPISODE:
		clear_refused(p);
		if (ensure(p) == 0) {
			if (p->run.done)
				explore_message(p->ex, 0, "Placeto has finished; r restarts");
			p->run.running = 0;
			if (a == ACT_PLACETO_EPISODE) {
				p->run.stop = episode_over;
				p->run.pending = 1;
			} else {
				p->run.stop = NULL;
				p->run.pending++;
			}
		}
		break;
	case ACT_RUN:
		clear_refused(p);
		if (ensure(p) == 0) {
			p->run.running = !p->run.running;
			p->run.pending = 0;
		}
		break;
	case ACT_RESTART:
		clear_refused(p);
		restart(p);
		break;
	case ACT_LOAD_POLICY:
		explore_prompt(p->ex, PROMPT_PATH, "Policy file (empty: train live): ",
		    p->policy, policy_done, p);
		break;
	case ACT_OPTIONS:
		explore_prompt(p->ex, PROMPT_TEXT, "Placeto options (k=v,...; empty: defaults): ",
		    p->opts, options_done, p);
		break;
	case ACT_ADOPT:
		view_run_adopt(&p->run);
		break;
	case ACT_SLOWER:
	case ACT_FASTER:
		view_run_pace(&p->run, a == ACT_FASTER);
		break;
	default:
		return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Background MDP steps. */
static int
pv_tick(struct view *v, double deadline)
{
	struct placeto_view *p = v->priv;
	return view_run_tick(&p->run, deadline, &p->ex->views[p->ex->view] == v);
}

const struct view_class view_placeto_class = {
	.name = "placeto",
	.title = "Placeto",
	.demo = "Placeto learns to place by trial: one group at a time it asks its neural "
	    "policy for a device (the bars), simulates, and is rewarded by the drop in run "
	    "time. Over many episodes the curve below should fall as the policy learns.",
	.init = pv_init,
	.free = pv_free,
	.draw = pv_draw,
	.action = pv_action,
	.tick = pv_tick,
};
