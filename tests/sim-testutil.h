/*
 * sim-testutil — small builders shared by the simulator tests: graphs with
 * exact integer op times (the same measured time for every device kind,
 * or one per named device) and clusters of named devices.
 *
 * Invariant: everything returned is validated; a failure to build aborts
 * the test with the builder's message.
 */
#ifndef PL_SIM_TESTUTIL_H
#define PL_SIM_TESTUTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "graph.h"
#include "placement.h"
#include "problem.h"
#include "rng.h"

/* Add op `name` costing `us` on every device, with out_bytes outputs. */
static inline int
tu_op(struct pl_graph_builder *b, const char *name, double us, int64_t out_bytes)
{
	struct pl_op o;
	memset(&o, 0, sizeof o);
	o.name = (char *)name;
	o.type = (char *)"Op";
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		o.measured_us[k] = us;
	o.out_bytes = out_bytes;
	return pl_graph_add_op(b, &o, NULL);
}

/* Freeze a builder or abort. */
static inline struct pl_graph *
tu_build(struct pl_graph_builder *b)
{
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL) {
		fprintf(stderr, "graph: %s\n", cause);
		abort();
	}
	return g;
}

/* A cluster of n GPUs "/gpu:0".. (bandwidth bw B/s, latency lat us). */
static inline struct pl_cluster *
tu_cluster(int n, double bw, double lat, int64_t mem)
{
	struct pl_cluster *c = pl_cluster_new("test");
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "/gpu:%d", i);
		struct pl_device d = { .name = name, .kind = PL_DEV_GPU,
		    .peak_flops = 1e12, .mem_bytes = mem, .mem_bw = 1e11,
		    .launch_us = 0 };
		pl_cluster_add_device(c, &d, bw, lat);
	}
	return c;
}

/* A problem or abort. */
static inline struct pl_problem *
tu_problem(const struct pl_graph *g, const struct pl_cluster *c)
{
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	if (p == NULL) {
		fprintf(stderr, "problem: %s\n", cause);
		abort();
	}
	return p;
}

/*
 * A random DAG: n ops named so that name order differs from list order,
 * each op with up to `fan` parents among the previous `window` ops, integer
 * costs in [0, maxc] (zero with probability pzero), sizes that are
 * multiples of `unit` bytes, outputs 0..nout-1, duplicate edges allowed;
 * the builder, not yet built (the caller may add temporaries).
 */
static inline struct pl_graph_builder *
tu_random_dag_builder(struct pl_rng *r, int n, int fan, int window, int maxc,
    double pzero, int64_t unit, int nout)
{
	struct pl_graph_builder *b = pl_graph_builder_new("random");
	int64_t *sz = calloc((size_t)n * nout, sizeof *sz);
	for (int v = 0; v < n; v++) {
		char name[32];
		snprintf(name, sizeof name, "n%d", (int)pl_rng_below(r, 1000000) * 16 + v % 16);
		/* unique: append the id */
		char full[48];
		snprintf(full, sizeof full, "%s_%d", name, v);
		double c = pl_rng_uniform(r) < pzero ? 0 : (double)pl_rng_below(r, (uint64_t)maxc + 1);
		for (int i = 0; i < nout; i++)
			sz[(size_t)v * nout + i] = unit * (int64_t)pl_rng_below(r, 5);
		int64_t tot = 0;
		for (int i = 0; i < nout; i++)
			tot += sz[(size_t)v * nout + i];
		tu_op(b, full, c, tot);
		if (v == 0)
			continue;
		int k = (int)pl_rng_below(r, (uint64_t)fan + 1);
		for (int j = 0; j < k; j++) {
			int lo = v - window < 0 ? 0 : v - window;
			int u = lo + (int)pl_rng_below(r, (uint64_t)(v - lo));
			int out = (int)pl_rng_below(r, (uint64_t)nout);
			pl_graph_add_edge(b, u, v, out, sz[(size_t)u * nout + out]);
		}
	}
	free(sz);
	return b;
}

/* The same graph, built. */
static inline struct pl_graph *
tu_random_dag(struct pl_rng *r, int n, int fan, int window, int maxc,
    double pzero, int64_t unit, int nout)
{
	return tu_build(tu_random_dag_builder(r, n, fan, window, maxc, pzero, unit, nout));
}

/* A random placement of p (ignores constraints: tests use none). */
static inline struct pl_placement *
tu_random_placement(struct pl_rng *r, const struct pl_problem *p)
{
	struct pl_placement *pl = pl_placement_new(p->n_ops, p->n_dev);
	for (int v = 0; v < p->n_ops; v++)
		pl->dev[v] = (int)pl_rng_below(r, (uint64_t)p->n_dev);
	return pl;
}

/*
 * Placeto's peak memory (--mem placeto) by brute force from the start
 * times st[]: u's outputs count at the start s of any op of its device
 * when start(u) <= s <= F(u), F(u) the latest of start(u) and its
 * consumers' int(start) + int(cost) - 1 (additions before removals), as
 * the reference code computes it.  peak[] by device.
 */
static inline void
tu_placeto_peaks(const struct pl_problem *p, const int *dev, const double *st,
    int64_t *peak)
{
	const struct pl_graph *g = p->g;
	int n = g->n_ops;
	for (int d = 0; d < p->n_dev; d++) {
		peak[d] = 0;
		for (int v = 0; v < n; v++) {
			if (dev[v] != d || g->ops[v].out_bytes == 0)
				continue;
			int64_t live = 0;
			for (int u = 0; u < n; u++) {
				if (dev[u] != d || st[u] > st[v])
					continue;
				double F = st[u];
				for (int e = 0; e < g->n_edges; e++) {
					int c = g->edges[e].dst;
					double ce = trunc(st[c]) +
					    trunc(pl_problem_op_us(p, c, dev[c])) - 1;
					if (g->edges[e].src == u && ce > F)
						F = ce;
				}
				if (F >= st[v])
					live += g->ops[u].out_bytes;
			}
			if (live > peak[d])
				peak[d] = live;
		}
	}
}

#endif
