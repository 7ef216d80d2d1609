/*
 * bench-util — what the simulator benchmarks share: their clock, their
 * generated graphs, placements and clusters (bench-sim and sim-ab time the
 * same ones).
 *
 * Invariant: for a seed, the same graph on every machine (pl_rng only).
 */
#ifndef PL_BENCH_UTIL_H
#define PL_BENCH_UTIL_H

#include <stdio.h>
#include <time.h>

#include "graph.h"
#include "rng.h"
#include "tests/sim-testutil.h"

/* Seconds on a clock. */
static inline double
bench_clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A random DAG of n ops and about n * deg edges, real-valued costs. */
static inline struct pl_graph *
bench_random_dag(struct pl_rng *r, int n, double deg)
{
	struct pl_graph_builder *b = pl_graph_builder_new("bench");
	for (int v = 0; v < n; v++) {
		char name[32];
		snprintf(name, sizeof name, "op%d", v);
		double us = pl_rng_uniform(r) < 0.1 ? 0 : 1 + pl_rng_uniform(r) * 500;
		int64_t bytes = 4 * (1 + (int64_t)pl_rng_below(r, 250000));
		int id = tu_op(b, name, us, bytes);
		pl_graph_builder_op(b, id)->param_bytes = (int64_t)pl_rng_below(r, 1 << 20);
		pl_graph_builder_op(b, id)->temp_bytes = (int64_t)pl_rng_below(r, 1 << 16);
		if (v == 0)
			continue;
		/* about deg parents, mostly recent ones (layered locality) */
		int k = (int)deg + (pl_rng_uniform(r) < deg - (int)deg);
		for (int j = 0; j < k; j++) {
			int w = v < 64 ? v : 64;
			int u = pl_rng_uniform(r) < 0.9 ? v - 1 - (int)pl_rng_below(r, (uint64_t)w)
			    : (int)pl_rng_below(r, (uint64_t)v);
			pl_graph_add_edge(b, u, v, 0, pl_graph_builder_op(b, u)->out_bytes);
		}
	}
	return tu_build(b);
}

/* Random placements evaluated in turn by every timing: fewer would let the
 * branch predictor learn small graphs' runs by heart. */
#define BENCH_N_PLACEMENTS 16

/* The benchmark's placements of p, drawn from r. */
static inline void
bench_placements(struct pl_rng *r, const struct pl_problem *p,
    struct pl_placement *pl[BENCH_N_PLACEMENTS])
{
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++)
		pl[i] = tu_random_placement(r, p);
}

/* Free what bench_placements() made. */
static inline void
bench_placements_free(struct pl_placement *pl[BENCH_N_PLACEMENTS])
{
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++)
		pl_placement_free(pl[i]);
}

/* The Placeto-model benchmark's cluster: 4 devices. */
static inline struct pl_cluster *
bench_placeto_cluster(void)
{
	return tu_cluster(4, 1e10, 5, (int64_t)12 << 30);
}

/* The native-model benchmark's cluster: the k80x4 preset (a CPU and four
 * GPUs), or five like devices should the preset be missing. */
static inline struct pl_cluster *
bench_native_cluster(void)
{
	struct pl_cluster *c = pl_cluster_preset("k80x4");
	return c != NULL ? c : tu_cluster(5, 1e10, 5, (int64_t)12 << 30);
}

#endif
