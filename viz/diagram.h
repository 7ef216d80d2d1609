/*
 * diagram — the per-device placement diagram as a cgraph graph.
 *
 * One cluster per device ("cluster_d<D>"), whose label -- the device's
 * name, kind, op count, load and peak memory -- is a plain-text node
 * "h<D>" on the rank of the device's first node, left of it (an invisible
 * edge), rather than a cluster label, because dot routes edges around
 * nodes but straight through cluster labels; one node per coarse node
 * ("n<ID>"), filled with the device's palette colour; cross-device edges
 * dashed in the source device's colour and labelled with the bytes the
 * simulated step moves over them (a tensor once per destination device, on
 * the edge to its first reader there: pl_coarse_set_moved), so the labels
 * of a pair of devices add up to its transfers and the legend's total to
 * the step's bytes moved; the critical path in red and bold; the title and
 * legend in the graph's label, the devices' swatches flowing onto more
 * lines rather than widening the figure beyond its drawing.
 *
 * Invariant: the graph is built only through the cgraph API, so every
 * string is quoted and escaped by cgraph itself; the same inputs give the
 * same DOT text.
 *
 * Ownership: plv_diagram_build() returns a graph the caller closes with
 * agclose(); inputs are borrowed.
 */
#ifndef PLV_DIAGRAM_H
#define PLV_DIAGRAM_H

#include <stddef.h>
#include <graphviz/cgraph.h>

#include "coarsen.h"
#include "viz/export.h"

/* Build the diagram of coarse graph cg of placement pl (t may be NULL). */
Agraph_t *plv_diagram_build(const struct pl_problem *p,
    const struct pl_placement *pl, const struct pl_trace *t,
    const struct pl_coarse *cg, const struct plv_opts *o);

/* Lay g out with o->layout and render it as o->format into *data (caller
 * frees) and *len; PLV_FMT_DOT writes the graph without layout, with the
 * effort limits below as graph attributes (never refused).  With dot,
 * the effort follows the work (below); more than PLV_MAX_WORK is refused
 * unless o->force.  0, or -1 + *cause; a refusal suggests fewer nodes
 * only when g draws more than one per device used. */
int plv_diagram_render(Agraph_t *g, const struct plv_opts *o, char **data,
    size_t *len, char **cause);

/* Lay g out with engine, measure its width / height, free the layout; a
 * dot layout of more than PLV_FULL_EFFORT_WORK is not tried.  0, or -1 +
 * *cause. */
int plv_diagram_aspect(Agraph_t *g, const char *engine, double *aspect, char **cause);

/* Most nodes plv_diagram_render() lays out (dot takes minutes beyond),
 * the heading of each device aside (at most 64 more, as --max-nodes
 * counts the nodes: a budget of 5000 is drawn). */
#define PLV_MAX_LAYOUT_NODES 5000

/* Why a drawing of `nodes` nodes (headings aside) is not laid out ("N
 * nodes are too many to lay out (at most 5000): " then `fewer`, how to
 * draw fewer; NULL: the command line's), or NULL when it is not too
 * many.  Caller frees. */
char *plv_too_many_nodes(int nodes, const char *fewer);

/* Above this many nodes dot's network-simplex passes are bounded (and the
 * work is measured; at most this many, it is small). */
#define PLV_EFFORT_NODES 60

/*
 * The work of a dot layout, in layout nodes: what dot's ordering and
 * positioning passes move and its edge router routes around, known after
 * its ranking pass alone (a fraction of a second): the nodes, a virtual
 * node for every rank an edge skips, and PLV_CELL_WORK for every rank a
 * device's cluster spans (each is a node of the cluster's skeleton and a
 * constraint against its neighbours; measured, they cost about 4 nodes
 * each).  Time grows faster than the work: on one core of the 2-core
 * machine the tests run on, up to 6,000 took about a second, 25,000 to
 * 45,000 from 3 to 9 s, 80,000 about 30 s, and the 1549 ops of nmt4 at
 * full detail (3 million) did not finish in 11 minutes (docs/EXPORT.md).
 */
#define PLV_CELL_WORK 4
/* Up to this much work dot lays out with its full effort: curved edges
 * routed around the nodes.  Beyond, fewer ordering passes (mclimit 0.3),
 * a shorter search for positions (searchsize 5) and straight edges
 * (splines=line): routing alone took from 4 s to minutes. */
#define PLV_FULL_EFFORT_WORK 6000
/* Beyond this much work plv_diagram_render() refuses unless forced. */
#define PLV_MAX_WORK 80000

/* The work of laying g out with dot (see above), by a ranking-only pass.
 * 0, or -1 + *cause. */
int plv_diagram_work(Agraph_t *g, long *work, char **cause);

/* Whether Graphviz here has layout engine: 0, or -1 and *cause (caller
 * frees) naming the engines it has. */
int plv_layout_check(const char *engine, char **cause);

/* The rank direction a build uses for o ("auto" builds LR). */
const char *plv_rankdir(const struct plv_opts *o);

/* Render an image file (e.g. the timeline's SVG) into format through
 * Graphviz's image loader: PDF or PNG.  0, or -1 + *cause. */
int plv_image_render(const char *image_path, double width_in, double height_in,
    const struct plv_opts *o, char **data, size_t *len, char **cause);

/* Human units shared by the pictures: bytes moved in decimal units ("1.2
 * MB", "340 kB", "12 B", as compare's "moved (MB)"), memory in binary ones
 * ("9.00 GiB", as sim and compare); "12.3 ms", "45 µs", "1.20 s".  Write
 * into buf (size n) and return it. */
char *plv_fmt_bytes(char *buf, size_t n, double bytes);
char *plv_fmt_mem(char *buf, size_t n, double bytes);
char *plv_fmt_time(char *buf, size_t n, double us);
/* Whether text drawn on colour hex ("#RRGGBB") should be white. */
int plv_dark(const char *hex);

#endif
