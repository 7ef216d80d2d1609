/*
 * screen — the terminal: start and restore curses, colours as semantic
 * roles, the device palette, and a few drawing helpers every view uses.
 *
 * Colours are never named by the views: a view asks for a role
 * (SCR_TITLE, SCR_CRITICAL, ...) or a device colour, and this module maps
 * it to a colour pair on a colour terminal, or to plain attributes (bold,
 * reverse, underline) on a monochrome one or when NO_COLOR is set.  Device
 * colours come from viz/palette.h so the explorer and the exports agree:
 * xterm-256 indexes when the terminal has 256 colours, the nearest of the
 * eight basic colours otherwise.
 *
 * Invariant: after screen_start() returns, the terminal is restored by
 * screen_stop(), by exit() (atexit), by SIGINT/SIGTERM/SIGHUP and by an
 * allocation failure (pl_alloc_set_fail_hook) — whichever comes first; a
 * second restore is a no-op.  Meanwhile fd 2 (when it is a terminal)
 * writes to a file that the restore copies back to it.
 */
#ifndef TUI_SCREEN_H
#define TUI_SCREEN_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

/* Semantic roles: X(enum, fg, bg, mono attribute). */
#define SCR_ROLES(X) \
	X(NORMAL,   -1, -1, A_NORMAL) \
	X(TITLE,    COLOR_BLACK, COLOR_CYAN, A_REVERSE) \
	X(TAB,      COLOR_BLACK, COLOR_CYAN, A_REVERSE) \
	X(TAB_ON,   COLOR_WHITE, COLOR_BLUE, A_BOLD) \
	X(STATUS,   COLOR_BLACK, COLOR_WHITE, A_REVERSE) \
	X(SELECT,   COLOR_BLACK, COLOR_YELLOW, A_REVERSE) \
	X(HEADER,   COLOR_CYAN, -1, A_BOLD | A_UNDERLINE) \
	X(DIM,      COLOR_BLUE, -1, A_DIM) \
	X(CRITICAL, COLOR_RED, -1, A_BOLD) \
	X(OOM,      COLOR_WHITE, COLOR_RED, A_REVERSE | A_BOLD | A_BLINK) \
	X(GOOD,     COLOR_GREEN, -1, A_BOLD) \
	X(BAD,      COLOR_RED, -1, A_BOLD) \
	X(KEY,      COLOR_YELLOW, -1, A_BOLD) \
	X(BAR,      COLOR_GREEN, -1, A_REVERSE) \
	X(BAR_ALT,  COLOR_MAGENTA, -1, A_BOLD) \
	X(DEMO,     COLOR_BLACK, COLOR_GREEN, A_REVERSE) \
	X(ERROR,    COLOR_WHITE, COLOR_RED, A_REVERSE | A_BOLD)

enum scr_role {
#define SCR_X(e, f, b, m) SCR_##e,
	SCR_ROLES(SCR_X)
#undef SCR_X
	SCR_ROLE_COUNT
};

/* The minimum size the explorer draws in. */
#define SCR_MIN_COLS 80
#define SCR_MIN_ROWS 24

/* Colour modes. */
enum scr_mode { SCR_MONO, SCR_COLOR8, SCR_COLOR256 };

/*
 * Start curses on the controlling terminal (initscr) or, for tests, on a
 * given SCREEN already created with newterm() (pass it; NULL = initscr).
 * Sets cbreak (with XON/XOFF flow control off on a real terminal, so ^S
 * and ^Q are keys), noecho, keypad, mouse, colours (NO_COLOR honoured), and
 * installs the restore hooks.
 */
void screen_start(SCREEN *sp);
/* Restore the terminal (idempotent, async-signal tolerant). */
void screen_stop(void);
/* While curses owns a real terminal, stderr goes to a file, copied back
 * to stderr when the screen stops; this says whether something was
 * written since the last call, with its first line in buf. */
int screen_stderr_news(char *buf, size_t len);
/* After screen_start(): ^C no longer restores and dies but is counted,
 * and screen_interrupted() says (once) that it came; a second ^C before
 * that restores and dies as before. */
void screen_catch_interrupt(void);
int screen_interrupted(void);
/* After screen_start(): SIGHUP (the terminal closed) and SIGTERM no
 * longer restore and die at once but are kept for the main loop, which
 * screen_hungup() tells (their number, once; 0: none), so that what is
 * not saved can be; more before it has are the same one, and no answer
 * within 10 s (a loop stuck) dies of it. */
void screen_catch_hangup(void);
int screen_hungup(void);
/* Read and drop the input already waiting (the rest of a paste); how
 * many keys it held. */
int screen_drain_input(void);
/* After an ESC read: when a key sequence curses does not know follows it
 * at once (ESC [ ... final byte, ESC O x: Shift-Left in some terminals;
 * ESC x: Alt-x), read and drop it and return 1, or 2 when it was
 * Alt-Backspace; else (a lone Esc) 0. */
int screen_drop_escape(void);
/* Re-read the colour mode (e.g. after NO_COLOR changes in a test). */
void screen_colours(void);
enum scr_mode screen_mode(void);

