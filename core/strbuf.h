/*
 * strbuf — a growing string for writers of text formats (JSON, DOT, SVG),
 * and the small text helpers they share (UTF-8 cuts, sizes with units).
 *
 * Invariant: s is NULL until the first append, then always NUL-terminated
 * with len characters before the NUL; cap > len.
 * Ownership: the caller frees s (or takes it with pl_sb_take).
 */
#ifndef PL_STRBUF_H
#define PL_STRBUF_H

#include <stddef.h>
#include <stdint.h>

struct pl_strbuf {
	char *s;
	size_t len, cap;
};

/* Append n bytes of t. */
void pl_sb_put(struct pl_strbuf *b, const char *t, size_t n);
/* Append printf-style text. */
void pl_sb_printf(struct pl_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* v in the fewest significant digits that read back as exactly v (%g
 * style: 999999.9 stays 999999.9 where %g says 1e+06); buf of at least
 * 32 bytes. */
char *pl_fmt_exact(char *buf, size_t n, double v);
/* U+FFFD, what stands for a character an output cannot hold. */
#define PL_UTF8_REPLACEMENT "\xEF\xBF\xBD"
/* The length of the character at s when XML cannot hold it (U+FFFE,
 * U+FFFF), else 0. */
size_t pl_utf8_nonxml(const char *s);
/* Append s escaped for XML/HTML text and attributes (& < > " escaped,
 * control characters as spaces, U+FFFE and U+FFFF as U+FFFD). */
void pl_sb_xml(struct pl_strbuf *b, const char *s);
/* Append s as a JSON string literal, quotes included. */
void pl_sb_json_str(struct pl_strbuf *b, const char *s);
/* Append s as one CSV field: control characters as spaces (a row stays
 * one line), in double quotes, its quotes doubled, when it holds a comma
 * or a quote; a leading ' when it starts with = + - or @ and is not a
 * number as pl_parse_number() reads one, or one after a leading '+'
 * ("+3e2": a spreadsheet would run anything else as a formula). */
void pl_sb_csv(struct pl_strbuf *b, const char *s);
/* A decimal number as JSON writes it (an optional '-', 0 or digits
 * without a leading zero, an optional point followed by digits, an
 * optional exponent; no '+', hex, inf, nan or spaces, no "01", ".5" or
 * "1."), finite (a value too small for a normal double reads as its
 * nearest one, as in files).  0, or -1 when s is not one.  Every number
 * placelab takes on its command line or in a method option is read by
 * it, a whole number by pl_parse_whole. */
int pl_parse_number(const char *s, double *out);
/* A number as pl_parse_number reads it whose value is a whole number
 * (5, 5e3, 2.0e1, -0; not 1.5 or 1e-400), read exactly, in *out,
 * clamped to [-LLONG_MAX, LLONG_MAX].  0, or -1 when s is not one. */
int pl_parse_whole(const char *s, long long *out);
/* The code point of the UTF-8 character at s in *cp and its bytes (1 to
 * 4); a byte that does not start a whole character is one byte with *cp
 * PL_UTF8_BAD. */
#define PL_UTF8_BAD UINT32_MAX
int pl_utf8_decode(const char *s, uint32_t *cp);
/* The columns UTF-8 text s takes on a terminal: two for East Asian wide
 * and fullwidth characters and emoji, none for combining marks,
 * zero-width and control characters, one for the others. */
size_t pl_utf8_width(const char *s);
/* The bytes of the longest start of UTF-8 text s that takes at most cols
 * columns as pl_utf8_width() counts them (whole characters). */
size_t pl_utf8_head(const char *s, size_t cols);
/* The bytes of the longest start of UTF-8 text s[0 .. len) that is at
 * most max bytes and ends on a character boundary. */
size_t pl_utf8_cut(const char *s, size_t len, size_t max);
/* How a message quotes a name: whole up to PL_NAME_SHOWN bytes, else its
 * start cut between characters and "…", as the three arguments of
 * "%.*s%s" (each use reads s's length twice). */
#define PL_NAME_SHOWN 120
#define PL_SHOWN(s) (int)pl_utf8_cut((s), strlen(s), PL_NAME_SHOWN), (s), \
	(strlen(s) > PL_NAME_SHOWN ? "…" : "")
/* value and unit into buf with prec decimals (2, 1 or 0), fewer where the
 * value as printed reaches 10 or 100 (9.997 at 2 is "10.0", not
 * "10.00"); returns the magnitude printed. */
double pl_fmt_fixed(char *buf, size_t n, double value, int prec, const char *unit);
/* value in units of base (unit[0..5]) into buf: three significant
 * digits, whole units below base; a value that would print as base of
 * one unit (from carry on) is given in the next.  Returns buf. */
char *pl_fmt_scaled(char *buf, size_t n, double value, double base, double carry,
    const char *const unit[6]);
/* Memory in binary units ("12.0 GiB", "4.80 MiB", "1023 B"). */
char *pl_fmt_mem(char *buf, size_t n, double bytes);
/* The string (never NULL; "" when nothing was appended); b is reset. */
char *pl_sb_take(struct pl_strbuf *b);

#endif
