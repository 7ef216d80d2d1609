/*
 * io — JSON loading and saving with cJSON (formats in docs/FORMAT.md).
 *
 * Invariant: loaders check every field's type and range before building,
 * accept only the documented fields, each once, and nothing after the
 * top-level object, and report the line and column of the offending value
 * or key.  cJSON keeps no positions: a small scanner walks the text (and,
 * on errors only, walks it alongside cJSON's tree to find a value).
 */
#include "io.h"

#include <cJSON.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "strbuf.h"
#include "strmap.h"
#include "xmalloc.h"

/* ---- positions ---------------------------------------------------------- */

/* Skip white space. */
static size_t
skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* Skip one JSON value starting at i: past its end, or up to a closer of
 * the wrong kind (where the text is not JSON), or to n. */
static size_t
skip_value(const char *s, size_t i, size_t n)
{
	if (i >= n)
		return n;
	if (s[i] == '"') {
		for (i++; i < n && s[i] != '"'; i++)
			if (s[i] == '\\')
				i++;
		return i + 1;
	}
	if (s[i] == '{' || s[i] == '[') {
		/* the closers expected, one bit a level (1: '}'), as deep as
		 * a file may nest and more; a closer of the other kind ends
		 * the value before it, so that the error is found there */
		uint64_t want[CJSON_NESTING_LIMIT / 64 + 2] = { 0 };
		int depth = 0;
		for (; i < n; i++) {
			char ch = s[i];
			if (ch == '"') {
				i = skip_value(s, i, n) - 1;
			} else if (ch == '{' || ch == '[') {
				if (depth < (int)sizeof want * 8) {
					uint64_t bit = (uint64_t)1 << (depth % 64);
					want[depth / 64] = ch == '{' ? want[depth / 64] | bit : want[depth / 64] & ~bit;
				}
				depth++;
			} else if (ch == '}' || ch == ']') {
				depth--;
				if (depth < (int)sizeof want * 8 &&
				    (int)((want[depth / 64] >> (depth % 64)) & 1) != (ch == '}'))
					return i;
				if (depth == 0)
					return i + 1;
			}
		}
		return n;
	}
	while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
	    s[i] != '\n' && s[i] != '\t' && s[i] != '\r')
		i++;
	return i;
}

/* How many objects and arrays are open at the end of s[0, n); whether a
 * string is, in *in_str. */
static long
depth_at(const char *s, size_t n, int *in_str)
{
	long depth = 0;
	*in_str = 0;
	for (size_t i = 0; i < n; i++) {
		if (*in_str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				*in_str = 0;
		} else if (s[i] == '"') {
			*in_str = 1;
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			depth--;
		}
	}
	return depth;
}

/* Whether the text ends inside an object, array or string (truncated). */
static int
unclosed(const char *s, size_t n)
{
	int in_str;
	long depth = depth_at(s, n, &in_str);
	return in_str || depth > 0;
}

/* How many bytes of c an error quotes: up to 12, within its line, whole
 * UTF-8 characters. */
static int
excerpt_len(const char *c)
{
	return (int)pl_utf8_cut(c, strcspn(c, "\r\n"), 12);
}

/* What JSON expects next while reading a value (see syntax_msg). */
enum json_want { W_VALUE, W_KEY, W_COLON, W_NEXT };

