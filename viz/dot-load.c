/*
 * dot-load — read a graph written in DOT with cgraph.
 *
 * Node attributes: type, scope, flops, param_bytes, out_bytes, temp_bytes,
 * measured_cpu_us / measured_gpu_us / measured_tpu_us, group, device; edge
 * attributes: bytes, output.  Everything a DOT user writes by hand (quoted
 * names with spaces, subgraphs and clusters, default attribute statements,
 * undirected graphs as a mistake) is handled: subgraph members are ordinary
 * nodes, defaults apply through cgraph's attribute lookup.  Nodes keep their
 * order of first appearance; edges keep the order they were written.  A
 * strict graph is read as one that is not, and its repeated edges merged
 * here, so that each statement keeps its line and values that disagree
 * are refused rather than overwritten.
 * Other attributes (label, color, ...) are Graphviz's and are ignored.
 *
 * cgraph keeps no line numbers, so a small scanner over the text finds
 * them (best effort): a node's line is that of its first statement with
 * an attribute list, else of its first mention; an edge's is that of its
 * "->", an edge to or from a subgraph's too (cgraph makes one from each
 * tail node to each head node: so does the scanner); an edge it cannot
 * place falls back to its head node's line.  The scanner also sees what
 * cgraph cannot: an attribute set to "" (not the same as unset), an
 * attribute one edit away from placelab's ("flop") or placelab's node
 * attribute on an edge and the reverse (Graphviz ignores them silently),
 * and text after the graph (cgraph reads one and stops); and before
 * cgraph reads the text, it refuses what cgraph's parser cannot take
 * (nesting and chains past its stack, subgraphs past its memory).
 *
 * Invariant: the result is built through core's graph builder, so DOT input
 * gets exactly the same validation as JSON, and every error reads
 * "FILE:LINE: ...".
 */
#include "viz/load.h"

#include <ctype.h>
#include <graphviz/cgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "io.h"
#include "strmap.h"
#include "xmalloc.h"

static char dot_err[1024];

/* cgraph's error callback: messages arrive in pieces ("Error", ": ",
 * "syntax error in line 3 near ','\n"); keep the first whole message. */
static int
capture_error(char *msg)
{
	size_t n = strlen(dot_err);
	if (n > 0 && dot_err[n - 1] == '\n')
		return 0;
	snprintf(dot_err + n, sizeof dot_err - n, "%s", msg);
	return 0;
}

/* Whether line `line` of the text sets an attribute to an unquoted
 * number with an exponent or a sign (flops=1e9), which DOT cannot read. */
static int
bare_number_on_line(const char *s, size_t n, int line)
{
	size_t i = 0;
	for (int l = 1; l < line && i < n; i++)
		l += s[i] == '\n';
	for (; i < n && s[i] != '\n'; i++) {
		if (s[i] != '=')
			continue;
		size_t j = i + 1;
		while (j < n && (s[j] == ' ' || s[j] == '\t'))
			j++;
		int sign = j < n && (s[j] == '+' || s[j] == '-');
		size_t d = j + (size_t)sign;
		while (d < n && (isdigit((unsigned char)s[d]) || s[d] == '.'))
			d++;
		if (d > j + (size_t)sign && ((d < n && (s[d] == 'e' || s[d] == 'E')) || (sign && s[j] == '+')))
			return 1;
	}
	return 0;
}

/* A bracket of the text not closed where it should be. */
struct open_bracket {
	char ch;		/* '{' or '[' (0: none); '"' a quoted string,
				 * '*' a comment, '<' an HTML string */
	int line;		/* where it opened */
	int at_end;		/* still open at the end of the text */
};

/* The first bracket of the text left open: one that a closing bracket of
 * the other kind meets (a ']' missing before a '}'), or the innermost
 * one still open at the end (a file cut short); quoted strings, HTML
 * strings and comments are skipped, or are what is open at the end. */
static struct open_bracket
open_bracket(const char *s, size_t n)
{
	char st[64];
	int sl[64], depth = 0, line = 1, deep = 0;	/* deep: beyond st */
	for (size_t i = 0; i < n; i++) {
		int from = line;
		if (s[i] == '\n') {
			line++;
		} else if (s[i] == '"' || s[i] == '<') {
			/* a quoted string, or an HTML one: <...> nested */
			int nest = 0;
			char q = s[i];
			for (i++; i < n; i++) {
				line += s[i] == '\n';
				if (q == '"' && s[i] == '\\' && i + 1 < n)
					line += s[++i] == '\n';
				else if (q == '"' && s[i] == '"')
					break;
				else if (q == '<' && s[i] == '<')
					nest++;
				else if (q == '<' && s[i] == '>' && nest-- == 0)
					break;
			}
			if (i >= n)
				return (struct open_bracket){ q, from, 1 };
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				line += s[i] == '\n';
			if (i + 1 >= n)
				return (struct open_bracket){ '*', from, 1 };
			i++;
		} else if ((s[i] == '/' && i + 1 < n && s[i + 1] == '/') || s[i] == '#') {
			while (i + 1 < n && s[i + 1] != '\n')
				i++;
		} else if (s[i] == '{' || s[i] == '[') {
			if (depth < (int)sizeof st) {
				st[depth] = s[i];
				sl[depth] = line;
			}
			deep |= ++depth > (int)sizeof st;
		} else if (s[i] == '}' || s[i] == ']') {
			if (depth > 0 && !deep && st[depth - 1] != (s[i] == '}' ? '{' : '['))
				return (struct open_bracket){ st[depth - 1], sl[depth - 1], 0 };
			depth -= depth > 0;
		}
	}
	if (depth > 0 && !deep)	/* (nested deeper than st: not said) */
		return (struct open_bracket){ st[depth - 1], sl[depth - 1], 1 };
	return (struct open_bracket){ 0, 0, 0 };
}

/* What was expected at a syntax error (see syntax_error); into buf. */
static const char *
expected_there(const char *text, size_t len, char *buf, size_t bn)
{
	if (memchr(text, '{', len) == NULL)
		return " (expected a graph: digraph NAME { a -> b; ... })";
	struct open_bracket o = open_bracket(text, len);
	if (o.ch == '"' || o.ch == '*' || o.ch == '<')
		snprintf(buf, bn, " (the %s that opens on line %d never ends: expected its closing %s)",
		    o.ch == '"' ? "quoted string" : o.ch == '*' ? "comment" : "HTML string",
		    o.line, o.ch == '"' ? "'\"'" : o.ch == '*' ? "'*/'" : "'>'");
	else if (o.ch == '{' && o.at_end)
		snprintf(buf, bn, " (the file ends inside the graph: expected the rest of it, "
		    "up to its closing '}')");
	else if (o.ch == '[' && o.at_end)
		snprintf(buf, bn, " (the file ends inside the graph, in the '[' of line %d: "
		    "expected the rest of it)", o.line);
	else if (o.ch != 0)
		snprintf(buf, bn, " (expected the '%c' that closes the '%c' of line %d)",
		    o.ch == '{' ? '}' : ']', o.ch, o.line);
	else
		snprintf(buf, bn, " (expected statements such as a -> b [bytes=\"4096\"]; or "
		    "a [flops=\"1e9\"]; inside digraph NAME { })");
	return buf;
}

/* cgraph's message as "FILE:LINE: DOT syntax error near ..." (its line
 * moved to the front), with what was expected: a number DOT needs
 * quoted, the rest of a file cut short, or a statement. */
static char *
syntax_error(const char *file, const char *text, size_t len)
{
	size_t n = strlen(dot_err);
	while (n > 0 && (dot_err[n - 1] == '\n' || dot_err[n - 1] == ' '))
		dot_err[--n] = '\0';
	const char *p = dot_err;
	if (strncmp(p, "Error: ", 7) == 0)
		p += 7;
	const char *in = strstr(p, " in line ");
	int line, used = 0;
	for (char *nl; (nl = strchr(dot_err, '\n')) != NULL;)	/* one line */
		*nl = ' ';
	char wb[160];
	const char *want = strstr(p, "memory exhausted") != NULL ?
	    " (the parser's stack ran out: expected fewer edges chained in one statement "
	    "and shallower subgraphs)" : expected_there(text, len, wb, sizeof wb);
	if (in != NULL && sscanf(in, " in line %d%n", &line, &used) == 1)
		return pl_xasprintf("%s:%d: DOT %.*s%s%s", file, line, (int)(in - p), p, in + used,
		    bare_number_on_line(text, len, line) ?
		    " (a number with an exponent or a '+' must be quoted in DOT: flops=\"1e9\")" : want);
	return pl_xasprintf("%s:1: DOT %s%s", file, p, want);
}

