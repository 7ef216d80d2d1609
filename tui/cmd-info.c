/*
 * cmd-info — `placelab info`, `placelab validate` and `placelab clusters`:
 * look at inputs without placing anything.
 */
#include "config.h"

#include <cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fileio.h"
#include "io.h"
#include "viz/load.h"
#include "nn/nn.h"
#include "nn/policy.h"
#include "placer.h"
#include "placers/brkga.h"
#include "placers/placeto.h"
#include "problem.h"
#include "xmalloc.h"

struct type_count {
	const char *type;
	int count;
	double flops;
};

/* Sort op types by count, descending, then name. */
static int
type_cmp(const void *a, const void *b)
{
	const struct type_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->type, y->type);
}

/* Histogram of op types (sorted); returns the number of types. */
static int
type_histogram(const struct pl_graph *g, struct type_count **out)
{
	struct type_count *t = pl_xcalloc(g->n_ops, sizeof *t);
	int n = 0;
	/* Types are few: a linear probe over the distinct ones is enough. */
	for (int v = 0; v < g->n_ops; v++) {
		int k;
		for (k = 0; k < n; k++)
			if (strcmp(t[k].type, g->ops[v].type) == 0)
				break;
		if (k == n)
			t[n++].type = g->ops[v].type;
		t[k].count++;
		t[k].flops += g->ops[v].flops;
	}
	qsort(t, n, sizeof *t, type_cmp);
	*out = t;
	return n;
}

/* Named colocation groups and the largest group's size. */
static void
group_stats(const struct pl_graph *g, int *named, int *largest)
{
	*named = *largest = 0;
	for (int k = 0; k < g->n_groups; k++) {
		if (g->groups[k].name != NULL)
			(*named)++;
		if (g->groups[k].count > *largest)
			*largest = g->groups[k].count;
	}
}

/* The width of the summary's labels ("activations" and a space). */
#define LABEL_W 12

/* Print the summary as text: labels in one column, op types and device
 * names each in a column as wide as the longest shown (up to 40). */
static void
info_text(const struct pl_graph *g, const struct pl_problem *p)
{
	int plen;
	double pflops = pl_graph_longest_flops_path(g, NULL, &plen);
	int named, largest;
	group_stats(g, &named, &largest);
	printf("%-*s%s\n", LABEL_W, "graph", cmd_safe(g->name));
	printf("%-*s%d\n", LABEL_W, "ops", g->n_ops);
	printf("%-*s%d (%d tensors)\n", LABEL_W, "edges", g->n_edges, g->n_tensors);
	printf("%-*s%.3f GFLOPs per step\n", LABEL_W, "compute", pl_graph_total_flops(g) / 1e9);
	int64_t params, slots;
	pl_graph_param_bytes(g, &params, &slots);
	printf("%-*s%.2f MB\n", LABEL_W, "params", (double)params / 1e6);
	if (slots > 0)
		printf("%-*s%.2f MB (slots the update ops keep, not parameters)\n",
		    LABEL_W, "optimizer", (double)slots / 1e6);
	printf("%-*s%.2f MB\n", LABEL_W, "activations", (double)pl_graph_total_activations(g) / 1e6);
	printf("%-*s%d ops, %.3f GFLOPs\n", LABEL_W, "longest", plen, pflops / 1e9);
	printf("%-*s%d (%d colocation groups, largest %d ops)\n", LABEL_W, "groups",
	    g->n_groups, named, largest);
	struct type_count *t;
	int nt = type_histogram(g, &t);
	printf("%-*s%d\n", LABEL_W, "op types", nt);
	int tw = 18;
	for (int k = 0; k < nt && k < 12; k++) {
		int len = cmd_width_max(0, *t[k].type ? t[k].type : "(none)");
		if (len > tw)
			tw = len < 40 ? len : 40;
	}
	for (int k = 0; k < nt && k < 12; k++) {
		fputs("  ", stdout);
		cmd_put_padded(stdout, *t[k].type ? t[k].type : "(none)", tw);
		printf(" %7d  %10.3f GFLOPs\n", t[k].count, t[k].flops / 1e9);
	}
	if (nt > 12)
		printf("  ... %d more\n", nt - 12);
	free(t);
	if (p != NULL) {
		const struct pl_cluster *c = p->c;
		printf("%-*s%s: %d devices\n", LABEL_W, "cluster", cmd_safe(c->name), c->n_dev);
		int dw = 10;
		for (int d = 0; d < c->n_dev; d++) {
			int len = cmd_width_max(0, c->dev[d].name);
			if (len > dw)
				dw = len < 40 ? len : 40;
		}
		for (int d = 0; d < c->n_dev; d++) {
			double total = 0;
			for (int v = 0; v < g->n_ops; v++)
				total += pl_problem_op_us(p, v, d);
			fputs("  ", stdout);
			cmd_put_padded(stdout, c->dev[d].name, dw);
			printf(" %-3s %8.2f TFLOP/s %7.1f GiB  all ops here: %.3f ms\n",
			    pl_dev_kind_name(c->dev[d].kind), c->dev[d].peak_flops / 1e12,
			    (double)c->dev[d].mem_bytes / 1073741824.0, total / 1e3);
		}
	}
}

