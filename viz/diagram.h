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
 * legend in the graph's label.
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
 * frees) and *len; PLV_FMT_DOT writes the graph without layout.  0, or -1
 * + *cause. */
int plv_diagram_render(Agraph_t *g, const struct plv_opts *o, char **data,
    size_t *len, char **cause);

/* Lay g out with engine, measure its width / height, free the layout.
 * 0, or -1 + *cause. */
int plv_diagram_aspect(Agraph_t *g, const char *engine, double *aspect, char **cause);

/* Most nodes plv_diagram_render() lays out (dot takes minutes beyond). */
#define PLV_MAX_LAYOUT_NODES 5000

/* Above this many nodes dot's placement passes are bounded. */
#define PLV_EFFORT_NODES 60

/* The rank direction a build uses for o ("auto" builds LR). */
const char *plv_rankdir(const struct plv_opts *o);

/* Render an image file (e.g. the timeline's SVG) into format through
 * Graphviz's image loader: PDF or PNG.  0, or -1 + *cause. */
int plv_image_render(const char *image_path, double width_in, double height_in,
    const struct plv_opts *o, char **data, size_t *len, char **cause);

/* Human units shared by the pictures: "1.2 MB", "340 kB", "12 B"; "12.3 ms",
 * "45 µs", "1.20 s".  Write into buf (size n) and return it. */
char *plv_fmt_bytes(char *buf, size_t n, double bytes);
char *plv_fmt_time(char *buf, size_t n, double us);
/* Whether text drawn on colour hex ("#RRGGBB") should be white. */
int plv_dark(const char *hex);

#endif
