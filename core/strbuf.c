/*
 * strbuf — growing strings with printf, XML and JSON escaping.
 * Invariant: see strbuf.h.
 */
#include "strbuf.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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
	double num;
	/* a formula to a spreadsheet gets a ' ; a number ("+3e2" too) stays one */
	if (*s && strchr("=+-@", *s) != NULL && pl_parse_number(s + (*s == '+' && s[1] != '-'), &num) != 0)
		pl_sb_put(b, "'", 1);
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

/* The end of the digits at s. */
static const char *
digits_end(const char *s)
{
	return s + strspn(s, "0123456789");
}

/* The end of the number at s as JSON writes it ('-', 0 or digits without
 * a leading zero, an optional point with digits, an optional exponent),
 * or NULL when s does not start with one. */
static const char *
json_number_end(const char *s)
{
	const char *p = s + (*s == '-');
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p = digits_end(p);
	else
		return NULL;
	if (*p == '.') {
		if (digits_end(p + 1) == p + 1)
			return NULL;
		p = digits_end(p + 1);
	}
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '+' || p[1] == '-');
		if (digits_end(p) == p)
			return NULL;
		p = digits_end(p);
	}
	return p;
}

/* A decimal number (strbuf.h). */
int
pl_parse_number(const char *s, double *out)
{
	const char *end = json_number_end(s);
	if (end == NULL || *end != '\0')
		return -1;
	double v = strtod(s, NULL);
	if (!isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* A number with a whole value (strbuf.h): its digits and exponent read
 * exactly, never through a double (2^53 + 1 stays itself). */
int
pl_parse_whole(const char *s, long long *out)
{
	double v;
	if (pl_parse_number(s, &v) != 0)
		return -1;
	const char *p = s + (*s == '-'), *end = p + strcspn(p, "eE");
	long long exp = 0;	/* the exponent, saturated far beyond any long long's */
	if (*end != '\0') {
		const char *e = end + 1;
		int neg = *e == '-';
		for (e += *e == '+' || *e == '-'; *e; e++)
			if (exp < 1000000)
				exp = exp * 10 + (*e - '0');
		exp = neg ? -exp : exp;
	}
	/* value = the mantissa's digits from its first nonzero one to its
	 * last (k of them) times 10^exp, exp less one per digit after the
	 * point and more one per zero after the last nonzero digit */
	const char *first = NULL, *last = NULL;
	long long k = 0, after_last = 0;
	int in_frac = 0;
	for (const char *q = p; q < end; q++) {
		if (*q == '.') {
			in_frac = 1;
			continue;
		}
		exp -= in_frac;
		if (*q != '0') {
			first = first != NULL ? first : q;
			last = q;
			k += after_last + 1;
			after_last = 0;
		} else if (first != NULL)
			after_last++;
	}
	if (first == NULL) {
		*out = 0;
		return 0;
	}
	exp += after_last;
	if (exp < 0)
		return -1;	/* its last nonzero digit stands after the point */
	long long x = 0;
	int big = k + exp > 19;
	for (const char *q = first; q <= last && !big; q++) {
		if (*q == '.')
			continue;
		if (x > (LLONG_MAX - (*q - '0')) / 10)
			big = 1;
		else
			x = x * 10 + (*q - '0');
	}
	for (long long i = 0; i < exp && !big; i++) {
		if (x > LLONG_MAX / 10)
			big = 1;
		else
			x *= 10;
	}
	if (big)
		x = LLONG_MAX;
	*out = *s == '-' ? -x : x;
	return 0;
}

/* Code points that take no column: combining marks of the common
 * scripts, zero-width and direction controls, variation selectors. */
static const uint32_t zero_width[][2] = {
	{ 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD }, { 0x05BF, 0x05BF },
	{ 0x05C1, 0x05C2 }, { 0x05C4, 0x05C5 }, { 0x05C7, 0x05C7 }, { 0x0610, 0x061A },
	{ 0x064B, 0x065F }, { 0x0670, 0x0670 }, { 0x06D6, 0x06DC }, { 0x06DF, 0x06E4 },
	{ 0x06E7, 0x06E8 }, { 0x06EA, 0x06ED }, { 0x0900, 0x0902 }, { 0x093A, 0x093A },
	{ 0x093C, 0x093C }, { 0x0941, 0x0948 }, { 0x094D, 0x094D }, { 0x0951, 0x0957 },
	{ 0x0962, 0x0963 }, { 0x0E31, 0x0E31 }, { 0x0E34, 0x0E3A }, { 0x0E47, 0x0E4E },
	{ 0x1160, 0x11FF }, { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF }, { 0x200B, 0x200F },
	{ 0x202A, 0x202E }, { 0x2060, 0x2064 }, { 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F },
	{ 0xFE20, 0xFE2F }, { 0xFEFF, 0xFEFF }, { 0xE0100, 0xE01EF },
};

/* Code points a terminal shows two columns wide: East Asian wide and
 * fullwidth forms, and the emoji blocks. */
static const uint32_t double_width[][2] = {
	{ 0x1100, 0x115F }, { 0x231A, 0x231B }, { 0x2329, 0x232A }, { 0x23E9, 0x23EC },
	{ 0x23F0, 0x23F0 }, { 0x23F3, 0x23F3 }, { 0x25FD, 0x25FE }, { 0x2614, 0x2615 },
	{ 0x2648, 0x2653 }, { 0x267F, 0x267F }, { 0x2693, 0x2693 }, { 0x26A1, 0x26A1 },
	{ 0x26AA, 0x26AB }, { 0x26BD, 0x26BE }, { 0x26C4, 0x26C5 }, { 0x26CE, 0x26CE },
	{ 0x26D4, 0x26D4 }, { 0x26EA, 0x26EA }, { 0x26F2, 0x26F3 }, { 0x26F5, 0x26F5 },
	{ 0x26FA, 0x26FA }, { 0x26FD, 0x26FD }, { 0x2705, 0x2705 }, { 0x270A, 0x270B },
	{ 0x2728, 0x2728 }, { 0x274C, 0x274C }, { 0x274E, 0x274E }, { 0x2753, 0x2755 },
	{ 0x2757, 0x2757 }, { 0x2795, 0x2797 }, { 0x27B0, 0x27B0 }, { 0x27BF, 0x27BF },
	{ 0x2B1B, 0x2B1C }, { 0x2B50, 0x2B50 }, { 0x2B55, 0x2B55 }, { 0x2E80, 0x303E },
	{ 0x3041, 0x33FF }, { 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF },
	{ 0xA960, 0xA97F }, { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE10, 0xFE19 },
	{ 0xFE30, 0xFE6F }, { 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x16FE0, 0x16FE4 },
	{ 0x17000, 0x18AFF }, { 0x1B000, 0x1B2FF }, { 0x1F004, 0x1F004 }, { 0x1F0CF, 0x1F0CF },
	{ 0x1F18E, 0x1F18E }, { 0x1F191, 0x1F19A }, { 0x1F200, 0x1F251 }, { 0x1F300, 0x1F64F },
	{ 0x1F680, 0x1F6FF }, { 0x1F7E0, 0x1F7EB }, { 0x1F900, 0x1F9FF }, { 0x1FA70, 0x1FAFF },
	{ 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD },
};

/* Whether c is in one of the n sorted ranges r. */
static int
in_ranges(uint32_t c, const uint32_t (*r)[2], size_t n)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c < r[mid][0])
			hi = mid;
		else if (c > r[mid][1])
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* The character at s (see strbuf.h). */
int
pl_utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	int len = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC0 ? 2 : 0;
	uint32_t c = len == 1 ? u[0] : u[0] & (0x7Fu >> len);
	int k = 1;
	for (; k < len && (u[k] & 0xC0) == 0x80; k++)	/* (a NUL stops it) */
		c = c << 6 | (u[k] & 0x3Fu);
	if (len == 0 || k < len) {
		*cp = PL_UTF8_BAD;
		return 1;
	}
	*cp = c;
	return len;
}