/* The attribute for a role. */
attr_t screen_attr(enum scr_role r);
/* Foreground attribute of device d's colour (text in the device colour). */
attr_t screen_dev_fg(int d);
/* A block in device d's colour (background), for bars and Gantt blocks. */
attr_t screen_dev_block(int d);
/* The glyph that marks device d in monochrome (0-9 then a-z). */
int screen_dev_glyph(int d);

/* Why the terminal on fd cannot show the explorer (a new string: TERM not
 * set, a type terminfo does not know, one without cursor addressing such
 * as dumb), or NULL when it can.  Call before screen_start, which exits
 * when curses cannot start. */
char *screen_term_unusable(int fd);
/* Whether the terminal on fd, of TERM's type, has terminfo string
 * capability cap ("el": it can clear to the end of a line); not while
 * curses owns the terminal. */
int screen_term_has(int fd, const char *cap);

/* Whether the terminal is at least the minimum size. */
int screen_big_enough(void);

/* ---- drawing helpers ------------------------------------------------ */

/* Print at (y, x) at most w columns (UTF-8 text), padding with spaces to w
 * when pad is set; a combining or zero-width character is drawn in the
 * cell of the one before it (also on the last column, and after a wide
 * one).  Returns the columns written. */
int screen_put(WINDOW *w, int y, int x, int width, int pad, const char *s);
/* Fields separated by '\t' in text, joined by sep, each shown whole or
 * left out (the first is cut only when it alone does not fit). */
int screen_put_fields(WINDOW *w, int y, int x, int width, int pad, const char *sep,
    const char *text);
/* Text is UTF-8 whatever the locale's charset: a byte that does not start
 * a whole character, and a character the locale cannot show, is drawn
 * (and counted) as one '?'. */
/* Columns UTF-8 text takes on the screen. */
int screen_width(const char *s);
/* The shortest end of s that fits in width columns. */
const char *screen_tail(const char *s, int width);
/* The bytes of the longest start of UTF-8 text s that fits in width
 * columns (whole characters). */
size_t screen_head(const char *s, int width);
/* The bytes of the first character of UTF-8 text s (left bytes, at
 * least 1), as drawn: an invalid byte is one '?' character; its columns in
 * *cols (0 for a combining or zero-width one). */
size_t screen_char(const char *s, size_t left, int *cols);
/* s in at most width columns into buf (len bytes): whole, or its start
 * and end with screen_ellipsis() between (whole characters; the start
 * takes the odd column), so that names differing only at either end
 * stay apart.  In fewer columns than the ellipsis and one more (2 in a
 * UTF-8 locale, 4 otherwise), or when buf cannot hold both ends, as much
 * of the start as fits.  Returns buf. */
char *screen_mid(char *buf, size_t len, const char *s, int width);
/* A name (an op's or a scope's path) in at most width columns: whole, or
 * its start replaced by an ellipsis so that the end (the leaf) shows and
 * the cut is seen.  Returns the columns written. */
int screen_put_name(WINDOW *w, int y, int x, int width, int pad, const char *s);
/* printf version of screen_put. */
int screen_printf(WINDOW *w, int y, int x, int width, int pad,
    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Horizontal and vertical rules (box-drawing characters on UTF-8). */
void screen_hline(WINDOW *w, int y, int x, int width);
void screen_vline(WINDOW *w, int y, int x, int height);
/* Fill w columns at (y, x) with a character. */
void screen_fill(WINDOW *w, int y, int x, int width, chtype ch);
/* A horizontal bar of `width` cells filled to frac (0..1), eighth-block
 * resolution on a UTF-8 terminal. */
void screen_bar(WINDOW *w, int y, int x, int width, double frac, attr_t on,
    attr_t off);
/* One cell of a vertical sparkline: level 0..8 (eighths). */
void screen_vcell(WINDOW *w, int y, int x, int level, attr_t a);
/* Word-wrap text into the rectangle (y, x, h, w); returns rows used (w
 * NULL: only counts them). */
int screen_wrap(WINDOW *w, int y, int x, int h, int width, const char *text);
/* Whether the locale can show UTF-8 block characters. */
int screen_utf8(void);
/* The ellipsis that marks a cut: "\u2026" (one column) when the locale is
 * UTF-8, else "..." (three); 3 bytes either way. */
const char *screen_ellipsis(void);

/* ---- formatting ------------------------------------------------------ */

/* "12.3 us", "4.56 ms", "1.23 s" into buf. */
const char *screen_fmt_us(char *buf, int len, double us);
/* The change from `from` to `to` in percent: "+12.3%", "-4.5%", or
 * "0.0%" when it rounds to nothing. */
const char *screen_fmt_change(char *buf, int len, double to, double from);
/* The same with at least the decimals that tell apart times res apart
 * (a zoomed axis: "512.62005 ms", "512.62010 ms"). */
const char *screen_fmt_us_res(char *buf, int len, double us, double res);
/* "512 B", "3.4 KiB", "1.2 GiB". */
const char *screen_fmt_bytes(char *buf, int len, int64_t b);
/* At most 5 characters, for an axis: "336M", "1.50G", "12.0G", "640K". */
const char *screen_fmt_bytes_short(char *buf, int len, int64_t b);

#endif
