/*
 * export — one entry point for every picture: see export.h.
 *
 * Invariant: the output file is only ever written by pl_file_write_atomic()
 * after the whole picture has been rendered into memory.
 */
#include "viz/export.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "coarsen.h"
#include "fileio.h"
#include "viz/diagram.h"
#include "viz/timeline.h"
#include "xmalloc.h"

static const char *format_names[] = {
#define PLV_X(e, s) s,
	PLV_FORMATS(PLV_X)
#undef PLV_X
};

/* Defaults. */
void
plv_opts_init(struct plv_opts *o)
{
	memset(o, 0, sizeof *o);
	o->format = PLV_FMT_SVG;
	o->level = -1;
	o->max_nodes = PLV_DEFAULT_MAX_NODES;
	o->layout = "dot";
	o->rankdir = NULL;
	o->legend = 1;
	o->width_in = 7.0;
	o->dpi = 150;
}

/* SOURCE_DATE_EPOCH's seconds in *secs (-1: not set).  0, or -1 and
 * *cause when it is not a count of seconds (0 .. year 9999). */
static int
source_date(long long *secs, char **cause)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	*secs = -1;
	if (env == NULL || *env == '\0')
		return 0;
	char *end;
	errno = 0;
	long long v = strtoll(env, &end, 10);
	if (*end != '\0' || errno != 0 || v < 0 || v > 253402300799LL || !isdigit((unsigned char)*env)) {
		*cause = pl_xasprintf("SOURCE_DATE_EPOCH: expected seconds since 1970 (0 .. "
		    "253402300799), got '%s'", env);
		return -1;
	}
	*secs = v;
	return 0;
}

/* What o asks for that cannot be drawn whatever the placement: 0, or -1
 * and *cause (a format out of range, a timeline in DOT, a layout engine
 * Graphviz here lacks for a diagram, a malformed SOURCE_DATE_EPOCH for a
 * PDF).  Checked before a placer runs, so that such a mistake costs no
 * search. */
int
plv_opts_check(const struct plv_opts *o, char **cause)
{
	if ((unsigned)o->format >= PLV_FMT_COUNT) {
		*cause = pl_xasprintf("unknown output format %d", (int)o->format);
		return -1;
	}
	if (o->timeline && o->format == PLV_FMT_DOT) {
		*cause = pl_xasprintf("timeline: DOT is not a timeline format (use svg, pdf or png)");
		return -1;
	}
	long long secs;
	if (o->format == PLV_FMT_PDF && source_date(&secs, cause) != 0)
		return -1;
	if (!o->timeline)
		return plv_layout_check(o->layout != NULL ? o->layout : "dot", cause);
	return 0;
}

/* Name of a format. */
const char *
plv_format_name(enum plv_format f)
{
	return (unsigned)f < PLV_FMT_COUNT ? format_names[f] : "?";
}

/* Format by name. */
int
plv_format_parse(const char *s)
{
	for (int f = 0; f < PLV_FMT_COUNT; f++)
		if (strcasecmp(s, format_names[f]) == 0)
			return f;
	if (strcasecmp(s, "gv") == 0)
		return PLV_FMT_DOT;
	return -1;
}

/* The suffix of the last component. */
const char *
plv_path_suffix(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (dot == NULL || dot == base)	/* ".name" is a name, not a suffix */
		return NULL;
	return dot + 1;
}

/* Format by suffix. */
int
plv_format_from_path(const char *path)
{
	const char *ext = plv_path_suffix(path);
	return ext != NULL ? plv_format_parse(ext) : -1;
}

/* The coarse graph o asks for. */
struct pl_coarse *
plv_export_coarsen(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o)
{
	const int *crit = t != NULL ? t->critical : NULL;
	int ncrit = t != NULL ? t->n_critical : 0;
	struct pl_coarse *cg;
	if (o->max_nodes > 0)
		cg = pl_coarsen_auto(p, pl, o->max_nodes, crit, ncrit);
	else
		cg = pl_coarsen(p, pl, o->level < 0 ? PL_COARSE_FULL : o->level, crit, ncrit);
	pl_coarse_set_moved(cg, p->g, pl, t);
	return cg;
}

