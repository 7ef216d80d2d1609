/*
 * cost — how long an op takes on a device and a tensor on a link.
 *
 * Op time: the measured time for that device (by name) or for the device's
 * kind when the graph has one;
 * otherwise the roofline estimate max(flops / peak, bytes touched / memory
 * bandwidth) plus the device's launch overhead, where bytes touched are the
 * op's inputs, outputs and parameters.  Transfer: latency + bytes/bandwidth.
 * Zero-flop, zero-byte ops (e.g. NoOp) cost nothing.  docs/SIMULATION.md
 * documents the model.
 */
#ifndef PL_COST_H
#define PL_COST_H

#include <stdint.h>

#include "cluster.h"
#include "graph.h"

/* Time in us of op v of g on device d of c. */
double pl_cost_op_us(const struct pl_graph *g, int v, const struct pl_cluster *c, int d);
/* Time in us to move bytes from device a to device b (0 when a == b).
 * Inline: the simulators call it once per transfer. */
static inline double
pl_cost_xfer_us(const struct pl_cluster *c, int a, int b, int64_t bytes)
{
	if (a == b)
		return 0;
	int k = a * c->n_dev + b;
	return c->lat_us[k] + (double)bytes / c->bw[k] * 1e6;
}

#endif
