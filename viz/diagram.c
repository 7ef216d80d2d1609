/*
 * diagram — the placement diagram built with cgraph and rendered with gvc:
 * see diagram.h.
 *
 * Invariant: nothing here prints DOT by hand; labels are HTML-like labels
 * made with agstrdup_html() (escaped here) or plain labels whose
 * backslashes are doubled, so no op name can change the graph's structure.
 */
#include "viz/diagram.h"

#include <graphviz/gvc.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "strbuf.h"
#include "strmap.h"
#include "viz/palette.h"
#include "xmalloc.h"

#define FONT "Helvetica"

/* ---- small helpers -------------------------------------------------- */


/* Append s for a label: backslashes doubled so that escapes such as \N
 * in op names stay literal (Graphviz expands \G, \N, \\ ... in HTML-like
 * labels too); U+FFFE and U+FFFF (which no SVG may hold) as U+FFFD; for
 * an HTML-like label (html) XML-escaped, for a plain one & as &amp; since
 * Graphviz decodes character entities there (an op named "a&lt;b" would
 * be drawn "a<b"), and control characters as spaces in both. */
static void
sb_label(struct pl_strbuf *b, const char *s, int html)
{
	for (; *s; s++) {
		size_t nx = pl_utf8_nonxml(s);
		char one[2] = { *s, '\0' };
		if (nx > 0) {
			pl_sb_put(b, PL_UTF8_REPLACEMENT, 3);
			s += nx - 1;
		} else if (*s == '\\')
			pl_sb_put(b, "\\\\", 2);
		else if (html)
			pl_sb_xml(b, one);
		else if (*s == '&')
			pl_sb_put(b, "&amp;", 5);
		else
			pl_sb_put(b, (unsigned char)*s < 0x20 ? " " : s, 1);
	}
}

/* Append s for a plain label (sb_label). */
static void
sb_plain(struct pl_strbuf *b, const char *s)
{
	sb_label(b, s, 0);
}

/* Append s as the text of an HTML-like label (sb_label). */
static void
sb_html(struct pl_strbuf *b, const char *s)
{
	sb_label(b, s, 1);
}

/* Human bytes (SI units). */
char *
plv_fmt_bytes(char *buf, size_t n, double bytes)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	return pl_fmt_scaled(buf, n, bytes, 1000, 1000, unit);
}

/* Human memory in binary units, as sim, compare and the explorer give it
 * (1023.5 KiB and up, which would print as 1024, in MiB). */
char *
plv_fmt_mem(char *buf, size_t n, double bytes)
{
	return pl_fmt_mem(buf, n, bytes);
}

/* Human time from microseconds. */
char *
plv_fmt_time(char *buf, size_t n, double us)
{
	static const char *const unit[] = { "µs", "ms", "s" };
	if (!isfinite(us)) {	/* in the smallest unit, as it always was */
		snprintf(buf, n, "%.0f %s", us, unit[0]);
		return buf;
	}
	int u = fabs(us) >= 1e6 ? 2 : fabs(us) >= 1e3 ? 1 : 0;
	double v = us / (u == 2 ? 1e6 : u == 1 ? 1e3 : 1);
	/* digits for the value as it prints: 9.997 ms is "10.0 ms" and
	 * 999.8 µs "1.00 ms", not "10.00 ms" and "1000 µs" */
	for (;;) {
		int whole = fabs(v) == floor(fabs(v));
		int prec = fabs(v) < 10 && v != 0 && !whole ? 2 : fabs(v) < 100 && !whole ? 1 : 0;
		double shown = pl_fmt_fixed(buf, n, v, prec, unit[u]);
		if (u == 2 || shown < 1000)
			return buf;
		v /= 1000;
		u++;
	}
}

/* The rank direction to build with: "auto" (or none) builds LR. */
const char *
plv_rankdir(const struct plv_opts *o)
{
	if (o->rankdir == NULL || strcmp(o->rankdir, "auto") == 0)
		return "LR";
	return o->rankdir;
}

/* Relative luminance test for text colour. */
int
plv_dark(const char *hex)
{
	unsigned r = 0, g = 0, b = 0;
	if (hex == NULL || sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return 0;
	double l = 0.2126 * r / 255.0 + 0.7152 * g / 255.0 + 0.0722 * b / 255.0;
	return l < 0.45;
}

/* Set an attribute on any object, declaring it (default "") if needed. */
static void
set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, "");
}

/* Set an attribute from a printf format. */
static void __attribute__((format(printf, 3, 4)))
setf(void *obj, const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	set(obj, name, buf);
}

/* Set an HTML-like label on obj from the buffer (consumed). */
static void
set_html(Agraph_t *g, void *obj, const char *name, struct pl_strbuf *b)
{
	char *h = agstrdup_html(g, b->s != NULL ? b->s : (char *)"");
	agsafeset(obj, (char *)name, h, "");
	agstrfree(g, h);
	free(b->s);
	memset(b, 0, sizeof *b);
}

/* Set a plain attribute from the buffer (consumed). */
static void
set_sb(void *obj, const char *name, struct pl_strbuf *b)
{
	set(obj, name, b->s != NULL ? b->s : "");
	free(b->s);
	memset(b, 0, sizeof *b);
}

/* ---- deterministic object ids ---------------------------------------- */

/*
 * cgraph's default id discipline uses the address of each name's string
 * as the object id, and orders subgraphs by id, so the order of clusters
 * in the DOT text and the layout would follow malloc.  This one numbers
 * names in creation order instead: named objects get even ids 2, 4, ...
 * (the same name, the same id, as in the default), anonymous ones odd ids.
 */
struct id_state {
	Agraph_t *g;
	char **names;		/* agstrdup()ed: cgraph reads their header */
	int n, cap;
	struct pl_strmap map;
	IDTYPE anon;
};

/* A fresh id table for a graph. */
static void *
id_open(Agraph_t *g, Agdisc_t *disc)
{
	(void)disc;
	struct id_state *st = pl_xcalloc(1, sizeof *st);
	st->g = g;
	pl_strmap_init(&st->map, 64);
	st->anon = 1;
	return st;
}

/* Map a name to its id, creating it if asked. */
static long
id_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	struct id_state *st = state;
	(void)objtype;
	if (str == NULL) {
		*id = st->anon;
		st->anon += 2;
		return 1;
	}
	int k = pl_strmap_get(&st->map, str);
	if (k < 0) {
		if (!createflag)
			return 0;
		if (st->n == st->cap) {
			st->cap = st->cap ? st->cap * 2 : 64;
			st->names = pl_xreallocarray(st->names, (size_t)st->cap, sizeof *st->names);
		}
		k = st->n++;
		st->names[k] = agstrdup(st->g, str);
		pl_strmap_put(&st->map, st->names[k], k);
	}
	*id = (IDTYPE)(k + 1) * 2;
	return 1;
}

