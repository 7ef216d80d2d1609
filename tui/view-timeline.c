/*
 * view-timeline — a Gantt chart of the simulated step: one row per device
 * and one per link channel that carries data, ops as blocks in their
 * device's colour, transfers on the link rows, the critical path drawn
 * heavy; zoom and pan in time; a selected block selects its op everywhere
 * (a transfer selects the op that produced the tensor).
 *
 * Invariant: rows[] lists the devices first, then the channels that carry
 * at least one transfer; per row, items are sorted by start time, so one
 * forward sweep draws a row in O(items + columns).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "screen.h"
#include "view.h"
#include "xmalloc.h"

#define LABEL_W 13	/* the label column's least width */

struct tl_row {
	int dev;		/* >= 0: a device row */
	int channel;		/* >= 0: a link row */
	int n;
	int *items;		/* op ids (device) or xfer indexes (link) */
};

struct tl_view {
	struct explore *ex;
	int n_rows;
	struct tl_row *rows;
	double t0, span;	/* visible time window */
	int fit;		/* the window is the whole step, and follows it */
	int sel_row;
	int sel_xfer;		/* on a link row: selected transfer or -1 */
	int top;
	int plot_w, rows_h;	/* from the last draw */
	int label_w;		/* (the label column, with its rule) */
	int label_need;		/* columns the longest row label needs so */
};

/* Start time of item i of row r. */
static double
item_start(const struct tl_view *t, const struct tl_row *r, int i)
{
	const struct pl_trace *tr = t->ex->tr;
	return r->dev >= 0 ? tr->ops[r->items[i]].start : tr->xfers[r->items[i]].start;
}

/* End time of item i of row r. */
static double
item_end(const struct tl_view *t, const struct tl_row *r, int i)
{
	const struct pl_trace *tr = t->ex->tr;
	return r->dev >= 0 ? tr->ops[r->items[i]].end : tr->xfers[r->items[i]].end;
}

static const struct pl_trace *sort_tr;

/* Order ops by start time, then id. */
static int
op_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	double sx = sort_tr->ops[x].start, sy = sort_tr->ops[y].start;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x - y;
}

/* Free the rows. */
static void
free_rows(struct tl_view *t)
{
	for (int i = 0; i < t->n_rows; i++)
		free(t->rows[i].items);
	free(t->rows);
	t->rows = NULL;
	t->n_rows = 0;
}

/* Row label in at most width columns: a device's name, or a link's
 * "src>dst", each name cut in the middle when too long (so that two
 * devices, or two links of one device, which differ at the end, stay
 * apart, and a link shows both its ends). */
static void
row_label(const struct tl_view *t, const struct tl_row *r, int width, char *buf, size_t len)
{
	if (r->dev >= 0) {
		explore_dev_fit(t->ex, r->dev, width, buf, len);
		return;
	}
	const char *n = t->ex->tr->channel_name[r->channel], *arrow = strstr(n, "->");
	if (arrow == NULL || width < 3) {	/* a shared bus */
		screen_mid(buf, len, n[0] == '/' ? n + 1 : n, width);
		return;
	}
	/* "/gpu:0->/gpu:1" -> "gpu:0>gpu:1"; names too long for the room
	 * lose the components every device shares first */
	char *src = pl_xstrndup(n[0] == '/' ? n + 1 : n, (size_t)(arrow - n) - (n[0] == '/'));
	const char *dst = arrow[2] == '/' ? arrow + 3 : arrow + 2;
	int room = width - 1;
	char *dd = NULL;	/* the distinct parts, whole (never longer) */
	if (screen_width(src) + screen_width(dst) > room) {
		int s_dev = -1, d_dev = -1;
		for (int e = 0; e < t->ex->c->n_dev; e++) {
			const char *l = explore_dev_label(t->ex, e);
			s_dev = strcmp(l, src) == 0 ? e : s_dev;
			d_dev = strcmp(l, dst) == 0 ? e : d_dev;
		}
		if (s_dev >= 0 && d_dev >= 0) {
			size_t sn = strlen(src) + 1, dn = strlen(dst) + 1;
			char *ds = pl_xmalloc(sn);
			explore_dev_distinct(t->ex, s_dev, ds, sn);
			free(src);
			src = ds;
			dd = pl_xmalloc(dn);
			dst = explore_dev_distinct(t->ex, d_dev, dd, dn);
		}
	}
	int ws = screen_width(src), wd = screen_width(dst);
	if (ws + wd > room) {	/* share the room, the shorter name whole */
		int half = room / 2;
		if (ws <= half)
			wd = room - ws;
		else if (wd <= room - half)
			ws = room - wd;
		else {
			ws = half;
			wd = room - half;
		}
	}
	char a[512], b[512];
	snprintf(buf, len, "%s>%s", screen_mid(a, sizeof a, src, ws), screen_mid(b, sizeof b, dst, wd));
	free(src);
	free(dd);
}