/* A JSON word at s that is no value: NaN, Infinity and the like. */
static int
nan_word(const char *s)
{
	static const char *const words[] = { "NaN", "nan", "Infinity", "inf", "-Infinity" };
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		size_t n = strlen(words[i]);
		if (strncmp(s, words[i], n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_')
			return 1;
	}
	return 0;
}

/* Read s[0, off) as JSON up to the first token that does not fit where
 * it stands (cJSON's error is at it or a byte or so into it): what is
 * expected there (*want), in an object or not (*in_obj), inside a string
 * or not (*in_str); returns where that token starts. */
static size_t
json_state(const char *s, size_t off, enum json_want *want, int *in_obj, int *in_str)
{
	char stack[CJSON_NESTING_LIMIT + 2];
	int depth = 0;
	enum json_want w = W_VALUE;
	char prev = 0;		/* the last structural character */
	size_t i = 0;
	*in_str = 0;
	for (; i < off; i++) {
		char c = s[i];
		if ((unsigned char)c <= 0x20)
			continue;
		int obj = depth > 0 && depth <= (int)sizeof stack && stack[depth - 1] == '{';
		/* does c fit here? */
		int fits = w == W_VALUE ? c != '}' && c != ':' && c != ',' && (c != ']' || prev == '[') :
		    w == W_KEY ? c == '"' || (c == '}' && prev == '{') :
		    w == W_COLON ? c == ':' :
		    c == ',' || c == (obj ? '}' : ']');
		if (!fits)
			break;
		if (c == '"') {
			size_t j = i + 1;
			while (j < off && s[j] != '"')
				j += s[j] == '\\' ? 2 : 1;
			if (j >= off) {
				*in_str = 1;
				break;
			}
			w = w == W_KEY ? W_COLON : W_NEXT;
			i = j;
		} else if (c == '{' || c == '[') {
			if (depth < (int)sizeof stack)
				stack[depth] = c;
			depth++;
			w = c == '{' ? W_KEY : W_VALUE;
		} else if (c == '}' || c == ']') {
			depth -= depth > 0;
			w = W_NEXT;
		} else if (c == ':') {
			w = W_VALUE;
		} else if (c == ',') {
			w = obj ? W_KEY : W_VALUE;
		} else {	/* a number or a word */
			size_t j = i;
			while (s[j + 1] != '\0' && strchr(",:{}[]\" \t\r\n", s[j + 1]) == NULL)
				j++;
			if (j >= off)	/* the token that failed */
				break;
			i = j;
			w = W_NEXT;
		}
		prev = c;
	}
	*want = w;
	*in_obj = depth > 0 && depth <= (int)sizeof stack && stack[depth - 1] == '{';
	return i < off ? i : off;
}

/* Value of the n hex digits at s, or -1 when one is not a hex digit. */
static long
hex_value(const char *s, int n)
{
	long v = 0;
	for (int i = 0; i < n; i++) {
		int c = (unsigned char)s[i], d = c >= '0' && c <= '9' ? c - '0' :
		    (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* What JSON expects at the first escape of the string at q (its opening
 * quote) that cJSON refuses; *at is set to that escape. */
static const char *
string_want(const char *q, const char **at)
{
	for (const char *p = q + 1; *p != '\0' && *p != '"'; p++) {
		if (*p != '\\')
			continue;
		*at = p;
		if (p[1] == '\0' || strchr("\"\\/bfnrtu", p[1]) == NULL)
			return "expected one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX";
		if (p[1] != 'u') {
			p++;
			continue;
		}
		long u = hex_value(p + 2, 4);	/* four digits: check_u_escapes() */
		if (u >= 0xDC00 && u <= 0xDFFF)
			return "a low UTF-16 surrogate with no high one before it; expected "
			    "\\uD800-\\uDBFF first, or the character itself in UTF-8";
		if (u >= 0xD800 && u <= 0xDBFF) {
			long lo = p[6] == '\\' && p[7] == 'u' ? hex_value(p + 8, 4) : -1;
			if (lo < 0xDC00 || lo > 0xDFFF)
				return "an unpaired UTF-16 surrogate; expected a low one, "
				    "\\uDC00-\\uDFFF, right after it, or the character itself in UTF-8";
			p += 6;
		}
		p += 5;
	}
	return "expected one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX";
}

/* The message for a cJSON failure at s[*off] of a value that starts at
 * s[0]: nesting beyond cJSON's limit (a bracket that would open one
 * level more), or a syntax error there and what JSON expects there (a
 * value, a key, ':', ',' and the closing bracket, a valid escape, a
 * paired surrogate); *off moves back to the start of the token that
 * failed (cJSON reports a key's error a byte into it), or in a string to
 * the escape it refused. */
static char *
syntax_msg(const char *s, size_t *off)
{
	int in_str, in_obj;
	if (depth_at(s, *off, &in_str) >= CJSON_NESTING_LIMIT && (s[*off] == '[' || s[*off] == '{'))
		return pl_xasprintf("JSON nested more than %d levels deep (expected at most %d "
		    "objects and arrays inside each other)", CJSON_NESTING_LIMIT, CJSON_NESTING_LIMIT);
	enum json_want w;
	size_t tok = json_state(s, *off, &w, &in_obj, &in_str);
	if (!in_str)
		*off = tok;
	const char *c = s + *off;
	const char *want;
	if (in_str) {
		want = string_want(s + tok, &c);
		*off = (size_t)(c - s);
	}
	else if (w == W_KEY)
		want = *c == '}' ? "expected a \"key\" after ','; JSON allows no ',' before '}'" :
		    "expected a \"key\" in double quotes";
	else if (w == W_COLON)
		want = "expected ':' after the key";
	else if (w == W_NEXT)
		want = in_obj ? "expected ',' or '}'" : "expected ',' or ']'";
	else if (nan_word(c))
		want = "JSON has no NaN or Infinity; expected a finite number";
	else if (*c == '\'')
		want = "expected a \"string\" in double quotes";
	else if (*c == ']')
		want = "expected a value after ','; JSON allows no ',' before ']'";
	else
		want = "expected a value: a number, a \"string\", true, false, null, "
		    "an {object} or an [array]";
	return pl_xasprintf("JSON syntax error near '%.*s' (%s)", excerpt_len(c), c, want);
}

struct pos {
	int line, col;
};

/* Parse context: the text, where the cJSON value being read came from,
 * and the first error. */
struct ctx {
	const char *name;
	const char *text;
	size_t len;		/* up to the first NUL byte */
	size_t size;		/* bytes given */
	const cJSON *root;	/* the value being read ... */
	size_t base;		/* ... whose text starts at text[base] */
	struct pos at;		/* position of text[base] */
	char *err;
	const char *what;	/* the kind of document read: "a cluster" */
};

/* Skip what cJSON skips between tokens: every byte up to ' '. */
static size_t
skip_lax(const char *s, size_t i, size_t n)
{
	while (i < n && (unsigned char)s[i] <= ' ')
		i++;
	return i;
}

/*
 * One step of locate(): the value of node starts at s[*i] (white space
 * before it allowed); key is the offset of its key, if a member.  Returns
 * 1 once target is met (*found set), 0 with *i after the value, -1 when
 * the text does not match the tree.
 */
static int
walk(const char *s, size_t n, size_t *i, const cJSON *node, size_t key,
    const cJSON *target, int want_key, size_t *found)
{
	*i = skip_lax(s, *i, n);
	if (node == target) {
		*found = want_key && key != (size_t)-1 ? key : *i;
		return 1;
	}
	int obj = cJSON_IsObject(node);
	if (!obj && !cJSON_IsArray(node)) {
		*i = skip_value(s, *i, n);
		return 0;
	}
	if (*i >= n || s[*i] != (obj ? '{' : '['))
		return -1;
	(*i)++;
	for (const cJSON *c = node->child; c != NULL; c = c->next) {
		size_t k = (size_t)-1;
		*i = skip_lax(s, *i, n);
		if (obj) {
			if (*i >= n || s[*i] != '"')
				return -1;
			k = *i;
			*i = skip_lax(s, skip_value(s, *i, n), n);
			if (*i >= n || s[*i] != ':')
				return -1;
			(*i)++;
		}
		int r = walk(s, n, i, c, k, target, want_key, found);
		if (r != 0)
			return r;
		*i = skip_lax(s, *i, n);
		if (*i < n && s[*i] == ',')
			(*i)++;
	}
	*i = skip_lax(s, *i, n) + 1;
	return 0;
}

/* Where the JSON text starts: after a UTF-8 byte-order mark, if any. */
static size_t
bom_len(const char *s, size_t n)
{
	return n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/*
 * Offset of item (of its key with want_key) in the text of x->root.
 * cJSON keeps no positions but keeps members in text order, so the tree
 * and the text are walked in step; only errors need this, so its cost
 * (a pass over the value's text) never slows a good file down.
 */
static size_t
locate(const struct ctx *x, const cJSON *item, int want_key)
{
	size_t i = x->base, found = x->base;
	if (x->base == 0)
		i = bom_len(x->text, x->len);	/* cJSON skips a byte-order mark */
	if (x->root != NULL && item != NULL)
		walk(x->text, x->len, &i, x->root, (size_t)-1, item, want_key, &found);
	return found;
}

/* Set the error once, at byte off of the text. */
static void
vfail_pos(struct ctx *x, size_t off, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void
vfail_pos(struct ctx *x, size_t off, const char *fmt, va_list ap)
{
	if (x->err != NULL)
		return;
	char *msg = pl_xvasprintf(fmt, ap);	/* whole, however long */
	int line, col;
	pl_text_position(x->text, off, &line, &col);
	x->err = pl_xasprintf("%s:%d:%d: %s", x->name, line, col, msg);
	free(msg);
}

/* Set the error once, at byte off of the text. */
static void
fail_pos(struct ctx *x, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
fail_pos(struct ctx *x, size_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail_pos(x, off, fmt, ap);
	va_end(ap);
}

/* Set the error once, at item (at its key with want_key; at the start of
 * the value being read when item is NULL). */
static void
fail_item(struct ctx *x, const cJSON *item, int want_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
fail_item(struct ctx *x, const cJSON *item, int want_key, const char *fmt, ...)
{
	if (x->err != NULL)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfail_pos(x, locate(x, item, want_key), fmt, ap);
	va_end(ap);
}

/* "a, b, c": the names keys[0..n) for an "expected" list. */
static const char *
key_list(char buf[512], const char *const *keys, int n)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < n && used < 512; k++)
		used += (size_t)snprintf(buf + used, 512 - used, "%s%s", k ? ", " : "", keys[k]);
	return buf;
}

/*
 * Sort the members of object o into slot[k] by the names keys[k] (n of
 * them).  Returns the first member whose name is not among keys[] or
 * comes a second time, for fail_member(); NULL when all is well.
 */
static const cJSON *
members(const cJSON *o, const char *const *keys, int n, const cJSON **slot)
{
	for (int k = 0; k < n; k++)
		slot[k] = NULL;
	const cJSON *m;
	cJSON_ArrayForEach(m, o) {
		int k = 0;
		while (k < n && strcmp(m->string, keys[k]) != 0)
			k++;
		if (k == n || slot[k] != NULL)
			return m;
		slot[k] = m;
	}
	return NULL;
}

/* The error for member m refused by members(); what ("op 'a': ") starts
 * the message. */
static void
fail_member(struct ctx *x, const cJSON *m, const char *what,
    const char *const *keys, int n)
{
	char list[512];
	int k = 0;
	while (k < n && strcmp(m->string, keys[k]) != 0)
		k++;
	if (k < n)
		fail_item(x, m, 1, "%sfield '%s' given a second time (expected it once)", what, m->string);
	else
		fail_item(x, m, 1, "%sunknown field '%s' (expected %s)", what, m->string, key_list(list, keys, n));
}

/* What the text lacks where it stops early: a NUL byte cuts JSON text. */
static const char *
eof_msg(const struct ctx *x)
{
	return x->len < x->size ? "a NUL byte in the text (expected UTF-8 JSON text)" :
	    "unexpected end of file (truncated JSON?)";
}

/* Copy up to 12 printable bytes of s[off..] for a message. */
static const char *
excerpt(char buf[16], const char *s, size_t off, size_t n)
{
	size_t k = 0;
	while (k < 12 && off + k < n && (unsigned char)s[off + k] >= 32)
		k++;
	memcpy(buf, s + off, k);
	buf[k] = '\0';
	return buf;
}

/* Refuse anything but white space after the top-level value ending at
 * off (a second object, stray brackets, a NUL byte). */
static int
check_end(struct ctx *x, size_t off)
{
	size_t i = skip_ws(x->text, off, x->size);
	if (i >= x->size)
		return 0;
	int line, col;
	pl_text_position(x->text, i, &line, &col);
	char buf[16];
	if (x->text[i] == '\0')
		x->err = pl_xasprintf("%s:%d:%d: a NUL byte after the JSON object (expected the end of the file)",
		    x->name, line, col);
	else
		x->err = pl_xasprintf("%s:%d:%d: '%s' after the JSON object (expected the end of the file)",
		    x->name, line, col, excerpt(buf, x->text, i, x->size));
	return -1;
}

/* Whether the text is a JSON object: '{' first, after a byte-order mark
 * (which cJSON skips too) and white space. */
int
pl_text_is_json_object(const char *text, size_t len)
{
	size_t i = skip_ws(text, bom_len(text, len), len);
	return i < len && text[i] == '{';
}

/* Refuse a \u escape (its backslash not itself escaped) anywhere in the
 * text that cJSON would read wrong: \u0000, which would cut the string
 * there ("a\u0000b" read as "a"), and one without four hex digits, which
 * it reads as a NUL too.  0, or -1 with the error set at it. */
static int
check_u_escapes(struct ctx *x)
{
	const char *s = x->text;
	for (const char *p = s; (p = memmem(p, x->len - (size_t)(p - s), "\\u", 2)) != NULL; p++) {
		size_t slashes = 0;
		while ((size_t)(p - s) > slashes && p[-(ptrdiff_t)slashes - 1] == '\\')
			slashes++;
		if (slashes % 2 != 0)
			continue;
		long u = (size_t)(p - s) + 6 <= x->len ? hex_value(p + 2, 4) : -1;
		if (u < 0) {
			fail_pos(x, (size_t)(p - s), "JSON syntax error near '%.*s' (expected \\u and four hex digits)",
			    excerpt_len(p), p);
			return -1;
		}
		if (u == 0) {
			fail_pos(x, (size_t)(p - s), "\\u0000 in a string (expected text without NUL characters)");
			return -1;
		}
	}
	return 0;
}

/* What is wrong with the number s[0..n) by JSON's grammar
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, or NULL. */
static const char *
number_error(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i == n || s[i] < '0' || s[i] > '9')
		return "no digit at its start";
	if (s[i] == '0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
		return "a leading zero";
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i < n && s[i] == '.') {
		if (++i == n || s[i] < '0' || s[i] > '9')
			return "no digit after the point";
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || s[i] < '0' || s[i] > '9')
			return "no digit in the exponent";
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n ? NULL : "characters after its end";
}

/* Refuse numbers that cJSON reads but JSON does not allow ("01", "1.",
 * "-.5", "1.e3"), and control characters it takes where JSON does not
 * (raw in a string, or as white space other than tab, newline and
 * carriage return): another reader of the same file would refuse it.  A
 * number is a run of [-+.0-9eE] outside strings that starts a value.
 * 0, or -1 with the error set at it. */
static int
check_tokens(struct ctx *x)
{
	const char *s = x->text;
	size_t n = x->len;
	char prev = '[';	/* the last structural character */
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			for (i++; i < n && s[i] != '"'; i++) {
				if ((unsigned char)s[i] < 0x20) {
					fail_pos(x, i, "a control character (byte 0x%02X) in a string "
					    "(expected it escaped: \\t, \\n or \\u%04X)",
					    (unsigned char)s[i], (unsigned char)s[i]);
					return -1;
				}
				if (s[i] == '\\')
					i++;
			}
			prev = '"';
			continue;
		}
		if ((unsigned char)c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			fail_pos(x, i, "a control character (byte 0x%02X) between values "
			    "(expected white space: spaces, tabs, newlines)", (unsigned char)c);
			return -1;
		}
		if ((unsigned char)c <= 0x20)	/* white space */
			continue;
		if ((c == '-' || (c >= '0' && c <= '9')) &&
		    (prev == '[' || prev == ',' || prev == ':')) {
			size_t j = i;
			while (j < n && strchr("+-.0123456789eE", s[j]) != NULL && s[j] != '\0')
				j++;
			const char *why = number_error(s + i, j - i);
			if (why != NULL) {
				fail_pos(x, i, "number '%.*s' is not valid JSON (%s; expected e.g. 0.5, 12 or -3e-4)",
				    (int)(j - i > 24 ? 24 : j - i), s + i, why);
				return -1;
			}
			i = j - 1;
		}
		prev = c;
	}
	return 0;
}

/* What every loader refuses in the text before reading it: bytes that
 * are not UTF-8, a \u0000 escape, then numbers and control characters
 * JSON does not allow.  0, or -1 with the error set. */
static int
check_text(struct ctx *x)
{
	if ((x->err = pl_utf8_error(x->name, x->text, x->len)) != NULL)
		return -1;
	if (check_u_escapes(x) != 0)
		return -1;
	return check_tokens(x);
}

/* Parse the text with cJSON, reporting syntax errors with a position. */
static cJSON *
parse_text(struct ctx *x)
{
	const char *end = NULL;
	x->size = x->len;
	x->len = strnlen(x->text, x->len);	/* JSON text never holds a NUL */
	if (x->size == x->len && skip_ws(x->text, bom_len(x->text, x->len), x->len) >= x->len) {
		/* (nothing, or only white space) */
		x->err = pl_xasprintf("%s: empty file (expected a JSON object)", x->name);
		return NULL;
	}
	if ((x->err = pl_text_foreign(x->text, x->size, x->name,
	    x->what != NULL ? x->what : "placelab JSON text (expected a JSON object)")) != NULL)
		return NULL;
	if (check_text(x) != 0)
		return NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(x->text, x->len, &end, 0);
	if (root == NULL) {
		const char *at = cJSON_GetErrorPtr();
		size_t off = at != NULL && at >= x->text && at <= x->text + x->len ? (size_t)(at - x->text) : x->len;
		int line, col;
		pl_text_position(x->text, off, &line, &col);
		/* cut short when every token up to the end fits where it
		 * stands and some bracket or string is left open; else what
		 * stands where cJSON stopped is wrong (or nested too deep).
		 * Read as JSON from after a byte-order mark. */
		size_t b = bom_len(x->text, x->len);
		enum json_want w;
		int in_obj, in_str;
		size_t fit = json_state(x->text + b, x->len - b, &w, &in_obj, &in_str);
		if (skip_ws(x->text, off, x->len) >= x->len || in_str ||
		    (fit >= x->len - b && unclosed(x->text + b, x->len - b)))
			x->err = pl_xasprintf("%s:%d:%d: %s", x->name, line, col, eof_msg(x));
		else {
			size_t rel = off > b ? off - b : 0;
			char *msg = syntax_msg(x->text + b, &rel);
			off = b + rel;
			pl_text_position(x->text, off, &line, &col);
			x->err = pl_xasprintf("%s:%d:%d: %s", x->name, line, col, msg);
			free(msg);
		}
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		fail_pos(x, skip_ws(x->text, bom_len(x->text, x->len), x->len),
		    "expected a JSON object at the top level");
		cJSON_Delete(root);
		return NULL;
	}
	if (check_end(x, (size_t)(end - x->text)) != 0) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/* Check the format tag f (the "format" member, or NULL when missing; its
 * value at byte at of the text) against "placelab-<kind>/1". */
static int
check_format(struct ctx *x, const cJSON *f, size_t at, const char *want)
{
	if (!cJSON_IsString(f)) {
		fail_pos(x, at, f == NULL ? "missing \"format\" field (expected \"%s\")" :
		    "field 'format' (expected the string \"%s\")", want);
		return -1;
	}
	if (strcmp(f->valuestring, want) != 0) {
		const char *slash = strrchr(want, '/');
		size_t stem = (size_t)(slash - want);
		if (strncmp(f->valuestring, want, stem) == 0 && f->valuestring[stem] == '/')
			fail_pos(x, at, "format version \"%s\" is not supported (expected \"%s\")",
			    f->valuestring, want);
		else
			fail_pos(x, at, "format \"%s\" (expected \"%s\")", f->valuestring, want);
		return -1;
	}
	return 0;
}

/* Check the format member of a whole document root. */
static int
check_root_format(struct ctx *x, const cJSON *root, const char *want)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
	return check_format(x, f, locate(x, f, 0), want);
}

/* Optional number (it: the member or NULL); 0 ok (absent keeps *out),
 * -1 not a finite number. */
static int
num_of(const cJSON *it, double *out)
{
	if (it == NULL)
		return 0;
	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
		return -1;
	*out = it->valuedouble;
	return 0;
}

/* Optional byte count: a whole number in [0, 2^50]. */
static int
bytes_of(const cJSON *it, int64_t *out)
{
	double v = (double)*out;
	if (num_of(it, &v) != 0 || v < 0 || v > (double)PL_MAX_BYTES || v != floor(v))
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* Optional string. */
static int
str_of(const cJSON *it, const char **out)
{
	if (it == NULL)
		return 0;
	if (!cJSON_IsString(it))
		return -1;
	*out = it->valuestring;
	return 0;
}

/* ---- graphs ------------------------------------------------------------- */

/* The base name of path without its extension. */
char *
pl_name_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base != NULL && base[1] != '\0' ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot != NULL && dot > base ? (size_t)(dot - base) : strlen(base);
	char *s = pl_xmalloc(n + 1);
	memcpy(s, base, n);
	s[n] = '\0';
	return s;
}

/* Parse a device constraint text: any, a kind, or a device name. */
static void
parse_constraint(const char *s, struct pl_constraint *c)
{
	memset(c, 0, sizeof *c);
	if (s == NULL || !*s || strcmp(s, "any") == 0)
		return;
	int k = pl_dev_kind_parse(s);
	if (k >= 0) {
		c->kind = PL_CONS_KIND;
		c->dev_kind = k;
		return;
	}
	c->kind = PL_CONS_DEVICE;
	c->device = (char *)s;	/* duplicated by pl_graph_add_op */
}

enum { OP_NAME, OP_TYPE, OP_SCOPE, OP_FLOPS, OP_PARAM, OP_OUT, OP_TEMP,
	OP_MEASURED, OP_GROUP, OP_DEVICE, OP_NKEYS };
static const char *const op_keys[OP_NKEYS] = { "name", "type", "scope", "flops",
	"param_bytes", "out_bytes", "temp_bytes", "measured_us", "group", "device" };

/* Read an op's measured_us object: device kinds and device names, each
 * once.  Device names carry an index ("/gpu:1", "P0"), so a bare word
 * that is not a kind ("fpga", "GPU") is refused rather than kept as the
 * time of a device no cluster has.  Returns -1 after an error. */
static int
read_times(struct ctx *x, const char *name, const cJSON *m, struct pl_op *op,
    struct pl_dev_time *times)
{
	if (!cJSON_IsObject(m)) {
		fail_item(x, m, 0, "op '%s': field 'measured_us' (expected an object such as {\"gpu\": 12.5, \"/gpu:1\": 11})", name);
		return -1;
	}
	const cJSON *it;
	cJSON_ArrayForEach(it, m) {
		if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0 || it->valuedouble > 1e12) {
			if (cJSON_IsNumber(it))
				fail_item(x, it, 0, "op '%s': measured_us.%s %s (expected a time in us in [0, 1e12])",
				    name, it->string, pl_fmt_exact((char[32]){ 0 }, 32, it->valuedouble));
			else
				fail_item(x, it, 0, "op '%s': measured_us.%s is not a number (expected a time in us in [0, 1e12])",
				    name, it->string);
			return -1;
		}
		int k = pl_dev_kind_parse(it->string), dup = k >= 0 && op->measured_us[k] >= 0;
		for (int j = 0; k < 0 && j < op->n_dev_times; j++)
			dup |= strcmp(times[j].device, it->string) == 0;
		if (dup) {
			fail_item(x, it, 1, "op '%s': measured_us: '%s' given a second time (expected each device kind or device once)", name, it->string);
			return -1;
		}
		if (k >= 0) {
			op->measured_us[k] = it->valuedouble;
			continue;
		}
		if (strpbrk(it->string, "/:0123456789") == NULL) {
			fail_item(x, it, 1, "op '%s': measured_us key '%s' (expected a device kind cpu, gpu or tpu, or a device name, which holds a digit, '/' or ':' as \"/gpu:1\" and \"P0\" do)", name, it->string);
			return -1;
		}
		if (op->n_dev_times == PL_MAX_DEV_TIMES) {
			fail_item(x, it, 1, "op '%s': more than %d device names in measured_us (expected at most %d, one per device of a cluster; kinds cpu, gpu, tpu are not counted)", name, PL_MAX_DEV_TIMES, PL_MAX_DEV_TIMES);
			return -1;
		}
		times[op->n_dev_times++] = (struct pl_dev_time){ it->string, it->valuedouble };
	}
	return 0;
}

/* Read one op object into the builder. */
static void
read_op(struct ctx *x, struct pl_graph_builder *b, const cJSON *o, int i)
{
#define BAD(it, ...) do { fail_item(x, it, 0, __VA_ARGS__); return; } while (0)
	if (!cJSON_IsObject(o))
		BAD(o, "ops[%d]: expected an object", i);
	const cJSON *f[OP_NKEYS];
	const cJSON *extra = members(o, op_keys, OP_NKEYS, f);
	const char *name = NULL, *type = "", *scope = "", *group = NULL, *device = NULL;
	if (str_of(f[OP_NAME], &name) != 0 || name == NULL || !*name)
		BAD(f[OP_NAME], "ops[%d]: field 'name' (expected a non-empty string)", i);
	if (extra != NULL) {
		char what[300];
		snprintf(what, sizeof what, "op '%.*s%s': ", PL_SHOWN(name));
		fail_member(x, extra, what, op_keys, OP_NKEYS);
		return;
	}
	struct pl_op op;
	memset(&op, 0, sizeof op);
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		op.measured_us[k] = -1;
	if (str_of(f[OP_TYPE], &type) != 0)
		BAD(f[OP_TYPE], "op '%s': field 'type' (expected a string)", name);
	if (str_of(f[OP_SCOPE], &scope) != 0)
		BAD(f[OP_SCOPE], "op '%s': field 'scope' (expected a string such as \"enc/l2/t7\")", name);
	if (str_of(f[OP_GROUP], &group) != 0 || (group != NULL && *group == '\0'))
		BAD(f[OP_GROUP], "op '%s': field 'group' (expected a colocation group name; leave it out for none)", name);
	if (str_of(f[OP_DEVICE], &device) != 0 || (device != NULL && *device == '\0'))
		BAD(f[OP_DEVICE], "op '%s': field 'device' (expected \"any\", \"cpu\", \"gpu\", \"tpu\" or a device name)", name);
	if (num_of(f[OP_FLOPS], &op.flops) != 0 || op.flops < 0 || op.flops > PL_MAX_FLOPS)
		BAD(f[OP_FLOPS], "op '%s': field 'flops' (expected a finite number in [0, 1e18])", name);
	int64_t *bv[] = { &op.param_bytes, &op.out_bytes, &op.temp_bytes };
	for (int k = 0; k < 3; k++)
		if (bytes_of(f[OP_PARAM + k], bv[k]) != 0)
			BAD(f[OP_PARAM + k], "op '%s': field '%s' (expected a whole number of bytes in [0, 2^50])", name, op_keys[OP_PARAM + k]);
	if (f[OP_PARAM + 1] == NULL)
		op.out_bytes = PL_OUT_BYTES_SUM;
	struct pl_dev_time times[PL_MAX_DEV_TIMES];
	if (f[OP_MEASURED] != NULL && read_times(x, name, f[OP_MEASURED], &op, times) != 0)
		return;
	op.dev_times = times;
	op.name = (char *)name;
	op.type = (char *)type;
	op.scope = (char *)scope;
	parse_constraint(device, &op.cons);
	pl_graph_builder_set_line(b, x->at.line, x->at.col);
	pl_graph_add_op(b, &op, group);
#undef BAD
}

enum { EDGE_SRC, EDGE_DST, EDGE_BYTES, EDGE_OUTPUT, EDGE_NKEYS };
static const char *const edge_keys[EDGE_NKEYS] = { "src", "dst", "bytes", "output" };

/* Read one edge: {"src","dst","bytes","output"} or ["src","dst",bytes,output]. */
static void
read_edge(struct ctx *x, struct pl_graph_builder *b, const cJSON *e, int i)
{
#define BAD(it, ...) do { fail_item(x, it, 0, __VA_ARGS__); return; } while (0)
	const char *src = NULL, *dst = NULL;
	double bytes = 0, out = 0;
	const cJSON *bi = NULL, *oi = NULL;
	if (cJSON_IsArray(e)) {
		int n = cJSON_GetArraySize(e);
		const cJSON *a = cJSON_GetArrayItem(e, 0), *c = cJSON_GetArrayItem(e, 1);
		bi = cJSON_GetArrayItem(e, 2);
		oi = cJSON_GetArrayItem(e, 3);
		if (n < 2 || n > 4 || !cJSON_IsString(a) || !cJSON_IsString(c) ||
		    (bi != NULL && !cJSON_IsNumber(bi)) || (oi != NULL && !cJSON_IsNumber(oi)))
			BAD(e, "edges[%d]: expected [\"src\", \"dst\", bytes, output]", i);
		src = a->valuestring;
		dst = c->valuestring;
		bytes = bi != NULL ? bi->valuedouble : 0;
		out = oi != NULL ? oi->valuedouble : 0;
	} else if (cJSON_IsObject(e)) {
		const cJSON *f[EDGE_NKEYS];
		const cJSON *extra = members(e, edge_keys, EDGE_NKEYS, f);
		if (extra != NULL) {
			char what[32];
			snprintf(what, sizeof what, "edges[%d]: ", i);
			fail_member(x, extra, what, edge_keys, EDGE_NKEYS);
			return;
		}
		if (str_of(f[EDGE_SRC], &src) != 0 || src == NULL || str_of(f[EDGE_DST], &dst) != 0 || dst == NULL)
			BAD(f[src == NULL ? EDGE_SRC : EDGE_DST], "edges[%d]: fields 'src' and 'dst' (expected op names)", i);
		bi = f[EDGE_BYTES];
		oi = f[EDGE_OUTPUT];
		if (num_of(bi, &bytes) != 0)
			BAD(bi, "edge '%s' -> '%s': field 'bytes' (expected a whole number of bytes in [0, 2^50])", src, dst);
		if (num_of(oi, &out) != 0)
			BAD(oi, "edge '%s' -> '%s': field 'output' (expected an output index 0..%d)", src, dst, PL_MAX_OUTPUTS - 1);
	} else {
		BAD(e, "edges[%d]: expected an object or an array", i);
	}
	if (!isfinite(bytes) || bytes < 0 || bytes > (double)PL_MAX_BYTES || bytes != floor(bytes))
		BAD(bi, "edge '%s' -> '%s': bytes %s (expected a whole number of bytes in [0, 2^50])", src, dst,
		    pl_fmt_exact((char[32]){ 0 }, 32, bytes));
	if (!isfinite(out) || out < 0 || out >= PL_MAX_OUTPUTS || out != floor(out))
		BAD(oi, "edge '%s' -> '%s': output %s (expected an output index 0..%d)", src, dst,
		    pl_fmt_exact((char[32]){ 0 }, 32, out), PL_MAX_OUTPUTS - 1);
	pl_graph_builder_set_line(b, x->at.line, x->at.col);
	pl_graph_add_edge_named(b, src, dst, (int)out, (int64_t)bytes);
#undef BAD
}

/*
 * Graph files can be large (100,000 ops), so they are not parsed into one
 * cJSON tree: a scanner walks the top-level object and its "ops" and
 * "edges" arrays, and cJSON parses one element at a time.  Memory stays
 * at the text plus the graph being built, and every element's position is
 * known exactly.
 */

/* Tracks line and column for increasing offsets. */
struct line_tracker {
	const char *s;
	size_t off, line_start;
	int line;
};

/* Position of off (>= every earlier query). */
static struct pos
track(struct line_tracker *t, size_t off)
{
	for (; t->off < off; t->off++)
		if (t->s[t->off] == '\n') {
			t->line++;
			t->line_start = t->off + 1;
		}
	return (struct pos){ t->line, (int)(off - t->line_start) + 1 };
}

/* Parse the value in s[a, b) with cJSON; error at its position. */
static cJSON *
parse_span(struct ctx *x, size_t a, size_t b)
{
	const char *end = NULL;
	cJSON *v = cJSON_ParseWithLengthOpts(x->text + a, b - a, &end, 0);
	if (v == NULL) {
		const char *at = cJSON_GetErrorPtr();
		size_t off = at != NULL && at >= x->text + a && at <= x->text + b ? (size_t)(at - x->text) : a;
		const char *s = x->text;
		if ((s[a] == '[' || s[a] == '{') && b < x->len && (s[b] == '}' || s[b] == ']') &&
		    unclosed(s + a, b - a)) {
			/* skip_value cut the span at a closer of the wrong
			 * kind: the innermost value open there wants the other */
			fail_pos(x, b, "JSON syntax error near '%.*s' (expected ',' or '%c')",
			    excerpt_len(s + b), s + b, s[b] == '}' ? ']' : '}');
		} else if (off >= x->len)
			fail_pos(x, off, "%s", eof_msg(x));
		else {
			size_t rel = off - a;
			char *msg = syntax_msg(x->text + a, &rel);
			fail_pos(x, a + rel, "%s", msg);
			free(msg);
		}
	}
	return v;
}

/* End of the value starting at i, or n+1 when it runs past the text. */
static size_t
value_end(const char *s, size_t i, size_t n)
{
	size_t e = skip_value(s, i, n);
	return e > n || (e == n && (s[i] == '{' || s[i] == '[' || s[i] == '"') && unclosed(s + i, n - i)) ? n + 1 : e;
}

/* Walk the elements of the array starting at s[i] == '['; call fn on
 * each element with x->root, x->base and x->at telling where it is.
 * Returns the offset after ']' or 0 after an error. */
static size_t
scan_array(struct ctx *x, struct line_tracker *t, size_t i,
    void (*fn)(struct ctx *, struct pl_graph_builder *, const cJSON *, int),
    struct pl_graph_builder *b)
{
	const char *s = x->text;
	size_t n = x->len;
	int k = 0;
	i = skip_ws(s, i + 1, n);
	while (x->err == NULL) {
		if (i >= n) {
			fail_pos(x, n, "%s", eof_msg(x));
			break;
		}
		if (s[i] == ']' && k == 0)
			break;
		size_t e = value_end(s, i, n);
		if (e > n) {
			fail_pos(x, n, "%s", eof_msg(x));
			break;
		}
		x->at = track(t, i);
		cJSON *item = parse_span(x, i, e);
		if (item == NULL)
			break;
		x->root = item;
		x->base = i;
		fn(x, b, item, k++);
		x->root = NULL;
		cJSON_Delete(item);
		i = skip_ws(s, e, n);
		if (i < n && s[i] == ',') {
			i = skip_ws(s, i + 1, n);
			continue;
		}
		if (i < n && s[i] == ']')
			break;
		if (i >= n)
			fail_pos(x, n, "%s", eof_msg(x));
		else
			fail_pos(x, i, "JSON syntax error near '%.*s' (expected ',' or ']')",
			    excerpt_len(s + i), s + i);
	}
	return x->err == NULL ? i + 1 : 0;
}

enum { GRAPH_FORMAT, GRAPH_NAME, GRAPH_OPS, GRAPH_EDGES, GRAPH_NKEYS };
static const char *const graph_keys[GRAPH_NKEYS] = { "format", "name", "ops", "edges" };

/* Parse a graph from JSON text. */
struct pl_graph *
pl_graph_parse_json(const char *text, size_t len, const char *name, char **cause)
{
	struct ctx x = { .name = name, .text = text, .len = strnlen(text, len), .size = len };
	if ((*cause = pl_text_foreign(text, len, name, "a graph (expected a placelab JSON graph)")) != NULL)
		return NULL;
	struct line_tracker t = { text, 0, 0, 1 };
	char *stem = pl_name_from_path(name);
	struct pl_graph_builder *b = pl_graph_builder_new(stem);
	free(stem);
	pl_graph_builder_set_source(b, name);
	const char *s = text;
	size_t n = x.len, i = skip_ws(s, bom_len(s, n), n);
	int edges_at = -1;
	size_t ops_at = 0;	/* where the ops array opens */
	unsigned seen = 0;
	size_t unknown = 0;
	struct pl_graph *g = NULL;
	if (i >= n) {
		if (n < x.size)
			fail_pos(&x, n, "%s", eof_msg(&x));
		else
			x.err = pl_xasprintf("%s: empty file (expected a JSON object)", name);
		goto out;
	}
	if (s[i] != '{') {
		/* a file in another encoding (UTF-16) is said as such */
		if (check_text(&x) == 0)
			fail_pos(&x, i, "expected a JSON object at the top level");
		goto out;
	}
	if (check_text(&x) != 0)
		goto out;
	i = skip_ws(s, i + 1, n);
	/* The edges refer to ops by name, so they are read after all ops:
	 * remember where the edges array starts if it comes first. */
	while (x.err == NULL) {
		if (i < n && s[i] == '}' && seen == 0 && unknown == 0)
			break;
		if (i >= n || s[i] != '"') {
			if (i >= n)
				fail_pos(&x, n, "%s", eof_msg(&x));
			else
				fail_pos(&x, i, "JSON syntax error near '%.*s' (%s)", excerpt_len(s + i), s + i,
				    s[i] == '}' ? "expected a \"key\" after ','; JSON allows no ',' before '}'" :
				    "expected a \"key\" in double quotes");
			break;
		}
		size_t kend = value_end(s, i, n);
		if (kend > n) {
			fail_pos(&x, n, "%s", eof_msg(&x));
			break;
		}
		size_t klen = kend - i - 2;
		const char *key = s + i + 1;
		i = skip_ws(s, kend, n);
		if (i >= n || s[i] != ':') {
			if (i < n)
				fail_pos(&x, i, "JSON syntax error near '%.*s' (expected ':' after the key)",
				    excerpt_len(s + i), s + i);
			else
				fail_pos(&x, n, "%s", eof_msg(&x));
			break;
		}
		i = skip_ws(s, i + 1, n);
		if (i >= n) {
			fail_pos(&x, n, "%s", eof_msg(&x));
			break;
		}
		/* a key with escapes ("\u006fps") is compared decoded */
		cJSON *decoded = memchr(key, '\\', klen) != NULL ?
		    cJSON_ParseWithLength(key - 1, klen + 2) : NULL;
		const char *kname = cJSON_IsString(decoded) ? decoded->valuestring : NULL;
		int k = 0;
		while (k < GRAPH_NKEYS && !(kname != NULL ? strcmp(kname, graph_keys[k]) == 0 :
		    klen == strlen(graph_keys[k]) && memcmp(key, graph_keys[k], klen) == 0))
			k++;
		cJSON_Delete(decoded);
		if (k < GRAPH_NKEYS && (seen & 1u << k)) {
			fail_pos(&x, (size_t)(key - s) - 1, "field '%s' given a second time (expected it once)", graph_keys[k]);
			break;
		}
		if (k < GRAPH_NKEYS)
			seen |= 1u << k;
		else if (unknown == 0)
			unknown = (size_t)(key - s);	/* reported once the format is known good */
		size_t after;
		if (k == GRAPH_OPS && s[i] == '[') {
			ops_at = i;
			after = scan_array(&x, &t, i, read_op, b);
		} else if (k == GRAPH_EDGES && s[i] == '[') {
			edges_at = (int)i;
			after = value_end(s, i, n);
			if (after > n)
				fail_pos(&x, n, "%s", eof_msg(&x));
			else if (s[after - 1] != ']')
				/* cut at a closer of the wrong kind (read later
				 * as it is, it would end the object): said now */
				cJSON_Delete(parse_span(&x, i, after));
		} else {
			after = value_end(s, i, n);
			if (after > n) {
				fail_pos(&x, n, "%s", eof_msg(&x));
				break;
			}
			cJSON *v = parse_span(&x, i, after);
			if (v == NULL)
				break;
			if (k == GRAPH_FORMAT) {
				check_format(&x, v, i, PL_FORMAT_GRAPH);
				cJSON_Delete(v);
			} else if (k == GRAPH_NAME) {
				if (!cJSON_IsString(v))
					fail_pos(&x, i, "field 'name' (expected a string)");
				else
					pl_graph_builder_set_name(b, v->valuestring);
				cJSON_Delete(v);
			} else if (k == GRAPH_OPS || k == GRAPH_EDGES) {
				fail_pos(&x, i, "'%.*s' (expected an array)", (int)klen, key);
				cJSON_Delete(v);
			} else {
				cJSON_Delete(v);
			}
		}
		if (x.err != NULL)
			break;
		i = skip_ws(s, after, n);
		if (i < n && s[i] == ',') {
			i = skip_ws(s, i + 1, n);
			continue;
		}
		if (i < n && s[i] == '}')
			break;
		if (i >= n)
			fail_pos(&x, n, "%s", eof_msg(&x));
		else
			fail_pos(&x, i, "JSON syntax error near '%.*s' (expected ',' or '}')",
			    excerpt_len(s + i), s + i);
	}
	if (x.err == NULL)
		check_end(&x, i + 1);
	if (x.err == NULL && !(seen & 1u << GRAPH_FORMAT))
		x.err = pl_xasprintf("%s: missing \"format\" field (expected \"%s\")", name, PL_FORMAT_GRAPH);
	if (x.err == NULL && unknown != 0) {
		char list[512];
		size_t kend = skip_value(s, unknown - 1, n) - 1;
		fail_pos(&x, unknown - 1, "unknown field '%.*s' (expected %s)", (int)(kend - unknown), s + unknown,
		    key_list(list, graph_keys, GRAPH_NKEYS));
	}
	if (x.err == NULL && !(seen & 1u << GRAPH_OPS))
		x.err = pl_xasprintf("%s: missing 'ops' array (expected \"ops\": [ ... ])", name);
	if (x.err == NULL && pl_graph_builder_n_ops(b) == 0)
		fail_pos(&x, ops_at, "'ops' is empty (expected at least one op)");
	if (x.err == NULL && edges_at >= 0) {
		/* The tracker only moves forward: restart it for the edges. */
		t = (struct line_tracker){ text, 0, 0, 1 };
		scan_array(&x, &t, (size_t)edges_at, read_edge, b);
	}
	if (x.err == NULL) {
		g = pl_graph_build(b, &x.err);
		b = NULL;
	}
out:
	pl_graph_builder_free(b);
	if (g == NULL)
		*cause = x.err;
	return g;
}

/* Load a graph file. */
struct pl_graph *
pl_graph_load_json(const char *path, char **cause)
{
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return NULL;
	struct pl_graph *g = pl_graph_parse_json(text, len, path, cause);
	free(text);
	return g;
}

/* v with prec significant digits ("%.*g") in buf[40]; prec is at most
 * 17, which the longest double takes in 24 bytes. */
static void
fmt_g(char buf[static 40], int prec, double v)
{
	int n = snprintf(buf, 40, "%.*g", prec < 17 ? prec : 17, v);
	(void)n;	/* (never cut: 40 is room enough) */
}

/* Shortest text (6 to 17 significant digits) that reads back as the same
 * (finite) double.  The precision is found by bisection, four tries
 * instead of up to twelve, which matter on a placement of half a million
 * priorities: once p digits read back, so do more (17 always do), as the
 * nearest decimal of p + 1 digits is no farther from v than that of p and
 * the doubles that read back as v lie as far on either side of it.  Not
 * so at a power of two, whose lower neighbour is half as far: there every
 * precision is tried in turn. */
static void
fmt_exact(char buf[static 40], double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, 40, "%.0f", v == 0 ? 0.0 : v);	/* (no "-0") */
		return;
	}
	int e;
	if (fabs(frexp(v, &e)) == 0.5) {
		for (int prec = 6; prec <= 17; prec++) {
			fmt_g(buf, prec, v);
			if (strtod(buf, NULL) == v)
				return;
		}
	}
	int lo = 6, hi = 17;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		fmt_g(buf, mid, v);
		if (strtod(buf, NULL) == v)
			hi = mid;
		else
			lo = mid + 1;
	}
	fmt_g(buf, lo, v);
}

