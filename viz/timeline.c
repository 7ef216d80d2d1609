/*
 * timeline — Gantt chart of a simulated step, written as SVG text: see
 * timeline.h.
 *
 * Invariant: coordinates are points (1/72 in) in the viewBox; the plot
 * maps [0, makespan] onto [x0, x1]; every lane's bars are drawn in start
 * order, and a bar narrower than MIN_W absorbs the bars that follow it
 * within MERGE_PT until it is MIN_W wide.
 */
#include "viz/timeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "viz/diagram.h"
#include "viz/palette.h"
#include "xmalloc.h"

#define FONT_FAMILY "Helvetica, Arial, sans-serif"
#define FS_LABEL 7.0		/* lane labels, tick labels */
#define FS_TITLE 8.0
#define FS_LEGEND 6.5
#define FS_MIN_TITLE 7.0	/* a title shrinks to this before it wraps */
#define FS_MIN_LABEL 4.5	/* lane labels shrink to this in a narrow figure */
#define BOLD_W 1.2		/* bold text is this much wider than text_w() */
#define LANE_DEV 11.0		/* device lane height */
#define LANE_CH 7.0		/* channel lane height */
#define LANE_GAP 2.0
#define MERGE_PT 0.35		/* merge bars closer than this ... */
#define MIN_W 1.0		/* ... while the merged bar is narrower than this */
#define MIN_BAR 0.45		/* narrowest bar drawn, so one op (one that takes
				 * no time too) stays visible */
#define CRIT_JOIN_PT 4.0	/* critical ops of a lane closer than this: one run */


/* A round step (1, 2, 2.5 or 5 times a power of ten). */
double
plv_nice_step(double span, int n)
{
	if (!(span > 0) || n < 1)
		return 1;
	double raw = span / n;
	double p = pow(10, floor(log10(raw)));
	double f = raw / p;
	double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
	return m * p;
}

/* One bar before merging. */
struct bar {
	double s, e;
	int colour;		/* device whose colour fills it */
	int op;			/* op id, or -1 for a transfer */
	int xfer;		/* transfer index, or -1 */
};

/* Order bars by start, then end. */
static int
bar_cmp(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	return 0;
}

/* Advance widths (thousandths of an em) of ASCII 32 .. 126: for each,
 * the wider of Helvetica's, which the figure names (and which Arial and
 * Liberation Sans share), and DejaVu Sans's, which Graphviz and most Linux
 * systems draw in its place, so that no label is clipped in either. */
static const unsigned short ascii_w[95] = {
	318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
	636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 556,
	1015, 709, 686, 722, 770, 667, 611, 778, 752, 295, 500, 667, 557, 863, 748, 787,
	667, 787, 722, 667, 611, 732, 684, 989, 685, 667, 685, 390, 337, 390, 838, 556,
	500, 613, 635, 550, 635, 615, 345, 635, 634, 278, 278, 579, 278, 974, 634, 612,
	635, 635, 396, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
};

/* Width in ems of the code point at s (its bytes in *n): the table's for
 * ASCII, and likewise for the "·", "…" and "→" the figure writes; one em
 * for East Asian wide characters and emoji, 0.7 for the rest (an accented
 * Latin capital, about). */
static double
char_em(const char *s, int *n)
{
	uint32_t cp;
	*n = pl_utf8_decode(s, &cp);
	if (cp < 0x80)
		return cp >= 32 && cp < 127 ? ascii_w[cp - 32] / 1000.0 : 0.318;
	if (cp == PL_UTF8_BAD)
		return 1.0;	/* not UTF-8: one replacement glyph */
	if (cp == 0xB7)
		return 0.318;
	if (cp == 0x2026)
		return 1.0;
	if (cp == 0x2192)
		return 0.838;
	if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
	    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
	    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
	    (cp >= 0xFFE0 && cp <= 0xFFE6) || cp >= 0x1F300)
		return 1.0;
	return 0.7;
}

