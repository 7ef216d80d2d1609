/*
 * main — the placelab program: dispatch to a subcommand, or open the
 * explorer when there is none.
 *
 * Invariant: the table below is the only list of subcommands; --help is
 * generated from it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "xmalloc.h"

const struct pl_command pl_commands[] = {
	{ "info", "summarise a graph (and its fit on a cluster)",
	  "info GRAPH [-c CLUSTER] [--json]", cmd_info },
	{ "validate", "check graph, cluster, placement, policy and Beta files",
	  "validate FILE...", cmd_validate },
	{ "clusters", "list the compiled-in cluster presets",
	  "clusters [--json]", cmd_clusters },
	{ "export", "draw a placement (diagram or timeline) for a paper",
	  "export GRAPH -c CLUSTER (-p PLACEMENT | -a PLACER) -o FILE", cmd_export },
	{ "gen", "generate sample graphs (models, families, toys)", "gen MODEL [options] [-o FILE]", cmd_gen },
	{ "run", "run one placement method and report its best placement", "run -a NAME GRAPH [-c CLUSTER] [--KEY VALUE]... [-o FILE]", cmd_run },
	{ "compare", "compare placement methods side by side (table, md, csv, tex, json)", "compare GRAPH [-c CLUSTER] [--methods LIST] [--format F] [-o FILE]", cmd_compare },
	{ "train", "train a Placeto policy on a family of graphs", "train placeto GRAPH... [-c CLUSTER] -o POLICY.plw [--episodes N]", cmd_train },
	{ "explore", "open the explorer (the default without a command)", "[explore] [GRAPH] [-c CLUSTER] [-p PLACEMENT] [--demo]", cmd_explore },
	{ "sim", "simulate a placement: makespan, bounds, memory, trace", "sim GRAPH [-c CLUSTER] (-p PLACEMENT | --place RULE) [--sim M] [--mem M] [--trace FILE] [--json]", cmd_sim },
	{ NULL, NULL, NULL, NULL },
};

/* Print the program's usage. */
static void
usage(FILE *f)
{
	fprintf(f, "usage: placelab [GRAPH] [-c CLUSTER] [-p PLACEMENT] [--demo]\n"
	    "       placelab COMMAND [ARGS]\n"
	    "       placelab --help | --version\n\n"
	    "Explore and improve how a computation graph is placed on devices.\n"
	    "Without a command, the explorer opens (on the 4-layer NMT sample when\n"
	    "no GRAPH is given; --demo: each view explained, on the teaching graph\n"
	    "unless GRAPH is given, on " PL_DEMO_CLUSTER " unless GRAPH or -c is;\n"
	    "'placelab explore --help' for its options, --keys for its keys).\n\n"
	    "Commands:\n");
	for (const struct pl_command *c = pl_commands; c->name != NULL; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'placelab COMMAND --help' for a command's options; 'man placelab'\n"
	    "(installed) or 'man -l docs/placelab.1' has them all on one page.\n"
	    "GRAPH is a placelab JSON graph or a DOT file; CLUSTER a preset name\n"
	    "('placelab clusters') or a cluster file.\n");
}

/* Edit distance of a and b (insertions, deletions, replacements), up to
 * 3: more is reported as 3. */
static int
edits(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 15 || nb > 15)
		return 3;
	int row[16];
	for (size_t j = 0; j <= nb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= nb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb] < 3 ? row[nb] : 3;
}

/* A word that is neither a command nor a file but close to a command
 * ("simm", "exprot"): the command it is close to, else NULL. */
static const char *
near_command(const char *word)
{
	if (strchr(word, '/') != NULL || strchr(word, '.') != NULL || strlen(word) < 3 ||
	    access(word, F_OK) == 0)
		return NULL;
	const char *best = NULL;
	int best_d = 3;
	for (const struct pl_command *c = pl_commands; c->name != NULL; c++) {
		int d = edits(word, c->name);
		if (strncmp(word, c->name, strlen(word)) == 0)
			d = 1;	/* a prefix: "comp" */
		if (d < best_d && d <= (strlen(c->name) > 4 ? 2 : 1)) {
			best_d = d;
			best = c->name;
		}
	}
	return best;
}

/* The command's status, unless what it wrote to stdout was lost (a full
 * disk, a closed pipe or descriptor): then an error and 2. */
static int
finish(int rc)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != 0)
			fprintf(stderr, "placelab: write error on standard output: %s\n", strerror(errno));
		else
			fprintf(stderr, "placelab: write error on standard output\n");
		return rc != 0 ? rc : 2;
	}
	return rc;
}

/* Dispatch.  With SOURCE_DATE_EPOCH set, the program runs in UTC (set
 * here, before any thread), so that a PDF's date, which cairo writes in
 * local time, has the same bytes in every time zone. */
int
main(int argc, char **argv)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde != NULL && *sde != '\0') {
		setenv("TZ", "UTC0", 1);
		tzset();
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return finish(0);
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("placelab %s\n", PACKAGE_VERSION);
		return finish(0);
	}
	if (argc >= 2 && argv[1][0] != '-') {
		for (const struct pl_command *c = pl_commands; c->name != NULL; c++)
			if (strcmp(argv[1], c->name) == 0) {
				/* getopt's messages then read "placelab run: ..." */
				char *name = pl_xasprintf("placelab %s", c->name);
				argv[1] = name;
				int rc = c->run(argc - 1, argv + 1);
				free(name);
				return finish(rc);
			}
		const char *near = near_command(argv[1]);
		if (near != NULL) {
			fprintf(stderr, "placelab: unknown command '%s' (did you mean '%s'? "
			    "'placelab --help' lists the commands)\n", argv[1], near);
			return 2;
		}
	}
	const struct pl_command *explore = NULL;
	for (const struct pl_command *c = pl_commands; c->name != NULL; c++)
		if (strcmp(c->name, "explore") == 0)
			explore = c;
	if (explore != NULL) {
		/* placelab [GRAPH] [-c CLUSTER] [--demo]: the explorer. */
		argv[0] = (char *)"placelab";
		return finish(explore->run(argc, argv));
	}
	if (argc == 1) {
		/* No explorer in this build: summarise the default sample. */
		char *path = cmd_data_path("samples/nmt4.json");
		char *args[] = { (char *)"info", path, NULL };
		int rc = cmd_info(2, args);
		free(path);
		return finish(rc);
	}
	fprintf(stderr, "placelab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