/* v as fmt_exact() writes it. */
static void
sb_num(struct pl_strbuf *s, double v)
{
	char buf[40];
	fmt_exact(buf, v);
	pl_sb_put(s, buf, strlen(buf));
}

/* Every number under item as raw text that reads back as the same double
 * (null when not finite, as JSON has no such number). */
static void
numbers_exact(cJSON *item)
{
	for (; item != NULL; item = item->next) {
		if (cJSON_IsNumber(item)) {
			char buf[40];
			if (isfinite(item->valuedouble))
				fmt_exact(buf, item->valuedouble);
			else
				snprintf(buf, sizeof buf, "null");
			item->type = cJSON_Raw | (item->type & cJSON_StringIsConst);
			item->valuestring = pl_xstrdup(buf);
		}
		numbers_exact(item->child);
	}
}

/* See io.h. */
char *
pl_json_print(cJSON *root)
{
	numbers_exact(root);
	char *s = cJSON_Print(root);
	if (s == NULL)	/* (its only failure) */
		pl_die_oom(0);
	char *out = pl_xstrdup(s);
	cJSON_free(s);
	return out;
}

/* See io.h. */
cJSON *
pl_json_bytes(int64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	return cJSON_CreateRaw(buf);
}

/* Serialise a graph (ops one per line, compact edges). */
char *
pl_graph_to_json(const struct pl_graph *g)
{
	struct pl_strbuf s = { 0 };
	pl_sb_printf(&s, "{\n\"format\": \"%s\",\n\"name\": ", PL_FORMAT_GRAPH);
	pl_sb_json_str(&s, g->name);
	pl_sb_printf(&s, ",\n\"ops\": [\n");
	for (int v = 0; v < g->n_ops; v++) {
		const struct pl_op *o = &g->ops[v];
		pl_sb_printf(&s, "{\"name\": ");
		pl_sb_json_str(&s, o->name);
		if (*o->type) {
			pl_sb_printf(&s, ", \"type\": ");
			pl_sb_json_str(&s, o->type);
		}
		if (*o->scope) {
			pl_sb_printf(&s, ", \"scope\": ");
			pl_sb_json_str(&s, o->scope);
		}
		pl_sb_printf(&s, ", \"flops\": ");
		sb_num(&s, o->flops);
		if (o->param_bytes)
			pl_sb_printf(&s, ", \"param_bytes\": %lld", (long long)o->param_bytes);
		pl_sb_printf(&s, ", \"out_bytes\": %lld", (long long)o->out_bytes);
		if (o->temp_bytes)
			pl_sb_printf(&s, ", \"temp_bytes\": %lld", (long long)o->temp_bytes);
		int first = 1;
		for (int k = 0; k < PL_DEV_KIND_COUNT; k++) {
			if (o->measured_us[k] < 0)
				continue;
			pl_sb_printf(&s, first ? ", \"measured_us\": {\"%s\": " : ", \"%s\": ", pl_dev_kind_name(k));
			sb_num(&s, o->measured_us[k]);
			first = 0;
		}
		for (int k = 0; k < o->n_dev_times; k++) {
			pl_sb_printf(&s, first ? ", \"measured_us\": {" : ", ");
			pl_sb_json_str(&s, o->dev_times[k].device);
			pl_sb_put(&s, ": ", 2);
			sb_num(&s, o->dev_times[k].us);
			first = 0;
		}
		if (!first)
			pl_sb_put(&s, "}", 1);
		const struct pl_group *gr = &g->groups[o->group];
		if (gr->name != NULL) {
			pl_sb_printf(&s, ", \"group\": ");
			pl_sb_json_str(&s, gr->name);
		}
		if (o->cons.kind == PL_CONS_KIND)
			pl_sb_printf(&s, ", \"device\": \"%s\"", pl_dev_kind_name(o->cons.dev_kind));
		else if (o->cons.kind == PL_CONS_DEVICE) {
			pl_sb_printf(&s, ", \"device\": ");
			pl_sb_json_str(&s, o->cons.device);
		}
		pl_sb_printf(&s, "}%s\n", v + 1 < g->n_ops ? "," : "");
	}
	pl_sb_printf(&s, "],\n\"edges\": [\n");
	for (int e = 0; e < g->n_edges; e++) {
		const struct pl_edge *ed = &g->edges[e];
		const struct pl_tensor *t = &g->tensors[ed->tensor];
		pl_sb_put(&s, "[", 1);
		pl_sb_json_str(&s, g->ops[ed->src].name);
		pl_sb_put(&s, ", ", 2);
		pl_sb_json_str(&s, g->ops[ed->dst].name);
		pl_sb_printf(&s, ", %lld, %d]%s\n", (long long)t->bytes, t->index, e + 1 < g->n_edges ? "," : "");
	}
	pl_sb_printf(&s, "]\n}\n");
	return pl_sb_take(&s);
}

