/*
 * cmd-common — helpers shared by the subcommands: error printing, loading
 * inputs, finding the data directory.
 *
 * Invariant: a stop signal that ends the process (the second of its kind)
 * first removes the temporary files fileio holds, so that no half-written
 * output is left next to the user's files.
 */
#include "config.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "compare.h"
#include "fileio.h"
#include "io.h"
#include "options.h"
#include "placer.h"
#include "screen.h"
#include "strbuf.h"
#include "viz/load.h"
#include "xmalloc.h"

static volatile sig_atomic_t stop_signal;
/* Which stop signals came once already (SIGINT, SIGTERM). */
static volatile sig_atomic_t stop_int, stop_term;

/* A stop signal: the first of its kind noted, and said; the second of a
 * kind ends the process at once, as the default action would, with no
 * temporary file left behind (pl_file_remove_temps()). */
static void
on_stop(int sig)
{
	static const char msg[] = "\nplacelab: stopping after this step, with what was found "
	    "so far (again to quit at once)\n";
	volatile sig_atomic_t *seen = sig == SIGINT ? &stop_int : &stop_term;
	if (*seen) {
		pl_file_die_of(sig);	/* (blocked until this returns: then it ends the process) */
		return;
	}
	*seen = 1;
	stop_signal = sig;
	ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)w;
}

/* Catch SIGINT and SIGTERM (see cmd.h): the first of each noted, the
 * second fatal. */
