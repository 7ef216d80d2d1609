/*
 * test-tui — the explorer, headless and in-process, the tig way: each
 * script in tests/tui/ (NAME.script) drives a real explorer (newterm() on
 * /dev/null, TERM pinned) with keys, named actions, resizes, clicks and
 * background work run to completion; `dump NAME` compares the screen
 * (read back with mvwinnwstr) with tests/tui/NAME.screen.  GENERATE=1
 * rewrites the golden files instead of comparing (deliberately, never
 * automatically).
 *
 * Script lines:
 *   open GRAPH [cluster C] [demo] [nocolor] [term T] [locale L] [placement FILE]
 *                           (GRAPH from the source tree, or ./GRAPH from here;
 *                           L as LC_ALL for the explorer, e.g. C: not UTF-8)
 *   size COLS ROWS          before open: the terminal size
 *   key K...                keys: a letter, Enter Tab BTab Esc Space Up Down
 *                           Left Right PgUp PgDn Home End BS Del, ^X for
 *                           control
 *   type TEXT               type the rest of the line
 *   type-src PATH           type the source tree's path of PATH
 *   action NAME             a named action (action.h)
 *   resize COLS ROWS        the terminal changes size (KEY_RESIZE)
 *   click Y X               a mouse click at screen row Y, column X
 *   wait                    run background work until idle
 *   tick SECONDS            one slice of background work that long (for a
 *                           state between start and idle, e.g. Compare with
 *                           BRKGA still running: choose one far from both)
 *   dump NAME               compare the screen with tests/tui/NAME.screen
 *   expect-quit 0|1, expect-dirty 0|1, expect-view NAME, expect-file PATH,
 *   expect-no-file PATH
 *   expect-file-has PATH TEXT, expect-file-lacks PATH TEXT
 *                           the file holds TEXT, or it does not
 *   expect-screen TEXT      the screen shows TEXT (for what other areas draw,
 *                           e.g. Graphviz output, whose details are theirs),
 *                           on one row or across rows joined by a space
 *   expect-screen-lacks TEXT  the screen does not show TEXT (on one row)
 *   expect-selected TEXT    a row shows TEXT drawn as the selection (the
 *                           cursor's row is on the screen)
 *   rm PATH
 *   home DIR                HOME is DIR (a path from here) for the rest of
 *                           the script
 *   gen PATH MODEL LAYERS SEQ_LEN   write a generated graph (framework-sized
 *                           ops) to PATH, e.g. one too big to lay out
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <locale.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <sys/stat.h>
#include <cmocka.h>

#include <curses.h>

#include "clock.h"
#include "action.h"
#include "fileio.h"
#include "gen/gen.h"
#include "io.h"
#include "strbuf.h"
#include "tui/cmd.h"
#include "tui/explore.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "viz/export.h"
#include "xmalloc.h"

#ifndef PL_SRCDIR
#error PL_SRCDIR must be defined
#endif

#define TUI_DIR PL_SRCDIR "/tests/tui"

/* The screen as text: one line per row, trailing blanks removed. */
static char *
dump_screen(void)
{
	size_t cap = (size_t)(LINES + 1) * (COLS * 4 + 2) + 1, len = 0;
	char *out = pl_xmalloc(cap);
	wchar_t *row = pl_xcalloc(COLS + 1, sizeof *row);
	for (int y = 0; y < LINES; y++) {
		int n = mvwinnwstr(stdscr, y, 0, row, COLS);
		if (n < 0)
			n = 0;
		row[n] = 0;
		char buf[4096];
		size_t b = wcstombs(buf, row, sizeof buf - 1);
		if (b == (size_t)-1)
			b = 0;
		buf[b] = '\0';
		while (b > 0 && buf[b - 1] == ' ')
			buf[--b] = '\0';
		memcpy(out + len, buf, b);
		len += b;
		out[len++] = '\n';
	}
	out[len] = '\0';
	free(row);
	return out;
}

/* Whether a cell is drawn in the selection's attributes (want; a
 * selected block is bold as well). */
static int
cell_selected(const cchar_t *cell, attr_t want)
{
	wchar_t wc[CCHARW_MAX + 1];
	attr_t a;
	short pair;
	getcchar(cell, wc, &a, &pair, NULL);
	return ((a ^ want) & ~(A_COLOR | A_BOLD)) == 0 && pair == PAIR_NUMBER(want);
}

/* Whether some row shows text (ASCII) with its first cell drawn in the
 * selection's attributes. */
static int
selected_on_screen(const char *text)
{
	attr_t want = screen_attr(SCR_SELECT);
	size_t n = strlen(text);
	cchar_t *cells = pl_xcalloc(COLS + 1, sizeof *cells);
	int found = 0;
	for (int y = 0; y < LINES && !found; y++) {
		if (mvwin_wchnstr(stdscr, y, 0, cells, COLS) == ERR)
			continue;
		for (int x = 0; x + (int)n <= COLS && !found; x++) {
			size_t k = 0;
			for (; k < n; k++) {
				wchar_t wc[CCHARW_MAX + 1];
				attr_t a;
				short pair;
				if (getcchar(&cells[x + k], wc, &a, &pair, NULL) == ERR || wc[0] != (wchar_t)text[k])
					break;
			}
			if (k < n)
				continue;
			found = cell_selected(&cells[x], want);
		}
	}
	free(cells);
	return found;
}

/* Whether some row that starts with label (ASCII) has a cell drawn in
 * the selection's attributes past the rule after it (a Gantt row's
 * selected block, not its label). */