/* Save a graph atomically. */
int
pl_graph_save_json(const struct pl_graph *g, const char *path, char **cause)
{
	char *text = pl_graph_to_json(g);
	int rc = pl_file_write_atomic(path, text, strlen(text), cause);
	free(text);
	return rc;
}

/* ---- clusters ----------------------------------------------------------- */

enum { CL_FORMAT, CL_NAME, CL_DESC, CL_DEVICES, CL_LINKS, CL_PLACETO, CL_NKEYS };
static const char *const cluster_keys[CL_NKEYS] = { "format", "name", "description",
	"devices", "links", "placeto" };
enum { DEV_NAME, DEV_KIND, DEV_FLOPS, DEV_MEM, DEV_MEMBW, DEV_LAUNCH, DEV_NKEYS };
static const char *const device_keys[DEV_NKEYS] = { "name", "kind", "peak_flops",
	"mem_bytes", "mem_bw", "launch_us" };
enum { LINK_SHARED, LINK_BW, LINK_LAT, LINK_NKEYS };
static const char *const link_keys[LINK_NKEYS] = { "shared_bus", "bandwidth", "latency_us" };
enum { PT_NKEYS = 4 };
static const char *const placeto_keys[PT_NKEYS] = { "delta1", "delta2", "transfer_speed", "init_offset" };