void
cmd_catch_stop(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* The stop signal received, or 0. */
int
cmd_stopped(void)
{
	return stop_signal;
}

/* What cmd_step_placer() shows between steps. */
struct step_watch {
	const char *label;
	int progress;
	double last;		/* seconds at the last line drawn (0: none) */
};

/* The bytes of the control character at s (an ASCII one but a newline,
 * DEL, or a C1 one, U+0080 to U+009F: 2 bytes in UTF-8), or 0. */
static int
control_at(const char *s)
{
	unsigned char c = (unsigned char)s[0];
	if ((c < 0x20 && c != '\n' && c != '\0') || c == 0x7f)
		return 1;
	if (c == 0xC2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9F)
		return 2;
	return 0;
}

/* s with its control characters but newlines as spaces (see cmd.h). */
const char *
cmd_safe(const char *s)
{
	static char *ring[8];
	static int next;
	size_t i = 0;
	while (s[i] != '\0' && control_at(s + i) == 0)
		i++;
	if (s[i] == '\0')
		return s;
	free(ring[next]);
	char *c = ring[next] = pl_xmalloc(strlen(s) + 1);
	next = (next + 1) % 8;
	memcpy(c, s, i);
	size_t o = i;
	while (s[i] != '\0') {
		int k = control_at(s + i);
		if (k > 0) {
			c[o++] = ' ';	/* a C1 control's two bytes: one space */
			i += (size_t)k;
		} else
			c[o++] = s[i++];
	}
	c[o] = '\0';
	return c;
}

/* Columns of the progress line now on stderr's row (0: none). */
static int progress_shown;

/* The formatted text over the progress line on stderr (see cmd.h). */
void
cmd_progress_put(int last, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = pl_xvasprintf(fmt, ap);
	va_end(ap);
	/* an update within the terminal's width, so that \r rewrites it */
	struct winsize ws;
	if (!last && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		line[pl_utf8_head(line, (size_t)ws.ws_col - 1)] = '\0';
	int w = (int)pl_utf8_width(line);
	fprintf(stderr, "\r%s", line);
	/* whether the terminal clears to the line's end, looked up once per
	 * TERM (terminfo is read from disk) */
	static char *el_term;
	static int el;
	const char *term = getenv("TERM") != NULL ? getenv("TERM") : "";
	if (el_term == NULL || strcmp(el_term, term) != 0) {
		free(el_term);
		el_term = pl_xstrdup(term);
		el = screen_term_has(STDERR_FILENO, "el");
	}
	if (el)
		fputs("\033[K", stderr);
	else	/* (TERM=dumb, unset or unknown) */
		fprintf(stderr, "%*s", progress_shown > w ? progress_shown - w : 0, "");
	if (last)
		fputc('\n', stderr);
	progress_shown = last ? 0 : w;
	free(line);
}

/* Between two steps: stop on a signal; the progress line. */
static int
watch_step(const struct pl_placer *pl, double elapsed, void *arg)
{
	struct step_watch *w = arg;
	if (cmd_stopped())
		return 1;
	if (w->progress && elapsed - w->last >= 0.5) {
		w->last = elapsed;
		cmd_progress("%s: step %d, %.1f s, %s", w->label, pl->n_steps,
		    elapsed, pl->status != NULL ? pl->status : "");
	}
	return 0;
}

/* Step a method as run and compare do (see cmd.h). */
int
cmd_step_placer(struct pl_placer *pl, int max_steps, double max_seconds,
    const char *label, int progress)
{
	struct step_watch w = { label, progress, 0 };
	pl_placer_run_watched(pl, max_steps, max_seconds, watch_step, &w);
	return w.last > 0;
}

/* stderr when path1 or path2 is standard output's file (see cmd.h). */
FILE *
cmd_report_stream(const char *path1, const char *path2)
{
	struct stat o, st;
	if (fstat(STDOUT_FILENO, &o) != 0)
		return stdout;
	const char *paths[] = { path1, path2 };
	for (int i = 0; i < 2; i++)
		if (paths[i] != NULL && stat(paths[i], &st) == 0 &&
		    st.st_dev == o.st_dev && st.st_ino == o.st_ino)
			return stderr;
	return stdout;
}

/* s padded to w columns (see cmd.h). */
void
cmd_put_padded(FILE *f, const char *s, int w)
{
	s = cmd_safe(s);	/* measured as printed */
	fputs(s, f);
	for (int k = (int)pl_utf8_width(s); k < w; k++)
		fputc(' ', f);
}

/* The larger of w and s's columns (see cmd.h). */
int
cmd_width_max(int w, const char *s)
{
	int n = (int)pl_utf8_width(cmd_safe(s));	/* as cmd_put_padded prints it */
	return n > w ? n : w;
}

/* "-" as standard output (see cmd.h). */
const char *
cmd_out_path(const char *arg)
{
	return strcmp(arg, "-") == 0 ? "/dev/stdout" : arg;
}

/* Print and free msg; status 2. */
int
cmd_fail(char *msg)
{
	fprintf(stderr, "placelab: %s\n", cmd_safe(msg));
	free(msg);
	return 2;
}

/* printf-style error; status 2. */
int
cmd_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = pl_xvasprintf(fmt, ap);
	va_end(ap);
	return cmd_fail(msg);
}

/* Load a graph or report why not. */
struct pl_graph *
cmd_load_graph(const char *path)
{
	char *cause = NULL;
	struct pl_graph *g = plv_graph_load(path, &cause);
	if (g == NULL)
		cmd_fail(cause);
	return g;
}

/* Load a cluster (preset or file) or report why not. */
struct pl_cluster *
cmd_load_cluster(const char *arg)
{
	char *cause = NULL;
	struct pl_cluster *c = pl_cluster_from_arg(arg != NULL ? arg : PL_DEFAULT_CLUSTER, &cause);
	if (c == NULL)
		cmd_fail(cause);
	return c;
}

/* A number flag within bounds. */
int
cmd_parse_num(const char *flag, const char *s, double lo, double hi, double *out)
{
	double v;
	if (pl_parse_number(s, &v) != 0 || !(v >= lo && v <= hi))
		return cmd_error("--%s '%s': expected a number in [%g, %g]", flag, s, lo, hi);
	*out = v;
	return 0;
}

/* A whole-number flag within bounds. */
int
cmd_parse_int(const char *flag, const char *s, int lo, int hi, int *out)
{
	unsigned long long v;	/* lo >= 0, hi < PL_SEED_MAX: read as a seed */
	if (cmd_seed_value(s, &v) != 0 || v < (unsigned long long)lo || v > (unsigned long long)hi)
		return cmd_error("--%s '%s': expected a whole number in [%d, %d]", flag, s, lo, hi);
	*out = (int)v;
	return 0;
}

/* A seed's value (see cmd.h): any number with a whole value in range
 * (5, 5e3), read exactly. */
int
cmd_seed_value(const char *s, unsigned long long *out)
{
	long long v;
	if (pl_parse_whole(s, &v) != 0 || v < 0 || (unsigned long long)v > PL_SEED_MAX)
		return -1;
	*out = (unsigned long long)v;
	return 0;
}

/* A seed flag. */
int
cmd_parse_seed(const char *flag, const char *s, unsigned long long *out)
{
	if (cmd_seed_value(s, out) != 0)
		return cmd_error("--%s '%s': expected a whole number in [0, %llu]", flag, s, PL_SEED_MAX);
	return 0;
}

/* The simulator flag. */
int
cmd_parse_sim(const char *value, struct pl_sim_opts *o)
{
	int k = pl_sim_kind_parse(value);
	if (k < 0)
		return cmd_error("--sim '%s': expected native or placeto", value);
	o->kind = (enum pl_sim_kind)k;
	return 0;
}

/* The memory-model flag. */
int
cmd_parse_mem(const char *value, struct pl_sim_opts *o)
{
	int m = pl_mem_model_parse(value);
	if (m < 0)
		return cmd_error("--mem '%s': expected native, placeto or none", value);
	o->mem = (enum pl_mem_model)m;
	return 0;
}

/* An option table, with each numeric option's range. */
void
cmd_print_options(FILE *f, const struct pl_option_def *defs, const struct pl_option_range *ranges)
{
	cmd_print_options_flags(f, defs, ranges, NULL);
}

/* The same, for a command whose own flags take some of the names (NULL
 * ends the list): those options are shown as set with --opt NAME=. */
void
cmd_print_options_flags(FILE *f, const struct pl_option_def *defs, const struct pl_option_range *ranges,
    const char *const *flags)
{
	static const char *const type_names[] = { "int", "number", "text", "bool", "file" };
	if (defs == NULL || defs[0].name == NULL) {
		fprintf(f, "  (no options)\n");
		return;
	}
	for (const struct pl_option_def *d = defs; d->name != NULL; d++) {
		const char *range = pl_option_range_of(ranges, d->name);
		int taken = 0;
		for (int i = 0; flags != NULL && flags[i] != NULL; i++)
			taken |= strcmp(flags[i], d->name) == 0;
		char name[64];
		snprintf(name, sizeof name, taken ? "--opt %s=" : "--%s", d->name);
		fprintf(f, "  %-18s %-6s default %-8s %s", name, type_names[d->type], d->def, d->help);
		if (range != NULL)
			fprintf(f, " (in %s)", range);
		fputc('\n', f);
	}
}

/* Whether the method class has an option of this name. */
int
cmd_class_has(const struct pl_placer_class *cls, const char *name)
{
	for (const struct pl_option_def *d = cls != NULL ? cls->options : NULL; d != NULL && d->name != NULL; d++)
		if (strcmp(d->name, name) == 0)
			return 1;
	return 0;
}

/* Whether path is a directory. */
static int
is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The data directory, found once. */
const char *
cmd_datadir(void)
{
	static char *dir;
	if (dir != NULL)
		return dir;
	const char *env = getenv("PLACELAB_DATADIR");
	if (env != NULL && *env) {
		dir = pl_xstrdup(env);
		return dir;
	}
	/* Run from the build tree: the samples are in the source tree. */
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL)
			*slash = '\0';
		char build[PATH_MAX];
		if (realpath(PL_BUILDDIR, build) != NULL && strcmp(build, exe) == 0 &&
		    is_dir(PL_SRCDIR "/samples")) {
			dir = pl_xstrdup(PL_SRCDIR);
			return dir;
		}
	}
	dir = pl_xstrdup(PL_PKGDATADIR);
	return dir;
}