/* Print the summary as JSON. */
static void
info_json(const struct pl_graph *g, const struct pl_problem *p)
{
	cJSON *o = cJSON_CreateObject();
	int plen, named, largest;
	double pflops = pl_graph_longest_flops_path(g, NULL, &plen);
	group_stats(g, &named, &largest);
	cJSON_AddStringToObject(o, "format", "placelab-info/1");
	cJSON_AddStringToObject(o, "graph", g->name);
	cJSON_AddNumberToObject(o, "ops", g->n_ops);
	cJSON_AddNumberToObject(o, "edges", g->n_edges);
	cJSON_AddNumberToObject(o, "tensors", g->n_tensors);
	cJSON_AddNumberToObject(o, "gflops", pl_graph_total_flops(g) / 1e9);
	int64_t params, slots;
	pl_graph_param_bytes(g, &params, &slots);
	cJSON_AddNumberToObject(o, "param_mb", (double)params / 1e6);
	cJSON_AddNumberToObject(o, "optimizer_mb", (double)slots / 1e6);
	cJSON_AddNumberToObject(o, "activation_mb", (double)pl_graph_total_activations(g) / 1e6);
	cJSON_AddNumberToObject(o, "longest_path_ops", plen);
	cJSON_AddNumberToObject(o, "longest_path_gflops", pflops / 1e9);
	cJSON_AddNumberToObject(o, "groups", g->n_groups);
	cJSON_AddNumberToObject(o, "colocation_groups", named);
	struct type_count *t;
	int nt = type_histogram(g, &t);
	cJSON *types = cJSON_AddObjectToObject(o, "op_types");
	for (int k = 0; k < nt; k++)
		cJSON_AddNumberToObject(types, t[k].type, t[k].count);
	free(t);
	if (p != NULL) {
		cJSON *devs = cJSON_AddArrayToObject(o, "devices");
		for (int d = 0; d < p->n_dev; d++) {
			double total = 0;
			for (int v = 0; v < g->n_ops; v++)
				total += pl_problem_op_us(p, v, d);
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", p->c->dev[d].name);
			cJSON_AddNumberToObject(e, "all_ops_us", total);
			cJSON_AddItemToArray(devs, e);
		}
		cJSON_AddStringToObject(o, "cluster", p->c->name);
	}
	char *s = pl_json_print(o);
	puts(s);
	free(s);
	cJSON_Delete(o);
}

/* placelab info GRAPH [-c CLUSTER] [--json] */
int
cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cluster = NULL;
	int json = 0, ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:jh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': cluster = optarg; break;
		case 'j': json = 1; break;
		case 'h':
			printf("usage: placelab info GRAPH [-c CLUSTER] [--json]\n"
			    "Summarise a graph: ops, edges, GFLOPs, parameter, optimizer-state\n"
			    "(the slots update ops keep) and activation MB, longest path by\n"
			    "FLOPs, op types, groups; with -c, each device's time to run the\n"
			    "whole graph.\n");
			return 0;
		default:
			return cmd_error("usage: placelab info GRAPH [-c CLUSTER] [--json]");
		}
	}
	if (optind != argc - 1)
		return cmd_error("usage: placelab info GRAPH [-c CLUSTER] [--json]");
	struct pl_graph *g = cmd_load_graph(argv[optind]);
	if (g == NULL)
		return 2;
	struct pl_cluster *c = NULL;
	struct pl_problem *p = NULL;
	if (cluster != NULL) {
		char *cause = NULL;
		if ((c = cmd_load_cluster(cluster)) == NULL ||
		    (p = pl_problem_new(g, c, &cause)) == NULL) {
			if (cause != NULL)
				cmd_fail(cause);
			pl_cluster_free(c);
			pl_graph_free(g);
			return 2;
		}
	}
	if (json)
		info_json(g, p);
	else
		info_text(g, p);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return 0;
}

/* The "format" tag of a JSON file, or NULL (caller frees). */
static char *
format_tag(const char *text, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
	char *tag = cJSON_IsString(f) ? pl_xstrdup(f->valuestring) : NULL;
	cJSON_Delete(root);
	return tag;
}

