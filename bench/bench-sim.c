/*
 * bench-sim — how fast the lean simulator path is (make bench).
 *
 *  - placeto model on a random DAG of 2,000 ops / ~2,800 edges on 4
 *    devices: us per evaluation, of random placements and of placements
 *    that change one op at a time (as Placeto's MDP asks);
 *  - native model on random DAGs of 1k, 10k and 100k ops and on the
 *    largest sample graph found: ns per (op + edge) per evaluation, with
 *    native memory accounting and for the makespan alone;
 *  - workspace bytes and allocations per evaluation after warm-up.
 *
 * Invariant: every timed loop but the MDP row's evaluates a fixed set of
 * random placements in turn, with the workspace warmed up first; the
 * figures are wall-clock on a shared machine, so they are noisy.
 */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "io.h"
#include "sim.h"
#include "strbuf.h"
#include "bench/bench-util.h"
#include "tests/sim-testutil.h"
#include "xmalloc.h"

/* At most this many threads in the throughput row. */
#define BENCH_MAX_THREADS 64

struct figure {
	double per_eval_s;		/* wall clock */
	double cpu_per_eval_s;		/* this process's CPU time */
	double best_cpu_per_eval_s;	/* the same, in the best of ROUNDS */
	size_t ws_bytes;
	double allocs_per_eval;
	double makespan;
};

/* Rounds of a timing: on a shared machine the best round is the closest
 * to what the code costs, the average to what a user saw. */
#define ROUNDS 5

/* Time evaluations of random placements of p for at least min_s seconds,
 * in ROUNDS rounds. */
static struct figure
time_evals(const struct pl_problem *p, const struct pl_sim_opts *o, double min_s)
{
	struct pl_rng r;
	pl_rng_seed(&r, 42);
	struct pl_placement *pl[BENCH_N_PLACEMENTS];
	bench_placements(&r, p, pl);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_sim_result res;
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++)
		pl_sim_eval(ws, pl[i], o, &res);
	unsigned long a0 = pl_alloc_count();
	long evals = 0;
	double t0 = bench_clock_s(CLOCK_MONOTONIC), c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID), t1;
	double best = 0;
	for (int k = 0; k < ROUNDS; k++) {
		long n = 0;
		double rt0 = bench_clock_s(CLOCK_MONOTONIC), rc0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
		do {
			for (int i = 0; i < BENCH_N_PLACEMENTS; i++)
				pl_sim_eval(ws, pl[i], o, &res);
			n += BENCH_N_PLACEMENTS;
			t1 = bench_clock_s(CLOCK_MONOTONIC);
		} while (t1 - rt0 < min_s / ROUNDS);
		double round = (bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - rc0) / (double)n;
		best = k == 0 || round < best ? round : best;
		evals += n;
	}
	double c1 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
	struct figure f = { (t1 - t0) / (double)evals, (c1 - c0) / (double)evals, best,
	    pl_sim_ws_bytes(ws), (double)(pl_alloc_count() - a0) / (double)evals,
	    res.makespan_us };
	pl_sim_ws_free(ws);
	bench_placements_free(pl);
	return f;
}

/*
 * Time evaluations as Placeto's MDP makes them: one placement, and before
 * each evaluation one op (in list order, cyclically) moved to a random
 * device, so that consecutive placements differ in at most one op.  CPU
 * seconds per evaluation in the best of ROUNDS rounds.
 */
static double
time_episode(const struct pl_problem *p, const struct pl_sim_opts *o, double min_s)
{
	struct pl_rng r;
	pl_rng_seed(&r, 7);
	struct pl_placement *pl = tu_random_placement(&r, p);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_sim_result res;
	int v = 0;
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++)	/* warm */
		pl_sim_eval(ws, pl, o, &res);
	double best = 0;
	for (int k = 0; k < ROUNDS; k++) {
		long n = 0;
		double rt0 = bench_clock_s(CLOCK_MONOTONIC), rc0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
		do {
			for (int i = 0; i < BENCH_N_PLACEMENTS; i++) {
				pl->dev[v] = (int)pl_rng_below(&r, (uint64_t)p->n_dev);
				v = v + 1 < p->n_ops ? v + 1 : 0;
				pl_sim_eval(ws, pl, o, &res);
			}
			n += BENCH_N_PLACEMENTS;
		} while (bench_clock_s(CLOCK_MONOTONIC) - rt0 < min_s / ROUNDS);
		double round = (bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - rc0) / (double)n;
		best = k == 0 || round < best ? round : best;
	}
	pl_sim_ws_free(ws);
	pl_placement_free(pl);
	return best;
}