/* Width of s in points at font size fs (regular weight). */
static double
text_w(const char *s, double fs)
{
	double em = 0;
	for (int n; *s; s += n)
		em += char_em(s, &n);
	return em * fs;
}

/* One legend entry: kind 0 op swatch, 1 transfer swatch, 2 critical line. */
struct legend_item {
	int kind;
	double x, y;
	const char *text;
};

/* Layout of the figure. */
struct geom {
	double W, H;
	double x0, x1;		/* plot area */
	double scale;		/* points per us */
	double *lane_y;		/* top of each lane */
	double *lane_h;
	int n_lanes;
};

/* Draw one lane's bars, merging those closer than MERGE_PT. */
static void
draw_lane(struct pl_strbuf *b, const struct geom *gm, struct bar *bars, int n, int lane,
    int is_channel, const struct pl_problem *p, const struct pl_trace *t)
{
	if (n == 0)
		return;
	qsort(bars, (size_t)n, sizeof *bars, bar_cmp);
	double y = gm->lane_y[lane] + (is_channel ? 0.5 : 0.5);
	double h = gm->lane_h[lane] - 1.0;
	int i = 0;
	char t1[32], b1[32];
	while (i < n) {
		int j = i;
		double e = bars[i].e;
		while (j + 1 < n && bars[j + 1].colour == bars[i].colour &&
		    (e - bars[i].s) * gm->scale < MIN_W &&
		    (bars[j + 1].s - e) * gm->scale < MERGE_PT) {
			j++;
			if (bars[j].e > e)
				e = bars[j].e;
		}
		double x = gm->x0 + bars[i].s * gm->scale;
		double w = (e - bars[i].s) * gm->scale;
		if (w < MIN_BAR)
			w = MIN_BAR;
		const struct plv_colour *col = plv_device_colour(bars[i].colour);
		pl_sb_printf(b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">",
		    x, y, w, h, col->hex);
		pl_sb_printf(b, "<title>");
		if (j > i)
			pl_sb_printf(b, "%d %s, %s", j - i + 1, is_channel ? "transfers" : "ops",
			    plv_fmt_time(t1, sizeof t1, e - bars[i].s));
		else if (bars[i].op >= 0) {
			pl_sb_xml(b, p->g->ops[bars[i].op].name);
			pl_sb_printf(b, ": %s", plv_fmt_time(t1, sizeof t1, bars[i].e - bars[i].s));
		} else {
			const struct pl_trace_xfer *xf = &t->xfers[bars[i].xfer];
			pl_sb_xml(b, p->g->ops[p->g->tensors[xf->tensor].op].name);
			pl_sb_printf(b, ":%d, %s in %s", p->g->tensors[xf->tensor].index,
			    plv_fmt_bytes(b1, sizeof b1, (double)xf->bytes),
			    plv_fmt_time(t1, sizeof t1, xf->end - xf->start));
		}
		pl_sb_printf(b, "</title></rect>\n");
		i = j + 1;
	}
}

/* One run of the critical path on a lane. */
struct run {
	int lane;
	double s, e;	/* points */
};

