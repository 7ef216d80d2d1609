/*
 * cmd-export — `placelab export`: a placement's diagram or timeline as a
 * file for a paper (SVG, PDF, PNG or DOT), through viz/export.
 *
 * The placement comes from a file (-p) or from running a placer (-a)
 * within compare's budget (a stop signal draws its best so far); the step
 * is simulated (native model unless --sim)
 * to get loads, memory and the critical path.  With a table suffix (.md,
 * .csv, .tex, .json) the methods of -a LIST are compared instead and the
 * table is written by core/compare, the same writer as `placelab compare`.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "coarsen.h"
#include "compare.h"
#include "fileio.h"
#include "io.h"
#include "placer.h"
#include "problem.h"
#include "sim.h"
#include "viz/export.h"
#include "xmalloc.h"

static const char export_usage[] =
    "usage: placelab export GRAPH [-c CLUSTER] (-p PLACEMENT | -a PLACER) -o FILE\n"
    "                       [--level N | --max-nodes N] [--timeline]\n"
    "                       [--layout ENGINE] [--rankdir auto|LR|TB|RL|BT]\n"
    "                       [--format svg|pdf|png|dot] [--title TEXT] [--no-legend]\n"
    "                       [--width INCHES] [--dpi N] [--sim native|placeto]\n"
    "                       [--mem native|placeto|none] [--seed N] [--seconds S]\n"
    "                       [--force]\n"
    "\n"
    "Draw a placement: one cluster per device (name, load, peak memory), ops in\n"
    "the device's colour, cross-device tensors dashed with their bytes, the\n"
    "critical path in red.  The format follows FILE's suffix (.svg .pdf .png\n"
    ".dot/.gv); --format names it for a FILE without one of these suffixes and\n"
    "must agree with one.  A table suffix (.md .csv .tex .json .txt) writes the\n"
    "comparison table of the methods in -a LIST (comma-separated).  A flag\n"
    "that shapes another kind of output is refused: --level, --max-nodes,\n"
    "--layout, --rankdir, --force shape diagrams, --width timelines, --dpi\n"
    "PNG files; a table takes none of them, nor --timeline, --title or\n"
    "--no-legend.\n"
    "\n"
    "  -c, --cluster CLUSTER  preset or cluster file (default " PL_DEFAULT_CLUSTER ")\n"
    "  -p, --placement FILE   placement to draw\n"
    "  -a, --placer NAME      run this placer (default options) and draw its best\n"
    "  -o, --output FILE      file to write (-: standard output, with --format)\n"
    "  -l, --level N          collapse ops by their first N scope levels (0: one\n"
    "                         node per device; 'full': every op)\n"
    "  -m, --max-nodes N      at most N nodes (but one per device used), choosing\n"
    "                         the level per scope (default 60 unless --level is\n"
    "                         given; 200 is still readable as a large figure)\n"
    "  -t, --timeline         the Gantt timeline instead of the diagram\n"
    "  -L, --layout ENGINE    Graphviz layout: dot (default), sfdp, neato, fdp, ...\n"
    "  -r, --rankdir DIR      auto (default: LR or TB, whichever is closer to\n"
    "                         3:2), LR, TB, RL or BT\n"
    "  -f, --format FMT       svg, pdf, png, dot; md, csv, tex, json, table (tables)\n"
    "      --title TEXT       title instead of graph, cluster and step time\n"
    "      --no-legend        leave out the legend\n"
    "      --width INCHES     timeline width (default 7)\n"
    "      --dpi N            PNG resolution (default 150)\n"
    "      --sim KIND         simulator for loads and the critical path (native)\n"
    "      --mem MODEL        memory model of the peaks and out-of-memory\n"
    "                         (native, whichever the simulator; none: tables only)\n"
    "      --seed N           seed for -a (default 1)\n"
    "      --seconds S        time budget per placer for -a, also its own seconds\n"
    "                         option (0: no limit; default 60, as compare's, within\n"
    "                         which the placer's own applies); on a terminal a\n"
    "                         progress line shows, and Ctrl-C draws its best so far\n"
    "      --force            lay out a diagram however long dot would take (one\n"
    "                         beyond about half a minute is refused otherwise)\n";

/* The option spec --seconds gives a method (seconds >= 0: given), as
 * run's flag sets the method's option of the same name; NULL when it has
 * none or the flag was not given.  buf holds it. */
static const char *
seconds_spec(const struct pl_placer_class *cls, double seconds, char *buf, size_t n)
{
	if (seconds < 0 || !cmd_class_has(cls, "seconds"))
		return NULL;
	snprintf(buf, n, "seconds=%.17g", seconds);
	return buf;
}

