/*
 * bench-placeto — Placeto's throughput and sample efficiency.
 *
 *  1. MDP decisions per second and episodes per second on 4-layer NMT
 *     (grouped to 128 nodes) and on a family graph, with 1 and 2 threads.
 *  2. Placements sampled (simulated) until Placeto, training from scratch,
 *     is within 5% of the best placement that the quick placelab methods
 *     find (HEFT, expert, m-TOPO, m-ETF, Scotch, ...), for 4-layer NMT and
 *     Inception-V3 on k80x4 (4 GPUs + CPU); capped at --max-episodes.
 *
 * Prints figures only; timings on a shared machine are noisy.
 * Usage: bench-placeto [--max-episodes N] [--quick] [--spec OPTIONS]
 *   --spec runs only the efficiency part, with that one option set.
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
#include "placers/placeto.h"
#include "problem.h"
#include "xmalloc.h"

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
		struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 2 };
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

/* Placements until within 5% of target, for one option set. */
static void
samples_to_target(const struct pl_problem *p, double target, const char *spec,
    long max_episodes)
{
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 2 };
	char *cause = NULL;
	char *full = pl_xasprintf("%s%sepisodes=%ld", spec, *spec ? "," : "", max_episodes);
	struct pl_placer *pl = pl_placer_new(&pl_placer_placeto, p, full, &run, &cause);
	if (pl == NULL) {
		printf("    %s: %s\n", full, cause);
		free(cause);
		free(full);
		return;
	}
	double t0 = now_s();
	long hit = -1;
	while (pl_placer_step(pl) == PL_STEP_MORE) {
		if (pl->best != NULL && pl->best_res.oom_mask == 0 &&
		    pl->best_res.makespan_us <= 1.05 * target) {
			hit = pl->evals;
			break;
		}
	}
	if (hit < 0 && pl->best != NULL && pl->best_res.makespan_us <= 1.05 * target)
		hit = pl->evals;
	if (hit >= 0)
		printf("    %-48s %8ld placements (%.1f s)  best %.3f ms\n", full, hit, now_s() - t0,
		    pl->best_res.makespan_us / 1000);
	else
		printf("    %-48s not within 5%% after %ld placements (%.1f s); best %.3f ms (%+.1f%%)\n",
		    full, pl->evals, now_s() - t0, pl->best_res.makespan_us / 1000,
		    (pl->best_res.makespan_us / target - 1) * 100);
	pl_placer_free(pl);
	free(full);
}

/* Sample efficiency on one graph (spec NULL: the three option sets). */
static void
efficiency(const char *rel, const struct pl_cluster *c, long max_episodes,
    const char *spec)
{
	struct pl_graph *g = load(rel);
	if (g == NULL)
		return;
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	const char *who = "?";
	double target = best_any(p, &who);
	printf("  %s on %s: best of the quick methods %.3f ms (%s); target %.3f ms\n", g->name, c->name,
	    target / 1000, who, 1.05 * target / 1000);
	if (spec != NULL) {
		samples_to_target(p, target, spec, max_episodes);
	} else {
		samples_to_target(p, target, "", max_episodes);
		samples_to_target(p, target, "mp=mean,pool=mean,reward=relative,entropy=0.01", max_episodes);
		samples_to_target(p, target, "mp=mean,pool=mean,reward=relative,entropy=0.01,init=best", max_episodes);
	}
	pl_problem_free(p);
	pl_graph_free(g);
}

int
main(int argc, char **argv)
{
	long max_episodes = 60;
	int quick = 0;
	const char *spec = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--max-episodes") == 0 && i + 1 < argc)
			max_episodes = atol(argv[++i]);
		else if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--spec") == 0 && i + 1 < argc)
			spec = argv[++i];
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
		printf("Placements until within 5%% of the best quick method (cap %ld episodes):\n", max_episodes);
		efficiency("samples/nmt4.json", c, max_episodes, spec);
		efficiency("samples/inception_v3.json", c, max_episodes, spec);
	}
	pl_cluster_free(c);
	return 0;
}
