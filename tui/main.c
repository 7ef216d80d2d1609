/*
 * main — the placelab program: dispatch to a subcommand, or open the
 * explorer when there is none.
 *
 * Invariant: the table below is the only list of subcommands; --help is
 * generated from it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "xmalloc.h"

const struct pl_command pl_commands[] = {
	{ "info", "summarise a graph (and its fit on a cluster)",
	  "info GRAPH [-c CLUSTER] [--json]", cmd_info },
	{ "validate", "check graph, cluster and placement files",
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
	fprintf(f, "usage: placelab [GRAPH [-c CLUSTER]]\n"
	    "       placelab COMMAND [ARGS]\n\n"
	    "Explore and improve how a computation graph is placed on devices.\n\n"
	    "Commands:\n");
	for (const struct pl_command *c = pl_commands; c->name != NULL; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nRun 'placelab COMMAND --help' for a command's options.\n"
	    "GRAPH is a placelab JSON graph or a DOT file; CLUSTER a preset name\n"
	    "('placelab clusters') or a cluster file.\n");
}

/* Dispatch. */
int
main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("placelab %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc >= 2 && argv[1][0] != '-') {
		for (const struct pl_command *c = pl_commands; c->name != NULL; c++)
			if (strcmp(argv[1], c->name) == 0) {
				/* getopt's messages then read "placelab run: ..." */
				char *name = pl_xasprintf("placelab %s", c->name);
				argv[1] = name;
				int rc = c->run(argc - 1, argv + 1);
				free(name);
				return rc;
			}
	}
	const struct pl_command *explore = NULL;
	for (const struct pl_command *c = pl_commands; c->name != NULL; c++)
		if (strcmp(c->name, "explore") == 0)
			explore = c;
	if (explore != NULL) {
		/* placelab [GRAPH] [-c CLUSTER] [--demo]: the explorer. */
		argv[0] = (char *)"placelab";
		return explore->run(argc, argv);
	}
	if (argc == 1) {
		/* No explorer in this build: summarise the default sample. */
		char *path = cmd_data_path("samples/nmt4.json");
		char *args[] = { (char *)"info", path, NULL };
		int rc = cmd_info(2, args);
		free(path);
		return rc;
	}
	fprintf(stderr, "placelab: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
