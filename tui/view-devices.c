/*
 * view-devices — per device: memory in use over the step as a small chart
 * against its capacity, peak, busy time and utilisation, bytes in and out;
 * a device over capacity is shown in the OOM role, in words and in the
 * chart's cells above the capacity line.
 *
 * Invariant: the chart samples the trace's step functions (live bytes after
 * each event) per column as the maximum over the column's interval (the
 * last column's closed at the window's end), so a short peak is never
 * hidden by the resolution, not even one at the very end of the step.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "screen.h"
#include "view.h"
#include "xmalloc.h"

#define TEXT_W 30
#define MIN_ROWS 3	/* a device's fewest rows: name and load, memory, traffic */

struct dev_view {
	struct explore *ex;
	int sel, top;
	double t0, span;
	int per, shown;		/* rows per device, devices shown (last draw), */
	int extra;		/* the first devices given a row more */
	int64_t *col;		/* per column maximum, scratch */
	int cap_col;
};

/* Create the view. */
static void *
dv_init(struct explore *ex)
{
	struct dev_view *d = pl_xcalloc(1, sizeof *d);
	d->ex = ex;
	d->span = ex->tr != NULL ? ex->tr->res.makespan_us : 1;
	return d;
}

/* Free the view. */
static void
dv_free(void *priv)
{
	struct dev_view *d = priv;
	free(d->col);
	free(d);
}

/* Column maxima of device dev's live bytes over [t0, t0+span]: each column
 * over [its start, its end), the last over [its start, t0+span]. */
static int64_t
sample(struct dev_view *d, int dev, int width)
{
	const struct pl_trace *tr = d->ex->tr;
	if (d->cap_col < width) {
		d->cap_col = width;
		d->col = pl_xreallocarray(d->col, width, sizeof *d->col);
	}
	int n = tr->n_mem != NULL ? tr->n_mem[dev] : 0;
	const struct pl_mem_point *pt = n > 0 ? tr->mem[dev] : NULL;
	double dt = d->span / width;
	int k = 0;
	int64_t live = 0, top = 0;
	for (; k < n && pt[k].t < d->t0; k++)	/* what is in use as the window opens */
		live = pt[k].live;
	/* the window's end; when it is the step's end (a zoomed window put
	 * there by dv_clamp() may miss it by a rounding), past every point */
	double end = d->t0 + d->span, ms = tr->res.makespan_us;
	if (end >= ms - 1e-9 * (ms > 1 ? ms : 1))
		end = HUGE_VAL;
	for (int c = 0; c < width; c++) {
		/* the most in use over the column: at its start, or set in it
		 * (in the last column, also at its end) */
		int last = c == width - 1;
		double ce = d->t0 + (c + 1) * dt;
		int64_t m = live;
		for (; k < n && (last ? pt[k].t <= end : pt[k].t < ce); k++) {
			live = pt[k].live;
			m = live > m ? live : m;
		}
		d->col[c] = m;
		if (m > top)
			top = m;
	}
	return top;
}