/* Explicit ids are not allowed (as in cgraph's default). */
static long
id_alloc(void *state, int objtype, IDTYPE request)
{
	(void)state;
	(void)objtype;
	(void)request;
	return 0;
}

/* Names live until the graph closes. */
static void
id_free(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
}

/* The name of an id, or NULL for an anonymous object. */
static char *
id_print(void *state, int objtype, IDTYPE id)
{
	struct id_state *st = state;
	(void)objtype;
	if (id % 2 != 0 || id == 0 || id / 2 > (IDTYPE)st->n)
		return NULL;
	return st->names[id / 2 - 1];
}

/* Free the table (the strings go with the graph's string pool). */
static void
id_close(void *state)
{
	struct id_state *st = state;
	free(st->names);
	pl_strmap_free(&st->map);
	free(st);
}

/* Nothing to register. */
static void
id_register(void *state, int objtype, void *obj)
{
	(void)state;
	(void)objtype;
	(void)obj;
}

static Agiddisc_t id_disc = {
	id_open, id_map, id_alloc, id_free, id_print, id_close, id_register,
};

/* A new graph with the deterministic id discipline.  Its DOT id is the
 * name without backslashes: cgraph writes a backslash as it is, so one
 * before a quote or at the end would escape it (the title, a label,
 * keeps the whole name). */
static Agraph_t *
graph_open(const char *name, Agdesc_t desc)
{
	static Agdisc_t disc;
	disc.mem = &AgMemDisc;
	disc.id = &id_disc;
	disc.io = &AgIoDisc;
	char *id = pl_xstrdup(name);
	size_t n = 0;
	for (const char *c = name; *c; c++)	/* no SVG title holds a control character */
		if (*c != '\\')
			id[n++] = (unsigned char)*c < 0x20 ? ' ' : *c;
	id[n] = '\0';
	Agraph_t *g = agopen(n > 0 ? id : (char *)"placement", desc, &disc);
	free(id);
	return g;
}

/* ---- building ------------------------------------------------------- */

/* Per-device figures for labels. */
struct dev_stats {
	int n_ops;
	double load_us;
	int64_t peak;
	int has_peak;
};

/* Gather load and memory per device: from the trace when there is one. */
static void
device_stats(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, struct dev_stats *ds)
{
	for (int v = 0; v < p->n_ops; v++) {
		int d = pl->dev[v];
		ds[d].n_ops++;
		if (t == NULL)
			ds[d].load_us += pl_problem_op_us(p, v, d);
	}
	if (t != NULL) {
		for (int d = 0; d < p->n_dev && d < t->res.n_dev; d++) {
			ds[d].load_us = t->res.busy_us[d];
			ds[d].peak = t->res.peak_bytes[d];
			ds[d].has_peak = 1;
		}
	}
}

/* The device's label: name, kind, ops, load, peak memory. */
static void
cluster_label(Agraph_t *g, void *obj, const struct pl_device *dev,
    const struct dev_stats *ds, double makespan, int oom)
{
	struct pl_strbuf b = { 0 };
	char t1[32], m1[32], m2[32];
	pl_sb_printf(&b, "<B>");
	sb_html(&b, dev->name);
	if (ds->n_ops == 0) {
		/* an idle device: its kind and capacity are all there is */
		pl_sb_printf(&b, "</B> <FONT POINT-SIZE=\"9\">%s</FONT><BR ALIGN=\"LEFT\"/>"
		    "<FONT POINT-SIZE=\"9\" COLOR=\"#606060\">idle · %s memory</FONT>"
		    "<BR ALIGN=\"LEFT\"/>", pl_dev_kind_name(dev->kind),
		    plv_fmt_mem(m2, sizeof m2, (double)dev->mem_bytes));
		set_html(g, obj, "label", &b);
		return;
	}
	pl_sb_printf(&b, "</B> <FONT POINT-SIZE=\"9\">%s · %d op%s</FONT><BR ALIGN=\"LEFT\"/>",
	    pl_dev_kind_name(dev->kind), ds->n_ops, ds->n_ops == 1 ? "" : "s");
	pl_sb_printf(&b, "<FONT POINT-SIZE=\"9\">load %s", plv_fmt_time(t1, sizeof t1, ds->load_us));
	if (makespan > 0)
		pl_sb_printf(&b, " (%.0f%%)", 100.0 * ds->load_us / makespan);
	pl_sb_printf(&b, "</FONT><BR ALIGN=\"LEFT\"/>");
	if (ds->has_peak) {
		plv_fmt_mem(m1, sizeof m1, (double)ds->peak);
		plv_fmt_mem(m2, sizeof m2, (double)dev->mem_bytes);
		if (oom)
			pl_sb_printf(&b, "<FONT POINT-SIZE=\"9\" COLOR=\"%s\"><B>peak %s / %s · OOM</B></FONT>",
			    PLV_OOM_HEX, m1, m2);
		else
			pl_sb_printf(&b, "<FONT POINT-SIZE=\"9\">peak mem %s / %s</FONT>", m1, m2);
		pl_sb_printf(&b, "<BR ALIGN=\"LEFT\"/>");
	}
	set_html(g, obj, "label", &b);
}

/* The node label and tooltip of a coarse node. */
static void
node_label(Agnode_t *n, const struct pl_graph *g, const struct pl_coarse_node *nd)
{
	struct pl_strbuf b = { 0 }, tip = { 0 };
	char t1[32];
	plv_fmt_time(t1, sizeof t1, nd->time_us);
	if (nd->collapsed && nd->n_ops > 1) {
		sb_plain(&b, nd->label);
		pl_sb_printf(&b, "\\n%d ops · %s", nd->n_ops, t1);
		sb_plain(&tip, nd->label);
		pl_sb_printf(&tip, ": %d ops, %s", nd->n_ops, t1);
		if (nd->n_critical > 0)
			pl_sb_printf(&tip, ", %d on the critical path", nd->n_critical);
	} else {
		const struct pl_op *op = &g->ops[nd->op];
		sb_plain(&b, op->name);
		if (*op->type) {
			pl_sb_printf(&b, "\\n");
			sb_plain(&b, op->type);
			pl_sb_printf(&b, " · %s", t1);
		} else
			pl_sb_printf(&b, "\\n%s", t1);
		sb_plain(&tip, op->name);
		pl_sb_printf(&tip, " (");
		sb_plain(&tip, *op->type ? op->type : "op");
		pl_sb_printf(&tip, "): %s", t1);
	}
	set_sb(n, "label", &b);
	set_sb(n, "tooltip", &tip);
}

