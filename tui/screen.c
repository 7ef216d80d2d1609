/*
 * screen — terminal start/restore, colour roles and drawing helpers.
 * Invariant: see screen.h; `started` is 1 exactly while curses owns the
 * terminal, and only screen_start()/screen_stop() change it.
 */
#include "config.h"

#include "screen.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "cluster.h"
#include "fileio.h"
#include "strbuf.h"
#include "viz/palette.h"
#include "xmalloc.h"

static volatile sig_atomic_t started;
static int hooks_installed;

/* fd 2 while curses owns a real terminal: what libraries write there
 * (fontconfig, pango, Graphviz's path planner) would land on the screen,
 * so it goes to a file of its own instead (mkstemp in TMPDIR), which
 * screen_stderr_news() reads for the status line and screen_stop() copies
 * to the real stderr and removes: nothing is lost, and a process that
 * dies without restoring leaves the file behind. */
static int err_saved = -1, err_fd = -1;
static off_t err_shown;
static char err_path[4096];
static enum scr_mode mode = SCR_MONO;
static int utf8;

/* Colour pairs: roles from 1, device text from DEV_FG, blocks from DEV_BG. */
#define PAIR_DEV_FG 32
#define PAIR_DEV_BG (PAIR_DEV_FG + PLV_PALETTE_SIZE)

static const struct {
	short fg, bg;
	attr_t mono;
} roles[SCR_ROLE_COUNT] = {
#define SCR_X(e, f, b, m) [SCR_##e] = { f, b, m },
	SCR_ROLES(SCR_X)
#undef SCR_X
};

/* Restore on a signal, then die of it (no temporary file of a write
 * under way left behind). */
static void
on_signal(int sig)
{
	screen_stop();
	pl_file_die_of(sig);
}

/* Have handler catch sig for the main loop.  No SA_RESTART: a wait for a
 * key returns early. */