/* One device's block. */
static void
draw_device(struct dev_view *d, WINDOW *w, int y, int x, int width, int h, int dev)
{
	struct explore *ex = d->ex;
	const struct pl_trace *tr = ex->tr;
	const struct pl_device *pd = &ex->c->dev[dev];
	const struct pl_sim_result *r = &tr->res;
	char a[32], b[32];
	int oom = (r->oom_mask >> dev) & 1;
	int sel = dev == d->sel;
	double util = r->makespan_us > 0 ? r->busy_us[dev] / r->makespan_us * 100 : 0;
	/* the load after the name: OUT OF MEMORY, or busy with the percent
	 * and the time, or idle */
	char head[32];
	const char *busy = NULL;
	if (oom)
		snprintf(head, sizeof head, "OUT OF MEMORY");
	else if (r->busy_us[dev] <= 0)
		snprintf(head, sizeof head, "idle");
	else {
		snprintf(head, sizeof head, "busy %.0f%%", util);
		busy = screen_fmt_us(a, sizeof a, r->busy_us[dev]);
	}
	/* the name (cut in the middle) gives way to the load down to
	 * EXPLORE_DEV_NAME_MIN columns, then the load's fields are left out
	 * whole, the time first (the name taking its room back); all a
	 * column short of the chart */
	int gap = oom ? 1 : 2, end = x + TEXT_W - 1;
	int hw = screen_width(head), bw = busy != NULL ? 1 + screen_width(busy) : 0;
	int name_w = end - (x + 2) - gap - hw - bw;
	int whole = screen_width(explore_dev_label(ex, dev));
	if (name_w < EXPLORE_DEV_NAME_MIN && name_w < whole && busy != NULL) {
		busy = NULL;
		name_w += bw;
	}
	/* text column */
	wattrset(w, screen_dev_block(dev));
	mvwaddch(w, y, x, (chtype)screen_dev_glyph(dev));
	wattrset(w, sel ? screen_attr(SCR_SELECT) : screen_dev_fg(dev));
	char lb[256];
	int tx = x + 1 + screen_printf(w, y, x + 1, TEXT_W - 2, 0, " %s", explore_dev_fit(ex, dev,
	    name_w > EXPLORE_DEV_NAME_MIN ? name_w : EXPLORE_DEV_NAME_MIN, lb, sizeof lb));
	wattrset(w, A_NORMAL);
	screen_fill(w, y, tx, x + TEXT_W - tx, ' ');
	if (tx + gap + hw <= end) {
		wattrset(w, oom ? screen_attr(SCR_OOM) : A_NORMAL);
		tx += gap + screen_put(w, y, tx + gap, hw, 0, head);
		wattrset(w, A_NORMAL);
		if (busy != NULL)
			screen_printf(w, y, tx, bw, 0, " %s", busy);
	}
	int line = 1;
	if (line < h) {
		wattrset(w, oom ? screen_attr(SCR_BAD) : A_NORMAL);
		screen_printf(w, y + line, x + 2, TEXT_W - 2, 1, "peak %s / %s",
		    screen_fmt_bytes(a, sizeof a, r->peak_bytes[dev]),
		    screen_fmt_bytes(b, sizeof b, pd->mem_bytes));
		wattrset(w, A_NORMAL);
		line++;
	}
	if (line < h && oom) {
		wattrset(w, screen_attr(SCR_BAD));
		/* whole fields, a column short of the chart */
		char over[64];
		snprintf(over, sizeof over, "over by %s\t, busy %.0f%%",
		    screen_fmt_bytes(a, sizeof a, r->peak_bytes[dev] - pd->mem_bytes), util);
		screen_put_fields(w, y + line, x + 2, TEXT_W - 3, 1, "", over);
		wattrset(w, A_NORMAL);
		line++;
	}
	if (line < h) {
		screen_printf(w, y + line, x + 2, TEXT_W - 2, 1, "in %s  out %s",
		    screen_fmt_bytes(a, sizeof a, r->bytes_in[dev]),
		    screen_fmt_bytes(b, sizeof b, r->bytes_out[dev]));
		line++;
	}
	/* chart */
	int cx = x + TEXT_W, cw = width - TEXT_W - 7;
	int rows = h;
	if (cw < 8 || rows < 1)
		return;
	/* scale: the capacity when it is near the peak (or exceeded), else
	 * the peak, so the shape stays visible on roomy devices */
	int64_t top = sample(d, dev, cw);
	int64_t peak = r->peak_bytes[dev] > top ? r->peak_bytes[dev] : top;
	double scale = peak >= pd->mem_bytes || 2 * peak >= pd->mem_bytes ?
	    (double)(peak > pd->mem_bytes ? peak : pd->mem_bytes) : peak * 1.15;
	if (scale <= 0)
		scale = 1;
	double cap_level = pd->mem_bytes / scale * rows;	/* in rows */
	for (int c = 0; c < cw; c++) {
		double v = d->col[c] / scale * rows;
		for (int rr = 0; rr < rows; rr++) {
			int level = (int)floor((v - rr) * 8 + 0.5);
			int over = rr + 1 > cap_level && d->col[c] > pd->mem_bytes;
			attr_t at = over ? screen_attr(SCR_OOM) : screen_dev_fg(dev);
			screen_vcell(w, y + rows - 1 - rr, cx + c, level, at);
		}
	}
	/* at the right: the capacity's row on the chart; else (a roomy
	 * device, its chart scaled to its own peak) the chart's top value on
	 * the top row and the capacity above it on the next (on the top row
	 * of a device that holds nothing) */
	int cap_row = cap_level >= rows ? rows - 1 : (int)ceil(cap_level) - 1;
	if (cap_row < 0)
		cap_row = 0;
	wattrset(w, oom ? screen_attr(SCR_BAD) : screen_attr(SCR_DIM));
	if (pd->mem_bytes <= scale)
		screen_put(w, y + rows - 1 - cap_row, cx + cw, 7, 1, screen_utf8() ? "◂ cap" : "< cap");
	else if (peak <= 0)	/* nothing to scale */
		screen_put(w, y, cx + cw, 7, 1, screen_utf8() ? "▴ cap" : "^ cap");
	else {
		char top_s[16];
		screen_printf(w, y, cx + cw, 7, 1, " %s", screen_fmt_bytes_short(top_s, sizeof top_s,
		    (int64_t)scale));
		if (rows > 1)
			screen_put(w, y + 1, cx + cw, 7, 1, screen_utf8() ? "▴ cap" : "^ cap");
	}
	wattrset(w, A_NORMAL);
}

