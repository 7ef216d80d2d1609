/*
 * export — pictures of a placement for papers, in one call.
 *
 * plv_export() writes a file: the per-device placement diagram (Graphviz,
 * laid out and rendered in-process: SVG, PDF, PNG, or the DOT source), or
 * with opts.timeline the Gantt timeline of the simulated step (SVG, or PDF
 * and PNG through Graphviz's image loader).  `placelab export` and the
 * explorer's Export view both call it.
 *
 * Invariant: the file at `path` is written atomically: on failure it is
 * left as it was and the function returns -1 with *cause (caller frees).
 *
 * Ownership: everything passed in is borrowed; nothing is kept.
 */
#ifndef PLV_EXPORT_H
#define PLV_EXPORT_H

#include <stddef.h>

#include "coarsen.h"
#include "placement.h"
#include "problem.h"
#include "sim.h"

#define PLV_FORMATS(X) \
	X(SVG, "svg") X(PDF, "pdf") X(PNG, "png") X(DOT, "dot")
enum plv_format {
#define PLV_X(e, s) PLV_FMT_##e,
	PLV_FORMATS(PLV_X)
#undef PLV_X
	PLV_FMT_COUNT
};

struct plv_opts {
	enum plv_format format;
	int timeline;		/* 1: Gantt timeline instead of the diagram */
	int level;		/* PL_COARSE_FULL (-1) or a scope depth >= 0 */
	int max_nodes;		/* > 0: coarsen within this many nodes,
				 * choosing levels per scope (overrides level) */
	const char *layout;	/* Graphviz engine: "dot" (default), "sfdp", ... */
	const char *rankdir;	/* "auto" (NULL, default), "LR", "TB", "RL",
				 * "BT"; auto lays out LR and, when that is
				 * far from a page's proportions, TB too, and
				 * keeps the one closer to 3:2 (up to 100
				 * nodes; LR beyond) */
	const char *title;	/* NULL: graph, cluster and makespan */
	int legend;		/* 1 (default): draw the legend */
	double width_in;	/* timeline width in inches (default 7) */
	double dpi;		/* PNG resolution (default 150) */
	int force;		/* 1: lay out with dot however much work it is
				 * (default 0: more than PLV_MAX_WORK is an
				 * error; see diagram.h) */
	const char *fewer;	/* how to draw fewer nodes, said when there are
				 * too many to lay out (NULL: the command
				 * line's --max-nodes or --level); set by a
				 * front end without the command line's
				 * flags, whose refusals then name none
				 * (no --force, no --dpi) */
};

/* A diagram's default size: at most this many nodes (the command line's
 * and the explorer's). */
#define PLV_DEFAULT_MAX_NODES 60

/* Defaults: SVG diagram, at most PLV_DEFAULT_MAX_NODES nodes, dot, auto
 * rank direction, legend. */
void plv_opts_init(struct plv_opts *o);

/* Format name ("svg") and back; the format of a path by its suffix (".gv"
 * is DOT).  -1 when unknown. */
const char *plv_format_name(enum plv_format f);
int plv_format_parse(const char *s);
int plv_format_from_path(const char *path);
/* The suffix of a path's last component, after its last '.' ("svg" for
 * "a.b/fig.svg"), or NULL when it has none (".svg" alone is a name). */
const char *plv_path_suffix(const char *path);

/*
 * Render into memory: *data (caller frees) and *len.  trace may be NULL
 * (then no critical path, memory or timeline: the timeline needs it).
 * Returns 0, or -1 + *cause (a bad layout engine name, a format Graphviz
 * cannot render here, a timeline without a trace, a PNG bigger than cairo
 * draws: more than 32767 pixels a side or 2^27 in all, a dot layout too
 * much work without o->force: the cause says how big and what to do).
 */
int plv_export_data(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **data,
    size_t *len, char **cause);

/* What o asks for that no placement can be drawn with: 0, or -1 and
 * *cause (caller frees): a format out of range, a timeline in DOT, a
 * layout engine Graphviz here lacks for a diagram (DOT too), a malformed
 * SOURCE_DATE_EPOCH for a PDF.  A front end checks it before a placer
 * runs. */
int plv_opts_check(const struct plv_opts *o, char **cause);

/* Render and write path atomically.  0, or -1 + *cause, which names
 * path. */
int plv_export(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, const char *path,
    char **cause);

/* plv_export_data that also reports, in *nodes, how many nodes a layout
 * of the diagram places, the devices' headings aside (more than
 * PLV_MAX_LAYOUT_NODES, diagram.h, is refused in any format but DOT); 0
 * for a timeline. */
int plv_export_data_counted(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **data, size_t *len,
    int *nodes, char **cause);

/* The coarse graph the diagram of o draws (max_nodes > 0: within that
 * budget, else at o->level); t may be NULL.  Free with pl_coarse_free(). */
struct pl_coarse *plv_export_coarsen(const struct pl_problem *p,
    const struct pl_placement *pl, const struct pl_trace *t,
    const struct plv_opts *o);

#endif