/* The timeline as PDF or PNG: the SVG through Graphviz's image loader. */
static int
timeline_image(const char *svg, size_t svglen, double w_in, double h_in,
    const struct plv_opts *o, char **data, size_t *len, char **cause)
{
	const char *dir = getenv("TMPDIR");
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	char tmp[PATH_MAX];
	int fd = -1;
	errno = ENAMETOOLONG;	/* unless the name fits */
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/placelab-timeline-XXXXXX.svg", dir) < sizeof tmp)
		fd = pl_file_mkstemps(tmp, 4);
	if (fd < 0) {
		*cause = pl_xasprintf("timeline: cannot create a temporary file in %s: %s "
		    "(TMPDIR names the folder for it)", dir, strerror(errno));
		return -1;
	}
	size_t off = 0;
	while (off < svglen) {
		ssize_t n = write(fd, svg + off, svglen - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;
			close(fd);
			pl_file_temp_remove(tmp);
			*cause = pl_xasprintf("timeline: writing %s failed: %s", tmp, strerror(err));
			return -1;
		}
		off += (size_t)n;
	}
	close(fd);
	int rc = plv_image_render(tmp, w_in, h_in, o, data, len, cause);
	pl_file_temp_remove(tmp);
	return rc;
}

/* Above this many nodes "auto" means LR: two trial layouts cost too much. */
#define PLV_AUTO_RANKDIR_NODES 100

/* How far an aspect ratio is from 3:2, on a log scale. */
static double
aspect_miss(double a)
{
	return fabs(log(a / 1.5));
}

/* The rank direction for o: as given, or for "auto" the one of LR and TB
 * whose drawing is closer to 3:2 (LR unless it is far off).  Layout
 * failures fall back to LR; the real render reports them. */
static const char *
choose_rankdir(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct pl_coarse *cg, const struct plv_opts *o)
{
	if (o->rankdir != NULL && strcmp(o->rankdir, "auto") != 0)
		return o->rankdir;
	const char *engine = o->layout != NULL ? o->layout : "dot";
	if (strcmp(engine, "dot") != 0 || cg->n_nodes > PLV_AUTO_RANKDIR_NODES)
		return "LR";
	struct plv_opts oo = *o;
	double a[2];
	static const char *const dirs[2] = { "LR", "TB" };
	for (int k = 0; k < 2; k++) {
		oo.rankdir = dirs[k];
		Agraph_t *g = plv_diagram_build(p, pl, t, cg, &oo);
		char *cause = NULL;
		int rc = plv_diagram_aspect(g, engine, &a[k], &cause);
		agclose(g);
		if (rc != 0) {
			free(cause);
			return "LR";
		}
		if (k == 0 && a[0] >= 0.6 && a[0] <= 2.5)
			return "LR";
	}
	return aspect_miss(a[1]) < aspect_miss(a[0]) ? "TB" : "LR";
}

/*
 * A PDF's creation date set to SOURCE_DATE_EPOCH when that is set (the
 * reproducible-builds convention, which cairo 1.16 does not follow: it
 * writes the time of the run, in the local time zone): "D:" and 14 digits
 * rewritten in place in UTC, and a time-zone offset ("+01'00") made "Z"
 * with the bytes it freed after the ")" blank, so that every time zone
 * gives the same bytes and the length and cross-reference offsets hold.
 * 0, or -1 and *cause for a SOURCE_DATE_EPOCH that is not a count of
 * seconds.
 */