/* A path under the data directory.  From the build tree, files generated
 * at build time (under the build directory) come before the source tree's. */
char *
cmd_data_path(const char *rel)
{
	const char *dir = cmd_datadir();
	if (strcmp(dir, PL_SRCDIR) == 0) {
		char *built = pl_xasprintf("%s/%s", PL_BUILDDIR, rel);
		struct stat st;
		if (stat(built, &st) == 0)
			return built;
		free(built);
	}
	return pl_xasprintf("%s/%s", dir, rel);
}

/* Check a command's files before its work: outputs writable and not
 * placelab documents of another kind, and no output the same file as an
 * input or an earlier output. */
int
cmd_check_files(const struct cmd_file *f, int n)
{
	for (int i = 0; i < n; i++) {
		if (f[i].path == NULL || !f[i].output)
			continue;
		char *cause = NULL;
		if (pl_file_check_writable(f[i].path, &cause) != 0) {
			cmd_error("%s %s", f[i].flag, cause);
			free(cause);
			return 2;
		}
		for (int j = 0; j < n; j++) {
			if (j == i || f[j].path == NULL || (f[j].output && j > i) ||
			    !pl_file_same(f[i].path, f[j].path))
				continue;
			return f[j].output ?
			    cmd_error("%s %s: the same file as %s %s (give each output its own file)",
				f[i].flag, f[i].path, f[j].flag, f[j].path) :
			    cmd_error("%s %s: the same file as the input %s %s (an output never replaces an input)",
				f[i].flag, f[i].path, f[j].flag, f[j].path);
		}
		if ((cause = pl_file_kind_clash(f[i].path, f[i].writes)) != NULL) {
			cmd_error("%s %s", f[i].flag, cause);
			free(cause);
			return 2;
		}
	}
	return 0;
}