/* The most subgraphs a DOT file may nest (inside the graph's own
 * braces), and the most edges one statement may chain (a -> b -> c ...):
 * far beyond any graph's scopes or chains, well within what cgraph's
 * parser takes (past about 3,000 levels or 2,000 edges its stack runs
 * out: it returns what it read so far, and its next parse in the process
 * fails too). */
#define DOT_MAX_NESTING 1000
#define DOT_MAX_CHAIN 1000

/* ---- lines from the text ------------------------------------------------ */

/* A token of DOT: an ID (name, number or quoted string), an edge operator
 * ('>' for -> and --) or one punctuation character. */
struct tok {
	char kind;		/* 'i', '>', or the character */
	int line;
	const char *s;		/* ID text (inside the quotes) */
	size_t n;
	int quoted;
};

/* Numeric attributes: an explicit "" is an error, not "unset". */
static const char *const num_attrs[] = { "flops", "param_bytes", "out_bytes",
	"temp_bytes", "measured_cpu_us", "measured_gpu_us", "measured_tpu_us",
	"bytes", "output" };

/* An edge as written: between two nodes, or a pair of the nodes of
 * subgraphs at its ends. */
struct occ {
	int tail, head, line, seq;
	int stmt;		/* its statement (a number per statement) */
	int own;		/* the statement's attribute list sets bytes (1), output (2) */
};

/* Where things are in the text. */
struct dot_lines {
	struct pl_strmap nodes;	/* node name -> index */
	int *node_line;		/* first mention */
	int *attr_line;		/* first node statement with an attribute list */
	struct occ *occ;	/* edge statements, sorted by (tail, head, seq) */
	int *used;		/* per occ: edges matched to the pair so far */
	int n_occ, cap_occ;
	int n_stmt;		/* statements numbered so far */
	int graph_line;
	int after_line;		/* a token after the graph's closing brace */
	int empty_line;		/* first numeric, device or group attribute set to "" */
	char empty_attr[32];
	const char *empty_expect;	/* what it takes */
	char empty_subject[300];	/* "node 'a'", "an edge statement", ... */
	int odd_line;		/* first placelab-like attribute misspelt or misplaced */
	char odd_msg[400];
};

/* placelab's attributes of nodes and of edges. */
static const char *const node_attrs[] = { "type", "scope", "flops", "param_bytes",
	"out_bytes", "temp_bytes", "measured_cpu_us", "measured_gpu_us", "measured_tpu_us",
	"group", "device" };
static const char *const edge_attrs[] = { "bytes", "output" };
#define N_NODE_ATTRS (sizeof node_attrs / sizeof node_attrs[0])
#define N_EDGE_ATTRS (sizeof edge_attrs / sizeof edge_attrs[0])

/* What the parser's copy of the text changes (parser_text()): where
 * lines that start with '#' are (cgraph takes `# 12 "f"` and `#line 12`
 * there for line directives), and line breaks inside quoted strings
 * (cgraph counts no line for those, but for one after a '\'). */
struct lex_marks {
	size_t *hash, *qnl;	/* offsets of those '#' and line breaks */
	int n_hash, n_qnl, cap_hash, cap_qnl;
};

/* Add offset i to a list of marks. */
static void
mark_at(size_t **a, int *n, int *cap, size_t i)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*a = pl_xreallocarray(*a, *cap, sizeof **a);
	}
	(*a)[(*n)++] = i;
}

/* Split text into tokens, as cgraph's scanner does; skips white space
 * and comments ('#' to the end of its line too); notes the marks. */
static int
tokenize(const char *s, size_t n, struct tok **out, struct lex_marks *m)
{
	int cnt = 0, cap = 256, line = 1;
	struct tok *t = pl_xmalloc(sizeof *t * cap);
	size_t i = 0;
	while (i < n) {
		char c = s[i];
		if (c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			line += c == '\n';
			i++;
			continue;
		}
		if (c == '#' || (c == '/' && i + 1 < n && s[i + 1] == '/')) {
			if (c == '#' && (i == 0 || s[i - 1] == '\n'))
				mark_at(&m->hash, &m->n_hash, &m->cap_hash, i);
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'); i++)
				line += s[i] == '\n';
			i += 2;
			continue;
		}
		if (cnt == cap) {
			cap *= 2;
			t = pl_xreallocarray(t, cap, sizeof *t);
		}
		struct tok *k = &t[cnt++];
		*k = (struct tok){ 'i', line, s + i, 0, 0 };
		if (c == '"' || c == '<') {
			/* a quoted string, or an HTML string in nested <> */
			size_t a = ++i;
			int depth = 1;
			for (; i < n; i++) {
				if (c == '"' && s[i] == '\\' && i + 1 < n)
					line += s[++i] == '\n';
				else if (c == '"' && s[i] == '"')
					break;
				else if (c == '<' && (depth += (s[i] == '<') - (s[i] == '>')) == 0)
					break;
				else if (s[i] == '\n' && c == '"')
					mark_at(&m->qnl, &m->n_qnl, &m->cap_qnl, i), line++;
				else
					line += s[i] == '\n';
			}
			k->s = s + a;
			k->n = i - a;
			k->quoted = 1;
			i++;
		} else if (c == '-' && i + 1 < n && (s[i + 1] == '>' || s[i + 1] == '-')) {
			k->kind = '>';
			i += 2;
		} else if (isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || (unsigned char)c >= 0x80) {
			size_t a = i;
			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || (unsigned char)s[i] >= 0x80 ||
			    (s[i] == '-' && !(i + 1 < n && (s[i + 1] == '>' || s[i + 1] == '-')))))
				i++;
			k->n = i - a;
		} else {
			k->kind = c;
			i++;
		}
	}
	*out = t;
	return cnt;
}

/* The ID's text as cgraph reads it (\" unescaped, line continuations
 * dropped) in buf; NULL when it does not fit (k->n + 1 bytes always do). */
static const char *
tok_text(const struct tok *k, char *buf, size_t size)
{
	size_t j = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (k->quoted && k->s[i] == '\\' && i + 1 < k->n && (k->s[i + 1] == '"' || k->s[i + 1] == '\n'))
			if (k->s[++i] == '\n')
				continue;
		if (j + 1 >= size)
			return NULL;
		buf[j++] = k->s[i];
	}
	buf[j] = '\0';
	return buf;
}

/* Whether token k is the unquoted keyword kw (any case). */
static int
is_kw(const struct tok *k, const char *kw)
{
	return k->kind == 'i' && !k->quoted && k->n == strlen(kw) && strncasecmp(k->s, kw, k->n) == 0;
}

/* Whether token k is the unquoted word w. */
static int
is_word(const struct tok *k, const char *w)
{
	return k->kind == 'i' && k->n == strlen(w) && strncmp(k->s, w, k->n) == 0;
}

/* Whether a and b (lengths na, nb) are one edit apart: a character
 * inserted, deleted, replaced, or two neighbours swapped. */
static int
one_edit(const char *a, size_t na, const char *b, size_t nb)
{
	if (na > nb)
		return one_edit(b, nb, a, na);
	if (nb - na > 1)
		return 0;
	size_t i = 0;
	while (i < na && a[i] == b[i])
		i++;
	if (na == nb)
		return i < na && (strncmp(a + i + 1, b + i + 1, na - i - 1) == 0 ||
		    (i + 1 < na && a[i] == b[i + 1] && a[i + 1] == b[i] &&
		    strncmp(a + i + 2, b + i + 2, na - i - 2) == 0));
	return strncmp(a + i, b + i + 1, na - i) == 0;
}

/* In list[0..n), the attribute k names exactly (2) or nearly (1), else 0;
 * *near gets the name. */