static int
pdf_date_from_env(char *data, size_t len, char **cause)
{
	long long secs;
	if (source_date(&secs, cause) != 0)
		return -1;
	if (secs < 0)
		return 0;
	time_t t = (time_t)secs;
	struct tm tm;
	if (gmtime_r(&t, &tm) == NULL) {
		*cause = pl_xasprintf("SOURCE_DATE_EPOCH: %lld is no date here", secs);
		return -1;
	}
	char digits[32];
	snprintf(digits, sizeof digits, "%04d%02d%02d%02d%02d%02d", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	static const char *const keys[] = { "/CreationDate (D:", "/ModDate (D:" };
	for (size_t k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]);
		char *at = memmem(data, len, keys[k], kl);
		if (at == NULL || (size_t)(at - data) + kl + 14 > len)
			continue;
		char *d = at + kl;
		int ok = 1;
		for (int i = 0; i < 14; i++)
			ok &= isdigit((unsigned char)d[i]) != 0;
		if (!ok)
			continue;
		memcpy(d, digits, 14);
		char *z = d + 14, *lim = data + len;
		if (z < lim && (*z == '+' || *z == '-')) {	/* +HH'MM'): Z) */
			char *close = memchr(z, ')', (size_t)(lim - z) < 10 ? (size_t)(lim - z) : 10);
			if (close == NULL)
				continue;
			z[0] = 'Z';
			z[1] = ')';
			memset(z + 2, ' ', (size_t)(close - z) - 1);
		}
	}
	return 0;
}

/* Render to memory; *nodes: the nodes a diagram's layout places. */
static int
render_data(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **data, size_t *len,
    int *nodes, char **cause)
{
	*data = NULL;
	*len = 0;
	*nodes = 0;
	if ((unsigned)o->format >= PLV_FMT_COUNT || (o->timeline && o->format == PLV_FMT_DOT))
		return plv_opts_check(o, cause);
	if (o->timeline) {
		if (t == NULL) {
			*cause = pl_xasprintf("timeline: no simulated trace to draw");
			return -1;
		}
		char *svg;
		size_t n;
		double w, h;
		plv_timeline_svg(p, pl, t, o, &svg, &n, &w, &h);
		if (o->format == PLV_FMT_SVG) {
			*data = svg;
			*len = n;
			return 0;
		}
		int rc = timeline_image(svg, n, w, h, o, data, len, cause);
		free(svg);
		return rc;
	}
	struct pl_coarse *cg = plv_export_coarsen(p, pl, t, o);
	*nodes = cg->n_nodes;	/* its boxes (and a heading per device, not counted) */
	if (o->format != PLV_FMT_DOT && (*cause = plv_too_many_nodes(*nodes, o->fewer)) != NULL) {
		pl_coarse_free(cg);
		return -1;
	}
	struct plv_opts oo = *o;
	oo.rankdir = choose_rankdir(p, pl, t, cg, o);
	Agraph_t *g = plv_diagram_build(p, pl, t, cg, &oo);
	int rc = plv_diagram_render(g, &oo, data, len, cause);
	agclose(g);
	pl_coarse_free(cg);
	return rc;
}

/* Render to memory, a PDF dated SOURCE_DATE_EPOCH when that is set;
 * *nodes: the nodes a diagram's layout places. */
int
plv_export_data_counted(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **data, size_t *len,
    int *nodes, char **cause)
{
	if (render_data(p, pl, t, o, data, len, nodes, cause) != 0)
		return -1;
	if (o->format == PLV_FMT_PDF && pdf_date_from_env(*data, *len, cause) != 0) {
		free(*data);
		*data = NULL;
		*len = 0;
		return -1;
	}
	return 0;
}

/* Render to memory. */
int
plv_export_data(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **data, size_t *len,
    char **cause)
{
	int nodes;
	return plv_export_data_counted(p, pl, t, o, data, len, &nodes, cause);
}

/* Render and write atomically. */
int
plv_export(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, const char *path,
    char **cause)
{
	char *data;
	size_t len;
	char *why = NULL;
	if (plv_export_data(p, pl, t, o, &data, &len, &why) != 0) {
		*cause = pl_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	int rc = pl_file_write_atomic(path, data, len, &why);
	free(data);
	if (rc != 0) {
		*cause = why;
		return -1;
	}
	return 0;
}