static int
selected_in_row(const char *label)
{
	attr_t want = screen_attr(SCR_SELECT);
	size_t n = strlen(label);
	cchar_t *cells = pl_xcalloc(COLS + 1, sizeof *cells);
	int found = 0;
	for (int y = 0; y < LINES && !found; y++) {
		if (mvwin_wchnstr(stdscr, y, 0, cells, COLS) == ERR)
			continue;
		size_t k = 0;
		for (; k < n && (int)k < COLS; k++) {
			wchar_t wc[CCHARW_MAX + 1];
			attr_t a;
			short pair;
			if (getcchar(&cells[k], wc, &a, &pair, NULL) == ERR || wc[0] != (wchar_t)label[k])
				break;
		}
		if (k < n)
			continue;
		int past = 0;
		for (int x = (int)n; x < COLS && !found; x++) {
			if (!past) {
				wchar_t wc[CCHARW_MAX + 1];
				attr_t a;
				short pair;
				getcchar(&cells[x], wc, &a, &pair, NULL);
				past = wc[0] == L'│' || wc[0] == L'|';
				continue;
			}
			found = cell_selected(&cells[x], want);
		}
	}
	free(cells);
	return found;
}

/* The screen's text with its lines joined by one space, so that a phrase
 * a message wrapped onto two rows (where it breaks depends on the length
 * of a path) is still found. */
static char *
flow_screen(const char *screen)
{
	char *f = pl_xstrdup(screen);
	for (char *p = f; *p != '\0'; p++)
		if (*p == '\n')
			*p = ' ';
	return f;
}

/* Key by name. */
static int
key_code(const char *k)
{
	static const struct { const char *name; int key; } names[] = {
		{ "Enter", '\r' }, { "Tab", '\t' }, { "BTab", KEY_BTAB }, { "Esc", 27 },
		{ "Space", ' ' }, { "Up", KEY_UP }, { "Down", KEY_DOWN }, { "Left", KEY_LEFT },
		{ "Right", KEY_RIGHT }, { "PgUp", KEY_PPAGE }, { "PgDn", KEY_NPAGE },
		{ "Home", KEY_HOME }, { "End", KEY_END }, { "BS", KEY_BACKSPACE },
		{ "Del", KEY_DC },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i].name, k) == 0)
			return names[i].key;
	if (k[0] == '^' && k[1] != '\0' && k[2] == '\0')
		return k[1] & 0x1f;
	if (k[0] != '\0' && k[1] == '\0')
		return (unsigned char)k[0];
	fail_msg("unknown key name '%s'", k);
	return 0;
}

/* Compare (or with GENERATE=1 write) a golden screen. */
static void
check_golden(const char *name, const char *screen)
{
	char *path = pl_xasprintf("%s/%s.screen", TUI_DIR, name);
	const char *gen = getenv("GENERATE");
	if (gen != NULL && strcmp(gen, "1") == 0) {
		char *cause = NULL;
		if (pl_file_write_atomic(path, screen, strlen(screen), &cause) != 0)
			fail_msg("%s", cause);
		free(path);
		return;
	}
	char *cause = NULL;
	size_t len;
	char *want = pl_file_read(path, &len, &cause);
	if (want == NULL)
		fail_msg("%s (run with GENERATE=1 to create it)", cause);
	if (strcmp(want, screen) != 0) {
		/* show the first differing line */
		const char *a = want, *b = screen;
		int line = 1;
		while (*a && *a == *b) {
			if (*a == '\n')
				line++;
			a++;
			b++;
		}
		print_error("golden %s differs at line %d; screen now:\n%s\n", name, line, screen);
		free(want);
		free(path);
		fail();
	}
	free(want);
	free(path);
}

/* Run background work until idle (bounded). */
static void
wait_idle(struct explore *ex)
{
	for (int i = 0; i < 1000000; i++) {
		if (!explore_tick(ex, pl_now_s() + 0.05))
			return;
		explore_draw(ex);	/* as the main loop does between slices */
	}
	fail_msg("background work never finished");
}

/* Type text, one key a character. */
static void
type_text(struct explore *ex, const char *text)
{
	for (const char *p = text; *p; p++)
		explore_key(ex, (unsigned char)*p);
}

/* Redraw (as the main loop does before reading a key). */
static void
redraw(struct explore *ex)
{
	explore_draw(ex);
}

/* Close a script's explorer and its terminal. */
static void
close_explorer(struct explore *ex, SCREEN *sp, FILE *out, FILE *in)
{
	screen_stop();
	delscreen(sp);
	fclose(out);
	fclose(in);
	explore_close(ex);
}

/* HOME before a script's "home" command, put back when the script ends
 * (or, when it failed, before the next one). */
static char *old_home;

/* Put HOME back as it was before a "home" command, if there was one. */
static void
restore_home(void)
{
	if (old_home == NULL)
		return;
	setenv("HOME", old_home, 1);
	free(old_home);
	old_home = NULL;
}

