/*
 * cmd — the placelab program's subcommands.
 *
 * Every subcommand is one entry of the table in main.c: a name, a one-line
 * summary, a usage string and a function taking argc/argv (argv[0] is the
 * subcommand's name) and returning the exit status: 0 success, 1 a failed
 * run (e.g. a check that did not pass), 2 bad usage or bad input.
 * Messages go to stderr as "placelab: ..."; results to stdout.
 */
#ifndef PL_CMD_H
#define PL_CMD_H

#include <stdio.h>

#include "cluster.h"
#include "graph.h"
#include "sim.h"

struct pl_command {
	const char *name;
	const char *summary;
	const char *usage;
	int (*run)(int argc, char **argv);
};

extern const struct pl_command pl_commands[];

int cmd_info(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_clusters(int argc, char **argv);
int cmd_export(int argc, char **argv);

int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_sim(int argc, char **argv);
/* Shared helpers for subcommands (cmd-common.c). */

/* Print "placelab: msg" to stderr, free msg, return 2. */
int cmd_fail(char *msg);
/* printf-style error: "placelab: ..." on stderr; returns 2. */
int cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Load a graph / a cluster (preset or file) or print the error. */
struct pl_graph *cmd_load_graph(const char *path);
struct pl_cluster *cmd_load_cluster(const char *arg);
/* The data directory (samples/ lives below it): $PLACELAB_DATADIR, the
 * source tree when run from the build tree, else the installed one. */
const char *cmd_datadir(void);
/* Path of a file under the data directory (caller frees). */
char *cmd_data_path(const char *rel);
/* Parse --FLAG's number in [lo, hi]; 0, or 2 after printing the error. */
int cmd_parse_num(const char *flag, const char *s, double lo, double hi, double *out);
/* Parse --FLAG's whole number (any number pl_parse_number() takes with a
 * whole value: 5e3) in [lo, hi], 0 <= lo <= hi < PL_SEED_MAX; 0, or 2
 * after printing the error. */
int cmd_parse_int(const char *flag, const char *s, int lo, int hi, int *out);
/* A seed: a whole number in [0, PL_SEED_MAX] (2^53, as JSON keeps it
 * exactly), written as pl_parse_whole() reads it.  0, or -1 for anything
 * else. */
#define PL_SEED_MAX 9007199254740992ULL
int cmd_seed_value(const char *s, unsigned long long *out);
/* Parse --FLAG's seed (cmd_seed_value); 0, or 2 after printing the
 * error. */
int cmd_parse_seed(const char *flag, const char *s, unsigned long long *out);
/* Parse --sim (native|placeto) / --mem (native|placeto|none) into o;
 * 0, or 2 after printing the error. */
int cmd_parse_sim(const char *value, struct pl_sim_opts *o);
int cmd_parse_mem(const char *value, struct pl_sim_opts *o);
struct pl_compare;
/* Say which methods of a comparison found no placement, on stderr
 * whatever the format (a CSV or JSON reader may not look at the rows'
 * notes), as "CMD: METHOD found no placement: WHY"; 1 when none found
 * one, so that a script notices, else 0. */
int cmd_compare_failures(const char *cmd, const struct pl_compare *cmp);
/* A file a command reads (output 0) or writes (1), given with flag. */
struct cmd_file {
	const char *flag;
	const char *path;	/* NULL: not given */
	int output;
	const char *writes;	/* an output's document kind (PL_FORMAT_..., */
};				/* "PLWEIGHT"), NULL: another kind of file */
/* Before the work: every output can be written, and none is the same
 * file as an input or another output, nor a placelab document of
 * another kind than it writes (nothing the user has is replaced by
 * accident); 0, or 2 after printing the error. */
int cmd_check_files(const struct cmd_file *f, int n);
struct pl_options;
struct pl_option_def;
struct pl_placer_class;
struct pl_option_range;
/* Print an option table, one "--NAME TYPE default DEF HELP (RANGE)" line
 * per option ("(no options)" for none). */
void cmd_print_options(FILE *f, const struct pl_option_def *defs,
    const struct pl_option_range *ranges);
/* The same, for a command whose own flags take some of the names (NULL
 * ends the list): those are shown as "--opt NAME=". */
void cmd_print_options_flags(FILE *f, const struct pl_option_def *defs,
    const struct pl_option_range *ranges, const char *const *flags);
/* Whether the method class has an option of this name. */
int cmd_class_has(const struct pl_placer_class *cls, const char *name);
/* cmd_check_files, the files methods' options name (their file options,
 * e.g. a policy to read) counted as inputs too; opts[i] may be NULL. */
int cmd_check_method_files(const struct cmd_file *f, int n,
    const struct pl_options *const *opts, int n_opts);
/* A long command stops cleanly on the first SIGINT or SIGTERM: after
 * cmd_catch_stop(), cmd_stopped() is that signal's number (0: none) and
 * the command finishes as at the end of its budget (writing what it was
 * asked to, its best so far), then exits 128 + the number; a second one
 * ends it at once.  A signal ignored when the program started stays
 * ignored. */
void cmd_catch_stop(void);
int cmd_stopped(void);
struct pl_placer;
/* Step pl within the budget (<= 0: no limit) until done or cmd_stopped();
 * with progress, a line "LABEL: step N, S s, STATUS" on stderr every half
 * second, redrawn in place.  Returns whether such a line was drawn. */
int cmd_step_placer(struct pl_placer *pl, int max_steps, double max_seconds,
    const char *label, int progress);
/* The stream for what a command prints: stdout, or stderr when the file
 * given for one of its outputs (path1, path2; NULL: none) is standard
 * output's, e.g. -o /dev/stdout, so that the output is all that goes
 * there. */
FILE *cmd_report_stream(const char *path1, const char *path2);
/* s as cmd_safe() gives it, then spaces to w terminal columns
 * (pl_utf8_width: a CJK name is two columns a character, a combining
 * accent none). */
void cmd_put_padded(FILE *f, const char *s, int w);
/* s as placelab prints it for people: its control characters (ESC, tab,
 * ..., and the C1 ones, U+0080 to U+009F) but newlines as spaces, as the
 * tables write them, so that a name cannot drive the terminal.  s itself
 * when it has none, else a copy that lasts until the eighth call after. */
const char *cmd_safe(const char *s);
/* The formatted text over the progress line on stderr (a terminal): \r,
 * the text, the rest of the row cleared (ESC [K where TERM's terminfo
 * entry has it, else blanks over the line before: TERM=dumb, unset or
 * unknown).  An update (last 0) is cut to the terminal's width less one
 * column; the last line is whole and ends with a newline, so it stays. */
void cmd_progress_put(int last, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define cmd_progress(...) cmd_progress_put(0, __VA_ARGS__)
#define cmd_progress_end(...) cmd_progress_put(1, __VA_ARGS__)
/* The larger of w and the columns s takes. */
int cmd_width_max(int w, const char *s);
/* The file an output option names: "-" is standard output (/dev/stdout,
 * which the file writers and cmd_report_stream() know), else arg. */
const char *cmd_out_path(const char *arg);
/* The default cluster when -c is not given. */
#define PL_DEFAULT_CLUSTER "k80x4"
/* The teaching graph's own, for --demo without GRAPH or -c. */
#define PL_DEMO_CLUSTER "k80x2"

#endif