/* Check a command's files with the files methods' options name as
 * inputs (opts[i] NULL: a spec its method will refuse when it starts). */
int
cmd_check_method_files(const struct cmd_file *f, int n, const struct pl_options *const *opts,
    int n_opts)
{
	int m = 0;
	for (int j = 0; j < n_opts; j++)
		for (const struct pl_option_def *d = opts[j] != NULL ? pl_options_defs(opts[j]) : NULL;
		    d != NULL && d->name != NULL; d++)
			m++;
	struct cmd_file *all = pl_xcalloc((size_t)(n + m) + 1, sizeof *all);
	char **flags = pl_xcalloc((size_t)m + 1, sizeof *flags);
	memcpy(all, f, sizeof *f * (size_t)n);
	int k = n, nf = 0;
	for (int j = 0; j < n_opts; j++) {
		if (opts[j] == NULL)
			continue;
		const struct pl_option_def *d = pl_options_defs(opts[j]);
		for (int i = 0; d[i].name != NULL; i++) {
			const char *v = pl_options_value(opts[j], i);
			if (d[i].type != PL_OPT_FILE || *v == '\0')
				continue;
			flags[nf] = pl_xasprintf("--%s", d[i].name);
			all[k++] = (struct cmd_file){ flags[nf++], v, 0, NULL };
		}
	}
	int rc = cmd_check_files(all, k);
	for (int i = 0; i < nf; i++)
		free(flags[i]);
	free(flags);
	free(all);
	return rc;
}

/* Which methods found no placement (see cmd.h). */
int
cmd_compare_failures(const char *cmd, const struct pl_compare *cmp)
{
	int found = 0;
	for (int i = 0; i < cmp->n_rows; i++) {
		const struct pl_compare_row *r = &cmp->rows[i];
		if (r->has_result)
			found++;
		else
			cmd_error("%s: %s found no placement: %s", cmd, r->method,
			    r->status != NULL && *r->status != '\0' ? r->status : "no reason given");
	}
	if (found > 0 || cmp->n_rows == 0)
		return 0;
	cmd_error("%s: no method found a placement", cmd);
	return 1;
}
