/*
 * cmd-compare — `placelab compare GRAPH [-c CLUSTER]`: run several placement
 * methods on one problem and print the comparison table (core/compare.h)
 * as text, Markdown, CSV, LaTeX or JSON.
 *
 * Methods run one at a time, each stepped until done or its budget runs
 * out; progress goes to stderr only when it is a terminal.
 * Invariant: the table printed is exactly what pl_compare_write() writes.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "compare.h"
#include "fileio.h"
#include "io.h"
#include "options.h"
#include "viz/export.h"
#include "pool.h"
#include "xmalloc.h"

#define COMPARE_USAGE "usage: placelab compare GRAPH [-c CLUSTER] [--methods LIST|all]\n" \
	"           [--format table|md|csv|tex|json] [-o FILE] [--seconds S] [--steps N]\n" \
	"           [--opt METHOD:k=v,...] [--seed N] [--threads N] [--sim native|placeto]\n" \
	"           [--mem native|placeto|none] [-q]"

enum { OPT_METHODS = 256, OPT_FORMAT, OPT_SECONDS, OPT_STEPS, OPT_OPT, OPT_SEED,
	OPT_THREADS, OPT_SIM, OPT_MEM };

struct method_opt {
	const char *method;	/* points into argv */
	size_t len;
	const char *spec;
};

/* The options given for a method with --opt METHOD:spec (joined). */
static char *
spec_for(const struct method_opt *mo, int n, const char *method)
{
	char *spec = NULL;
	for (int i = 0; i < n; i++) {
		if (strlen(method) != mo[i].len || strncmp(method, mo[i].method, mo[i].len) != 0 ||
		    *mo[i].spec == '\0')	/* --opt METHOD: adds nothing */
			continue;
		char *s = spec != NULL ? pl_xasprintf("%s,%s", spec, mo[i].spec) : pl_xstrdup(mo[i].spec);
		free(spec);
		spec = s;
	}
	return spec;
}

/* The format -o FILE's suffix names (any case): a table format (.md
 * .csv .tex .json; .txt the text table), NO_SUFFIX, or -1 for a suffix
 * that names none. */
#define NO_SUFFIX (-2)
static int
suffix_format(const char *path)
{
	const char *ext = plv_path_suffix(path);
	if (ext == NULL)
		return NO_SUFFIX;
	return pl_compare_format_of_suffix(ext);
}