/* Sort the members of object o (what: "device '/gpu:0': ") into slot[];
 * -1 after an error at the first unknown or repeated key. */
static int
read_members(struct ctx *x, const cJSON *o, const char *what,
    const char *const *keys, int n, const cJSON **slot)
{
	const cJSON *extra = members(o, keys, n, slot);
	if (extra == NULL)
		return 0;
	fail_member(x, extra, what, keys, n);
	return -1;
}

/* Read cluster figure `field` of what ("device '/gpu:0': ") from member
 * it of parent into *out; a missing member keeps *out unless required.
 * The range is the one pl_cluster_validate() enforces. */
static int
read_figure(struct ctx *x, const cJSON *parent, const cJSON *it, const char *what,
    const char *field, int required, double *out)
{
	const char *expected;
	char num[32];
	if (it == NULL && !required)
		return 0;
	double v = it != NULL && cJSON_IsNumber(it) ? it->valuedouble : NAN;
	if (pl_cluster_figure_check(field, v, &expected) == 0) {
		*out = v;
		return 0;
	}
	if (it == NULL)
		fail_item(x, parent, 0, "%smissing field '%s' (expected %s)", what, field, expected);
	else if (!cJSON_IsNumber(it))
		fail_item(x, it, 0, "%s%s is not a number (expected %s)", what, field, expected);
	else
		fail_item(x, it, 0, "%s%s %s (expected %s)", what, field,
		    pl_fmt_exact(num, sizeof num, v), expected);
	return -1;
}