/* Run a placer with its defaults and return a copy of its best placement.
 * seconds (>= 0 when given; 0: no limit) bounds the run and, as run's
 * flag does, sets the method's own option of that name; not given, the
 * run has compare's budget (PL_COMPARE_SECONDS).  On a terminal a
 * progress line shows; a first SIGINT or SIGTERM (cmd_catch_stop(), by
 * the caller) ends the run with its best so far, which is drawn.  NULL,
 * said, with *rc 2 for a bad method or options, 1 when the run found
 * nothing (as placelab run exits) and 128 + the signal when a stop came
 * before it found anything. */
static struct pl_placement *
run_placer(const struct pl_problem *p, const char *name, const struct pl_sim_opts *so,
    unsigned long long seed, double seconds, int *rc)
{
	*rc = 2;
	const struct pl_placer_class *cls = pl_placer_find(name);
	if (cls == NULL) {
		cmd_error("export: unknown method '%s' (placelab run --list shows the methods)", name);
		return NULL;
	}
	struct pl_run_opts run = { .sim = *so, .seed = seed, .threads = 1 };
	char *cause = NULL, spec[64];
	struct pl_placer *pl = pl_placer_new(cls, p, seconds_spec(cls, seconds, spec, sizeof spec),
	    &run, &cause);
	if (pl == NULL) {
		cmd_fail(cause);
		return NULL;
	}
	if (cmd_step_placer(pl, 0, seconds >= 0 ? seconds : PL_COMPARE_SECONDS, name,
	    isatty(STDERR_FILENO)))
		cmd_progress_end("%s: %s", name, pl->status != NULL ? pl->status : "");
	struct pl_placement *best = NULL;
	if (pl->best != NULL)
		best = pl_placement_clone(pl->best);
	else if (cmd_stopped()) {
		*rc = 128 + cmd_stopped();
		cmd_error("%s stopped by signal %d before it found a placement: nothing drawn",
		    name, cmd_stopped());
	} else {
		*rc = 1;
		cmd_error(pl->error != NULL ? "placer '%s': %s" : "placer '%s' offered no placement",
		    name, pl->error != NULL ? pl->error : "failed");
	}
	pl_placer_free(pl);
	return best;
}

/* Table suffixes: the compare format of a path, or -1. */
static int
table_format(const char *path)
{
	return pl_compare_format_of_suffix(plv_path_suffix(path));
}

/* Whether format name fmt agrees with path's suffix: the same format, or
 * a suffix that names none. */
static int
suffix_agrees(const char *path, const char *fmt)
{
	int v = plv_format_from_path(path), t = table_format(path);
	if (v < 0 && t < 0)
		return 1;
	return (v >= 0 && v == plv_format_parse(fmt)) || (t >= 0 && t == pl_compare_format_parse(fmt));
}

/* What export writes; a drawing flag applies to some of them. */
enum out_kind { OUT_DIAGRAM = 1, OUT_TIMELINE = 2, OUT_TABLE = 4 };

/* A flag that shapes the output: given or not, and the kinds it applies
 * to (png_only: only to a PNG). */
struct out_flag {
	const char *flag;
	int given;
	unsigned kinds;
	int png_only;
};

/* Refuse a flag given that does not apply to what is written (kind, in
 * format fmt_name, to out); 0 or 2. */
static int
check_out_flags(const struct out_flag *f, int n, enum out_kind kind, int png,
    const char *fmt_name, const char *out)
{
	static const char *const kind_names[] = { [OUT_DIAGRAM] = "a diagram",
		[OUT_TIMELINE] = "a timeline", [OUT_TABLE] = "a table" };
	for (int i = 0; i < n; i++) {
		if (!f[i].given)
			continue;
		if (!(f[i].kinds & kind))
			return cmd_error("export: %s does not apply to %s (%s)", f[i].flag,
			    kind_names[kind], out);
		if (f[i].png_only && !png)
			return cmd_error("export: %s applies to PNG only, not to %s output (%s)",
			    f[i].flag, fmt_name, out);
	}
	return 0;
}

/* Compare the methods of list on p and write the table to out; seconds,
 * the progress line and a stop signal (the methods not run left out, the
 * table written) as for run_placer(). */