/* Build the rows from the trace. */
static void
build_rows(struct tl_view *t)
{
	struct explore *ex = t->ex;
	const struct pl_trace *tr = ex->tr;
	free_rows(t);
	if (tr == NULL)
		return;
	int nd = ex->c->n_dev;
	int *per_ch = pl_xcalloc(tr->n_channels > 0 ? tr->n_channels : 1, sizeof *per_ch);
	for (int i = 0; i < tr->n_xfers; i++)
		if (tr->xfers[i].channel >= 0 && tr->xfers[i].channel < tr->n_channels)
			per_ch[tr->xfers[i].channel]++;
	int used = 0;
	for (int c = 0; c < tr->n_channels; c++)
		used += per_ch[c] > 0;
	t->rows = pl_xcalloc(nd + used, sizeof *t->rows);
	for (int d = 0; d < nd; d++) {
		t->rows[d].dev = d;
		t->rows[d].channel = -1;
		t->rows[d].items = pl_xcalloc(ex->g->n_ops > 0 ? ex->g->n_ops : 1, sizeof(int));
	}
	for (int v = 0; v < ex->g->n_ops; v++) {
		struct tl_row *r = &t->rows[tr->ops[v].dev];
		r->items[r->n++] = v;
	}
	sort_tr = tr;
	for (int d = 0; d < nd; d++)
		qsort(t->rows[d].items, t->rows[d].n, sizeof(int), op_cmp);
	t->n_rows = nd;
	for (int c = 0; c < tr->n_channels; c++) {
		if (per_ch[c] == 0)
			continue;
		struct tl_row *r = &t->rows[t->n_rows++];
		r->dev = -1;
		r->channel = c;
		r->items = pl_xcalloc(per_ch[c], sizeof(int));
		for (int i = 0; i < tr->n_xfers; i++)	/* already by start time */
			if (tr->xfers[i].channel == c)
				r->items[r->n++] = i;
	}
	free(per_ch);
	/* the labels' widths, whole up to 200 columns */
	t->label_need = 0;
	for (int ri = 0; ri < t->n_rows; ri++) {
		char buf[1024];
		row_label(t, &t->rows[ri], 200, buf, sizeof buf);
		int need = screen_width(buf) + 2;	/* a space, the rule */
		t->label_need = need > t->label_need ? need : t->label_need;
	}
	if (t->sel_row >= t->n_rows)
		t->sel_row = 0;
	t->sel_xfer = -1;
}

/* The span that shows the whole step. */
static double
whole_span(const struct tl_view *t)
{
	return t->ex->tr != NULL && t->ex->tr->res.makespan_us > 0 ?
	    t->ex->tr->res.makespan_us * 1.0001 : 1;
}

/* Fit the whole step. */
static void
zoom_fit(struct tl_view *t)
{
	t->t0 = 0;
	t->span = whole_span(t);
	t->fit = 1;
}