/* Whether the n-byte character at s is East Asian wide (two columns). */
static int
char_wide(const char *s, int n)
{
	char one[8] = { 0 };
	memcpy(one, s, (size_t)n);
	return pl_utf8_width(one) > 1;
}

/* The width in points text s takes at font size fs, roughly: Helvetica's
 * narrow characters a third of an em, capitals and m, w three quarters,
 * East Asian wide ones a whole em, the rest a little over half.  Enough
 * to break a line of the legend near a width, not to measure with. */
static double
text_est(const char *s, double fs)
{
	double em = 0;
	uint32_t cp;
	for (int n; *s; s += n) {
		n = pl_utf8_decode(s, &cp);
		if (cp < 0x80 && strchr(" /:.,;'!|ijlftrI()[]-", (int)cp) != NULL)
			em += 0.31;
		else if (cp < 0x80 && (isupper((int)cp) || cp == 'm' || cp == 'w'))
			em += 0.72;
		else if (cp != PL_UTF8_BAD && cp >= 0x80 && char_wide(s, n))
			em += 1.0;
		else
			em += 0.56;
	}
	return em * fs;
}

/* The width of one device's legend entry (legend_swatches), its
 * separator from the one before aside. */
static double
swatch_est(const struct pl_device *dev, int used)
{
	return text_est("■ ", 12) + text_est(dev->name, 9) + (used ? 0 : text_est(" (idle)", 9));
}

#define LEGEND_GAP "    "	/* between two devices of a legend line */
#define LEGEND_MIN_W 420.0	/* points: about the width of the line-styles line */

/*
 * How wide a line of device swatches may grow before the next starts on a
 * new line: as wide as the drawing is at least without the legend, from
 * the device headers (side by side in a top-down or bottom-up drawing, one
 * under another left to right), and never less than LEGEND_MIN_W, about
 * what the legend's line of line styles takes anyway.  So a few devices
 * keep one line, and many add lines rather than width.
 */
static double
legend_width(const struct pl_cluster *c, const struct plv_opts *o)
{
	const char *rd = plv_rankdir(o);
	int across = strcmp(rd, "TB") == 0 || strcmp(rd, "BT") == 0;
	double w = 0;
	for (int d = 0; d < c->n_dev; d++) {
		/* a header's bold name at 10 points, in a cluster's margins */
		double hw = text_est(c->dev[d].name, 10) * 1.1 + 16;
		w = across ? w + hw : fmax(w, hw);
	}
	return fmax(w, LEGEND_MIN_W);
}

/* The device swatches (coloured squares and names, idle devices grey),
 * as rows of the legend's table, a row holding as many as fit in width
 * points (at least one). */
static void
legend_swatches(struct pl_strbuf *b, const struct pl_cluster *c, const int *used,
    double width)
{
	double x = 0;
	for (int d = 0; d < c->n_dev; d++) {
		const struct plv_colour *col = plv_device_colour(d);
		double w = swatch_est(&c->dev[d], used[d]);
		if (d > 0 && x + text_est(LEGEND_GAP, 9) + w > width) {
			pl_sb_printf(b, "</FONT></TD></TR>");
			x = 0;
		}
		if (x == 0)
			pl_sb_printf(b, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"9\">");
		else {
			pl_sb_printf(b, LEGEND_GAP);
			x += text_est(LEGEND_GAP, 9);
		}
		x += w;
		pl_sb_printf(b, "<FONT COLOR=\"%s\" POINT-SIZE=\"12\">■</FONT> ", col->hex);
		if (!used[d])
			pl_sb_printf(b, "<FONT COLOR=\"#808080\">");
		sb_html(b, c->dev[d].name);
		if (!used[d])
			pl_sb_printf(b, " (idle)</FONT>");
	}
	pl_sb_printf(b, "</FONT></TD></TR>");
}

/* The legend and title, as the graph's HTML label. */
static void
legend_label(Agraph_t *gr, const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct pl_coarse *cg, const struct plv_opts *o)
{
	const struct pl_graph *g = p->g;
	const struct pl_cluster *c = p->c;
	struct pl_strbuf b = { 0 };
	char t1[32], b1[32];
	int used[PL_MAX_DEVICES] = { 0 };
	for (int v = 0; v < g->n_ops; v++)
		used[pl->dev[v]] = 1;

	/* One column of rows, each row its own table, so cells never share
	 * widths across rows. */
	pl_sb_printf(&b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"1\" CELLPADDING=\"0\">");
	pl_sb_printf(&b, "<TR><TD ALIGN=\"LEFT\"><B>");
	if (o->title != NULL)
		sb_html(&b, o->title);
	else {
		sb_html(&b, g->name);
		pl_sb_printf(&b, " on ");
		sb_html(&b, c->name);
		if (t != NULL)
			pl_sb_printf(&b, " · step %s", plv_fmt_time(t1, sizeof t1, t->res.makespan_us));
	}
	pl_sb_printf(&b, "</B></TD></TR>");
	if (o->legend) {
		legend_swatches(&b, c, used, legend_width(c, o));
		/* line styles */
		pl_sb_printf(&b, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"9\">");
		if (t != NULL && t->n_critical > 0)
			pl_sb_printf(&b, "<FONT COLOR=\"%s\"><B>━━</B></FONT> critical path (%d op%s)     ",
			    PLV_CRITICAL_HEX, t->n_critical, t->n_critical == 1 ? "" : "s");
		pl_sb_printf(&b, "<FONT COLOR=\"%s\">╍╍</FONT> tensors between devices, bytes "
		    "moved (total %s)", PLV_EDGE_HEX,
		    plv_fmt_bytes(b1, sizeof b1, (double)cg->moved_bytes));
		pl_sb_printf(&b, "</FONT></TD></TR>");
		if (cg->level != PL_COARSE_FULL) {
			pl_sb_printf(&b, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"9\">");
			int rest = 0;	/* a device's "(other ops)" node */
			for (int i = 0; i < cg->n_nodes; i++)
				rest |= cg->nodes[i].collapsed && cg->nodes[i].depth == 0 &&
				    strcmp(cg->nodes[i].label, "(other ops)") == 0;
			if (cg->level == PL_COARSE_AUTO)
				pl_sb_printf(&b, "3-D box: the ops of a scope (ops · total time)%s; "
				    "%d nodes for %d ops", rest ? ", (other ops) the rest of its device" : "",
				    cg->n_nodes, g->n_ops);
			else
				pl_sb_printf(&b, "3-D box: the ops of a scope prefix of %d level%s "
				    "(ops · total time); %d nodes for %d ops", cg->level,
				    cg->level == 1 ? "" : "s", cg->n_nodes, g->n_ops);
			pl_sb_printf(&b, "</FONT></TD></TR>");
		}
	}
	pl_sb_printf(&b, "</TABLE>");
	set_html(gr, gr, "label", &b);
}