static int
attr_match(const struct tok *k, const char *const *list, size_t n, const char **near)
{
	for (size_t a = 0; a < n; a++)
		if (is_word(k, list[a]))
			return 2;
	for (size_t a = 0; a < n; a++)
		if (k->n >= 3 && one_edit(k->s, k->n, list[a], strlen(list[a]))) {
			*near = list[a];
			return 1;
		}
	return 0;
}

/*
 * What is wrong with attribute k of a node ('n') or an edge ('e'), if it
 * looks like placelab's but is not (other names are Graphviz's): the
 * message in buf, or NULL.
 */
static const char *
odd_attr(const struct tok *k, char who, char *buf, size_t size)
{
	const char *near = NULL;
	int own = attr_match(k, who == 'n' ? node_attrs : edge_attrs,
	    who == 'n' ? N_NODE_ATTRS : N_EDGE_ATTRS, &near);
	if (own == 2)
		return NULL;
	const char *other = NULL;
	if (attr_match(k, who == 'n' ? edge_attrs : node_attrs,
	    who == 'n' ? N_EDGE_ATTRS : N_NODE_ATTRS, &other) == 2 && !is_word(k, "group"))
		snprintf(buf, size, "attribute '%.*s' belongs on %s, not on %s", (int)k->n, k->s,
		    who == 'n' ? "edges" : "nodes", who == 'n' ? "nodes" : "edges");
	else if (k->n > 9 && strncmp(k->s, "measured_", 9) == 0)
		snprintf(buf, size, "unknown attribute '%.*s' (expected measured_cpu_us, measured_gpu_us or measured_tpu_us)",
		    (int)k->n, k->s);
	else if (own == 1)
		snprintf(buf, size, "unknown attribute '%.*s' (expected '%s')", (int)k->n, k->s, near);
	else
		return NULL;
	return buf;
}

/* Scan the attribute list after '[' at t[i] (of a node 'n', an edge 'e'
 * or anything else; a `node [...]` default line when dflt) for a
 * numeric attribute set to "", a node's device or group set to "" (but
 * in a default line, where "" undoes an earlier default), and a
 * misspelt or misplaced attribute; returns the index of its ']'. */
static int
scan_attrs(struct dot_lines *L, const struct tok *t, int n, int i, const char *subject, char who,
    int dflt)
{
	for (; i < n && t[i].kind != ']'; i++) {
		char msg[160];
		const char *odd;
		if (L->odd_line == 0 && t[i].kind == 'i' && i + 1 < n && t[i + 1].kind == '=' &&
		    (who == 'n' || who == 'e') && (odd = odd_attr(&t[i], who, msg, sizeof msg)) != NULL) {
			L->odd_line = t[i].line;
			snprintf(L->odd_msg, sizeof L->odd_msg, "%s: %s", subject, odd);
		}
		if (L->empty_line != 0 || t[i].kind != 'i' || i + 2 >= n || t[i + 1].kind != '=' ||
		    t[i + 2].kind != 'i' || t[i + 2].n != 0)
			continue;
		for (size_t a = 0; a < sizeof num_attrs / sizeof num_attrs[0]; a++)
			if (is_word(&t[i], num_attrs[a]))
				L->empty_expect = "a decimal number";
		if (who == 'n' && !dflt && is_word(&t[i], "device"))
			L->empty_expect = "a device name such as /gpu:0, a kind cpu, gpu or tpu, or any";
		else if (who == 'n' && !dflt && is_word(&t[i], "group"))
			L->empty_expect = "a colocation group's name";
		if (L->empty_expect != NULL) {
			L->empty_line = t[i].line;
			snprintf(L->empty_attr, sizeof L->empty_attr, "%.*s", (int)t[i].n, t[i].s);
			snprintf(L->empty_subject, sizeof L->empty_subject, "%s", subject);
		}
	}
	return i;
}

/* Order edge statements by pair, then as written. */
static int
occ_cmp(const void *a, const void *b)
{
	const struct occ *x = a, *y = b;
	if (x->tail != y->tail)
		return x->tail < y->tail ? -1 : 1;
	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Append v to the list *a (*n items, room for *cap). */
static void
push_int(int **a, int *n, int *cap, int v)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*a = pl_xreallocarray(*a, *cap, sizeof **a);
	}
	(*a)[(*n)++] = v;
}

/* One brace level of find_lines(): the statement being read there. */
struct line_level {
	int open;		/* its '{' (a token index) */
	int named;		/* a named subgraph's index in the names, or -1 */
	int *in, n_in, cap_in;	/* the nodes named inside, nested ones too, once each */
	int *tail, n_tail, cap_tail;	/* the last operand's nodes */
	int prev;		/* the last operand when it is one node, else -1 */
	int operands, edge, pending, edge_line;
	int stmt, first_occ;	/* the statement's number and its first edge */
	char kw;		/* after node, edge or graph: 'n', 'e', 'g' */
};

/* A subgraph named NAME inside another: its nodes, as many times as it
 * was opened (cgraph's subgraph of that name holds them all). */
struct named_subgraph {
	char *key;		/* "SCOPE NAME" */
	int *nodes, n, cap;
};

/* The key of the subgraph named by token name inside the subgraph
 * around it (cgraph looks a name up there only): that subgraph's name
 * index when it has a name (named >= 0), else the token of its '{'
 * (open; -1 for the graph itself).  Caller frees. */
static char *
subgraph_key(const struct tok *name, int named, int open)
{
	char *nb = pl_xmalloc(name->n + 1);
	const char *nm = tok_text(name, nb, name->n + 1);
	char *key = named >= 0 ? pl_xasprintf("n%d %s", named, nm) : pl_xasprintf("a%d %s", open, nm);
	free(nb);
	return key;
}

/* The statement at level c takes an operand: a node (single, or -1 for
 * a name cgraph made no node of) or a subgraph, whose nodes are
 * nodes[0..k): after an edge operator, an edge from each of the last
 * operand's nodes to each of these, at the operator's line.  The caller
 * then makes them c's tail. */
static void
take_operand(struct dot_lines *L, struct line_level *c, const int *nodes, int k, int single)
{
	if (!c->pending) {	/* the first operand of a statement */
		c->stmt = ++L->n_stmt;
		c->first_occ = L->n_occ;
	}
	if (c->pending)
		for (int a = 0; a < c->n_tail; a++)
			for (int b = 0; b < k; b++) {
				if (L->n_occ == L->cap_occ) {
					L->cap_occ = L->cap_occ ? 2 * L->cap_occ : 64;
					L->occ = pl_xreallocarray(L->occ, L->cap_occ, sizeof *L->occ);
				}
				L->occ[L->n_occ] = (struct occ){ c->tail[a], nodes[b], c->edge_line, L->n_occ, c->stmt, 0 };
				L->n_occ++;
			}
	else if (c->operands > 0)
		c->operands = c->edge = 0;	/* a new statement */
	c->prev = single;
	c->operands++;
	c->pending = 0;
}

/* A new statement at level c. */
static void
end_statement(struct line_level *c)
{
	c->prev = -1;
	c->operands = c->edge = c->pending = c->kw = 0;
	c->n_tail = 0;
}

/*
 * Find the lines of the nodes (nodes[0..n_nodes)) and edge statements in
 * the text's tokens t[0..n).  Statements are told apart well enough to skip keywords,
 * attribute names and values, subgraph names and ports; a statement ends
 * at ';', ',', braces, an attribute list or an ID that cannot continue it.
 * An edge to or from a subgraph is an edge to or from each node in it
 * (nested ones, and those of earlier subgraphs of its name, included),
 * as cgraph makes them.  Braces nest at most DOT_MAX_NESTING + 1 deep
 * (too_deep() refused the rest).
 */