static void
catch_for_loop(int sig, void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* ^C while interrupts are caught: counted for the main loop to answer
 * (screen_interrupted()); a second one before it has, restore and die as
 * on_signal does (a loop too busy to answer can still be left). */
static volatile sig_atomic_t interrupts;

static void
on_interrupt(int sig)
{
	if (interrupts++ > 0)
		on_signal(sig);
}

/* SIGHUP or SIGTERM while they are caught: kept for the main loop to
 * answer (screen_hungup()); more before it has are the same hangup, and
 * no answer within HANGUP_WAIT_S (a loop stuck, or busy that long) dies
 * of it. */
#define HANGUP_WAIT_S 10
static volatile sig_atomic_t hangup_sig;

static void
on_hangup(int sig)
{
	if (hangup_sig != 0)	/* a terminal closing often sends two: the */
		return;		/* first is answered, or the alarm ends it */
	hangup_sig = sig;
	alarm(HANGUP_WAIT_S);
}

/* The main loop did not answer a hangup in time: die of it at once, with
 * no call into curses or stdio, which the stuck loop (or another thread)
 * may hold: the temporary files removed, the terminal told to leave the
 * alternate screen and show the cursor. */
static void
on_hangup_late(int sig)
{
	(void)sig;
	int hs = hangup_sig != 0 ? hangup_sig : SIGTERM;
	static const char reset[] = "\033[?1049l\033[?25h\033[0m\r\n";
	if (started && write(STDOUT_FILENO, reset, sizeof reset - 1) < 0) {
		/* (nothing else to do) */
	}
	pl_file_die_of(hs);
}

/* Catch SIGHUP and SIGTERM for the main loop (see screen.h). */
void
screen_catch_hangup(void)
{
	hangup_sig = 0;
	catch_for_loop(SIGHUP, on_hangup);
	catch_for_loop(SIGTERM, on_hangup);
	catch_for_loop(SIGALRM, on_hangup_late);
}

/* The SIGHUP or SIGTERM that came since the last call, or 0. */
int
screen_hungup(void)
{
	int sig = hangup_sig;
	if (sig != 0) {	/* (a signal between the read and here is kept) */
		alarm(0);	/* answered */
		hangup_sig = 0;
	}
	return sig;
}

/* Drop the input waiting (see screen.h). */
int
screen_drain_input(void)
{
	int n = 0, c, resized = 0;
	nodelay(stdscr, TRUE);
	while ((c = wgetch(stdscr)) != ERR && n < 1 << 16) {
		resized |= c == KEY_RESIZE;	/* (kept: the screen must follow) */
		n++;
	}
	nodelay(stdscr, FALSE);
	if (resized)
		ungetch(KEY_RESIZE);
	return n;
}

/* Drop the key sequence an ESC starts, if one does (see screen.h). */
int
screen_drop_escape(void)
{
	nodelay(stdscr, TRUE);
	int c = wgetch(stdscr), n = 0, dropped = 1;
	if (c == '[') {	/* parameters and intermediates up to a final byte */
		while ((c = wgetch(stdscr)) != ERR && !(c >= 0x40 && c <= 0x7E) && ++n < 32)
			;
	} else if (c == 'O')
		wgetch(stdscr);
	else if (c >= 0xC0 && c < 0x100) {	/* Alt and a UTF-8 character */
		for (int k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1; k > 0; k--)
			wgetch(stdscr);
	} else if (c == KEY_BACKSPACE || c == 127 || c == 8) {
		/* Alt-Backspace (ESC DEL, whose DEL curses reads as the
		 * terminal's backspace key): readline's word rubout, never a
		 * cancel and then a deletion */
		dropped = 2;
	} else if (c == ERR || c == 27 || c > 0xFF) {
		/* a lone Esc: what follows (a second Esc, a key curses
		 * knows) is a key of its own */
		if (c != ERR)
			ungetch(c);
		dropped = 0;
	}
	nodelay(stdscr, FALSE);
	return dropped;
}

/* Catch SIGINT for the main loop instead of dying of it (see screen.h). */
void
screen_catch_interrupt(void)
{
	interrupts = 0;
	catch_for_loop(SIGINT, on_interrupt);
}

/* Whether ^C came since the last call (and forget it). */
int
screen_interrupted(void)
{
	if (interrupts == 0)
		return 0;
	interrupts = 0;
	return 1;
}

/* Restore at exit. */
static void
on_exit_hook(void)
{
	screen_stop();
}

/* Restore before an allocation failure aborts. */
static void
on_alloc_fail(void)
{
	screen_stop();
}

/* Whether a hex colour is dark (text on it should be white). */
static int
hex_dark(const char *hex)
{
	unsigned r = 0, g = 0, b = 0;
	if (hex == NULL || sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return 0;
	return 0.299 * r + 0.587 * g + 0.114 * b < 110;
}

/* Pick the colour mode and set up the pairs. */
void
screen_colours(void)
{
	const char *nc = getenv("NO_COLOR");
	mode = SCR_MONO;
	if ((nc == NULL || *nc == '\0') && has_colors()) {
		start_color();
		use_default_colors();
		mode = COLORS >= 256 ? SCR_COLOR256 : SCR_COLOR8;
	}
	if (mode == SCR_MONO)
		return;
	for (int r = 1; r < SCR_ROLE_COUNT; r++)
		init_pair((short)r, roles[r].fg, roles[r].bg);
	for (int d = 0; d < PLV_PALETTE_SIZE; d++) {
		const struct plv_colour *c = &plv_palette[d];
		short col = mode == SCR_COLOR256 ? (short)c->xterm256 : (short)c->curses8;
		short text = hex_dark(c->hex) || (mode == SCR_COLOR8 &&
		    (c->curses8 == COLOR_BLUE || c->curses8 == COLOR_RED ||
		    c->curses8 == COLOR_MAGENTA)) ? COLOR_WHITE : COLOR_BLACK;
		init_pair((short)(PAIR_DEV_FG + d), col, -1);
		init_pair((short)(PAIR_DEV_BG + d), text, col);
	}
}

/* The colour mode in use. */
enum scr_mode
screen_mode(void)
{
	return mode;
}

/* Let ^S and ^Q reach the program as keys (^S saves): turn XON/XOFF
 * flow control off on the terminal, keeping cbreak's signal keys (^C,
 * ^Z, ^\), and record the result as curses' program mode so it is
 * put back after a suspend or endwin.  Not a terminal: nothing to do. */
static void
no_flow_control(void)
{
	int fd = isatty(STDIN_FILENO) ? STDIN_FILENO : STDOUT_FILENO;
	struct termios t;
	if (tcgetattr(fd, &t) != 0)
		return;
	t.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
	if (tcsetattr(fd, TCSANOW, &t) == 0)
		def_prog_mode();
}

static void stderr_release(void);

/* Send fd 2 to a file of its own (nothing changes when that fails or
 * when stderr is not a terminal: then it cannot reach the screen). */
static void
stderr_capture(void)
{
	if (err_saved >= 0 || !isatty(STDERR_FILENO))
		return;
	const char *dir = getenv("TMPDIR");
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	int n = snprintf(err_path, sizeof err_path, "%s/placelab-stderr-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof err_path)
		return;
	int fd = mkstemp(err_path);
	if (fd < 0)
		return;
	fflush(stderr);
	int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (saved < 0) {
		close(fd);
		unlink(err_path);
		return;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	err_fd = fd;	/* set before fd 2 moves, so a signal restores it */
	err_shown = 0;
	err_saved = saved;
	if (dup2(fd, STDERR_FILENO) < 0)
		stderr_release();
}

/* fd 2 back, with what the file caught copied to it; the file removed.
 * Only async-signal-safe calls: a signal handler restores through here. */
static void
stderr_release(void)
{
	if (err_saved < 0)
		return;
	dup2(err_saved, STDERR_FILENO);
	close(err_saved);
	err_saved = -1;
	char buf[4096];
	ssize_t got;
	for (off_t off = 0; (got = pread(err_fd, buf, sizeof buf, off)) > 0; off += got)
		for (ssize_t put = 0, w; put < got; put += w)
			if ((w = write(STDERR_FILENO, buf + put, (size_t)(got - put))) <= 0) {
				if (w < 0 && errno == EINTR) {
					w = 0;
					continue;
				}
				goto done;
			}
done:
	close(err_fd);
	err_fd = -1;
	unlink(err_path);
}

/* Whether something was written to stderr since the last call; if so its
 * first non-blank line (cut to fit) in buf. */
int
screen_stderr_news(char *buf, size_t len)
{
	struct stat st;
	if (err_fd < 0 || len == 0 || fstat(err_fd, &st) != 0 || st.st_size <= err_shown)
		return 0;
	char chunk[512];
	ssize_t got = pread(err_fd, chunk, sizeof chunk - 1, err_shown);
	err_shown = st.st_size;
	if (got <= 0)
		return 0;
	chunk[got] = '\0';
	char *line = chunk;
	while (*line == '\n' || *line == '\r' || *line == ' ' || *line == '\t')
		line++;
	line[strcspn(line, "\r\n")] = '\0';
	if (*line == '\0')
		return 0;
	snprintf(buf, len, "%s", line);
	return 1;
}

/* Home, End and Delete as the terminals that send them otherwise than
 * the terminfo entry says (tmux, screen and the Linux console under
 * TERM=xterm send ESC [1~ and ESC [4~, rxvt ESC [7~ and ESC [8~): each
 * sequence the entry leaves unbound is taken as the key, never one it
 * binds to another. */
static void
known_keys(void)
{
	static const struct { const char *seq; int key; } keys[] = {
		{ "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME },
		{ "\033OH", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[8~", KEY_END },
		{ "\033[F", KEY_END }, { "\033OF", KEY_END }, { "\033[3~", KEY_DC },
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (key_defined(keys[i].seq) == 0)
			define_key(keys[i].seq, keys[i].key);
}

/* TERM's terminfo entry for the terminal on fd: 1 when it has string
 * capability cap, 0 when not, -1 when TERM is unset or empty, or when
 * terminfo cannot tell (*err: setupterm's, -1 for no database).  The
 * entry is freed again: not while curses owns the terminal. */
static int
term_has(int fd, const char *cap, int *err)
{
	const char *term = getenv("TERM");
	*err = 0;
	if (term == NULL || *term == '\0' || setupterm(term, fd, err) != OK)
		return -1;
	const char *s = tigetstr(cap);
	int has = s != NULL && s != (char *)-1;
	del_curterm(cur_term);
	return has;
}

/* Whether the terminal on fd (TERM's type) has string capability cap. */
int
screen_term_has(int fd, const char *cap)
{
	int err;
	return term_has(fd, cap, &err) > 0;
}

/* Why the terminal on fd (TERM's type) cannot show the explorer, or NULL
 * when it can (see screen.h). */
char *
screen_term_unusable(int fd)
{
	const char *term = getenv("TERM");
	int err, cup = term_has(fd, "cup", &err);
	if (term == NULL || *term == '\0')
		return pl_xstrdup("TERM is not set (set it to the terminal's type, e.g. xterm-256color)");
	if (cup < 0)
		return err == -1 ? pl_xstrdup("no terminfo database found (is ncurses' terminfo installed?)") :
		    pl_xasprintf("unknown terminal type '%s' (set TERM to the terminal's type, "
		    "e.g. xterm-256color)", term);
	if (cup == 0)
		return pl_xasprintf("terminal type '%s' cannot move the cursor, which the explorer needs "
		    "(set TERM to the terminal's type, e.g. xterm-256color)", term);
	return NULL;
}

/* Start curses and install the restore hooks. */
void
screen_start(SCREEN *sp)
{
	setlocale(LC_ALL, "");
	/* numbers read and written (JSON, DOT, option values, libscotch's
	 * strategy strings) keep '.' whatever the user's locale */
	setlocale(LC_NUMERIC, "C");
	const char *cs = nl_langinfo(CODESET);
	utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
	if (sp == NULL) {	/* (newterm, unlike initscr, says when it fails) */
		if (newterm(NULL, stdout, stdin) == NULL) {
			fprintf(stderr, "placelab: cannot start the terminal\n");
			exit(2);
		}
	} else
		set_term(sp);
	started = 1;
	if (sp == NULL)
		stderr_capture();
	if (!hooks_installed) {
		hooks_installed = 1;
		atexit(on_exit_hook);
		pl_alloc_set_fail_hook(on_alloc_fail);
		/* restore, then die of the signal as usual (core dumps included) */
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
		    SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
		for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
			signal(sigs[i], on_signal);
	}
	cbreak();
	if (sp == NULL)
		no_flow_control();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	known_keys();
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED |
	    BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	screen_colours();
}

/* Give the terminal back (once). */
void
screen_stop(void)
{
	if (started) {
		started = 0;
		endwin();
	}
	stderr_release();	/* (also when a signal came mid-start) */
}

/* Attribute of a role. */
attr_t
screen_attr(enum scr_role r)
{
	if (mode == SCR_MONO)
		return roles[r].mono;
	if (r == SCR_NORMAL)
		return A_NORMAL;
	attr_t extra = 0;
	if (r == SCR_CRITICAL || r == SCR_OOM || r == SCR_KEY || r == SCR_HEADER ||
	    r == SCR_TAB_ON || r == SCR_GOOD || r == SCR_BAD || r == SCR_ERROR)
		extra = A_BOLD;
	return COLOR_PAIR(r) | extra;
}

/* Device text colour. */
attr_t
screen_dev_fg(int d)
{
	if (mode == SCR_MONO || d < 0)
		return A_NORMAL;
	return COLOR_PAIR(PAIR_DEV_FG + d % PLV_PALETTE_SIZE) | A_BOLD;
}

/* Device block colour. */
attr_t
screen_dev_block(int d)
{
	if (d < 0)
		return A_DIM;
	if (mode == SCR_MONO)
		return A_REVERSE;
	return COLOR_PAIR(PAIR_DEV_BG + d % PLV_PALETTE_SIZE);
}

/* The device's one-character name in bars and columns: 0-9, a-z, A-Z,
 * @, &: distinct for every device a cluster may have. */
int
screen_dev_glyph(int d)
{
	if (d < 0)
		return '?';
	static const char glyphs[] = "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ@&";	/* one per device, PL_MAX_DEVICES */
	_Static_assert(sizeof glyphs - 1 == PL_MAX_DEVICES, "a glyph per device");
	return d < PL_MAX_DEVICES ? glyphs[d] : '?';
}

/* Minimum size check. */
int
screen_big_enough(void)
{
	return COLS >= SCR_MIN_COLS && LINES >= SCR_MIN_ROWS;
}

int
screen_utf8(void)
{
	return utf8;
}

/* The ellipsis a cut shows (see screen.h). */
const char *
screen_ellipsis(void)
{
	return utf8 ? "\u2026" : "...";
}

/* The code point of the UTF-8 character that starts p (left bytes) in
 * *cp and its bytes, or 0 when none does: a stray byte, a sequence cut
 * short (by left too), an overlong form, a surrogate, past U+10FFFF. */
static size_t
utf8_char(const char *p, size_t left, uint32_t *cp)
{
	char one[5] = { 0 };	/* (pl_utf8_decode reads up to a NUL) */
	memcpy(one, p, left < 4 ? left : 4);
	int n = pl_utf8_decode(one, cp);
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (*cp == PL_UTF8_BAD || (unsigned char)*p > 0xF4 || *cp < least[n] || *cp > 0x10FFFF ||
	    (*cp >= 0xD800 && *cp <= 0xDFFF))
		return 0;
	return (size_t)n;
}

/* The next character of UTF-8 text p (left bytes), whatever the locale's
 * charset (placelab's text is UTF-8): its wide character in *wc (an
 * invalid byte, or one the locale cannot show, as '?'), its columns (0
 * for a combining or zero-width one); -1 at the end. */
static int
next_char(const char **p, size_t *left, wchar_t *wc)
{
	if (*left == 0 || **p == '\0')
		return -1;
	uint32_t cp;
	size_t n = utf8_char(*p, *left, &cp);
	*wc = n > 0 ? (wchar_t)cp : L'?';
	int cw = wcwidth(*wc);
	if (cw < 0) {
		*wc = L'?';
		cw = 1;
	}
	*p += n > 0 ? n : 1;
	*left -= n > 0 ? n : 1;
	return cw;
}

/* Columns UTF-8 text takes. */
int
screen_width(const char *s)
{
	const char *p = s != NULL ? s : "";
	size_t left = strlen(p);
	wchar_t wc;
	int used = 0, cw;
	while ((cw = next_char(&p, &left, &wc)) >= 0)
		used += cw;
	return used;
}

/* The shortest end of UTF-8 text s that fits in width columns (s itself
 * when it fits): whole characters are dropped from its start. */
const char *
screen_tail(const char *s, int width)
{
	const char *p = s;
	size_t left = strlen(p);
	wchar_t wc;
	int used = screen_width(s), cw;
	while (used > width && (cw = next_char(&p, &left, &wc)) >= 0)
		used -= cw;
	return p;
}

/* The longest start of s within width columns (see screen.h). */
size_t
screen_head(const char *s, int width)
{
	const char *p = s, *fit = s;
	size_t left = strlen(p);
	wchar_t wc;
	int used = 0, cw;
	while ((cw = next_char(&p, &left, &wc)) >= 0 && used + cw <= width) {
		used += cw;
		fit = p;
	}
	return (size_t)(fit - s);
}

/* The first character of s and its columns (see screen.h). */
size_t
screen_char(const char *s, size_t left, int *cols)
{
	const char *p = s;
	wchar_t wc;
	int cw = next_char(&p, &left, &wc);
	*cols = cw > 0 ? cw : 0;
	return p > s ? (size_t)(p - s) : 1;
}

/* s cut in the middle to width columns (see screen.h). */
char *
screen_mid(char *buf, size_t len, const char *s, int width)
{
	if (len == 0)
		return buf;
	const char *more = screen_ellipsis();
	size_t ml = strlen(more);	/* 3 bytes either way */
	int mw = screen_width(more);
	if (screen_width(s) <= width || width < mw + 1 || len < ml + 1) {
		size_t n = screen_head(s, width);
		n = pl_utf8_cut(s, n, len - 1);
		memcpy(buf, s, n);
		buf[n] = '\0';
		return buf;
	}
	int room = width - mw;	/* less the ellipsis */
	size_t h = screen_head(s, room - room / 2);
	const char *t = screen_tail(s + h, room / 2);
	size_t tn = strlen(t);
	if (h + ml + tn + 1 > len) {	/* buf too small: the start only */
		h = pl_utf8_cut(s, h, len - ml - 1);	/* len > ml here */
		tn = 0;
	}
	memcpy(buf, s, h);
	memcpy(buf + h, more, ml);
	memcpy(buf + h + ml, t, tn);
	buf[h + ml + tn] = '\0';
	return buf;
}

/* Add one character and the zero-width ones after it (cl, n of them, n
 * < CCHARW_MAX + 1: combining marks, joiners) at the cursor of w, in one
 * cell: curses drops a zero-width character added on its own after a
 * wide one. */
static void
put_cluster(WINDOW *w, wchar_t *cl, int n)
{
	if (n == 1 && cl[0] < 128) {
		waddch(w, (chtype)cl[0]);
		return;
	}
	cl[n] = 0;
	cchar_t cc;
	if (setcchar(&cc, cl, A_NORMAL, 0, NULL) == OK)
		wadd_wch(w, &cc);
}

/* Draw UTF-8 text clipped to width columns: whole characters, each with
 * the zero-width characters that follow it (those past CCHARW_MAX - 1
 * left out); one with none before it (at the start of s) is added on its
 * own, as curses places it. */
int
screen_put(WINDOW *w, int y, int x, int width, int pad, const char *s)
{
	if (width <= 0)
		return 0;
	int used = 0;
	wmove(w, y, x);
	const char *p = s != NULL ? s : "";
	size_t left = strlen(p);
	for (;;) {
		wchar_t cl[CCHARW_MAX + 1];
		int cw = next_char(&p, &left, &cl[0]);
		if (cw < 0 || used + cw > width)
			break;
		if (cw == 0) {	/* no character before it */
			wchar_t ws[2] = { cl[0], 0 };
			waddnwstr(w, ws, 1);
			continue;
		}
		int n = 1;
		for (;;) {	/* the zero-width ones after it */
			const char *q = p;
			size_t ql = left;
			wchar_t wc;
			if (next_char(&q, &ql, &wc) != 0)
				break;
			if (n < CCHARW_MAX)
				cl[n++] = wc;
			p = q;
			left = ql;
		}
		put_cluster(w, cl, n);
		used += cw;
	}
	if (pad)
		for (; used < width; used++)
			waddch(w, ' ');
	return used;
}

/* A name, whole or cut at its start with an ellipsis (see screen.h). */
int
screen_put_name(WINDOW *w, int y, int x, int width, int pad, const char *s)
{
	const char *more = screen_ellipsis();
	int mw = screen_width(more);
	if (s == NULL || screen_width(s) <= width || width <= mw)
		return screen_put(w, y, x, width, pad, s);
	int used = screen_put(w, y, x, mw, 0, more);
	return used + screen_put(w, y, x + used, width - used, pad, screen_tail(s, width - used));
}

/* printf then screen_put. */
int
screen_printf(WINDOW *w, int y, int x, int width, int pad, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return screen_put(w, y, x, width, pad, buf);
}

/* Draw fields (separated by '\t' in text) at (y, x), joined by sep: each
 * field shows whole or not at all (the first is cut when it alone does
 * not fit), so a narrow line drops fields instead of ending mid-word.
 * Pads to width when pad is set; returns the columns written. */
int
screen_put_fields(WINDOW *w, int y, int x, int width, int pad, const char *sep,
    const char *text)
{
	int used = 0, sepw = screen_width(sep);
	char *copy = pl_xstrdup(text != NULL ? text : "");
	char *save = NULL;
	for (char *f = strtok_r(copy, "\t", &save); f != NULL; f = strtok_r(NULL, "\t", &save)) {
		int fw = screen_width(f), gap = used > 0 ? sepw : 0;
		if (used > 0 && used + gap + fw > width)
			continue;
		if (gap > 0)
			used += screen_put(w, y, x + used, width - used, 0, sep);
		used += screen_put(w, y, x + used, width - used, 0, f);
	}
	free(copy);
	if (pad && used < width)
		screen_fill(w, y, x + used, width - used, ' ');
	return used;
}

/* Word-wrap text into at most h rows of width columns: lines break at
 * the last space that fits (columns counted per character, so a wide
 * character counts two), or between whole characters in a word longer
 * than a row.  Returns the rows used (w NULL: only counts them). */
int
screen_wrap(WINDOW *w, int y, int x, int h, int width, const char *text)
{
	int row = 0;
	const char *p = text;
	while (*p != '\0' && row < h) {
		while (*p == ' ')
			p++;
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char *line = pl_xstrndup(p, len);
		size_t cut = len;
		if (screen_width(line) > width) {
			size_t fit = screen_head(line, width);
			cut = fit;
			while (cut > 0 && line[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = fit;
			if (cut == 0)	/* not even one character fits: take it */
				for (cut = 1; cut < len && ((unsigned char)line[cut] & 0xC0) == 0x80; cut++)
					;
		}
		line[cut] = '\0';
		if (w != NULL)
			screen_put(w, y + row, x, width, 1, line);
		free(line);
		row++;
		p += cut;
		if (nl != NULL && p == nl)
			p++;
	}
	return row;
}

/* A horizontal rule. */
void
screen_hline(WINDOW *w, int y, int x, int width)
{
	for (int i = 0; i < width; i++) {
		if (utf8)
			mvwaddnwstr(w, y, x + i, L"─", 1);
		else
			mvwaddch(w, y, x + i, '-');
	}
}

/* A vertical rule. */
void
screen_vline(WINDOW *w, int y, int x, int height)
{
	for (int i = 0; i < height; i++) {
		if (utf8)
			mvwaddnwstr(w, y + i, x, L"│", 1);
		else
			mvwaddch(w, y + i, x, '|');
	}
}

/* Fill a run of cells. */
void
screen_fill(WINDOW *w, int y, int x, int width, chtype ch)
{
	if (width > 0)
		mvwhline(w, y, x, ch, width);
}

/* Partial-block glyphs, eighths 1..7 (left aligned). */
static const wchar_t hblocks[8] = { L' ', L'▏', L'▎', L'▍', L'▌', L'▋', L'▊', L'▉' };
/* Vertical eighths 0..8. */
static const wchar_t vblocks[9] = { L' ', L'▁', L'▂', L'▃', L'▄', L'▅', L'▆', L'▇', L'█' };

/* A horizontal bar. */
void
screen_bar(WINDOW *w, int y, int x, int width, double frac, attr_t on, attr_t off)
{
	if (width <= 0)
		return;
	if (!(frac > 0))
		frac = 0;
	if (frac > 1)
		frac = 1;
	int eighths = (int)(frac * width * 8 + 0.5);
	int full = eighths / 8, part = eighths % 8;
	wmove(w, y, x);
	for (int i = 0; i < width; i++) {
		if (i < full) {
			if (utf8 && mode != SCR_MONO) {
				wattr_on(w, on & ~A_REVERSE, NULL);
				waddnwstr(w, L"█", 1);
				wattr_off(w, on & ~A_REVERSE, NULL);
			} else {
				wattr_on(w, on | A_REVERSE, NULL);
				waddch(w, mode == SCR_MONO ? '#' : ' ');
				wattr_off(w, on | A_REVERSE, NULL);
			}
		} else if (i == full && part > 0 && utf8) {
			wattr_on(w, on & ~A_REVERSE, NULL);
			waddnwstr(w, &hblocks[part], 1);
			wattr_off(w, on & ~A_REVERSE, NULL);
		} else {
			wattr_on(w, off, NULL);
			waddch(w, utf8 ? ' ' : '.');
			wattr_off(w, off, NULL);
		}
	}
}

/* One sparkline cell. */
void
screen_vcell(WINDOW *w, int y, int x, int level, attr_t a)
{
	if (level < 0)
		level = 0;
	if (level > 8)
		level = 8;
	wattr_on(w, a, NULL);
	if (utf8)
		mvwaddnwstr(w, y, x, &vblocks[level], 1);
	else
		mvwaddch(w, y, x, level == 0 ? ' ' : level < 4 ? '.' : level < 8 ? ':' : '#');
	wattr_off(w, a, NULL);
}

/* Time with a unit: "12.3 us", "4.56 ms", "1.23 s", with at least the
 * decimals that tell apart times res apart (res <= 0: the usual ones). */
const char *
screen_fmt_us_res(char *buf, int len, double us, double res)
{
	static const struct { double scale; const char *unit; int decimals; } units[] = {
		{ 1e6, "s", 2 }, { 1e3, "ms", 2 }, { 1, "us", 1 }, { 1e-3, "ns", 1 },
	};
	if (!(us == us)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (us == 0 || us >= 1e300) {
		snprintf(buf, len, us == 0 ? "0" : "inf");
		return buf;
	}
	int u = us >= 1e6 ? 0 : us >= 1e3 ? 1 : us >= 1 ? 2 : 3;
	int decimals = units[u].decimals;
	if (res > 0) {
		int need = (int)ceil(-log10(res / units[u].scale) - 1e-9);
		if (need > 9)
			need = 9;
		if (need > decimals)
			decimals = need;
	}
	snprintf(buf, len, "%.*f %s", decimals, us / units[u].scale, units[u].unit);
	return buf;
}

/* The change from `from` to `to` in percent, "+12.3%" or "-4.5%", or
 * "0.0%" when it rounds to nothing (never "-0.0%"). */
const char *
screen_fmt_change(char *buf, int len, double to, double from)
{
	double pct = from > 0 ? (to - from) / from * 100 : 0;
	if (!(fabs(pct) >= 0.05))
		snprintf(buf, len, "0.0%%");
	else
		snprintf(buf, len, "%+.1f%%", pct);
	return buf;
}

/* Time with a unit and the usual decimals. */
const char *
screen_fmt_us(char *buf, int len, double us)
{
	return screen_fmt_us_res(buf, len, us, 0);
}

/* Bytes in at most 5 characters for a chart's axis: 3 significant
 * digits and a binary unit letter ("336M", "1.50G", "12.0G", "640K"). */
const char *
screen_fmt_bytes_short(char *buf, int len, int64_t b)
{
	static const char units[] = "BKMGTP";
	double v = (double)(b > 0 ? b : 0);
	int u = 0;
	while (v >= 999.5 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0fB", v);
	else
		snprintf(buf, len, v < 9.995 ? "%.2f%c" : v < 99.95 ? "%.1f%c" : "%.0f%c", v, units[u]);
	return buf;
}

/* Bytes with a binary unit. */
const char *
screen_fmt_bytes(char *buf, int len, int64_t b)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = 0;
	while ((v >= 1024 || v <= -1024) && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lld B", (long long)b);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}