/* Read a link field: a number (all pairs) or an n x n matrix (row =
 * source, column = destination, diagonal ignored). */
static int
read_link_field(struct ctx *x, const cJSON *f, const char *key, struct pl_cluster *c)
{
	int n = c->n_dev;
	double *dst = strcmp(key, "bandwidth") == 0 ? c->bw : c->lat_us;
	if (f == NULL)
		return 0;
	if (cJSON_IsNumber(f)) {
		double v = 0;
		if (read_figure(x, NULL, f, "links: ", key, 1, &v) != 0)
			return -1;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (i != j)
					dst[i * n + j] = v;
		return 0;
	}
	if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) != n) {
		char rows[32] = "";
		if (cJSON_IsArray(f))
			snprintf(rows, sizeof rows, " has %d rows", cJSON_GetArraySize(f));
		fail_item(x, f, 0, "links.%s%s (expected a number or a %dx%d matrix of numbers)", key, rows, n, n);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const cJSON *row = cJSON_GetArrayItem(f, i);
		if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != n) {
			fail_item(x, row, 0, "links.%s[%d] (expected a row of %d numbers)", key, i, n);
			return -1;
		}
		for (int j = 0; j < n; j++) {
			const cJSON *v = cJSON_GetArrayItem(row, j);
			char what[300];
			snprintf(what, sizeof what, "link '%.*s%s' -> '%.*s%s' (links.%s[%d][%d]): ",
			    PL_SHOWN(c->dev[i].name), PL_SHOWN(c->dev[j].name), key, i, j);
			if (i == j && !cJSON_IsNumber(v)) {
				fail_item(x, v, 0, "%s%s is not a number (expected a number; the diagonal is ignored)", what, key);
				return -1;
			}
			if (i != j && read_figure(x, row, v, what, key, 1, &dst[i * n + j]) != 0)
				return -1;
		}
	}
	return 0;
}

/* Read one device object; -1 after an error. */
static int
read_device(struct ctx *x, struct pl_cluster *c, const cJSON *d, int i)
{
	const cJSON *f[DEV_NKEYS];
	const cJSON *nm = cJSON_IsObject(d) ? cJSON_GetObjectItemCaseSensitive(d, "name") : NULL;
	const char *dname = NULL, *kind = "gpu";
	if (!cJSON_IsObject(d)) {
		fail_item(x, d, 0, "devices[%d]: expected an object such as {\"name\": \"/gpu:0\", "
		    "\"kind\": \"gpu\", \"peak_flops\": 4.37e12, ...}", i);
		return -1;
	}
	if (str_of(nm, &dname) != 0 || dname == NULL || !*dname) {
		fail_item(x, nm != NULL ? nm : d, 0,
		    "devices[%d]: field 'name' (expected a non-empty string such as \"/gpu:0\")", i);
		return -1;
	}
	char what[300];
	snprintf(what, sizeof what, "device '%.*s%s': ", PL_SHOWN(dname));
	if (read_members(x, d, what, device_keys, DEV_NKEYS, f) != 0)
		return -1;
	if (pl_cluster_find(c, dname) >= 0) {
		fail_item(x, f[DEV_NAME], 0, "device '%s': duplicate name (expected each device once)", dname);
		return -1;
	}
	if (str_of(f[DEV_KIND], &kind) != 0 || pl_dev_kind_parse(kind) < 0) {
		fail_item(x, f[DEV_KIND], 0, "device '%s': field 'kind' (expected cpu, gpu or tpu)", dname);
		return -1;
	}
	struct pl_device dev = { .name = (char *)dname, .kind = pl_dev_kind_parse(kind) };
	double mem = 0;
	if (read_figure(x, d, f[DEV_FLOPS], what, "peak_flops", 1, &dev.peak_flops) != 0 ||
	    read_figure(x, d, f[DEV_MEM], what, "mem_bytes", 1, &mem) != 0 ||
	    read_figure(x, d, f[DEV_MEMBW], what, "mem_bw", 1, &dev.mem_bw) != 0 ||
	    read_figure(x, d, f[DEV_LAUNCH], what, "launch_us", 0, &dev.launch_us) != 0)
		return -1;
	/* a graph's constraints and measured times read these as kinds */
	if (pl_dev_kind_parse(dname) >= 0 || strcmp(dname, "any") == 0) {
		fail_item(x, f[DEV_NAME], 0, "device '%s': name (expected a name "
		    "other than cpu, gpu, tpu and any, which graphs read as kinds: "
		    "\"/%s:0\", say)", dname, dname);
		return -1;
	}
	dev.mem_bytes = (int64_t)mem;
	pl_cluster_add_device(c, &dev, 12e9, 10);
	return 0;
}

/* Parse a cluster from JSON text. */
struct pl_cluster *
pl_cluster_parse_json(const char *text, size_t len, const char *name, char **cause)
{
	struct ctx x = { .name = name, .text = text, .len = len,
	    .what = "a cluster (expected a placelab JSON cluster file or a preset name)" };
	cJSON *root = parse_text(&x);
	x.root = root;
	struct pl_cluster *c = NULL;
	const cJSON *f[CL_NKEYS], *lf[LINK_NKEYS], *pf[PT_NKEYS], *d;
	if (root == NULL || check_root_format(&x, root, PL_FORMAT_CLUSTER) != 0 ||
	    read_members(&x, root, "", cluster_keys, CL_NKEYS, f) != 0)
		goto out;
	const char *cname = NULL, *desc = "";
	if (str_of(f[CL_NAME], &cname) != 0) {
		fail_item(&x, f[CL_NAME], 0, "field 'name' (expected a string)");
		goto out;
	}
	if (str_of(f[CL_DESC], &desc) != 0) {
		fail_item(&x, f[CL_DESC], 0, "field 'description' (expected a string)");
		goto out;
	}
	const cJSON *devs = f[CL_DEVICES], *links = f[CL_LINKS], *pp = f[CL_PLACETO];
	if (devs == NULL) {
		x.err = pl_xasprintf("%s: missing 'devices' array (expected at least one device)", name);
		goto out;
	}
	int n_dev = cJSON_GetArraySize(devs);
	if (!cJSON_IsArray(devs) || n_dev < 1 || n_dev > PL_MAX_DEVICES) {
		fail_item(&x, devs, 0, "'devices' %s (expected an array of 1 to %d devices)",
		    !cJSON_IsArray(devs) ? "is not an array" : n_dev < 1 ? "is empty" : "has too many devices",
		    PL_MAX_DEVICES);
		goto out;
	}
	if (links != NULL && !cJSON_IsObject(links)) {
		fail_item(&x, links, 0, "'links' (expected an object)");
		goto out;
	}
	if (pp != NULL && !cJSON_IsObject(pp)) {
		fail_item(&x, pp, 0, "'placeto' (expected an object of delta1, delta2, transfer_speed, init_offset)");
		goto out;
	}
	if ((links != NULL && read_members(&x, links, "links: ", link_keys, LINK_NKEYS, lf) != 0) ||
	    (pp != NULL && read_members(&x, pp, "placeto: ", placeto_keys, PT_NKEYS, pf) != 0))
		goto out;
	c = pl_cluster_new(cname);
	if (cname == NULL) {
		free(c->name);
		c->name = pl_name_from_path(name);
	}
	free(c->description);
	c->description = pl_xstrdup(desc);
	int i = 0;
	cJSON_ArrayForEach(d, devs)
		if (read_device(&x, c, d, i++) != 0)
			goto out;
	if (links != NULL) {
		if (lf[LINK_SHARED] != NULL && !cJSON_IsBool(lf[LINK_SHARED])) {
			fail_item(&x, lf[LINK_SHARED], 0, "links.shared_bus (expected true or false)");
			goto out;
		}
		c->shared_bus = cJSON_IsTrue(lf[LINK_SHARED]);
		if (read_link_field(&x, lf[LINK_BW], "bandwidth", c) != 0 ||
		    read_link_field(&x, lf[LINK_LAT], "latency_us", c) != 0)
			goto out;
	}
	double *pv[PT_NKEYS] = { &c->placeto.delta1, &c->placeto.delta2,
		&c->placeto.transfer_speed, &c->placeto.init_offset };
	for (int k = 0; pp != NULL && k < PT_NKEYS; k++)
		if (read_figure(&x, pp, pf[k], "placeto: ", placeto_keys[k], 0, pv[k]) != 0)
			goto out;
	char *verr = NULL;
	if (pl_cluster_validate(c, &verr) != 0) {
		x.err = pl_xasprintf("%s: %s", name, verr);
		free(verr);
	}
out:
	cJSON_Delete(root);
	if (x.err != NULL) {
		pl_cluster_free(c);
		*cause = x.err;
		return NULL;
	}
	return c;
}

