/*
 * cmd-train — `placelab train placeto GRAPH... -c CLUSTER -o POLICY.plw`:
 * train one Placeto policy over a family of graphs (episodes assigned
 * round-robin), show a progress line on a terminal (as run and compare
 * do), write a learning curve (--curve)
 * and save the policy atomically (also every 30 s while training, so a
 * killed run keeps its last checkpoint, except to a stream such as a
 * pipe, where it goes once, and to the file the shell opened for
 * /dev/stdout, rewritten in place; SIGINT or SIGTERM stops it after
 * the batch, and the policy is saved as at the end).
 *
 * Every Placeto option is also a command-line option (`--KEY VALUE`), next
 * to `--opt k=v,...`; --seed, --threads and --sim are the run flags.
 * Invariant: the same arguments and seed give the same policy file,
 * whatever --threads is.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "fileio.h"
#include "io.h"
#include "nn/nn.h"
#include "options.h"
#include "placers/placeto.h"
#include "problem.h"
#include "strbuf.h"
#include "xmalloc.h"

#define TRAIN_USAGE "usage: placelab train placeto GRAPH... [-c CLUSTER] -o POLICY.plw\n" \
	"           [--episodes N] [--threads N] [--seed N] [--sim native|placeto]\n" \
	"           [--seconds S] [--curve FILE.csv] [--KEY VALUE]... [--opt k=v,...] [-q]"

enum {
	OPT_OPT = 256, OPT_SEED, OPT_THREADS, OPT_SIM, OPT_SECONDS, OPT_CURVE,
	OPT_CLASS = 1024,
};

static const struct option fixed_opts[] = {
	{ "cluster", required_argument, NULL, 'c' },
	{ "output", required_argument, NULL, 'o' },
	{ "opt", required_argument, NULL, OPT_OPT },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "curve", required_argument, NULL, OPT_CURVE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
};
#define N_FIXED ((int)(sizeof fixed_opts / sizeof *fixed_opts))

/* Set one Placeto option or report it. */
static int
set_opt(struct pl_options *o, const char *key, const char *value)
{
	char *cause = NULL;
	if (pl_options_set(o, key, value, &cause) != 0)
		return cmd_fail(cause);
	return 0;
}

/* The policy file's note: the episodes trained, and the budget asked for
 * when training stopped short of it (time, a signal).  Caller frees. */
static char *
train_note(int n_graphs, const struct pl_placeto_stats *st, long budget, uint64_t seed)
{
	char of[48] = "";
	if (st->episodes < budget)
		snprintf(of, sizeof of, " of %ld", budget);
	return pl_xasprintf("graphs=%d episodes=%ld%s seed=%llu", n_graphs, st->episodes, of,
	    (unsigned long long)seed);
}

/* Print the help text. */
static void
usage_help(void)
{
	printf("%s\n\nTrain a Placeto policy over the given graphs (one cluster, default %s)\n"
	    "with REINFORCE; episodes go round-robin over the graphs, --workers\n"
	    "episodes per update run in parallel on --threads threads.  On a\n"
	    "terminal, a progress line on stderr (episode, mean and best run\n"
	    "time, entropy; -q leaves it out); --curve writes one CSV row per\n"
	    "episode.  --episodes must be at least 1.  --sim is the run's\n"
	    "simulator, which the MDP's own (--opt sim=) follows by default.  Use\n"
	    "the policy with\n"
	    "  placelab run -a placeto GRAPH -c CLUSTER --policy POLICY.plw [--finetune N]\n\n"
	    "Placeto options:\n", TRAIN_USAGE, PL_DEFAULT_CLUSTER);
	/* run's meaning of these two is not train's: every episode trains
	 * here, from scratch or from --policy, and nothing is fine-tuned */
	int n = 0;
	while (pl_placeto_options[n].name != NULL)
		n++;
	struct pl_option_def *defs = pl_xcalloc((size_t)n + 1, sizeof *defs);
	int k = 0;
	for (int i = 0; i < n; i++) {
		defs[k] = pl_placeto_options[i];
		if (strcmp(defs[k].name, "finetune") == 0)
			continue;
		if (strcmp(defs[k].name, "episodes") == 0)
			defs[k].help = "training episodes, from scratch or from --policy";
		k++;
	}
	int nr = 0;
	while (pl_placeto_ranges[nr].name != NULL)
		nr++;
	struct pl_option_range *ranges = pl_xcalloc((size_t)nr + 1, sizeof *ranges);
	for (int i = 0; i < nr; i++) {
		ranges[i] = pl_placeto_ranges[i];
		if (strcmp(ranges[i].name, "episodes") == 0)
			ranges[i].range = "[1, inf)";
	}
	cmd_print_options_flags(stdout, defs, ranges, (const char *const[]){ "sim", NULL });
	free(ranges);
	free(defs);
}

