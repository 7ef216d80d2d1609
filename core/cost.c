/*
 * cost — op and transfer times (see cost.h and docs/SIMULATION.md).
 * Invariant: every time returned is finite and >= 0.
 */
#include "cost.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Order ints (qsort). */
static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The bytes of op v's input tensors, each counted once however many
 * edges (a listed edge twice) consume it: its tensors sorted, the
 * distinct ones summed. */
static double
in_bytes_of(const struct pl_graph *g, int v)
{
	int lo = g->in_off[v], k = g->in_off[v + 1] - lo;
	int few[64], *t = k <= 64 ? few : pl_xmalloc(sizeof *t * (size_t)k);
	for (int j = 0; j < k; j++)
		t[j] = g->edges[g->in_edge[lo + j]].tensor;
	qsort(t, (size_t)k, sizeof *t, int_cmp);
	double sum = 0;
	for (int j = 0; j < k; j++)
		if (j == 0 || t[j] != t[j - 1])
			sum += (double)g->tensors[t[j]].bytes;
	if (t != few)
		free(t);
	return sum;
}

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
	double bytes = in_bytes_of(g, v) + (double)o->out_bytes + (double)o->param_bytes;
	if (o->flops == 0 && bytes == 0)
		return 0;
	double compute = o->flops / dev->peak_flops * 1e6;
	double memory = bytes / dev->mem_bw * 1e6;
	return (compute > memory ? compute : memory) + dev->launch_us;
}