/* placelab compare */
int
cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "methods", required_argument, NULL, OPT_METHODS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "steps", required_argument, NULL, OPT_STEPS },
		{ "opt", required_argument, NULL, OPT_OPT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "sim", required_argument, NULL, OPT_SIM },
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cluster = NULL, *output = NULL, *methods = NULL;
	enum pl_compare_format fmt = PL_CMP_TABLE;
	int fmt_given = 0;
	struct pl_compare_budget budget = { 0, PL_COMPARE_SECONDS };
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = pl_ncores() };
	struct method_opt *mo = pl_xcalloc((size_t)argc + 1, sizeof *mo);
	int n_mo = 0, quiet = 0, ch, rc = 2;
	double v;
	unsigned long long seed;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:o:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': cluster = optarg; break;
		case 'o': output = strcmp(optarg, "-") == 0 ? NULL : optarg; break;	/* -: standard output, as without -o */
		case 'q': quiet = 1; break;
		case OPT_METHODS: methods = optarg; break;
		case OPT_FORMAT:
			if (pl_compare_format_parse(optarg) < 0) {
				cmd_error("--format '%s': expected table, md, csv, tex or json", optarg);
				goto out;
			}
			fmt = (enum pl_compare_format)pl_compare_format_parse(optarg);
			fmt_given = 1;
			break;
		case OPT_SECONDS:
			if (cmd_parse_num("seconds", optarg, 0, 1e9, &v) != 0)
				goto out;
			budget.max_seconds = v;
			break;
		case OPT_STEPS:
			if (cmd_parse_int("steps", optarg, 0, 2000000000, &budget.max_steps) != 0)
				goto out;
			break;
		case OPT_OPT: {
			const char *colon = strchr(optarg, ':');
			if (colon == NULL || colon == optarg) {
				cmd_error("--opt '%s': expected METHOD:key=value,...", optarg);
				goto out;
			}
			mo[n_mo++] = (struct method_opt){ optarg, (size_t)(colon - optarg), colon + 1 };
			break;
		}
		case OPT_SEED:
			if (cmd_parse_seed("seed", optarg, &seed) != 0)
				goto out;
			run.seed = seed;
			break;
		case OPT_THREADS:
			if (cmd_parse_int("threads", optarg, 1, 1024, &run.threads) != 0)
				goto out;
			break;
		case OPT_SIM:
			if (cmd_parse_sim(optarg, &run.sim) != 0)
				goto out;
			break;
		case OPT_MEM:
			if (cmd_parse_mem(optarg, &run.sim) != 0)
				goto out;
			break;
		case 'h':
			printf("%s\n\nRun placement methods on one graph and cluster (default cluster %s)\n"
			    "and print one row per method: step time, improvement over the human\n"
			    "expert, gap to the best row and to the lower bound, peak memory of the\n"
			    "fullest device and OOM, bytes moved, search time, evaluations.\n"
			    "--methods takes names from 'placelab run --list' (default: the quick\n"
			    "ones; 'all' for every method); --seconds / --steps bound each method\n"
			    "(default 60 s).  Without --format, -o FILE.md/.csv/.tex/.json/.txt\n"
			    "picks the format (a FILE without a suffix gets the text table; another\n"
			    "suffix needs --format, and one that names a format must agree with\n"
			    "it).  JSON output is tagged \"%s\".  --threads defaults to\n"
			    "one per core; results do not depend on it, unless a time budget\n"
			    "(--seconds, or a method's own, such as BRKGA's 10 s) stops a run: how\n"
			    "far it got then depends on the machine's speed.  --mem none leaves\n"
			    "memory out (its cells read n/a).  -q leaves out the progress lines\n"
			    "on a terminal (the table is printed all the same).\n",
			    COMPARE_USAGE, PL_DEFAULT_CLUSTER, PL_FORMAT_COMPARE);
			rc = 0;
			goto out;
		default:
			cmd_error("%s", COMPARE_USAGE);
			goto out;
		}
	}
	if (optind != argc - 1) {
		cmd_error("%s", COMPARE_USAGE);
		goto out;
	}
	const struct pl_placer_class **cls = NULL;
	char *cause = NULL;
	if (pl_compare_methods(methods, &cls, &cause) != 0) {
		cmd_error("--methods: %s", cause);
		free(cause);
		goto out;
	}
	for (int i = 0; i < n_mo; i++) {
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)mo[i].len, mo[i].method);
		int listed = 0;
		for (int k = 0; cls[k] != NULL; k++)
			listed |= strcmp(cls[k]->name, name) == 0;
		if (pl_placer_find(name) == NULL || !listed) {
			cmd_error(pl_placer_find(name) == NULL ? "--opt: unknown method '%s'" :
			    "--opt: '%s' is not among the methods compared (see --methods)", name);
			free(cls);
			goto out;
		}
	}
	/* a bad option is a usage error, and a file the methods' options
	 * name an input: both found before any method runs */
	int n_cls = 0, bad = 0;
	while (cls[n_cls] != NULL)
		n_cls++;
	struct pl_options **opts = pl_xcalloc((size_t)n_cls + 1, sizeof *opts);
	for (int i = 0; i < n_cls && !bad; i++) {
		char *spec = spec_for(mo, n_mo, cls[i]->name);
		if ((bad = pl_placer_options(cls[i], spec, &opts[i], &cause)) != 0) {
			cmd_error("--opt: %s", cause);
			free(cause);
		}
		free(spec);
	}
	/* what -o will hold: a JSON document, or text (checked against what
	 * the file holds now) */
	int json = output != NULL && (fmt_given ? fmt == PL_CMP_JSON : suffix_format(output) == PL_CMP_JSON);
	if (!bad)
		bad = cmd_check_method_files((const struct cmd_file[]){ { "GRAPH", argv[optind], 0, NULL },
		    { "-c", pl_cluster_arg_file(cluster), 0, NULL },
		    { "-o", output, 1, json ? PL_FORMAT_COMPARE : NULL } }, 3,
		    (const struct pl_options *const *)opts, n_cls);
	for (int i = 0; i < n_cls; i++)
		pl_options_free(opts[i]);
	free(opts);
	if (bad) {
		free(cls);
		goto out;
	}
	if (output != NULL) {
		/* -o FILE.md / .csv / .tex / .json / .txt picks the format, and
		 * must agree with --format; a file without a suffix gets the
		 * text table (or --format's); checked after the files, so a
		 * clash with an input is what is reported first */
		int sf = suffix_format(output);
		if (fmt_given && sf >= 0 && sf != (int)fmt) {
			cmd_error("compare: --format %s, but -o %s names %s (make them agree)",
			    pl_compare_format_name(fmt), output,
			    pl_compare_format_name((enum pl_compare_format)sf));
			free(cls);
			goto out;
		}
		if (!fmt_given && sf == -1) {
			cmd_error("compare: cannot tell the format of -o %s (use .md, .csv, .tex, "
			    ".json or .txt, or --format)", output);
			free(cls);
			goto out;
		}
		if (!fmt_given && sf >= 0)
			fmt = (enum pl_compare_format)sf;
	}
	struct pl_graph *g = cmd_load_graph(argv[optind]);
	struct pl_cluster *c = g != NULL ? cmd_load_cluster(cluster) : NULL;
	struct pl_problem *p = NULL;
	struct pl_compare *cmp = NULL;
	if (c == NULL)
		goto done;
	if ((p = pl_problem_new(g, c, &cause)) == NULL) {
		cmd_fail(cause);
		goto done;
	}
	cmp = pl_compare_new(p, &run);
	int n = n_cls;
	/* every method is set up before any runs: one that cannot start
	 * (a bad option value, a policy for another cluster) is an error
	 * of the command, as for `run` */
	struct pl_placer **pls = pl_xcalloc((size_t)n + 1, sizeof *pls);
	for (int i = 0; i < n; i++) {
		char *spec = spec_for(mo, n_mo, cls[i]->name);
		pls[i] = pl_placer_new(cls[i], p, spec, &run, &cause);
		free(spec);
		if (pls[i] == NULL) {
			cmd_fail(cause);
			for (int k = 0; k < i; k++)
				pl_placer_free(pls[k]);
			free(pls);
			goto done;
		}
	}
	int progress = !quiet && isatty(STDERR_FILENO);
	cmd_catch_stop();
	for (int i = 0; i < n; i++) {
		struct pl_placer *pl = pls[i];
		if (cmd_stopped()) {	/* the methods not run are left out */
			pl_placer_free(pl);
			pls[i] = NULL;
			continue;
		}
		char label[128];
		snprintf(label, sizeof label, "[%d/%d] %s", i + 1, n, cls[i]->name);
		double t0 = pl_now_s();
		cmd_step_placer(pl, budget.max_steps, budget.max_seconds, label, progress);
		if (progress)
			cmd_progress_end("%s: %.2f s, %s", label,
			    pl_now_s() - t0, pl->status ? pl->status : "");
		pl_compare_add_placer(cmp, pl);
		pl_placer_free(pl);
		pls[i] = NULL;
	}
	free(pls);
	if (output != NULL) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (f == NULL) {
			cmd_error("-o %s: cannot open a memory stream", output);
			goto done;
		}
		pl_compare_write(cmp, fmt, f);
		fclose(f);
		int w = pl_file_write_atomic(output, buf, len, &cause);
		free(buf);
		if (w != 0) {
			cmd_fail(cause);
			goto done;
		}
	} else {
		pl_compare_write(cmp, fmt, stdout);
	}
	rc = cmd_compare_failures("compare", cmp);
	if (cmd_stopped()) {
		fprintf(stderr, "placelab: compare stopped by signal %d: %d of %d methods in the table%s\n",
		    cmd_stopped(), cmp->n_rows, n, output != NULL ? ", written" : "");
		rc = 128 + cmd_stopped();
	}
done:
	pl_compare_free(cmp);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	free(cls);
out:
	free(mo);
	return rc;
}