/* Columns of code point c (PL_UTF8_BAD: a byte a terminal shows as one
 * U+FFFD). */
static int
cp_columns(uint32_t c)
{
	if (c == PL_UTF8_BAD)
		return 1;
	if (c < 0x20 || (c >= 0x7F && c < 0xA0) ||
	    in_ranges(c, zero_width, sizeof zero_width / sizeof *zero_width))
		return 0;
	return in_ranges(c, double_width, sizeof double_width / sizeof *double_width) ? 2 : 1;
}

/* Columns of UTF-8 text on a terminal (see strbuf.h). */
size_t
pl_utf8_width(const char *s)
{
	size_t n = 0;
	uint32_t c;
	for (int len; *s; s += len) {
		len = pl_utf8_decode(s, &c);
		n += (size_t)cp_columns(c);
	}
	return n;
}

/* The longest start of s in at most cols columns (see strbuf.h). */
size_t
pl_utf8_head(const char *s, size_t cols)
{
	size_t at = 0, used = 0;
	uint32_t c;
	for (int len; s[at] != '\0'; at += (size_t)len) {
		len = pl_utf8_decode(s + at, &c);
		if (used + (size_t)cp_columns(c) > cols)
			break;
		used += (size_t)cp_columns(c);
	}
	return at;
}

/* value and unit with prec decimals (see strbuf.h). */
double
pl_fmt_fixed(char *buf, size_t n, double value, int prec, const char *unit)
{
	for (;;) {
		snprintf(buf, n, "%.*f %s", prec, value, unit);
		double shown = fabs(strtod(buf, NULL));
		if (prec == 2 && shown >= 10)
			prec = 1;
		else if (prec == 1 && shown >= 100)
			prec = 0;
		else
			return shown;
	}
}

/* A value with a unit of its size (see strbuf.h).  The digits are chosen
 * for the value as it prints: 9.997 is "10.0", 99.97 "100" and 999.7 of
 * a unit one of the next, not "10.00", "100.0" or "1000". */
char *
pl_fmt_scaled(char *buf, size_t n, double value, double base, double carry,
    const char *const unit[6])
{
	if (!isfinite(value)) {	/* in the smallest unit */
		snprintf(buf, n, "%.0f %s", value, unit[0]);
		return buf;
	}
	int u = 0;
	while (fabs(value) >= (u == 0 ? base : carry) && u < 5) {
		value /= base;
		u++;
	}
	for (;;) {
		int prec = u == 0 ? 0 : fabs(value) < 10 ? 2 : fabs(value) < 100 ? 1 : 0;
		double shown = pl_fmt_fixed(buf, n, value, prec, unit[u]);
		if (u == 5 || shown < base)
			return buf;
		value /= base;
		u++;
	}
}

/* Memory in binary units (1023.5 KiB and up, which would print as 1024,
 * in MiB). */
char *
pl_fmt_mem(char *buf, size_t n, double bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	return pl_fmt_scaled(buf, n, bytes, 1024, 1023.5, unit);
}
