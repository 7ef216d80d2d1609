/*
 * cmd-sim — `placelab sim GRAPH -c CLUSTER (-p PLACEMENT | --place RULE)`:
 * simulate one placement and print its makespan, the lower bounds and the
 * gap to them, per-device busy time, traffic and peak memory; --json prints
 * a placelab-result/1 document, --trace FILE writes the full trace.
 *
 * Invariant: every placement simulated here has passed
 * pl_placement_check(); rules place whole colocation groups on devices
 * their constraints allow.
 */
#include "config.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "fileio.h"
#include "io.h"
#include "problem.h"
#include "rng.h"
#include "sim.h"
#include "strbuf.h"
#include "xmalloc.h"

#define SIM_USAGE "usage: placelab sim GRAPH [-c CLUSTER] (-p PLACEMENT | --place RULE)\n" \
	"           [--sim native|placeto] [--mem native|placeto|none] [--trace FILE] [--json]"

enum { OPT_PLACE = 256, OPT_SIM, OPT_MEM, OPT_TRACE, OPT_JSON };

static const struct option sim_opts[] = {
	{ "cluster", required_argument, NULL, 'c' },
	{ "placement", required_argument, NULL, 'p' },
	{ "place", required_argument, NULL, OPT_PLACE },
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Whether a and b are equal once '/' and ':' are dropped and letters
 * lower-cased ("/GPU:0" and "gpu0"), however long. */
static int
squashed_equal(const char *a, const char *b)
{
	for (;;) {
		while (*a == '/' || *a == ':')
			a++;
		while (*b == '/' || *b == ':')
			b++;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (*a == '\0')
			return 1;
		a++;
		b++;
	}
}

/* Device by exact name, index, or squashed name ("gpu0"); -1 if none. */
static int
find_device(const struct pl_cluster *c, const char *name)
{
	int d = pl_cluster_find(c, name);
	if (d >= 0)
		return d;
	long long i;
	if (pl_parse_whole(name, &i) == 0 && i >= 0 && i < c->n_dev)
		return (int)i;
	for (d = 0; d < c->n_dev; d++)
		if (squashed_equal(name, c->dev[d].name))
			return d;
	return -1;
}

/* The k-th allowed device of mask after `from` (cyclically). */
static int
allowed_from(uint64_t mask, int n_dev, int from)
{
	for (int i = 0; i < n_dev; i++) {
		int d = (from + i) % n_dev;
		if ((mask >> d) & 1)
			return d;
	}
	return 0;
}

/* The i-th device (from 0) of mask. */
static int
nth_allowed(uint64_t mask, int i)
{
	for (; i > 0; i--)
		mask &= mask - 1;
	return __builtin_ctzll(mask);
}

/*
 * A placement by rule: all:DEVICE, round-robin, random[:SEED] or fastest,
 * group by group.  Round-robin keeps one turn per set of allowed devices,
 * so that groups pinned to a device do not reset the turn of the others;
 * random draws uniformly among a group's allowed devices.  Groups that
 * cannot run where all:DEVICE says go to their first allowed device;
 * *moved counts them.
 */
static struct pl_placement *
place_rule(const struct pl_problem *p, const char *rule, int *moved, char **cause)
{
	const struct pl_graph *g = p->g;
	int D = p->n_dev, all = -1, rr = 0, rnd = 0;
	struct pl_rng r;
	*moved = 0;
	if (strncmp(rule, "all:", 4) == 0) {
		if ((all = find_device(p->c, rule + 4)) < 0) {
			const char *last = p->c->dev[p->c->n_dev - 1].name;
			char *sq = pl_xstrdup(last), *o = sq;	/* last, squashed */
			for (const char *q = last; *q != '\0'; q++)
				if (*q != '/' && *q != ':')
					*o++ = (char)tolower((unsigned char)*q);
			*o = '\0';
			*cause = pl_xasprintf("--place '%s': no device '%s' in cluster '%s' (expected "
			    "a device's name, such as '%s' or '%s', or its index, 0 to %d)", rule,
			    rule + 4, p->c->name, last, sq, p->c->n_dev - 1);
			free(sq);
			return NULL;
		}
	} else if (strcmp(rule, "round-robin") == 0)
		rr = 1;
	else if (strcmp(rule, "fastest") == 0)
		;
	else if (strcmp(rule, "random") == 0 || strncmp(rule, "random:", 7) == 0) {
		unsigned long long seed = 1;
		if (rule[6] == ':' && cmd_seed_value(rule + 7, &seed) != 0) {
			*cause = pl_xasprintf("--place '%s': expected random:SEED with a whole number "
			    "in [0, %llu]", rule, PL_SEED_MAX);
			return NULL;
		}
		pl_rng_seed(&r, seed);
		rnd = 1;
	} else {
		*cause = pl_xasprintf("--place '%s': expected all:DEVICE, round-robin, random[:SEED] or fastest", rule);
		return NULL;
	}
	struct pl_placement *pl = pl_placement_new(g->n_ops, D);
	/* round-robin's turns: the next device for each set of allowed
	 * devices met so far */
	uint64_t *turn_mask = pl_xcalloc((size_t)g->n_groups + 1, sizeof *turn_mask);
	int *turn = pl_xcalloc((size_t)g->n_groups + 1, sizeof *turn), n_turns = 0;
	for (int k = 0; k < g->n_groups; k++) {
		const struct pl_group *gr = &g->groups[k];
		uint64_t mask = p->group_allowed[k];
		int d;
		if (all >= 0) {
			d = all;
			if (!((mask >> d) & 1)) {
				d = allowed_from(mask, D, 0);
				*moved += gr->count;
			}
		} else if (rr) {
			int t = 0;
			while (t < n_turns && turn_mask[t] != mask)
				t++;
			if (t == n_turns) {
				turn_mask[n_turns] = mask;
				turn[n_turns++] = 0;
			}
			d = allowed_from(mask, D, turn[t]);
			turn[t] = (d + 1) % D;
		} else if (rnd) {
			d = nth_allowed(mask, (int)pl_rng_below(&r, (uint64_t)__builtin_popcountll(mask)));
		} else {
			double best = 0;
			d = -1;
			for (int e = 0; e < D; e++) {
				if (!((mask >> e) & 1))
					continue;
				double s = 0;
				for (int i = 0; i < gr->count; i++)
					s += pl_problem_op_us(p, g->group_ops[gr->first + i], e);
				if (d < 0 || s < best) {
					best = s;
					d = e;
				}
			}
		}
		for (int i = 0; i < gr->count; i++)
			pl->dev[g->group_ops[gr->first + i]] = d;
	}
	free(turn_mask);
	free(turn);
	return pl;
}

/* Format a byte count for people. */
static void
fmt_bytes(int64_t b, char *buf, size_t len)
{
	const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)b;
	int u = 0;
	while (x >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lld B", (long long)b);
	else
		snprintf(buf, len, "%.1f %s", x, unit[u]);
}

/* The text summary. */
static void
print_text(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_sim_opts *o, const struct pl_trace *tr,
    const struct pl_bounds *b, FILE *f)
{
	const struct pl_sim_result *r = &tr->res;
	const struct pl_cluster *c = p->c;
	char s1[32], s2[32], s3[32], s4[32];
	fprintf(f, "graph      %s (%d ops, %d edges)\n", cmd_safe(p->g->name), p->n_ops, p->g->n_edges);
	fprintf(f, "cluster    %s (%d devices, %s)\n", cmd_safe(c->name), c->n_dev,
	    c->shared_bus ? "shared bus" : "per-pair links");
	fprintf(f, "simulator  %s, memory model %s\n", pl_sim_kind_name(o->kind),
	    pl_mem_model_name(o->mem));
	fprintf(f, "makespan   %.3f us\n", r->makespan_us);
	double gap = pl_bounds_gap(b, r->makespan_us);
	fprintf(f, "bound      %.3f us (critical path %.3f, work %.3f); gap to bound ",
	    b->best_us, b->critical_path_us, b->work_us);
	if (isnan(gap))
		fprintf(f, "n/a (the bound is 0)\n");
	else
		fprintf(f, "%.1f%%\n", 100 * gap);
	fmt_bytes(r->bytes_moved, s1, sizeof s1);
	fprintf(f, "transfers  %d (%s)\n", r->n_transfers, s1);
	fprintf(f, "critical   %d ops", tr->n_critical);
	if (tr->n_critical > 0)
		fprintf(f, ": %s ... %s", cmd_safe(p->g->ops[tr->critical[0]].name),
		    cmd_safe(p->g->ops[tr->critical[tr->n_critical - 1]].name));
	int dw = 16;	/* the device column: its longest name */
	for (int d = 0; d < c->n_dev; d++)
		dw = cmd_width_max(dw, c->dev[d].name);
	fputs("\n\n", f);
	cmd_put_padded(f, "device", dw);
	fprintf(f, " %6s %14s %6s %11s %11s %11s %11s\n", "ops", "busy_us",
	    "util", "peak", "capacity", "in", "out");
	for (int d = 0; d < c->n_dev; d++) {
		int n = 0;
		for (int v = 0; v < p->n_ops; v++)
			n += pl->dev[v] == d;
		if (o->mem == PL_MEM_NONE)	/* not modelled */
			snprintf(s1, sizeof s1, "-");
		else
			fmt_bytes(r->peak_bytes[d], s1, sizeof s1);
		fmt_bytes(c->dev[d].mem_bytes, s2, sizeof s2);
		fmt_bytes(r->bytes_in[d], s3, sizeof s3);
		fmt_bytes(r->bytes_out[d], s4, sizeof s4);
		cmd_put_padded(f, c->dev[d].name, dw);
		fprintf(f, " %6d %14.3f %5.1f%% %11s %11s %11s %11s%s\n", n,
		    r->busy_us[d], r->makespan_us > 0 ? 100 * r->busy_us[d] / r->makespan_us : 0.0,
		    s1, s2, s3, s4, (r->oom_mask >> d) & 1 ? "  OOM" : "");
	}
	if (r->oom_mask != 0) {
		fmt_bytes(r->oom_excess, s1, sizeof s1);
		fprintf(f, "\nout of memory: %s over capacity in total\n", s1);
	}
}

/* placelab sim. */
int
cmd_sim(int argc, char **argv)
{
	const char *cluster = NULL, *ppath = NULL, *rule = NULL, *trace_path = NULL;
	struct pl_sim_opts o = { PL_SIM_NATIVE, PL_MEM_NATIVE };
	int json = 0, ch, rc = 2;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:p:h", sim_opts, NULL)) != -1) {
		switch (ch) {
		case 'c': cluster = optarg; break;
		case 'p': ppath = optarg; break;
		case OPT_PLACE: rule = optarg; break;
		case OPT_SIM:
			if (cmd_parse_sim(optarg, &o) != 0)
				return 2;
			break;
		case OPT_MEM:
			if (cmd_parse_mem(optarg, &o) != 0)
				return 2;
			break;
		case OPT_TRACE: trace_path = cmd_out_path(optarg); break;
		case OPT_JSON: json = 1; break;
		case 'h':
			printf("%s\n\nSimulate one training step of GRAPH placed on CLUSTER (default %s)\n"
			    "and print the makespan, its lower bounds and the gap to them, per-device\n"
			    "busy time, traffic and peak memory.\n\n"
			    "  -p FILE        a placelab-placement/1 file\n"
			    "  --place RULE   all:DEVICE (name, index or e.g. gpu0), round-robin,\n"
			    "                 random[:SEED] or fastest (by colocation group)\n"
			    "  --sim MODEL    native (default) or placeto (Placeto's reference simulator)\n"
			    "  --mem MODEL    native (default), placeto (Placeto's peak-memory model)\n"
			    "                 or none\n"
			    "  --trace FILE   write the full trace (placelab-result/1 with ops, transfers,\n"
			    "                 memory curves and critical path)\n"
			    "  --json         print a placelab-result/1 document instead of text\n",
			    SIM_USAGE, PL_DEFAULT_CLUSTER);
			return 0;
		default:
			fprintf(stderr, "%s\n", SIM_USAGE);
			return 2;
		}
	}
	if (optind + 1 != argc || (ppath == NULL) == (rule == NULL)) {
		fprintf(stderr, "%s\n", SIM_USAGE);
		return 2;
	}
	if (cmd_check_files((const struct cmd_file[]){ { "GRAPH", argv[optind], 0, NULL },
	    { "-c", pl_cluster_arg_file(cluster), 0, NULL }, { "-p", ppath, 0, NULL }, { "--trace", trace_path, 1, PL_FORMAT_RESULT } }, 4) != 0)
		return 2;
	struct pl_graph *g = cmd_load_graph(argv[optind]);
	if (g == NULL)
		return 2;
	struct pl_cluster *c = cmd_load_cluster(cluster);
	struct pl_problem *p = NULL;
	struct pl_placement *pl = NULL;
	struct pl_trace *tr = NULL;
	char *cause = NULL;
	if (c == NULL)
		goto out;
	if ((p = pl_problem_new(g, c, &cause)) == NULL) {
		cmd_fail(cause);
		goto out;
	}
	if (ppath != NULL)
		pl = pl_placement_load_json(ppath, g, c, NULL, &cause);
	else {
		int moved = 0;
		pl = place_rule(p, rule, &moved, &cause);
		if (pl != NULL && moved > 0)
			fprintf(stderr, "placelab: --place %s: %d op%s cannot run there (%s own constraint "
			    "or %s colocation group's) and went to an allowed device\n",
			    rule, moved, moved == 1 ? "" : "s", moved == 1 ? "its" : "their",
			    moved == 1 ? "its" : "their");
	}
	if (pl == NULL) {
		cmd_fail(cause);
		goto out;
	}
	if ((tr = pl_sim_trace(p, pl, &o, &cause)) == NULL) {
		cmd_fail(cause);
		rc = 1;
		goto out;
	}
	struct pl_bounds b;
	pl_bounds_compute(p, &b);
	/* --trace standard output's file: the trace alone goes there (asked
	 * before the file is replaced) */
	FILE *out = cmd_report_stream(trace_path, NULL);
	if (trace_path != NULL) {
		char *s = pl_sim_result_to_json(p, pl, &o, &tr->res, &b, tr);
		size_t len = strlen(s);
		char *t = pl_xasprintf("%s\n", s);
		free(s);
		int w = pl_file_write_atomic(trace_path, t, len + 1, &cause);
		free(t);
		if (w != 0) {
			cmd_fail(cause);
			goto out;
		}
	}
	if (json) {
		char *s = pl_sim_result_to_json(p, pl, &o, &tr->res, &b, NULL);
		fprintf(out, "%s\n", s);
		free(s);
	} else
		print_text(p, pl, &o, tr, &b, out);
	rc = 0;
out:
	pl_trace_free(tr);
	pl_placement_free(pl);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
	return rc;
}