/* Create the view, fitted to the whole step. */
static void *
tl_init(struct explore *ex)
{
	struct tl_view *t = pl_xcalloc(1, sizeof *t);
	t->ex = ex;
	t->sel_xfer = -1;
	t->label_w = LABEL_W;
	build_rows(t);
	zoom_fit(t);
	return t;
}

/* Free the view. */
static void
tl_free(void *priv)
{
	struct tl_view *t = priv;
	free_rows(t);
	free(t);
}

/* Draw one row's plot. */
static void
draw_plot_row(struct tl_view *t, WINDOW *w, int y, int x, int width, int ri)
{
	struct explore *ex = t->ex;
	const struct pl_trace *tr = ex->tr;
	const struct tl_row *r = &t->rows[ri];
	double dt = t->span / width;
	int mono = screen_mode() == SCR_MONO, utf8 = screen_utf8();
	/* each item paints the columns it covers: a column shows its first
	 * item, or a critical one, or the selected one (which wins), and a
	 * block's first cell is marked when the block is wide enough to be
	 * told apart from its neighbours; a zero-length item takes the
	 * column its instant falls in */
	int *pick = pl_xmalloc(sizeof *pick * (size_t)width);
	unsigned char *mark = pl_xcalloc((size_t)width, 1);	/* 1 crit, 2 sel, 4 start */
	for (int c = 0; c < width; c++)
		pick[c] = -1;
	double t1 = t->t0 + t->span;
	int j = 0;
	while (j < r->n && item_end(t, r, j) < t->t0)
		j++;
	for (int k = j; k < r->n; k++) {
		double s = item_start(t, r, k), e = item_end(t, r, k);
		if (s >= t1)
			break;
		if (e < t->t0 || (e == t->t0 && s < e))
			continue;
		/* columns in double first: deep in a long step they pass int */
		double f0 = s <= t->t0 ? 0 : floor((s - t->t0) / dt);
		if (f0 >= width)
			continue;
		int c0 = (int)f0;
		double f1 = e > s ? ceil((e - t->t0) / dt) - 1 : f0;
		int c1 = f1 >= width ? width - 1 : f1 < f0 ? c0 : (int)f1;
		int id = r->items[k];
		int is_sel = r->dev >= 0 ? id == ex->sel_op : id == t->sel_xfer;
		int is_crit = r->dev >= 0 && tr->critical_mask != NULL && tr->critical_mask[id];
		if (s >= t->t0 + c0 * dt && e > t->t0 + (c0 + 2) * dt)
			mark[c0] |= 4;
		for (int c = c0; c <= c1; c++) {
			if (pick[c] < 0 || is_sel || (is_crit && !(mark[c] & 2))) {
				pick[c] = k;
				mark[c] |= (is_sel ? 2 : 0) | (is_crit ? 1 : 0);
			}
		}
	}
	for (int c = 0; c < width; c++) {
		if (pick[c] < 0) {
			mvwaddch(w, y, x + c, ' ');
			continue;
		}
		int crit = mark[c] & 1, sel = mark[c] & 2, start_here = mark[c] & 4;
		int d = r->dev >= 0 ? r->dev : tr->xfers[r->items[pick[c]]].src_dev;
		attr_t a = screen_dev_block(d);
		if (sel)
			a = screen_attr(SCR_SELECT) | A_BOLD;
		wattrset(w, a);
		if (r->dev < 0) {
			if (utf8 && !mono)
				mvwaddnwstr(w, y, x + c, L"»", 1);
			else
				mvwaddch(w, y, x + c, '>');
		} else if (crit) {
			/* the critical path: heavy */
			wattr_on(w, A_BOLD, NULL);
			if (utf8)
				mvwaddnwstr(w, y, x + c, start_here ? L"┣" : L"━", 1);
			else
				mvwaddch(w, y, x + c, start_here ? '[' : '=');
		} else if (mono)
			mvwaddch(w, y, x + c, start_here ? '[' : (chtype)screen_dev_glyph(d));
		else if (utf8)
			mvwaddnwstr(w, y, x + c, start_here ? L"├" : L"─", 1);
		else
			mvwaddch(w, y, x + c, start_here ? '[' : '-');
		wattrset(w, A_NORMAL);
	}
	free(mark);
	free(pick);
}