/* Declare the defaults every object starts with. */
static void
defaults(Agraph_t *g, const struct plv_opts *o)
{
	agattr(g, AGRAPH, "label", "");
	agattr(g, AGRAPH, "style", "");
	agattr(g, AGRAPH, "fillcolor", "");
	agattr(g, AGRAPH, "color", "");
	agattr(g, AGRAPH, "penwidth", "1");
	set(g, "rankdir", plv_rankdir(o));
	set(g, "fontname", FONT);
	set(g, "fontsize", "11");
	set(g, "labelloc", "t");
	set(g, "labeljust", "l");
	set(g, "newrank", "true");
	set(g, "nodesep", "0.12");
	set(g, "ranksep", "0.3");
	set(g, "outputorder", "edgesfirst");
	set(g, "bgcolor", "white");
	set(g, "pad", "0.1");
	/* no page margin (PDF's default is half an inch each side): the
	 * figure is its drawing, as SVG and PNG are */
	set(g, "margin", "0");
	set(g, "overlap", "false");
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "filled,rounded");
	agattr(g, AGNODE, "fontname", FONT);
	agattr(g, AGNODE, "fontsize", "9");
	agattr(g, AGNODE, "penwidth", "0.6");
	agattr(g, AGNODE, "color", "#404040");
	agattr(g, AGNODE, "margin", "0.06,0.03");
	agattr(g, AGNODE, "height", "0.3");
	agattr(g, AGEDGE, "fontname", FONT);
	agattr(g, AGEDGE, "fontsize", "8");
	agattr(g, AGEDGE, "arrowsize", "0.5");
	agattr(g, AGEDGE, "penwidth", "0.7");
	agattr(g, AGEDGE, "color", PLV_EDGE_HEX);
}

/* The label of a cross-device edge: the bytes its transfers move (none
 * when its tensors reach the device with another edge's transfers). */
static void
moved_label(Agedge_t *ed, const struct pl_coarse_edge *ce)
{
	char b1[32];
	if (ce->moved > 0)
		setf(ed, "label", "%s", plv_fmt_bytes(b1, sizeof b1, (double)ce->moved));
}

/* One direction of an edge's tooltip: its op edges and tensor bytes, and
 * for a cross-device edge the bytes it moves when they differ. */
static void
sb_edge_tip(struct pl_strbuf *b, const struct pl_coarse_edge *e, int cross)
{
	char b1[32];
	pl_sb_printf(b, "%d edge%s, %s", e->n_edges, e->n_edges == 1 ? "" : "s",
	    plv_fmt_bytes(b1, sizeof b1, (double)e->bytes));
	if (cross && e->moved != e->bytes)
		pl_sb_printf(b, ", %s moved", plv_fmt_bytes(b1, sizeof b1, (double)e->moved));
}

/* The tooltip of an edge (re: its reverse, or NULL). */
static void
edge_tooltip(Agedge_t *ed, const struct pl_coarse_edge *ce, const struct pl_coarse_edge *re,
    int cross)
{
	struct pl_strbuf b = { 0 };
	if (re != NULL)
		pl_sb_printf(&b, "forward ");
	sb_edge_tip(&b, ce, cross);
	if (re != NULL) {
		pl_sb_printf(&b, "; back ");
		sb_edge_tip(&b, re, cross);
	}
	set_sb(ed, "tooltip", &b);
}

