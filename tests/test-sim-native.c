/*
 * test-sim-native — the native model on hand-computed cases (transfers per
 * (tensor, destination), per-pair channels and the shared bus, priorities,
 * memory, out-of-memory), schedule invariants on random graphs, equality
 * of the lean and the tracing paths, and no allocation after warm-up.
 *
 * Invariant: hand-computed cases use integer times and links of 1e6 B/s,
 * so that N bytes cost exactly N us and all comparisons are exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>

#include "sim-testutil.h"
#include "sim.h"
#include "xmalloc.h"

static const struct pl_sim_opts native = { PL_SIM_NATIVE, PL_MEM_NATIVE };

/* A placement from an array. */
static struct pl_placement *
placement(const struct pl_problem *p, const int *dev)
{
	struct pl_placement *pl = pl_placement_new(p->n_ops, p->n_dev);
	memcpy(pl->dev, dev, sizeof *dev * p->n_ops);
	return pl;
}

/* Trace or fail. */
static struct pl_trace *
trace(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_sim_opts *o)
{
	char *cause = NULL;
	struct pl_trace *tr = pl_sim_trace(p, pl, o, &cause);
	if (tr == NULL)
		fail_msg("trace: %s", cause);
	return tr;
}

/* Evaluate pl on ws (the lean path) and trace it: the same result and
 * the same start times.  The trace, for more checks. */
static struct pl_trace *
lean_is_trace(struct pl_sim_ws *ws, const struct pl_problem *p,
    const struct pl_placement *pl, const struct pl_sim_opts *o)
{
	struct pl_sim_result res;
	assert_int_equal(pl_sim_eval(ws, pl, o, &res), 0);
	const double *s = pl_sim_ws_starts(ws);
	struct pl_trace *tr = trace(p, pl, o);
	assert_memory_equal(&res, &tr->res, sizeof res);
	for (int v = 0; v < p->n_ops; v++)
		assert_true(s[v] == tr->ops[v].start);
	return tr;
}

/* The Placeto memory peaks of trace tr (of placement pl) are the brute
 * force's, from its own start times. */
static void
placeto_peaks_hold(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *tr)
{
	int n = p->n_ops;
	double *st = pl_xmalloc(sizeof *st * (size_t)(n ? n : 1));
	for (int v = 0; v < n; v++)
		st[v] = tr->ops[v].start;
	int64_t peak[PL_MAX_DEVICES];
	tu_placeto_peaks(p, pl->dev, st, peak);
	for (int d = 0; d < p->n_dev; d++)
		assert_int_equal(tr->res.peak_bytes[d], peak[d]);
	free(st);
}

struct fix {
	struct pl_graph *g;
	struct pl_cluster *c;
	struct pl_problem *p;
};

/* Build the problem of g on n devices with 1e6 B/s links. */
static struct fix
fix_new(struct pl_graph *g, int n, int shared)
{
	struct fix f = { g, tu_cluster(n, 1e6, 0, (int64_t)1 << 40), NULL };
	f.c->shared_bus = shared;
	f.p = tu_problem(f.g, f.c);
	return f;
}

/* Free a fixture. */
static void
fix_free(struct fix *f)
{
	pl_problem_free(f->p);
	pl_cluster_free(f->c);
	pl_graph_free(f->g);
}

/* a -> b across devices: b waits for the transfer (20 bytes = 20 us). */
static void
test_transfer_delay(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	tu_op(b, "a", 10, 20);
	tu_op(b, "b", 5, 0);
	pl_graph_add_edge(b, 0, 1, 0, 20);
	struct fix f = fix_new(tu_build(b), 2, 0);
	struct pl_placement *pl = placement(f.p, (int[]){ 0, 1 });
	struct pl_trace *tr = trace(f.p, pl, &native);
	assert_true(tr->ops[1].start == 30 && tr->ops[1].end == 35);
	assert_true(tr->res.makespan_us == 35);
	assert_int_equal(tr->n_xfers, 1);
	assert_true(tr->xfers[0].start == 10 && tr->xfers[0].end == 30);
	assert_int_equal(tr->xfers[0].src_dev, 0);
	assert_int_equal(tr->xfers[0].dst_dev, 1);
	assert_int_equal(tr->res.bytes_in[1], 20);
	assert_int_equal(tr->res.bytes_out[0], 20);
	assert_true(tr->res.busy_us[0] == 10 && tr->res.busy_us[1] == 5);
	/* critical path: a then b */
	assert_int_equal(tr->n_critical, 2);
	assert_int_equal(tr->critical[0], 0);
	assert_int_equal(tr->critical[1], 1);
	/* On one device there is no transfer. */
	pl->dev[1] = 0;
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_sim_result r;
	assert_int_equal(pl_sim_eval(ws, pl, &native, &r), 0);
	assert_true(r.makespan_us == 15);
	assert_int_equal(r.n_transfers, 0);
	pl_sim_ws_free(ws);
	pl_trace_free(tr);
	pl_placement_free(pl);
	fix_free(&f);
}