/* Draw the critical path (see the caller). */
static void
draw_critical(struct pl_strbuf *b, const struct geom *gm, const struct pl_trace *t)
{
	struct run *runs = pl_xcalloc((size_t)t->n_critical, sizeof *runs);
	int *last = pl_xcalloc((size_t)gm->n_lanes + 1, sizeof *last);
	int *run_of = pl_xcalloc((size_t)t->n_critical, sizeof *run_of);
	int nr = 0;
	for (int l = 0; l <= gm->n_lanes; l++)
		last[l] = -1;
	for (int i = 0; i < t->n_critical; i++) {
		int v = t->critical[i];
		run_of[i] = -1;
		if (v < 0 || v >= t->n_ops)
			continue;
		int d = t->ops[v].dev;
		if (d < 0 || d >= gm->n_lanes)
			continue;
		double s = gm->x0 + t->ops[v].start * gm->scale;
		double e = gm->x0 + t->ops[v].end * gm->scale;
		int r = last[d];
		if (r >= 0 && s - runs[r].e < CRIT_JOIN_PT) {
			if (e > runs[r].e)
				runs[r].e = e;
		} else {
			r = nr++;
			runs[r] = (struct run){ d, s, e };
			last[d] = r;
		}
		run_of[i] = r;
	}
	pl_sb_printf(b, "<g stroke=\"%s\" stroke-width=\"1.3\" stroke-linecap=\"round\" fill=\"none\">\n",
	    PLV_CRITICAL_HEX);
	for (int r = 0; r < nr; r++) {
		double cy = gm->lane_y[runs[r].lane] + gm->lane_h[runs[r].lane] / 2;
		pl_sb_printf(b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", runs[r].s, cy,
		    runs[r].e, cy);
	}
	int pa = -1, pb = -1;
	for (int i = 1; i < t->n_critical; i++) {
		int ra = run_of[i - 1], rb = run_of[i];
		if (ra < 0 || rb < 0 || ra == rb || runs[ra].lane == runs[rb].lane)
			continue;
		if (runs[ra].e > runs[rb].s + 0.5 || (ra == pa && rb == pb))
			continue;
		double ya = gm->lane_y[runs[ra].lane] + gm->lane_h[runs[ra].lane] / 2;
		double yb = gm->lane_y[runs[rb].lane] + gm->lane_h[runs[rb].lane] / 2;
		pl_sb_printf(b, "<polyline stroke-width=\"0.6\" points=\"%.2f,%.2f %.2f,%.2f\"/>\n", runs[ra].e,
		    ya, runs[rb].s, yb);
		pa = ra;
		pb = rb;
	}
	pl_sb_printf(b, "</g>\n");
	free(run_of);
	free(last);
	free(runs);
}

/* Append word w to line (bold, font size fs); a word wider than avail
 * points is broken between characters onto new lines (appended to lines,
 * *n of them), as a name without spaces would otherwise run off the
 * figure. */
static void
append_breaking(struct pl_strbuf *line, const char *w, double fs, double avail,
    char **lines, int *n)
{
	if ((text_w(line->s != NULL ? line->s : "", fs) + text_w(w, fs)) * BOLD_W <= avail) {
		pl_sb_printf(line, "%s", w);
		return;
	}
	for (int k; *w; w += k) {
		double cw = char_em(w, &k) * fs;
		if (line->len > 0 && (text_w(line->s, fs) + cw) * BOLD_W > avail) {
			lines[(*n)++] = line->s;
			*line = (struct pl_strbuf){ 0 };
		}
		pl_sb_put(line, w, (size_t)k);
	}
}

/* Add the words of s[0..len) to line, breaking it into lines (appended
 * to lines, *n of them) of at most avail points at font size fs (bold),
 * never before a "·". */
static void
wrap_words(struct pl_strbuf *line, const char *s, size_t len, double fs, double avail,
    char **lines, int *n)
{
	while (len > 0) {
		const char *sp = memchr(s, ' ', len);
		size_t wl = sp != NULL ? (size_t)(sp - s) : len;
		char *w = pl_xstrndup(s, wl);
		if (line->len > 0 && strcmp(w, "·") != 0 &&
		    (text_w(line->s, fs) + text_w(" ", fs) + text_w(w, fs)) * BOLD_W > avail) {
			lines[(*n)++] = line->s;
			*line = (struct pl_strbuf){ 0 };
		}
		if (wl > 0) {
			if (line->len > 0)
				pl_sb_put(line, " ", 1);
			append_breaking(line, w, fs, avail, lines, n);
		}
		free(w);
		wl += wl < len;	/* and its space */
		s += wl;
		len -= wl;
	}
}

/* Break title into lines of at most avail points at font size fs (bold):
 * between its " · " parts, which keep their "·" at the end of a line,
 * and inside a part only when it is wider than a line (between words, or
 * inside a word wider than a line).  *n lines, each
 * allocated, in the returned array (caller frees both); the widest line's
 * width in *widest. */