/* The time axis: ticks at the plot's width columns, labels within room
 * columns. */
static void
draw_axis(struct tl_view *t, WINDOW *w, int y, int x, int width, int room)
{
	char buf[32];
	wattrset(w, screen_attr(SCR_DIM));
	screen_fill(w, y, x, room, ' ');
	double step = t->span / (width / 14 > 0 ? width / 14 : 1);
	double mag = pow(10, floor(log10(step)));
	double nice = step / mag < 2 ? 2 * mag : step / mag < 5 ? 5 * mag : 10 * mag;
	/* ticks counted, not stepped: deep in a long step a tick plus nice
	 * can be the same double, and a column takes one tick at most */
	double first = ceil(t->t0 / nice) * nice;
	for (int i = 0; i <= width; i++) {
		double tick = first + i * nice;
		if (tick >= t->t0 + t->span)
			break;
		int c = (int)((tick - t->t0) / t->span * width);
		screen_fmt_us_res(buf, sizeof buf, tick, nice);
		if (c + (int)strlen(buf) + 1 > room)
			break;
		mvwaddch(w, y, x + c, '|');
		screen_put(w, y, x + c + 1, (int)strlen(buf), 0, buf);
	}
	wattrset(w, A_NORMAL);
}

/* Columns for an op name on the selected line: what the figures after
 * it leave (want), but at least 12 where the line has them (avail). */
static int
name_room(int want, int avail)
{
	return want > 12 ? want : avail < 12 ? avail : 12;
}