/* Build the diagram. */
Agraph_t *
plv_diagram_build(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct pl_coarse *cg, const struct plv_opts *o)
{
	const struct pl_graph *g = p->g;
	const struct pl_cluster *c = p->c;
	Agraph_t *gr = graph_open(g->name[0] ? g->name : "placement", Agdirected);
	defaults(gr, o);
	legend_label(gr, p, pl, t, cg, o);

	struct dev_stats ds[PL_MAX_DEVICES];
	memset(ds, 0, sizeof ds);
	device_stats(p, pl, t, ds);
	double makespan = t != NULL ? t->res.makespan_us : 0;

	Agraph_t *sub[PL_MAX_DEVICES];
	Agnode_t *head[PL_MAX_DEVICES];
	int first[PL_MAX_DEVICES];
	char name[64];
	for (int d = 0; d < c->n_dev; d++) {
		const struct plv_colour *col = plv_device_colour(d);
		snprintf(name, sizeof name, "cluster_d%d", d);
		sub[d] = agsubg(gr, name, 1);
		int oom = t != NULL && (t->res.oom_mask >> d) & 1;
		/* setting the root's label also set the subgraphs' default */
		set(sub[d], "label", "");
		set(sub[d], "style", "filled,rounded");
		set(sub[d], "fillcolor", col->fill);
		set(sub[d], "color", oom ? PLV_OOM_HEX : col->hex);
		set(sub[d], "penwidth", oom ? "2.5" : "1.2");
		set(sub[d], "margin", "8");	/* a cluster's own default, not the root's 0 */
		/* The device's label is a node (see the header comment), so
		 * that edges are routed around it rather than through it. */
		snprintf(name, sizeof name, "h%d", d);
		head[d] = agnode(sub[d], name, 1);
		cluster_label(gr, head[d], &c->dev[d], &ds[d], makespan, oom);
		set(head[d], "shape", "plaintext");
		set(head[d], "style", "");
		set(head[d], "margin", "0.04,0.02");
		set(head[d], "fontsize", "10");
	}

	Agnode_t **nodes = pl_xcalloc(cg->n_nodes > 0 ? cg->n_nodes : 1, sizeof *nodes);
	for (int d = 0; d < c->n_dev; d++)
		first[d] = -1;
	for (int i = 0; i < cg->n_nodes; i++) {
		const struct pl_coarse_node *nd = &cg->nodes[i];
		const struct plv_colour *col = plv_device_colour(nd->dev);
		snprintf(name, sizeof name, "n%d", i);
		Agnode_t *n = agnode(sub[nd->dev], name, 1);
		if (first[nd->dev] < 0) {
			/* the header shares the rank of the device's first node */
			first[nd->dev] = i;
			snprintf(name, sizeof name, "rank_d%d", nd->dev);
			Agraph_t *r = agsubg(sub[nd->dev], name, 1);
			set(r, "rank", "same");
			agsubnode(r, head[nd->dev], 1);
			agsubnode(r, n, 1);
			/* an invisible flat edge keeps the header leftmost */
			Agedge_t *ie = agedge(gr, head[nd->dev], n, NULL, 1);
			set(ie, "style", "invis");
		}
		nodes[i] = n;
		node_label(n, g, nd);
		set(n, "fillcolor", col->hex);
		if (plv_dark(col->hex))
			set(n, "fontcolor", "white");
		if (nd->collapsed && nd->n_ops > 1) {
			set(n, "shape", "box3d");
			set(n, "style", "filled");
		}
		if (nd->n_critical > 0) {
			set(n, "color", PLV_CRITICAL_HEX);
			set(n, "penwidth", "2.2");
		}
	}
	for (int e = 0; e < cg->n_edges; e++) {
		const struct pl_coarse_edge *ce = &cg->edges[e];
		int sd = cg->nodes[ce->src].dev, dd = cg->nodes[ce->dst].dev;
		/* Inside a device, a pair a->b and b->a (forward and backward
		 * pass) is one edge with heads at both ends.  Between devices
		 * each direction is its own edge with its head at the
		 * receiver, in its sender's colour, labelled with what it
		 * moves.  A pair's edges both run from the lower node id (the
		 * back one with dir=back), so that they rank alike and add no
		 * cycle to the DOT. */
		int r = pl_coarse_find_edge(cg, ce->dst, ce->src);
		const struct pl_coarse_edge *re = r >= 0 ? &cg->edges[r] : NULL;
		if (sd == dd && re != NULL && ce->src > ce->dst)
			continue;
		int back = re != NULL && ce->src > ce->dst;
		Agedge_t *ed = back ? agedge(gr, nodes[ce->dst], nodes[ce->src], NULL, 1) :
		    agedge(gr, nodes[ce->src], nodes[ce->dst], NULL, 1);
		if (sd != dd) {
			if (back)
				set(ed, "dir", "back");
			set(ed, "style", "dashed");
			set(ed, "color", ce->critical ? PLV_CRITICAL_HEX : plv_device_colour(sd)->hex);
			set(ed, "penwidth", ce->critical ? "2.2" : "1.3");
			moved_label(ed, ce);
			set(ed, "fontcolor", "#303030");
			set(ed, "weight", "1");
			edge_tooltip(ed, ce, NULL, 1);
			continue;
		}
		int critical = ce->critical || (re != NULL && re->critical);
		if (re != NULL)
			set(ed, "dir", "both");
		set(ed, "weight", "3");
		if (critical) {
			set(ed, "color", PLV_CRITICAL_HEX);
			set(ed, "penwidth", "2.2");
		}
		edge_tooltip(ed, ce, re, 0);
	}
	free(nodes);
	return gr;
}

/* ---- rendering ------------------------------------------------------ */

static char gv_err[512];

/* Keep the first Graphviz error message. */
static int
capture_err(char *msg)
{
	size_t n = strlen(gv_err);
	if (n > 0 && gv_err[n - 1] == '\n')
		return 0;
	snprintf(gv_err + n, sizeof gv_err - n, "%s", msg);
	return 0;
}

/* The captured message without "Error: " and the newline. */
static const char *
err_text(void)
{
	size_t n = strlen(gv_err);
	while (n > 0 && (gv_err[n - 1] == '\n' || gv_err[n - 1] == ' '))
		gv_err[--n] = '\0';
	const char *s = gv_err;
	if (strncmp(s, "Error: ", 7) == 0)
		s += 7;
	return *s ? s : "unknown Graphviz error";
}

/*
 * One Graphviz context for the whole process.  Graphviz 2.43's pango text
 * layout caches the last font name in a static pointer into the context's
 * font table, so a second context after gvFreeContext() reads freed
 * memory; a single context never frees that table.  Freed at exit.
 */
static GVC_t *the_gvc;

/*
 * Graphviz 2.43 and the font stack under it keep allocations past
 * gvFreeLayout()/gvFreeContext() (layout records, fontconfig and pango
 * caches, gvPluginList() names).  Under AddressSanitizer, tell its leak
 * checker so that only our own leaks are reported.  The runtime looks this
 * hook up by name; without the sanitizer it is never called.
 */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\n"
	    "leak:libcgraph.so\n"
	    "leak:libgvplugin_\n"
	    "leak:libfontconfig.so\n"
	    "leak:libpango\n"
	    "leak:libcairo.so\n"
	    "leak:libglib-2.0.so\n"
	    "leak:libgobject-2.0.so\n"
	    "leak:libharfbuzz.so\n"
	    "leak:librsvg\n";
}

/* Keep the suppressed leaks out of stderr. */
const char *__lsan_default_options(void);
const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}

/* Free the shared context at exit. */
static void
free_context(void)
{
	if (the_gvc != NULL)
		gvFreeContext(the_gvc);
	the_gvc = NULL;
}

/* The shared context, made on first use. */
static GVC_t *
shared_context(void)
{
	if (the_gvc == NULL) {
		the_gvc = gvContext();
		atexit(free_context);
	}
	return the_gvc;
}

/* The error handling of one call into Graphviz. */
struct gv_call {
	agusererrf prev;
	agerrlevel_t level;
};

/* Start a call: keep Graphviz's first error (err_text()), not stderr;
 * returns the shared context. */
static GVC_t *
gv_begin(struct gv_call *c)
{
	gv_err[0] = '\0';
	c->prev = agseterrf(capture_err);
	c->level = agseterr(AGERR);
	return shared_context();
}

/* End a call: the previous error handling back. */
static void
gv_end(const struct gv_call *c)
{
	agseterr(c->level);
	agseterrf(c->prev);
}

/* Whether gvc has a plugin of this kind and name, not counting those
 * whose names start with skip (if not NULL); on failure lists the others. */
static int
have_plugin(GVC_t *gvc, const char *kind, const char *name, const char *skip,
    char **list)
{
	int n = 0, found = 0, listed = 0;
	char **l = gvPluginList(gvc, kind, &n, NULL);
	struct pl_strbuf b = { 0 };
	for (int i = 0; i < n; i++) {
		if (skip == NULL || strncmp(l[i], skip, strlen(skip)) != 0) {
			if (strcmp(l[i], name) == 0)
				found = 1;
			pl_sb_printf(&b, "%s%s", listed++ ? ", " : "", l[i]);
		}
		free(l[i]);
	}
	free(l);
	if (list != NULL)
		*list = b.s != NULL ? b.s : pl_xstrdup("none");
	else
		free(b.s);
	return found;
}