/* One thread of time_threads(): its own workspace, the shared placements. */
struct thread_job {
	const struct pl_problem *p;
	const struct pl_sim_opts *o;
	struct pl_placement *const *pl;
	long evals;
	pthread_barrier_t *go;
	double sum;			/* of the makespans */
};

/* Evaluate the placements in turn, after every thread is ready. */
static void *
thread_run(void *arg)
{
	struct thread_job *j = arg;
	struct pl_sim_ws *ws = pl_sim_ws_new(j->p);
	struct pl_sim_result res;
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++)	/* warm */
		pl_sim_eval(ws, j->pl[i], j->o, &res);
	pthread_barrier_wait(j->go);
	j->sum = 0;
	for (long i = 0; i < j->evals; i++) {
		pl_sim_eval(ws, j->pl[i % BENCH_N_PLACEMENTS], j->o, &res);
		j->sum += res.makespan_us;
	}
	pl_sim_ws_free(ws);
	return NULL;
}

/* Throughput of nt threads with a workspace each, evals evaluations
 * apiece: wall seconds per evaluation, and in *sum each thread's sum of
 * makespans (NAN when they differ). */
static double
time_threads(const struct pl_problem *p, const struct pl_sim_opts *o, int nt, long evals,
    double *sum)
{
	struct pl_rng r;
	pl_rng_seed(&r, 42);
	struct pl_placement *pl[BENCH_N_PLACEMENTS];
	bench_placements(&r, p, pl);
	pthread_t th[BENCH_MAX_THREADS];
	struct thread_job job[BENCH_MAX_THREADS];
	pthread_barrier_t go;
	pthread_barrier_init(&go, NULL, (unsigned)nt + 1);
	int started = 0;
	for (int i = 0; i < nt; i++) {
		job[i] = (struct thread_job){ p, o, pl, evals, &go, 0 };
		if (pthread_create(&th[i], NULL, thread_run, &job[i]) != 0)
			break;
		started++;
	}
	if (started < nt) {
		fprintf(stderr, "bench-sim: could not start %d threads\n", nt);
		exit(1);	/* the others wait at the barrier */
	}
	pthread_barrier_wait(&go);
	double t0 = bench_clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	double wall = (bench_clock_s(CLOCK_MONOTONIC) - t0) / (double)(nt * evals);
	*sum = job[0].sum;
	for (int i = 1; i < nt; i++)
		if (job[i].sum != job[0].sum)
			*sum = NAN;
	pthread_barrier_destroy(&go);
	bench_placements_free(pl);
	return wall;
}

/* The largest placelab JSON graph in dir (by ops), or NULL. */
static struct pl_graph *
largest_in(const char *dir, struct pl_graph *best, char **best_path)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return best;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		char *path = pl_xasprintf("%s/%s", dir, e->d_name);
		char *cause = NULL;
		struct pl_graph *g = pl_graph_load_json(path, &cause);
		free(cause);
		if (g != NULL && (best == NULL || g->n_ops > best->n_ops)) {
			pl_graph_free(best);
			free(*best_path);
			best = g;
			*best_path = path;
		} else {
			pl_graph_free(g);
			free(path);
		}
	}
	closedir(d);
	return best;
}

/* Run the native benchmark on one graph; its best round's CPU ns per
 * (op + edge). */