/* Draw the view. */
static void
dv_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct dev_view *d = v->priv;
	struct explore *ex = d->ex;
	if (ex->tr == NULL) {
		screen_put(w, r->y, r->x, r->w, 1, "no simulation to show");
		return;
	}
	char a[32], b[32], c[32];
	int nd = ex->c->n_dev;
	wattrset(w, screen_attr(SCR_HEADER));
	screen_printf(w, r->y, r->x, r->w, 1, "%-*s memory in use, %s .. %s", TEXT_W, "device",
	    screen_fmt_us(a, sizeof a, d->t0), screen_fmt_us(b, sizeof b, d->t0 + d->span));
	wattrset(w, A_NORMAL);
	/* rows per device: as many as fit (3..9: every device keeps its
	 * text lines, and the rest scroll), the remainder spread over the
	 * first devices, one blank row between devices when roomy */
	int avail = r->h - 2;
	int shown = nd, per = avail / nd;
	if (per < MIN_ROWS) {
		per = MIN_ROWS;
		shown = avail / MIN_ROWS > 0 ? avail / MIN_ROWS : 1;
	}
	int gap = per >= 5;
	if (per > 9)
		per = 9;
	int extra = gap || per == 9 ? 0 : avail - per * shown;
	d->per = per;
	d->shown = shown;
	d->extra = extra;
	if (d->sel < d->top)
		d->top = d->sel;
	if (d->sel >= d->top + shown)
		d->top = d->sel - shown + 1;
	if (d->top > nd - shown)	/* more rows than before: no blank ones */
		d->top = nd - shown > 0 ? nd - shown : 0;
	int y = r->y + 1;
	for (int i = 0; i < shown && d->top + i < nd; i++) {
		int h = per - gap + (i < extra);
		draw_device(d, w, y, r->x, r->w, h, d->top + i);
		y += h + gap;
	}
	const struct pl_sim_result *res = &ex->tr->res;
	int n_oom = 0;
	for (int i = 0; i < nd; i++)
		n_oom += (res->oom_mask >> i) & 1;
	int yy = r->y + r->h - 1;
	if (n_oom) {
		wattrset(w, screen_attr(SCR_OOM));
		screen_printf(w, yy, r->x, r->w, 1, " %d device%s OUT OF MEMORY: %s too much in all; this placement cannot run ",
		    n_oom, n_oom == 1 ? "" : "s", screen_fmt_bytes(a, sizeof a, res->oom_excess));
		wattrset(w, A_NORMAL);
	} else {
		wattrset(w, screen_attr(SCR_DIM));
		/* the fullest by peak / capacity, as Compare's peak */
		/* (the way to the hidden devices before the fullest) */
		char lb[64], line[256];
		snprintf(line, sizeof line, "%d transfers, %s moved%s\tfullest %s %s of %s",
		    res->n_transfers, screen_fmt_bytes(b, sizeof b, res->bytes_moved),
		    shown < nd ? "\tUp/Down for more devices" : "",
		    explore_dev_tag(ex, res->fullest, 20, lb, sizeof lb),
		    screen_fmt_bytes(c, sizeof c, res->peak_fullest),
		    screen_fmt_bytes(a, sizeof a, ex->c->dev[res->fullest].mem_bytes));
		screen_put_fields(w, yy, r->x, r->w, 1, "   ", line);
		wattrset(w, A_NORMAL);
	}
}