/* The gvc device string of an image format: cairo when installed. */
static const char *
device_of(enum plv_format f)
{
	switch (f) {
	case PLV_FMT_PDF: return "pdf";
	case PLV_FMT_PNG: return "png";
	default: return "svg";
	}
}

/* Render a laid-out graph to memory (copying into our allocator). */
static int
render_to(GVC_t *gvc, Agraph_t *g, enum plv_format f, char **data, size_t *len,
    char **cause)
{
	const char *dev = device_of(f);
	char *list;
	if (!have_plugin(gvc, "device", dev, NULL, &list)) {
		*cause = pl_xasprintf("Graphviz here cannot write %s (devices: %s)", dev, list);
		free(list);
		return -1;
	}
	free(list);
	char want[32];
	snprintf(want, sizeof want, "%s:cairo", dev);
	if (f == PLV_FMT_SVG || !have_plugin(gvc, "render", "cairo", NULL, NULL))
		snprintf(want, sizeof want, "%s", dev);
	char *out = NULL;
	unsigned int n = 0;
	if (gvRenderData(gvc, g, want, &out, &n) != 0 || out == NULL || n == 0) {
		*cause = pl_xasprintf("rendering %s: %s", dev, err_text());
		if (out != NULL)
			gvFreeRenderData(out);
		return -1;
	}
	*data = pl_xmalloc((size_t)n + 1);
	memcpy(*data, out, n);
	(*data)[n] = '\0';
	*len = n;
	gvFreeRenderData(out);
	return 0;
}

/* Write g as DOT text (no layout). */
static int
write_dot(Agraph_t *g, char **data, size_t *len, char **cause)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (f == NULL) {
		*cause = pl_xasprintf("DOT output: cannot open a memory stream");
		return -1;
	}
	int rc = agwrite(g, f);
	if (fclose(f) != 0 || rc != 0) {
		free(buf);
		*cause = pl_xasprintf("DOT output: agwrite failed");
		return -1;
	}
	*data = pl_xmalloc(n + 1);
	memcpy(*data, buf, n);
	(*data)[n] = '\0';
	*len = n;
	free(buf);
	return 0;
}

/* Bound dot's effort by the work of g (see diagram.h): network-simplex
 * passes above PLV_EFFORT_NODES nodes (with device clusters spanning many
 * ranks, unbounded passes took minutes for 200 nodes of Inception-V3
 * placed by Scotch, where two take seconds and look the same), and beyond
 * PLV_FULL_EFFORT_WORK the ordering, the search for positions and the
 * routing. */
static void
limit_effort(Agraph_t *g, long work)
{
	if (agnnodes(g) <= PLV_EFFORT_NODES)
		return;
	set(g, "nslimit", "2");
	set(g, "nslimit1", "2");
	if (work <= PLV_FULL_EFFORT_WORK)
		return;
	set(g, "mclimit", "0.3");
	set(g, "searchsize", "5");
	set(g, "splines", "line");
}

/* The rank dot gave n in a ranking-only pass. */
static long
rank_of(Agnode_t *n, Agsym_t *rk)
{
	return strtol(agxget(n, rk), NULL, 10);
}

/* Measure the work by laying out only the ranks (Graphviz's "phase" 1,
 * which writes each node's rank as its "rank" attribute). */
int
plv_diagram_work(Agraph_t *g, long *work, char **cause)
{
	struct gv_call call;
	GVC_t *gvc = gv_begin(&call);
	set(g, "phase", "1");
	int rc = gvLayout(gvc, g, "dot");
	set(g, "phase", "");
	Agsym_t *rk = agattr(g, AGNODE, (char *)"rank", NULL);
	if (rc != 0 || rk == NULL) {
		*cause = pl_xasprintf("layout 'dot' failed: %s", err_text());
		if (rc == 0)
			gvFreeLayout(gvc, g);
		gv_end(&call);
		return -1;
	}
	long w = 0;
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n)) {
		long r = rank_of(n, rk);
		w++;
		for (Agedge_t *e = agfstout(g, n); e != NULL; e = agnxtout(g, e)) {
			long span = labs(rank_of(aghead(e), rk) - r);
			w += span > 1 ? span - 1 : 0;
		}
	}
	for (Agraph_t *sub = agfstsubg(g); sub != NULL; sub = agnxtsubg(sub)) {
		if (strncmp(agnameof(sub), "cluster", 7) != 0 || agfstnode(sub) == NULL)
			continue;
		long lo = LONG_MAX, hi = LONG_MIN;
		for (Agnode_t *n = agfstnode(sub); n != NULL; n = agnxtnode(sub, n)) {
			long r = rank_of(n, rk);
			lo = r < lo ? r : lo;
			hi = r > hi ? r : hi;
		}
		w += PLV_CELL_WORK * (hi - lo + 1);
	}
	gvFreeLayout(gvc, g);
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n))
		agxset(n, rk, "");
	set(g, "bb", "");	/* the pass's box, no layout's */
	gv_end(&call);
	*work = w;
	return 0;
}

/* Whether Graphviz here has layout engine: 0, or -1 and *cause naming
 * the engines it has.  The nop engines are refused: they only keep the
 * positions a graph already has, and a diagram has none. */
int
plv_layout_check(const char *engine, char **cause)
{
	char *list = NULL;
	struct gv_call call;
	int known = have_plugin(gv_begin(&call), "layout", engine, "nop", &list);
	gv_end(&call);
	if (!known && strncmp(engine, "nop", 3) == 0)
		*cause = pl_xasprintf("layout '%s': it keeps the positions a graph already has, "
		    "and a diagram has none (expected one of: %s)", engine, list);
	else if (!known)
		*cause = pl_xasprintf("layout '%s': unknown (Graphviz here has: %s)", engine, list);
	free(list);
	return known ? 0 : -1;
}

/* The work of laying g out with engine: measured for dot above
 * PLV_EFFORT_NODES nodes, else the node count.  0, or -1 + *cause (an
 * engine Graphviz here does not have). */
static int
layout_work(Agraph_t *g, const char *engine, long *work, char **cause)
{
	if (plv_layout_check(engine, cause) != 0)
		return -1;
	*work = agnnodes(g);
	if (strcmp(engine, "dot") != 0 || agnnodes(g) <= PLV_EFFORT_NODES)
		return 0;
	return plv_diagram_work(g, work, cause);
}