static double
native_row(const char *label, const struct pl_graph *g, const struct pl_cluster *c)
{
	char *cause = NULL;
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	if (p == NULL) {
		printf("%-26s skipped: %s\n", label, cause);
		free(cause);
		return 0;
	}
	/* Random placements ignore constraints: relax them for the timing. */
	const struct pl_sim_opts o = { PL_SIM_NATIVE, PL_MEM_NATIVE };
	struct figure f = time_evals(p, &o, 1.0);
	double m = (double)(g->n_ops + g->n_edges);
	printf("%-22s %7d ops %7d edges  %9.1f us/eval (cpu %9.1f)  %6.1f ns/(op+edge) (cpu %6.1f, best round %6.1f)  ws %6.2f MiB  allocs/eval %.2f\n",
	    label, g->n_ops, g->n_edges, f.per_eval_s * 1e6, f.cpu_per_eval_s * 1e6,
	    f.per_eval_s * 1e9 / m, f.cpu_per_eval_s * 1e9 / m, f.best_cpu_per_eval_s * 1e9 / m,
	    (double)f.ws_bytes / 1048576.0, f.allocs_per_eval);
	/* the makespan alone: what a search that checks no memory pays */
	const struct pl_sim_opts z = { PL_SIM_NATIVE, PL_MEM_NONE };
	struct figure fz = time_evals(p, &z, 0.5);
	printf("%-22s %36s  %6.1f ns/(op+edge) (cpu %6.1f, best round %6.1f)  allocs/eval %.2f\n",
	    "", "makespan only, no memory accounting", fz.per_eval_s * 1e9 / m,
	    fz.cpu_per_eval_s * 1e9 / m, fz.best_cpu_per_eval_s * 1e9 / m, fz.allocs_per_eval);
	pl_problem_free(p);
	return f.best_cpu_per_eval_s * 1e9 / m;
}

/*
 * `bench-sim profile MODEL MEM N`: only N evaluations of the 2,000-op
 * Placeto-benchmark problem (MODEL placeto|native, MEM native|placeto|none),
 * for instruction counts under callgrind (--toggle-collect=pl_sim_eval)
 * or quick before/after comparisons (CPU time per evaluation).
 */
static int
profile(int argc, char **argv)
{
	if (argc != 5 || pl_sim_kind_parse(argv[2]) < 0 || pl_mem_model_parse(argv[3]) < 0) {
		fprintf(stderr, "usage: bench-sim profile placeto|native native|placeto|none N\n");
		return 2;
	}
	struct pl_rng r;
	pl_rng_seed(&r, 2019);
	struct pl_graph *g = bench_random_dag(&r, 2000, 1.4);
	struct pl_cluster *c4 = bench_placeto_cluster();
	struct pl_problem *p = tu_problem(g, c4);
	const struct pl_sim_opts o = { pl_sim_kind_parse(argv[2]), pl_mem_model_parse(argv[3]) };
	long n = atol(argv[4]);
	pl_rng_seed(&r, 42);
	struct pl_placement *pl[BENCH_N_PLACEMENTS];
	bench_placements(&r, p, pl);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	struct pl_sim_result res;
	double sum = 0, c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		pl_sim_eval(ws, pl[i % BENCH_N_PLACEMENTS], &o, &res);
		sum += res.makespan_us;
	}
	double us = (bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e6 / (double)(n > 0 ? n : 1);
	printf("%ld evaluations, cpu %.2f us/eval, sum of makespans %.17g\n", n, us, sum);
	pl_sim_ws_free(ws);
	bench_placements_free(pl);
	pl_problem_free(p);
	pl_graph_free(g);
	pl_cluster_free(c4);
	return 0;
}

/*
 * `bench-sim native N|GRAPH EVALS [MEM]`: the native model only, on a
 * random DAG of N ops or a graph file, on k80x4 with native memory (or
 * MEM: native|placeto|none; none is the makespan alone); CPU time per
 * evaluation over EVALS evaluations of the benchmark's random placements
 * in turn (for quick before/after comparisons, run alternately).  Fewer
 * placements would flatter small graphs: the branch predictor learns a
 * few 1,000-op runs by heart (4 placements run in half the time of 16).
 */
