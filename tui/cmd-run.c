/*
 * cmd-run — `placelab run -a NAME GRAPH [-c CLUSTER]`: run any placement
 * method headless, the way the explorer and `compare` drive it, and report
 * its best placement.
 *
 * Every option of the method's table is also a command-line option
 * (`--KEY VALUE`), next to `--opt k=v,k=v`; the run flags (`--seed`,
 * `--threads`, `--sim`, `--steps`, `--seconds`) also set the method's
 * option of the same name when it has one.
 * Invariant: the method is stepped with pl_placer_step() until it is done
 * or a budget runs out; nothing here knows any method.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "compare.h"
#include "fileio.h"
#include "io.h"
#include "options.h"
#include "pool.h"
#include "strbuf.h"
#include "placer.h"
#include "problem.h"
#include "xmalloc.h"

#define RUN_USAGE "usage: placelab run -a NAME GRAPH [-c CLUSTER] [--KEY VALUE]... [--opt k=v,...]\n" \
	"           [--seed N] [--threads N] [--sim native|placeto] [--mem native|placeto|none]\n" \
	"           [--steps N] [--seconds S] [-o PLACEMENT.json] [--history FILE.csv]\n" \
	"           [--json] [-q]\n" \
	"       placelab run --list"

enum {
	OPT_OPT = 256, OPT_SEED, OPT_THREADS, OPT_SIM, OPT_MEM, OPT_STEPS, OPT_SECONDS,
	OPT_HISTORY, OPT_JSON, OPT_LIST, OPT_CLASS = 1024,
};

static const struct option fixed_opts[] = {
	{ "algorithm", required_argument, NULL, 'a' },
	{ "cluster", required_argument, NULL, 'c' },
	{ "output", required_argument, NULL, 'o' },
	{ "opt", required_argument, NULL, OPT_OPT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "steps", required_argument, NULL, OPT_STEPS },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
};
#define N_FIXED ((int)(sizeof fixed_opts / sizeof *fixed_opts))

/* How many options class cls has (none for NULL). */
static int
class_n_options(const struct pl_placer_class *cls)
{
	int n = 0;
	for (const struct pl_option_def *d = cls != NULL ? cls->options : NULL; d != NULL && d->name != NULL; d++)
		n++;
	return n;
}

/* Append cls's options, each taking a value, to the n getopt options of
 * o, but for names o has already (the run flags, another class's); an
 * option's code is OPT_CLASS plus its index when per_option, else
 * OPT_CLASS.  The new count. */
static int
add_class_opts(struct option *o, int n, const struct pl_placer_class *cls, int per_option)
{
	for (int i = 0; i < class_n_options(cls); i++) {
		const char *name = cls->options[i].name;
		int known = 0;
		for (int k = 0; k < n && !known; k++)
			known = strcmp(o[k].name, name) == 0;
		if (!known)
			o[n++] = (struct option){ name, required_argument, NULL, OPT_CLASS + (per_option ? i : 0) };
	}
	return n;
}

/* The method named by -a / --algorithm, found before option parsing (the
 * method's own options are known only once it is): getopt over the fixed
 * options and every method's options (so that a method option's value,
 * even one that starts with '-', is not read as options), silent, in
 * order and without moving anything, so that bundled (-qa heft) and
 * abbreviated (--alg heft) forms are read as the real pass reads them.
 * (A method option abbreviated so that it is ambiguous among all methods'
 * options takes no value here, so a value after it that starts with -a
 * would still read as -a; full names are safe.)
 * The first one given, or NULL. */
static const char *
prescan_algo(int argc, char **argv)
{
	int n = N_FIXED;
	for (int i = 0; pl_placer_classes[i] != NULL; i++)
		n += class_n_options(pl_placer_classes[i]);
	struct option *all = pl_xcalloc((size_t)n + 1, sizeof *all);
	memcpy(all, fixed_opts, sizeof fixed_opts);
	n = N_FIXED;
	for (int i = 0; pl_placer_classes[i] != NULL; i++)
		n = add_class_opts(all, n, pl_placer_classes[i], 0);
	const char *algo = NULL;
	int saved = opterr, ch;
	opterr = 0;
	optind = 0;	/* a fresh scan (glibc) */
	while ((ch = getopt_long(argc, argv, "-a:c:o:qh", all, NULL)) != -1)
		if (ch == 'a' && algo == NULL)
			algo = optarg;
	opterr = saved;
	free(all);
	return algo;
}