/* a -> b -> c on device 0 (a 10 us, b and c free) and x (10 us) on
 * device 1, x first in list order when x_first: all four end at 10. */
static struct fix
tie_fix(int x_first)
{
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	if (x_first)
		tu_op(b, "x", 10, 0);
	int a = tu_op(b, "a", 10, 0);
	int bb = tu_op(b, "b", 0, 0);
	int c = tu_op(b, "c", 0, 0);
	if (!x_first)
		tu_op(b, "x", 10, 0);
	pl_graph_add_edge(b, a, bb, 0, 0);
	pl_graph_add_edge(b, bb, c, 0, 0);
	return fix_new(tu_build(b), 2, 0);
}

/* Ops tied for the last end: the critical path starts from a sink of the
 * tie, not from a or b that c waited for; of two sinks (c and x), from
 * the first in list order. */
static void
test_critical_tie(void **state)
{
	(void)state;
	struct fix f = tie_fix(0);
	struct pl_placement *pl = placement(f.p, (int[]){ 0, 0, 0, 1 });
	struct pl_trace *tr = trace(f.p, pl, &native);
	for (int v = 0; v < 4; v++)
		assert_true(tr->ops[v].end == 10);
	assert_int_equal(tr->n_critical, 3);
	assert_int_equal(tr->critical[0], 0);
	assert_int_equal(tr->critical[1], 1);
	assert_int_equal(tr->critical[2], 2);
	assert_true(tr->critical_mask[2] && !tr->critical_mask[3]);
	pl_trace_free(tr);
	pl_placement_free(pl);
	fix_free(&f);

	f = tie_fix(1);
	pl = placement(f.p, (int[]){ 1, 0, 0, 0 });
	tr = trace(f.p, pl, &native);
	assert_int_equal(tr->n_critical, 1);
	assert_int_equal(tr->critical[0], 0);
	pl_trace_free(tr);
	pl_placement_free(pl);
	fix_free(&f);
}