static int
native_only(int argc, char **argv)
{
	if ((argc != 4 && argc != 5) || atol(argv[3]) <= 0 ||
	    (argc == 5 && pl_mem_model_parse(argv[4]) < 0)) {
		fprintf(stderr, "usage: bench-sim native N|GRAPH EVALS [native|placeto|none]\n");
		return 2;
	}
	struct pl_rng r;
	pl_rng_seed(&r, 2019);
	char *cause = NULL;
	int n = atoi(argv[2]);
	struct pl_graph *g = n > 0 ? bench_random_dag(&r, n, 1.5) : pl_graph_load_json(argv[2], &cause);
	if (g == NULL) {
		fprintf(stderr, "bench-sim: %s\n", cause);
		free(cause);
		return 1;
	}
	struct pl_cluster *c = bench_native_cluster();
	struct pl_problem *p = tu_problem(g, c);
	struct pl_placement *pl[BENCH_N_PLACEMENTS];
	bench_placements(&r, p, pl);
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	const struct pl_sim_opts o = { PL_SIM_NATIVE,
	    argc == 5 ? pl_mem_model_parse(argv[4]) : PL_MEM_NATIVE };
	struct pl_sim_result res;
	long evals = atol(argv[3]);
	pl_sim_eval(ws, pl[0], &o, &res);
	double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID), sum = 0;
	for (long i = 0; i < evals; i++) {
		pl_sim_eval(ws, pl[i % BENCH_N_PLACEMENTS], &o, &res);
		sum += res.makespan_us;
	}
	double us = (bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e6 / (double)evals;
	printf("%d ops %d edges: cpu %.1f us/eval, %.1f ns/(op+edge) (sum of makespans %.17g)\n",
	    g->n_ops, g->n_edges, us, us * 1e3 / (double)(g->n_ops + g->n_edges), sum);
	pl_sim_ws_free(ws);
	bench_placements_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return 0;
}

/*
 * `bench-sim placeto-dump FILE [ties]`: the Placeto benchmark's problem
 * (the 2,000-op random DAG on 4 devices; with `ties`, a tie-heavy one of
 * 400 ops instead: integer costs, many zero-cost ops, three outputs per
 * op read by repeated edges, sizes that are multiples of transfer_speed),
 * its random placements and the makespan and peaks (--mem placeto) of
 * each under the Placeto model, as JSON for bench/placeto-spec.py, which
 * times a Python implementation of the reference's event loop on it and
 * checks it gives the same makespans and peaks, and for
 * bench/placeto-ref.py, which does the same with Placeto's own code.
 */