/* Whether tags a and b name one kind of document, whatever their
 * versions ("placelab-graph/2" and "placelab-graph/1"): its parser then
 * says which versions it reads. */
static int
same_kind(const char *a, const char *b)
{
	size_t n = strcspn(b, "/");
	return strncmp(a, b, n) == 0 && a[n] == '/';
}

/* Validate a trained policy's weight file (magic, version, shapes,
 * checksum); returns 0 or 2. */
static int
validate_policy(const char *path, const char *text, size_t len)
{
	char *cause = NULL;
	struct pl_nn_file *f = pl_nn_file_decode((const unsigned char *)text, len, path, &cause);
	if (f == NULL)
		return cmd_fail(cause);
	/* what every loader checks: a Placeto policy's metadata, each
	 * tensor's name and shape against the network it describes, and its
	 * input width against its features */
	char *meta = NULL;
	struct pl_policy *p = pl_policy_from_file(f, path, &meta, &cause);
	int memf = p != NULL ? pl_placeto_policy_check(p, meta, path, &cause) : -1;
	pl_policy_free(p);
	free(meta);
	if (memf < 0) {
		pl_nn_file_free(f);
		return cmd_fail(cause);
	}
	size_t ml = strcspn(f->meta, "\n");
	printf("%s: ok (trained policy, %d tensors, %zu parameters; %.*s)\n", path,
	    f->n_tensors, f->n_params, (int)ml, f->meta);
	pl_nn_file_free(f);
	return 0;
}

/* Validate a BRKGA Beta file against -g GRAPH on -c CLUSTER (its ops,
 * tensors and devices; whatever the population size); returns 0 or 2. */
static int
validate_beta(const char *path, const char *text, size_t len, const char *graph_path,
    const char *cluster_arg)
{
	if (graph_path == NULL)
		return cmd_error("%s: Beta parameters are checked against a graph "
		    "(expected -g GRAPH [-c CLUSTER])", path);
	struct pl_graph *g = cmd_load_graph(graph_path);
	struct pl_cluster *c = g != NULL ? cmd_load_cluster(cluster_arg) : NULL;
	char *cause = NULL;
	struct pl_problem *p = c != NULL ? pl_problem_new(g, c, &cause) : NULL;
	int rc = 2;
	if (p != NULL && pl_brkga_check_beta(p, 1, text, len, path, &cause) == 0) {
		printf("%s: ok (BRKGA Beta parameters for graph '%s' on cluster '%s')\n", cmd_safe(path),
		    cmd_safe(g->name), cmd_safe(c->name));
		rc = 0;
	} else if (cause != NULL)
		cmd_fail(cause);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return rc;
}