/* placelab train placeto ... */
int
cmd_train(int argc, char **argv)
{
	int n_class = 0;
	for (const struct pl_option_def *d = pl_placeto_options; d->name != NULL; d++)
		n_class++;
	struct option *longopts = pl_xcalloc((size_t)(N_FIXED + n_class + 1), sizeof *longopts);
	memcpy(longopts, fixed_opts, sizeof fixed_opts);
	int n_long = N_FIXED;
	for (int i = 0; i < n_class; i++) {
		int clash = 0;
		for (int k = 0; k < N_FIXED; k++)
			if (strcmp(fixed_opts[k].name, pl_placeto_options[i].name) == 0)
				clash = 1;
		if (!clash)
			longopts[n_long++] = (struct option){ pl_placeto_options[i].name, required_argument, NULL, OPT_CLASS + i };
	}
	struct pl_options *opts = NULL;
	char *cause = NULL;
	pl_options_parse_ranged(pl_placeto_options, pl_placeto_ranges, NULL, &opts, &cause);
	const char *cluster = NULL, *output = NULL, *curve = NULL;
	struct pl_run_opts run = { .sim = { PL_SIM_NATIVE, PL_MEM_NATIVE }, .seed = 1, .threads = 1 };
	double max_seconds = 0, v;
	unsigned long long seed;
	int quiet = 0, ch, rc = 2, n_graphs = 0;
	struct pl_graph **graphs = NULL;
	struct pl_problem **probs = NULL;
	struct pl_cluster *c = NULL;
	struct pl_placeto_trainer *tr = NULL;
	struct pl_grow cg = { 0 };	/* the --curve file (cg.f NULL: none) */
	int policy_saved = 0;		/* at the end: the curve is committed */
	FILE *report = stdout;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:o:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': cluster = optarg; break;
		case 'o': output = cmd_out_path(optarg); break;
		case 'q': quiet = 1; break;
		case OPT_OPT:
			if (pl_options_apply(opts, optarg, &cause) != 0) {
				cmd_fail(cause);
				goto out;
			}
			break;
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
		case OPT_SECONDS:
			if (cmd_parse_num("seconds", optarg, 0, 1e9, &v) != 0)
				goto out;
			max_seconds = v;
			break;
		case OPT_CURVE: curve = cmd_out_path(optarg); break;
		case 'h':
			usage_help();
			rc = 0;
			goto out;
		default:
			if (ch >= OPT_CLASS && ch < OPT_CLASS + n_class) {
				if (set_opt(opts, pl_placeto_options[ch - OPT_CLASS].name, optarg) != 0)
					goto out;
				break;
			}
			cmd_error("%s", TRAIN_USAGE);
			goto out;
		}
	}
	if (optind >= argc || strcmp(argv[optind], "placeto") != 0) {
		cmd_error("train: the method must be 'placeto' (the only trainable one)\n%s", TRAIN_USAGE);
		goto out;
	}
	optind++;
	if (optind >= argc) {
		cmd_error("train: no graph given\n%s", TRAIN_USAGE);
		goto out;
	}
	if (output == NULL) {
		cmd_error("train: missing -o POLICY.plw");
		goto out;
	}
	if (pl_opt_int(opts, "episodes") < 1) {
		cmd_error("train: --episodes %lld: nothing to train (expected at least 1)",
		    (long long)pl_opt_int(opts, "episodes"));
		goto out;
	}
	n_graphs = argc - optind;
	struct cmd_file *files = pl_xcalloc((size_t)n_graphs + 3, sizeof *files);
	files[0] = (struct cmd_file){ "-o", output, 1, PL_NN_FILE_MAGIC };
	files[1] = (struct cmd_file){ "--curve", curve, 1, NULL };
	files[2] = (struct cmd_file){ "-c", pl_cluster_arg_file(cluster), 0, NULL };
	for (int i = 0; i < n_graphs; i++)
		files[3 + i] = (struct cmd_file){ "GRAPH", argv[optind + i], 0, NULL };
	int bad = cmd_check_method_files(files, n_graphs + 3,
	    (const struct pl_options *const[]){ opts }, 1);
	free(files);
	if (bad)
		goto out;
	/* the report goes to stderr when an output is stdout's file; asked
	 * now, before a save replaces that file */
	report = cmd_report_stream(output, curve);
	if ((c = cmd_load_cluster(cluster)) == NULL)
		goto out;
	graphs = pl_xcalloc((size_t)n_graphs, sizeof *graphs);
	probs = pl_xcalloc((size_t)n_graphs, sizeof *probs);
	for (int i = 0; i < n_graphs; i++) {
		if ((graphs[i] = cmd_load_graph(argv[optind + i])) == NULL)
			goto out;
		if ((probs[i] = pl_problem_new(graphs[i], c, &cause)) == NULL) {
			cmd_fail(cause);	/* it names the graph's file */
			goto out;
		}
	}
	if ((tr = pl_placeto_trainer_new((const struct pl_problem *const *)probs, n_graphs, opts, &run, &cause)) == NULL) {
		cmd_fail(cause);
		goto out;
	}
	if (curve != NULL) {
		if (pl_grow_open(&cg, curve, &cause) != 0) {
			cmd_error("--curve %s", cause);
			free(cause);
			goto out;
		}
		fprintf(cg.f, "episode,graph,graph_name,init_us,final_us,episode_best_us,graph_best_us,entropy,return,lr,wall_s\n");
	}
	long budget = pl_opt_int(opts, "episodes");
	int workers = pl_placeto_trainer_workers(tr);
	struct pl_placeto_episode_log *logs = pl_xcalloc((size_t)workers, sizeof *logs);
	int progress = !quiet && isatty(STDERR_FILENO);
	double t0 = pl_now_s(), last = -1, saved = t0;
	struct pl_placeto_stats st;
	char *note = NULL;	/* the file's header: what it was trained on */
	cmd_catch_stop();
	for (;;) {
		pl_placeto_trainer_stats(tr, &st);
		if (st.episodes >= budget || cmd_stopped())
			break;
		/* (a policy saved untrained would replace the file for nothing) */
		if (max_seconds > 0 && pl_now_s() - t0 >= max_seconds && st.episodes > 0)
			break;
		int n_logs;
		if (pl_placeto_trainer_batch(tr, logs, &n_logs, &cause) != 0) {
			free(logs);
			free(note);
			cmd_fail(cause);
			goto out;
		}
		pl_placeto_trainer_stats(tr, &st);
		double now = pl_now_s();
		for (int i = 0; cg.f != NULL && i < n_logs; i++) {
			const struct pl_placeto_episode_log *l = &logs[i];
			struct pl_strbuf name = { 0 };
			pl_sb_csv(&name, graphs[l->graph]->name);
			char *nm = pl_sb_take(&name);
			fprintf(cg.f, "%ld,%d,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.9g,%.6g,%.3f\n", l->episode,
			    l->graph, nm, l->init_us, l->final_us, l->best_us,
			    pl_placeto_trainer_best(tr, l->graph), l->entropy, l->ret, st.lr, now - t0);
			free(nm);
		}
		errno = 0;
		if (cg.f != NULL && (fflush(cg.f) != 0 || ferror(cg.f))) {	/* rows appear as training goes */
			free(logs);
			free(note);
			cmd_error("--curve %s: write failed: %s", pl_file_shown(curve), strerror(errno ? errno : EIO));
			goto out;
		}
		if (progress && (now - last >= 1.0 || st.episodes >= budget)) {
			last = now;
			cmd_progress("episode %ld/%ld  mean %.3f ms  best %.3f ms%s  entropy %.3f  lr %.2g  %.0f s",
			    st.episodes, budget, st.last_mean_us / 1000, st.best_us / 1000,
			    st.best_oom != 0 ? " (OOM)" : "",
			    st.last_entropy, st.lr, now - t0);
		}
		if (now - saved >= 30) {
			free(note);
			note = train_note(n_graphs, &st, budget, run.seed);
			/* a checkpoint to a pipe would follow the last one
			 * there: to a stream the policy goes once, at the end,
			 * and the curve, which replaces its file only with a
			 * policy saved, with it */
			if (!pl_file_is_stream(output) &&
			    (pl_placeto_trainer_save(tr, output, note, &cause) != 0 ||
			    (cg.f != NULL && pl_grow_commit(&cg, &cause) != 0))) {
				free(logs);
				free(note);
				cmd_fail(cause);
				goto out;
			}
			saved = now;
		}
	}
	free(logs);
	if (progress)
		fputc('\n', stderr);
	pl_placeto_trainer_stats(tr, &st);
	/* a signal ended the training (not one in the batch that completed it) */
	int cut = st.episodes < budget ? cmd_stopped() : 0;
	free(note);
	note = train_note(n_graphs, &st, budget, run.seed);
	if (pl_placeto_trainer_save(tr, output, note, &cause) != 0 ||
	    (cg.f != NULL && pl_grow_commit(&cg, &cause) != 0)) {
		free(note);
		cmd_fail(cause);
		goto out;
	}
	policy_saved = 1;
	free(note);
	fprintf(report, "trained    %ld episode%s (%ld update%s, %ld placement%s) on %d graph%s in %.1f s\n",
	    st.episodes, st.episodes == 1 ? "" : "s", st.updates, st.updates == 1 ? "" : "s",
	    st.placements, st.placements == 1 ? "" : "s", n_graphs, n_graphs == 1 ? "" : "s",
	    pl_now_s() - t0);
	/* the times are the MDP's: said when its simulator is not --sim's */
	if (pl_placeto_trainer_sim(tr) != run.sim.kind)
		fprintf(report, "times      by the %s simulator (the MDP's, --opt sim=), not --sim %s\n",
		    pl_sim_kind_name(pl_placeto_trainer_sim(tr)), pl_sim_kind_name(run.sim.kind));
	int gw = 28;	/* the graph column: its longest name */
	for (int i = 0; i < n_graphs; i++)
		gw = cmd_width_max(gw, graphs[i]->name);
	/* (after a signal during training, the evaluations still run: the
	 * policy so far is worth its figures) */
	int evaluated = 0;	/* graphs given their greedy evaluation */
	for (int i = 0; i < n_graphs && (cut || !cmd_stopped()); i++, evaluated++) {
		double greedy;
		uint64_t greedy_oom;
		if (pl_placeto_trainer_greedy(tr, i, &greedy, &greedy_oom, &cause) != 0) {
			cmd_fail(cause);
			goto out;
		}
		fputs("  ", report);
		cmd_put_padded(report, graphs[i]->name, gw);
		/* a placement that does not fit is marked, as run marks it */
		fprintf(report, " best seen %10.3f ms%s   greedy %10.3f ms%s\n",
		    pl_placeto_trainer_best(tr, i) / 1000,
		    pl_placeto_trainer_best_oom(tr, i) != 0 ? " (OOM)" : "",
		    greedy / 1000, greedy_oom != 0 ? " (OOM)" : "");
	}
	fprintf(report, "policy     %s\n", output);
	rc = 0;
	if (cut) {
		fprintf(stderr, "placelab: training stopped by signal %d after %ld episodes; the policy so far is saved\n",
		    cut, st.episodes);
		rc = 128 + cut;
	} else if (cmd_stopped()) {	/* training done, evaluations cut */
		fprintf(stderr, "placelab: the greedy evaluations stopped by signal %d after %d of %d graph%s; "
		    "training was complete (%ld episodes) and the policy is saved\n",
		    cmd_stopped(), evaluated, n_graphs, n_graphs == 1 ? "" : "s", st.episodes);
		rc = 128 + cmd_stopped();
	}
out:
	/* committed with the policy; a run that failed before its policy
	 * was saved (stopped or not) leaves an existing curve as it was */
	if (pl_grow_close(&cg, policy_saved, &cause) != 0) {
		if (rc == 0)
			rc = cmd_fail(cause);
		else
			free(cause);
	}
	pl_placeto_trainer_free(tr);
	for (int i = 0; i < n_graphs; i++) {
		if (probs != NULL)
			pl_problem_free(probs[i]);
		if (graphs != NULL)
			pl_graph_free(graphs[i]);
	}
	free(probs);
	free(graphs);
	pl_cluster_free(c);
	pl_options_free(opts);
	free(longopts);
	return rc;
}