static void
find_lines(struct dot_lines *L, const struct tok *t, int n, Agnode_t **nodes, int n_nodes)
{
	memset(L, 0, sizeof *L);
	pl_strmap_init(&L->nodes, (size_t)n_nodes);
	L->node_line = pl_xcalloc(n_nodes + 1, sizeof *L->node_line);
	L->attr_line = pl_xcalloc(n_nodes + 1, sizeof *L->attr_line);
	for (int v = 0; v < n_nodes; v++)
		pl_strmap_put(&L->nodes, agnameof(nodes[v]), v);
	/* per node: the token of its last mention (inside a subgraph when
	 * after its '{'), and a mark for removing repeats from a list */
	int *seen = pl_xmalloc(sizeof *seen * (n_nodes + 1)), *mark = pl_xcalloc(n_nodes + 1, sizeof *mark);
	for (int v = 0; v < n_nodes; v++)
		seen[v] = -1;
	int max_levels = DOT_MAX_NESTING + 3, level = 0, closed = 0, name_tok = -1, stamp = 0;
	struct line_level *lv = pl_xcalloc(max_levels, sizeof *lv);
	struct pl_strmap names;
	pl_strmap_init(&names, 16);
	struct named_subgraph *sub = NULL;
	int n_sub = 0;
	end_statement(&lv[0]);
	char buf[1024];
	for (int i = 0; i < n; i++) {
		const struct tok *k = &t[i];
		struct line_level *c = &lv[level];
		if (closed) {
			L->after_line = k->line;	/* cgraph reads one graph and stops */
			break;
		}
		if (k->kind == '>') {
			c->pending = c->edge = 1;
			c->edge_line = k->line;
		} else if (k->kind == '[') {
			char subject[300] = "default attributes";
			char who = c->kw;
			int own = 0;	/* bytes and output in an edge statement's lists */
			for (int j = i + 1; j + 1 < n && t[j].kind != ']' && !c->kw && c->edge; j++) {
				if (t[j + 1].kind == '=' && is_word(&t[j], "bytes"))
					own |= 1;
				else if (t[j + 1].kind == '=' && is_word(&t[j], "output"))
					own |= 2;
				if (t[j + 1].kind == ']' && j + 2 < n && t[j + 2].kind == '[')
					j += 2;	/* a [x=1] [y=2] */
			}
			for (int o = c->first_occ; o < L->n_occ && own; o++)
				if (L->occ[o].stmt == c->stmt)
					L->occ[o].own |= own;
			if (!c->kw && c->edge) {
				snprintf(subject, sizeof subject, "an edge statement");
				who = 'e';
			} else if (!c->kw && c->operands == 1 && c->prev >= 0) {
				const char *nm = agnameof(nodes[c->prev]);	/* a long name cut */
				snprintf(subject, sizeof subject, "node '%.80s%s'", nm, strlen(nm) > 80 ? "..." : "");
				who = 'n';
				if (L->attr_line[c->prev] == 0)
					L->attr_line[c->prev] = k->line;
			}
			i = scan_attrs(L, t, n, i + 1, subject, who, c->kw != 0);
			while (i + 1 < n && t[i + 1].kind == '[')	/* a [x=1] [y=2]: one statement's */
				i = scan_attrs(L, t, n, i + 2, subject, who, c->kw != 0);
			end_statement(c);
		} else if (k->kind == '{') {
			if (level + 1 >= max_levels)
				break;
			struct line_level *s = &lv[++level];
			s->open = i;
			s->named = -1;
			s->n_in = 0;
			end_statement(s);
			c->kw = 0;
			if (name_tok >= 0 && level >= 2) {
				/* cgraph names a subgraph within the one around it */
				struct line_level *up = &lv[level - 1];
				char *key = subgraph_key(&t[name_tok], up->named, level > 2 ? up->open : -1);
				if ((s->named = pl_strmap_get(&names, key)) < 0) {
					sub = pl_xreallocarray(sub, n_sub + 1, sizeof *sub);
					sub[n_sub] = (struct named_subgraph){ key, NULL, 0, 0 };
					pl_strmap_put(&names, key, s->named = n_sub++);
				} else {
					free(key);
				}
			}
			name_tok = -1;
		} else if (k->kind == '}') {
			if (level <= 1) {
				closed = level == 1;	/* the graph's end */
				level = 0;
				continue;
			}
			struct line_level *s = &lv[level--];
			c = &lv[level];
			int operand = c->pending || (i + 1 < n && t[i + 1].kind == '>');
			if (s->named >= 0) {
				struct named_subgraph *g = &sub[s->named];
				for (int j = 0; j < s->n_in; j++)
					push_int(&g->nodes, &g->n, &g->cap, s->in[j]);
				if (operand) {	/* all its nodes, once each */
					stamp++;
					int m = 0;
					for (int j = 0; j < g->n; j++)
						if (mark[g->nodes[j]] != stamp) {
							mark[g->nodes[j]] = stamp;
							g->nodes[m++] = g->nodes[j];
						}
					g->n = m;
					s->n_in = 0;
					for (int j = 0; j < m; j++)
						push_int(&s->in, &s->n_in, &s->cap_in, g->nodes[j]);
				}
			}
			take_operand(L, c, s->in, s->n_in, -1);
			int *tl = c->tail, tc = c->cap_tail;	/* its list is c's tail */
			c->tail = s->in;
			c->n_tail = s->n_in;
			c->cap_tail = s->cap_in;
			s->in = tl;
			s->n_in = 0;
			s->cap_in = tc;
		} else if (k->kind != 'i') {
			end_statement(c);
		} else if (is_kw(k, "node") || is_kw(k, "edge") || is_kw(k, "graph") || is_kw(k, "digraph") ||
		    is_kw(k, "strict") || is_kw(k, "subgraph")) {
			if (L->graph_line == 0 && (is_kw(k, "graph") || is_kw(k, "digraph")))
				L->graph_line = k->line;
			if (!is_kw(k, "node") && !is_kw(k, "edge") && !is_kw(k, "strict") && i + 1 < n && t[i + 1].kind == 'i') {
				i++;	/* the graph's or subgraph's name */
				if (is_kw(k, "subgraph") && i + 1 < n && t[i + 1].kind == '{')
					name_tok = i;
			}
			c->kw = is_kw(k, "node") ? 'n' : is_kw(k, "edge") ? 'e' :
			    is_kw(k, "subgraph") || is_kw(k, "strict") ? 0 : 'g';
			c->prev = -1;
		} else if (i + 1 < n && t[i + 1].kind == '=') {
			i += 2;	/* name = value */
			end_statement(c);
		} else {
			char *big = k->n >= sizeof buf ? pl_xmalloc(k->n + 1) : NULL;	/* a long name */
			const char *name = tok_text(k, big != NULL ? big : buf, big != NULL ? k->n + 1 : sizeof buf);
			int v = name != NULL ? pl_strmap_get(&L->nodes, name) : -1;
			free(big);
			while (i + 2 < n && t[i + 1].kind == ':' && t[i + 2].kind == 'i')
				i += 2;	/* node:port:compass */
			take_operand(L, c, &v, v >= 0, v);
			c->n_tail = 0;
			if (v < 0)	/* (not a node cgraph made) */
				continue;
			push_int(&c->tail, &c->n_tail, &c->cap_tail, v);
			if (L->node_line[v] == 0)
				L->node_line[v] = k->line;
			/* into the node lists of the subgraphs around it that do
			 * not have it yet (those further out then have it too) */
			for (int s = level; s >= 2 && seen[v] < lv[s].open; s--)
				push_int(&lv[s].in, &lv[s].n_in, &lv[s].cap_in, v);
			seen[v] = i;
		}
	}
	for (int s = 0; s < max_levels; s++) {
		free(lv[s].in);
		free(lv[s].tail);
	}
	for (int s = 0; s < n_sub; s++) {
		free(sub[s].key);
		free(sub[s].nodes);
	}
	free(sub);
	pl_strmap_free(&names);
	free(lv);
	free(mark);
	free(seen);
	if (L->n_occ > 0)
		qsort(L->occ, L->n_occ, sizeof *L->occ, occ_cmp);
	L->used = pl_xcalloc(L->n_occ + 1, sizeof *L->used);
}

/* The line of the next edge from u to v (edges asked for as written);
 * *own gets which of bytes (1) and output (2) its statement's attribute
 * list sets (both when it is not found). */