/* Validate one file; returns 0 or 2. */
static int
validate_one(const char *path, const char *graph_path, const char *cluster_arg)
{
	char *cause = NULL;
	size_t len;
	char *text = pl_file_read(path, &len, &cause);
	if (text == NULL)
		return cmd_fail(cause);
	char kind[64];
	if (len >= 8 && memcmp(text, PL_NN_FILE_MAGIC, 8) == 0) {
		int rc = validate_policy(path, text, len);
		free(text);
		return rc;
	}
	if (pl_text_kind(text, len, kind, sizeof kind) && strncmp(kind, "placelab-beta/", 14) == 0) {
		int rc = validate_beta(path, text, len, graph_path, cluster_arg);
		free(text);
		return rc;
	}
	char *tag = pl_text_is_json_object(text, len) ? format_tag(text, len) : NULL;
	if (tag == NULL && pl_text_kind(text, len, kind, sizeof kind) &&
	    strncmp(kind, "placelab-", 9) == 0)	/* JSON that does not parse: its
						 * own parser says where */
		tag = pl_xstrdup(kind);
	int rc = 0;
	if (tag != NULL && same_kind(tag, PL_FORMAT_CLUSTER)) {
		struct pl_cluster *c = pl_cluster_parse_json(text, len, path, &cause);
		rc = c != NULL ? 0 : cmd_fail(cause);
		if (c != NULL)
			printf("%s: ok (cluster '%s', %d devices)\n", cmd_safe(path), cmd_safe(c->name), c->n_dev);
		pl_cluster_free(c);
	} else if (tag != NULL && same_kind(tag, PL_FORMAT_PLACEMENT)) {
		if (graph_path == NULL) {
			rc = cmd_error("%s: a placement is checked against a graph (expected -g GRAPH [-c CLUSTER])", path);
		} else {
			struct pl_graph *g = cmd_load_graph(graph_path);
			struct pl_cluster *c = g != NULL ? cmd_load_cluster(cluster_arg) : NULL;
			struct pl_placement *p = c != NULL ? pl_placement_parse_json(text, len, path, g, c, NULL, &cause) : NULL;
			if (p != NULL)
				printf("%s: ok (placement of %d ops)\n", cmd_safe(path), p->n_ops);
			else
				rc = cause != NULL ? cmd_fail(cause) : 2;
			pl_placement_free(p);
			pl_cluster_free(c);
			pl_graph_free(g);
		}
	} else if (tag != NULL && strncmp(tag, "placelab-", 9) == 0 && !same_kind(tag, PL_FORMAT_GRAPH) &&
	    !same_kind(tag, PL_FORMAT_CLUSTER) && !same_kind(tag, PL_FORMAT_PLACEMENT)) {
		rc = cmd_error("%s: holds %s (%s), which validate does not check (expected a graph, "
		    "cluster, placement, trained policy or BRKGA Beta file)", path,
		    pl_file_kind_name(tag), tag);
	} else {
		/* a graph, and with -c whether it can run there (every op's
		 * device constraint met, every colocation group placeable) */
		struct pl_graph *g = plv_graph_parse(text, len, path, &cause);	/* (read once) */
		if (g == NULL)
			cmd_fail(cause);
		struct pl_cluster *c = g != NULL && cluster_arg != NULL ? cmd_load_cluster(cluster_arg) : NULL;
		struct pl_problem *pb = c != NULL ? pl_problem_new(g, c, &cause) : NULL;
		if (g == NULL || (cluster_arg != NULL && c == NULL))
			rc = 2;
		else if (c != NULL && pb == NULL)
			rc = cmd_fail(cause);
		else if (c != NULL)
			printf("%s: ok (graph '%s', %d ops, %d edges; runs on cluster '%s')\n", cmd_safe(path),
			    cmd_safe(g->name), g->n_ops, g->n_edges, cmd_safe(c->name));
		else
			printf("%s: ok (graph '%s', %d ops, %d edges)\n", cmd_safe(path), cmd_safe(g->name), g->n_ops, g->n_edges);
		pl_problem_free(pb);
		pl_cluster_free(c);
		pl_graph_free(g);
	}
	free(tag);
	free(text);
	return rc;
}

/* placelab validate FILE... */
int
cmd_validate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "graph", required_argument, NULL, 'g' },
		{ "cluster", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *graph = NULL, *cluster = NULL;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "g:c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'g': graph = optarg; break;
		case 'c': cluster = optarg; break;
		case 'h':
			printf("usage: placelab validate [-g GRAPH] [-c CLUSTER] FILE...\n"
			    "Check graph (JSON or DOT), cluster, placement, trained policy (.plw)\n"
			    "and BRKGA Beta files; a placement or Beta file is checked against\n"
			    "-g GRAPH on -c CLUSTER (default " PL_DEFAULT_CLUSTER "),\n"
			    "and with -c a graph is checked to run on CLUSTER (device constraints,\n"
			    "colocation groups).\n"
			    "Every file is checked; the exit status is 2 when any is bad.\n");
			return 0;
		default:
			return cmd_error("usage: placelab validate [-g GRAPH] [-c CLUSTER] FILE...");
		}
	}
	if (optind >= argc)
		return cmd_error("usage: placelab validate [-g GRAPH] [-c CLUSTER] FILE...");
	int rc = 0;
	for (int i = optind; i < argc; i++)
		if (validate_one(argv[i], graph, cluster) != 0)
			rc = 2;
	return rc;
}

/* placelab clusters [--json] */
int
cmd_clusters(int argc, char **argv)
{
	int json = argc > 1 && strcmp(argv[1], "--json") == 0;
	if (argc > 2)
		return cmd_error("usage: placelab clusters [--json | NAME]");
	if (argc > 1 && !json) {
		if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
			printf("usage: placelab clusters [--json | NAME]\nList the cluster presets, or print one as a cluster file.\n");
			return 0;
		}
		struct pl_cluster *c = cmd_load_cluster(argv[1]);
		if (c == NULL)
			return 2;
		char *s = pl_cluster_to_json(c);
		fputs(s, stdout);
		free(s);
		pl_cluster_free(c);
		return 0;
	}
	for (const struct pl_cluster_preset *p = pl_cluster_presets; p->name != NULL; p++) {
		struct pl_cluster *c = p->make();
		if (json)
			printf("%s{\"name\": \"%s\", \"devices\": %d, \"description\": \"%s\"}%s\n",
			    p == pl_cluster_presets ? "[" : " ", p->name, c->n_dev, p->description,
			    p[1].name != NULL ? "," : "]");
		else
			printf("%-10s %2d devices  %s\n", p->name, c->n_dev, p->description);
		pl_cluster_free(c);
	}
	return 0;
}