/* Draw the view. */
static void
tl_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct tl_view *t = v->priv;
	struct explore *ex = t->ex;
	if (ex->tr == NULL) {
		screen_put(w, r->y, r->x, r->w, 1, "no simulation to show");
		return;
	}
	char buf[1024], a[32], b[32], c[32];
	/* labels whole, up to a third of the width */
	int lw = t->label_need > LABEL_W ? t->label_need : LABEL_W;
	if (lw > r->w / 3)
		lw = r->w / 3 > LABEL_W ? r->w / 3 : LABEL_W;
	t->label_w = lw;
	int pw = r->w - lw - 1;
	t->plot_w = pw;
	wattrset(w, screen_attr(SCR_HEADER));
	screen_printf(w, r->y, r->x, lw, 1, "%s", "row");
	wattrset(w, A_NORMAL);
	draw_axis(t, w, r->y, r->x + lw, pw, pw + 1);
	int rows_h = r->h - 3;
	t->rows_h = rows_h;
	if (t->sel_row < t->top)
		t->top = t->sel_row;
	if (t->sel_row >= t->top + rows_h)
		t->top = t->sel_row - rows_h + 1;
	for (int i = 0; i < rows_h && t->top + i < t->n_rows; i++) {
		int ri = t->top + i, y = r->y + 1 + i;
		const struct tl_row *row = &t->rows[ri];
		row_label(t, row, lw - 1, buf, sizeof buf);
		if (ri == t->sel_row)
			wattrset(w, screen_attr(SCR_SELECT));
		else if (row->dev >= 0)
			wattrset(w, screen_dev_fg(row->dev));
		else
			wattrset(w, screen_attr(SCR_DIM));
		screen_printf(w, y, r->x, lw - 1, 1, "%s", buf);
		wattrset(w, A_NORMAL);
		screen_vline(w, y, r->x + lw - 1, 1);
		draw_plot_row(t, w, y, r->x + lw, pw, ri);
		screen_vline(w, y, r->x + lw + pw, 1);
	}
	/* what is selected */
	int y = r->y + r->h - 2;
	const struct pl_trace *tr = ex->tr;
	if (t->sel_row < t->n_rows && t->rows[t->sel_row].dev < 0 && t->sel_xfer >= 0) {
		/* a long op name gives way (its leaf shows) to the figures */
		const struct pl_trace_xfer *x = &tr->xfers[t->sel_xfer];
		const char *name = ex->g->ops[ex->g->tensors[x->tensor].op].name;
		char *figs = pl_xasprintf(" (%s): %s .. %s",
		    screen_fmt_bytes(a, sizeof a, x->bytes), screen_fmt_us(b, sizeof b, x->start),
		    screen_fmt_us(c, sizeof c, x->end));
		int x0 = r->x + screen_put(w, y, r->x, r->w, 0, "transfer of ");
		/* the channel as its row names it, both ends (each cut in
		 * the middle) in what the figures and the op name's least
		 * leave; left out when that is under 3 columns an end */
		int avail = r->w - (x0 - r->x), nw = screen_width(name);
		int link_w = avail - name_room(0, nw < avail ? nw : avail) - screen_width(figs) -
		    screen_width(" on ");
		char on[512];
		char *rest = figs;
		if (link_w >= 7) {
			row_label(t, &t->rows[t->sel_row], link_w < 2 * t->label_w ? link_w : 2 * t->label_w,
			    on, sizeof on);
			rest = pl_xasprintf("%s on %s", figs, on);
			free(figs);
		}
		x0 += screen_put_name(w, y, x0, name_room(avail - screen_width(rest), avail), 0, name);
		screen_put(w, y, x0, r->w - (x0 - r->x), 1, rest);
		free(rest);
	} else if (ex->sel_op >= 0) {
		const struct pl_trace_op *o = &tr->ops[ex->sel_op];
		int crit = tr->critical_mask != NULL && tr->critical_mask[ex->sel_op];
		char dl[256];
		char *rest = pl_xasprintf("  %s  %s .. %s (%s)",
		    explore_dev_fit(ex, o->dev, t->label_w, dl, sizeof dl), screen_fmt_us(a, sizeof a, o->start),
		    screen_fmt_us(b, sizeof b, o->end), screen_fmt_us(c, sizeof c, o->end - o->start));
		int nw = r->w - screen_width(rest) - (crit ? screen_width("  critical") : 0);
		int x0 = r->x;
		wattrset(w, screen_dev_fg(o->dev));
		x0 += screen_put_name(w, y, x0, name_room(nw, r->w), 0, ex->g->ops[ex->sel_op].name);
		wattrset(w, A_NORMAL);
		x0 += screen_put(w, y, x0, r->w - (x0 - r->x), 0, rest);
		free(rest);
		if (crit) {
			wattrset(w, screen_attr(SCR_CRITICAL));
			screen_put(w, y, x0, r->w - (x0 - r->x), 0, "  critical");
			wattrset(w, A_NORMAL);
		}
	} else
		screen_put(w, y, r->x, r->w, 1, "Left/Right select a block, Up/Down a row");
	wattrset(w, screen_attr(SCR_DIM));
	int fancy = screen_utf8() && screen_mode() != SCR_MONO;
	/* the window's end, but never past the step: the whole-step span
	 * has a hair of room after the last block */
	double end = t->t0 + t->span < tr->res.makespan_us ? t->t0 + t->span : tr->res.makespan_us;
	snprintf(buf, sizeof buf, "%s .. %s of %s\t%s critical\t%s transfer\t+/- zoom\t</> pan\tz fit",
	    screen_fmt_us_res(a, sizeof a, t->t0, t->span / 10),
	    screen_fmt_us_res(b, sizeof b, end, t->span / 10),
	    screen_fmt_us(c, sizeof c, tr->res.makespan_us), screen_utf8() ? "━" : "=",
	    fancy ? "»" : ">");
	screen_put_fields(w, y + 1, r->x, r->w, 1, "  ", buf);
	wattrset(w, A_NORMAL);
}

