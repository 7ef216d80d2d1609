/*
 * test-sim-placeto — the Placeto simulator against two worked examples of
 * the reference simulator (docs/SIMULATION.md, section 3; exact equality
 * on doubles), and against a second,
 * deliberately naive implementation written straight from the spec (linear
 * scans, string comparisons, no precomputation) on random and tie-heavy
 * graphs, plus schedule invariants.
 *
 * Invariant: every comparison of times is exact (==); tie-heavy cases use
 * integer costs and sizes that are multiples of transfer_speed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim-testutil.h"
#include "sim.h"
#include "xmalloc.h"

/* ---- the naive reference ------------------------------------------------ */

enum { R_REMOVE, R_BUS, R_DEV };

struct r_event {
	double t;
	int kind, a, b;
};

struct r_item {
	double ready;
	int seq;
	int v;			/* node, or producer of a transfer */
	int idx;		/* transfer: output index */
	double delay;
};

/* An allocation of the native memory model, in event order. */
struct r_alloc {
	int d, v, w;		/* device; op (or producer); -1, or a receiver */
	int idx;		/* copies: output index */
	double t, arrive;	/* when; copies: the transfer's arrival */
	int64_t bytes;
};

struct r_sim {
	struct r_alloc *log;
	int n_log;
	const struct pl_graph *g;
	const struct pl_cluster *c;
	const struct pl_problem *p;
	const int *dev;
	struct r_event *ev;
	int n_ev, cap_ev;
	struct r_item **wait;	/* 2 * n_dev lists: devices then buses */
	int *n_wait;
	int *busy;
	int seq;
	double *start, *end;
};

/* Event order of spec section 3, with strcmp on the names. */
static int
r_less(const struct r_sim *s, const struct r_event *x, const struct r_event *y)
{
	if (x->t != y->t)
		return x->t < y->t;
	if (x->kind != y->kind)
		return x->kind < y->kind;
	if (x->kind == R_REMOVE) {
		int k = strcmp(s->g->ops[x->a].name, s->g->ops[y->a].name);
		if (k == 0)
			k = strcmp(s->g->ops[x->b].name, s->g->ops[y->b].name);
		return k < 0;
	}
	return strcmp(s->c->dev[x->a].name, s->c->dev[y->a].name) < 0;
}

/* Push an event. */
static void
r_push(struct r_sim *s, double t, int kind, int a, int b)
{
	if (s->n_ev == s->cap_ev) {
		s->cap_ev = s->cap_ev ? 2 * s->cap_ev : 16;
		s->ev = realloc(s->ev, sizeof *s->ev * s->cap_ev);
	}
	s->ev[s->n_ev++] = (struct r_event){ t, kind, a, b };
}

/* Offer an item to waiting list q (devices 0..D-1, buses D..2D-1). */
static void
r_offer(struct r_sim *s, int q, struct r_item it)
{
	int D = s->c->n_dev;
	it.seq = ++s->seq;
	s->wait[q][s->n_wait[q]++] = it;
	if (!s->busy[q]) {
		s->busy[q] = 1;
		r_push(s, it.ready, q < D ? R_DEV : R_BUS, q % D, 0);
	}
}

/* Index of the first item of waiting list q (smallest (ready, seq)). */
static int
r_first(struct r_sim *s, int q)
{
	int best = 0;
	for (int i = 1; i < s->n_wait[q]; i++) {
		struct r_item *a = &s->wait[q][i], *b = &s->wait[q][best];
		if (a->ready < b->ready || (a->ready == b->ready && a->seq < b->seq))
			best = i;
	}
	return best;
}

/* Remove item i of list q. */
static struct r_item
r_take(struct r_sim *s, int q, int i)
{
	struct r_item it = s->wait[q][i];
	s->wait[q][i] = s->wait[q][--s->n_wait[q]];
	return it;
}

/* Whether u is a parent of w (some edge u -> w). */
static int
r_parent(const struct pl_graph *g, int u, int w)
{
	for (int e = 0; e < g->n_edges; e++)
		if (g->edges[e].src == u && g->edges[e].dst == w)
			return 1;
	return 0;
}