/* Run one script. */
static void
run_script(const char *name)
{
	restore_home();	/* a script that failed after "home" */
	setenv("LC_ALL", "C.UTF-8", 1);	/* or after "locale" */
	char *path = pl_xasprintf("%s/%s.script", TUI_DIR, name);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		fail_msg("cannot open %s", path);
	free(path);
	int cols = 80, rows = 24, opened = 0, line_no = 0;
	struct explore ex;
	SCREEN *sp = NULL;
	FILE *out = NULL, *in = NULL;
	char line[1024];
	while (fgets(line, sizeof line, f) != NULL) {
		line_no++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		char *save = NULL, *cmd = strtok_r(line, " ", &save);
		char *rest = save;
		if (strcmp(cmd, "size") == 0) {
			cols = atoi(strtok_r(NULL, " ", &save));
			rows = atoi(strtok_r(NULL, " ", &save));
			continue;
		}
		if (strcmp(cmd, "open") == 0) {
			if (opened)	/* a second open replaces the first */
				close_explorer(&ex, sp, out, in);
			opened = 0;
			struct explore_opts o = { .seed = 1, .threads = 1, .fixed_clock = 1 };
			char *graph = strtok_r(NULL, " ", &save), *w;
			/* "-": no GRAPH, the explorer's default */
			char *gpath = strcmp(graph, "-") == 0 ? NULL :
			    graph[0] == '/' || strncmp(graph, "./", 2) == 0 ? pl_xstrdup(graph) :
			    pl_xasprintf("%s/%s", PL_SRCDIR, graph);
			char *ppath = NULL, *cpath = NULL;
			int nocolor = 0;
			const char *term = "xterm-256color";
			o.graph_path = gpath;
			while ((w = strtok_r(NULL, " ", &save)) != NULL) {
				if (strcmp(w, "cluster") == 0) {
					char *c = strtok_r(NULL, " ", &save);
					free(cpath);
					cpath = strchr(c, '/') != NULL && c[0] != '/' ?
					    pl_xasprintf("%s/%s", PL_SRCDIR, c) : pl_xstrdup(c);
					o.cluster = cpath;
				}
				else if (strcmp(w, "demo") == 0)
					o.demo = 1;
				else if (strcmp(w, "nocolor") == 0)
					nocolor = 1;
				else if (strcmp(w, "term") == 0)
					term = strtok_r(NULL, " ", &save);
				else if (strcmp(w, "locale") == 0)
					setenv("LC_ALL", strtok_r(NULL, " ", &save), 1);
				else if (strcmp(w, "placement") == 0) {
					char *pf = strtok_r(NULL, " ", &save);
					free(ppath);
					ppath = pf[0] != '/' && strncmp(pf, "./", 2) != 0 ?
					    pl_xasprintf("%s/%s", PL_SRCDIR, pf) : pl_xstrdup(pf);
					o.placement_path = ppath;
				}
			}
			char *cause = NULL;
			if (explore_open(&ex, &o, &cause) != 0)
				fail_msg("%s:%d: %s", name, line_no, cause);
			free(gpath);
			free(ppath);
			free(cpath);
			char c[16], r[16];
			snprintf(c, sizeof c, "%d", cols);
			snprintf(r, sizeof r, "%d", rows);
			setenv("COLUMNS", c, 1);
			setenv("LINES", r, 1);
			if (nocolor)
				setenv("NO_COLOR", "1", 1);
			else
				unsetenv("NO_COLOR");
			out = fopen("/dev/null", "w");
			in = fopen("/dev/null", "r");
			sp = newterm(term, out, in);
			assert_non_null(sp);
			screen_start(sp);	/* (in the locale LC_ALL names) */
			setenv("LC_ALL", "C.UTF-8", 1);	/* (the next script's) */
			screen_catch_interrupt();	/* as placelab explore does */
			screen_catch_hangup();
			if (strcmp(term, "xterm") == 0 && !nocolor)
				assert_int_equal(screen_mode(), SCR_COLOR8);
			else if (!nocolor)
				assert_int_equal(screen_mode(), SCR_COLOR256);
			else
				assert_int_equal(screen_mode(), SCR_MONO);
			assert_int_equal(screen_dev_fg(1) == screen_dev_fg(2), nocolor);
			opened = 1;
			redraw(&ex);
			continue;
		}
		if (strcmp(cmd, "gen") == 0) {
			char *gpath = strtok_r(NULL, " ", &save), *model = strtok_r(NULL, " ", &save);
			struct pl_gen_opts go = { .granularity = PL_GEN_OP };
			go.layers = atoi(strtok_r(NULL, " ", &save));
			go.seq_len = atoi(strtok_r(NULL, " ", &save));
			char *cause = NULL;
			struct pl_graph *g = pl_gen(model, &go, NULL, &cause);
			if (g == NULL || pl_graph_save_json(g, gpath, &cause) != 0)
				fail_msg("%s:%d: %s", name, line_no, cause);
			pl_graph_free(g);
			continue;
		}
		if (strcmp(cmd, "close") == 0) {	/* the explorer goes, as on quitting */
			if (opened)
				close_explorer(&ex, sp, out, in);
			opened = 0;
			continue;
		}
		/* files are looked at (and removed) after "close" too */
		if (!opened && strncmp(cmd, "expect-file", 11) != 0 &&
		    strcmp(cmd, "expect-no-file") != 0 && strcmp(cmd, "rm") != 0 &&
		    strcmp(cmd, "mkdir") != 0 && strcmp(cmd, "symlink") != 0)
			fail_msg("%s:%d: open first", name, line_no);
		if (strcmp(cmd, "key") == 0) {
			char *k;
			while ((k = strtok_r(NULL, " ", &save)) != NULL) {
				explore_key(&ex, key_code(k));
				explore_tick(&ex, pl_now_s());	/* as the loop does */
				redraw(&ex);
			}
		} else if (strcmp(cmd, "type") == 0 || strcmp(cmd, "type-src") == 0) {
			char *text = pl_xasprintf("%s%s%s", cmd[4] != '\0' ? PL_SRCDIR : "",
			    cmd[4] != '\0' ? "/" : "", rest != NULL ? rest : "");
			type_text(&ex, text);
			free(text);
			redraw(&ex);
		} else if (strcmp(cmd, "action") == 0) {
			char *a = strtok_r(NULL, " ", &save);
			enum tui_action act = tui_action_by_name(a);
			if (act == ACT_NONE)
				fail_msg("%s:%d: unknown action '%s'", name, line_no, a);
			explore_action(&ex, act);
			explore_tick(&ex, pl_now_s());
			redraw(&ex);
		} else if (strcmp(cmd, "interrupt") == 0) {
			/* ^C: a real SIGINT, answered as the main loop does */
			raise(SIGINT);
			if (screen_interrupted())
				explore_interrupt(&ex);
			explore_tick(&ex, pl_now_s());
			redraw(&ex);
		} else if (strcmp(cmd, "hangup") == 0) {
			/* SIGHUP: a real one, answered as the main loop does */
			raise(SIGHUP);
			int hs = screen_hungup();
			if (hs != 0)
				explore_hangup(&ex, hs);
			redraw(&ex);
		} else if (strcmp(cmd, "resize") == 0) {
			int c = atoi(strtok_r(NULL, " ", &save));
			int r = atoi(strtok_r(NULL, " ", &save));
			resize_term(r, c);
			explore_key(&ex, KEY_RESIZE);
			redraw(&ex);
		} else if (strcmp(cmd, "click") == 0) {
			int y = atoi(strtok_r(NULL, " ", &save));
			int x = atoi(strtok_r(NULL, " ", &save));
			MEVENT ev = { .id = 0, .x = x, .y = y, .z = 0, .bstate = BUTTON1_CLICKED };
			ungetmouse(&ev);
			int k = wgetch(stdscr);
			assert_int_equal(k, KEY_MOUSE);
			explore_key(&ex, k);
			redraw(&ex);
		} else if (strcmp(cmd, "wait") == 0) {
			wait_idle(&ex);
			redraw(&ex);
		} else if (strcmp(cmd, "tick") == 0) {
			explore_tick(&ex, pl_now_s() + atof(strtok_r(NULL, " ", &save)));
			redraw(&ex);
		} else if (strcmp(cmd, "dump") == 0) {
			redraw(&ex);
			char *s = dump_screen();
			check_golden(strtok_r(NULL, " ", &save), s);
			free(s);
		} else if (strcmp(cmd, "expect-quit") == 0) {
			assert_int_equal(ex.quit, atoi(strtok_r(NULL, " ", &save)));
		} else if (strcmp(cmd, "expect-dirty") == 0) {
			assert_int_equal(ex.dirty, atoi(strtok_r(NULL, " ", &save)));
		} else if (strcmp(cmd, "expect-view") == 0) {
			assert_string_equal(explore_view_name(ex.view), strtok_r(NULL, " ", &save));
		} else if (strcmp(cmd, "expect-file") == 0) {
			assert_int_equal(access(strtok_r(NULL, " ", &save), R_OK), 0);
		} else if (strcmp(cmd, "expect-file-has") == 0 || strcmp(cmd, "expect-file-lacks") == 0) {
			/* expect-file-has|lacks PATH TEXT: the file holds TEXT or not */
			int want = strcmp(cmd, "expect-file-has") == 0;
			const char *fp = strtok_r(NULL, " ", &save), *text = strtok_r(NULL, "", &save);
			assert_non_null(text);
			size_t len;
			char *cause = NULL;
			char *data = pl_file_read(fp, &len, &cause);
			free(cause);
			if (data == NULL || (strstr(data, text) != NULL) != want) {
				fprintf(stderr, "%s\n", data != NULL ? data : "(unreadable)");
				fail_msg("%s:%d: '%s' %s %s (above)", name, line_no, text,
				    want ? "not in" : "in", fp);
			}
			free(data);
		} else if (strcmp(cmd, "expect-no-file") == 0) {
			assert_int_not_equal(access(strtok_r(NULL, " ", &save), F_OK), 0);
		} else if (strcmp(cmd, "expect-screen") == 0) {
			redraw(&ex);
			char *s = dump_screen();
			char *flowed = flow_screen(s);
			if (rest == NULL || (strstr(s, rest) == NULL && strstr(flowed, rest) == NULL))
				fail_msg("%s:%d: '%s' not on the screen:\n%s", name, line_no, rest, s);
			free(flowed);
			free(s);
		} else if (strcmp(cmd, "expect-screen-lacks") == 0) {
			redraw(&ex);
			char *s = dump_screen();
			if (rest == NULL || strstr(s, rest) != NULL)
				fail_msg("%s:%d: '%s' on the screen:\n%s", name, line_no,
				    rest != NULL ? rest : "", s);
			free(s);
		} else if (strcmp(cmd, "expect-selected") == 0) {
			redraw(&ex);
			if (rest == NULL || !selected_on_screen(rest)) {
				char *s = dump_screen();
				fail_msg("%s:%d: '%s' is not on the screen as the selection:\n%s", name,
				    line_no, rest != NULL ? rest : "", s);
				free(s);
			}
		} else if (strcmp(cmd, "expect-selected-in") == 0) {
			/* expect-selected-in LABEL: a row starting with LABEL
			 * shows a cell in the selection's attributes */
			redraw(&ex);
			if (rest == NULL || !selected_in_row(rest)) {
				char *s = dump_screen();
				fail_msg("%s:%d: no selected cell on the row '%s':\n%s", name, line_no,
				    rest != NULL ? rest : "", s);
				free(s);
			}
		} else if (strcmp(cmd, "rm") == 0) {	/* a file, or an empty folder */
			const char *rp = strtok_r(NULL, " ", &save);
			if (unlink(rp) != 0 && errno == EISDIR)
				rmdir(rp);
		} else if (strcmp(cmd, "symlink") == 0) {	/* symlink TARGET LINK */
			const char *to = strtok_r(NULL, " ", &save), *at = strtok_r(NULL, " ", &save);
			if (to == NULL || at == NULL || symlink(to, at) != 0)
				fail_msg("%s:%d: symlink: %s", name, line_no, strerror(errno));
		} else if (strcmp(cmd, "mkdir") == 0) {	/* mkdir PATH: with its parents */
			char *dir = pl_xstrdup(strtok_r(NULL, " ", &save));
			for (char *sl = strchr(dir + 1, '/'); ; sl = strchr(sl + 1, '/')) {
				if (sl != NULL)
					*sl = '\0';
				if (mkdir(dir, 0777) != 0 && errno != EEXIST)
					fail_msg("%s:%d: mkdir %s: %s", name, line_no, dir, strerror(errno));
				if (sl == NULL)
					break;
				*sl = '/';
			}
			free(dir);
		} else if (strcmp(cmd, "home") == 0) {
			if (old_home == NULL)
				old_home = pl_xstrdup(getenv("HOME") != NULL ? getenv("HOME") : "");
			char *dir = realpath(strtok_r(NULL, " ", &save), NULL);
			assert_non_null(dir);
			setenv("HOME", dir, 1);
			free(dir);
		} else
			fail_msg("%s:%d: unknown command '%s'", name, line_no, cmd);
	}
	fclose(f);
	if (opened)
		close_explorer(&ex, sp, out, in);
	restore_home();
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));	/* (after "locale") */
}