/* Keep [t0, t0+span) inside the step. */
static void
clamp_window(struct tl_view *t)
{
	double ms = whole_span(t);
	if (t->span > ms)
		t->span = ms;
	if (t->span < VIEW_MIN_SPAN_US)	/* (never past the whole step) */
		t->span = ms < VIEW_MIN_SPAN_US ? ms : VIEW_MIN_SPAN_US;
	/* the window ends at most a hair past the step's end (the margin
	 * of the whole view, in proportion to the window: panned at a
	 * deep zoom it stays on the step) */
	double end = ms / 1.0001 + t->span * 0.0001;
	if (t->t0 + t->span > end)
		t->t0 = end - t->span;
	if (t->t0 < 0)
		t->t0 = 0;
}

/* Centre the window on time c when it is off screen. */
static void
show_time(struct tl_view *t, double s, double e)
{
	if (s >= t->t0 && e <= t->t0 + t->span)
		return;
	t->t0 = (s + e) / 2 - t->span / 2;
	clamp_window(t);
}

/* Select item k of the selected row. */
static void
select_item(struct tl_view *t, int k)
{
	struct tl_row *r = &t->rows[t->sel_row];
	if (k < 0 || k >= r->n)
		return;
	if (r->dev >= 0)
		explore_select(t->ex, r->items[k]);
	else {
		t->sel_xfer = r->items[k];
		const struct pl_trace_xfer *x = &t->ex->tr->xfers[t->sel_xfer];
		explore_select(t->ex, t->ex->g->tensors[x->tensor].op);
	}
	show_time(t, item_start(t, r, k), item_end(t, r, k));
}

/* Index in row of the item at or nearest to time tm. */
static int
item_at(const struct tl_view *t, const struct tl_row *r, double tm)
{
	int best = -1;
	double bd = INFINITY;
	int lo = 0, hi = r->n;
	while (lo < hi) {	/* first item starting after tm */
		int mid = (lo + hi) / 2;
		if (item_start(t, r, mid) <= tm)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int k = lo - 2; k <= lo + 1; k++) {
		if (k < 0 || k >= r->n)
			continue;
		double s = item_start(t, r, k), e = item_end(t, r, k);
		double dist = tm < s ? s - tm : tm > e ? tm - e : 0;
		if (dist < bd) {
			bd = dist;
			best = k;
		}
	}
	return best;
}

/* Position of the current selection in the selected row, or -1. */
static int
cur_index(const struct tl_view *t)
{
	const struct tl_row *r = &t->rows[t->sel_row];
	int id = r->dev >= 0 ? t->ex->sel_op : t->sel_xfer;
	for (int k = 0; k < r->n; k++)
		if (r->items[k] == id)
			return k;
	return -1;
}

/* Time the selection is at (for moving between rows). */
static double
sel_time(const struct tl_view *t)
{
	if (t->ex->sel_op >= 0)
		return (t->ex->tr->ops[t->ex->sel_op].start + t->ex->tr->ops[t->ex->sel_op].end) / 2;
	return t->t0 + t->span / 2;
}

