/*
 * test-placeto — the Placeto MDP and its training: rewards sum to the
 * episode's improvement; every finished episode is logged for the
 * learning curve; the learning rate reads as configured before the first
 * update; training on a tiny crown graph finds the best
 * placement (checked by brute force) within a bounded number of episodes
 * for a fixed seed; results do not depend on the thread count; grouping
 * respects the group budget; the grouped graph's rows list each neighbour
 * once, in order, however many edges join two nodes; nodes whose square
 * would need more than the memory limit are refused upfront; the status
 * marks a best that does not fit in memory; zero-shot runs from a saved policy, and a
 * policy for another cluster is refused; the per-step CSV log; the
 * multi-graph trainer; sched=rank gives each placement priorities that
 * beat first-ready-first order where the order matters; escape=grow
 * moves connected nodes together, within colocation groups and allowed
 * devices, deterministically, and leaves a local optimum of single moves
 * that the plain local search keeps.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fileio.h"
#include "graph.h"
#include "placer.h"
#include "placers/placeto.h"
#include "problem.h"
#include "sim.h"
#include "xmalloc.h"

/* Per-device times of the crown's ops: fast, medium, slow device. */
static const double crown_us[3] = { 6, 10, 15 };

/* Build a test graph or fail the test. */
static struct pl_graph *
build(struct pl_graph_builder *b, const char *what)
{
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	if (g == NULL)
		fail_msg("%s: %s", what, cause);
	return g;
}

/* A crown: s -> x0..x(w-1) -> t, costs per device, tiny tensors. */
static struct pl_graph *
crown(int w)
{
	struct pl_graph_builder *b = pl_graph_builder_new("crown");
	static char *dn[3] = { "P0", "P1", "P2" };
	for (int i = 0; i < w + 2; i++) {
		char name[16];
		if (i == 0)
			snprintf(name, sizeof name, "s");
		else if (i == w + 1)
			snprintf(name, sizeof name, "t");
		else
			snprintf(name, sizeof name, "x%d", i - 1);
		struct pl_dev_time dt[3];
		for (int d = 0; d < 3; d++)
			dt[d] = (struct pl_dev_time){ dn[d], (i == 0 || i == w + 1) ? 1 : crown_us[d] };
		struct pl_op op = { .name = name, .type = "Op", .scope = "",
			.out_bytes = 100, .n_dev_times = 3, .dev_times = dt };
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		pl_graph_add_op(b, &op, NULL);
	}
	for (int i = 1; i <= w; i++) {
		pl_graph_add_edge(b, 0, i, 0, 100);
		pl_graph_add_edge(b, i, w + 1, 0, 100);
	}
	return build(b, "crown");
}

/* n devices P0.., fast links. */
static struct pl_cluster *
cluster(int n)
{
	struct pl_cluster *c = pl_cluster_new("test");
	for (int d = 0; d < n; d++) {
		char name[8];
		snprintf(name, sizeof name, "P%d", d);
		struct pl_device dev = { name, PL_DEV_GPU, 1e12, 1LL << 30, 1e11, 0 };
		pl_cluster_add_device(c, &dev, 1e9, 0);
	}
	char *cause = NULL;
	if (pl_cluster_validate(c, &cause) != 0)
		fail_msg("cluster: %s", cause);
	return c;
}

/* The best makespan over every placement, by brute force. */
static double
brute_force(const struct pl_problem *p, const struct pl_sim_opts *o)
{
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_placement *pl = pl_placement_new(p->n_ops, p->n_dev);
	long total = 1;
	for (int i = 0; i < p->n_ops; i++)
		total *= p->n_dev;
	double best = INFINITY;
	for (long code = 0; code < total; code++) {
		long c = code;
		for (int i = 0; i < p->n_ops; i++) {
			pl->dev[i] = (int)(c % p->n_dev);
			c /= p->n_dev;
		}
		struct pl_sim_result r;
		assert_int_equal(pl_sim_eval(ws, pl, o, &r), 0);
		if (r.makespan_us < best)
			best = r.makespan_us;
	}
	pl_placement_free(pl);
	pl_sim_ws_free(ws);
	return best;
}

struct fixture {
	struct pl_graph *g;
	struct pl_cluster *c;
	struct pl_problem *p;
};

/* A crown of width w on n devices. */
static void
fixture_init(struct fixture *f, int w, int n)
{
	char *cause = NULL;
	f->g = crown(w);
	f->c = cluster(n);
	f->p = pl_problem_new(f->g, f->c, &cause);
	assert_non_null(f->p);
}

/* Free a fixture. */
static void
fixture_free(struct fixture *f)
{
	pl_problem_free(f->p);
	pl_cluster_free(f->c);
	pl_graph_free(f->g);
}

/* A Placeto placer with options spec. */
static struct pl_placer *
make(const struct pl_problem *p, const char *spec, int threads, uint64_t seed)
{
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = seed, .threads = threads };
	char *cause = NULL;
	struct pl_placer *pl = pl_placer_new(&pl_placer_placeto, p, spec, &run, &cause);
	if (pl == NULL)
		fail_msg("placeto: %s", cause);
	return pl;
}

/* Check one full episode's decisions. */
static void
check_episode(const struct pl_placeto_decision *d, int n)
{
	double sum = 0;
	for (int t = 0; t < n; t++) {
		assert_int_equal(d[t].t, t);
		assert_true(fabs(d[t].reward - (d[t].before_s - d[t].after_s)) < 1e-12);
		if (t > 0)
			assert_true(d[t].before_s == d[t - 1].after_s);
		sum += d[t].reward;
		assert_true(fabs(d[t].ret - sum) < 1e-12);
		double ps = 0;
		for (int k = 0; k < d[t].n_dev; k++)
			ps += d[t].probs[k];
		assert_true(fabs(ps - 1) < 1e-5);
		assert_true(d[t].feat[3] == 1.0f);	/* current */
		assert_true(d[t].feat[5 + d[t].prev_dev] == 1.0f);	/* device one-hot */
	}
	assert_true(fabs(sum - (d[0].before_s - d[n - 1].after_s)) < 1e-12);
	assert_true(fabs(d[0].before_us * 1e-6 - d[0].before_s) < 1e-12);
}

/* r_t = R_t - R_{t+1}; the rewards sum to the episode's improvement. */
static void
test_rewards_sum(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 4, 3);
	struct pl_placer *pl = make(f.p, "episodes=4,workers=2,k=2", 1, 5);
	assert_int_equal(pl_placeto_n_groups(pl), 6);
	int seen = 0;
	enum pl_step_status st;
	do {
		st = pl_placer_step(pl);
		int n;
		const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
		assert_non_null(d);
		if (n == 6) {
			check_episode(d, n);
			seen++;
		}
	} while (st == PL_STEP_MORE);
	assert_null(pl->error);
	assert_int_equal(seen, 3);	/* two training batches and the greedy episode */
	assert_true(pl_placeto_last(pl)->greedy);
	struct pl_placeto_stats ps;
	pl_placeto_get_stats(pl, &ps);
	assert_int_equal(ps.episodes, 4);
	assert_int_equal(ps.updates, 2);
	assert_int_equal(ps.phase, 2);
	/* 4 training + 1 greedy episodes of (1 + 6) simulations */
	assert_int_equal(pl->evals, 5 * 7);
	assert_non_null(pl->best);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Every finished episode is logged, one per worker and batch, then the
 * greedy one. */