/* Method options that a run flag of the same name sets only within the
 * flag's own values (Placeto's sim also takes "run", which the run's
 * --sim does not): listed as set with --opt NAME=. */
static const char *const run_shadowed[] = { "sim", NULL };

/* placelab run --list */
static int
list_methods(void)
{
	for (int i = 0; pl_placer_classes[i] != NULL; i++) {
		const struct pl_placer_class *c = pl_placer_classes[i];
		printf("%-12s %s%s\n    %s\n", c->name, c->title, c->quick ? " (quick)" : "",
		    c->summary != NULL ? c->summary : "");
		cmd_print_options_flags(stdout, c->options, c->ranges, run_shadowed);
	}
	return 0;
}

/* Append key=value to the option spec; a value may hold commas as long as
 * no part after one contains '=' (it would read as another option). */
static int
spec_add(char **spec, const char *key, const char *value)
{
	const char *comma = strchr(value, ',');
	if (comma != NULL && strchr(comma, '=') != NULL)
		return cmd_error("--%s '%s': a value with ',' may not contain '=' after it (use --opt)", key, value);
	char *s = *spec != NULL ? pl_xasprintf("%s,%s=%s", *spec, key, value)
	    : pl_xasprintf("%s=%s", key, value);
	free(*spec);
	*spec = s;
	return 0;
}

/* Append a raw k=v,k=v spec. */
static void
spec_raw(char **spec, const char *raw)
{
	if (*raw == '\0')
		return;
	char *s = *spec != NULL ? pl_xasprintf("%s,%s", *spec, raw) : pl_xstrdup(raw);
	free(*spec);
	*spec = s;
}

/* Write the history CSV: the class's own, or the generic one. */
static int
write_history(const struct pl_placer *pl, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL)
		return cmd_error("--history: cannot open a memory stream");
	int rc = 0;
	if (pl->cls->history_csv != NULL) {
		rc = pl->cls->history_csv(pl, f);
	} else {
		fprintf(f, "step,evals,best_us,wall_s,what\n");
		for (int i = 0; i < pl->n_hist; i++) {
			const struct pl_hist_entry *h = &pl->hist[i];
			fprintf(f, "%d,%ld,", h->step, h->evals);
			if (isfinite(h->best_us))
				fprintf(f, "%.17g", h->best_us);
			fprintf(f, ",%.6f,\"", h->wall_s);
			for (const char *s = h->what; *s; s++) {
				if (*s == '"')
					fputc('"', f);
				fputc(*s, f);
			}
			fprintf(f, "\"\n");
		}
	}
	fclose(f);
	char *cause = NULL;
	if (rc != 0) {
		free(buf);
		return cmd_error("--history %s: the method's history writer failed", pl_file_shown(path));
	}
	if (pl_file_write_atomic(path, buf, len, &cause) != 0) {
		free(buf);
		return cmd_fail(cause);
	}
	free(buf);
	return 0;
}

/* Human summary on f. */
static void
print_summary(const struct pl_placer *pl, FILE *f)
{
	const struct pl_problem *p = pl->prob;
	fprintf(f, "method     %s (%s)\n", pl->cls->name, pl->cls->title);
	fprintf(f, "problem    %s on %s, %s simulator\n", cmd_safe(p->g->name), cmd_safe(p->c->name),
	    pl_sim_kind_name(pl->run.sim.kind));
	fprintf(f, "status     %s\n", pl->status != NULL ? cmd_safe(pl->status) : "");
	if (pl->error != NULL)
		fprintf(f, "error      %s\n", cmd_safe(pl->error));
	fprintf(f, "search     %.3f s, %d steps, %ld evaluations\n", pl->search_s, pl->n_steps, pl->evals);
	if (pl->best == NULL) {
		fprintf(f, "result     no placement\n");
		return;
	}
	const struct pl_sim_result *r = &pl->best_res;
	struct pl_bounds b;
	pl_bounds_compute(p, &b);
	double gap = pl_bounds_gap(&b, r->makespan_us);
	fprintf(f, "step time  %.3f ms (lower bound %.3f ms, gap ", r->makespan_us / 1000, b.best_us / 1000);
	if (isnan(gap))
		fprintf(f, "n/a)\n");
	else
		fprintf(f, "%.1f%%)\n", 100 * gap);
	fprintf(f, "memory     %s\n", pl->run.sim.mem == PL_MEM_NONE ? "not modelled (--mem none)" :
	    r->oom_mask ? "OUT OF MEMORY" : "fits");
	fprintf(f, "moved      %.1f MB in %d transfers\n", (double)r->bytes_moved / 1e6, r->n_transfers);
	int dw = 10;	/* the device column: its longest name */
	for (int d = 0; d < p->n_dev; d++)
		dw = cmd_width_max(dw, p->c->dev[d].name);
	for (int d = 0; d < p->n_dev; d++) {
		int n = 0;
		for (int v = 0; v < p->n_ops; v++)
			n += pl->best->dev[v] == d;
		char peak[32] = "-", cap[32];	/* not modelled */
		if (pl->run.sim.mem != PL_MEM_NONE)
			pl_fmt_mem(peak, sizeof peak, (double)r->peak_bytes[d]);
		fputs("  ", f);
		cmd_put_padded(f, p->c->dev[d].name, dw);
		fprintf(f, " %6d ops  busy %10.3f ms  peak %9s / %s%s\n", n,
		    r->busy_us[d] / 1000, peak, pl_fmt_mem(cap, sizeof cap, (double)p->c->dev[d].mem_bytes),
		    (r->oom_mask >> d) & 1 ? "  OOM" : "");
	}
}