/* Load a cluster file. */
struct pl_cluster *
pl_cluster_load_json(const char *path, char **cause)
{
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return NULL;
	struct pl_cluster *c = pl_cluster_parse_json(text, len, path, cause);
	free(text);
	return c;
}

/* Write an n x n matrix. */
static void
sb_matrix(struct pl_strbuf *s, const double *m, int n)
{
	pl_sb_put(s, "[", 1);
	for (int i = 0; i < n; i++) {
		pl_sb_printf(s, "%s[", i ? ",\n    " : "");
		for (int j = 0; j < n; j++) {
			if (j)
				pl_sb_put(s, ", ", 2);
			sb_num(s, m[i * n + j]);
		}
		pl_sb_put(s, "]", 1);
	}
	pl_sb_put(s, "]", 1);
}

/* Serialise a cluster. */
char *
pl_cluster_to_json(const struct pl_cluster *c)
{
	struct pl_strbuf s = { 0 };
	pl_sb_printf(&s, "{\n\"format\": \"%s\",\n\"name\": ", PL_FORMAT_CLUSTER);
	pl_sb_json_str(&s, c->name);
	pl_sb_printf(&s, ",\n\"description\": ");
	pl_sb_json_str(&s, c->description);
	pl_sb_printf(&s, ",\n\"devices\": [\n");
	for (int i = 0; i < c->n_dev; i++) {
		const struct pl_device *d = &c->dev[i];
		pl_sb_printf(&s, "  {\"name\": ");
		pl_sb_json_str(&s, d->name);
		pl_sb_printf(&s, ", \"kind\": \"%s\", \"peak_flops\": ", pl_dev_kind_name(d->kind));
		sb_num(&s, d->peak_flops);
		pl_sb_printf(&s, ", \"mem_bytes\": %lld, \"mem_bw\": ", (long long)d->mem_bytes);
		sb_num(&s, d->mem_bw);
		pl_sb_printf(&s, ", \"launch_us\": ");
		sb_num(&s, d->launch_us);
		pl_sb_printf(&s, "}%s\n", i + 1 < c->n_dev ? "," : "");
	}
	pl_sb_printf(&s, "],\n\"links\": {\"shared_bus\": %s,\n  \"bandwidth\": ", c->shared_bus ? "true" : "false");
	sb_matrix(&s, c->bw, c->n_dev);
	pl_sb_printf(&s, ",\n  \"latency_us\": ");
	sb_matrix(&s, c->lat_us, c->n_dev);
	pl_sb_printf(&s, "},\n\"placeto\": {\"delta1\": ");
	sb_num(&s, c->placeto.delta1);
	pl_sb_printf(&s, ", \"delta2\": ");
	sb_num(&s, c->placeto.delta2);
	pl_sb_printf(&s, ", \"transfer_speed\": ");
	sb_num(&s, c->placeto.transfer_speed);
	pl_sb_printf(&s, ", \"init_offset\": ");
	sb_num(&s, c->placeto.init_offset);
	pl_sb_printf(&s, "}\n}\n");
	return pl_sb_take(&s);
}

/* Save a cluster atomically. */
int
pl_cluster_save_json(const struct pl_cluster *c, const char *path, char **cause)
{
	char *text = pl_cluster_to_json(c);
	int rc = pl_file_write_atomic(path, text, strlen(text), cause);
	free(text);
	return rc;
}

/* A file-shaped argument that is no preset name. */
const char *
pl_cluster_arg_file(const char *arg)
{
	if (arg == NULL || (strchr(arg, '/') == NULL && strchr(arg, '.') == NULL))
		return NULL;
	for (const struct pl_cluster_preset *p = pl_cluster_presets; p->name != NULL; p++)
		if (strcmp(p->name, arg) == 0)
			return NULL;
	return arg;
}

/* A preset name or a cluster file. */
struct pl_cluster *
pl_cluster_from_arg(const char *arg, char **cause)
{
	struct pl_cluster *c = pl_cluster_preset(arg);
	if (c != NULL)
		return c;
	if (pl_cluster_arg_file(arg) == NULL) {
		char names[512] = "";
		size_t used = 0;
		for (const struct pl_cluster_preset *p = pl_cluster_presets; p->name && used < sizeof names - 32; p++)
			used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", p->name);
		if (access(arg, F_OK) == 0)	/* a bare name is a preset's */
			*cause = pl_xasprintf("no cluster preset '%s' (expected one of %s; for the file "
			    "%s write ./%s)", arg, names, arg, arg);
		else
			*cause = pl_xasprintf("no cluster preset '%s' (expected one of %s, or a cluster file)",
			    arg, names);
		return NULL;
	}
	return pl_cluster_load_json(arg, cause);
}

/* ---- placements --------------------------------------------------------- */

/* Warn at item: "FILE:LINE:COL: warning: ...", into *out when out is
 * not NULL (replacing what it held), else on stderr. */
static void
warn_item(const struct ctx *x, char **out, const cJSON *item, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
warn_item(const struct ctx *x, char **out, const cJSON *item, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = pl_xvasprintf(fmt, ap);	/* whole, however long */
	va_end(ap);
	int line, col;
	pl_text_position(x->text, locate(x, item, 0), &line, &col);
	char *full = pl_xasprintf("%s:%d:%d: warning: %s", x->name, line, col, msg);
	free(msg);
	if (out != NULL) {
		free(*out);
		*out = full;
	} else {
		fprintf(stderr, "placelab: %s\n", full);
		free(full);
	}
}

enum { PK_FORMAT, PK_GRAPH, PK_CLUSTER, PK_DEVICES, PK_PRIO, PK_TPRIO, PK_NKEYS };
static const char *const placement_keys[PK_NKEYS] = { "format", "graph", "cluster",
	"devices", "priorities", "tensor_priorities" };

/* A placement being read: the file's fields, the graph and cluster it is
 * checked against, and the "devices" member of each op. */
struct place_ctx {
	struct ctx *x;
	const struct pl_graph *g;
	const struct pl_cluster *c;
	struct pl_placement *p;
	struct pl_strmap names;
	const cJSON *f[PK_NKEYS];
	const cJSON **entry;
	char ghint[300], chint[300];	/* " (the file places graph 'x')" */
};

/* Read "devices": every op of the graph once, on a device of the cluster
 * (what the placement means, constraints and colocation, is
 * pl_placement_check_op's, after).  -1 after an error. */
static int
read_devices(struct place_ctx *pc)
{
	struct ctx *x = pc->x;
	const struct pl_graph *g = pc->g;
	const struct pl_cluster *c = pc->c;
	const cJSON *devs = pc->f[PK_DEVICES], *it;
	int count = 0;
	cJSON_ArrayForEach(it, devs) {
		int v = pl_strmap_get(&pc->names, it->string);
		if (v < 0) {
			fail_item(x, it, 1, "op '%s' is not in graph '%s'%s", it->string, g->name, pc->ghint);
			return -1;
		}
		if (pc->entry[v] != NULL) {
			fail_item(x, it, 1, "op '%s' placed a second time (expected each op once)", it->string);
			return -1;
		}
		if (!cJSON_IsString(it)) {
			fail_item(x, it, 0, "op '%s': expected a device name string such as \"/gpu:0\"", it->string);
			return -1;
		}
		int d = pl_cluster_find(c, it->valuestring);
		if (d < 0) {
			fail_item(x, it, 0, "op '%s': device '%s' is not in cluster '%s'%s", it->string,
			    it->valuestring, c->name, pc->chint);
			return -1;
		}
		pc->entry[v] = it;
		pc->p->dev[v] = d;
		count++;
	}
	for (int v = 0; count < g->n_ops && v < g->n_ops; v++)
		if (pc->entry[v] == NULL) {
			fail_item(x, devs, 0, "op '%s' has no device (expected every op of graph '%s' placed)%s",
			    g->ops[v].name, g->name, pc->ghint);
			return -1;
		}
	return 0;
}

/* Read "priorities": ops of the graph, each once, finite numbers. */
static int
read_priorities(struct place_ctx *pc)
{
	struct ctx *x = pc->x;
	const cJSON *prio = pc->f[PK_PRIO], *it;
	char *seen = pl_xcalloc(pc->g->n_ops, 1);
	int rc = 0;
	pl_placement_ensure_prio(pc->p);
	cJSON_ArrayForEach(it, prio) {
		int v = pl_strmap_get(&pc->names, it->string);
		if (v < 0) {
			fail_item(x, it, 1, "priorities: op '%s' is not in graph '%s'%s", it->string, pc->g->name, pc->ghint);
			rc = -1;
		} else if (seen[v]) {
			fail_item(x, it, 1, "priorities: op '%s' given a second time (expected each op once)", it->string);
			rc = -1;
		} else if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
			fail_item(x, it, 0, "priorities: op '%s' (expected a finite number)", it->string);
			rc = -1;
		}
		if (rc != 0)
			break;
		seen[v] = 1;
		pc->p->prio[v] = it->valuedouble;
	}
	free(seen);
	return rc;
}

/* Read "tensor_priorities": [op, output index, device, priority], one
 * per tensor and device at most. */