/* Every action has a unique name, help, and no key means two things in
 * one view. */
static void
test_action_table(void **state)
{
	(void)state;
	for (int i = 0; i < ACT_COUNT - 1; i++) {
		const struct tui_action_def *a = &tui_actions[i];
		assert_int_equal(a->action, i + 1);
		assert_true(strlen(a->help) > 5);
		assert_int_equal(tui_action_by_name(a->name), a->action);
		for (int j = i + 1; j < ACT_COUNT - 1; j++) {
			const struct tui_action_def *b = &tui_actions[j];
			assert_string_not_equal(a->name, b->name);
			int overlap = a->where == AV_ALL || b->where == AV_ALL || (a->where & b->where);
			int same = a->key == b->key || (b->alt && a->key == b->alt) ||
			    (a->alt && (a->alt == b->key || a->alt == b->alt));
			if (same && overlap && a->where != AV_ALL && b->where != AV_ALL)
				fail_msg("key of %s and %s clash", a->name, b->name);
			if (same && a->where == AV_ALL && b->where == AV_ALL)
				fail_msg("key of %s and %s clash", a->name, b->name);
		}
	}
	/* a view's own binding wins over a global one */
	assert_int_equal(tui_action_for_key('n', 3), ACT_PLACETO_STEP);
	assert_int_equal(tui_action_for_key('n', 4), ACT_BRKGA_STEP);
	assert_int_equal(tui_action_for_key('n', 0), ACT_SEARCH_NEXT);
	assert_int_equal(tui_action_for_key('q', 2), ACT_QUIT);
	assert_int_equal(tui_action_for_key('x', 0), ACT_NONE);
}

