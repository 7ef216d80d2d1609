/*
 * bench-placeto — Placeto's throughput and sample efficiency.
 *
 *  1. MDP decisions per second and episodes per second on 4-layer NMT
 *     (grouped to 128 nodes) and on a family graph, with 1 and 2 threads.
 *  2. Placements sampled (simulated) until Placeto, training from scratch,
 *     is within 5% of (a) the best of the quick placelab methods (HEFT,
 *     expert, m-TOPO, m-ETF, Scotch, ...) and (b) the best placelab finds by
 *     any method here (also BRKGA warm-started from HEFT and the expert, and
 *     the Placeto runs themselves), for 4-layer NMT and Inception-V3 on
 *     k80x4 (4 GPUs + CPU), for the reference options, the improved ones,
 *     policy-guided local search (accept=improve, init=best), the same
 *     with an untrained policy (lr=0: what the learning adds), and the
 *     improved options and the local search with each placement scheduled
 *     by upward rank (sched=rank), and the local search with moves that
 *     take connected nodes along once the best stalls (escape=grow), with
 *     4 and with 1 episode per update; capped at --max-episodes.
 *
 * Prints figures only; timings on a shared machine are noisy.
 * Usage: bench-placeto [--max-episodes N] [--quick] [--spec OPTIONS] [--graph SAMPLE]
 *                      [--threads N] [--seed N] [--known-best MS]
 *   --spec runs only the efficiency part, with that one option set;
 *   --graph (e.g. samples/inception_v3.json) only that graph's;
 *   --threads sets the efficiency runs' threads (2; results do not depend on it);
 *   --seed their seed (1); --known-best MS adds a run time found elsewhere
 *   (e.g. by another seed) to the "best by any method".
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "placer.h"
#include "placers/brkga.h"
#include "placers/placeto.h"
#include "problem.h"
#include "xmalloc.h"

static int bench_threads = 2;	/* --threads of the efficiency runs */
static uint64_t bench_seed = 1;	/* --seed of the efficiency runs */
static double known_best_us = INFINITY;	/* --known-best: a best found elsewhere */

/* Monotonic seconds. */
static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Load a sample from the build tree or the source tree. */
static struct pl_graph *
load(const char *rel)
{
	char *cause = NULL;
	char *path = pl_xasprintf("%s/%s", PL_BUILDDIR, rel);
	if (access(path, R_OK) != 0) {
		free(path);
		path = pl_xasprintf("%s/%s", PL_SRCDIR, rel);
	}
	struct pl_graph *g = pl_graph_load_json(path, &cause);
	if (g == NULL) {
		printf("  (skipped: %s)\n", cause);
		free(cause);
	}
	free(path);
	return g;
}

/* Decisions and episodes per second. */
static void
throughput(const char *rel, const struct pl_cluster *c)
{
	struct pl_graph *g = load(rel);
	if (g == NULL)
		return;
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	for (int threads = 1; threads <= 2; threads++) {
		struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = threads };
		struct pl_placer *pl = pl_placer_new(&pl_placer_placeto, p, "episodes=8,workers=4", &run, &cause);
		if (pl == NULL) {
			printf("  %s: %s\n", rel, cause);
			free(cause);
			break;
		}
		int groups = pl_placeto_n_groups(pl);
		double t0 = now_s();
		struct pl_placeto_stats st;
		do {
			pl_placer_step(pl);
			pl_placeto_get_stats(pl, &st);
		} while (st.phase == 0);
		double dt = now_s() - t0;
		printf("  %-28s %5d ops %4d groups  %d thread%s: %8.0f decisions/s  %6.2f episodes/s  (%ld placements in %.2f s)\n",
		    g->name, g->n_ops, groups, threads, threads > 1 ? "s" : " ",
		    (double)st.episodes * groups / dt, st.episodes / dt, pl->evals, dt);
		pl_placer_free(pl);
	}
	pl_problem_free(p);
	pl_graph_free(g);
}