/* idx(u, w): output index of the last edge u -> w in input order. */
static int
r_idx(const struct pl_graph *g, int u, int w)
{
	int idx = -1;
	for (int e = 0; e < g->n_edges; e++)
		if (g->edges[e].src == u && g->edges[e].dst == w)
			idx = g->tensors[g->edges[e].tensor].index;
	return idx;
}

/* S(u)[idx], 0 when missing. */
static int64_t
r_size(const struct pl_graph *g, int u, int idx)
{
	for (int t = 0; t < g->n_tensors; t++)
		if (g->tensors[t].op == u && g->tensors[t].index == idx)
			return g->tensors[t].bytes;
	return 0;
}

/*
 * The native memory model (docs/SIMULATION.md section 4) on the reference's
 * schedule: parameters resident; an op's outputs from its start until it,
 * its local children and its transfers are done, its temporaries until its
 * end; a copy on a receiving device from the transfer's start until its
 * receivers there are done.  Allocations in event order; a free counts
 * before the first later allocation of its device at or after its time.
 */
static void
r_native_peaks(const struct r_sim *s, int64_t *peak)
{
	const struct pl_graph *g = s->g;
	int n = g->n_ops, m = s->n_log;
	double *f1 = calloc(m + 1, sizeof *f1), *f2 = calloc(m + 1, sizeof *f2);
	int64_t *b1 = calloc(m + 1, sizeof *b1), *b2 = calloc(m + 1, sizeof *b2);
	char *done1 = calloc(m + 1, 1), *done2 = calloc(m + 1, 1);
	for (int i = 0; i < m; i++) {
		const struct r_alloc *a = &s->log[i];
		if (a->w < 0) {		/* op a->v */
			double F = s->end[a->v];
			for (int w = 0; w < n; w++)
				if (r_parent(g, a->v, w) && s->dev[w] == a->d && s->end[w] > F)
					F = s->end[w];
			for (int j = 0; j < m; j++)
				if (s->log[j].w >= 0 && s->log[j].v == a->v && s->log[j].arrive > F)
					F = s->log[j].arrive;
			f1[i] = F;
			b1[i] = g->ops[a->v].out_bytes;
			f2[i] = s->end[a->v];
			b2[i] = g->ops[a->v].temp_bytes;
		} else {		/* a copy of (v, idx) on a->d */
			f1[i] = a->t;
			for (int w = 0; w < n; w++)
				if (r_parent(g, a->v, w) && s->dev[w] == a->d &&
				    r_idx(g, a->v, w) == a->idx && s->end[w] > f1[i])
					f1[i] = s->end[w];
			b1[i] = a->bytes;
		}
	}
	for (int d = 0; d < s->c->n_dev; d++) {
		int64_t live = 0;
		for (int v = 0; v < n; v++)
			if (s->dev[v] == d)
				live += g->ops[v].param_bytes;
		peak[d] = live;
		for (int j = 0; j < m; j++) {
			if (s->log[j].d != d)
				continue;
			for (int i = 0; i < j; i++) {
				if (s->log[i].d != d)
					continue;
				if (!done1[i] && f1[i] <= s->log[j].t) {
					done1[i] = 1;
					live -= b1[i];
				}
				if (!done2[i] && f2[i] <= s->log[j].t) {
					done2[i] = 1;
					live -= b2[i];
				}
			}
			live += s->log[j].bytes;
			if (live > peak[d])
				peak[d] = live;
		}
	}
	free(f1);
	free(f2);
	free(b1);
	free(b2);
	free(done1);
	free(done2);
}

/* Simulate; fills start/end (and the native memory peaks when native_peak
 * is not NULL), returns run_time. */
