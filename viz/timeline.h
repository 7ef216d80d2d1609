/*
 * timeline — the simulated step as a Gantt chart in SVG.
 *
 * One lane per device, then one per link channel that carries a transfer;
 * ops are bars in their device's palette colour, transfers bars in their
 * source device's colour; the critical path is a red line through
 * its ops; a time axis with round ticks and its unit; the title and a small
 * legend.  Sizes are in points for a figure o->width_in inches wide, so
 * text stays 6.5-8 pt at print size: a title too long for the width
 * shrinks, then wraps; lane labels shrink in a narrow figure, then are
 * cut in the middle ("…", the whole name in a tooltip).  Runs of
 * bars narrower than a point on the same lane are merged, so 80,000 ops
 * stay a small file.
 *
 * Invariant: the SVG is written directly (no Graphviz), is well-formed XML
 * with every name escaped, and depends only on its inputs.
 */
#ifndef PLV_TIMELINE_H
#define PLV_TIMELINE_H

#include <stddef.h>

#include "viz/export.h"

/* Render the timeline of trace t as SVG into *svg (caller frees) and *len;
 * the figure's size in inches goes to *w_in, *h_in (may be NULL). */
void plv_timeline_svg(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *t, const struct plv_opts *o, char **svg, size_t *len,
    double *w_in, double *h_in);

/* A round tick step for an axis spanning span units with about n ticks. */
double plv_nice_step(double span, int n);

#endif
