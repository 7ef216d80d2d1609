/*
 * cmd-gen — `placelab gen`: write sample graphs (benchmark models as
 * training steps, random families, toy graphs) and the table of samples
 * that docs/SAMPLES.md shows.
 *
 * Invariant: output depends only on the arguments (models are
 * deterministic for a seed); files are written atomically.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "compare.h"
#include "gen/gen.h"
#include "fileio.h"
#include "io.h"
#include "strbuf.h"
#include "xmalloc.h"

static const char gen_usage[] =
    "usage: placelab gen MODEL [options] [-o FILE]\n"
    "       placelab gen family NAME [--count N] [--seed S] [options] -o DIR\n"
    "       placelab gen table GRAPH...\n"
    "       placelab gen cluster PRESET [-o FILE]\n"
    "       placelab gen --list\n"
    "\n"
    "Options (a size 0 or absent: the model's default, see docs/SAMPLES.md):\n"
    "  -g, --granularity op|layer  framework-sized ops (default) or one op per layer\n"
    "  -F, --forward-only          no backward and update ops\n"
    "  -b, --batch N               batch size\n"
    "  -T, --seq-len N             time steps (RNNs, Transformer)\n"
    "  -H, --hidden N              hidden units / d_model / NAS filters\n"
    "  -L, --layers N              layers (per side for NMT and Transformer)\n"
    "  -V, --vocab N               vocabulary size\n"
    "  -I, --image N               image height and width (CNNs)\n"
    "  -C, --cells N               NAS cells per stack / ENAS-RNN nodes\n"
    "  -d, --dtype-bytes N         bytes per element (default 4)\n"
    "  -O, --optimizer NAME        adam, sgd or momentum\n"
    "  -s, --seed N                randomise a family model (enas-cnn, enas-rnn, nmt;\n"
    "                              0 is a seed too; absent: the model itself)\n"
    "  -n, --count N               family members, 1 to 10000 (default 32)\n"
    "  -S, --stats                 print the model's figures (MACs, params, step GFLOPs) instead of the graph\n"
    "  -o, --output PATH           file (or directory for a family); default stdout\n";

/* Parse a whole number in [0, 2^30], written as pl_parse_whole() reads
 * it (5e3 too). */
static int
parse_int(const char *s, int *out)
{
	long long v;
	if (pl_parse_whole(s, &v) != 0 || v < 0 || v > 1 << 30)
		return -1;
	*out = (int)v;
	return 0;
}

/* Print the model list with where each model's defaults come from. */
static void
list_models(void)
{
	for (const struct pl_gen_model *m = pl_gen_models; m->name != NULL; m++) {
		printf("%-13s %s%s\n", m->name, m->summary, m->family ? " [family: --seed]" : "");
		printf("%-13s   defaults: %s\n", "", m->source);
		printf("%-13s   options:  %s\n", "", *m->options ? m->options : "none");
	}
}

/* The model a graph name comes from (longest matching prefix), or NULL. */
static const struct pl_gen_model *
model_of(const char *gname)
{
	const struct pl_gen_model *best = NULL;
	size_t bl = 0;
	for (const struct pl_gen_model *m = pl_gen_models; m->name != NULL; m++) {
		size_t l = strlen(m->name);
		if (strncmp(gname, m->name, l) == 0 && l > bl) {
			best = m;
			bl = l;
		}
	}
	return best;
}

/* One row of `gen table`: what it shows of a graph file. */
struct table_row {
	char *graph;
	int n_ops, n_edges;
	double gflops, param_mb;
};

/* `gen table`: one Markdown row per graph file, JSON or DOT
 * (docs/SAMPLES.md); every file is read before the table is printed, so
 * a file that does not load leaves no half table. */