/* One transfer per (tensor, destination device), whatever the consumers. */
static void
test_one_transfer_per_destination(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	tu_op(b, "a", 10, 100);
	tu_op(b, "b", 1, 0);
	tu_op(b, "c", 1, 0);
	tu_op(b, "d", 1, 0);
	pl_graph_add_edge(b, 0, 1, 0, 100);
	pl_graph_add_edge(b, 0, 2, 0, 100);
	pl_graph_add_edge(b, 0, 3, 0, 100);
	pl_graph_add_edge(b, 0, 3, 0, 100);	/* duplicate edge */
	struct fix f = fix_new(tu_build(b), 3, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_sim_result r;
	struct pl_placement *pl = placement(f.p, (int[]){ 0, 1, 1, 1 });
	assert_int_equal(pl_sim_eval(ws, pl, &native, &r), 0);
	assert_int_equal(r.n_transfers, 1);
	assert_int_equal(r.bytes_moved, 100);
	/* b, c, d all wait for the one copy (ready at 110), then run in turn */
	assert_true(r.makespan_us == 113);
	pl->dev[3] = 2;
	assert_int_equal(pl_sim_eval(ws, pl, &native, &r), 0);
	assert_int_equal(r.n_transfers, 2);
	assert_int_equal(r.bytes_moved, 200);
	/* per-pair channels: both copies move at once */
	assert_true(r.makespan_us == 112);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* A tensor whose consumers on two other devices interleave with a local
 * one: each transfer releases exactly its own consumers, and each copy
 * is freed once both of its consumers are done. */
static void
test_transfer_releases_its_own_consumers(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	int a = tu_op(b, "a", 10, 100);
	int c1 = tu_op(b, "b", 1, 0), c2 = tu_op(b, "c", 1, 0), c3 = tu_op(b, "d", 1, 0);
	int c4 = tu_op(b, "e", 1, 0), c5 = tu_op(b, "f", 1, 0);
	int cons[] = { c1, c2, c3, c4, c5 };
	for (int i = 0; i < 5; i++)
		pl_graph_add_edge(b, a, cons[i], 0, 100);
	struct fix f = fix_new(tu_build(b), 3, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	/* b, d on device 1; c, f on device 2; e with a on device 0 */
	struct pl_placement *pl = placement(f.p, (int[]){ 0, 1, 2, 1, 0, 2 });
	struct pl_trace *tr = lean_is_trace(ws, f.p, pl, &native);
	assert_int_equal(tr->res.n_transfers, 2);
	assert_int_equal(tr->res.bytes_moved, 200);
	/* both copies move 10 -> 110 on their own links */
	assert_true(tr->ops[c4].start == 10);
	assert_true(tr->ops[c1].start == 110 && tr->ops[c3].start == 111);
	assert_true(tr->ops[c2].start == 110 && tr->ops[c5].start == 111);
	assert_true(tr->res.makespan_us == 112);
	for (int d = 0; d < 3; d++) {
		assert_int_equal(tr->res.peak_bytes[d], 100);
		assert_int_equal(tr->mem[d][tr->n_mem[d] - 1].live, 0);
	}
	pl_trace_free(tr);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* A shared bus serialises transfers that per-pair links run together. */
static void
test_shared_bus(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	tu_op(b, "a", 10, 100);
	tu_op(b, "b", 10, 50);
	tu_op(b, "c", 1, 0);
	tu_op(b, "d", 1, 0);
	pl_graph_add_edge(b, 0, 2, 0, 100);
	pl_graph_add_edge(b, 1, 3, 0, 50);
	struct pl_graph *g = tu_build(b);
	int dev[] = { 0, 1, 2, 3 };
	struct fix f = fix_new(g, 4, 0);
	struct pl_placement *pl = placement(f.p, dev);
	struct pl_trace *tr = trace(f.p, pl, &native);
	/* a's 100 B: 10 -> 110; b's 50 B: 10 -> 60 on its own link */
	assert_true(tr->ops[2].start == 110 && tr->ops[3].start == 60);
	assert_true(tr->res.makespan_us == 111);
	pl_trace_free(tr);
	f.c->shared_bus = 1;
	tr = trace(f.p, pl, &native);
	/* one bus, first ready first, ties by tensor creation: a's (op 0) first */
	assert_int_equal(tr->n_channels, 1);
	assert_true(tr->xfers[0].start == 10 && tr->xfers[0].end == 110);
	assert_true(tr->xfers[1].start == 110 && tr->xfers[1].end == 160);
	assert_true(tr->res.makespan_us == 161);
	pl_trace_free(tr);
	/* transfer priorities reorder the bus */
	pl_placement_ensure_tprio(pl, g->n_tensors);
	pl->tprio[1 * 4 + 3] = 5;	/* tensor 1 (b's) to device 3 */
	tr = trace(f.p, pl, &native);
	assert_true(tr->ops[3].start == 60 && tr->ops[2].start == 160);
	pl_trace_free(tr);
	pl_placement_free(pl);
	fix_free(&f);
}

/* Priorities: highest first; without them, topological index order. */
static void
test_priorities(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	tu_op(b, "x", 1, 0);
	tu_op(b, "y", 2, 0);
	tu_op(b, "z", 4, 0);
	struct fix f = fix_new(tu_build(b), 1, 0);
	struct pl_placement *pl = placement(f.p, (int[]){ 0, 0, 0 });
	struct pl_trace *tr = trace(f.p, pl, &native);
	assert_true(tr->ops[0].start == 0 && tr->ops[1].start == 1 && tr->ops[2].start == 3);
	pl_trace_free(tr);
	pl_placement_ensure_prio(pl);
	pl->prio[0] = 1;
	pl->prio[1] = 3;
	pl->prio[2] = 2;
	tr = trace(f.p, pl, &native);
	assert_true(tr->ops[1].start == 0 && tr->ops[2].start == 2 && tr->ops[0].start == 6);
	assert_true(tr->res.makespan_us == 7);
	pl_trace_free(tr);
	pl_placement_free(pl);
	fix_free(&f);
}

/* Per-device measured times: the table picks the device's own time. */
static void
test_heterogeneous(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	struct pl_op o;
	memset(&o, 0, sizeof o);
	o.name = (char *)"k";
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		o.measured_us[k] = 10;
	struct pl_dev_time dt = { (char *)"/gpu:1", 3 };
	o.n_dev_times = 1;
	o.dev_times = &dt;
	pl_graph_add_op(b, &o, NULL);
	struct fix f = fix_new(tu_build(b), 2, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_sim_result r;
	struct pl_placement *pl = placement(f.p, (int[]){ 0 });
	pl_sim_eval(ws, pl, &native, &r);
	assert_true(r.makespan_us == 10);
	pl->dev[0] = 1;
	pl_sim_eval(ws, pl, &native, &r);
	assert_true(r.makespan_us == 3);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* Memory: parameters, outputs, temporaries, received copies; OOM. */
static void
test_memory(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	int a = tu_op(b, "a", 10, 50);
	int bb = tu_op(b, "b", 5, 20);
	int c = tu_op(b, "c", 3, 0);
	pl_graph_builder_op(b, a)->param_bytes = 100;
	pl_graph_builder_op(b, a)->temp_bytes = 10;
	pl_graph_builder_op(b, bb)->temp_bytes = 5;
	pl_graph_add_edge(b, a, bb, 0, 50);
	pl_graph_add_edge(b, a, c, 0, 50);
	struct fix f = fix_new(tu_build(b), 2, 0);
	struct pl_placement *pl = placement(f.p, (int[]){ 0, 0, 1 });
	struct pl_trace *tr = trace(f.p, pl, &native);
	/* d0: 100 params; a +60 = 160; a's temp freed at 10, b +25 = 175 */
	assert_int_equal(tr->res.peak_bytes[0], 175);
	/* d1: a's copy from 10 to c's end at 63 */
	assert_int_equal(tr->res.peak_bytes[1], 50);
	assert_true(tr->ops[c].start == 60);
	/* the memory curve of d0 ends with the parameters alone */
	assert_int_equal(tr->mem[0][tr->n_mem[0] - 1].live, 100);
	assert_int_equal(tr->mem[1][tr->n_mem[1] - 1].live, 0);
	assert_int_equal(tr->res.oom_mask, 0);
	pl_trace_free(tr);
	/* Placeto's model: outputs only, a's until its consumers' latest end
	 * as the reference takes it (int(60) + int(3) - 1 = 62), b's (read by
	 * none) at its start only, after a's: 50 + 20 at 10 */
	struct pl_sim_opts po = { PL_SIM_NATIVE, PL_MEM_PLACETO };
	tr = trace(f.p, pl, &po);
	assert_int_equal(tr->res.peak_bytes[0], 70);
	assert_int_equal(tr->res.peak_bytes[1], 0);
	pl_trace_free(tr);
	/* no accounting */
	struct pl_sim_opts no = { PL_SIM_NATIVE, PL_MEM_NONE };
	tr = trace(f.p, pl, &no);
	assert_int_equal(tr->res.peak_max, 0);
	assert_true(tr->ops[c].start == 60);
	pl_trace_free(tr);
	/* out of memory */
	f.c->dev[0].mem_bytes = 170;
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_sim_result r;
	pl_sim_eval(ws, pl, &native, &r);
	assert_int_equal(r.oom_mask, 1);
	assert_int_equal(r.oom_excess, 5);
	assert_int_equal(r.peak_max, 175);
	assert_int_equal(r.fullest, 0);
	assert_int_equal(r.peak_fullest, 175);
	/* the fullest device is the one with the largest peak / capacity,
	 * not the largest peak: 50 of 60 against 175 of 1000 */
	f.c->dev[0].mem_bytes = 1000;
	f.c->dev[1].mem_bytes = 60;
	pl_sim_eval(ws, pl, &native, &r);
	assert_int_equal(r.oom_mask, 0);
	assert_int_equal(r.peak_max, 175);
	assert_int_equal(r.fullest, 1);
	assert_int_equal(r.peak_fullest, 50);
	pl_sim_ws_free(ws);
	pl_placement_free(pl);
	fix_free(&f);
}

/* Schedule invariants and lean == trace on random graphs and placements. */
static void
test_random_invariants(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 99);
	for (int cs = 0; cs < 60; cs++) {
		int n = 2 + (int)pl_rng_below(&r, 120);
		int D = 1 + (int)pl_rng_below(&r, 5);
		struct pl_graph *g = tu_random_dag(&r, n, 3, 10, 20, 0.2, 1 + (int64_t)pl_rng_below(&r, 30), 3);
		struct fix f = fix_new(g, D, cs % 3 == 0);
		for (int a = 0; a < D; a++)
			for (int b2 = 0; b2 < D; b2++)
				if (a != b2)
					pl_cluster_set_link(f.c, a, b2, 1e6, (double)pl_rng_below(&r, 3));
		pl_problem_free(f.p);
		f.p = tu_problem(g, f.c);
		struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
		for (int k = 0; k < 3; k++) {
			struct pl_placement *pl = tu_random_placement(&r, f.p);
			if (k == 1) {
				pl_placement_ensure_prio(pl);
				for (int v = 0; v < n; v++)
					pl->prio[v] = (double)pl_rng_below(&r, 4);
			}
			if (k == 2) {
				pl_placement_ensure_tprio(pl, g->n_tensors);
				for (int i = 0; i < g->n_tensors * D; i++)
					pl->tprio[i] = (double)pl_rng_below(&r, 4);
			}
			/* the lean loop against the recording one, every memory model */
			const struct pl_sim_opts other[] = { { PL_SIM_NATIVE, PL_MEM_PLACETO },
			    { PL_SIM_NATIVE, PL_MEM_NONE } };
			for (int m = 0; m < 2; m++) {
				struct pl_trace *to = lean_is_trace(ws, f.p, pl, &other[m]);
				if (m == 0)	/* Placeto's memory, by brute force */
					placeto_peaks_hold(f.p, pl, to);
				pl_trace_free(to);
			}
			struct pl_trace *tr = lean_is_trace(ws, f.p, pl, &native);
			/* dependencies: local producer's end, or the copy's arrival */
			for (int e = 0; e < g->n_edges; e++) {
				int u = g->edges[e].src, w = g->edges[e].dst;
				double need = tr->ops[u].end;
				if (pl->dev[u] != pl->dev[w])
					need += pl_problem_xfer_us(f.p, pl->dev[u], pl->dev[w],
					    g->tensors[g->edges[e].tensor].bytes);
				assert_true(tr->ops[w].start >= need);
			}
			/* a device runs one op at a time */
			for (int u = 0; u < n; u++)
				for (int v = 0; v < n; v++)
					if (u != v && pl->dev[u] == pl->dev[v] &&
					    tr->ops[u].start < tr->ops[v].start)
						assert_true(tr->ops[v].start >= tr->ops[u].end);
			/* a channel carries one transfer at a time, in start order */
			for (int i = 0; i < tr->n_xfers; i++)
				for (int j = i + 1; j < tr->n_xfers; j++) {
					assert_true(tr->xfers[j].start >= tr->xfers[i].start);
					if (tr->xfers[i].channel == tr->xfers[j].channel)
						assert_true(tr->xfers[j].start >= tr->xfers[i].end);
				}
			/* makespan is the last end; the critical path ends there */
			double ms = 0;
			for (int v = 0; v < n; v++)
				if (tr->ops[v].end > ms)
					ms = tr->ops[v].end;
			assert_true(tr->res.makespan_us == ms);
			assert_true(tr->n_critical >= 1);
			assert_true(tr->ops[tr->critical[tr->n_critical - 1]].end == ms);
			/* memory never negative and back to the parameters at the end */
			for (int d = 0; d < D; d++) {
				int64_t params = 0;
				for (int v = 0; v < n; v++)
					if (pl->dev[v] == d)
						params += g->ops[v].param_bytes;
				int64_t top = 0;
				for (int i = 0; i < tr->n_mem[d]; i++) {
					assert_true(tr->mem[d][i].live >= 0);
					if (tr->mem[d][i].live > top)
						top = tr->mem[d][i].live;
					if (i > 0)
						assert_true(tr->mem[d][i].t >= tr->mem[d][i - 1].t);
				}
				assert_int_equal(top, tr->res.peak_bytes[d]);
				assert_int_equal(tr->mem[d][tr->n_mem[d] - 1].live, params);
			}
			pl_trace_free(tr);
			pl_placement_free(pl);
		}
		pl_sim_ws_free(ws);
		fix_free(&f);
	}
}

/* ---- a naive reference of the native model ------------------------------ */

struct rx {
	int tensor, src, dst;
	double ready, start, end;
	int started, completed;
};

/*
 * The native model of docs/SIMULATION.md written plainly: at each instant,
 * complete everything that ends then (ops in id order, then transfers in
 * creation order), then let every idle device and channel start its best
 * waiting item, and repeat while something completes at that instant.
 */
static void
ref_native(const struct pl_problem *p, const struct pl_placement *pl,
    double *st, double *en)
{
	const struct pl_graph *g = p->g;
	const struct pl_cluster *c = p->c;
	int n = g->n_ops, D = p->n_dev, nch = c->shared_bus ? 1 : D * D;
	int *missing = calloc(n, sizeof *missing), *started = calloc(n, sizeof *started);
	int *completed = calloc(n, sizeof *completed);
	double *ready = calloc(n, sizeof *ready);
	struct rx *x = calloc((size_t)g->n_edges + 1, sizeof *x);
	int nx = 0, ndone = 0;
	/* distinct input tensors */
	for (int w = 0; w < n; w++)
		for (int j = g->in_off[w]; j < g->in_off[w + 1]; j++) {
			int t = g->edges[g->in_edge[j]].tensor, dup = 0;
			for (int i = g->in_off[w]; i < j; i++)
				dup |= g->edges[g->in_edge[i]].tensor == t;
			missing[w] += !dup;
		}
	double t = 0;
	for (;;) {
		int progress = 1;
		while (progress) {
			progress = 0;
			for (int v = 0; v < n; v++) {
				if (!started[v] || completed[v] || en[v] != t)
					continue;
				completed[v] = 1;
				ndone++;
				progress = 1;
				for (int tn = 0; tn < g->n_tensors; tn++) {
					if (g->tensors[tn].op != v)
						continue;
					for (int w = 0; w < n; w++) {
						int uses = 0;
						for (int j = g->in_off[w]; j < g->in_off[w + 1]; j++)
							uses |= g->edges[g->in_edge[j]].tensor == tn;
						if (!uses)
							continue;
						if (pl->dev[w] == pl->dev[v]) {
							if (--missing[w] == 0)
								ready[w] = t;
							continue;
						}
						int k;
						for (k = 0; k < nx; k++)
							if (x[k].tensor == tn && x[k].dst == pl->dev[w])
								break;
						if (k == nx)
							x[nx++] = (struct rx){ tn, pl->dev[v], pl->dev[w], t, 0, 0, 0, 0 };
					}
				}
			}
			for (int k = 0; k < nx; k++) {
				if (!x[k].started || x[k].completed || x[k].end != t)
					continue;
				x[k].completed = 1;
				progress = 1;
				for (int w = 0; w < n; w++) {
					if (pl->dev[w] != x[k].dst)
						continue;
					int uses = 0;
					for (int j = g->in_off[w]; j < g->in_off[w + 1]; j++)
						uses |= g->edges[g->in_edge[j]].tensor == x[k].tensor;
					if (uses && --missing[w] == 0)
						ready[w] = t;
				}
			}
			/* dispatch */
			for (int d = 0; d < D; d++) {
				int busy = 0, best = -1;
				for (int v = 0; v < n; v++)
					busy |= started[v] && !completed[v] && pl->dev[v] == d;
				if (busy)
					continue;
				for (int v = 0; v < n; v++) {
					if (started[v] || missing[v] != 0 || pl->dev[v] != d)
						continue;
					if (best < 0)
						best = v;
					else if (pl->prio != NULL ? (pl->prio[v] > pl->prio[best] ||
					    (pl->prio[v] == pl->prio[best] && g->topo_pos[v] < g->topo_pos[best])) :
					    (ready[v] < ready[best] || (ready[v] == ready[best] &&
					    g->topo_pos[v] < g->topo_pos[best])))
						best = v;
				}
				if (best >= 0) {
					started[best] = 1;
					st[best] = t;
					en[best] = t + pl_problem_op_us(p, best, d);
					progress = 1;
				}
			}
			for (int ch = 0; ch < nch; ch++) {
				int busy = 0, best = -1;
				for (int k = 0; k < nx; k++) {
					int kc = c->shared_bus ? 0 : x[k].src * D + x[k].dst;
					if (kc != ch)
						continue;
					busy |= x[k].started && !x[k].completed;
					if (x[k].started)
						continue;
					double *tp = pl->tprio;
					if (best < 0 || (tp != NULL ?
					    tp[x[k].tensor * D + x[k].dst] > tp[x[best].tensor * D + x[best].dst] :
					    x[k].ready < x[best].ready))
						best = k;
				}
				if (busy || best < 0)
					continue;
				x[best].started = 1;
				x[best].start = t;
				x[best].end = t + pl_problem_xfer_us(p, x[best].src, x[best].dst,
				    g->tensors[x[best].tensor].bytes);
				progress = 1;
			}
		}
		/* next instant */
		double next = INFINITY;
		for (int v = 0; v < n; v++)
			if (started[v] && !completed[v] && en[v] < next)
				next = en[v];
		for (int k = 0; k < nx; k++)
			if (x[k].started && !x[k].completed && x[k].end < next)
				next = x[k].end;
		if (next == INFINITY)
			break;
		t = next;
	}
	assert_int_equal(ndone, n);
	free(missing);
	free(started);
	free(completed);
	free(ready);
	free(x);
}

/* Every op of trace tr (of case cs) starts and ends as in the naive
 * reference. */
static void
assert_reference(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_trace *tr, int cs)
{
	int n = p->n_ops;
	double *st = calloc(n, sizeof *st), *en = calloc(n, sizeof *en);
	ref_native(p, pl, st, en);
	for (int v = 0; v < n; v++)
		if (tr->ops[v].start != st[v] || tr->ops[v].end != en[v])
			fail_msg("case %d op %d: %g..%g, reference %g..%g", cs, v,
			    tr->ops[v].start, tr->ops[v].end, st[v], en[v]);
	free(st);
	free(en);
}

/* The simulator against the naive reference, with and without priorities. */
static void
test_random_vs_reference(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 31337);
	for (int cs = 0; cs < 180; cs++) {
		int n = 2 + (int)pl_rng_below(&r, 60);
		/* the last cases: enough devices for the events to need a heap */
		int D = cs < 150 ? 1 + (int)pl_rng_below(&r, 4) : 8 + (int)pl_rng_below(&r, 4);
		struct pl_graph *g = tu_random_dag(&r, n, 3, 1 + (int)pl_rng_below(&r, 12),
		    4, 0.3, 1 + (int64_t)pl_rng_below(&r, 3), 2);
		struct fix f = fix_new(g, D, cs % 3 == 0);
		struct pl_placement *pl = tu_random_placement(&r, f.p);
		if (cs % 4 == 1) {
			pl_placement_ensure_prio(pl);
			for (int v = 0; v < n; v++)
				pl->prio[v] = (double)pl_rng_below(&r, 3);
		}
		if (cs % 4 == 2) {
			pl_placement_ensure_tprio(pl, g->n_tensors);
			for (int i = 0; i < g->n_tensors * D; i++)
				pl->tprio[i] = (double)pl_rng_below(&r, 1000);
		}
		struct pl_trace *tr = trace(f.p, pl, &native);
		assert_reference(f.p, pl, tr, cs);
		pl_trace_free(tr);
		pl_placement_free(pl);
		fix_free(&f);
	}
}

/* The lean path allocates nothing after the first evaluation. */
static void
test_no_alloc(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 5);
	struct pl_graph *g = tu_random_dag(&r, 400, 3, 30, 50, 0.1, 100, 2);
	struct fix f = fix_new(g, 4, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_placement *pl = tu_random_placement(&r, f.p);
	struct pl_sim_result res;
	struct pl_sim_opts o[] = { { PL_SIM_NATIVE, PL_MEM_NATIVE },
	    { PL_SIM_NATIVE, PL_MEM_PLACETO } };
	pl_sim_eval(ws, pl, &o[0], &res);
	unsigned long before = pl_alloc_count();
	for (int i = 0; i < 20; i++) {
		pl->dev[i] = (pl->dev[i] + 1) % 4;
		assert_int_equal(pl_sim_eval(ws, pl, &o[i % 2], &res), 0);
	}
	assert_int_equal(pl_alloc_count(), before);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* The lean path's start times are the trace's, for both models. */
static void
test_lean_starts(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 11);
	struct pl_graph *g = tu_random_dag(&r, 300, 3, 20, 40, 0.1, 100, 2);
	struct fix f = fix_new(g, 3, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_sim_opts o[] = { { PL_SIM_NATIVE, PL_MEM_NATIVE },
	    { PL_SIM_PLACETO, PL_MEM_PLACETO } };
	for (int i = 0; i < 6; i++) {
		struct pl_placement *pl = tu_random_placement(&r, f.p);
		struct pl_sim_result res;
		assert_int_equal(pl_sim_eval(ws, pl, &o[i % 2], &res), 0);
		const double *s = pl_sim_ws_starts(ws);
		struct pl_trace *tr = trace(f.p, pl, &o[i % 2]);
		int moved = 0;
		for (int v = 0; v < f.p->n_ops; v++) {
			assert_true(s[v] == tr->ops[v].start);
			moved += s[v] > 0;
		}
		assert_true(moved > 0);
		assert_true(res.makespan_us == tr->res.makespan_us);
		pl_trace_free(tr);
		pl_placement_free(pl);
	}
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* Many devices: up to 64 queues on a shared bus (the fast loop's bit
 * sets), more on a link matrix (the general loop); lean == trace. */
static void
test_many_devices(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 64);
	for (int cs = 0; cs < 40; cs++) {
		int shared = cs % 2, n = 2 + (int)pl_rng_below(&r, 200);
		int D = shared ? 30 + (int)pl_rng_below(&r, 34) : 8 + (int)pl_rng_below(&r, 5);
		struct pl_graph *g = tu_random_dag(&r, n, 3, 20, cs % 3 ? 500 : 4, 0.2, 1, 2);
		struct fix f = fix_new(g, D, shared);
		struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
		struct pl_placement *pl = tu_random_placement(&r, f.p);
		if (cs % 4 == 1) {
			pl_placement_ensure_prio(pl);
			for (int v = 0; v < n; v++)
				pl->prio[v] = (double)pl_rng_below(&r, 3);
		}
		pl_trace_free(lean_is_trace(ws, f.p, pl, &native));
		pl_placement_free(pl);
		pl_sim_ws_free(ws);
		fix_free(&f);
	}
}

/* A graph large enough for the loops to prefetch (PREFETCH_MIN_OPS): the
 * lean results and starts are still the trace's. */
static void
test_large_graph(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 4096);
	struct pl_graph *g = tu_random_dag(&r, 6000, 3, 200, 50, 0.1, 100, 2);
	struct fix f = fix_new(g, 4, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_placement *pl = tu_random_placement(&r, f.p);
	struct pl_trace *tr = lean_is_trace(ws, f.p, pl, &native);
	assert_true(tr->res.n_transfers > 0);
	pl_trace_free(tr);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* A graph whose workspace lives on large pages (ARENA_MIN ops + edges,
 * its arrays carved from one region): the lean results are the trace's,
 * and the starts and ends the naive reference's. */
static void
test_arena_graph(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 16384);
	struct pl_graph *g = tu_random_dag(&r, 2500, 12, 300, 50, 0.1, 100, 3);
	int n = g->n_ops;
	assert_true(n + g->n_edges >= 16384);
	struct fix f = fix_new(g, 4, 0);
	struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
	struct pl_placement *pl = tu_random_placement(&r, f.p);
	struct pl_trace *tr = lean_is_trace(ws, f.p, pl, &native);
	assert_true(tr->res.n_transfers > 0);
	assert_reference(f.p, pl, tr, 0);
	pl_trace_free(tr);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	fix_free(&f);
}

/* A region of large pages: at least the size asked, whole 2 MiB pages on
 * their boundaries, zeroed, writable to its last byte, one allocation; a
 * region too large for the system: none. */
static void
test_large_pages(void **state)
{
	(void)state;
	size_t size = ((size_t)5 << 20) + 1, len = 0;
	unsigned long before = pl_alloc_count();
	unsigned char *p = pl_alloc_pages(size, &len);
	assert_int_equal(pl_alloc_count(), before + 1);
	assert_non_null(p);	/* 6 MiB: never refused here */
	assert_true(len >= size);
	assert_int_equal(len % ((size_t)2 << 20), 0);
#if defined(__unix__)
	assert_int_equal((uintptr_t)p % ((uintptr_t)2 << 20), 0);
#endif
	for (size_t i = 0; i < len; i += 4096)
		assert_int_equal(p[i], 0);
	assert_int_equal(p[len - 1], 0);
	p[0] = 1;
	p[len - 1] = 2;
	assert_int_equal(p[0] + p[len - 1], 3);
	pl_free_pages(p, len);
	pl_free_pages(NULL, 0);
	/* a reservation the system cannot give: NULL, nothing counted */
	before = pl_alloc_count();
	assert_null(pl_alloc_pages(SIZE_MAX - 1, &len));
	assert_int_equal(pl_alloc_count(), before);
}

struct thread_job {
	const struct pl_problem *p;
	struct pl_placement **pl;
	int n_pl;
	struct pl_sim_opts o;
	double *out;
};

/* Evaluate every placement of a job with a workspace of its own. */
static void *
thread_main(void *arg)
{
	struct thread_job *j = arg;
	struct pl_sim_ws *ws = pl_sim_ws_new(j->p);
	struct pl_sim_result r;
	for (int rep = 0; rep < 3; rep++)
		for (int i = 0; i < j->n_pl; i++) {
			pl_sim_eval(ws, j->pl[i], &j->o, &r);
			j->out[i] = r.makespan_us + (double)r.peak_max;
		}
	pl_sim_ws_free(ws);
	return NULL;
}

/* Several threads, one workspace each, give the single-thread results. */
static void
test_threads(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 11);
	struct pl_graph *g = tu_random_dag(&r, 300, 3, 20, 40, 0.1, 64, 2);
	struct fix f = fix_new(g, 4, 0);
	enum { NPL = 12, NT = 4 };
	struct pl_placement *pl[NPL];
	for (int i = 0; i < NPL; i++)
		pl[i] = tu_random_placement(&r, f.p);
	double want[2][NPL], got[2][NT][NPL];
	struct pl_sim_opts opts[2] = { { PL_SIM_NATIVE, PL_MEM_NATIVE },
	    { PL_SIM_PLACETO, PL_MEM_PLACETO } };
	for (int k = 0; k < 2; k++) {
		struct thread_job one = { f.p, pl, NPL, opts[k], want[k] };
		thread_main(&one);
		pthread_t th[NT];
		struct thread_job jobs[NT];
		for (int t = 0; t < NT; t++) {
			jobs[t] = (struct thread_job){ f.p, pl, NPL, opts[k], got[k][t] };
			assert_int_equal(pthread_create(&th[t], NULL, thread_main, &jobs[t]), 0);
		}
		for (int t = 0; t < NT; t++)
			pthread_join(th[t], NULL);
		for (int t = 0; t < NT; t++)
			for (int i = 0; i < NPL; i++)
				assert_true(got[k][t][i] == want[k][i]);
	}
	for (int i = 0; i < NPL; i++)
		pl_placement_free(pl[i]);
	fix_free(&f);
}

/* A placement that breaks a constraint is refused with a cause. */
static void
test_trace_rejects_bad_placement(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	struct pl_op o;
	memset(&o, 0, sizeof o);
	o.name = (char *)"pinned";
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		o.measured_us[k] = 1;
	o.cons.kind = PL_CONS_DEVICE;
	o.cons.device = (char *)"/gpu:1";
	pl_graph_add_op(b, &o, NULL);
	struct fix f = fix_new(tu_build(b), 2, 0);
	struct pl_placement *pl = placement(f.p, (int[]){ 0 });
	char *cause = NULL;
	assert_null(pl_sim_trace(f.p, pl, &native, &cause));
	assert_non_null(cause);
	assert_non_null(strstr(cause, "pinned"));
	free(cause);
	pl->dev[0] = 1;
	struct pl_trace *tr = trace(f.p, pl, &native);
	assert_true(tr->res.makespan_us == 1);
	pl_trace_free(tr);
	pl_placement_free(pl);
	fix_free(&f);
}

/* Names of kinds and memory models. */
static void
test_names(void **state)
{
	(void)state;
	assert_int_equal(pl_sim_kind_parse("native"), PL_SIM_NATIVE);
	assert_int_equal(pl_sim_kind_parse("placeto"), PL_SIM_PLACETO);
	assert_int_equal(pl_sim_kind_parse("heft"), -1);
	assert_string_equal(pl_sim_kind_name(PL_SIM_PLACETO), "placeto");
	assert_int_equal(pl_mem_model_parse("placeto"), PL_MEM_PLACETO);
	assert_int_equal(pl_mem_model_parse("native"), PL_MEM_NATIVE);
	assert_int_equal(pl_mem_model_parse("none"), PL_MEM_NONE);
	assert_string_equal(pl_mem_model_name(PL_MEM_NONE), "none");
	assert_int_equal(pl_mem_model_parse(""), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_transfer_delay),
		cmocka_unit_test(test_critical_tie),
		cmocka_unit_test(test_one_transfer_per_destination),
		cmocka_unit_test(test_transfer_releases_its_own_consumers),
		cmocka_unit_test(test_shared_bus),
		cmocka_unit_test(test_priorities),
		cmocka_unit_test(test_heterogeneous),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_random_invariants),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_no_alloc),
		cmocka_unit_test(test_lean_starts),
		cmocka_unit_test(test_large_graph),
		cmocka_unit_test(test_arena_graph),
		cmocka_unit_test(test_large_pages),
		cmocka_unit_test(test_many_devices),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_trace_rejects_bad_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