/* The commands' progress line is cut to the terminal's columns, whole
 * characters (it wrapped, and each update left a line behind), by
 * pl_utf8_head(). */
static void
test_cut_columns(void **state)
{
	(void)state;
	assert_int_equal(pl_utf8_head("abcdef", 4), 4);
	assert_int_equal(pl_utf8_head("abc", 10), 3);
	assert_int_equal(pl_utf8_head("abc\xe4\xb8\x96x", 4), 3);	/* 世 takes 2 */
	assert_int_equal(pl_utf8_head("abc\xe4\xb8\x96x", 5), 6);
	assert_int_equal(pl_utf8_head("e\xcc\x81\xc3\xa9z", 2), 5);	/* e + U+0301, é */
	assert_int_equal(pl_utf8_head("", 3), 0);
}

/* An 80x24 screen of its own for a test of the drawing helpers (on
 * /dev/null), started and erased; closed with test_screen_close. */
struct test_screen {
	FILE *out, *in;
	SCREEN *sp;
};

static void
test_screen_open(struct test_screen *ts)
{
	ts->out = fopen("/dev/null", "w");
	ts->in = fopen("/dev/null", "r");
	setenv("COLUMNS", "80", 1);
	setenv("LINES", "24", 1);
	ts->sp = newterm("xterm-256color", ts->out, ts->in);
	assert_non_null(ts->sp);
	screen_start(ts->sp);
	erase();
}

/* Stop and free what test_screen_open made. */
static void
test_screen_close(struct test_screen *ts)
{
	screen_stop();
	delscreen(ts->sp);
	fclose(ts->out);
	fclose(ts->in);
}

/* Row y's text as mvwinnwstr reads it back (each cell's characters, its
 * combining ones too), trailing blanks removed. */
static char *
row_text(int y)
{
	wchar_t ws[256];
	int got = mvwinnwstr(stdscr, y, 0, ws, 255);
	ws[got > 0 ? got : 0] = 0;
	char *out = pl_xmalloc(1024);
	size_t b = wcstombs(out, ws, 1023);
	b = b == (size_t)-1 ? 0 : b;
	while (b > 0 && out[b - 1] == ' ')
		b--;
	out[b] = '\0';
	return out;
}

/* The progress lines as stderr gets them under TERM term (stderr a file:
 * no cut to a width), from two updates and a last line. */
static char *
progress_bytes(const char *term)
{
	if (term != NULL)
		setenv("TERM", term, 1);
	else
		unsetenv("TERM");
	char path[] = "/tmp/placelab-test-progress-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	cmd_progress("brkga: step %d, long status", 12);
	cmd_progress("brkga: step %d", 13);
	cmd_progress_end("brkga: %s", "done");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	setenv("TERM", "xterm-256color", 1);
	size_t len;
	char *cause = NULL;
	char *got = pl_file_read(path, &len, &cause);
	assert_non_null(got);
	unlink(path);
	return got;
}