/*
 * Cairo draws bitmaps of at most 32767 pixels a side; Graphviz shrinks a
 * bigger drawing to fit, unreadably, and says so on stderr (as "(null): graph
 * is too large for cairo-renderer bitmaps").  A bitmap also takes 4 bytes
 * a pixel: at most 2^27 pixels (512 MB).
 */
#define PLV_PNG_MAX_SIDE 32767
#define PLV_PNG_MAX_PIXELS 134217728.0

/* The size in points of the largest device header of laid-out g (nodes
 * h0, h1, ...): whatever else is drawn, the drawing holds it. */
static void
header_extent(Agraph_t *g, double *w, double *h)
{
	*w = *h = 0;
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n)) {
		const char *name = agnameof(n);
		if (name[0] != 'h' || !isdigit((unsigned char)name[1]))
			continue;
		*w = fmax(*w, ND_width(n) * 72);	/* laid out, in inches */
		*h = fmax(*h, ND_height(n) * 72);
	}
}

/* Whether a drawing of w x h points is too big for cairo at dpi. */
static int
too_big_at(double w, double h, double dpi)
{
	w *= dpi / 72;
	h *= dpi / 72;
	return w >= PLV_PNG_MAX_SIDE || h >= PLV_PNG_MAX_SIDE || w * h > PLV_PNG_MAX_PIXELS;
}

/* The size in points of laid-out g's device clusters together (the
 * drawing without its title and legend), or 0 x 0 when it has none. */
static void
clusters_extent(Agraph_t *g, double *w, double *h)
{
	double x0 = HUGE_VAL, y0 = HUGE_VAL, x1 = -HUGE_VAL, y1 = -HUGE_VAL;
	for (int i = 1; i <= GD_n_cluster(g); i++) {
		boxf bb = GD_bb(GD_clust(g)[i]);
		x0 = fmin(x0, bb.LL.x);
		y0 = fmin(y0, bb.LL.y);
		x1 = fmax(x1, bb.UR.x);
		y1 = fmax(y1, bb.UR.y);
	}
	*w = x1 > x0 ? x1 - x0 : 0;
	*h = y1 > y0 ? y1 - y0 : 0;
}

/*
 * Whether laid-out g makes a PNG too big for cairo at dpi; if so *cause
 * says how big and what to do (fewer: how to draw less, or NULL, left
 * out when one device's header or the legend alone is too big, as
 * drawing less does not shrink them; cli: name the command line's --dpi;
 * legend: g has a legend, and cli, to name --no-legend when the drawing
 * would fit without its title and legend).
 */
static int
png_too_big(Agraph_t *g, double dpi, const char *fewer, int cli, int legend, char **cause)
{
	double x0, y0, x1, y1;
	const char *bb = agget(g, (char *)"bb");
	if (bb == NULL || sscanf(bb, "%lf%*[ ,]%lf%*[ ,]%lf%*[ ,]%lf", &x0, &y0, &x1, &y1) != 4)
		return 0;
	const char *pad_s = agget(g, (char *)"pad");
	double pad = pad_s != NULL && *pad_s ? strtod(pad_s, NULL) * 72 : 4;
	double w = (x1 - x0 + 2 * pad) * dpi / 72, h = (y1 - y0 + 2 * pad) * dpi / 72;
	if (w < PLV_PNG_MAX_SIDE && h < PLV_PNG_MAX_SIDE && w * h <= PLV_PNG_MAX_PIXELS)
		return 0;
	double fit = dpi * fmin((PLV_PNG_MAX_SIDE - 1) / fmax(w, h),
	    sqrt(PLV_PNG_MAX_PIXELS / (w * h)));
	struct pl_strbuf b = { 0 };
	double hw, hh;
	header_extent(g, &hw, &hh);
	hw *= dpi / 72;
	hh *= dpi / 72;
	int headers_too_big = hw >= PLV_PNG_MAX_SIDE || hh >= PLV_PNG_MAX_SIDE ||
	    hw * hh > PLV_PNG_MAX_PIXELS;
	/* the graph's label: the title and, unless left out, the legend
	 * (a title too big by itself is not told apart from it) */
	textlabel_t *lab = GD_label(g);
	double cw, ch;
	clusters_extent(g, &cw, &ch);
	int legend_too_big = lab != NULL && too_big_at(lab->dimen.x, lab->dimen.y, dpi);
	int legend_cause = legend && lab != NULL && cw > 0 &&
	    !too_big_at(cw + 2 * pad, ch + 2 * pad, dpi);
	pl_sb_printf(&b, "a PNG of %.0f x %.0f pixels is more than cairo draws", w, h);
	if (headers_too_big)
		pl_sb_printf(&b, " (a device's name alone takes %.0f x %.0f)", hw, hh);
	pl_sb_printf(&b, ": ");
	if (cli && floor(fit) >= 10)
		pl_sb_printf(&b, "use --dpi %.0f or less, ", floor(fit));
	if (fewer != NULL && !headers_too_big && !legend_too_big)
		pl_sb_printf(&b, "%s, ", fewer);
	if (legend_cause)
		pl_sb_printf(&b, "leave the legend out (--no-legend), ");
	pl_sb_printf(&b, "or write SVG or PDF, which have no size limit (the drawing is "
	    "%.0f x %.0f inches, at %g dpi; cairo draws %d pixels a side, %.0f million in "
	    "all)", w / dpi, h / dpi, dpi, PLV_PNG_MAX_SIDE, PLV_PNG_MAX_PIXELS / 1e6);
	*cause = b.s;
	return 1;
}

/* Why `nodes` nodes are not laid out, or NULL (see diagram.h). */
char *
plv_too_many_nodes(int nodes, const char *fewer)
{
	if (nodes <= PLV_MAX_LAYOUT_NODES)
		return NULL;
	return pl_xasprintf("%d nodes are too many to lay out (at most %d): %s", nodes,
	    PLV_MAX_LAYOUT_NODES, fewer != NULL ? fewer :
	    "coarsen with a node budget (--max-nodes) or a level, or write DOT");
}

/* The nodes of a drawing but the devices' headings (a diagram's ops and
 * groups are named n..., its headings h...; an image's node counts). */
static int
drawn_nodes(Agraph_t *g)
{
	int drawn = 0;
	for (Agnode_t *n = agfstnode(g); n != NULL; n = agnxtnode(g, n))
		drawn += agnameof(n)[0] != 'h';
	return drawn;
}

/* The devices a diagram draws nodes on (its clusters holding more than
 * their heading), at least 1. */
