/*
 * cost — op and transfer times (see cost.h and docs/SIMULATION.md).
 * Invariant: every time returned is finite and >= 0.
 */
#include "cost.h"

#include <string.h>

/* Time of op v on device d: measured for the kind, else roofline + launch. */
double
pl_cost_op_us(const struct pl_graph *g, int v, const struct pl_cluster *c, int d)
{
	const struct pl_op *o = &g->ops[v];
	const struct pl_device *dev = &c->dev[d];
	for (int i = 0; i < o->n_dev_times; i++)
		if (strcmp(o->dev_times[i].device, dev->name) == 0)
			return o->dev_times[i].us;
	double m = o->measured_us[dev->kind];
	if (m >= 0)
		return m;
	double in_bytes = 0;
	for (int j = g->in_off[v]; j < g->in_off[v + 1]; j++)
		in_bytes += (double)g->tensors[g->edges[g->in_edge[j]].tensor].bytes;
	double bytes = in_bytes + (double)o->out_bytes + (double)o->param_bytes;
	if (o->flops == 0 && bytes == 0)
		return 0;
	double compute = o->flops / dev->peak_flops * 1e6;
	double memory = bytes / dev->mem_bw * 1e6;
	return (compute > memory ? compute : memory) + dev->launch_us;
}