static int
read_tensor_priorities(struct place_ctx *pc)
{
	struct ctx *x = pc->x;
	const struct pl_graph *g = pc->g;
	const struct pl_cluster *c = pc->c;
	const cJSON *tpr = pc->f[PK_TPRIO], *it;
	if (!cJSON_IsArray(tpr)) {
		fail_item(x, tpr, 0, "'tensor_priorities' (expected an array of [op, output index, device, priority])");
		return -1;
	}
	pl_placement_ensure_tprio(pc->p, g->n_tensors);
	char *seen = pl_xcalloc((size_t)g->n_tensors * c->n_dev + 1, 1);
	int k = 0, rc = -1;
	cJSON_ArrayForEach(it, tpr) {
		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 4) {
			fail_item(x, it, 0, "tensor_priorities[%d] (expected [op, output index, device, priority])", k);
			goto out;
		}
		const cJSON *a = cJSON_GetArrayItem(it, 0), *o = cJSON_GetArrayItem(it, 1);
		const cJSON *d = cJSON_GetArrayItem(it, 2), *v = cJSON_GetArrayItem(it, 3);
		int op = cJSON_IsString(a) ? pl_strmap_get(&pc->names, a->valuestring) : -1;
		if (op < 0) {
			fail_item(x, a, 0, "tensor_priorities[%d]: op%s%s%s (expected the name of an op of graph '%s')%s", k,
			    cJSON_IsString(a) ? " '" : "", cJSON_IsString(a) ? a->valuestring : "",
			    cJSON_IsString(a) ? "'" : "", g->name, pc->ghint);
			goto out;
		}
		/* (a whole number below PL_MAX_OUTPUTS: what an output index can be) */
		double ix = cJSON_IsNumber(o) ? o->valuedouble : -1;
		int t = ix >= 0 && ix < PL_MAX_OUTPUTS && ix == (long)ix ?
		    pl_graph_tensor_of(g, op, (long)ix) : -1;
		if (t < 0) {
			fail_item(x, o, 0, "tensor_priorities[%d]: op '%s' has no tensor of that output index (expected the output index of one of its tensors)",
			    k, g->ops[op].name);
			goto out;
		}
		int dev = cJSON_IsString(d) ? pl_cluster_find(c, d->valuestring) : -1;
		if (dev < 0) {
			fail_item(x, d, 0, "tensor_priorities[%d]: device%s%s%s (expected a device of cluster '%s')%s", k,
			    cJSON_IsString(d) ? " '" : "", cJSON_IsString(d) ? d->valuestring : "",
			    cJSON_IsString(d) ? "'" : "", c->name, pc->chint);
			goto out;
		}
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
			fail_item(x, v, 0, "tensor_priorities[%d]: priority (expected a finite number)", k);
			goto out;
		}
		size_t slot = (size_t)t * c->n_dev + dev;
		if (seen[slot]) {
			fail_item(x, it, 0, "tensor_priorities[%d]: output %d of '%s' to '%s' given a second time (expected it once)",
			    k, g->tensors[t].index, g->ops[op].name, c->dev[dev].name);
			goto out;
		}
		seen[slot] = 1;
		pc->p->tprio[slot] = v->valuedouble;
		k++;
	}
	rc = 0;
out:
	free(seen);
	return rc;
}

/* Parse a placement against a graph and cluster. */
struct pl_placement *
pl_placement_parse_json(const char *text, size_t len, const char *name,
    const struct pl_graph *g, const struct pl_cluster *c, char **warning,
    char **cause)
{
	if (warning != NULL)
		*warning = NULL;
	struct ctx x = { .name = name, .text = text, .len = len,
	    .what = "a placement (expected a placelab JSON placement file)" };
	struct place_ctx pc = { .x = &x, .g = g, .c = c };
	cJSON *root = parse_text(&x);
	x.root = root;
	const char *for_graph = NULL, *for_cluster = NULL;
	if (root == NULL || check_root_format(&x, root, PL_FORMAT_PLACEMENT) != 0 ||
	    read_members(&x, root, "", placement_keys, PK_NKEYS, pc.f) != 0)
		goto out;
	const char **named[] = { &for_graph, &for_cluster };
	for (int k = PK_GRAPH; k <= PK_CLUSTER; k++)
		if (str_of(pc.f[k], named[k - PK_GRAPH]) != 0) {
			fail_item(&x, pc.f[k], 0, "field '%s' (expected the name of the %s placed)", placement_keys[k], placement_keys[k]);
			goto out;
		}
	int other_graph = for_graph != NULL && strcmp(for_graph, g->name) != 0;
	int other_cluster = for_cluster != NULL && strcmp(for_cluster, c->name) != 0;
	if (other_graph)
		snprintf(pc.ghint, sizeof pc.ghint, " (the file places graph '%.*s%s')", PL_SHOWN(for_graph));
	if (other_cluster)
		snprintf(pc.chint, sizeof pc.chint, " (the file places on cluster '%.*s%s')",
		    PL_SHOWN(for_cluster));
	const cJSON *devs = pc.f[PK_DEVICES], *prio = pc.f[PK_PRIO];
	if (devs == NULL) {
		x.err = pl_xasprintf("%s: missing 'devices' object (expected {\"op\": \"/gpu:0\", ...})", name);
		goto out;
	}
	if (!cJSON_IsObject(devs)) {
		fail_item(&x, devs, 0, "'devices' (expected an object {\"op\": \"/gpu:0\", ...})");
		goto out;
	}
	if (prio != NULL && !cJSON_IsObject(prio)) {
		fail_item(&x, prio, 0, "'priorities' (expected an object of op: number)");
		goto out;
	}
	pc.p = pl_placement_new(g->n_ops, c->n_dev);
	pc.entry = pl_xcalloc(g->n_ops, sizeof *pc.entry);
	pl_strmap_init(&pc.names, (size_t)g->n_ops);
	for (int v = 0; v < g->n_ops; v++)
		pl_strmap_put(&pc.names, g->ops[v].name, v);
	if (read_devices(&pc) != 0 || (prio != NULL && read_priorities(&pc) != 0) ||
	    (pc.f[PK_TPRIO] != NULL && read_tensor_priorities(&pc) != 0))
		goto out;
	/* what the placement means (constraints, colocation), at the
	 * op's entry */
	char *verr = NULL;
	int bad;
	if (pl_placement_check_op(pc.p, g, c, &verr, &bad) != 0) {
		if (bad >= 0 && pc.entry[bad] != NULL)
			fail_item(&x, pc.entry[bad], 0, "%s", verr);
		else
			x.err = pl_xasprintf("%s: %s", name, verr);
		free(verr);
		goto out;
	}
	/* Same ops and devices under other names: a renamed graph or cluster
	 * file, or the wrong placement; it loads, but say so. */
	char *gpart = other_graph ? pl_xasprintf("graph '%s' (not '%s')", for_graph, g->name) : NULL;
	char *cpart = other_cluster ? pl_xasprintf("cluster '%s' (not '%s')", for_cluster, c->name) : NULL;
	if (other_graph || other_cluster)
		warn_item(&x, warning, pc.f[other_graph ? PK_GRAPH : PK_CLUSTER],
		    "the placement names %s%s%s; its ops and devices match, so it is used",
		    gpart ? gpart : "", other_graph && other_cluster ? " and " : "", cpart ? cpart : "");
	free(gpart);
	free(cpart);
out:
	pl_strmap_free(&pc.names);
	free(pc.entry);
	cJSON_Delete(root);
	if (x.err != NULL) {
		pl_placement_free(pc.p);
		*cause = x.err;	/* (the warning is the last check) */
		return NULL;
	}
	return pc.p;
}

/* Load a placement file. */
struct pl_placement *
pl_placement_load_json(const char *path, const struct pl_graph *g,
    const struct pl_cluster *c, char **warning, char **cause)
{
	if (warning != NULL)
		*warning = NULL;
	size_t len;
	char *text = pl_file_read(path, &len, cause);
	if (text == NULL)
		return NULL;
	struct pl_placement *p = pl_placement_parse_json(text, len, path, g, c, warning, cause);
	free(text);
	return p;
}

/* Serialise a placement. */
char *
pl_placement_to_json(const struct pl_placement *p, const struct pl_graph *g,
    const struct pl_cluster *c)
{
	struct pl_strbuf s = { 0 };
	pl_sb_printf(&s, "{\n\"format\": \"%s\",\n\"graph\": ", PL_FORMAT_PLACEMENT);
	pl_sb_json_str(&s, g->name);
	pl_sb_printf(&s, ",\n\"cluster\": ");
	pl_sb_json_str(&s, c->name);
	pl_sb_printf(&s, ",\n\"devices\": {\n");
	for (int v = 0; v < g->n_ops; v++) {
		pl_sb_json_str(&s, g->ops[v].name);
		pl_sb_put(&s, ": ", 2);
		pl_sb_json_str(&s, c->dev[p->dev[v]].name);
		pl_sb_printf(&s, "%s\n", v + 1 < g->n_ops ? "," : "");
	}
	pl_sb_printf(&s, "}");
	if (p->prio != NULL) {
		pl_sb_printf(&s, ",\n\"priorities\": {\n");
		for (int v = 0; v < g->n_ops; v++) {
			pl_sb_json_str(&s, g->ops[v].name);
			pl_sb_put(&s, ": ", 2);
			sb_num(&s, p->prio[v]);
			pl_sb_printf(&s, "%s\n", v + 1 < g->n_ops ? "," : "");
		}
		pl_sb_printf(&s, "}");
	}
	if (p->tprio != NULL && p->n_tensors == g->n_tensors) {
		pl_sb_printf(&s, ",\n\"tensor_priorities\": [\n");
		for (int t = 0; t < g->n_tensors; t++)
			for (int d = 0; d < c->n_dev; d++) {
				pl_sb_put(&s, "[", 1);
				pl_sb_json_str(&s, g->ops[g->tensors[t].op].name);
				pl_sb_printf(&s, ", %d, ", g->tensors[t].index);
				pl_sb_json_str(&s, c->dev[d].name);
				pl_sb_put(&s, ", ", 2);
				sb_num(&s, p->tprio[(size_t)t * c->n_dev + d]);
				pl_sb_printf(&s, "]%s\n", t + 1 < g->n_tensors || d + 1 < c->n_dev ? "," : "");
			}
		pl_sb_printf(&s, "]");
	}
	pl_sb_printf(&s, "\n}\n");
	return pl_sb_take(&s);
}

/* Save a placement atomically. */
int
pl_placement_save_json(const struct pl_placement *p, const struct pl_graph *g,
    const struct pl_cluster *c, const char *path, char **cause)
{
	char *text = pl_placement_to_json(p, g, c);
	int rc = pl_file_write_atomic(path, text, strlen(text), cause);
	free(text);
	return rc;
}