static char **
wrap_title(const char *title, double fs, double avail, int *n, double *widest)
{
	/* at most a line per byte, when every character is broken off */
	char **lines = pl_xcalloc(strlen(title) + 2, sizeof *lines);
	struct pl_strbuf line = { 0 };
	*n = 0;
	for (const char *s = title; *s != '\0';) {
		const char *sep = strstr(s, " · ");
		size_t pl = sep != NULL ? (size_t)(sep - s) + strlen(" ·") : strlen(s);
		char *part = pl_xstrndup(s, pl);
		double joined = (line.len > 0 ? text_w(line.s, fs) + text_w(" ", fs) : 0) + text_w(part, fs);
		if (joined * BOLD_W <= avail) {
			pl_sb_printf(&line, "%s%s", line.len > 0 ? " " : "", part);
		} else {
			if (line.len > 0)
				lines[(*n)++] = line.s;
			line = (struct pl_strbuf){ 0 };
			wrap_words(&line, part, pl, fs, avail, lines, n);
		}
		free(part);
		s += pl;
		while (*s == ' ')
			s++;
	}
	if (line.len > 0 || *n == 0)
		lines[(*n)++] = line.s != NULL ? line.s : pl_xstrdup("");
	*widest = 0;
	for (int i = 0; i < *n; i++)
		if (text_w(lines[i], fs) * BOLD_W > *widest)
			*widest = text_w(lines[i], fs) * BOLD_W;
	return lines;
}

/* A channel's name as its label shows it: "->" as an arrow (caller
 * frees). */
static char *
channel_label(const char *name)
{
	const char *arrow = strstr(name, "->");
	if (arrow == NULL)
		return pl_xstrdup(name);
	return pl_xasprintf("%.*s→%s", (int)(arrow - name), name, arrow + 2);
}

/* Write label s (escaped) in at most room points at font size fs: whole
 * when it fits, else as much of its start and end as fits around "…"
 * (whole code points, the start taking the first of each pair).  Returns
 * whether it was cut. */
static int
put_label(struct pl_strbuf *b, const char *s, double room, double fs)
{
	if (text_w(s, fs) <= room) {
		pl_sb_xml(b, s);
		return 0;
	}
	size_t len = strlen(s);
	const char *h = s, *t = s + len;	/* s[0..h) and [t..len) are kept */
	double left = room - text_w("…", fs);
	for (int turn = 0; h < t; turn ^= 1) {
		int n;
		const char *next = t;	/* the code point before t */
		if (turn == 1) {
			do
				next--;
			while (next > h && ((unsigned char)*next & 0xC0) == 0x80);
		}
		double w = char_em(turn == 0 ? h : next, &n) * fs;
		if (w > left)
			break;
		left -= w;
		if (turn == 0)
			h += n;
		else
			t = next;
	}
	char *hs = pl_xstrndup(s, (size_t)(h - s));
	pl_sb_xml(b, hs);
	free(hs);
	pl_sb_printf(b, "…");
	pl_sb_xml(b, t);
	return 1;
}