static int
used_devices(Agraph_t *g)
{
	int used = 0;
	for (Agraph_t *sg = agfstsubg(g); sg != NULL; sg = agnxtsubg(sg)) {
		if (strncmp(agnameof(sg), "cluster_d", 9) != 0)
			continue;
		int any = 0;
		for (Agnode_t *n = agfstnode(sg); n != NULL && !any; n = agnxtnode(sg, n))
			any = agnameof(n)[0] != 'h';
		used += any;
	}
	return used > 0 ? used : 1;
}

/*
 * Lay out and render.  A refusal says how to draw less (fewer, or NULL
 * when drawing less is no remedy) and, for the command line (no o->fewer
 * of a front end's own), names its --force and --dpi (other front ends
 * have neither).
 */
static int
render_graph(Agraph_t *g, const struct plv_opts *o, const char *fewer, char **data,
    size_t *len, char **cause)
{
	int cli = o->fewer == NULL;
	*data = NULL;
	*len = 0;
	if (o->format == PLV_FMT_DOT) {
		/* the layout limits placelab's own rendering would set, so
		 * that dot run on the file lays it out the same, as fast
		 * (beyond what placelab lays out: the bounded ones, unmeasured) */
		long work = LONG_MAX;
		if (o->layout == NULL || strcmp(o->layout, "dot") == 0) {
			char *why = NULL;	/* no ranking pass: the limits unmeasured */
			if (drawn_nodes(g) <= PLV_MAX_LAYOUT_NODES &&
			    layout_work(g, "dot", &work, &why) != 0) {
				free(why);
				work = LONG_MAX;
			}
			limit_effort(g, work);
		}
		return write_dot(g, data, len, cause);
	}
	if ((*cause = plv_too_many_nodes(drawn_nodes(g), o->fewer)) != NULL)
		return -1;
	const char *engine = o->layout != NULL ? o->layout : "dot";
	double dpi = o->dpi > 0 ? o->dpi : 150;
	long work;
	if (layout_work(g, engine, &work, cause) != 0)
		return -1;
	if (work > PLV_MAX_WORK && !o->force) {
		*cause = pl_xasprintf("%d nodes are too much for dot to lay out: %s%s "
		    "(with the ranks their edges and device clusters span, %ld layout "
		    "nodes: minutes or more; at most %d, about half a minute)", drawn_nodes(g),
		    fewer != NULL ? fewer : "draw less",
		    cli ? ", write DOT, or lay it out anyway with --force" : "", work, PLV_MAX_WORK);
		return -1;
	}
	struct gv_call call;
	GVC_t *gvc = gv_begin(&call);
	int rc = -1;
	if (o->format == PLV_FMT_PNG)
		setf(g, "dpi", "%g", dpi);
	limit_effort(g, work);
	if (gvLayout(gvc, g, engine) != 0) {
		*cause = pl_xasprintf("layout '%s' failed: %s", engine, err_text());
		gv_end(&call);
		return -1;
	}
	if (o->format != PLV_FMT_PNG || !png_too_big(g, dpi, fewer, cli, cli && o->legend, cause))
		rc = render_to(gvc, g, o->format, data, len, cause);
	gvFreeLayout(gvc, g);
	gv_end(&call);
	return rc;
}

/* Lay out and render a diagram; a refusal says how to draw fewer nodes in
 * the front end's words when it gives them (o->fewer, e.g. the explorer's
 * Detail setting), else with the command line's flags. */
int
plv_diagram_render(Agraph_t *g, const struct plv_opts *o, char **data, size_t *len,
    char **cause)
{
	/* none when the drawing has one node per device used already, the
	 * fewest a diagram draws */
	int drawn = drawn_nodes(g), least = used_devices(g);
	if (drawn <= least)
		return render_graph(g, o, NULL, data, len, cause);
	if (o->fewer != NULL)
		return render_graph(g, o, o->fewer, data, len, cause);
	/* fewer than drawn now: 200 (still readable as a large figure) for
	 * a bigger drawing, else half as many (the device headers aside),
	 * never below the fewest */
	int target = drawn > 200 ? 200 : drawn / 2;
	char cli_fewer[128];
	snprintf(cli_fewer, sizeof cli_fewer, "draw fewer nodes (--max-nodes %d, --level; "
	    "in the explorer a smaller Detail)", target > least ? target : least);
	return render_graph(g, o, cli_fewer, data, len, cause);
}

/* Lay out g with engine and report its drawing's width / height. */
int
plv_diagram_aspect(Agraph_t *g, const char *engine, double *aspect, char **cause)
{
	long work;
	if (layout_work(g, engine, &work, cause) != 0)
		return -1;
	if (work > PLV_FULL_EFFORT_WORK) {
		*cause = pl_xasprintf("layout '%s': %ld layout nodes, too many for a trial",
		    engine, work);
		return -1;
	}
	struct gv_call call;
	GVC_t *gvc = gv_begin(&call);
	int rc = -1;
	limit_effort(g, work);
	if (gvLayout(gvc, g, engine) != 0) {
		*cause = pl_xasprintf("layout '%s' failed: %s", engine, err_text());
		gv_end(&call);
		return -1;
	}
	/* "plain" output starts with "graph SCALE WIDTH HEIGHT". */
	char *out = NULL;
	unsigned int n = 0;
	double scale, w = 0, h = 0;
	if (gvRenderData(gvc, g, "plain", &out, &n) == 0 && out != NULL &&
	    sscanf(out, "graph %lf %lf %lf", &scale, &w, &h) == 3 && w > 0 && h > 0) {
		*aspect = w / h;
		rc = 0;
	} else
		*cause = pl_xasprintf("layout '%s': no size in its output", engine);
	if (out != NULL)
		gvFreeRenderData(out);
	gvFreeLayout(gvc, g);
	gv_end(&call);
	return rc;
}

/* Render an image file through a one-node graph. */
int
plv_image_render(const char *image_path, double width_in, double height_in,
    const struct plv_opts *o, char **data, size_t *len, char **cause)
{
	*data = NULL;
	*len = 0;
	Agraph_t *g = graph_open("image", Agdirected);
	set(g, "pad", "0");
	set(g, "margin", "0");
	set(g, "bgcolor", "white");
	Agnode_t *n = agnode(g, (char *)"img", 1);
	set(n, "shape", "none");
	set(n, "label", "");
	set(n, "image", image_path);
	set(n, "imagescale", "true");
	set(n, "fixedsize", "true");
	setf(n, "width", "%g", width_in);
	setf(n, "height", "%g", height_in);
	set(n, "margin", "0");
	struct plv_opts oo = *o;
	oo.layout = "neato";
	oo.format = o->format;
	int rc = render_graph(g, &oo, NULL, data, len, cause);
	agclose(g);
	return rc;
}