/* Best makespan over the quick methods. */
static double
best_any(const struct pl_problem *p, const char **who)
{
	double best = INFINITY;
	for (int i = 0; pl_placer_classes[i] != NULL; i++) {
		const struct pl_placer_class *cls = pl_placer_classes[i];
		if (!cls->quick)
			continue;
		struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = bench_seed, .threads = bench_threads };
		char *cause = NULL;
		struct pl_placer *pl = pl_placer_new(cls, p, NULL, &run, &cause);
		if (pl == NULL) {
			free(cause);
			continue;
		}
		pl_placer_run(pl, 0, 30);
		if (pl->best != NULL && pl->best_res.oom_mask == 0 && pl->best_res.makespan_us < best) {
			best = pl->best_res.makespan_us;
			*who = cls->name;
		}
		pl_placer_free(pl);
	}
	return best;
}

/* Best makespan of one run of class cls with options spec (INFINITY if none). */
static double
best_of(const struct pl_problem *p, const struct pl_placer_class *cls, const char *spec)
{
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = bench_seed, .threads = bench_threads };
	char *cause = NULL;
	struct pl_placer *pl = pl_placer_new(cls, p, spec, &run, &cause);
	if (pl == NULL) {
		printf("    %s %s: %s\n", cls->name, spec, cause);
		free(cause);
		return INFINITY;
	}
	pl_placer_run(pl, 0, 0);
	double b = pl->best != NULL && pl->best_res.oom_mask == 0 ? pl->best_res.makespan_us : INFINITY;
	pl_placer_free(pl);
	return b;
}

/* A training run's best-so-far curve: placements at each improvement. */
struct curve {
	char *spec;
	long n, cap, evals;
	long *at;
	double *best;
	double secs;
};

/* Train Placeto with options spec up to the cap, recording the curve. */
static void
run_curve(const struct pl_problem *p, const char *spec, long max_episodes, struct curve *cv)
{
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = bench_seed, .threads = bench_threads };
	char *cause = NULL;
	memset(cv, 0, sizeof *cv);
	cv->spec = pl_xasprintf("%s%sepisodes=%ld", spec, *spec ? "," : "", max_episodes);
	struct pl_placer *pl = pl_placer_new(&pl_placer_placeto, p, cv->spec, &run, &cause);
	if (pl == NULL) {
		printf("    %s: %s\n", cv->spec, cause);
		free(cause);
		return;
	}
	double t0 = now_s(), last = INFINITY;
	for (;;) {
		enum pl_step_status st = pl_placer_step(pl);
		if (pl->best != NULL && pl->best_res.oom_mask == 0 && pl->best_res.makespan_us < last) {
			last = pl->best_res.makespan_us;
			if (cv->n == cv->cap) {
				cv->cap = cv->cap ? 2 * cv->cap : 64;
				cv->at = pl_xreallocarray(cv->at, (size_t)cv->cap, sizeof *cv->at);
				cv->best = pl_xreallocarray(cv->best, (size_t)cv->cap, sizeof *cv->best);
			}
			cv->at[cv->n] = pl->evals;
			cv->best[cv->n++] = last;
		}
		if (st != PL_STEP_MORE)
			break;
	}
	cv->evals = pl->evals;
	cv->secs = now_s() - t0;
	pl_placer_free(pl);
}

/* Placements until the curve is within 5% of target, or -1. */
static long
placements_to(const struct curve *cv, double target)
{
	for (long i = 0; i < cv->n; i++)
		if (cv->best[i] <= 1.05 * target)
			return cv->at[i];
	return -1;
}

/* One cell of the table: placements to target, or the gap at the cap. */
static void
print_cell(const struct curve *cv, double target)
{
	long hit = placements_to(cv, target);
	double fin = cv->n > 0 ? cv->best[cv->n - 1] : INFINITY;
	if (hit >= 0)
		printf(" %8ld", hit);
	else
		printf("  never (%+.0f%%)", (fin / target - 1) * 100);
}

/*
 * Sample efficiency on one graph.  Two targets: the best of the quick
 * methods, and the best placelab finds by any method here (the quick
 * methods, BRKGA warm-started from HEFT and the expert, and every Placeto
 * run of this benchmark, whose final bests are known once all have run).
 */