static int
write_table(const struct pl_problem *p, const char *list, enum pl_compare_format f,
    const struct pl_sim_opts *so, unsigned long long seed, double seconds, const char *out)
{
	char *cause = NULL;
	const struct pl_placer_class **cls;
	if (pl_compare_methods(list, &cls, &cause) != 0) {
		cmd_error("-a: %s", cause);
		free(cause);
		return 2;
	}
	struct pl_run_opts run = { .sim = *so, .seed = seed, .threads = 1 };
	struct pl_compare *cmp = pl_compare_new(p, &run);
	double budget = seconds >= 0 ? seconds : PL_COMPARE_SECONDS;
	char spec[64];
	int n = 0, progress = isatty(STDERR_FILENO);
	while (cls[n] != NULL)
		n++;
	cmd_catch_stop();
	for (int i = 0; i < n && !cmd_stopped(); i++) {
		struct pl_placer *pl = pl_placer_new(cls[i], p, seconds_spec(cls[i], seconds, spec,
		    sizeof spec), &run, &cause);
		if (pl == NULL) {
			pl_compare_add_failure(cmp, cls[i], cause);
			free(cause);
			cause = NULL;
			continue;
		}
		char label[128];
		snprintf(label, sizeof label, "[%d/%d] %s", i + 1, n, cls[i]->name);
		if (cmd_step_placer(pl, 0, budget, label, progress))
			cmd_progress_end("%s: %s", label, pl->status != NULL ? pl->status : "");
		pl_compare_add_placer(cmp, pl);
		pl_placer_free(pl);
	}
	free(cls);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (m == NULL) {
		pl_compare_free(cmp);
		return cmd_error("%s: cannot open a memory stream", out);
	}
	pl_compare_write(cmp, f, m);
	fclose(m);
	int rc = pl_file_write_atomic(out, buf, len, &cause);
	free(buf);
	if (rc != 0) {
		pl_compare_free(cmp);
		return cmd_fail(cause);
	}
	/* as compare: the failed methods named, 1 when none found one */
	rc = cmd_compare_failures("export", cmp);
	if (cmd_stopped()) {
		fprintf(stderr, "placelab: export stopped by signal %d: %d of %d methods in %s\n",
		    cmd_stopped(), cmp->n_rows, n, pl_file_shown(out));
		rc = 128 + cmd_stopped();
	}
	pl_compare_free(cmp);
	return rc;
}