static int
placeto_dump(int argc, char **argv)
{
	int ties = argc == 4 && strcmp(argv[3], "ties") == 0;
	if (argc != 3 && !ties) {
		fprintf(stderr, "usage: bench-sim placeto-dump FILE [ties]\n");
		return 2;
	}
	struct pl_rng r;
	pl_rng_seed(&r, 2019);
	struct pl_graph *g = ties ? tu_random_dag(&r, 400, 3, 4, 3, 0.4, 7600, 3) :
	    bench_random_dag(&r, 2000, 1.4);
	struct pl_cluster *c = bench_placeto_cluster();
	struct pl_problem *p = tu_problem(g, c);
	pl_rng_seed(&r, 42);
	struct pl_placement *pl[BENCH_N_PLACEMENTS];
	bench_placements(&r, p, pl);
	const struct pl_placeto_params *pp = &c->placeto;
	struct pl_strbuf b = { 0 };
	pl_sb_printf(&b, "{\"delta1\": %.17g, \"delta2\": %.17g, \"transfer_speed\": %.17g, "
	    "\"init_offset\": %.17g,\n \"devices\": [", pp->delta1, pp->delta2,
	    pp->transfer_speed, pp->init_offset);
	for (int d = 0; d < c->n_dev; d++) {
		pl_sb_printf(&b, "%s", d ? ", " : "");
		pl_sb_json_str(&b, c->dev[d].name);
	}
	pl_sb_printf(&b, "],\n \"nodes\": [\n");
	for (int v = 0; v < g->n_ops; v++) {
		const struct pl_op *op = &g->ops[v];
		pl_sb_printf(&b, "  {\"name\": ");
		pl_sb_json_str(&b, op->name);
		pl_sb_printf(&b, ", \"cost\": [");
		for (int d = 0; d < c->n_dev; d++)
			pl_sb_printf(&b, "%s%.17g", d ? ", " : "", pl_problem_op_us(p, v, d));
		/* sizes by output index (the graph keeps tensors only for
		 * outputs something reads; the others are 0 bytes) */
		pl_sb_printf(&b, "], \"sizes\": [");
		int n_out = 0;
		for (int i = 0; i < op->n_tensors; i++)
			if (g->tensors[op->first_tensor + i].index + 1 > n_out)
				n_out = g->tensors[op->first_tensor + i].index + 1;
		for (int k = 0; k < n_out; k++) {
			int64_t bytes = 0;
			for (int i = 0; i < op->n_tensors; i++)
				if (g->tensors[op->first_tensor + i].index == k)
					bytes = g->tensors[op->first_tensor + i].bytes;
			pl_sb_printf(&b, "%s%lld", k ? ", " : "", (long long)bytes);
		}
		pl_sb_printf(&b, "], \"out_bytes\": %lld, \"inputs\": [", (long long)op->out_bytes);
		for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
			const struct pl_edge *e = &g->edges[g->in_edge[k]];
			pl_sb_printf(&b, "%s[", k > g->in_off[v] ? ", " : "");
			pl_sb_json_str(&b, g->ops[e->src].name);
			pl_sb_printf(&b, ", %d]", g->tensors[e->tensor].index);
		}
		pl_sb_printf(&b, "]}%s\n", v + 1 < g->n_ops ? "," : "");
	}
	pl_sb_printf(&b, " ],\n \"placements\": [\n");
	struct pl_sim_ws *ws = pl_sim_ws_new(p);
	const struct pl_sim_opts o = { PL_SIM_PLACETO, PL_MEM_NONE };
	const struct pl_sim_opts om = { PL_SIM_PLACETO, PL_MEM_PLACETO };
	for (int i = 0; i < BENCH_N_PLACEMENTS; i++) {
		struct pl_sim_result res;
		pl_sim_eval(ws, pl[i], &o, &res);
		pl_sb_printf(&b, "  {\"makespan\": %.17g, \"peak_bytes\": [", res.makespan_us);
		pl_sim_eval(ws, pl[i], &om, &res);
		for (int d = 0; d < c->n_dev; d++)
			pl_sb_printf(&b, "%s%lld", d ? ", " : "", (long long)res.peak_bytes[d]);
		pl_sb_printf(&b, "], \"dev\": [");
		for (int v = 0; v < g->n_ops; v++)
			pl_sb_printf(&b, "%s%d", v ? "," : "", pl[i]->dev[v]);
		pl_sb_printf(&b, "]}%s\n", i + 1 < BENCH_N_PLACEMENTS ? "," : "");
	}
	pl_sb_printf(&b, " ]}\n");
	char *text = pl_sb_take(&b), *cause = NULL;
	int bad = pl_file_write_atomic(argv[2], text, strlen(text), &cause) != 0;
	if (bad)
		fprintf(stderr, "bench-sim: %s\n", cause);
	free(cause);
	free(text);
	pl_sim_ws_free(ws);
	bench_placements_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return bad;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "placeto-dump") == 0)
		return placeto_dump(argc, argv);
	if (argc > 1 && strcmp(argv[1], "profile") == 0)
		return profile(argc, argv);
	if (argc > 1 && strcmp(argv[1], "native") == 0)
		return native_only(argc, argv);
	struct pl_rng r;
	pl_rng_seed(&r, 2019);
	printf("bench-sim: wall-clock on a shared 2-core machine (noisy); lean path, warm workspace,\n"
	    "%d random placements evaluated in turn, %d rounds (\"best round\": CPU time of the best).\n\n",
	    BENCH_N_PLACEMENTS, ROUNDS);

	/* Placeto model: 2,000 ops, ~2,800 edges, 4 devices. */
	struct pl_graph *g = bench_random_dag(&r, 2000, 1.4);
	struct pl_cluster *c4 = bench_placeto_cluster();
	struct pl_problem *p = tu_problem(g, c4);
	const struct pl_sim_opts po = { PL_SIM_PLACETO, PL_MEM_PLACETO };
	struct figure f = time_evals(p, &po, 1.0);
	printf("placeto  random DAG %d ops %d edges, 4 devices, placeto memory: %.1f us/eval "
	    "(cpu %.1f, best round %.1f; target <= 50; in Python: make bench's last row), ws %.2f MiB, allocs/eval %.2f\n",
	    g->n_ops, g->n_edges, f.per_eval_s * 1e6, f.cpu_per_eval_s * 1e6,
	    f.best_cpu_per_eval_s * 1e6, (double)f.ws_bytes / 1048576.0, f.allocs_per_eval);
	const struct pl_sim_opts pz = { PL_SIM_PLACETO, PL_MEM_NONE };
	f = time_evals(p, &pz, 0.5);
	printf("placeto  (same, no memory accounting): %.1f us/eval (cpu %.1f, best round %.1f)\n",
	    f.per_eval_s * 1e6, f.cpu_per_eval_s * 1e6, f.best_cpu_per_eval_s * 1e6);
	const struct pl_sim_opts pn = { PL_SIM_PLACETO, PL_MEM_NATIVE };
	f = time_evals(p, &pn, 0.5);
	printf("placeto  (same, native memory model): %.1f us/eval (cpu %.1f, best round %.1f)\n",
	    f.per_eval_s * 1e6, f.cpu_per_eval_s * 1e6, f.best_cpu_per_eval_s * 1e6);
	const struct pl_sim_opts nn = { PL_SIM_NATIVE, PL_MEM_NATIVE };
	f = time_evals(p, &nn, 0.5);
	printf("native   (same graph and devices): %.1f us/eval (cpu %.1f, best round %.1f)\n",
	    f.per_eval_s * 1e6, f.cpu_per_eval_s * 1e6, f.best_cpu_per_eval_s * 1e6);
	/* as Placeto's MDP calls it: consecutive placements differ in one op */
	double ep = time_episode(p, &po, 0.5), epz = time_episode(p, &pz, 0.5);
	printf("placeto  (same) as an MDP episode calls it, one op moved between evaluations: "
	    "best round %.1f us/eval with placeto memory, %.1f without\n", ep * 1e6, epz * 1e6);
	/* the fast path on every core, a workspace per thread */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = cores < 1 ? 1 : cores > BENCH_MAX_THREADS ? BENCH_MAX_THREADS : (int)cores;
	double sum1, sumn;
	double one = time_threads(p, &po, 1, 2000, &sum1), all = time_threads(p, &po, nt, 2000, &sumn);
	if (!(sum1 == sumn)) {
		fprintf(stderr, "bench-sim: threads with a workspace each disagree (%.17g, %.17g)\n",
		    sum1, sumn);
		return 1;
	}
	printf("placeto  (placeto memory) on %d thread%s, a workspace each: %.1f us of wall clock per evaluation "
	    "(1 thread: %.1f, x%.2f)\n\n", nt, nt == 1 ? "" : "s", all * 1e6, one * 1e6, one / all);
	pl_problem_free(p);
	pl_graph_free(g);

	/* Native model: 1k, 10k, 100k ops on the k80x4 preset. */
	struct pl_cluster *k80 = bench_native_cluster();
	printf("native   on cluster %s (%d devices), target <= 40 ns/(op+edge):\n", k80->name, k80->n_dev);
	int sizes[] = { 1000, 10000, 100000 };
	double ns[3];
	for (int i = 0; i < 3; i++) {
		g = bench_random_dag(&r, sizes[i], 1.5);
		char label[32];
		snprintf(label, sizeof label, "random DAG %dk", sizes[i] / 1000);
		ns[i] = native_row(label, g, k80);
		pl_graph_free(g);
	}
	/* growth per element: n log n allows log(100k) / log(1k) */
	printf("%-22s best round 1k -> 100k: x%.2f per (op+edge) (n log n allows x%.2f)\n",
	    "growth", ns[0] > 0 ? ns[2] / ns[0] : 0, log(1e5) / log(1e3));
	char *path = NULL;
	struct pl_graph *big = largest_in(PL_BUILDDIR "/samples", NULL, &path);
	big = largest_in(PL_SRCDIR "/samples", big, &path);
	if (big != NULL) {
		const char *base = strrchr(path, '/');
		char label[64];
		snprintf(label, sizeof label, "sample %s", base != NULL ? base + 1 : path);
		native_row(label, big, k80);
		pl_graph_free(big);
	} else
		printf("no sample graph found under samples/\n");
	free(path);
	pl_cluster_free(k80);
	pl_cluster_free(c4);
	return 0;
}