static void
test_episode_log(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 4, 3);
	struct pl_placer *pl = make(f.p, "episodes=4,workers=2,k=2", 1, 5);
	long n;
	assert_null(pl_placeto_episodes(pl, &n));
	assert_int_equal(n, 0);
	for (int t = 0; t < 6; t++)
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	const struct pl_placeto_episode_log *lg = pl_placeto_episodes(pl, &n);
	assert_int_equal(n, 2);		/* the first batch: one per worker */
	int nd;
	const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &nd);
	assert_int_equal(nd, 6);
	assert_true(lg[0].final_us == d[5].after_us);	/* worker 0's episode */
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	lg = pl_placeto_episodes(pl, &n);
	assert_int_equal(n, 5);
	for (long i = 0; i < n; i++) {
		assert_int_equal(lg[i].episode, i);
		assert_int_equal(lg[i].greedy, i == 4);
		assert_true(lg[i].final_us > 0 && lg[i].best_us <= lg[i].final_us);
	}
	d = pl_placeto_decisions(pl, &nd);
	assert_true(lg[4].final_us == d[nd - 1].after_us);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* A budget that is not a multiple of the workers is trained exactly: the
 * last batch plays only the episodes left (3 with 2 workers: 2 + 1), in
 * a run and in the trainer, and a slot that sits out offers no best. */
static void
test_episodes_exact(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 4, 3);
	struct pl_placer *pl = make(f.p, "episodes=3,workers=2,k=2", 1, 5);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	long n;
	const struct pl_placeto_episode_log *lg = pl_placeto_episodes(pl, &n);
	assert_int_equal(n, 4);		/* 3 trained, then the greedy one */
	assert_int_equal(lg[3].greedy, 1);
	struct pl_placeto_stats ps;
	pl_placeto_get_stats(pl, &ps);
	assert_int_equal(ps.episodes, 3);
	assert_int_equal(ps.updates, 2);
	pl_placer_free(pl);

	const struct pl_problem *probs[1] = { f.p };
	struct pl_options *o = NULL;
	char *cause = NULL;
	assert_int_equal(pl_options_parse(pl_placeto_options, "episodes=1,workers=4,k=2", &o, &cause), 0);
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = 4, .threads = 2 };
	struct pl_placeto_trainer *tr = pl_placeto_trainer_new(probs, 1, o, &run, &cause);
	assert_non_null(tr);
	struct pl_placeto_episode_log logs[4];
	int nl;
	assert_int_equal(pl_placeto_trainer_batch(tr, logs, &nl, &cause), 0);
	assert_int_equal(nl, 1);
	struct pl_placeto_stats st;
	pl_placeto_trainer_stats(tr, &st);
	assert_int_equal(st.episodes, 1);
	assert_true(st.best_us > 0 && st.best_us == logs[0].best_us);
	pl_placeto_trainer_free(tr);
	pl_options_free(o);
	fixture_free(&f);
}

/* Before the first update the learning rate reads as configured; it
 * decays towards lr-end with the updates. */
static void
test_lr_configured(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 4, 3);
	struct pl_placer *pl = make(f.p, "episodes=4,workers=2,k=2,lr=0.005", 1, 5);
	struct pl_placeto_stats ps;
	pl_placeto_get_stats(pl, &ps);
	assert_true(ps.lr == 0.005);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	pl_placeto_get_stats(pl, &ps);
	assert_true(ps.lr < 0.005 && ps.lr > 1e-4);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Training finds the brute-force optimum: the final greedy episode ends
 * on an optimal placement. */
static void
test_training_finds_best(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 3, 3);
	struct pl_sim_opts o = { .kind = PL_SIM_NATIVE };
	double best = brute_force(f.p, &o);
	struct pl_placer *pl = make(f.p, "episodes=1600,workers=4,k=2,reward=relative,entropy=0.01,lr=0.01,lr-end=0.001", 2, 1);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	assert_null(pl->error);
	int n;
	const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
	assert_int_equal(n, 5);
	assert_true(d[n - 1].greedy);
	if (fabs(d[n - 1].after_us - best) > 1e-9)
		fail_msg("greedy episode ends at %.6f us, the optimum is %.6f us", d[n - 1].after_us, best);
	assert_true(fabs(pl->best_res.makespan_us - best) < 1e-9);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Save a policy (caller frees the path). */
static char *
save_policy(struct pl_placer *pl, const char *dir, const char *name)
{
	char *path = pl_xasprintf("%s/%s", dir, name);
	char *cause = NULL;
	if (pl_placeto_save_policy(pl, path, &cause) != 0)
		fail_msg("save: %s", cause);
	return path;
}

/* Same seed, 1 or 2 threads: same decisions, same weights. */
static void
test_threads_deterministic(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 4, 3);
	char dir[] = "/tmp/test-placeto-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *paths[2];
	double best[2];
	for (int k = 0; k < 2; k++) {
		struct pl_placer *pl = make(f.p, "episodes=12,workers=3,k=2", k + 1, 77);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		best[k] = pl->best_res.makespan_us;
		paths[k] = save_policy(pl, dir, k ? "b.plw" : "a.plw");
		pl_placer_free(pl);
	}
	assert_true(best[0] == best[1]);
	size_t la, lb;
	char *cause = NULL;
	char *a = pl_file_read(paths[0], &la, &cause), *b = pl_file_read(paths[1], &lb, &cause);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	/* a different seed trains differently */
	struct pl_placer *pl = make(f.p, "episodes=12,workers=3,k=2", 1, 78);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	char *pc = save_policy(pl, dir, "c.plw");
	pl_placer_free(pl);
	size_t lc;
	char *a2 = pl_file_read(paths[0], &la, &cause), *c = pl_file_read(pc, &lc, &cause);
	assert_memory_not_equal(a2, c, la);
	free(a2);
	free(c);

	/* zero-shot: one greedy episode from the saved policy */
	char *spec = pl_xasprintf("policy=%s", paths[0]);
	pl = make(f.p, spec, 1, 3);
	int steps = 0;
	while (pl_placer_step(pl) == PL_STEP_MORE)
		steps++;
	assert_int_equal(steps + 1, pl_placeto_n_groups(pl));
	assert_true(pl_placeto_last(pl)->greedy);
	assert_non_null(pl->best);
	pl_placer_free(pl);
	free(spec);
	/* fine-tuning: 3 training episodes, then the greedy one */
	spec = pl_xasprintf("policy=%s,finetune=3,workers=3", paths[0]);
	pl = make(f.p, spec, 1, 3);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	struct pl_placeto_stats st;
	pl_placeto_get_stats(pl, &st);
	assert_int_equal(st.episodes, 3);
	pl_placer_free(pl);
	free(spec);
	/* a policy for 3 devices on a 2-device cluster is refused clearly */
	struct fixture f2;
	fixture_init(&f2, 4, 2);
	spec = pl_xasprintf("policy=%s", paths[0]);
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = 1, .threads = 1 };
	assert_null(pl_placer_new(&pl_placer_placeto, f2.p, spec, &run, &cause));
	assert_non_null(strstr(cause, "trained for 3 devices"));
	free(cause);
	free(spec);
	fixture_free(&f2);
	for (int k = 0; k < 2; k++) {
		unlink(paths[k]);
		free(paths[k]);
	}
	unlink(pc);
	free(pc);
	assert_int_equal(rmdir(dir), 0);
	fixture_free(&f);
}