static int
table(int argc, char **argv)
{
	struct table_row *rows = pl_xcalloc((size_t)argc, sizeof *rows);
	int rc = 0, n = 0;
	for (; n < argc; n++) {
		struct pl_graph *g = cmd_load_graph(argv[n]);
		if (g == NULL) {
			rc = 2;
			break;
		}
		int64_t pb, slots;
		pl_graph_param_bytes(g, &pb, &slots);
		rows[n] = (struct table_row){ pl_xstrdup(g->name), g->n_ops, g->n_edges,
		    pl_graph_total_flops(g) / 1e9, (double)pb / 1e6 };
		pl_graph_free(g);
	}
	if (rc == 0) {
		printf("| file | graph | model | ops | edges | GFLOPs/step | params MB |\n");
		printf("|---|---|---|---:|---:|---:|---:|\n");
	}
	for (int i = 0; rc == 0 && i < argc; i++) {
		const char *file = strrchr(argv[i], '/');
		file = file != NULL ? file + 1 : argv[i];
		const char *dir = strstr(argv[i], "samples/");
		const struct pl_gen_model *m = model_of(rows[i].graph);
		/* names as Markdown cells (a '|' in one would add a column) */
		const char *names[] = { dir != NULL ? dir + 8 : file, rows[i].graph, m != NULL ? m->name : "" };
		for (int k = 0; k < 3; k++) {
			fputs(k == 0 ? "| " : " | ", stdout);
			pl_compare_md_cell(stdout, names[k]);
		}
		printf(" | %d | %d | %.1f | %.1f |\n", rows[i].n_ops, rows[i].n_edges,
		    rows[i].gflops, rows[i].param_mb);
	}
	for (int i = 0; i < n; i++)
		free(rows[i].graph);
	free(rows);
	return rc;
}

/* Refuse an option model name does not read (an unknown name is
 * pl_gen()'s to report).  0, or 2 after the error. */
static int
check_applies(const char *name, const struct pl_gen_opts *o)
{
	char *why = NULL;
	const struct pl_gen_model *m = pl_gen_model_find(name);
	return m != NULL && pl_gen_check_applies(m, o, &why) != 0 ? cmd_fail(why) : 0;
}

/* Before any graph is made: 0, or 2 after saying why, when path (NULL or
 * "-": standard output) cannot be written (a directory, a missing or
 * read-only folder) or holds a placelab document of another kind than
 * writes. */
static int
check_output(const char *path, const char *writes)
{
	char *cause;
	if (path == NULL || strcmp(path, "-") == 0)
		return 0;
	if (pl_file_check_writable(path, &cause) != 0 ||
	    (cause = pl_file_kind_clash(path, writes)) != NULL) {
		cmd_error("-o %s", cause);
		free(cause);
		return 2;
	}
	return 0;
}

/* Write a graph to path, or to stdout when path is NULL. */
static int
emit(const struct pl_graph *g, const char *path)
{
	char *cause = NULL;
	if (path == NULL || strcmp(path, "-") == 0) {
		char *s = pl_graph_to_json(g);
		fputs(s, stdout);
		free(s);
		if (fflush(stdout) == 0 && !ferror(stdout))
			return 0;
		/* said once, with why: what is left of it is dropped, so that
		 * the end of the program has no failed output to report again */
		cmd_error("write error on standard output: %s", strerror(errno != 0 ? errno : EIO));
		__fpurge(stdout);
		clearerr(stdout);
		return 2;
	}
	if (pl_graph_save_json(g, path, &cause) != 0)
		return cmd_fail(cause);
	return 0;
}

/* `gen cluster`: a compiled-in preset as an editable cluster file. */
static int
write_cluster(const char *name, const char *path)
{
	struct pl_cluster *c = pl_cluster_preset(name);
	if (c == NULL)
		return cmd_error("gen cluster: no preset '%s' (see 'placelab clusters')", name);
	int rc = 0;
	char *cause = NULL;
	if (path == NULL || strcmp(path, "-") == 0) {
		char *s = pl_cluster_to_json(c);
		fputs(s, stdout);
		free(s);
	} else if ((rc = check_output(path, PL_FORMAT_CLUSTER)) != 0) {
		/* said */
	} else if (pl_cluster_save_json(c, path, &cause) != 0)
		rc = cmd_fail(cause);
	pl_cluster_free(c);
	return rc;
}