/* Render. */
void
plv_timeline_svg(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **svg, size_t *len,
    double *w_in, double *h_in)
{
	const struct pl_graph *g = p->g;
	const struct pl_cluster *c = p->c;
	(void)pl;
	double makespan = t->res.makespan_us > 0 ? t->res.makespan_us : 1;

	/* Which channels carry something. */
	int nch = t->n_channels;
	int *ch_lane = pl_xcalloc(nch > 0 ? nch : 1, sizeof *ch_lane);
	int *ch_count = pl_xcalloc(nch > 0 ? nch : 1, sizeof *ch_count);
	for (int i = 0; i < t->n_xfers; i++)
		if (t->xfers[i].channel >= 0 && t->xfers[i].channel < nch)
			ch_count[t->xfers[i].channel]++;
	int n_lanes = c->n_dev;
	for (int k = 0; k < nch; k++)
		ch_lane[k] = ch_count[k] > 0 ? n_lanes++ : -1;

	/* Geometry. */
	struct geom gm;
	gm.W = (o->width_in > 0 ? o->width_in : 7.0) * 72.0;
	double label_w = 0;
	for (int d = 0; d < c->n_dev; d++)
		if (text_w(c->dev[d].name, FS_LABEL) > label_w)
			label_w = text_w(c->dev[d].name, FS_LABEL);
	for (int k = 0; k < nch; k++)
		if (ch_lane[k] >= 0 && text_w(t->channel_name[k], FS_LABEL - 1) > label_w)
			label_w = text_w(t->channel_name[k], FS_LABEL - 1);
	/* The labels at FS_LABEL, or in a figure too narrow for them and an
	 * inch of plot, shrunk into its left 40 %, down to FS_MIN_LABEL, and
	 * those still too long cut in the middle (fit_label). */
	double lab = 1;	/* the labels' scale */
	gm.x0 = 4 + label_w + 4;
	gm.x1 = gm.W - 10;
	if (gm.x1 - gm.x0 < 72) {
		gm.x0 = gm.W * 0.4;
		gm.x1 = gm.W - 6;
		if (label_w > gm.x0 - 8)
			lab = (gm.x0 - 8) / label_w;
		if (lab * FS_LABEL < FS_MIN_LABEL)
			lab = FS_MIN_LABEL / FS_LABEL;
	}
	double lab_room = gm.x0 - 8;	/* points a label may take */
	gm.scale = (gm.x1 - gm.x0) / makespan;
	gm.n_lanes = n_lanes;

	/* The title, shrunk to fit the width down to FS_MIN_TITLE, then
	 * wrapped onto more lines (shrunk again only for a word wider than
	 * the figure). */
	char *title;
	if (o->title != NULL)
		title = pl_xstrdup(o->title);
	else {
		char t2[32], b2[32];
		title = pl_xasprintf("%s on %s · step %s · %s moved", g->name, c->name,
		    plv_fmt_time(t2, sizeof t2, t->res.makespan_us),
		    plv_fmt_bytes(b2, sizeof b2, (double)t->res.bytes_moved));
	}
	double avail = gm.W - 8, fs = FS_TITLE, tw = text_w(title, 1.0) * BOLD_W;
	int n_title = 1;
	char **tlines;
	if (tw * FS_MIN_TITLE <= avail) {
		fs = tw * FS_TITLE <= avail ? FS_TITLE : avail / tw;
		tlines = pl_xcalloc(1, sizeof *tlines);
		tlines[0] = title;
		title = NULL;
	} else {
		double widest;
		tlines = wrap_title(title, fs, avail, &n_title, &widest);
		if (widest > avail)
			fs = fs * avail / widest;
		if (fs < 4)
			fs = 4;
	}
	free(title);
	double title_lh = fs * 1.2;	/* its line height */

	gm.lane_y = pl_xcalloc((size_t)n_lanes + 1, sizeof *gm.lane_y);
	gm.lane_h = pl_xcalloc((size_t)n_lanes + 1, sizeof *gm.lane_h);
	double y = FS_TITLE + 8 + (n_title - 1) * title_lh;
	for (int l = 0; l < n_lanes; l++) {
		if (l == c->n_dev && l > 0)
			y += 3;		/* a gap between devices and links */
		gm.lane_y[l] = y;
		gm.lane_h[l] = l < c->n_dev ? LANE_DEV : LANE_CH;
		y += gm.lane_h[l] + LANE_GAP;
	}
	double plot_bottom = y;
	double axis_y = plot_bottom + 1;
	double legend_y = axis_y + 2 * FS_LABEL + 14;

	/* Legend items, flowing onto new lines at the figure's width. */
	struct legend_item items[3];
	int n_items = 0;
	char crit[64];
	snprintf(crit, sizeof crit, "critical path (%d op%s)", t->n_critical,
	    t->n_critical == 1 ? "" : "s");
	const char *texts[3] = { "op (device colour)", "transfer (source colour)", crit };
	double lx = 4, ly = legend_y;
	for (int k = 0; o->legend && k < 3; k++) {
		if (k == 2 && t->n_critical == 0)
			continue;
		double w = 10 + text_w(texts[k], FS_LEGEND);
		if (lx > 4 && lx + w > gm.W - 4) {
			lx = 4;
			ly += FS_LEGEND + 4;
		}
		items[n_items++] = (struct legend_item){ k, lx, ly, texts[k] };
		lx += w + 10;
	}
	gm.H = (o->legend ? ly : axis_y + 2 * FS_LABEL + 6) + 6;

	struct pl_strbuf b = { 0 };
	pl_sb_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	pl_sb_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.2fin\" height=\"%.2fin\" "
	    "viewBox=\"0 0 %.2f %.2f\" font-family=\"%s\">\n", gm.W / 72, gm.H / 72, gm.W, gm.H,
	    FONT_FAMILY);
	pl_sb_printf(&b, "<rect x=\"0\" y=\"0\" width=\"%.2f\" height=\"%.2f\" fill=\"white\"/>\n", gm.W, gm.H);

	/* Title. */
	char t1[32], b1[32];
	for (int i = 0; i < n_title; i++) {
		pl_sb_printf(&b, "<text x=\"4\" y=\"%.2f\" font-size=\"%.2f\" font-weight=\"bold\">",
		    FS_TITLE + 2 + i * title_lh, fs);
		pl_sb_xml(&b, tlines[i]);
		pl_sb_printf(&b, "</text>\n");
		free(tlines[i]);
	}
	free(tlines);

	/* Axis ticks and grid. */
	double unit = makespan >= 1e6 ? 1e6 : makespan >= 1e3 ? 1e3 : 1;
	const char *uname = unit == 1e6 ? "s" : unit == 1e3 ? "ms" : "µs";
	int want = (int)((gm.x1 - gm.x0) / 45);
	if (want < 3)
		want = 3;
	double step = plv_nice_step(makespan / unit, want);
	pl_sb_printf(&b, "<g stroke=\"#D0D0D0\" stroke-width=\"0.4\">\n");
	for (int k = 0; k * step * unit <= makespan * (1 + 1e-9); k++) {
		double x = gm.x0 + k * step * unit * gm.scale;
		pl_sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", x, gm.lane_y[0] - 2,
		    x, axis_y);
	}
	pl_sb_printf(&b, "</g>\n");

	/* Lane backgrounds and labels. */
	for (int l = 0; l < n_lanes; l++) {
		int is_dev = l < c->n_dev;
		pl_sb_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
		    gm.x0, gm.lane_y[l], gm.x1 - gm.x0, gm.lane_h[l],
		    is_dev ? plv_device_colour(l)->fill : "#F4F4F4");
	}
	for (int d = 0; d < c->n_dev; d++) {
		int oom = (t->res.oom_mask >> d) & 1;
		pl_sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.2g\" text-anchor=\"end\"%s>",
		    gm.x0 - 3, gm.lane_y[d] + gm.lane_h[d] / 2 + lab * FS_LABEL * 0.35, lab * FS_LABEL,
		    oom ? " fill=\"" PLV_OOM_HEX "\" font-weight=\"bold\"" : "");
		put_label(&b, c->dev[d].name, lab_room, lab * FS_LABEL);
		pl_sb_printf(&b, "<title>");
		pl_sb_xml(&b, c->dev[d].name);
		pl_sb_printf(&b, ": busy %s, peak %s%s</title></text>\n",
		    plv_fmt_time(t1, sizeof t1, t->res.busy_us[d]),
		    plv_fmt_mem(b1, sizeof b1, (double)t->res.peak_bytes[d]), oom ? " (OOM)" : "");
	}
	for (int k = 0; k < nch; k++) {
		if (ch_lane[k] < 0)
			continue;
		int l = ch_lane[k];
		pl_sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.2g\" text-anchor=\"end\" fill=\"#404040\">",
		    gm.x0 - 3, gm.lane_y[l] + gm.lane_h[l] / 2 + lab * (FS_LABEL - 1) * 0.35,
		    lab * (FS_LABEL - 1));
		char *shown = channel_label(t->channel_name[k]);
		if (put_label(&b, shown, lab_room, lab * (FS_LABEL - 1))) {
			pl_sb_printf(&b, "<title>");
			pl_sb_xml(&b, shown);
			pl_sb_printf(&b, "</title>");
		}
		free(shown);
		pl_sb_printf(&b, "</text>\n");
	}

	/* Bars. */
	int cap = g->n_ops > t->n_xfers ? g->n_ops : t->n_xfers;
	struct bar *bars = pl_xcalloc(cap > 0 ? (size_t)cap : 1, sizeof *bars);
	for (int d = 0; d < c->n_dev; d++) {
		int n = 0;
		for (int v = 0; v < t->n_ops; v++) {
			if (t->ops[v].dev != d)	/* (one that takes no time too:
						 * MIN_BAR wide, as a short one) */
				continue;
			bars[n++] = (struct bar){ t->ops[v].start, t->ops[v].end, d, v, -1 };
		}
		draw_lane(&b, &gm, bars, n, d, 0, p, t);
	}
	for (int k = 0; k < nch; k++) {
		if (ch_lane[k] < 0)
			continue;
		int n = 0;
		for (int i = 0; i < t->n_xfers; i++) {
			const struct pl_trace_xfer *x = &t->xfers[i];
			if (x->channel != k)
				continue;
			bars[n++] = (struct bar){ x->start, x->end, x->src_dev, -1, i };
		}
		draw_lane(&b, &gm, bars, n, ch_lane[k], 1, p, t);
	}
	free(bars);

	/* The critical path: a red line along its ops on each lane, with the
	 * ops of a lane closer than CRIT_JOIN_PT joined into one run, and a connector
	 * from lane to lane where one run ends before the next begins (a path
	 * that alternates between two lanes faster than the eye can follow
	 * shows as a run on each). */
	if (t->n_critical > 0)
		draw_critical(&b, &gm, t);

	/* Axis line, tick labels, unit. */
	pl_sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\" stroke-width=\"0.6\"/>\n",
	    gm.x0, axis_y, gm.x1, axis_y);
	for (int k = 0; k * step * unit <= makespan * (1 + 1e-9); k++) {
		double x = gm.x0 + k * step * unit * gm.scale;
		pl_sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\" stroke-width=\"0.6\"/>",
		    x, axis_y, x, axis_y + 2.5);
		pl_sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
		    x, axis_y + 3 + FS_LABEL, FS_LABEL, k * step);
	}
	pl_sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"middle\">time (%s)</text>\n",
	    (gm.x0 + gm.x1) / 2, axis_y + 5 + 2 * FS_LABEL, FS_LABEL, uname);

	/* Legend. */
	for (int i = 0; i < n_items; i++) {
		const struct legend_item *it = &items[i];
		double ix = it->x, iy = it->y;
		if (it->kind == 2)
			pl_sb_printf(&b, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-width=\"1.1\"/>",
			    ix, iy - 2.5, ix + 8, iy - 2.5, PLV_CRITICAL_HEX);
		else
			pl_sb_printf(&b, "<rect x=\"%.2f\" y=\"%.2f\" width=\"8\" height=\"%d\" fill=\"%s\"/>", ix,
			    it->kind == 1 ? iy - 4 : iy - 5, it->kind == 1 ? 3 : 5, plv_device_colour(0)->hex);
		pl_sb_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\">", ix + 10, iy, FS_LEGEND);
		pl_sb_xml(&b, it->text);
		pl_sb_printf(&b, "</text>\n");
	}
	pl_sb_printf(&b, "</svg>\n");

	free(gm.lane_y);
	free(gm.lane_h);
	free(ch_lane);
	free(ch_count);
	*svg = b.s;
	*len = b.len;
	if (w_in != NULL)
		*w_in = gm.W / 72;
	if (h_in != NULL)
		*h_in = gm.H / 72;
}