static int
edge_line(struct dot_lines *L, int u, int v, int *own)
{
	*own = 3;
	int lo = 0, hi = L->n_occ;
	struct occ key = { u, v, 0, -1, 0, 0 };
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (occ_cmp(&L->occ[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= L->n_occ || L->occ[lo].tail != u || L->occ[lo].head != v)
		return L->node_line[v];
	int k = lo + L->used[lo]++;
	while (k > lo && (k >= L->n_occ || L->occ[k].tail != u || L->occ[k].head != v))
		k--;
	*own = L->occ[k].own;
	return L->occ[k].line;
}

/* Free what find_lines() made. */
static void
lines_free(struct dot_lines *L)
{
	pl_strmap_free(&L->nodes);
	free(L->node_line);
	free(L->attr_line);
	free(L->occ);
	free(L->used);
}

/* ---- attributes --------------------------------------------------------- */

/* Attribute text of an object, or NULL when unset or empty. */
static const char *
attr(void *obj, const char *name)
{
	char *v = agget(obj, (char *)name);
	return v != NULL && *v ? v : NULL;
}

/* A decimal number: [+-]digits[.digits][e[+-]digits] with optional
 * spaces around; no hex, inf or nan.  0 ok, -1 not one, -2 one beyond
 * a double's range (1e400). */
static int
decimal(const char *s, double *out)
{
	const char *p = s;
	while (*p == ' ')
		p++;
	const char *start = p;
	p += *p == '+' || *p == '-';
	int digits = 0;
	while (isdigit((unsigned char)*p))
		p++, digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (digits == 0)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		p += *p == '+' || *p == '-';
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	const char *end = p;
	while (*p == ' ')
		p++;
	if (*p != '\0')
		return -1;
	char *e;	/* strtod reads the same digits, whatever their number */
	double d = strtod(start, &e);
	if (e != end)
		return -1;
	if (!isfinite(d))
		return -2;
	*out = d;
	return 0;
}

/* Read number attribute `name` of obj into *out (absent keeps it) and
 * check it against [lo, hi] (whole: a whole number); on error returns
 * a message "attribute 'flops' is \"0x10\" (expected ...)" (caller frees). */
static char *
num_attr(void *obj, const char *name, double lo, double hi, int whole,
    const char *expected, double *out)
{
	const char *v = attr(obj, name);
	double d;
	if (v == NULL)
		return NULL;
	int r = decimal(v, &d);
	if (r == -2)
		return pl_xasprintf("attribute '%s' is \"%s\", out of range (expected %s)", name, v, expected);
	if (r != 0)
		return pl_xasprintf("attribute '%s' is \"%s\", not a decimal number (expected %s)", name, v, expected);
	if (d < lo || d > hi || (whole && d != floor(d)))
		return pl_xasprintf("attribute '%s' is %s (expected %s)", name, v, expected);
	*out = d;
	return NULL;
}

struct edge_ref {
	Agedge_t *e;
	IDTYPE seq;
};

/* Order edges as written. */
static int
edge_cmp(const void *a, const void *b)
{
	const struct edge_ref *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* An edge's values as read: bytes ([0]) and output ([1]). */
struct edge_val {
	int u, w;		/* tail and head ops */
	const char *tail, *head;	/* their names */
	int seq;		/* order as written */
	int line;		/* its statement's */
	double val[2];		/* the values (0 when unset) */
	const char *text[2];	/* as written, or NULL when unset */
	int from[2];		/* the line each value was written on */
	int own;		/* set in its statement's list: bytes (1), output (2) */
	int merged;		/* a strict graph's repeat, merged into an earlier edge */
};

/* Order edges by their ends, then as written. */
static int
val_cmp(const void *a, const void *b)
{
	const struct edge_val *x = *(const struct edge_val *const *)a, *y = *(const struct edge_val *const *)b;
	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * A strict graph has one edge from a to b however often it is written
 * (cgraph keeps the last value written in a repeat's attribute list; a
 * default, edge [...], reaches only the first): merge repeats
 * (vals[0..n), as written) into the first, which takes each value a
 * repeat's own list sets; one set there differently is an error at its
 * line (caller frees), not silently replaced.
 */
static char *
merge_repeats(struct edge_val *vals, int n, const char *name)
{
	static const char *const names[2] = { "bytes", "output" };
	struct edge_val **by = pl_xmalloc(sizeof *by * (n ? n : 1));
	for (int i = 0; i < n; i++)
		by[i] = &vals[i];
	qsort(by, n, sizeof *by, val_cmp);
	const struct edge_val *bad = NULL, *was = NULL;	/* the first conflict as written */
	int what = 0;
	for (int i = 0, j; i < n; i = j) {
		struct edge_val *first = by[i];
		for (j = i + 1; j < n && by[j]->u == first->u && by[j]->w == first->w; j++) {
			struct edge_val *x = by[j];
			x->merged = 1;
			for (int a = 0; a < 2; a++) {
				if (x->text[a] == NULL || !(x->own & (1 << a))) {
					continue;	/* (a default's: not applied to a repeat) */
				} else if (first->text[a] == NULL) {
					first->text[a] = x->text[a];
					first->val[a] = x->val[a];
					first->from[a] = x->from[a];
				} else if (x->val[a] != first->val[a] && (bad == NULL || x->seq < bad->seq)) {
					bad = x;
					was = first;
					what = a;
				}
			}
		}
	}
	free(by);
	if (bad == NULL)
		return NULL;
	return pl_xasprintf("%s:%d: edge '%s' -> '%s': attribute '%s' is %s here but %s for the same edge "
	    "on line %d (expected the same value; a strict graph has one edge per pair: use digraph for "
	    "several)", name, bad->line,
	    bad->tail, bad->head, names[what], bad->text[what], was->text[what], was->from[what]);
}

/* Read one node into the builder; a message on error (caller frees). */
static char *
read_node(struct pl_graph_builder *b, Agnode_t *n)
{
	static const char *const kinds[] = { "measured_cpu_us", "measured_gpu_us", "measured_tpu_us" };
	static const char *const bytes[] = { "param_bytes", "out_bytes", "temp_bytes" };
	const char *bytes_range = "a whole number of bytes in [0, 2^50]";
	struct pl_op op;
	memset(&op, 0, sizeof op);
	double by[3] = { 0, 0, 0 };
	char *err = NULL;
	for (int k = 0; k < PL_DEV_KIND_COUNT && err == NULL; k++) {
		op.measured_us[k] = -1;
		err = num_attr(n, kinds[k], 0, 1e12, 0, "a time in us in [0, 1e12]; leave it out when not measured",
		    &op.measured_us[k]);
	}
	if (err == NULL)
		err = num_attr(n, "flops", 0, PL_MAX_FLOPS, 0, "a number of FLOPs in [0, 1e18]", &op.flops);
	for (int k = 0; k < 3 && err == NULL; k++)
		err = num_attr(n, bytes[k], 0, (double)PL_MAX_BYTES, 1, bytes_range, &by[k]);
	if (err != NULL) {
		char *m = pl_xasprintf("node '%s': %s", agnameof(n), err);
		free(err);
		return m;
	}
	op.param_bytes = (int64_t)by[0];
	op.out_bytes = attr(n, "out_bytes") != NULL ? (int64_t)by[1] : PL_OUT_BYTES_SUM;
	op.temp_bytes = (int64_t)by[2];
	op.name = agnameof(n);
	op.type = (char *)attr(n, "type");
	op.scope = (char *)attr(n, "scope");
	const char *dev = attr(n, "device");
	if (dev != NULL && strcmp(dev, "any") != 0) {
		int k = pl_dev_kind_parse(dev);
		op.cons.kind = k >= 0 ? PL_CONS_KIND : PL_CONS_DEVICE;
		op.cons.dev_kind = k >= 0 ? k : 0;
		op.cons.device = k >= 0 ? NULL : (char *)dev;
	}
	pl_graph_add_op(b, &op, attr(n, "group"));
	return NULL;
}

/* Why the text (its tokens t[0..n)) is too deep or too long in one
 * statement for the parser (caller frees), or NULL.  A chain is counted per brace level: a
 * subgraph that is one end of an edge ({ a b } -> c) keeps the chain it
 * is part of, and its own statements count on their own.  An undirected
 * graph is refused here, as the reader would refuse it. */
static char *
too_deep(const struct tok *t, int n, const char *name)
{
	int braces = 0;	/* the graph's own and its subgraphs' */
	/* by brace level: the edges chained in its statement so far, and
	 * those of the statements around it that wait on the parser's stack
	 * (a subgraph at an edge's end is read inside its chain) */
	int *chain = pl_xcalloc(DOT_MAX_NESTING + 3, sizeof *chain);
	int *below = pl_xcalloc(DOT_MAX_NESTING + 3, sizeof *below);
	char *why = NULL;
	int first = n > 0 && is_kw(&t[0], "strict");
	if (first < n && is_kw(&t[first], "graph")) {
		/* said as the reader would say it, before its chains (which
		 * the parser may not take) */
		const struct tok *nm = first + 1 < n && t[first + 1].kind == 'i' ? &t[first + 1] : NULL;
		char *buf = nm != NULL ? pl_xmalloc(nm->n + 1) : NULL;
		const char *tx = nm != NULL ? tok_text(nm, buf, nm->n + 1) : NULL;
		char *gname = tx != NULL && *tx != '\0' ? pl_xstrdup(tx) : pl_name_from_path(name);
		why = pl_xasprintf("%s:%d: graph '%s' is undirected (expected 'digraph')", name,
		    t[first].line, gname);
		free(gname);
		free(buf);
		n = 0;
	}
	for (int i = 0; i < n && why == NULL; i++) {
		char k = t[i].kind, prev = i > 0 ? t[i - 1].kind : ';';
		char next = i + 1 < n ? t[i + 1].kind : ';';
		if (k == '{') {
			/* an edge's end (-> { or -> subgraph [NAME] {) is read
			 * inside its chain; any other brace starts a statement */
			int j = i - 1;
			if (j >= 0 && t[j].kind == 'i' && !is_kw(&t[j], "subgraph") && j >= 1 &&
			    is_kw(&t[j - 1], "subgraph"))
				j--;	/* a subgraph's name */
			if (j >= 0 && is_kw(&t[j], "subgraph"))
				j--;
			if (j < 0 || t[j].kind != '>')
				chain[braces] = 0;
			below[braces + 1] = below[braces] + chain[braces];
			chain[++braces] = 0;
		} else if (k == '}' && braces > 0) {
			braces--;
			if (next != '>')	/* the statement it is in ends */
				chain[braces] = 0;
		}
		/* a statement ends at ';', or where an ID follows an ID
		 * (not a subgraph's name) or an attribute list */
		if (k == ';' || (k == 'i' && ((prev == 'i' && !is_kw(&t[i - 1], "subgraph")) ||
		    prev == ']')))
			chain[braces] = 0;
		chain[braces] += k == '>';
		if (braces > DOT_MAX_NESTING + 1) {
			why = pl_xasprintf("%s:%d: subgraphs nested more than %d deep here "
			    "(expected at most %d levels of subgraphs)", name, t[i].line,
			    DOT_MAX_NESTING, DOT_MAX_NESTING);
			break;
		} else if (below[braces] + chain[braces] > DOT_MAX_CHAIN)
			why = pl_xasprintf("%s:%d: one statement chains more than %d edges here%s "
			    "(expected at most %d: write a long a -> b -> c ... chain as one "
			    "a -> b; statement per edge)", name, t[i].line, DOT_MAX_CHAIN,
			    below[braces] > 0 ? ", counting the chains it is inside" : "", DOT_MAX_CHAIN);
	}
	free(below);
	free(chain);
	return why;
}

/* What the parser keeps of a text, in entries of cgraph's dictionaries
 * (about 100 bytes each): a node or an edge is filed in the graph and in
 * every subgraph around the statement that names or makes it; an edge
 * between subgraphs ({a b} -> {c d}) is an edge per pair of their nodes,
 * nested ones included; a subgraph takes about DOT_SUBGRAPH_ENTRIES; and each attribute name
 * given to nodes or edges (in a node or edge statement's list, or a
 * node [...] or edge [...] default) is a slot on every node and edge,
 * DOT_ATTR_SLOTS slots an entry (200 names on a million edges took 2 GB
 * from 11 KB).  A
 * flat graph takes about an entry per two bytes of text, but a few KB of
 * nested subgraphs took tens of GB (x0 -> { x1 -> { ... } } is cubic in
 * its depth; a thousand edges inside 1000 nested subgraphs are a million
 * entries; { 3000 nodes } -> { 3000 nodes } is 9 million edges), so a
 * text may take DOT_MAX_ENTRIES plus two a byte, and subgraphs at an
 * edge's end nest at most DOT_MAX_END_NESTING deep (x0 -> { x1 -> ...
 * 64 deep: 13 MB and 0.02 s; at the entries' limit, a million edges
 * between two subgraphs of a thousand nodes: about 450 MB and a
 * second). */
#define DOT_MAX_ENTRIES (1 << 20)
#define DOT_SUBGRAPH_ENTRIES 10
#define DOT_ATTR_SLOTS 8
#define DOT_MAX_END_NESTING 64

/* One brace level of the scan in too_costly(). */
struct cost_level {
	double nodes;		/* nodes inside (nested ones too), once each */
	double last;		/* nodes of the last operand of the statement */
	int arrow;		/* an edge operator waits for its head */
	int head;		/* the subgraph is an edge's head (-> { ... }) */
	int heads;		/* subgraphs at an edge's head around, this one too */
	int ends;		/* deepest nesting of edge ends closed inside */
	int named;		/* its name's index in the scan's names, or -1 */
	int open;		/* its '{' (a token index) */
};

/* The error of subgraphs at an edge's end nested too deep (caller frees). */
static char *
end_nesting(const char *name, int line)
{
	return pl_xasprintf("%s:%d: subgraphs at an edge's end nested more than %d deep here "
	    "(expected at most %d: an edge to or from a subgraph is one to or from each node in "
	    "it, nested ones included)", name, line, DOT_MAX_END_NESTING, DOT_MAX_END_NESTING);
}

/* Why the text (its tokens t[0..n), len bytes) would take the parser too
 * much memory or time (caller frees), or NULL: more entries than
 * DOT_MAX_ENTRIES plus two a byte (counted as above: a node once at each
 * level it is named in, an edge once for each pair of an edge statement,
 * a subgraph named again with the nodes of all its openings: an upper
 * bound), or subgraphs at an edge's end
 * nested more than DOT_MAX_END_NESTING deep.  Runs after too_deep(), so
 * braces nest at most DOT_MAX_NESTING + 1 deep. */
static char *
too_costly(const struct tok *t, int n, size_t len, const char *name)
{
	struct cost_level *lv = pl_xcalloc(DOT_MAX_NESTING + 3, sizeof *lv);
	struct pl_strmap names;	/* named subgraphs: their nodes add up */
	pl_strmap_init(&names, 16);
	struct pl_strmap nodes;	/* node name -> index */
	pl_strmap_init(&nodes, 1024);
	char **node_names = NULL, buf[1024];
	int n_nodes = 0, cap_nodes = 0, *seen = NULL;	/* seen: a node's last mention (a token) */
	struct pl_strmap attrs;	/* attribute names of nodes and edges */
	pl_strmap_init(&attrs, 16);
	char **attr_names = NULL;
	int n_attrs = 0;
	double edges = 0;	/* edges made: pairs of edge statements */
	char **keys = NULL;
	double *sizes = NULL, cost = 0, max = DOT_MAX_ENTRIES + 2.0 * (double)len;
	int n_names = 0, level = 0, name_tok = -1;
	char *why = NULL;
	for (int i = 0; i < n && why == NULL; i++) {
		const struct tok *k = &t[i];
		struct cost_level *c = &lv[level];
		double size = -1;	/* an operand's nodes; -1: no operand */
		int line = k->line;
		if (k->kind == '[') {
			/* an attribute list: its names, unless a graph's, are
			 * declared for nodes or edges (counted for both) */
			int graph = i > 0 && is_kw(&t[i - 1], "graph");
			for (; i + 1 < n && t[i + 1].kind != ']'; i++) {
				if (graph || t[i + 1].kind != 'i' || i + 2 >= n || t[i + 2].kind != '=')
					continue;
				const struct tok *a = &t[i + 1];
				char *big = a->n >= sizeof buf ? pl_xmalloc(a->n + 1) : NULL;
				const char *an = tok_text(a, big != NULL ? big : buf, big != NULL ? a->n + 1 : sizeof buf);
				if (pl_strmap_get(&attrs, an) < 0) {
					attr_names = pl_xreallocarray(attr_names, n_attrs + 1, sizeof *attr_names);
					attr_names[n_attrs] = pl_xstrdup(an);
					pl_strmap_put(&attrs, attr_names[n_attrs], n_attrs);
					n_attrs++;
				}
				free(big);
			}
		} else if (k->kind == '>') {
			c->arrow = 1;
		} else if (k->kind == ';' || k->kind == ',') {
			c->arrow = 0;
			c->last = 0;
		} else if (k->kind == '{') {
			if (level + 1 >= DOT_MAX_NESTING + 3)
				break;	/* (too_deep() refused it) */
			int head = level > 0 && c->arrow, named = -1;
			if (level > 0)
				cost += DOT_SUBGRAPH_ENTRIES;
			if (level > 0 && !head)
				c->last = 0;	/* a statement starts */
			if (name_tok >= 0) {
				/* cgraph looks a subgraph's name up among the
				 * subgraphs of the one around it only: keyed as
				 * find_lines() keys it */
				char *key = subgraph_key(&t[name_tok], c->named, level > 1 ? c->open : -1);
				if ((named = pl_strmap_get(&names, key)) < 0) {
					keys = pl_xreallocarray(keys, n_names + 1, sizeof *keys);
					sizes = pl_xreallocarray(sizes, n_names + 1, sizeof *sizes);
					keys[n_names] = key;
					sizes[n_names] = 0;
					pl_strmap_put(&names, key, named = n_names++);
				} else {
					free(key);
				}
			}
			name_tok = -1;
			lv[++level] = (struct cost_level){ 0, 0, 0, head, c->heads + head, 0, named, i };
			if (lv[level].heads > DOT_MAX_END_NESTING)
				why = end_nesting(name, line);
		} else if (k->kind == '}') {
			if (level <= 1)
				break;	/* the graph's end: the parser reads no further */
			int operand = c->head || (i + 1 < n && t[i + 1].kind == '>');
			int end = c->ends + operand;
			double inside = c->nodes;	/* (counted at the levels around too) */
			size = inside;
			if (c->named >= 0)	/* a name opened again adds to its nodes */
				size = sizes[c->named] += inside;
			if (operand)	/* its nodes listed */
				cost += size;
			c = &lv[--level];
			c->ends = end > c->ends ? end : c->ends;
			if (end > DOT_MAX_END_NESTING)
				why = end_nesting(name, line);
		} else if (k->kind != 'i') {
			continue;	/* ports' ':', or a syntax error for the parser */
		} else if (is_kw(k, "subgraph")) {
			if (i + 2 < n && t[i + 1].kind == 'i' && t[i + 2].kind == '{')
				name_tok = ++i;	/* (without braces: the parser's syntax error) */
		} else if (is_kw(k, "graph") || is_kw(k, "digraph")) {
			i += i + 1 < n && t[i + 1].kind == 'i';	/* its name */
		} else if (is_kw(k, "strict") || is_kw(k, "node") || is_kw(k, "edge")) {
			continue;
		} else if (i + 1 < n && t[i + 1].kind == '=') {
			i += 2;	/* name = value */
		} else if (level > 0) {
			/* a node, filed once at each level: where it was not
			 * mentioned since the level opened */
			char *big = k->n >= sizeof buf ? pl_xmalloc(k->n + 1) : NULL;	/* a long name */
			const char *nm = tok_text(k, big != NULL ? big : buf, big != NULL ? k->n + 1 : sizeof buf);
			int v = pl_strmap_get(&nodes, nm);
			if (v < 0) {
				if (n_nodes == cap_nodes) {
					cap_nodes = cap_nodes ? 2 * cap_nodes : 1024;
					node_names = pl_xreallocarray(node_names, cap_nodes, sizeof *node_names);
					seen = pl_xreallocarray(seen, cap_nodes, sizeof *seen);
				}
				node_names[n_nodes] = pl_xstrdup(nm);
				seen[n_nodes] = -1;
				pl_strmap_put(&nodes, node_names[n_nodes], v = n_nodes);
				n_nodes++;
			}
			free(big);
			for (int s = level; s >= 1 && seen[v] < lv[s].open; s--) {
				cost++;
				lv[s].nodes++;
			}
			seen[v] = i;
			size = 1;
			while (i + 2 < n && t[i + 1].kind == ':' && t[i + 2].kind == 'i')
				i += 2;	/* node:port:compass */
		}
		if (size >= 0) {
			if (c->arrow) {	/* every pair of tail and head nodes */
				cost += c->last * size * level;
				edges += c->last * size;
			}
			c->arrow = 0;
			c->last = size;
		}
		/* a slot (a pointer) per attribute name on each node and
		 * edge: DOT_ATTR_SLOTS to an entry */
		double total = cost + (double)n_attrs * ((double)n_nodes + edges) / DOT_ATTR_SLOTS;
		if (why == NULL && total > max)
			why = pl_xasprintf("%s:%d: the subgraphs up to here take the DOT parser %.0f "
			    "entries (expected at most %.0f for a file of this size, %d plus 2 a byte, "
			    "counting a node or edge once for the graph and once more for each subgraph "
			    "around it, an edge between subgraphs once for each pair of their nodes, a "
			    "subgraph as %d, and an attribute name of nodes or edges once for every %d "
			    "nodes and edges)", name, line, ceil(total), max, DOT_MAX_ENTRIES,
			    DOT_SUBGRAPH_ENTRIES, DOT_ATTR_SLOTS);
	}
	for (int s = 0; s < n_names; s++)
		free(keys[s]);
	free(keys);
	for (int a = 0; a < n_attrs; a++)
		free(attr_names[a]);
	free(attr_names);
	pl_strmap_free(&attrs);
	for (int v = 0; v < n_nodes; v++)
		free(node_names[v]);
	free(node_names);
	free(seen);
	pl_strmap_free(&nodes);
	free(sizes);
	pl_strmap_free(&names);
	free(lv);
	return why;
}

/* Where the graph ends in text s: just after the '}' that closes it
 * (its tokens t[0..n)), or at the end when none does. */
static size_t
graph_end(const struct tok *t, int n, const char *s, size_t len)
{
	for (int i = 0, depth = 0; i < n; i++) {
		depth += (t[i].kind == '{') - (t[i].kind == '}' && depth > 0);
		if (t[i].kind == '}' && depth == 0)
			return (size_t)(t[i].s - s) + 1;
	}
	return len;
}

/* The text for cgraph's parser (caller frees): s up to the graph's end
 * (n bytes), for cgraph's scanner keeps what it read past the graph and
 * gives it to the next parse (a second graph read as the next file's,
 * or an error's line one too far: what follows is the scanner's to
 * refuse); lines that start with '#' blanked, so that cgraph takes no
 * line directive (# 12 "f", #line 12) from them: placelab's lines are
 * the file's own, as the scanner counts them; a strict graph's "strict"
 * (the token strict, or NULL) blanked: its repeated edges are read each
 * with its line and values, and merged by placelab, which checks that
 * their values agree (cgraph keeps the last); with locate, a '\' put
 * before each line break inside a quoted string too, which cgraph then
 * counts (a bare one it does not; the string loses it: for finding where
 * a syntax error is only). */
static char *
parser_text(const char *s, size_t n, const struct tok *strict, const struct lex_marks *m, int locate)
{
	int ins = 0;
	while (locate && ins < m->n_qnl && m->qnl[ins] < n)
		ins++;
	char *p = pl_xmalloc(n + (size_t)ins + 1);
	size_t o = 0, from = 0;
	for (int q = 0; q < ins; q++) {
		memcpy(p + o, s + from, m->qnl[q] - from);
		o += m->qnl[q] - from;
		p[o++] = '\\';
		from = m->qnl[q];
	}
	memcpy(p + o, s + from, n - from);
	p[o + n - from] = '\0';
	for (int h = 0, q = 0; h < m->n_hash && m->hash[h] < n; h++) {
		while (q < ins && m->qnl[q] < m->hash[h])
			q++;	/* (the '\'s put in before it) */
		for (size_t i = m->hash[h] + (size_t)q; p[i] != '\0' && p[i] != '\n'; i++)
			p[i] = ' ';
	}
	if (strict != NULL) {	/* (the first token: no '\' put in before it) */
		size_t at = (size_t)(strict->s - s);
		memset(p + at, ' ', strict->n);
	}
	return p;
}

/* Parse text with cgraph; NULL on an error, whose first message is in
 * dot_err (a graph read part way is not returned). */
static Agraph_t *
cgraph_parse(const char *text)
{
	dot_err[0] = '\0';
	agseterr(AGERR);
	agseterrf(capture_error);
	Agraph_t *dg = agmemread(text);
	if (dot_err[0]) {
		/* cgraph's parser keeps state from a parse that failed (the
		 * next one then fails too): one parse of an empty graph
		 * clears it; its message, if any, is not this file's */
		char keep[sizeof dot_err];
		memcpy(keep, dot_err, sizeof keep);
		Agraph_t *clean = agmemread("digraph { }");
		if (clean != NULL)
			agclose(clean);
		memcpy(dot_err, keep, sizeof keep);
	}
	agseterrf(NULL);
	if (dg != NULL && dot_err[0]) {
		/* the parser gave up part way ("memory exhausted" where its
		 * stack ran out) and returned what it had read: never a
		 * graph with ops left out */
		agclose(dg);
		dg = NULL;
	}
	return dg;
}

/* Parse DOT text into a graph. */
struct pl_graph *
plv_graph_parse_dot(const char *text, size_t len, const char *name, char **cause)
{
	if ((*cause = pl_text_error(name, text, len)) != NULL)
		return NULL;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		text += 3;	/* a byte-order mark, skipped as in JSON files (the */
		len -= 3;	/* lines, without columns, stay the same) */
	}
	struct tok *t;	/* read once, for the depth check and the lines */
	struct lex_marks marks = { 0 };
	int nt = tokenize(text, len, &t, &marks);
	if ((*cause = too_deep(t, nt, name)) != NULL ||
	    (*cause = too_costly(t, nt, len, name)) != NULL) {
		free(t);
		free(marks.hash);
		free(marks.qnl);
		return NULL;
	}
	int strict = nt > 0 && is_kw(&t[0], "strict");
	size_t end = graph_end(t, nt, text, len);
	char *ptext = parser_text(text, end, strict ? &t[0] : NULL, &marks, 0);
	Agraph_t *dg = cgraph_parse(ptext);
	free(ptext);
	if (dg == NULL && dot_err[0] && marks.n_qnl > 0) {
		/* the line of a syntax error after a quoted string of several
		 * lines: from a copy whose line breaks cgraph counts */
		char keep[sizeof dot_err];
		memcpy(keep, dot_err, sizeof keep);
		ptext = parser_text(text, end, strict ? &t[0] : NULL, &marks, 1);
		Agraph_t *again = cgraph_parse(ptext);
		free(ptext);
		if (again != NULL)
			agclose(again);
		if (strstr(dot_err, " in line ") == NULL)
			memcpy(dot_err, keep, sizeof keep);
	}
	free(marks.hash);
	free(marks.qnl);
	if (dg == NULL) {
		if (dot_err[0])
			*cause = syntax_error(name, text, len);
		else
			*cause = pl_xasprintf("%s:1: not a DOT graph (expected 'digraph NAME { ... }' or a placelab JSON file)", name);
		free(t);
		return NULL;
	}
	char *err = NULL;
	int n_nodes = agnnodes(dg), v = 0, n_edges = 0;
	Agnode_t **nodes = pl_xmalloc(sizeof *nodes * (n_nodes + 1));
	for (Agnode_t *n = agfstnode(dg); n != NULL; n = agnxtnode(dg, n))
		nodes[v++] = n;
	struct dot_lines L;
	find_lines(&L, t, nt, nodes, n_nodes);
	free(t);
	int gline = L.graph_line > 0 ? L.graph_line : 1;
	/* anonymous graphs ("digraph { }", "%1" to cgraph) and "" take the
	 * file's name */
	char *gname = agnameof(dg)[0] == '%' || agnameof(dg)[0] == '\0' ? pl_name_from_path(name) :
	    pl_xstrdup(agnameof(dg));
	struct pl_graph_builder *b = pl_graph_builder_new(gname);
	pl_graph_builder_set_source(b, name);
	struct edge_ref *refs = NULL;
	struct edge_val *vals = NULL;
	if (!agisdirected(dg)) {
		err = pl_xasprintf("%s:%d: graph '%s' is undirected (expected 'digraph')", name, gline, gname);
		goto out;
	}
	if (n_nodes == 0) {
		err = pl_xasprintf("%s:%d: graph '%s' has no ops (expected at least one node)", name, gline, gname);
		goto out;
	}
	if (L.after_line > 0) {
		err = pl_xasprintf("%s:%d: text after the graph's closing '}' (expected the end of the file; one graph per file)",
		    name, L.after_line);
		goto out;
	}
	if (L.empty_line > 0) {
		err = pl_xasprintf("%s:%d: %s: attribute '%s' is empty (expected %s, or no attribute)",
		    name, L.empty_line, L.empty_subject, L.empty_attr, L.empty_expect);
		goto out;
	}
	if (L.odd_line > 0) {
		err = pl_xasprintf("%s:%d: %s", name, L.odd_line, L.odd_msg);
		goto out;
	}
	for (v = 0; v < n_nodes; v++) {
		int line = L.attr_line[v] > 0 ? L.attr_line[v] : L.node_line[v];
		pl_graph_builder_set_line(b, line, 0);
		char *m = read_node(b, nodes[v]);
		if (m != NULL) {
			err = pl_xasprintf("%s:%d: %s", name, line, m);
			free(m);
			goto out;
		}
	}
	n_edges = agnedges(dg);
	refs = pl_xmalloc(sizeof *refs * (n_edges ? n_edges : 1));
	int k = 0;
	for (v = 0; v < n_nodes; v++)
		for (Agedge_t *e = agfstout(dg, nodes[v]); e != NULL; e = agnxtout(dg, e))
			refs[k++] = (struct edge_ref){ e, AGSEQ(e) };
	qsort(refs, n_edges, sizeof *refs, edge_cmp);
	vals = pl_xmalloc(sizeof *vals * (n_edges ? n_edges : 1));
	char outputs[48];
	snprintf(outputs, sizeof outputs, "an output index 0..%d", PL_MAX_OUTPUTS - 1);
	for (int i = 0; i < n_edges; i++) {
		Agedge_t *e = refs[i].e;
		struct edge_val *x = &vals[i];
		const char *s = agnameof(agtail(e)), *d = agnameof(aghead(e));
		*x = (struct edge_val){ pl_graph_builder_find(b, s), pl_graph_builder_find(b, d), s, d, i, 0,
			{ 0, 0 }, { attr(e, "bytes"), attr(e, "output") }, { 0, 0 }, 0, 0 };
		x->line = x->from[0] = x->from[1] = edge_line(&L, x->u, x->w, &x->own);
		char *m = num_attr(e, "bytes", 0, (double)PL_MAX_BYTES, 1, "a whole number of bytes in [0, 2^50]", &x->val[0]);
		if (m == NULL)
			m = num_attr(e, "output", 0, PL_MAX_OUTPUTS - 1, 1, outputs, &x->val[1]);
		if (m != NULL) {
			err = pl_xasprintf("%s:%d: edge '%s' -> '%s': %s", name, x->line, s, d, m);
			free(m);
			goto out;
		}
	}
	if (strict && (err = merge_repeats(vals, n_edges, name)) != NULL)
		goto out;
	for (int i = 0; i < n_edges; i++) {
		const struct edge_val *x = &vals[i];
		if (x->merged)
			continue;
		/* the line of a value's statement, for the builder's checks */
		pl_graph_builder_set_line(b, x->text[0] != NULL ? x->from[0] : x->text[1] != NULL ? x->from[1] :
		    x->line, 0);
		pl_graph_add_edge(b, x->u, x->w, (int)x->val[1], (int64_t)x->val[0]);
	}
out:
	free(vals);
	free(refs);
	lines_free(&L);
	free(nodes);
	free(gname);
	agclose(dg);
	if (err != NULL) {
		pl_graph_builder_free(b);
		*cause = err;
		return NULL;
	}
	return pl_graph_build(b, cause);
}