static double
r_simulate(const struct pl_problem *p, const int *dev, double *start, double *end,
    int64_t *native_peak)
{
	const struct pl_graph *g = p->g;
	const struct pl_cluster *c = p->c;
	int n = g->n_ops, D = c->n_dev;
	struct r_sim s = { .g = g, .c = c, .p = p, .dev = dev, .start = start, .end = end };
	s.log = calloc((size_t)n * (n + 1) + 1, sizeof *s.log);
	s.wait = calloc(2 * D, sizeof *s.wait);
	s.n_wait = calloc(2 * D, sizeof *s.n_wait);
	s.busy = calloc(2 * D, sizeof *s.busy);
	for (int q = 0; q < 2 * D; q++)
		s.wait[q] = calloc((size_t)n * (n + 1) + 1, sizeof **s.wait);
	int *missing = calloc(n, sizeof *missing);
	for (int w = 0; w < n; w++)
		for (int u = 0; u < n; u++)
			missing[w] += r_parent(g, u, w);
	const struct pl_placeto_params *pp = &c->placeto;
	for (int v = 0; v < n; v++)
		if (missing[v] == 0)
			r_offer(&s, dev[v], (struct r_item){ .ready = pp->init_offset, .v = v });
	double run_time = 0;
	int *gidx = calloc(n + 1, sizeof *gidx);
	while (s.n_ev > 0) {
		int bi = 0;
		for (int i = 1; i < s.n_ev; i++)
			if (r_less(&s, &s.ev[i], &s.ev[bi]))
				bi = i;
		struct r_event e = s.ev[bi];
		s.ev[bi] = s.ev[--s.n_ev];
		if (e.t > run_time)
			run_time = e.t;
		if (e.kind == R_DEV) {
			int d = e.a;
			if (s.n_wait[d] == 0) {
				s.busy[d] = 0;
				continue;
			}
			struct r_item it = r_take(&s, d, r_first(&s, d));
			int v = it.v;
			double cost = pl_problem_op_us(p, v, d);
			start[v] = e.t;
			end[v] = e.t + cost;
			s.log[s.n_log++] = (struct r_alloc){ d, v, -1, -1, e.t, 0,
			    g->ops[v].out_bytes + g->ops[v].temp_bytes };
			r_push(&s, cost == 0 ? end[v] : end[v] + pp->delta1, R_DEV, d, 0);
			int ng = 0;
			for (int w = 0; w < n; w++) {
				if (!r_parent(g, v, w))
					continue;
				if (dev[w] == d) {
					r_push(&s, end[v], R_REMOVE, v, w);
					continue;
				}
				int idx = r_idx(g, v, w), k;
				for (k = 0; k < ng && gidx[k] != idx; k++)
					;
				if (k == ng)
					gidx[ng++] = idx;
			}
			for (int k = 0; k < ng; k++)
				r_offer(&s, D + d, (struct r_item){ .ready = end[v], .v = v,
				    .idx = gidx[k], .delay = (double)r_size(g, v, gidx[k]) / pp->transfer_speed });
		} else if (e.kind == R_BUS) {
			int q = D + e.a;
			if (s.n_wait[q] == 0) {
				s.busy[q] = 0;
				continue;
			}
			int i = r_first(&s, q);
			if (s.wait[q][i].ready > e.t) {
				r_push(&s, s.wait[q][i].ready, R_BUS, e.a, 0);
				continue;
			}
			struct r_item it = r_take(&s, q, i);
			double arrive = e.t + it.delay;
			for (int w = 0; w < n; w++)
				if (r_parent(g, it.v, w) && dev[w] != e.a && r_idx(g, it.v, w) == it.idx) {
					r_push(&s, arrive, R_REMOVE, it.v, w);
					int seen = 0;
					for (int j = 0; j < s.n_log; j++)
						seen |= s.log[j].w >= 0 && s.log[j].v == it.v &&
						    s.log[j].idx == it.idx && s.log[j].d == dev[w] &&
						    s.log[j].t == e.t;
					if (!seen)	/* one copy per receiving device */
						s.log[s.n_log++] = (struct r_alloc){ dev[w], it.v, w,
						    it.idx, e.t, arrive, r_size(g, it.v, it.idx) };
				}
			r_push(&s, arrive + pp->delta2, R_BUS, e.a, 0);
		} else {
			if (--missing[e.b] == 0)
				r_offer(&s, dev[e.b], (struct r_item){ .ready = e.t, .v = e.b });
		}
	}
	if (native_peak != NULL)
		r_native_peaks(&s, native_peak);
	free(s.log);
	for (int q = 0; q < 2 * D; q++)
		free(s.wait[q]);
	free(s.wait);
	free(s.n_wait);
	free(s.busy);
	free(s.ev);
	free(missing);
	free(gidx);
	return run_time;
}