/* A progress line clears what the one before it left with ESC [K where
 * the terminal has it, and with blanks where it has not (TERM dumb, unset
 * or unknown, which showed "^[[K" or garbage). */
static void
test_progress_clear(void **state)
{
	(void)state;
	char *got = progress_bytes("xterm-256color");
	assert_string_equal(got, "\rbrkga: step 12, long status\033[K\rbrkga: step 13\033[K"
	    "\rbrkga: done\033[K\n");
	free(got);
	static const char *plain[] = { "dumb", NULL, "", "nosuchterm" };
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		got = progress_bytes(plain[i]);
		assert_string_equal(got, "\rbrkga: step 12, long status"
		    "\rbrkga: step 13             \rbrkga: done   \n");
		free(got);
	}
}

/* Text widths count combining and zero-width characters as 0 columns and
 * go on after them; an invalid byte is one '?' column; a character alone
 * is measured the same way. */
static void
test_screen_width(void **state)
{
	(void)state;
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
	assert_int_equal(screen_width("e\xcc\x81" "xyz"), 4);	/* e + combining acute */
	assert_int_equal(screen_width("a\xe2\x80\x8b" "bcd"), 4);	/* zero-width space */
	assert_int_equal(screen_width("\xe6\xbc\xa2x"), 3);	/* a wide CJK character */
	assert_int_equal(screen_width("a\xff" "b"), 3);
	assert_int_equal(screen_width(""), 0);
	/* the end that fits drops whole characters from the start */
	assert_string_equal(screen_tail("\xe6\xbc\xa2xyz", 3), "xyz");
	assert_string_equal(screen_tail("\xe6\xbc\xa2xyz", 4), "xyz");
	assert_string_equal(screen_tail("\xe6\xbc\xa2xyz", 5), "\xe6\xbc\xa2xyz");
	assert_string_equal(screen_tail("abc", 0), "");
	/* one character: its bytes and columns, as drawn */
	int cols = -1;
	assert_int_equal(screen_char("\xe6\xbc\xa2x", 4, &cols), 3);
	assert_int_equal(cols, 2);
	assert_int_equal(screen_char("\xcc\x81" "a", 3, &cols), 2);	/* combining */
	assert_int_equal(cols, 0);
	assert_int_equal(screen_char("\xff" "a", 2, &cols), 1);	/* invalid: one '?' */
	assert_int_equal(cols, 1);
	assert_int_equal(screen_char("\xe6\xbc", 2, &cols), 1);	/* cut short: one byte */
	assert_int_equal(cols, 1);
}

/* A middle cut keeps both ends in whole characters and never writes past
 * its buffer; a wrap breaks by columns, never inside a character. */
static void
test_screen_mid_wrap(void **state)
{
	(void)state;
	struct test_screen ts;
	test_screen_open(&ts);	/* UTF-8: the ellipsis is U+2026 */
	char b[64];
	assert_string_equal(screen_mid(b, sizeof b, "job:worker/device:GPU:3", 10), "job:w\xe2\x80\xa6PU:3");
	assert_string_equal(screen_mid(b, sizeof b, "short", 10), "short");
	/* wide characters: 2 columns each, the cut on their boundaries */
	assert_string_equal(screen_mid(b, sizeof b, "\xe8\xae\x8a\xe8\xae\x8a\xe8\xae\x8a\xe8\xae\x8a\xe8\xae\x8a", 7),
	    "\xe8\xae\x8a\xe2\x80\xa6\xe8\xae\x8a");
	assert_true(screen_width(b) <= 7);
	/* a buffer too small for both ends: the start, whole characters */
	char t[6] = "xxxxx";
	screen_mid(t, 2, "abcdef", 10);
	assert_string_equal(t, "a");
	assert_int_equal(t[2], 'x');	/* nothing written past the buffer */
	screen_mid(t, 6, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10);
	assert_string_equal(t, "\xc3\xa9\xc3\xa9");
	/* wrapping 40 wide characters at 30 columns: 15 a row, 3 rows */
	char wide[200] = "";
	for (int i = 0; i < 40; i++)
		strcat(wide, "\xe8\xae\x8a");
	assert_int_equal(screen_wrap(NULL, 0, 0, 99, 30, wide), 3);
	assert_int_equal(screen_wrap(NULL, 0, 0, 99, 10, "aaa bbb ccc ddd"), 2);
	assert_int_equal(screen_wrap(NULL, 0, 0, 99, 1, "\xe8\xae\x8a\xe8\xae\x8a"), 2);	/* wider than a row: one a row */
	test_screen_close(&ts);
}

/* In a locale that is not UTF-8 (C) text is still read as UTF-8, a whole
 * character at a time, each one the locale cannot show one '?' column
 * (a prompt's Backspace took one byte of "\xc3\xa9" and left the other);
 * a middle cut's ellipsis is "...", counted as its 3 columns (U+2026 was
 * shown as "???" and the end of the name lost its last 2 columns). */