/* placelab run */
int
cmd_run(int argc, char **argv)
{
	const char *algo = prescan_algo(argc, argv);
	const struct pl_placer_class *cls = algo != NULL ? pl_placer_find(algo) : NULL;
	int n_class = class_n_options(cls);
	struct option *longopts = pl_xcalloc((size_t)(N_FIXED + n_class + 1), sizeof *longopts);
	memcpy(longopts, fixed_opts, sizeof fixed_opts);
	add_class_opts(longopts, N_FIXED, cls, 1);

	const char *cluster = NULL, *output = NULL, *history = NULL;
	char *spec = NULL;
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = pl_ncores() };
	int max_steps = 0, json = 0, quiet = 0, ch, rc = 2;
	double max_seconds = 0, v;
	unsigned long long seed;
	optind = 0;	/* a fresh scan after the prescan's */
	while ((ch = getopt_long(argc, argv, "a:c:o:qh", longopts, NULL)) != -1) {
		const char *flag = NULL;
		switch (ch) {
		case 'a':
			if (algo == NULL || strcmp(optarg, algo) != 0) {
				cmd_error("run: -a %s and -a %s: one method per run "
				    "('placelab compare --methods %s,%s' runs both)", algo ? algo : "?", optarg,
				    algo ? algo : "?", optarg);
				goto out;
			}
			break;
		case 'c': cluster = optarg; break;
		case 'o': output = cmd_out_path(optarg); break;
		case 'q': quiet = 1; break;
		case OPT_OPT: spec_raw(&spec, optarg); break;
		case OPT_SEED:
			if (cmd_parse_seed("seed", optarg, &seed) != 0)
				goto out;
			run.seed = seed;
			flag = "seed";
			break;
		case OPT_THREADS:
			if (cmd_parse_int("threads", optarg, 1, 1024, &run.threads) != 0)
				goto out;
			flag = "threads";
			break;
		case OPT_SIM:
			if (cmd_parse_sim(optarg, &run.sim) != 0)
				goto out;
			flag = "sim";
			break;
		case OPT_MEM:
			if (cmd_parse_mem(optarg, &run.sim) != 0)
				goto out;
			flag = "mem";
			break;
		case OPT_STEPS:
			if (cmd_parse_int("steps", optarg, 0, 2000000000, &max_steps) != 0)
				goto out;
			flag = "steps";
			break;
		case OPT_SECONDS:
			if (cmd_parse_num("seconds", optarg, 0, 1e9, &v) != 0)
				goto out;
			max_seconds = v;
			flag = "seconds";
			break;
		case OPT_HISTORY: history = cmd_out_path(optarg); break;
		case OPT_JSON: json = 1; break;
		case OPT_LIST:
			rc = list_methods();
			goto out;
		case 'h':
			printf("%s\n\nRun one placement method on a graph and cluster (default cluster %s),\n"
			    "stepping it until it is done or --steps / --seconds run out, and print\n"
			    "a summary (or with --json a placelab-result/1 document).  -o saves\n"
			    "the best placement; --history writes what each step did as CSV.\n"
			    "The run flags also set the method's option of the same name.  --threads\n"
			    "defaults to one per core; results do not depend on it, unless a time\n"
			    "budget (--seconds, or the method's own, such as BRKGA's 10 s) stops\n"
			    "the run: how far it got then depends on the machine's speed.  -q leaves\n"
			    "out the progress line on a terminal, not the summary.\n",
			    RUN_USAGE, PL_DEFAULT_CLUSTER);
			if (cls != NULL) {
				printf("\n%s (%s): %s\nOptions:\n", cls->name, cls->title, cls->summary);
				cmd_print_options_flags(stdout, cls->options, cls->ranges, run_shadowed);
			} else {
				printf("\nMethods (placelab run --list shows their options):\n");
				for (int i = 0; pl_placer_classes[i] != NULL; i++)
					printf("  %-12s %s\n", pl_placer_classes[i]->name, pl_placer_classes[i]->title);
			}
			rc = 0;
			goto out;
		default:
			if (ch >= OPT_CLASS && ch < OPT_CLASS + n_class) {
				if (spec_add(&spec, cls->options[ch - OPT_CLASS].name, optarg) != 0)
					goto out;
				break;
			}
			cmd_error("%s", RUN_USAGE);
			goto out;
		}
		if (flag != NULL && cmd_class_has(cls, flag) && spec_add(&spec, flag, optarg) != 0)
			goto out;
	}
	if (algo == NULL) {
		cmd_error("run: missing -a NAME (placelab run --list shows the methods)");
		goto out;
	}
	if (cls == NULL) {
		cmd_error("run: unknown method '%s' (placelab run --list shows the methods)", algo);
		goto out;
	}
	if (optind != argc - 1) {
		cmd_error("%s", RUN_USAGE);
		goto out;
	}
	{
		/* a bad option value is a usage error found before the work */
		struct pl_options *o = NULL;
		char *why = NULL;
		if (pl_placer_options(cls, spec, &o, &why) != 0) {
			cmd_fail(why);
			goto out;
		}
		int bad = cmd_check_method_files((const struct cmd_file[]){ { "GRAPH", argv[optind], 0, NULL },
		    { "-c", pl_cluster_arg_file(cluster), 0, NULL }, { "-o", output, 1, PL_FORMAT_PLACEMENT },
		    { "--history", history, 1, NULL } }, 4, (const struct pl_options *const[]){ o }, 1);
		pl_options_free(o);
		if (bad)
			goto out;
	}

	struct pl_graph *g = cmd_load_graph(argv[optind]);
	struct pl_cluster *c = g != NULL ? cmd_load_cluster(cluster) : NULL;
	struct pl_problem *p = NULL;
	struct pl_placer *pl = NULL;
	char *cause = NULL;
	if (c == NULL)
		goto done;
	if ((p = pl_problem_new(g, c, &cause)) == NULL) {
		cmd_fail(cause);
		goto done;
	}
	if ((pl = pl_placer_new(cls, p, spec, &run, &cause)) == NULL) {
		cmd_fail(cause);
		goto done;
	}
	cmd_catch_stop();
	if (cmd_step_placer(pl, max_steps, max_seconds, cls->name, !quiet && isatty(STDERR_FILENO)))
		fputc('\n', stderr);
	rc = pl->best != NULL && pl->error == NULL ? 0 : 1;
	/* -o or --history standard output's file: that output alone goes
	 * there (asked before the file is replaced) */
	FILE *out = cmd_report_stream(output, history);
	if (output != NULL && pl->best != NULL &&
	    pl_placement_save_json(pl->best, g, c, output, &cause) != 0) {
		rc = cmd_fail(cause);
		goto done;
	}
	if (history != NULL && write_history(pl, history) != 0) {
		rc = 2;
		goto done;
	}
	if (json) {
		char *s = pl_result_to_json(pl);
		fprintf(out, "%s\n", s);
		free(s);
	} else {
		print_summary(pl, out);
	}
	if (pl->best == NULL)
		fprintf(stderr, "placelab: %s found no placement: %s\n", cls->name,
		    cmd_safe(pl->error != NULL ? pl->error : pl->status));
	else if (pl->error != NULL)
		fprintf(stderr, "placelab: %s stopped: %s%s\n", cls->name, cmd_safe(pl->error),
		    output != NULL ? "; its best placement so far is written" : "");
	if (cmd_stopped()) {
		fprintf(stderr, "placelab: %s stopped by signal %d after %d steps%s\n", cls->name,
		    cmd_stopped(), pl->n_steps,
		    output != NULL && pl->best != NULL ? "; its best so far is written" : "");
		rc = 128 + cmd_stopped();
	}
done:
	pl_placer_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
out:
	free(spec);
	free(longopts);
	return rc;
}