/* ---- helpers ------------------------------------------------------------ */

static const struct pl_sim_opts placeto_opts = { PL_SIM_PLACETO, PL_MEM_PLACETO };

/* Trace of placement dev (array) or fail the test. */
static struct pl_trace *
run_trace(const struct pl_problem *p, const int *dev)
{
	struct pl_placement *pl = pl_placement_new(p->n_ops, p->n_dev);
	memcpy(pl->dev, dev, sizeof *dev * p->n_ops);
	char *cause = NULL;
	struct pl_trace *tr = pl_sim_trace(p, pl, &placeto_opts, &cause);
	if (tr == NULL)
		fail_msg("trace: %s", cause);
	pl_placement_free(pl);
	return tr;
}

/* The lean path's run time for placement dev (array), on a new workspace;
 * fails the test when the run fails. */
static double
lean_makespan(const struct pl_problem *p, const int *dev)
{
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_placement *pl = pl_placement_new(p->n_ops, p->n_dev);
	memcpy(pl->dev, dev, sizeof *dev * p->n_ops);
	struct pl_sim_result r;
	assert_int_equal(pl_sim_eval(ws, pl, &placeto_opts, &r), 0);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	return r.makespan_us;
}

/* Ops tied for the last end: a -> b -> c on device 0 and x on device 1,
 * all free (no gap after them), all end at 0; the critical path starts
 * from c, the sink of the tie that waited for b and a, not from a. */
