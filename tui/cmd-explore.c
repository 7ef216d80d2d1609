/*
 * cmd-explore — `placelab [GRAPH] [-c CLUSTER] [-p PLACEMENT] [--demo]`:
 * open the explorer on a graph (the default sample without one);
 * `--keys` lists its keys.
 * Invariant: the terminal is only taken once every input has loaded, so
 * errors print as ordinary messages on a normal terminal.
 */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "explore.h"
#include "screen.h"
#include "xmalloc.h"

/* Print the usage. */
static void
explore_usage(FILE *f)
{
	fprintf(f, "usage: placelab [GRAPH] [-c CLUSTER] [-p PLACEMENT] [--demo]\n"
	    "                [--sim native|placeto] [--seed N] [--threads N]\n\n"
	    "Open the explorer on GRAPH (default: the 4-layer NMT sample on %s).\n"
	    "  -c, --cluster CLUSTER    preset name or cluster file\n"
	    "  -p, --placement FILE     start from a saved placement\n"
	    "      --demo               explain each view (on the teaching graph unless\n"
	    "                           GRAPH is given, on " PL_DEMO_CLUSTER " unless GRAPH or -c is)\n"
	    "      --sim KIND           simulator for every figure (native or placeto)\n"
	    "      --seed N             seed for the methods (default 1)\n"
	    "      --threads N          worker threads for the methods (default: cores)\n"
	    "      --keys               list every key of the explorer and exit\n"
	    "The terminal must be at least 80x24.  Press ? inside for every key.\n", PL_DEFAULT_CLUSTER);
}

/* The explorer subcommand. */
int
cmd_explore(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cluster", required_argument, NULL, 'c' },
		{ "placement", required_argument, NULL, 'p' },
		{ "demo", no_argument, NULL, 'D' },
		{ "sim", required_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "keys", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct explore_opts o = { .seed = 1, .threads = 0 };
	unsigned long long seed;
	int ch, keys = 0;
	const char *other = NULL;	/* an option --keys does not take */
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:p:h", longopts, NULL)) != -1) {
		if (other == NULL)
			other = ch == 'c' ? "-c" : ch == 'p' ? "-p" : ch == 'D' ? "--demo" :
			    ch == 'S' ? "--sim" : ch == 's' ? "--seed" : ch == 't' ? "--threads" : NULL;
		switch (ch) {
		case 'c': o.cluster = optarg; break;
		case 'p': o.placement_path = optarg; break;
		case 'D': o.demo = 1; break;
		case 'S': o.sim = optarg; break;
		case 's':
			if (cmd_parse_seed("seed", optarg, &seed) != 0)
				return 2;
			o.seed = seed;
			break;
		case 't':
			if (cmd_parse_int("threads", optarg, 0, 1024, &o.threads) != 0)
				return 2;
			break;
		case 'K': keys = 1; break;
		case 'h':
			explore_usage(stdout);
			return 0;
		default:
			explore_usage(stderr);
			return 2;
		}
	}
	if (keys) {	/* a list, for no graph in particular */
		if (optind < argc)
			return cmd_error("--keys lists the keys for every graph ('%s' given: expected no GRAPH)",
			    argv[optind]);
		if (other != NULL)
			return cmd_error("--keys lists the keys for every graph ('%s' given: expected no other option)",
			    other);
		explore_print_keys(stdout);
		return 0;
	}
	if (argc - optind > 1) {
		explore_usage(stderr);
		return cmd_error("one GRAPH at a time ('%s' and '%s' given; a placement goes with -p, "
		    "a cluster with -c)", argv[optind], argv[optind + 1]);
	}
	if (optind < argc)
		o.graph_path = argv[optind];
	struct explore ex;
	char *cause = NULL;
	if (explore_open(&ex, &o, &cause) != 0)
		return cmd_fail(cause);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		explore_close(&ex);
		return cmd_error("the explorer needs a terminal (try 'placelab info' or 'placelab --help')");
	}
	char *why = screen_term_unusable(STDOUT_FILENO);
	if (why != NULL) {
		explore_close(&ex);
		return cmd_fail(why);
	}
	screen_start(NULL);
	screen_catch_interrupt();
	screen_catch_hangup();
	int rc = explore_run(&ex);
	screen_stop();
	int interrupted = ex.interrupted, hangup = ex.hangup;
	const char *sig = hangup == SIGHUP ? "SIGHUP" : "SIGTERM";
	if (ex.recovered != NULL)	/* (stderr may be gone with the terminal) */
		fprintf(stderr, "placelab: %s: the placement not saved is in %s\n", sig, ex.recovered);
	else if (ex.recover_error != NULL)
		fprintf(stderr, "placelab: %s: the placement not saved is lost: %s\n", sig,
		    ex.recover_error);
	explore_close(&ex);
	if (hangup) {	/* dies of it, as without the explorer */
		signal(hangup, SIG_DFL);
		raise(hangup);
	}
	if (interrupted) {	/* so that a calling script stops too */
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	return rc;
}