static void
test_screen_not_utf8(void **state)
{
	(void)state;
	setenv("LC_ALL", "C", 1);
	struct test_screen ts;
	test_screen_open(&ts);
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_int_equal(screen_utf8(), 0);
	assert_string_equal(screen_ellipsis(), "...");
	char b[64];
	assert_string_equal(screen_mid(b, sizeof b, "job:worker/device:GPU:3", 10), "job:...U:3");
	assert_string_equal(screen_mid(b, sizeof b, "cluster_with_a_rather_long_name_x", 24),
	    "cluster_wit...ong_name_x");
	assert_string_equal(screen_mid(b, sizeof b, "abcdef", 3), "abc");	/* no room for "..." and more */
	assert_string_equal(screen_mid(b, sizeof b, "ab\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9xyz", 8),
	    "ab\xc3\xa9...yz");
	/* one character, one '?' column */
	int cols = -1;
	assert_int_equal(screen_char("\xc3\xa9x", 3, &cols), 2);
	assert_int_equal(cols, 1);
	assert_int_equal(screen_char("\xe6\xbc\xa2x", 4, &cols), 3);
	assert_int_equal(screen_char("\xff" "a", 2, &cols), 1);	/* invalid: one '?' */
	assert_int_equal(cols, 1);
	assert_int_equal(screen_width("ab\xc3\xa9\xe6\xbc\xa2" "e\xcc\x81"), 6);
	assert_string_equal(screen_tail("\xc3\xa9\xc3\xa9xy", 3), "\xc3\xa9xy");
	assert_int_equal(screen_head("\xc3\xa9\xc3\xa9xy", 1), 2);
	assert_int_equal(screen_put(stdscr, 0, 0, 10, 0, "a\xc3\xa9" "b\xe2\x80\xa6"), 4);
	char *t = row_text(0);
	assert_string_equal(t, "a?b?");
	free(t);
	test_screen_close(&ts);
	assert_non_null(setlocale(LC_ALL, "C.UTF-8"));
}

/* Times a tick apart read differently however small the tick; without a
 * resolution the usual decimals. */
static void
test_fmt_us_res(void **state)
{
	(void)state;
	char a[32], b[32];
	static const double ticks[] = { 1e3, 1, 0.05, 0.001 };
	for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++) {
		double t0 = 512623.5, t1 = t0 + ticks[i];
		screen_fmt_us_res(a, sizeof a, t0, ticks[i]);
		screen_fmt_us_res(b, sizeof b, t1, ticks[i]);
		assert_string_not_equal(a, b);
		assert_true(strstr(a, " ms") != NULL);
	}
	assert_string_equal(screen_fmt_us(a, sizeof a, 512623.5), "512.62 ms");
	assert_string_equal(screen_fmt_us_res(a, sizeof a, 1.5e6, 1e5), "1.50 s");
	assert_string_equal(screen_fmt_us_res(a, sizeof a, 12.25, 0.01), "12.25 us");
}

/* Every device a cluster may have gets its own printable glyph (64
 * GPUs used to share 26 letters past the digits). */
static void
test_dev_glyphs(void **state)
{
	(void)state;
	char seen[128] = { 0 };
	for (int d = 0; d < PL_MAX_DEVICES; d++) {
		int g = screen_dev_glyph(d);
		assert_true(g > ' ' && g < 127 && g != '?');
		assert_int_equal(seen[g], 0);
		seen[g] = 1;
	}
	assert_int_equal(screen_dev_glyph(-1), '?');
}

/* Fields too wide for the line are left out whole, never cut; later
 * ones that fit still show. */
static void
test_put_fields(void **state)
{
	(void)state;
	struct test_screen ts;
	test_screen_open(&ts);
	int n = screen_put_fields(stdscr, 0, 0, 30, 0, ", ", "Preview: svg\t6.9 KiB\tlaid out in 4 ms\t3 s");
	screen_put_fields(stdscr, 1, 0, 6, 0, "  ", "a long first field\tb");
	char *s = dump_screen();
	assert_true(strncmp(s, "Preview: svg, 6.9 KiB, 3 s\n", 27) == 0);
	assert_int_equal(n, 26);
	assert_non_null(strstr(s, "\na long\n"));
	free(s);
	test_screen_close(&ts);
}

/* A character and the combining or zero-width characters after it go
 * into one cell together: after a wide character as after a narrow one,
 * and on the last column a put may fill, in the window's attributes;
 * past what a cell holds (CCHARW_MAX) they are left out, never carried
 * to the next cell. */
static void
test_screen_put_marks(void **state)
{
	(void)state;
	struct test_screen ts;
	test_screen_open(&ts);
	/* e + U+0301 on the last column of the put */
	assert_int_equal(screen_put(stdscr, 0, 0, 3, 0, "abe\xcc\x81x"), 3);
	char *t = row_text(0);
	assert_string_equal(t, "abe\xcc\x81");
	free(t);
	/* U+0301 and U+200B after a wide character */
	assert_int_equal(screen_put(stdscr, 1, 0, 10, 0, "A\xe4\xb8\x96\xcc\x81" "b\xe4\xb8\x96\xe2\x80\x8b"), 6);
	t = row_text(1);
	assert_string_equal(t, "A\xe4\xb8\x96\xcc\x81" "b\xe4\xb8\x96\xe2\x80\x8b");
	free(t);
	/* a wide one that just fits, its mark with it */
	assert_int_equal(screen_put(stdscr, 2, 0, 3, 1, "a\xe4\xb8\x96\xcc\x81\xe4\xb8\x96"), 3);
	t = row_text(2);
	assert_string_equal(t, "a\xe4\xb8\x96\xcc\x81");
	free(t);
	/* in the selection's attributes, the wide cell too */
	attrset(screen_attr(SCR_SELECT));
	screen_put(stdscr, 3, 0, 4, 0, "\xe4\xb8\x96\xcc\x81" "e\xcc\x81");
	attrset(A_NORMAL);
	cchar_t cells[4];	/* (read back without the wide one's second cell) */
	assert_int_not_equal(mvwin_wchnstr(stdscr, 3, 0, cells, 3), ERR);
	assert_true(cell_selected(&cells[0], screen_attr(SCR_SELECT)));
	assert_true(cell_selected(&cells[1], screen_attr(SCR_SELECT)));
	/* more marks than a cell holds: the rest left out */
	char many[64] = "e";
	for (int i = 0; i < CCHARW_MAX + 2; i++)
		strcat(many, "\xcc\x81");
	strcat(many, "x");
	assert_int_equal(screen_put(stdscr, 4, 0, 10, 0, many), 2);
	t = row_text(4);
	assert_string_equal(t + strlen(t) - 1, "x");
	assert_int_equal(strlen(t), 1 + 2 * (CCHARW_MAX - 1) + 1);
	free(t);
	test_screen_close(&ts);
}