static void
test_critical_tie(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("t");
	int a = tu_op(b, "a", 0, 0);
	int bb = tu_op(b, "b", 0, 0);
	int c = tu_op(b, "c", 0, 0);
	int x = tu_op(b, "x", 0, 0);
	pl_graph_add_edge(b, a, bb, 0, 0);
	pl_graph_add_edge(b, bb, c, 0, 0);
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *cl = tu_cluster(2, 1e6, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, cl);
	struct pl_trace *tr = run_trace(p, (int[]){ 0, 0, 0, 1 });
	assert_true(tr->ops[c].end == 0 && tr->ops[x].end == 0);
	assert_int_equal(tr->n_critical, 3);
	assert_int_equal(tr->critical[0], a);
	assert_int_equal(tr->critical[1], bb);
	assert_int_equal(tr->critical[2], c);
	pl_trace_free(tr);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

/* ---- worked examples ---------------------------------------------------- */

/* Spec section 8: the 4-node example, run_time 70.5. */
static void
test_worked_example(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("example");
	int a = tu_op(b, "a", 10, 76000);
	int bb = tu_op(b, "b", 20, 3800);
	int c = tu_op(b, "c", 0, 0);
	int d = tu_op(b, "d", 5, 8);
	pl_graph_add_edge(b, a, bb, 0, 76000);
	pl_graph_add_edge(b, a, c, 0, 76000);
	pl_graph_add_edge(b, a, d, 0, 76000);
	pl_graph_add_edge(b, bb, d, 0, 3800);
	pl_graph_add_edge(b, c, d, 0, 0);
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *cl = tu_cluster(3, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, cl);
	int dev[] = { 0, 0, 1, 2 };
	struct pl_trace *tr = run_trace(p, dev);
	assert_true(tr->ops[a].start == 0 && tr->ops[a].end == 10);
	double sb = 10.0 + 5.7, eb = sb + 20.0;
	assert_true(tr->ops[bb].start == sb && tr->ops[bb].end == eb);
	assert_true(eb + 5.7 == 41.400000000000006);
	assert_true(tr->ops[c].start == 20 && tr->ops[c].end == 20);
	assert_true(tr->ops[d].start == 45.5 && tr->ops[d].end == 50.5);
	assert_true(tr->res.makespan_us == 70.5);
	/* a's one broadcast, c's 0-byte transfer, b's transfer */
	assert_int_equal(tr->n_xfers, 3);
	assert_true(tr->xfers[0].start == 10 && tr->xfers[0].end == 20 &&
	    tr->xfers[0].busy_until == 45);
	assert_true(tr->xfers[1].start == 20 && tr->xfers[1].end == 20 &&
	    tr->xfers[1].bytes == 0);
	assert_true(tr->xfers[2].start == 45 && tr->xfers[2].end == 45.5 &&
	    tr->xfers[2].busy_until == 70.5);
	assert_int_equal(tr->res.n_transfers, 3);
	assert_int_equal(tr->res.bytes_moved, 76000 + 3800);

	/* Native memory: a's outputs held on gpu0 until b ends (35.7); copies
	 * of a on gpu1 and gpu2; b's copy and d's output on gpu2. */
	struct pl_sim_opts nm = { PL_SIM_PLACETO, PL_MEM_NATIVE };
	struct pl_placement *pn = pl_placement_new(4, 3);
	memcpy(pn->dev, dev, sizeof dev);
	char *cause = NULL;
	struct pl_trace *tn = pl_sim_trace(p, pn, &nm, &cause);
	assert_non_null(tn);
	assert_true(tn->res.makespan_us == 70.5);
	assert_int_equal(tn->res.peak_bytes[0], 76000 + 3800);
	assert_int_equal(tn->res.peak_bytes[1], 76000);
	assert_int_equal(tn->res.peak_bytes[2], 76000 + 3800 + 8);
	for (int dd = 0; dd < 3; dd++)
		assert_int_equal(tn->mem[dd][tn->n_mem[dd] - 1].live, 0);
	pl_trace_free(tn);
	pl_placement_free(pn);

	/* The lean path gives the same run time, and so does the naive
	 * reference. */
	assert_true(lean_makespan(p, dev) == 70.5);
	double st[4], en[4];
	assert_true(r_simulate(p, dev, st, en, NULL) == 70.5);
	pl_trace_free(tr);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

/* Spec section 8: the tie-break example, REMOVE events ordered by name. */
static void
test_tie_break_example(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("tie");
	int p2 = tu_op(b, "p2", 10, 7600);
	int p1 = tu_op(b, "p1", 10, 7600);
	int c1 = tu_op(b, "c1", 5, 0);
	int c2 = tu_op(b, "c2", 7, 0);
	pl_graph_add_edge(b, p2, c1, 0, 7600);
	pl_graph_add_edge(b, p1, c2, 0, 7600);
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *cl = tu_cluster(3, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, cl);
	int dev[] = { 1, 2, 0, 0 };
	struct pl_trace *tr = run_trace(p, dev);
	assert_true(tr->ops[c2].start == 11 && tr->ops[c2].end == 18);
	double s1 = 18.0 + 5.7;
	assert_true(tr->ops[c1].start == s1 && tr->ops[c1].end == s1 + 5);
	assert_true(tr->res.makespan_us == 36);
	pl_trace_free(tr);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

/*
 * Two devices' next events tie at 10, and the later-named one was waiting
 * first: /gpu:2 has b2 ready at 10 from t = 0, while /gpu:1 gets a1 at 10
 * only through x's 0-byte transfer, created when x starts at 5.  The
 * reference pops DEV /gpu:1 first (same time, smaller name), so a1 runs
 * before b2, and a1's child c1 enters /gpu:3 before b2's child c2: c1
 * runs 10 -> 11, c2 11 -> 13 (no gaps: delta1 = delta2 = 0).
 */
static void
test_tie_made_by_a_delivery(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("tie2");
	int y = tu_op(b, "y", 5, 0);
	int pp = tu_op(b, "p", 10, 0);
	int x = tu_op(b, "x", 5, 0);
	int a1 = tu_op(b, "a1", 0, 0);
	int b2 = tu_op(b, "b2", 0, 0);
	int c1 = tu_op(b, "c1", 1, 0);
	int c2 = tu_op(b, "c2", 2, 0);
	pl_graph_add_edge(b, y, x, 0, 0);
	pl_graph_add_edge(b, pp, b2, 0, 0);
	pl_graph_add_edge(b, x, a1, 0, 0);
	pl_graph_add_edge(b, a1, c1, 0, 0);
	pl_graph_add_edge(b, b2, c2, 0, 0);
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *cl = tu_cluster(4, 1e9, 0, (int64_t)1 << 34);
	cl->placeto.delta1 = cl->placeto.delta2 = 0;
	struct pl_problem *p = tu_problem(g, cl);
	int dev[] = { 0, 2, 0, 1, 2, 3, 3 };
	struct pl_trace *tr = run_trace(p, dev);
	assert_true(tr->ops[x].start == 5 && tr->ops[a1].start == 10 && tr->ops[b2].start == 10);
	assert_true(tr->ops[c1].start == 10 && tr->ops[c1].end == 11);
	assert_true(tr->ops[c2].start == 11 && tr->ops[c2].end == 13);
	assert_true(tr->res.makespan_us == 13);
	double st[7], en[7];
	assert_true(r_simulate(p, dev, st, en, NULL) == 13);
	assert_true(st[c1] == 10 && st[c2] == 11);
	assert_true(lean_makespan(p, dev) == 13);
	pl_trace_free(tr);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

/* ---- properties --------------------------------------------------------- */

/* Compare with the reference and check invariants on one case. */
static void
check_case(const struct pl_problem *p, const struct pl_placement *pl,
    struct pl_sim_ws *ws)
{
	const struct pl_graph *g = p->g;
	int n = g->n_ops;
	double *st = calloc(n ? n : 1, sizeof *st), *en = calloc(n ? n : 1, sizeof *en);
	int64_t npeak[PL_MAX_DEVICES];
	double ref = r_simulate(p, pl->dev, st, en, npeak);
	char *cause = NULL;
	struct pl_trace *tr = pl_sim_trace(p, pl, &placeto_opts, &cause);
	assert_non_null(tr);
	assert_true(tr->res.makespan_us == ref);
	for (int v = 0; v < n; v++) {
		if (tr->ops[v].start != st[v] || tr->ops[v].end != en[v])
			fail_msg("op %s: %.17g..%.17g, reference %.17g..%.17g",
			    g->ops[v].name, tr->ops[v].start, tr->ops[v].end, st[v], en[v]);
	}
	struct pl_sim_result r;
	assert_int_equal(pl_sim_eval(ws, pl, &placeto_opts, &r), 0);
	assert_true(r.makespan_us == ref);
	assert_memory_equal(r.peak_bytes, tr->res.peak_bytes, sizeof r.peak_bytes);
	/* Invariants: dependencies respected, devices never overlap. */
	const struct pl_placeto_params *pp = &p->c->placeto;
	for (int e = 0; e < g->n_edges; e++)
		assert_true(st[g->edges[e].dst] >= en[g->edges[e].src]);
	for (int u = 0; u < n; u++)
		for (int v = 0; v < n; v++) {
			if (u == v || pl->dev[u] != pl->dev[v] || st[u] > st[v])
				continue;
			double cu = pl_problem_op_us(p, u, pl->dev[u]);
			double cv = pl_problem_op_us(p, v, pl->dev[v]);
			if (st[u] == st[v])
				assert_true(cu == 0 || cv == 0);
			else
				assert_true(st[v] >= en[u] + (cu == 0 ? 0 : pp->delta1));
		}
	for (int v = 0; v < n; v++)
		assert_true(ref >= en[v]);
	/* Placeto's peak memory by brute force, and its curve: never
	 * negative, in time order, its top the peak, back to 0 */
	int64_t ppeak[PL_MAX_DEVICES];
	tu_placeto_peaks(p, pl->dev, st, ppeak);
	for (int d = 0; d < p->n_dev; d++) {
		assert_int_equal(tr->res.peak_bytes[d], ppeak[d]);
		int64_t top = 0;
		for (int i = 0; i < tr->n_mem[d]; i++) {
			assert_true(tr->mem[d][i].live >= 0);
			top = tr->mem[d][i].live > top ? tr->mem[d][i].live : top;
			if (i > 0)
				assert_true(tr->mem[d][i].t >= tr->mem[d][i - 1].t);
		}
		assert_int_equal(top, ppeak[d]);
		assert_int_equal(tr->mem[d][tr->n_mem[d] - 1].live, 0);
	}
	pl_trace_free(tr);
	/* Native memory: lean = trace, the curve peaks at the peak, never
	 * goes negative and ends with the parameters (none here). */
	struct pl_sim_opts nm = { PL_SIM_PLACETO, PL_MEM_NATIVE };
	tr = pl_sim_trace(p, pl, &nm, &cause);
	assert_non_null(tr);
	assert_true(tr->res.makespan_us == ref);
	assert_int_equal(pl_sim_eval(ws, pl, &nm, &r), 0);
	assert_memory_equal(r.peak_bytes, tr->res.peak_bytes, sizeof r.peak_bytes);
	for (int d = 0; d < p->n_dev; d++)
		if (r.peak_bytes[d] != npeak[d])
			fail_msg("device %d: native peak %lld, reference %lld", d,
			    (long long)r.peak_bytes[d], (long long)npeak[d]);
	for (int d = 0; d < p->n_dev; d++) {
		int64_t top = 0;
		for (int i = 0; i < tr->n_mem[d]; i++) {
			assert_true(tr->mem[d][i].live >= 0);
			if (tr->mem[d][i].live > top)
				top = tr->mem[d][i].live;
			if (i > 0)
				assert_true(tr->mem[d][i].t >= tr->mem[d][i - 1].t);
		}
		assert_int_equal(top, tr->res.peak_bytes[d]);
		assert_int_equal(tr->mem[d][tr->n_mem[d] - 1].live, 0);
	}
	pl_trace_free(tr);
	free(st);
	free(en);
}

/* Random real-valued-parameter cases and tie-heavy integer cases (some
 * without delta gaps, some with temporaries). */
static void
test_random_vs_reference(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 12345);
	for (int cs = 0; cs < 300; cs++) {
		int tie = cs % 2;
		int n = 2 + (int)pl_rng_below(&r, cs < 250 ? 40 : 150);
		/* more than 8 devices now and then: the tournament's tree */
		int D = 2 + (int)pl_rng_below(&r, cs % 10 == 3 ? 20 : 6);
		struct pl_graph_builder *b = tu_random_dag_builder(&r, n, 3, tie ? 4 : 20,
		    tie ? 3 : 100, tie ? 0.4 : 0.15,
		    tie ? 7600 : 1000 + (int64_t)pl_rng_below(&r, 9000), 3);
		if (cs % 3 == 0)	/* temporaries: frees at an op's own start */
			for (int v = 0; v < n; v++)
				pl_graph_builder_op(b, v)->temp_bytes = (int64_t)(v % 3) * 1000;
		int instant = cs % 25 == 7;	/* every op at one time */
		if (instant)
			for (int v = 0; v < n; v++)
				for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
					pl_graph_builder_op(b, v)->measured_us[k] = 0;
		struct pl_graph *g = tu_build(b);
		struct pl_cluster *cl = tu_cluster(D, 1e9, 0, (int64_t)1 << 34);
		if (!tie && cs % 4 == 2) {	/* real-valued parameters */
			cl->placeto.delta1 = pl_rng_uniform(&r) * 10;
			cl->placeto.delta2 = pl_rng_uniform(&r) * 40;
			cl->placeto.init_offset = pl_rng_uniform(&r) * 3;
		}
		if (instant) {
			cl->placeto.delta1 = cl->placeto.delta2 = 0;
			cl->placeto.init_offset = 0;
			cl->placeto.transfer_speed = 1e15;	/* arrivals a hair later */
		}
		if (tie && cs % 8 == 4) {
			/* no gaps: transfers of one bus at one instant */
			cl->placeto.delta1 = (double)(cs / 8 % 2);
			cl->placeto.delta2 = 0;
		}
		struct pl_problem *p = tu_problem(g, cl);
		struct pl_sim_ws *ws = pl_sim_ws_new(p);
		for (int k = 0; k < 3; k++) {
			struct pl_placement *pl = tu_random_placement(&r, p);
			check_case(p, pl, ws);
			pl_placement_free(pl);
		}
		pl_sim_ws_free(ws);
		pl_problem_free(p);
		pl_cluster_free(cl);
		pl_graph_free(g);
	}
}

/* Duplicate (src, dst) pairs: the last edge's output index is sent. */
static void
test_last_index_wins(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("dup");
	int u = tu_op(b, "u", 1, 0);
	int w = tu_op(b, "w", 1, 0);
	pl_graph_add_edge(b, u, w, 1, 76000);	/* 10 us */
	pl_graph_add_edge(b, u, w, 0, 7600);	/* 1 us: the last one wins */
	struct pl_graph *g = tu_build(b);
	struct pl_cluster *cl = tu_cluster(2, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, cl);
	int dev[] = { 0, 1 };
	struct pl_trace *tr = run_trace(p, dev);
	assert_true(tr->ops[w].start == 2);
	assert_int_equal(tr->n_xfers, 1);
	assert_int_equal(tr->xfers[0].bytes, 7600);
	pl_trace_free(tr);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

/* A workspace divides its transfer delays once, and again when the
 * cluster's transfer speed changes between evaluations. */
static void
test_speed_changed(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 11);
	struct pl_graph *g = tu_random_dag(&r, 200, 3, 30, 50, 0.1, 7600, 2);
	struct pl_cluster *cl = tu_cluster(4, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, cl);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_placement *pl = tu_random_placement(&r, p);
	struct pl_sim_result before, after;
	check_case(p, pl, ws);
	assert_int_equal(pl_sim_eval(ws, pl, &placeto_opts, &before), 0);
	cl->placeto.transfer_speed = 760;	/* every transfer 10 times longer */
	check_case(p, pl, ws);
	assert_int_equal(pl_sim_eval(ws, pl, &placeto_opts, &after), 0);
	assert_true(after.makespan_us > before.makespan_us);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

/* The lean path allocates nothing after the first evaluation. */
static void
test_no_alloc(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 7);
	struct pl_graph *g = tu_random_dag(&r, 300, 3, 30, 50, 0.1, 7600, 2);
	struct pl_cluster *cl = tu_cluster(4, 1e9, 0, (int64_t)1 << 34);
	struct pl_problem *p = tu_problem(g, cl);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_placement *pl = tu_random_placement(&r, p);
	struct pl_sim_result res;
	struct pl_sim_opts o[] = { { PL_SIM_PLACETO, PL_MEM_PLACETO },
	    { PL_SIM_PLACETO, PL_MEM_NATIVE } };
	pl_sim_eval(ws, pl, &o[0], &res);
	unsigned long before = pl_alloc_count();
	for (int i = 0; i < 20; i++) {
		pl->dev[i] = (pl->dev[i] + 1) % 4;
		assert_int_equal(pl_sim_eval(ws, pl, &o[i % 2], &res), 0);
	}
	assert_int_equal(pl_alloc_count(), before);
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	pl_problem_free(p);
	pl_cluster_free(cl);
	pl_graph_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_critical_tie),
		cmocka_unit_test(test_tie_break_example),
		cmocka_unit_test(test_tie_made_by_a_delivery),
		cmocka_unit_test(test_last_index_wins),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_speed_changed),
		cmocka_unit_test(test_no_alloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