/* placelab export. */
int
cmd_export(int argc, char **argv)
{
	enum { OPT_TITLE = 256, OPT_NOLEGEND, OPT_WIDTH, OPT_DPI, OPT_SIM, OPT_MEM, OPT_SEED, OPT_SECONDS,
		OPT_FORCE, OPT_HELP };
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'c' },
		{ "placement", required_argument, NULL, 'p' },
		{ "placer", required_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "level", required_argument, NULL, 'l' },
		{ "max-nodes", required_argument, NULL, 'm' },
		{ "timeline", no_argument, NULL, 't' },
		{ "layout", required_argument, NULL, 'L' },
		{ "rankdir", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "no-legend", no_argument, NULL, OPT_NOLEGEND },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "dpi", required_argument, NULL, OPT_DPI },
		{ "sim", required_argument, NULL, OPT_SIM },
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	const char *cluster_arg = NULL, *place_path = NULL, *placer = NULL, *out = NULL;
	const char *fmt = NULL;
	int level_set = 0, max_set = 0, layout_set = 0, rankdir_set = 0, title_set = 0;
	int nolegend_set = 0, width_set = 0, dpi_set = 0;
	unsigned long long seed = 1;
	double seconds = -1;	/* --seconds: not given */
	const char *run_flag = NULL;	/* --seed or --seconds given */
	struct plv_opts o;
	plv_opts_init(&o);
	struct pl_sim_opts so = { .kind = PL_SIM_NATIVE, .mem = PL_MEM_NATIVE };
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:p:a:o:l:m:tL:r:f:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': cluster_arg = optarg; break;
		case 'p': place_path = optarg; break;
		case 'a': placer = optarg; break;
		case 'o': out = cmd_out_path(optarg); break;
		case 'l':
			if (strcmp(optarg, "full") == 0)
				o.level = PL_COARSE_FULL;
			else if (cmd_parse_int("level", optarg, 0, 1000000000, &o.level) != 0)
				return 2;
			level_set = 1;
			break;
		case 'm':
			if (cmd_parse_int("max-nodes", optarg, 1, 1000000000, &o.max_nodes) != 0)
				return 2;
			max_set = 1;
			break;
		case 't': o.timeline = 1; break;
		case 'L': o.layout = optarg; layout_set = 1; break;
		case 'r':
			if (strcmp(optarg, "LR") != 0 && strcmp(optarg, "TB") != 0 &&
			    strcmp(optarg, "RL") != 0 && strcmp(optarg, "BT") != 0 &&
			    strcmp(optarg, "auto") != 0)
				return cmd_error("--rankdir: expected auto, LR, TB, RL or BT, got '%s'", optarg);
			o.rankdir = optarg;
			rankdir_set = 1;
			break;
		case 'f': fmt = optarg; break;
		case OPT_TITLE: {	/* drawn into SVG and Graphviz labels */
			size_t len = strlen(optarg), bad = pl_utf8_check(optarg, len);
			if (bad < len)
				return cmd_error("--title: byte %zu (0x%02X) is not UTF-8 "
				    "(expected UTF-8 text)", bad + 1, (unsigned char)optarg[bad]);
			o.title = optarg;
			title_set = 1;
			break;
		}
		case OPT_NOLEGEND: o.legend = 0; nolegend_set = 1; break;
		case OPT_WIDTH:
			if (cmd_parse_num("width", optarg, 1, 100, &o.width_in) != 0)	/* inches */
				return 2;
			width_set = 1;
			break;
		case OPT_DPI:
			if (cmd_parse_num("dpi", optarg, 10, 2400, &o.dpi) != 0)
				return 2;
			dpi_set = 1;
			break;
		case OPT_SIM:
			if (cmd_parse_sim(optarg, &so) != 0)
				return 2;
			break;
		case OPT_MEM:
			if (cmd_parse_mem(optarg, &so) != 0)
				return 2;
			break;
		case OPT_SEED:
			if (cmd_parse_seed("seed", optarg, &seed) != 0)
				return 2;
			run_flag = "--seed";
			break;
		case OPT_SECONDS:
			if (cmd_parse_num("seconds", optarg, 0, 1e9, &seconds) != 0)
				return 2;
			run_flag = "--seconds";
			break;
		case OPT_FORCE: o.force = 1; break;
		case 'h':
		case OPT_HELP:
			fputs(export_usage, stdout);
			return 0;
		default:
			fputs(export_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(export_usage, stderr);
		return cmd_error(optind >= argc ? "export: GRAPH missing" : "export: one GRAPH expected");
	}
	if (out == NULL)
		return cmd_error("export: -o FILE missing");
	if (fmt == NULL && strcmp(out, "/dev/stdout") == 0)	/* -o - */
		return cmd_error("export: standard output has no suffix to tell the format by "
		    "(add --format, e.g. --format svg)");
	int tf = fmt != NULL ? pl_compare_format_parse(fmt) : table_format(out);
	int is_table = tf >= 0 && plv_format_parse(fmt != NULL ? fmt : "") < 0;
	if (cmd_check_files((const struct cmd_file[]){ { "GRAPH", argv[optind], 0, NULL },
	    { "-c", pl_cluster_arg_file(cluster_arg), 0, NULL }, { "-p", place_path, 0, NULL },
	    { "-o", out, 1, is_table && tf == PL_CMP_JSON ? PL_FORMAT_COMPARE : NULL } }, 4) != 0)
		return 2;
	if ((place_path == NULL) == (placer == NULL))
		return cmd_error("export: give exactly one of -p PLACEMENT and -a PLACER");
	if (level_set && max_set)
		return cmd_error("export: --level and --max-nodes exclude each other");
	if (level_set)
		o.max_nodes = 0;
	if (fmt != NULL && !suffix_agrees(out, fmt))
		return cmd_error("export: --format %s, but %s is named for another format", fmt, out);
	int vf = fmt != NULL ? plv_format_parse(fmt) : plv_format_from_path(out);
	const unsigned drawings = OUT_DIAGRAM | OUT_TIMELINE;
	const struct out_flag flags[] = {
		{ "--timeline", o.timeline, drawings, 0 },
		{ "--level", level_set, OUT_DIAGRAM, 0 },
		{ "--max-nodes", max_set, OUT_DIAGRAM, 0 },
		{ "--layout", layout_set, OUT_DIAGRAM, 0 },
		{ "--rankdir", rankdir_set, OUT_DIAGRAM, 0 },
		{ "--force", o.force, OUT_DIAGRAM, 0 },
		{ "--width", width_set, OUT_TIMELINE, 0 },
		{ "--title", title_set, drawings, 0 },
		{ "--no-legend", nolegend_set, drawings, 0 },
		{ "--dpi", dpi_set, drawings, 1 },
	};
	if (check_out_flags(flags, (int)(sizeof flags / sizeof *flags),
	    is_table ? OUT_TABLE : o.timeline ? OUT_TIMELINE : OUT_DIAGRAM, vf == PLV_FMT_PNG,
	    is_table ? pl_compare_format_name((enum pl_compare_format)tf) :
	    vf >= 0 ? plv_format_name((enum plv_format)vf) : "this", out) != 0)
		return 2;
	if (!is_table && so.mem == PL_MEM_NONE)	/* a drawing shows peaks */
		return cmd_error("--mem none: a %s shows peak memory; expected native or placeto "
		    "(none is for tables)", o.timeline ? "timeline" : "diagram");
	if (is_table && placer == NULL)
		return cmd_error("export: a table compares methods: give -a LIST "
		    "(e.g. -a expert,heft), not -p");
	if (place_path != NULL && run_flag != NULL)
		return cmd_error("export: %s applies to -a PLACER only (-p draws a placement as it is)",
		    run_flag);
	if (is_table) {
		struct pl_graph *tg = cmd_load_graph(argv[optind]);
		if (tg == NULL)
			return 2;
		struct pl_cluster *tc = cmd_load_cluster(cluster_arg);
		int trc = 2;
		char *why = NULL;
		struct pl_problem *tp = tc != NULL ? pl_problem_new(tg, tc, &why) : NULL;
		if (tp != NULL) {
			trc = write_table(tp, placer, (enum pl_compare_format)tf, &so, seed, seconds, out);
			pl_problem_free(tp);
		} else if (tc != NULL)
			cmd_fail(why);
		if (tc != NULL)
			pl_cluster_free(tc);
		pl_graph_free(tg);
		return trc;
	}
	int f = vf;	/* what FILE is first: a list may be meant for a table */
	if (f < 0)
		return cmd_error(fmt != NULL ? "--format: expected svg, pdf, png, dot, md, csv, tex, "
		    "json or table, got '%s'" : "export: cannot tell the format of '%s' (use .svg .pdf "
		    ".png .dot, .md .csv .tex .json .txt, or --format)", fmt != NULL ? fmt : out);
	if (placer != NULL && strchr(placer, ',') != NULL)
		return cmd_error("export: a %s shows one placement: give one placer to -a",
		    o.timeline ? "timeline" : "diagram");
	o.format = (enum plv_format)f;
	char *bad = NULL;
	if (plv_opts_check(&o, &bad) != 0) {
		cmd_error("%s: %s", pl_file_shown(out), bad);
		free(bad);
		return 2;
	}

	const char *graph_path = argv[optind];
	int rc = 2, stopped_in_method = 0;
	/* a first stop signal ends a method's run (its best drawn) or, while
	 * the drawing is made, lets it finish: its temporary files go */
	cmd_catch_stop();
	struct pl_graph *g = NULL;
	struct pl_cluster *c = NULL;
	struct pl_problem *p = NULL;
	struct pl_placement *pl = NULL;
	struct pl_trace *t = NULL;
	char *cause = NULL;
	if ((g = cmd_load_graph(graph_path)) == NULL)
		goto out;
	if ((c = cmd_load_cluster(cluster_arg)) == NULL)
		goto out;
	if ((p = pl_problem_new(g, c, &cause)) == NULL) {
		cmd_fail(cause);
		goto out;
	}
	if (place_path != NULL) {
		if ((pl = pl_placement_load_json(place_path, g, c, NULL, &cause)) == NULL) {
			cmd_fail(cause);
			goto out;
		}
	} else {
		pl = run_placer(p, placer, &so, seed, seconds, &rc);
		stopped_in_method = cmd_stopped();
		if (pl == NULL)
			goto out;
	}
	if ((t = pl_sim_trace(p, pl, &so, &cause)) == NULL) {
		cmd_fail(cause);
		goto out;
	}
	if (plv_export(p, pl, t, &o, out, &cause) != 0) {
		cmd_fail(cause);
		goto out;
	}
	int used = pl_placement_devices_used(pl);
	if (max_set && o.max_nodes < used)	/* only diagrams take --max-nodes */
		fprintf(stderr, "placelab: note: --max-nodes %d is below the %d devices this "
		    "placement uses; the diagram has one node per device\n", o.max_nodes, used);
	rc = 0;
	if (stopped_in_method) {
		fprintf(stderr, "placelab: %s stopped by signal %d: its best so far drawn in %s\n",
		    placer, cmd_stopped(), pl_file_shown(out));
		rc = 128 + cmd_stopped();
	} else if (cmd_stopped()) {
		fprintf(stderr, "placelab: export: signal %d came while drawing: %s was "
		    "finished first\n", cmd_stopped(), pl_file_shown(out));
		rc = 128 + cmd_stopped();
	}
out:
	if (t != NULL)
		pl_trace_free(t);
	if (pl != NULL)
		pl_placement_free(pl);
	if (p != NULL)
		pl_problem_free(p);
	if (c != NULL)
		pl_cluster_free(c);
	if (g != NULL)
		pl_graph_free(g);
	return rc;
}