/* The Export view's advice to draw fewer nodes names a smaller Detail
 * than the current one, and only the dot format from the smallest. */
static void
test_export_fewer(void **state)
{
	(void)state;
	assert_string_equal(view_export_fewer(0),
	    "pick a Detail of <=400 nodes or fewer, or the dot format");
	assert_string_equal(view_export_fewer(400), "pick a Detail of <=200 nodes, or the dot format");
	assert_string_equal(view_export_fewer(200), "pick a Detail of <=100 nodes, or the dot format");
	char want[96];
	snprintf(want, sizeof want, "pick a Detail of <=%d nodes, or the dot format",
	    PLV_DEFAULT_MAX_NODES);
	assert_string_equal(view_export_fewer(100), want);
	assert_string_equal(view_export_fewer(PLV_DEFAULT_MAX_NODES), "pick the dot format");
	assert_null(view_export_fewer(7));
}

#define SCRIPT_TEST(n) \
	static void test_##n(void **state) { (void)state; run_script(#n); }
#define SCRIPTS(X) \
	X(ops) X(ops_edit) X(search) X(timeline) X(devices) X(help) X(help_views) X(compare_cells) X(compare_cells_edge) \
	X(resize) X(small) X(brkga) X(placeto) X(placeto_options) X(compare) X(compare_follow) X(brkga_options) X(brkga_options_refused) X(export) \
	X(export_table) X(export_suffix) \
	X(demo) X(nocolor) X(colour8) X(reopen) X(quit) X(save) X(click) X(oom) \
	X(edits_kept) X(placement_renamed) X(timeline_link_jump) X(placeto_many_devices) X(timeline_labels) X(devices_click) X(devices_zoom) X(export_scroll) X(export_wide) X(quit_writing) X(prompt_long) X(save_blank) X(timeline_follow) X(ops_detail_lists) X(save_input) X(export_pending) \
	X(placeto_curve) \
	X(placeto_refused) \
	X(placeto_mode) \
	X(placeto_options_policy) \
	X(help_redraw) \
	X(ops_detail_dev_times) \
	X(placeto_header) \
	X(ops_detail_one) \
	X(save_name) \
	X(save_overwrite) \
	X(follow) X(undo_take) X(header_pct) X(message_long) X(message_clears) X(export_fails) \
	X(placeto_demo) X(timeline_zoom) X(export_big) X(brkga_narrow) X(placeto_stepping) X(placeto_oom) X(export_decline) X(devices_scroll) X(devices_grow) \
	X(searches_share) X(undo_overwritten) X(quit_small) X(interrupt) X(undo_redo) X(ops_scroll) X(export_snapshot) X(tiny) X(export_queue) X(export_saves) X(save_home) X(placeto_demo_policy) X(best_named) X(names_cut) X(names_tree) X(pace) X(restart_take) X(undo_save_path) X(held_files) X(export_replaces) X(quit_keys) X(take_same) X(follow_fits) X(follow_saved) X(dev_names) X(prompts) X(deep_scopes) X(export_race) X(flat_names) X(export_link) X(follow_retake) X(best_oom) X(pinned_group) X(hangup) X(demo_default) X(placeto_short) X(timeline_crowd) X(timeline_edges) X(timeline_pan_end) X(dev_tasks) X(search_again) X(devices_last_instant) \
	X(prompt_edit) X(prompt_utf8) X(prompt_full_edit) X(prompt_scroll) X(export_warning) \
	X(ops_edges) X(ops_edges_leave) X(ops_edges_none) X(ops_edges_empty) \
	X(prompt_marks) X(prompt_bytes) \
	X(dev_glyph_names) X(dev_tails) \
	X(devices_load) X(ops_detail_wrap) X(timeline_link_ends) \
	X(locale_c)
SCRIPTS(SCRIPT_TEST)

/* A hangup the main loop never answers (a loop stuck) still ends the
 * explorer, of that signal, within seconds: in a child, which waits
 * forever after the signal. */
static void
test_hangup_unanswered(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		screen_catch_hangup();
		raise(SIGHUP);
		for (int i = 0; i < 30; i++)	/* (30 s: then it failed) */
			sleep(1);
		_exit(0);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGHUP);
}

/* Run every script. */
int
main(void)
{
	setenv("TZ", "UTC", 1);
	setenv("LC_ALL", "C.UTF-8", 1);
	setenv("TERM", "xterm-256color", 1);
	/* the samples of this tree, as placelab run from the build tree finds
	 * them (the explorer's default graph) */
	setenv("PLACELAB_DATADIR", PL_SRCDIR, 1);
	setenv("ESCDELAY", "25", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_action_table),
		cmocka_unit_test(test_hangup_unanswered),
		cmocka_unit_test(test_screen_width),
		cmocka_unit_test(test_cut_columns),
		cmocka_unit_test(test_progress_clear),
		cmocka_unit_test(test_screen_mid_wrap),
		cmocka_unit_test(test_screen_not_utf8),
		cmocka_unit_test(test_fmt_us_res),
		cmocka_unit_test(test_dev_glyphs),
		cmocka_unit_test(test_put_fields),
		cmocka_unit_test(test_screen_put_marks),
		cmocka_unit_test(test_export_fewer),
#define SCRIPT_ENTRY(n) cmocka_unit_test(test_##n),
		SCRIPTS(SCRIPT_ENTRY)
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
