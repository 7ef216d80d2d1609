/*
 * strbuf — growing strings with printf, XML and JSON escaping.
 * Invariant: see strbuf.h.
 */
#include "strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Make room for n more characters and the NUL. */
static void
reserve(struct pl_strbuf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->s = pl_xreallocarray(b->s, cap, 1);
	b->cap = cap;
}

/* Append raw bytes. */
void
pl_sb_put(struct pl_strbuf *b, const char *t, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, t, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* Append formatted text. */
void
pl_sb_printf(struct pl_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* The length of the character at s when XML cannot hold it as text (the
 * noncharacters U+FFFE and U+FFFF, well-formed UTF-8 all the same), else
 * 0. */
size_t
pl_utf8_nonxml(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	return u[0] == 0xEF && u[1] == 0xBF && (u[2] == 0xBE || u[2] == 0xBF) ? 3 : 0;
}

/* v in the fewest significant digits that read back as v (see strbuf.h). */
char *
pl_fmt_exact(char *buf, size_t n, double v)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v || v != v)
			break;
	}
	return buf;
}

/* Append XML-escaped text. */
void
pl_sb_xml(struct pl_strbuf *b, const char *s)
{
	for (; *s; s++) {
		size_t nx = pl_utf8_nonxml(s);
		if (nx > 0) {
			pl_sb_put(b, PL_UTF8_REPLACEMENT, 3);
			s += nx - 1;
			continue;
		}
		switch (*s) {
		case '&': pl_sb_put(b, "&amp;", 5); break;
		case '<': pl_sb_put(b, "&lt;", 4); break;
		case '>': pl_sb_put(b, "&gt;", 4); break;
		case '"': pl_sb_put(b, "&quot;", 6); break;
		default:
			pl_sb_put(b, (unsigned char)*s < 0x20 ? " " : s, 1);
			break;
		}
	}
}

/* Append a CSV field (see strbuf.h). */
void
pl_sb_csv(struct pl_strbuf *b, const char *s)
{
	int quote = strpbrk(s, ",\"") != NULL;
	if (quote)
		pl_sb_put(b, "\"", 1);
	if (*s && strchr("=+-@", *s) != NULL) {
		/* a spreadsheet would run it as a formula; a number stays
		 * a number */
		char *end;
		(void)strtod(s, &end);
		if (end == s || *end != '\0')
			pl_sb_put(b, "'", 1);
	}
	for (; *s; s++) {
		if (*s == '"')
			pl_sb_put(b, "\"", 1);
		pl_sb_put(b, (unsigned char)*s < 0x20 || *s == 0x7f ? " " : s, 1);
	}
	if (quote)
		pl_sb_put(b, "\"", 1);
}

/* Append a JSON string literal. */
void
pl_sb_json_str(struct pl_strbuf *b, const char *s)
{
	pl_sb_put(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\') {
			char e[2] = { '\\', (char)*c };
			pl_sb_put(b, e, 2);
		} else if (*c < 0x20) {
			pl_sb_printf(b, "\\u%04x", *c);
		} else {
			pl_sb_put(b, (const char *)c, 1);
		}
	}
	pl_sb_put(b, "\"", 1);
}

/* Take the string out of the buffer. */
char *
pl_sb_take(struct pl_strbuf *b)
{
	char *s = b->s != NULL ? b->s : pl_xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* A start of UTF-8 text cut on a character boundary (see strbuf.h). */
size_t
pl_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* Code points of UTF-8 text (see strbuf.h). */
size_t
pl_utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* A value with a unit of its size (see strbuf.h). */
char *
pl_fmt_scaled(char *buf, size_t n, double value, double base, double carry,
    const char *const unit[6])
{
	int u = 0;
	while (fabs(value) >= (u == 0 ? base : carry) && u < 5) {
		value /= base;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f %s", value, unit[0]);
	else
		snprintf(buf, n, fabs(value) < 10 ? "%.2f %s" : fabs(value) < 100 ?
		    "%.1f %s" : "%.0f %s", value, unit[u]);
	return buf;
}

/* Memory in binary units (1023.5 KiB and up, which would print as 1024,
 * in MiB). */
char *
pl_fmt_mem(char *buf, size_t n, double bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	return pl_fmt_scaled(buf, n, bytes, 1024, 1023.5, unit);
}