static void
efficiency(const char *rel, const struct pl_cluster *c, long max_episodes,
    const char *spec)
{
	static const char *const sets[] = {
		"",
		"mp=mean,pool=mean,reward=relative,entropy=0.01",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,init=best",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,lr=0,lr-end=0",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,sched=rank",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,sched=rank",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,escape=grow",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,workers=1",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,workers=1,escape=grow",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,workers=1,escape=grow,lr=0,lr-end=0",
		"mp=mean,pool=mean,reward=relative,entropy=0.01,accept=improve,init=best,sched=rank,workers=1,escape=grow",
	};
	struct pl_graph *g = load(rel);
	if (g == NULL)
		return;
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	const char *who = "?";
	double quick = best_any(p, &who);
	double brkga = best_of(p, &pl_placer_brkga, "seed-from=heft+expert,evals=5000,seconds=0");
	int n = spec != NULL ? 1 : (int)(sizeof sets / sizeof sets[0]);
	struct curve cv[sizeof sets / sizeof sets[0]];
	double any = quick < brkga ? quick : brkga;
	if (known_best_us < any)
		any = known_best_us;
	for (int i = 0; i < n; i++) {
		run_curve(p, spec != NULL ? spec : sets[i], max_episodes, &cv[i]);
		if (cv[i].n > 0 && cv[i].best[cv[i].n - 1] < any)
			any = cv[i].best[cv[i].n - 1];
	}
	printf("  %s on %s: best quick method %.3f ms (%s); BRKGA from heft+expert %.3f ms; "
	    "best by any method %.3f ms\n", g->name, c->name, quick / 1000, who, brkga / 1000, any / 1000);
	printf("    %-120s %10s %10s %9s %8s\n", "options", "to quick", "to any", "final ms", "s");
	for (int i = 0; i < n; i++) {
		printf("    %-120s", cv[i].spec);
		print_cell(&cv[i], quick);
		print_cell(&cv[i], any);
		printf(" %9.3f %8.1f\n", cv[i].n > 0 ? cv[i].best[cv[i].n - 1] / 1000 : INFINITY, cv[i].secs);
		free(cv[i].spec);
		free(cv[i].at);
		free(cv[i].best);
	}
	pl_problem_free(p);
	pl_graph_free(g);
}

int
main(int argc, char **argv)
{
	long max_episodes = 300;
	int quick = 0;
	const char *spec = NULL, *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--max-episodes") == 0 && i + 1 < argc)
			max_episodes = atol(argv[++i]);
		else if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--spec") == 0 && i + 1 < argc)
			spec = argv[++i];
		else if (strcmp(argv[i], "--graph") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			bench_seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--known-best") == 0 && i + 1 < argc)
			known_best_us = atof(argv[++i]) * 1000;
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			bench_threads = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
		else {	/* a typo must not start the hour-long default run */
			int help = strcmp(argv[i], "--help") == 0;
			fprintf(help ? stdout : stderr, "%s%s%s"
			    "usage: bench-placeto [--max-episodes N] [--quick] [--spec OPTIONS] [--graph SAMPLE]\n"
			    "                     [--threads N] [--seed N] [--known-best MS]\n",
			    help ? "" : "bench-placeto: ", help ? "" : argv[i],
			    help ? "" : ": unknown argument, or its value is missing\n");
			return help ? 0 : 2;
		}
	}
	char *cause = NULL;
	struct pl_cluster *c = pl_cluster_preset("k80x4");
	if (c == NULL) {
		fprintf(stderr, "bench-placeto: no k80x4 preset: %s\n", cause != NULL ? cause : "");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (spec == NULL) {
		printf("Placeto throughput (native simulator, k80x4, 4 workers; shared machine, noisy):\n");
		throughput("samples/nmt4.json", c);
		throughput("samples/families/nmt/nmt-00.json", c);
		throughput("samples/families/enas-rnn/enas-rnn-00.json", c);
	}
	if (!quick) {
		printf("Placements simulated until within 5%% of a target (\"never\": the gap at the cap of %ld episodes):\n", max_episodes);
		if (only != NULL)
			efficiency(only, c, max_episodes, spec);
		else {
			efficiency("samples/nmt4.json", c, max_episodes, spec);
			efficiency("samples/inception_v3.json", c, max_episodes, spec);
		}
	}
	pl_cluster_free(c);
	return 0;
}