/* Select blocks and rows; zoom and pan. */
static int
tl_action(struct view *v, enum tui_action a)
{
	struct tl_view *t = v->priv;
	if (t->ex->tr == NULL || t->n_rows == 0)
		return VIEW_UNHANDLED;
	double tm;
	switch (a) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_HOME:
	case ACT_END:
	case ACT_PAGE_UP:
	case ACT_PAGE_DOWN:
		tm = sel_time(t);
		if (a == ACT_UP && t->sel_row > 0)
			t->sel_row--;
		else if (a == ACT_DOWN && t->sel_row < t->n_rows - 1)
			t->sel_row++;
		else if (a == ACT_HOME || a == ACT_PAGE_UP)
			t->sel_row = 0;
		else if (a == ACT_END || a == ACT_PAGE_DOWN)
			t->sel_row = t->n_rows - 1;
		t->sel_xfer = -1;
		{
			int k = item_at(t, &t->rows[t->sel_row], tm);
			if (k >= 0 && t->rows[t->sel_row].dev >= 0)
				select_item(t, k);
			else if (k >= 0)
				t->sel_xfer = t->rows[t->sel_row].items[k];
		}
		break;
	case ACT_LEFT:
	case ACT_RIGHT: {
		int k = cur_index(t);
		if (k < 0)
			k = item_at(t, &t->rows[t->sel_row], t->t0 + (a == ACT_LEFT ? t->span : 0));
		else
			k += a == ACT_LEFT ? -1 : 1;
		select_item(t, k);
		break;
	}
	case ACT_ZOOM_IN:
	case ACT_ZOOM_OUT: {
		double c = t->ex->sel_op >= 0 ? sel_time(t) : t->t0 + t->span / 2;
		t->span = a == ACT_ZOOM_IN ? t->span / 2 : t->span * 2;
		clamp_window(t);
		t->t0 = c - t->span / 2;
		clamp_window(t);
		/* zoomed out to the whole step: follow it again */
		t->fit = a == ACT_ZOOM_OUT && t->span >= whole_span(t);
		break;
	}
	case ACT_ZOOM_FIT:
		zoom_fit(t);
		break;
	case ACT_PAN_LEFT:
		t->t0 -= t->span / 4;
		clamp_window(t);
		break;
	case ACT_PAN_RIGHT:
		t->t0 += t->span / 4;
		clamp_window(t);
		break;
	case ACT_ENTER:
		explore_show(t->ex, 0);
		break;
	default:
		return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Click: the block under the pointer. */
static int
tl_click(struct view *v, int y, int x)
{
	struct tl_view *t = v->priv;
	int ri = t->top + y - 1;
	if (t->ex->tr == NULL || y < 1 || y > t->rows_h || ri >= t->n_rows)
		return 0;
	t->sel_row = ri;
	t->sel_xfer = -1;
	double tm = x >= t->label_w ? t->t0 + (x - t->label_w + 0.5) * t->span / t->plot_w : t->t0;
	int k = item_at(t, &t->rows[ri], tm);
	if (k >= 0)
		select_item(t, k);
	return 1;
}

/* A new trace: rebuild the rows; a window fitted to the whole step
 * follows it, a zoomed one stays where it is. */
static void
tl_changed(struct view *v)
{
	struct tl_view *t = v->priv;
	build_rows(t);
	clamp_window(t);
	if (t->fit)	/* (a window zoomed in to the narrowest stays) */
		zoom_fit(t);
}

/* Follow the selection: its device row, and in view. */
static void
tl_selected(struct view *v)
{
	struct tl_view *t = v->priv;
	int op = t->ex->sel_op;
	if (op < 0 || t->ex->tr == NULL || t->n_rows == 0)
		return;
	const struct pl_trace *tr = t->ex->tr;
	/* a transfer picked on a link row selects its producer: stay there;
	 * any other op (search, critical path) is shown on its device's row */
	if (t->rows[t->sel_row].dev < 0 && t->sel_xfer >= 0 &&
	    t->ex->g->tensors[tr->xfers[t->sel_xfer].tensor].op == op)
		return;
	t->sel_row = tr->ops[op].dev;
	t->sel_xfer = -1;
	show_time(t, tr->ops[op].start, tr->ops[op].end);
}

const struct view_class view_timeline_class = {
	.name = "timeline",
	.title = "Timeline",
	.demo = "Time runs left to right; each device runs one op at a time (its row), and "
	    "tensors cross links on the rows below. The heavy blocks are the critical path: "
	    "the chain of work that sets the step time. Gaps are devices waiting for data.",
	.init = tl_init,
	.free = tl_free,
	.draw = tl_draw,
	.action = tl_action,
	.click = tl_click,
	.changed = tl_changed,
	.selected = tl_selected,
};
