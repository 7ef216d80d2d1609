/*
 * bench-tui — how long the explorer takes to redraw each view of the
 * largest sample (target: under 16 ms, one frame at 60 Hz), and how long a
 * hand edit takes to show (move one op, resimulate, redraw).
 *
 * Headless: newterm() on /dev/null at 200x50 and at 80x24, TERM pinned to
 * xterm-256color; a redraw is explore_draw() plus doupdate(), i.e. the
 * whole frame including curses' output.  The graph is the largest *.json
 * sample found in the build tree's and the source tree's samples/ (or the
 * file named on the command line).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curses.h>

#include "clock.h"
#include "action.h"
#include "tui/explore.h"
#include "tui/screen.h"
#include "xmalloc.h"

/* The largest graph sample in dir (by bytes), kept in *best. */
static void
scan(const char *dir, char **best, off_t *size)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
			continue;
		char *p = pl_xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st) == 0 && st.st_size > *size) {
			*size = st.st_size;
			free(*best);
			*best = p;
		} else
			free(p);
	}
	closedir(d);
}

/* Time `reps` redraws of the current state; prints mean and max in ms. */
static void
time_draw(struct explore *ex, const char *what, int reps)
{
	double sum = 0, worst = 0;
	for (int i = 0; i < reps; i++) {
		clearok(curscr, TRUE);	/* a full frame, not just the changes */
		double t0 = pl_now_s();
		explore_draw(ex);
		doupdate();
		double dt = (pl_now_s() - t0) * 1e3;
		sum += dt;
		if (dt > worst)
			worst = dt;
	}
	printf("  %-28s mean %6.2f ms  max %6.2f ms\n", what, sum / reps, worst);
}

/* Run the benchmark at one size. */
static void
bench_size(struct explore *ex, int cols, int rows)
{
	resize_term(rows, cols);
	explore_key(ex, KEY_RESIZE);
	printf("%dx%d, full redraw (explore_draw + doupdate), 50 frames each:\n", cols, rows);
	static const char *const views[] = {
		"view-ops", "view-timeline", "view-devices", "view-placeto",
		"view-brkga", "view-compare", "view-export",
	};
	for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
		explore_action(ex, tui_action_by_name(views[i]));
		time_draw(ex, views[i] + 5, 50);
	}
	explore_action(ex, ACT_VIEW_OPS);
	explore_action(ex, ACT_EXPAND_ALL);
	explore_action(ex, ACT_END);
	time_draw(ex, "ops (every scope open)", 50);
	explore_action(ex, ACT_HELP);
	time_draw(ex, "help", 50);
	explore_action(ex, ACT_CANCEL);
}

/* Benchmark the largest sample (or argv[1]). */
int
main(int argc, char **argv)
{
	char *graph = NULL;
	off_t size = 0;
	if (argc > 1)
		graph = pl_xstrdup(argv[1]);
	else {
		scan(PL_BUILDDIR "/samples", &graph, &size);
		scan(PL_SRCDIR "/samples", &graph, &size);
	}
	if (graph == NULL) {
		fprintf(stderr, "bench-tui: no sample graph found\n");
		return 1;
	}
	setenv("TERM", "xterm-256color", 1);
	unsetenv("NO_COLOR");
	struct explore_opts o = { .graph_path = graph, .seed = 1, .threads = 1 };
	struct explore ex;
	char *cause = NULL;
	double t0 = pl_now_s();
	if (explore_open(&ex, &o, &cause) != 0) {
		fprintf(stderr, "bench-tui: %s\n", cause);
		return 1;
	}
	double t_open = pl_now_s() - t0;
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	setenv("COLUMNS", "200", 1);
	setenv("LINES", "50", 1);
	SCREEN *sp = newterm("xterm-256color", out, in);
	if (sp == NULL) {
		fprintf(stderr, "bench-tui: no terminfo for xterm-256color\n");
		return 1;
	}
	screen_start(sp);
	printf("bench-tui: %s (%d ops, %d edges) on %s; open %.0f ms\n", graph,
	    ex.g->n_ops, ex.g->n_edges, ex.c->name, t_open * 1e3);
	printf("(shared 2-core machine: figures are noisy)\n");
	bench_size(&ex, 200, 50);
	bench_size(&ex, 80, 24);

	/* a hand edit: move the selected op's group, resimulate, redraw */
	explore_action(&ex, ACT_VIEW_OPS);
	explore_select(&ex, ex.g->n_ops / 2);
	double sum = 0, worst = 0;
	int reps = 20;
	for (int i = 0; i < reps; i++) {
		double t1 = pl_now_s();
		explore_action(&ex, i % 2 ? ACT_DEV_PREV : ACT_DEV_NEXT);
		explore_draw(&ex);
		doupdate();
		double dt = (pl_now_s() - t1) * 1e3;
		sum += dt;
		if (dt > worst)
			worst = dt;
	}
	printf("hand edit (move, pl_sim_trace, redraw): mean %.2f ms  max %.2f ms\n",
	    sum / reps, worst);
	screen_stop();
	delscreen(sp);
	fclose(out);
	fclose(in);
	explore_close(&ex);
	free(graph);
	return 0;
}