/* A scoped graph of many colocation groups is coarsened to the budget. */
static void
test_grouping(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("nmt-like");
	int n = 0;
	for (int l = 0; l < 3; l++)
		for (int t = 0; t < 6; t++)
			for (int k = 0; k < 2; k++) {
				char name[64], scope[64];
				snprintf(name, sizeof name, "enc/l%d/t%d/op%d", l, t, k);
				snprintf(scope, sizeof scope, "enc/l%d/t%d", l, t);
				struct pl_op op = { .name = name, .type = "MatMul", .scope = scope, .flops = 1e6, .out_bytes = 1000 };
				for (int q = 0; q < PL_DEV_KIND_COUNT; q++)
					op.measured_us[q] = -1;
				pl_graph_add_op(b, &op, NULL);
				if (n > 0)
					pl_graph_add_edge(b, n - 1, n, 0, 1000);
				n++;
			}
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	assert_non_null(g);
	struct pl_cluster *c = cluster(2);
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	static const int budgets[] = { 1, 3, 5, 18, 36, 100 };
	static const int expect[] = { 1, 3, 3, 18, 36, 36 };
	for (int i = 0; i < 6; i++) {
		char spec[64];
		snprintf(spec, sizeof spec, "groups=%d,episodes=0", budgets[i]);
		struct pl_placer *pl = make(p, spec, 1, 1);
		int ng = pl_placeto_n_groups(pl);
		assert_int_equal(ng, expect[i]);
		int covered = 0;
		const int *of = pl_placeto_group_of(pl);
		for (int v = 0; v < ng; v++) {
			int cnt;
			const int *ops = pl_placeto_group_ops(pl, v, &cnt);
			for (int q = 0; q < cnt; q++)
				assert_int_equal(of[ops[q]], v);
			covered += cnt;
		}
		assert_int_equal(covered, g->n_ops);
		if (budgets[i] == 3)
			assert_string_equal(pl_placeto_group_name(pl, 0), "enc/l0");
		pl_placer_free(pl);
	}
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* A graph of n ops in `scopes` scopes (op i in scope i % scopes) whose
 * edges i -> i + 1, i + 2, i + 5 make each pair of grouped nodes share
 * many edges, met out of order. */
static struct pl_graph *
dup_edge_graph(int n, int scopes)
{
	struct pl_graph_builder *b = pl_graph_builder_new("dup-edges");
	for (int i = 0; i < n; i++) {
		char name[32], scope[32];
		snprintf(name, sizeof name, "o%d", i);
		snprintf(scope, sizeof scope, "s%d", i % scopes);
		struct pl_op op = { .name = name, .type = "MatMul", .scope = scope, .flops = 1e6,
			.out_bytes = 1000 };
		for (int q = 0; q < PL_DEV_KIND_COUNT; q++)
			op.measured_us[q] = -1;
		pl_graph_add_op(b, &op, NULL);
	}
	static const int step[] = { 1, 2, 5 };
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			if (i + step[k] < n)
				pl_graph_add_edge(b, i, i + step[k], 0, 1000);
	return build(b, "dup-edges");
}

/* The grouped graph's rows are each grouped node's neighbours in
 * increasing order, each once, however many edges join two nodes and in
 * whatever order they come (edges=all and edges=forward). */
static void
test_grouped_rows(void **state)
{
	(void)state;
	struct pl_graph *g = dup_edge_graph(700, 7);
	struct pl_cluster *c = cluster(2);
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	for (int fwd = 0; fwd < 2; fwd++) {
		struct pl_placer *pl = make(p, fwd ? "groups=8,episodes=0,edges=forward" :
		    "groups=8,episodes=0", 1, 1);
		int n = pl_placeto_n_groups(pl);
		assert_int_equal(n, 7);
		const int *of = pl_placeto_group_of(pl);
		/* brute force: which node pairs some edge joins, and by how many */
		int *cnt = pl_xcalloc((size_t)n * n, sizeof(int));
		for (int i = 0; i < g->n_edges; i++) {
			int a = of[g->edges[i].src], z = of[g->edges[i].dst];
			if (a != z && (!fwd || a < z))
				cnt[a * n + z]++;
		}
		int most = 0;
		for (int dir = 0; dir < 2; dir++)
			for (int v = 0; v < n; v++) {
				int k;
				const int *row = pl_placeto_neighbours(pl, v, dir, &k);
				int q = 0;
				for (int u = 0; u < n; u++) {
					int e = dir ? cnt[v * n + u] : cnt[u * n + v];
					if (e > most)
						most = e;
					if (e == 0)
						continue;
					assert_true(q < k);
					assert_int_equal(row[q], u);
					q++;
				}
				assert_int_equal(q, k);
			}
		assert_true(most >= 50);	/* many edges to each neighbour */
		assert_null(pl_placeto_neighbours(pl, n, 0, &most));
		assert_int_equal(most, 0);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		assert_null(pl->error);
		free(cnt);
		pl_placer_free(pl);
	}
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* accept=improve: a move that does not lower the run time is undone, so
 * the run time never rises within an episode, and the rewards still sum
 * to the episode's improvement; also with sched=rank, where an undone
 * move also restores the priorities. */
static void
test_accept_improve(void **state)
{
	(void)state;
	static const char *const specs[] = {
		"episodes=16,workers=2,k=2,accept=improve,init=best",
		"episodes=16,workers=2,k=2,accept=improve,init=best,sched=rank",
	};
	struct fixture f;
	fixture_init(&f, 4, 3);
	for (int si = 0; si < 2; si++) {
		struct pl_placer *pl = make(f.p, specs[si], 1, 3);
		struct pl_sim_opts o = { .kind = PL_SIM_NATIVE };
		struct pl_sim_ws *ws = pl_sim_ws_new(f.p);
		int undone = 0, kept = 0, episodes = 0;
		double best_before = INFINITY;
		enum pl_step_status st;
		double prev_prio[6];
		do {
			const struct pl_placement *cur = pl_placeto_current(pl);
			if (cur != NULL && cur->prio != NULL)
				memcpy(prev_prio, cur->prio, sizeof prev_prio);
			st = pl_placer_step(pl);
			int n;
			const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
			assert_non_null(d);
			const struct pl_placeto_decision *last = &d[n - 1];
			assert_true(last->after_s <= last->before_s);
			/* the current state (devices and priorities) is the one simulated */
			struct pl_sim_result cr;
			assert_int_equal(pl_sim_eval(ws, pl_placeto_current(pl), &o, &cr), 0);
			assert_true(cr.makespan_us == last->after_us);
			if (last->undone) {
				undone++;
				/* an undone move also restores the priorities */
				if (si == 1 && last->t > 0)
					assert_memory_equal(pl_placeto_current(pl)->prio, prev_prio, sizeof prev_prio);
				assert_true(last->tried_us >= last->before_us);
				assert_true(last->after_us == last->before_us);
				assert_true(last->reward == 0);
			} else {
				assert_true(last->tried_us == last->after_us);
				if (last->action != last->prev_dev) {
					assert_true(last->after_s < last->before_s);
					kept++;
				}
			}
			if (n == 6) {
				check_episode(d, n);
				/* init=best: an episode starts from the best run time so far */
				if (episodes > 0 && !d[0].greedy)
					assert_true(d[0].before_us <= best_before + 1e-9);
				for (int t = 0; t < n; t++)
					if (d[t].after_us < best_before)
						best_before = d[t].after_us;
				episodes++;
			}
		} while (st == PL_STEP_MORE);
		assert_null(pl->error);
		assert_true(undone > 0);
		assert_true(kept > 0);
		/* what the placer reports is a state it reached, and its placement
		 * (with priorities under sched=rank) simulates to it */
		assert_true(pl->best_res.makespan_us <= best_before + 1e-9);
		struct pl_sim_result r;
		assert_int_equal(pl_sim_eval(ws, pl->best, &o, &r), 0);
		assert_true(r.makespan_us == pl->best_res.makespan_us);
		assert_true((pl->best->prio != NULL) == (si == 1));
		pl_sim_ws_free(ws);
		pl_placer_free(pl);
	}
	fixture_free(&f);
}

/* edges=forward: backward ops colocated with their forward ops make the
 * grouped graph a cycle; as in the reference, every group on it is both an
 * ancestor and a descendant of the others ('c'), none parallel; the
 * forward view restores plain ancestors and descendants. */
static void
test_edges_forward(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("train-chain");
	static const char *const names[] = { "a", "b", "c", "c/grad", "b/grad", "a/grad" };
	static const char *const groups[] = { "a", "b", "c", "c", "b", "a" };
	for (int i = 0; i < 6; i++) {
		struct pl_op op = { .name = (char *)names[i], .type = "Op", .scope = "",
			.flops = 1e6, .out_bytes = 1000 };
		for (int q = 0; q < PL_DEV_KIND_COUNT; q++)
			op.measured_us[q] = -1;
		pl_graph_add_op(b, &op, groups[i]);
		if (i > 0)
			pl_graph_add_edge(b, i - 1, i, 0, 1000);
	}
	char *cause = NULL;
	struct pl_graph *g = pl_graph_build(b, &cause);
	assert_non_null(g);
	struct pl_cluster *c = cluster(2);
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_placer *all = make(p, "episodes=0", 1, 1);
	struct pl_placer *fwd = make(p, "episodes=0,edges=forward", 1, 1);
	assert_int_equal(pl_placeto_n_groups(all), 3);
	assert_int_equal(pl_placeto_n_groups(fwd), 3);
	const int *of = pl_placeto_group_of(fwd);
	int ga = of[0], gb = of[1], gc = of[2];
	assert_int_equal(pl_placeto_relation(all, ga, gc), 'c');
	assert_int_equal(pl_placeto_relation(all, gc, gb), 'c');
	assert_int_equal(pl_placeto_relation(all, gb, gc), 'c');
	assert_int_equal(pl_placeto_relation(all, gc, ga), 'c');
	/* one strongly connected component: visited by first op */
	assert_true(ga < gb && gb < gc);
	assert_int_equal(pl_placeto_relation(fwd, ga, gc), 'd');
	assert_int_equal(pl_placeto_relation(fwd, ga, gb), 'd');
	assert_int_equal(pl_placeto_relation(fwd, gc, ga), 'a');
	assert_int_equal(pl_placeto_relation(fwd, gb, gb), 0);
	pl_placer_free(all);
	pl_placer_free(fwd);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* An op for the small graphs below: 1 us everywhere, out_bytes, params. */
static void
add_op(struct pl_graph_builder *b, const char *name, const char *group, int64_t out,
    int64_t params)
{
	struct pl_op op = { .name = (char *)name, .type = "Op", .scope = "", .flops = 1e6,
		.out_bytes = out, .param_bytes = params };
	for (int q = 0; q < PL_DEV_KIND_COUNT; q++)
		op.measured_us[q] = -1;
	pl_graph_add_op(b, &op, group);
}

/* Episodes visit the grouped graph in a topological order: b0 comes
 * first in the list, but its group also holds b1, which waits for a; so a
 * goes first, then the group, then c.  With a parallel op p: it is
 * neither ancestor nor descendant of the others. */
static void
test_visit_topological(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("topo");
	add_op(b, "b0", "B", 100, 0);
	add_op(b, "a", "A", 100, 0);
	add_op(b, "b1", "B", 100, 0);
	add_op(b, "c", "C", 100, 0);
	add_op(b, "p", "P", 100, 0);
	pl_graph_add_edge(b, 1, 2, 0, 100);
	pl_graph_add_edge(b, 2, 3, 0, 100);
	struct pl_graph *g = build(b, "topo");
	struct pl_cluster *c = cluster(2);
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_placer *pl = make(p, "episodes=1,workers=1,k=1,groups=0", 1, 3);
	assert_int_equal(pl_placeto_n_groups(pl), 4);
	const int *of = pl_placeto_group_of(pl);
	int ga = of[1], gb = of[0], gc = of[3], gp = of[4];
	assert_int_equal(of[2], gb);
	while (pl_placer_step(pl) == PL_STEP_MORE) {
		int n;
		pl_placeto_decisions(pl, &n);
		if (n == 4)
			break;
	}
	int n;
	const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
	assert_int_equal(n, 4);
	int pos[4];
	for (int t = 0; t < 4; t++)
		pos[d[t].group] = t;
	assert_true(pos[ga] < pos[gb] && pos[gb] < pos[gc]);
	assert_int_equal(pl_placeto_relation(pl, gb, ga), 'a');
	assert_int_equal(pl_placeto_relation(pl, gb, gc), 'd');
	assert_int_equal(pl_placeto_relation(pl, gb, gp), 'p');
	assert_int_equal(pl_placeto_relation(pl, gp, gc), 'p');
	pl_placer_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* The state's columns: cost and output size divided by their column's
 * maximum; done counts the visits so far; current marks the node being
 * placed, whose start offset is 0. */
static void
test_state_features(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 6, 3);
	struct pl_placer *pl = make(f.p, "episodes=1,workers=1,k=1", 1, 9);
	int T = 5;
	for (int t = 0; t < T; t++)
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
	int n, d = pl_placeto_n_feat(pl);
	assert_int_equal(d, 5 + 3);
	const struct pl_placeto_decision *dec = pl_placeto_decisions(pl, &n);
	assert_int_equal(n, T);
	assert_null(pl_placeto_state(pl, T, &n));
	for (int t = 0; t < T; t++) {
		const float *x = pl_placeto_state(pl, t, &n);
		assert_non_null(x);
		assert_int_equal(n, 8);
		float mx[2] = { 0, 0 };
		for (int v = 0; v < n; v++) {
			const float *row = x + (size_t)v * d;
			for (int j = 0; j < 2; j++)
				if (row[j] > mx[j])
					mx[j] = row[j];
			int visited = 0;
			for (int u = 0; u < t; u++)
				visited += dec[u].group == v;
			assert_true(row[2] == (float)visited);
			assert_true(row[3] == (v == dec[t].group ? 1.0f : 0.0f));
		}
		assert_true(mx[0] == 1.0f && mx[1] == 1.0f);
		assert_true(x[(size_t)dec[t].group * d + 4] == 0.0f);
	}
	pl_placer_free(pl);
	fixture_free(&f);
}

/* Start offsets from the current node: divided by their maximum (the
 * reference), so a long op before it reads far below -1; under
 * start-norm=absmax divided by the largest |offset|, within [-1, 1].  A
 * chain s (100 us) -> x (1 us) -> y (1 us), at x's decision. */
static void
test_start_norm(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("chain");
	static const char *const names[] = { "s", "x", "y" };
	static const double flops[] = { 1e8, 1e6, 1e6 };
	for (int i = 0; i < 3; i++) {
		struct pl_op op = { .name = (char *)names[i], .type = "Op", .scope = "",
			.flops = flops[i], .out_bytes = 100 };
		for (int q = 0; q < PL_DEV_KIND_COUNT; q++)
			op.measured_us[q] = -1;
		pl_graph_add_op(b, &op, NULL);
		if (i > 0)
			pl_graph_add_edge(b, i - 1, i, 0, 100);
	}
	struct pl_graph *g = build(b, "chain");
	struct pl_cluster *c = cluster(2);
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	for (int absmax = 0; absmax < 2; absmax++) {
		struct pl_placer *pl = make(p, absmax ? "episodes=1,workers=1,k=1,groups=0,start-norm=absmax" :
		    "episodes=1,workers=1,k=1,groups=0", 1, 4);
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
		int n, d = pl_placeto_n_feat(pl);
		const float *x = pl_placeto_state(pl, 1, &n);
		assert_non_null(x);
		const int *of = pl_placeto_group_of(pl);
		assert_int_equal(pl_placeto_decisions(pl, &n)[1].group, of[1]);
		float s_off = x[(size_t)of[0] * d + 4], y_off = x[(size_t)of[2] * d + 4];
		assert_true(x[(size_t)of[1] * d + 4] == 0.0f);
		if (absmax) {
			assert_true(s_off == -1.0f);
			assert_true(y_off > 0 && y_off < 0.1f);
		} else {
			assert_true(y_off == 1.0f);
			assert_true(s_off < -10.0f);
		}
		pl_placer_free(pl);
	}
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* The baseline includes the current batch, as the reference: with one
 * episode per batch and no entropy bonus the first update's advantages
 * are all 0, however much the episode gained. */
static void
test_baseline_current(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 4, 3);
	struct pl_placer *pl = make(f.p, "episodes=2,workers=1,k=1,entropy=0", 1, 5);
	struct pl_placeto_stats ps;
	do {
		assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
		pl_placeto_get_stats(pl, &ps);
	} while (ps.updates == 0);
	int n;
	const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
	int moved = 0;
	for (int t = 0; t < n; t++)
		moved |= d[t].reward != 0;
	assert_true(moved);		/* returns that would have given a gradient */
	assert_true(ps.grad_norm == 0);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* The memory penalty reads the reference's peak memory (outputs only, no
 * parameters) unless penalty-mem=run, and the penalised run time is
 * capped at mem-cap. */
static void
test_mem_penalty(void **state)
{
	(void)state;
	struct pl_graph_builder *b = pl_graph_builder_new("heavy");
	add_op(b, "a", NULL, 1000, 1000000000);
	add_op(b, "b", NULL, 1000, 1000000000);
	add_op(b, "c", NULL, 1000, 1000000000);
	pl_graph_add_edge(b, 0, 1, 0, 1000);
	pl_graph_add_edge(b, 1, 2, 0, 1000);
	struct pl_graph *g = build(b, "heavy");
	struct pl_cluster *c = cluster(2);
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	/* the first state: everything on P0 */
	struct pl_placement *zero = pl_placement_new(p->n_ops, p->n_dev);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	static const char *const specs[] = {
		"episodes=1,workers=1,k=1,init=zero,mem-penalty=0.5,max-mem=0",
		"episodes=1,workers=1,k=1,init=zero,mem-penalty=0.5,max-mem=0,penalty-mem=run",
		"episodes=1,workers=1,k=1,init=zero,mem-penalty=0.5,max-mem=0,mem-cap=0.001",
	};
	static const enum pl_mem_model models[] = { PL_MEM_PLACETO, PL_MEM_NATIVE, PL_MEM_PLACETO };
	for (int i = 0; i < 3; i++) {
		struct pl_placer *pl = make(p, specs[i], 1, 2);
		int n;
		do
			assert_int_equal(pl_placer_step(pl), PL_STEP_MORE);
		while (pl_placeto_decisions(pl, &n) == NULL || n < 3);
		const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
		struct pl_sim_opts o = { PL_SIM_NATIVE, models[i] };
		struct pl_sim_result r;
		assert_int_equal(pl_sim_eval(ws, zero, &o, &r), 0);
		double over = (double)r.peak_max / 1e9 - 0;
		double R = r.makespan_us * 1e-6 + 0.5 * over;
		if (i == 2) {
			for (int t = 0; t < n; t++) {
				assert_true(d[t].before_s == 0.001 && d[t].after_s == 0.001);
				assert_true(d[t].reward == 0);
			}
		} else
			assert_true(d[0].before_s == R);
		if (i == 0)	/* outputs only: about 2 KB, not 3 GB of parameters */
			assert_true(r.peak_max < 10000);
		else if (i == 1)
			assert_true(r.peak_max >= 3000000000LL);
		pl_placer_free(pl);
	}
	pl_sim_ws_free(ws);
	pl_placement_free(zero);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* A fork where first-ready-first order is wrong: s -> a -> t and
 * s -> b1 -> b2 -> t, everything pinned to P0 except b2 (P1); a is listed
 * before b1, so FIFO runs the long a before b1, which b2 waits for. */
static struct pl_graph *
fork_graph(void)
{
	struct pl_graph_builder *b = pl_graph_builder_new("fork");
	static const char *const names[] = { "s", "a", "b1", "b2", "t" };
	static const double us[] = { 1, 10, 1, 10, 1 };
	for (int i = 0; i < 5; i++) {
		struct pl_dev_time dt[2] = { { "P0", us[i] }, { "P1", us[i] } };
		struct pl_op op = { .name = (char *)names[i], .type = "Op", .scope = "",
			.out_bytes = 100, .n_dev_times = 2, .dev_times = dt,
			.cons = { .kind = PL_CONS_DEVICE, .device = i == 3 ? "P1" : "P0" } };
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		pl_graph_add_op(b, &op, NULL);
	}
	static const int edges[5][2] = { { 0, 1 }, { 0, 2 }, { 2, 3 }, { 1, 4 }, { 3, 4 } };
	for (int i = 0; i < 5; i++)
		pl_graph_add_edge(b, edges[i][0], edges[i][1], 0, 100);
	return build(b, "fork");
}

/* sched=rank: the only placement of the fork runs b1 first and finishes
 * about 10 us earlier than under the reference's FIFO order; the result
 * carries the priorities it was simulated with. */
static void
test_sched_rank(void **state)
{
	(void)state;
	char *cause = NULL;
	struct pl_graph *g = fork_graph();
	struct pl_cluster *c = cluster(2);
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_placer *fifo = make(p, "episodes=2,workers=2,k=2", 1, 1);
	struct pl_placer *rank = make(p, "episodes=2,workers=2,k=2,sched=rank", 1, 1);
	pl_placer_run(fifo, 0, 0);
	pl_placer_run(rank, 0, 0);
	assert_null(fifo->error);
	assert_null(rank->error);
	assert_null(fifo->best->prio);
	assert_non_null(rank->best->prio);
	assert_true(rank->best->prio[2] > rank->best->prio[1]);	/* b1 before a */
	assert_true(fifo->best_res.makespan_us > 22);
	assert_true(rank->best_res.makespan_us < 14);
	/* the reported run time is the priorities' */
	struct pl_sim_opts o = { .kind = PL_SIM_NATIVE };
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_sim_result r;
	assert_int_equal(pl_sim_eval(ws, rank->best, &o, &r), 0);
	assert_true(r.makespan_us == rank->best_res.makespan_us);
	pl_sim_ws_free(ws);
	pl_placer_free(fifo);
	pl_placer_free(rank);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* The per-step log: a header and one row per decision. */
static void
test_history_csv(void **state)
{
	(void)state;
	struct fixture f;
	fixture_init(&f, 2, 2);
	struct pl_placer *pl = make(f.p, "episodes=2,workers=2,k=1", 1, 9);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	assert_int_equal(pl_placer_placeto.history_csv(pl, mf), 0);
	fclose(mf);
	int lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	assert_int_equal(lines, 1 + 3 * 4);	/* 2 training + 1 greedy, 4 groups each */
	assert_true(strncmp(buf, "episode,worker,step,greedy,group", 32) == 0);
	free(buf);
	pl_placer_free(pl);
	fixture_free(&f);
}

/* The multi-graph trainer: round-robin episodes, learning-curve logs, a
 * greedy run per graph, and a saved policy usable by the placer. */
static void
test_trainer(void **state)
{
	(void)state;
	struct fixture a, b;
	fixture_init(&a, 3, 3);
	fixture_init(&b, 5, 3);
	const struct pl_problem *probs[2] = { a.p, b.p };
	struct pl_options *o = NULL;
	char *cause = NULL;
	assert_int_equal(pl_options_parse(pl_placeto_options,
	    "episodes=6,workers=3,k=2,mp=mean,pool=mean,reward=relative,entropy=0.01", &o, &cause), 0);
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = 4, .threads = 2 };
	struct pl_placeto_trainer *tr = pl_placeto_trainer_new(probs, 2, o, &run, &cause);
	assert_non_null(tr);
	struct pl_placeto_episode_log logs[3];
	int n, graphs[2] = { 0, 0 };
	for (int batch = 0; batch < 2; batch++) {
		assert_int_equal(pl_placeto_trainer_batch(tr, logs, &n, &cause), 0);
		assert_int_equal(n, 3);
		for (int i = 0; i < n; i++) {
			assert_int_equal(logs[i].episode, batch * 3 + i);
			assert_int_equal(logs[i].graph, (batch * 3 + i) % 2);
			assert_true(logs[i].best_us <= logs[i].init_us && logs[i].best_us <= logs[i].final_us);
			assert_true(fabs(logs[i].ret - (logs[i].init_us - logs[i].final_us) / logs[i].init_us) < 1e-9);
			graphs[logs[i].graph]++;
		}
	}
	assert_int_equal(graphs[0], 3);
	assert_int_equal(graphs[1], 3);
	struct pl_placeto_stats st;
	pl_placeto_trainer_stats(tr, &st);
	assert_int_equal(st.episodes, 6);
	assert_int_equal(st.updates, 2);
	for (int i = 0; i < 2; i++) {
		double ms;
		assert_int_equal(pl_placeto_trainer_greedy(tr, i, &ms, NULL, &cause), 0);
		assert_true(ms >= pl_placeto_trainer_best(tr, i));
	}
	char dir[] = "/tmp/test-placeto-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = pl_xasprintf("%s/t.plw", dir);
	assert_int_equal(pl_placeto_trainer_save(tr, path, "note=1", &cause), 0);
	char *spec = pl_xasprintf("policy=%s", path);
	struct pl_placer *pl = make(a.p, spec, 1, 4);
	assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
	assert_int_equal(pl->n_steps, pl_placeto_n_groups(pl));
	pl_placer_free(pl);
	free(spec);
	unlink(path);
	free(path);
	rmdir(dir);
	pl_placeto_trainer_free(tr);
	pl_options_free(o);
	fixture_free(&a);
	fixture_free(&b);
}

/* A chain of n ops, each faster on P1 than on P0, with tensors of `bytes`
 * (1 us per 1000 bytes on the test cluster); pinned >= 0: that op may
 * run on P0 only; ops ca and cb (when >= 0) share a colocation group. */
static struct pl_graph *
chain_graph(int n, double us0, double us1, int64_t bytes, int pinned, int ca, int cb)
{
	struct pl_graph_builder *b = pl_graph_builder_new("chain");
	for (int i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "c%d", i);
		struct pl_dev_time dt[3] = { { "P0", us0 }, { "P1", us1 }, { "P2", us1 } };
		struct pl_op op = { .name = name, .type = "Op", .scope = "",
			.out_bytes = bytes, .n_dev_times = 3, .dev_times = dt };
		if (i == pinned)
			op.cons = (struct pl_constraint){ .kind = PL_CONS_DEVICE, .device = "P0" };
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
			op.measured_us[k] = -1;
		pl_graph_add_op(b, &op, i == ca || i == cb ? "pair" : NULL);
		if (i > 0)
			pl_graph_add_edge(b, i - 1, i, 0, bytes);
	}
	/* a side branch c1 -> c(n-2) keeps the grouped graph from being a path */
	if (n > 4)
		pl_graph_add_edge(b, 1, n - 2, 0, bytes);
	return build(b, "chain");
}

/* A baseline whose rings of returns (a double per node per episode kept)
 * would pass the limit (1 GiB) is refused with the largest that fits,
 * where it aborted asking for terabytes; one that fits runs. */
static void
test_baseline_limit(void **state)
{
	(void)state;
	struct pl_graph *g = chain_graph(10, 10, 5, 100, -1, -1, -1);
	struct pl_cluster *c = cluster(3);
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = 1, .threads = 1 };
	assert_null(pl_placer_new(&pl_placer_placeto, p, "baseline=2147483647", &run, &cause));
	assert_non_null(cause);
	/* 10 nodes: 84 bytes an episode, 1 GiB / 84 = 12782640 */
	assert_non_null(strstr(cause, "placeto: baseline=2147483647 keeps that many episodes' returns"));
	assert_non_null(strstr(cause, "(168.0 GiB for this graph), more than the limit of 1 GiB"));
	assert_non_null(strstr(cause, "use baseline=12782640 or fewer"));
	free(cause);
	cause = NULL;
	/* the trainer too, over two graphs */
	struct pl_options *o = NULL;
	assert_int_equal(pl_options_parse_ranged(pl_placeto_options, pl_placeto_ranges,
	    "baseline=100000000", &o, &cause), 0);
	const struct pl_problem *probs[2] = { p, p };
	assert_null(pl_placeto_trainer_new(probs, 2, o, &run, &cause));
	assert_non_null(strstr(cause, "for these graphs"));
	assert_non_null(strstr(cause, "use baseline=6391320 or fewer"));
	free(cause);
	pl_options_free(o);
	struct pl_placer *pl = make(p, "baseline=12782640,episodes=4", 1, 1);
	assert_non_null(pl);
	pl_placer_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* Nodes whose square would take more than the limit (2 GiB: each of the
 * `workers` episodes keeps nodes x nodes x features floats) are refused
 * before anything is allocated for them, with a message naming the need,
 * the limit and the options that lower it; a group budget is accepted. */
static void
test_square_limit(void **state)
{
	(void)state;
	/* 6000 nodes, 8 features, 4 workers: 4.4 GiB */
	struct pl_graph *g = chain_graph(6000, 10, 5, 100, -1, -1, -1);
	struct pl_cluster *c = cluster(3);
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = 1, .threads = 1 };
	assert_null(pl_placer_new(&pl_placer_placeto, p, "groups=0", &run, &cause));
	assert_non_null(cause);
	assert_non_null(strstr(cause, "placeto: graph 'chain': 6000 grouped nodes need 4.393 GiB"));
	assert_non_null(strstr(cause, "more than the limit of 2 GiB"));
	/* 131 bytes a node squared: 3 of relations, 4 x 8 floats */
	assert_non_null(strstr(cause, "use groups=4048 or fewer"));
	assert_non_null(strstr(cause, "fewer 'workers'"));
	assert_null(strchr(cause, '\n'));
	free(cause);
	cause = NULL;
	/* the trainer too */
	struct pl_options *o = NULL;
	assert_int_equal(pl_options_parse_ranged(pl_placeto_options, pl_placeto_ranges, "groups=0",
	    &o, &cause), 0);
	const struct pl_problem *probs[1] = { p };
	assert_null(pl_placeto_trainer_new(probs, 1, o, &run, &cause));
	assert_non_null(strstr(cause, "6000 grouped nodes need"));
	free(cause);
	pl_options_free(o);
	/* a group budget caps the nodes */
	struct pl_placer *pl = make(p, "groups=128", 1, 1);
	assert_true(pl_placeto_n_groups(pl) <= 128);
	pl_placer_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* The status marks a best placement that does not fit in memory with
 * "(OOM)", in training and when done, and a fitting one without. */
static void
test_status_oom(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		/* 3 GiB tensors on 1 GiB devices: no placement fits */
		struct pl_graph *g = chain_graph(6, 10, 5, big ? (int64_t)3 << 30 : 100, -1, -1, -1);
		struct pl_cluster *c = cluster(3);
		char *cause = NULL;
		struct pl_problem *p = pl_problem_new(g, c, &cause);
		assert_non_null(p);
		struct pl_placer *pl = make(p, "episodes=4,workers=2,k=2", 1, 1);
		int training = 0;	/* training statuses: one a batch */
		char last[256] = "";
		while (pl_placer_step(pl) == PL_STEP_MORE)
			if (strncmp(pl->status, "episode ", 8) == 0 && strcmp(pl->status, last) != 0) {
				snprintf(last, sizeof last, "%s", pl->status);
				training++;
				assert_int_equal(strstr(pl->status, " us (OOM), entropy") != NULL, big);
				assert_int_equal(strstr(pl->status, "(OOM)") != NULL, big);
			}
		assert_int_equal(training, 2);
		assert_null(pl->error);
		assert_int_equal(pl->best_res.oom_mask != 0, big);
		assert_int_equal(strncmp(pl->status, "done: ", 6), 0);
		size_t n = strlen(pl->status);
		assert_true(n > 6);
		assert_int_equal(strcmp(pl->status + n - 6, " (OOM)") == 0, big);
		assert_int_equal(strstr(pl->status, "(OOM)") != NULL, big);
		pl_placer_free(pl);
		pl_problem_free(p);
		pl_cluster_free(c);
		pl_graph_free(g);
	}
}

/* Whether grouped nodes u and v share a graph edge. */
static int
nodes_adjacent(const struct pl_graph *g, const int *of, int u, int v)
{
	for (int i = 0; i < g->n_edges; i++) {
		int a = of[g->edges[i].src], z = of[g->edges[i].dst];
		if ((a == u && z == v) || (a == v && z == u))
			return 1;
	}
	return 0;
}

/* The 9-op chain of the escape tests (c5 pinned to P0, c2 and c3 one
 * group) on 3 devices. */
static void
escape_fixture(struct fixture *f)
{
	char *cause = NULL;
	f->g = chain_graph(9, 10, 6, 500, 5, 2, 3);
	f->c = cluster(3);
	f->p = pl_problem_new(f->g, f->c, &cause);
	assert_non_null(f->p);
}

/* escape=grow: a move takes the current node and up to escape-max nodes
 * connected to it through nodes on its device, never a node that may not
 * run on the target device, always whole colocation groups; an undone
 * move restores every node it took; the rewards still sum to each
 * episode's improvement; without the option every move takes one node. */
static void
test_escape_grow(void **state)
{
	(void)state;
	char *cause = NULL;
	struct fixture f;
	escape_fixture(&f);
	const struct pl_graph *g = f.g;
	const struct pl_problem *p = f.p;
	static const char *const specs[] = {
		"episodes=40,workers=2,k=1,accept=improve,init=best,escape=grow,escape-after=0,escape-max=4",
		"episodes=40,workers=2,k=1,accept=improve,init=best",
	};
	int *before = pl_xcalloc((size_t)g->n_ops, sizeof(int));
	for (int si = 0; si < 2; si++) {
		struct pl_placer *pl = make(p, specs[si], 1, 2);
		int n_nodes = pl_placeto_n_groups(pl);
		assert_int_equal(n_nodes, 8);	/* c2 and c3 are one node */
		const int *of = pl_placeto_group_of(pl);
		assert_int_equal(of[2], of[3]);
		int big_kept = 0, big_tried = 0, episodes = 0;
		enum pl_step_status st;
		do {
			const struct pl_placement *cur = pl_placeto_current(pl);
			int have = cur != NULL;
			if (have)
				memcpy(before, cur->dev, (size_t)g->n_ops * sizeof(int));
			st = pl_placer_step(pl);
			int n;
			const struct pl_placeto_decision *d = pl_placeto_decisions(pl, &n);
			const struct pl_placeto_decision *last = &d[n - 1];
			const int *now = pl_placeto_current(pl)->dev;
			/* the pinned op never leaves P0; a group stays together */
			assert_int_equal(now[5], 0);
			assert_int_equal(now[2], now[3]);
			assert_true(last->moved <= (si == 0 ? 4 : 1));
			if (last->action != last->prev_dev)
				assert_true(last->moved >= 1);
			else
				assert_int_equal(last->moved, 0);
			if (last->moved > 1)
				big_tried++;
			if (n == n_nodes) {
				check_episode(d, n);
				episodes++;
			}
			if (!have || last->t == 0)
				continue;	/* the step also started an episode */
			if (last->undone) {
				assert_memory_equal(now, before, (size_t)g->n_ops * sizeof(int));
				continue;
			}
			/* the nodes that changed: the move's, all from prev_dev to action */
			int changed[16], nc = 0;
			for (int v = 0; v < n_nodes; v++) {
				int nops;
				const int *ops = pl_placeto_group_ops(pl, v, &nops);
				if (now[ops[0]] != before[ops[0]]) {
					assert_int_equal(before[ops[0]], last->prev_dev);
					assert_int_equal(now[ops[0]], last->action);
					changed[nc++] = v;
				}
			}
			assert_int_equal(nc, last->moved);
			if (nc > 0) {
				int has_cur = 0;
				for (int i = 0; i < nc; i++)
					has_cur |= changed[i] == last->group;
				assert_true(has_cur);
			}
			/* connected: every changed node but one touches another */
			for (int i = 0; i < nc && nc > 1; i++) {
				int touches = 0;
				for (int j = 0; j < nc; j++)
					touches |= j != i && nodes_adjacent(g, of, changed[i], changed[j]);
				assert_true(touches);
			}
			if (nc > 1)
				big_kept++;
		} while (st == PL_STEP_MORE);
		assert_null(pl->error);
		assert_true(episodes > 10);
		if (si == 0) {
			assert_true(big_tried > 0);
			assert_true(big_kept > 0);
		} else
			assert_int_equal(big_tried, 0);
		pl_placer_free(pl);
	}
	free(before);
	/* an unknown value and a size below 2 are refused */
	struct pl_run_opts run = { .sim = { .kind = PL_SIM_NATIVE }, .seed = 1, .threads = 1 };
	assert_null(pl_placer_new(&pl_placer_placeto, p, "escape=jump", &run, &cause));
	assert_non_null(strstr(cause, "escape"));
	free(cause);
	assert_null(pl_placer_new(&pl_placer_placeto, p, "escape=grow,escape-max=1", &run, &cause));
	assert_non_null(strstr(cause, "escape-max"));
	free(cause);
	fixture_free(&f);
}

/* The per-step log of a run as a string (caller frees). */
static char *
history_of(const struct pl_placer *pl, size_t *len)
{
	char *buf = NULL;
	FILE *mf = open_memstream(&buf, len);
	assert_int_equal(pl_placer_placeto.history_csv(pl, mf), 0);
	fclose(mf);
	return buf;
}

/* escape=grow is deterministic for a seed: 1 and 2 threads give the same
 * decisions (moves that took several nodes included) and the same policy. */
static void
test_escape_deterministic(void **state)
{
	(void)state;
	char *cause = NULL;
	struct fixture f;
	escape_fixture(&f);
	const char *spec = "episodes=24,workers=3,k=2,accept=improve,init=best,escape=grow,escape-after=1";
	char dir[] = "/tmp/test-placeto-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *log[3], *paths[2];
	size_t len[3];
	for (int k = 0; k < 3; k++) {
		struct pl_placer *pl = make(f.p, spec, k == 1 ? 2 : 1, k == 2 ? 8 : 7);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		log[k] = history_of(pl, &len[k]);
		if (k < 2)
			paths[k] = save_policy(pl, dir, k ? "b.plw" : "a.plw");
		pl_placer_free(pl);
	}
	assert_int_equal(len[0], len[1]);
	assert_memory_equal(log[0], log[1], len[0]);
	/* moves that took several nodes happened (last column: moved) */
	int big = 0;
	for (const char *q = log[0]; (q = strchr(q, '\n')) != NULL; q++)
		big += q > log[0] && q[-1] >= '2' && q[-1] <= '9' && q[-2] == ',';
	assert_true(big > 0);
	/* another seed decides otherwise */
	assert_true(len[2] != len[0] || memcmp(log[0], log[2], len[0]) != 0);
	size_t la, lb;
	char *a = pl_file_read(paths[0], &la, &cause), *b = pl_file_read(paths[1], &lb, &cause);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	for (int k = 0; k < 3; k++)
		free(log[k]);
	for (int k = 0; k < 2; k++) {
		unlink(paths[k]);
		free(paths[k]);
	}
	assert_int_equal(rmdir(dir), 0);
	fixture_free(&f);
}

/* A local optimum of single moves: a chain of 4 ops, 10 us on P0 and 6 us
 * on P1, with transfers of 5 us.  All on P0 (40 us) beats every placement
 * one move away (41 us or more), yet all on P1 runs in 24 us.  Starting
 * from P0 (init=zero) the plain local search never leaves it; escape=grow
 * moves two connected ops at once and reaches the optimum. */
static void
test_escape_local_optimum(void **state)
{
	(void)state;
	char *cause = NULL;
	struct pl_graph *g = chain_graph(4, 10, 6, 5000, -1, -1, -1);
	struct pl_cluster *c = cluster(2);
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	struct pl_sim_opts o = { .kind = PL_SIM_NATIVE };
	double best = brute_force(p, &o);
	assert_true(fabs(best - 24) < 1e-6);
	static const char *const specs[] = {
		"episodes=24,workers=2,k=1,accept=improve,init=zero",
		"episodes=24,workers=2,k=1,accept=improve,init=zero,escape=grow",
	};
	for (int si = 0; si < 2; si++) {
		struct pl_placer *pl = make(p, specs[si], 1, 3);
		assert_int_equal(pl_placer_run(pl, 0, 0), PL_STEP_DONE);
		assert_null(pl->error);
		if (si == 0 && fabs(pl->best_res.makespan_us - 40) > 1e-6)
			fail_msg("plain local search: %.3f us, expected to stay at 40 us", pl->best_res.makespan_us);
		if (si == 1 && fabs(pl->best_res.makespan_us - best) > 1e-6)
			fail_msg("escape=grow: %.3f us, the optimum is %.3f us", pl->best_res.makespan_us, best);
		pl_placer_free(pl);
	}
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewards_sum),
		cmocka_unit_test(test_episode_log),
		cmocka_unit_test(test_episodes_exact),
		cmocka_unit_test(test_lr_configured),
		cmocka_unit_test(test_training_finds_best),
		cmocka_unit_test(test_threads_deterministic),
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_grouped_rows),
		cmocka_unit_test(test_square_limit),
		cmocka_unit_test(test_baseline_limit),
		cmocka_unit_test(test_status_oom),
		cmocka_unit_test(test_accept_improve),
		cmocka_unit_test(test_edges_forward),
		cmocka_unit_test(test_visit_topological),
		cmocka_unit_test(test_state_features),
		cmocka_unit_test(test_start_norm),
		cmocka_unit_test(test_baseline_current),
		cmocka_unit_test(test_mem_penalty),
		cmocka_unit_test(test_sched_rank),
		cmocka_unit_test(test_history_csv),
		cmocka_unit_test(test_trainer),
		cmocka_unit_test(test_escape_grow),
		cmocka_unit_test(test_escape_deterministic),
		cmocka_unit_test(test_escape_local_optimum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