/* gen's options (every form's; forms[] says which takes which). */
static const struct option longopts[] = {
	{ "granularity", required_argument, NULL, 'g' },
	{ "forward-only", no_argument, NULL, 'F' },
	{ "batch", required_argument, NULL, 'b' },
	{ "seq-len", required_argument, NULL, 'T' },
	{ "hidden", required_argument, NULL, 'H' },
	{ "layers", required_argument, NULL, 'L' },
	{ "vocab", required_argument, NULL, 'V' },
	{ "image", required_argument, NULL, 'I' },
	{ "cells", required_argument, NULL, 'C' },
	{ "dtype-bytes", required_argument, NULL, 'd' },
	{ "optimizer", required_argument, NULL, 'O' },
	{ "seed", required_argument, NULL, 's' },
	{ "count", required_argument, NULL, 'n' },
	{ "stats", no_argument, NULL, 'S' },
	{ "output", required_argument, NULL, 'o' },
	{ "list", no_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The long name of option letter ch. */
static const char *
long_name(int ch)
{
	for (const struct option *lo = longopts; lo->name != NULL; lo++)
		if (lo->val == ch)
			return lo->name;
	return "";
}

/* The option letters a model reads (pl_gen_check_applies() says which of
 * them each model does), and gen's forms with the letters each takes; a
 * model takes these with -o for the graph, or -S for its figures. */
#define MODEL_LETTERS "gFbTHLVICdOs"
static const struct {
	const char *form, *takes;
} forms[] = {
	{ "table", "" }, { "cluster", "o" }, { "family", MODEL_LETTERS "no" },
};

/* `placelab gen`. */
int
cmd_gen(int argc, char **argv)
{
	struct pl_gen_opts o;
	memset(&o, 0, sizeof o);
	const char *out = NULL;
	int count = 32, stats = 0, ch, *ip;
	char given[32] = "";	/* the options given, by letter */
	optind = 1;
	while ((ch = getopt_long(argc, argv, "g:Fb:T:H:L:V:I:C:d:O:s:n:So:lh", longopts, NULL)) != -1) {
		ip = NULL;
		if (ch != '?' && strchr(given, ch) == NULL && strlen(given) < sizeof given - 1)
			given[strlen(given)] = (char)ch;
		switch (ch) {
		case 'g':
			if (strcmp(optarg, "op") == 0)
				o.granularity = PL_GEN_OP;
			else if (strcmp(optarg, "layer") == 0)
				o.granularity = PL_GEN_LAYER;
			else
				return cmd_error("gen: --granularity '%s' (expected op or layer)", optarg);
			break;
		case 'F': o.forward_only = 1; break;
		case 'b': ip = &o.batch; break;
		case 'T': ip = &o.seq_len; break;
		case 'H': ip = &o.hidden; break;
		case 'L': ip = &o.layers; break;
		case 'V': ip = &o.vocab; break;
		case 'I': ip = &o.image; break;
		case 'C': ip = &o.cells; break;
		case 'd': ip = &o.dtype_bytes; break;
		case 'n': ip = &count; break;
		case 'O': o.optimizer = optarg; break;
		case 's': {
			unsigned long long v;
			if (cmd_parse_seed("seed", optarg, &v) != 0)
				return 2;
			o.seed = v;
			o.seeded = 1;
			break;
		}
		case 'S': stats = 1; break;
		case 'o': out = optarg; break;
		case 'l': list_models(); return 0;
		case 'h': fputs(gen_usage, stdout); return 0;
		default: fputs(gen_usage, stderr); return 2;
		}
		if (ip != NULL && parse_int(optarg, ip) != 0)
			return cmd_error("gen: --%s (-%c) '%s' (expected a whole number up to 2^30)",
			    long_name(ch), ch, optarg);
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		fputs(gen_usage, stderr);
		return 2;
	}
	/* what each form takes: an option it ignores is an error */
	const char *form = NULL;
	const char *takes = strchr(given, 'S') ? MODEL_LETTERS "S" : MODEL_LETTERS "o";
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (strcmp(argv[0], forms[i].form) == 0) {
			form = forms[i].form;
			takes = forms[i].takes;
		}
	for (const char *c = given; *c; c++)
		if (strchr(takes, *c) == NULL) {
			if (form == NULL && *c == 'o')
				return cmd_error("gen: --stats prints to standard output; -o is for the graph");
			return cmd_error("gen%s%s: --%s (-%c) does not apply (see 'placelab gen --help')",
			    form != NULL ? " " : "", form != NULL ? form : "", long_name(*c), *c);
		}
	if (form != NULL && strcmp(form, "table") == 0) {
		if (argc < 2)
			return cmd_error("gen table: expected one or more graph files");
		return table(argc - 1, argv + 1);
	}
	if (strcmp(argv[0], "cluster") == 0) {
		if (argc != 2)
			return cmd_error("gen cluster: expected one preset name ('placelab clusters')");
		return write_cluster(argv[1], out);
	}
	if (strcmp(argv[0], "family") == 0) {
		if (argc != 2)
			return cmd_error("gen family: expected one family name (enas-cnn, enas-rnn or nmt)");
		if (out == NULL)
			return cmd_error("gen family: -o DIR is required");
		if (strcmp(out, "-") == 0)	/* elsewhere "-" is standard output */
			return cmd_error("gen family: -o -: a family is a directory of files "
			    "(expected -o DIR)");
		if (count < 1 || count > 10000)
			return cmd_error("gen family: --count %d (expected 1..10000)", count);
		if (o.seed > PL_SEED_MAX - (unsigned long long)(count - 1))	/* member i is --seed S+i */
			return cmd_error("gen family: --seed %llu with --count %d: the last member's seed "
			    "would pass %llu (expected --seed at most %llu)", (unsigned long long)o.seed,
			    count, PL_SEED_MAX, PL_SEED_MAX - (unsigned long long)(count - 1));
		const struct pl_gen_model *fm = pl_gen_model_find(argv[1]);
		if (fm == NULL || !fm->family)	/* before the directory is made */
			return cmd_error("gen family: no family '%s' (expected enas-cnn, enas-rnn or nmt)",
			    cmd_safe(argv[1]));
		if (check_applies(argv[1], &o) != 0)
			return 2;
		int made = mkdir(out, 0777) == 0;	/* an empty one is taken back */
		if (!made && errno != EEXIST)
			return cmd_error("gen family: cannot create directory '%s': %s", out, strerror(errno));
		for (int i = 0; i < count; i++) {	/* every member's file first */
			char *path = pl_xasprintf("%s/%s-%02d.json", out, argv[1], i);
			int rc = check_output(path, PL_FORMAT_GRAPH);
			free(path);
			if (rc != 0) {
				if (made)
					rmdir(out);
				return rc;
			}
		}
		for (int i = 0; i < count; i++) {
			char *cause = NULL;
			struct pl_graph *g = pl_gen_family_member(argv[1], i, o.seed, &o, &cause);
			if (g == NULL) {
				if (made && i == 0)
					rmdir(out);
				return cmd_fail(cause);
			}
			char *path = pl_xasprintf("%s/%s-%02d.json", out, argv[1], i);
			int rc = emit(g, path);
			free(path);
			pl_graph_free(g);
			if (rc != 0)
				return rc;
		}
		return 0;
	}
	if (argc != 1)
		return cmd_error("gen: expected one model (try 'placelab gen --list')");
	if (check_applies(argv[0], &o) != 0 || (!stats && check_output(out, PL_FORMAT_GRAPH) != 0))
		return 2;
	char *cause = NULL;
	struct pl_gen_stats st;
	struct pl_graph *g = pl_gen(argv[0], &o, &st, &cause);
	if (g == NULL)
		return cmd_fail(cause);
	int rc = 0;
	if (stats) {
		printf("graph          %s\n", g->name);
		printf("ops            %d\n", g->n_ops);
		printf("edges          %d\n", g->n_edges);
		printf("batch          %d\n", st.batch);
		printf("fwd_gflops     %.6f\n", st.fwd_flops / 1e9);
		printf("fwd_gmacs      %.6f\n", st.fwd_macs / 1e9);
		printf("fwd_gmacs_per_sample %.6f\n", st.batch > 0 ? st.fwd_macs / 1e9 / st.batch : 0.0);
		printf("params_m       %.6f\n", (double)st.params / 1e6);
		printf("step_gflops    %.6f\n", pl_graph_total_flops(g) / 1e9);
	} else
		rc = emit(g, out);
	pl_graph_free(g);
	return rc;
}