/* Keep the window inside the step. */
static void
dv_clamp(struct dev_view *d)
{
	double ms = d->ex->tr != NULL ? d->ex->tr->res.makespan_us : 1;
	if (ms <= 0)
		ms = 1;
	if (d->span > ms || d->span <= 0)
		d->span = ms;
	if (d->span < VIEW_MIN_SPAN_US)
		d->span = VIEW_MIN_SPAN_US;
	if (d->t0 + d->span > ms)
		d->t0 = ms - d->span;
	if (d->t0 < 0)
		d->t0 = 0;
}

/* Select a device; zoom and pan in time. */
static int
dv_action(struct view *v, enum tui_action a)
{
	struct dev_view *d = v->priv;
	int nd = d->ex->c->n_dev;
	switch (a) {
	case ACT_UP: if (d->sel > 0) d->sel--; break;
	case ACT_DOWN: if (d->sel < nd - 1) d->sel++; break;
	case ACT_HOME: case ACT_PAGE_UP: d->sel = 0; break;
	case ACT_END: case ACT_PAGE_DOWN: d->sel = nd - 1; break;
	case ACT_ZOOM_IN:	/* about the middle, down to the narrowest */
		if (d->span / 2 >= VIEW_MIN_SPAN_US) {
			d->t0 += d->span / 4;
			d->span /= 2;
		}
		dv_clamp(d);
		break;
	case ACT_ZOOM_OUT: d->t0 -= d->span / 2; d->span *= 2; dv_clamp(d); break;
	case ACT_ZOOM_FIT: d->t0 = 0; d->span = 0; dv_clamp(d); break;
	case ACT_PAN_LEFT: d->t0 -= d->span / 4; dv_clamp(d); break;
	case ACT_PAN_RIGHT: d->t0 += d->span / 4; dv_clamp(d); break;
	default: return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Click selects a device. */
static int
dv_click(struct view *v, int y, int x)
{
	struct dev_view *d = v->priv;
	(void)x;
	if (y < 1 || d->per <= 0)
		return 0;
	/* the blocks as the last draw laid them out (the gap below a block
	 * is its own) */
	for (int i = 0, top = 1; i < d->shown && d->top + i < d->ex->c->n_dev; i++) {
		top += d->per + (i < d->extra);
		if (y < top) {
			d->sel = d->top + i;
			return 1;
		}
	}
	return 0;
}

/* A new trace: show the whole step. */
static void
dv_changed(struct view *v)
{
	struct dev_view *d = v->priv;
	d->t0 = 0;
	d->span = 0;
	dv_clamp(d);
}

const struct view_class view_devices_class = {
	.name = "devices",
	.title = "Devices",
	.demo = "Each device's memory over the step (the chart) against its capacity (cap); "
	    "a chart far below its capacity is scaled to the value at its top right. "
	    "Parameters stay resident; activations live until their last consumer. A device "
	    "over capacity is OUT OF MEMORY: that placement could not run at all.",
	.init = dv_init,
	.free = dv_free,
	.draw = dv_draw,
	.action = dv_action,
	.click = dv_click,
	.changed = dv_changed,
};
