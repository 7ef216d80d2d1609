/*
 * test-graph — the graph model: building, CSR, topological order, groups,
 * tensors, and one test per class of bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "graph.h"
#include "io.h"
#include "strbuf.h"
#include "problem.h"

/* Parse JSON text as a graph, expecting success. */
static struct pl_graph *
parse_ok(const char *text)
{
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(text, strlen(text), "t.json", &cause);
	if (g == NULL)
		fail_msg("unexpected error: %s", cause);
	return g;
}

/* Parse JSON text expecting an error that contains every given fragment. */
static void
parse_bad(const char *text, const char *frag1, const char *frag2)
{
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(text, strlen(text), "t.json", &cause);
	assert_null(g);
	assert_non_null(cause);
	if (strstr(cause, frag1) == NULL || (frag2 != NULL && strstr(cause, frag2) == NULL))
		fail_msg("error '%s' lacks '%s' / '%s'", cause, frag1, frag2 ? frag2 : "");
	free(cause);
}

#define HDR "{\"format\": \"placelab-graph/1\", \"name\": \"t\",\n"

/* A diamond: CSR, topo order, tensors and groups. */
static void
test_diamond(void **state)
{
	(void)state;
	struct pl_graph *g = parse_ok(HDR
	    "\"ops\": [{\"name\": \"d\", \"flops\": 4}, {\"name\": \"a\", \"flops\": 1, \"group\": \"G\"},\n"
	    " {\"name\": \"b\", \"flops\": 2, \"group\": \"G\"}, {\"name\": \"c\", \"flops\": 3}],\n"
	    "\"edges\": [[\"a\", \"b\", 10, 0], [\"a\", \"c\", 10, 0], [\"b\", \"d\", 7, 1], [\"c\", \"d\", 5]]}");
	assert_int_equal(g->n_ops, 4);
	assert_int_equal(g->n_edges, 4);
	assert_int_equal(g->n_tensors, 3);	/* a:0, b:1, c:0 */
	/* topological order, ties by list order: a b c d */
	int want[] = { 1, 2, 3, 0 };
	for (int i = 0; i < 4; i++)
		assert_int_equal(g->topo[i], want[i]);
	for (int i = 0; i < 4; i++)
		assert_int_equal(g->topo_pos[g->topo[i]], i);
	/* out edges of a, in input order */
	assert_int_equal(g->out_off[2] - g->out_off[1], 2);
	assert_int_equal(g->edges[g->out_edge[g->out_off[1]]].dst, 2);
	assert_int_equal(g->edges[g->out_edge[g->out_off[1] + 1]].dst, 3);
	/* in edges of d */
	assert_int_equal(g->in_off[1] - g->in_off[0], 2);
	/* groups: G holds a and b; d and c are singletons */
	assert_int_equal(g->n_groups, 3);
	assert_int_equal(g->ops[1].group, g->ops[2].group);
	assert_string_equal(g->groups[g->ops[1].group].name, "G");
	assert_null(g->groups[g->ops[0].group].name);
	/* out_bytes filled from tensors */
	assert_int_equal(g->ops[1].out_bytes, 10);
	assert_int_equal(g->ops[2].out_bytes, 7);
	assert_true(pl_graph_total_flops(g) == 10);
	int path[4], len;
	assert_true(pl_graph_longest_flops_path(g, path, &len) == 8);	/* a c d */
	assert_int_equal(len, 3);
	assert_int_equal(path[0], 1);
	assert_int_equal(path[1], 3);
	assert_int_equal(path[2], 0);
	assert_int_equal(pl_graph_find(g, "c"), 3);
	assert_int_equal(pl_graph_find(g, "zz"), -1);
	pl_graph_free(g);
}

/* Optimizer state is what update ops (TF's Apply* types) hold, whatever
 * the ops' names; every other op's param_bytes are parameters. */
static void
test_param_bytes_by_type(void **state)
{
	(void)state;
	struct pl_graph *g = parse_ok(HDR
	    "\"ops\": [{\"name\": \"w\", \"type\": \"VariableV2\", \"param_bytes\": 1000},\n"
	    " {\"name\": \"w/update\", \"type\": \"Identity\", \"param_bytes\": 20},\n"
	    " {\"name\": \"opt/w\", \"type\": \"ApplyAdam\", \"param_bytes\": 300},\n"
	    " {\"name\": \"e/update\", \"type\": \"ResourceSparseApplyAdagrad\", \"param_bytes\": 4000},\n"
	    " {\"name\": \"m\", \"type\": \"SparseApplyMomentum\", \"param_bytes\": 50000},\n"
	    " {\"name\": \"r\", \"type\": \"ResourceApplyGradientDescent\", \"param_bytes\": 600000},\n"
	    " {\"name\": \"x\", \"type\": \"Applied\", \"param_bytes\": 7000000},\n"
	    " {\"name\": \"y\", \"type\": \"MyApplyAdam\", \"param_bytes\": 80000000}],\n"
	    "\"edges\": []}");
	int64_t params, opt;
	pl_graph_param_bytes(g, &params, &opt);
	assert_int_equal(params, 1000 + 20 + 7000000 + 80000000);
	assert_int_equal(opt, 300 + 4000 + 50000 + 600000);
	pl_graph_free(g);
}

/* The longest path when op 0 is not first in topological order and the
 * longest ends before it (its figure was read before it was computed:
 * valgrind's "uninitialised value"). */
static void
test_longest_path_op0_later(void **state)
{
	(void)state;
	struct pl_graph *g = parse_ok(HDR
	    "\"ops\": [{\"name\": \"b\", \"flops\": 5e9}, {\"name\": \"a\", \"flops\": 1e9},\n"
	    " {\"name\": \"c\", \"flops\": 1e9}, {\"name\": \"d\", \"flops\": 9e9}],\n"
	    "\"edges\": [[\"a\", \"b\", 8, 0], [\"c\", \"a\", 8, 0]]}");
	int path[4], len = 0;
	assert_true(pl_graph_longest_flops_path(g, path, &len) == 9e9);	/* d alone */
	assert_int_equal(len, 1);
	assert_int_equal(path[0], 3);
	pl_graph_free(g);
}

/* Top-level keys with escapes are the keys they spell, as every other
 * key is ("\u006fps" was an unknown field). */
static void
test_escaped_keys(void **state)
{
	(void)state;
	struct pl_graph *g = parse_ok("{\"\\u0066ormat\": \"placelab-graph/1\", \"n\\u0061me\": \"esc\",\n"
	    "\"\\u006fps\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"edge\\u0073\": [[\"a\", \"b\"]]}");
	assert_int_equal(g->n_ops, 2);
	assert_int_equal(g->n_edges, 1);
	assert_string_equal(g->name, "esc");
	pl_graph_free(g);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}], \"\\u006fps\": []}", "field 'ops' given a second time", NULL);
}

/* Every class of bad input gets a clear error with a position. */
static void
test_syntax_error(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\",, }]}", "t.json:2:", "syntax error");
}

static void
test_truncated(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": 1", "unexpected end of file", NULL);
	/* a bracket missing in the middle is said where the wrong one
	 * stands, not as the end of the file */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n\"edges\": [\n [\"a\", \"b\"\n}\n",
	    "t.json:5:1: JSON syntax error near '}' (expected ',' or ']')", NULL);
	/* and with more after it: elements, or another key after the
	 * edges (which are read last) */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n\"edges\": [[\"a\", \"b\"}, [\"b\", \"a\"]]}",
	    "t.json:3:20: JSON syntax error near '}, [\"b\", \"a\"' (expected ',' or ']')", NULL);
	parse_bad(HDR "\"edges\": [[\"a\", \"b\"}],\n\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}",
	    "t.json:2:20: JSON syntax error near '}],' (expected ',' or ']')", NULL);
	/* a form feed before the object is said as such, as in any file */
	parse_bad("\f{\"format\": \"placelab-graph/1\", \"ops\": []}",
	    "t.json:1:1: a control character (byte 0x0C) between values", NULL);
}

static void
test_cycle(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"x\"}, {\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}],\n"
	    "\"edges\": [[\"x\", \"a\"], [\"a\", \"b\"], [\"b\", \"c\"], [\"c\", \"a\"]]}",
	    "cycle of 3 ops", "'a'");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}], \"edges\": [[\"a\", \"a\"]]}", "cycle of 1 op", NULL);
	/* names of any length: each shown up to 120 bytes, cut between
	 * characters ("é" is 2 bytes), and the path after about 800 bytes
	 * ends in "..." (a name longer than the buffer the path once had
	 * overflowed it) */
	char name[12][1300];
	for (int i = 0; i < 12; i++) {
		int n = snprintf(name[i], sizeof name[i], "%d", i);
		for (int k = 0; k < 600; k++, n += 2)
			memcpy(name[i] + n, "é", 3);
	}
	struct pl_strbuf t = { 0 };
	pl_sb_printf(&t, HDR "\"ops\": [");
	for (int i = 0; i < 12; i++)
		pl_sb_printf(&t, "%s{\"name\": \"%s\"}", i ? ", " : "", name[i]);
	pl_sb_printf(&t, "], \"edges\": [");
	for (int i = 0; i < 12; i++)
		pl_sb_printf(&t, "%s[\"%s\", \"%s\"]", i ? ", " : "", name[i], name[(i + 1) % 12]);
	pl_sb_printf(&t, "]}");
	char want[200];
	int n = snprintf(want, sizeof want, "'1");
	for (int k = 0; k < 59; k++, n += 2)	/* 1 + 59 * 2 = 119 bytes */
		memcpy(want + n, "é", 3);
	snprintf(want + n, sizeof want - (size_t)n, "…' -> '");
	char *cause = NULL;
	assert_null(pl_graph_parse_json(t.s, t.len, "t.json", &cause));
	if (strstr(cause, "cycle of 12 ops") == NULL || strstr(cause, want) == NULL ||
	    strstr(cause, "... (expected a DAG)") == NULL || strlen(cause) > 1200)
		fail_msg("error '%s'", cause);
	free(cause);
	free(t.s);
}

static void
test_unknown_op(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}],\n\"edges\": [\n[\"a\", \"ghost\", 4]]}",
	    "t.json:4:1", "unknown op 'ghost'");
}

static void
test_duplicate(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [\n{\"name\": \"a\"},\n{\"name\": \"a\"}]}", "t.json:4:1: op 'a': duplicate name", "line 3");
}

/* A NUL escaped in a string would cut it (two names "a\u0000b" and
 * "a\u0000c" reported as a duplicate 'a'): refused where it stands; an
 * escaped backslash before "u0000" is plain text. */
static void
test_nul_escape(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"},\n {\"name\": \"a\\u0000c\"}]}",
	    "t.json:3:13: \\u0000 in a string", "without NUL");
	struct pl_graph *g = parse_ok(HDR "\"ops\": [{\"name\": \"a\\\\u0000\"}]}");
	assert_string_equal(g->ops[0].name, "a\\u0000");
	pl_graph_free(g);
}

/* Numbers JSON does not allow, which cJSON alone would read, are refused
 * where they stand; valid forms, and the same characters inside strings,
 * are read. */
static void
test_strict_numbers(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": 01}]}",
	    "t.json:2:32: number '01' is not valid JSON (a leading zero;", "expected e.g. 0.5");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\",\n\"flops\": 1.}]}",
	    "t.json:3:10: number '1.'", "no digit after the point");
	/* a form feed, which cJSON skips as white space, is no JSON white
	 * space: refused before the number after it */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\":\f01}]}",
	    "t.json:2:31: a control character (byte 0x0C) between values", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": -.5}]}",
	    "number '-.5'", "no digit at its start");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": 1.e3}]}",
	    "number '1.e3'", "no digit after the point");
	/* words JSON has no value for: what it expects instead is said */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": NaN}]}",
	    "t.json:2:32: JSON syntax error near 'NaN", "(JSON has no NaN or Infinity; expected a finite number)");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": Infinity}]}",
	    "t.json:2:32: JSON syntax error near 'Infinity", "expected a finite number");
	parse_bad(HDR "\"ops\": [{\"name\": 'a'}]}",
	    "t.json:2:18: JSON syntax error near ''a'", "(expected a \"string\" in double quotes)");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\\q\"}]}",
	    "t.json:2:20: JSON syntax error near '\\q", "(expected one of the escapes ");
	/* \u escapes: four hex digits, surrogates in pairs; the message
	 * points at the escape */
	parse_bad(HDR "\"ops\": [{\"name\": \"ab\\ud800\"}]}",
	    "t.json:2:21: JSON syntax error near '\\ud800", "(an unpaired UTF-16 surrogate; expected a low one");
	parse_bad(HDR "\"ops\": [{\"name\": \"\\n\\ud800\\u0041\"}]}",
	    "t.json:2:21: JSON syntax error near '\\ud800\\u0041", "(an unpaired UTF-16 surrogate");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\\udc00\"}]}",
	    "t.json:2:20: JSON syntax error near '\\udc00", "(a low UTF-16 surrogate with no high one before it");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\\u12g4\"}]}",
	    "t.json:2:20: JSON syntax error near '\\u12g4", "(expected \\u and four hex digits)");
	parse_bad(HDR "\"ops\": [{\"name\": tru}]}",
	    "t.json:2:18: JSON syntax error near 'tru", "(expected a value: a number, a \"string\", true");
	/* what is expected where a value is not what is missing */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\" \"flops\": 1}]}",
	    "t.json:2:22: JSON syntax error near '\"flops\": 1}]' (expected ',' or '}')", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"} {\"name\": \"b\"}]}",
	    "t.json:2:23: JSON syntax error near '{", "(expected ',' or ']')");
	parse_bad(HDR "\"ops\": [{\"name\" \"a\"}]}",
	    "t.json:2:17: JSON syntax error near '\"a\"}]}' (expected ':' after the key)", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": 1,}]}",
	    "t.json:2:34: JSON syntax error near '}]}' (expected a \"key\" after ','; JSON allows no ',' before '}')", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"},]}",
	    "t.json:2:23: JSON syntax error near ']}' (expected a value after ','; JSON allows no ',' before ']')", NULL);
	/* an unquoted key: at its first byte (cJSON says one byte into it) */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", flops: 1}]}",
	    "t.json:2:23: JSON syntax error near 'flops: 1}]}' (expected a \"key\" in double quotes)", NULL);
	/* a one-byte key or a trailing comma inside the text, not at its end */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"x\": {k: 1}}]}",
	    "t.json:2:29: JSON syntax error near 'k: 1}}]}' (expected a \"key\" in double quotes)", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"x\": {\"a\": 1, }, \"y\": 1}]}",
	    "t.json:2:37: JSON syntax error near '}, \"y\": 1}]}' (expected a \"key\" after ','", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"x\": [1 2]}]}",
	    "t.json:2:31: JSON syntax error near '2]}]}' (expected ',' or ']')", NULL);
	/* the same words at the top level of a graph file */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}],}",
	    "t.json:2:24: JSON syntax error near '}' (expected a \"key\" after ','; JSON allows no ',' before '}')", NULL);
	parse_bad(HDR "\"ops\"\n [{\"name\": \"a\"}]}",
	    "t.json:3:2: JSON syntax error near '[{\"name\": \"a' (expected ':' after the key)", NULL);
	parse_bad(HDR "ops: []}", "t.json:2:1: JSON syntax error near 'ops: []}' (expected a \"key\" in double quotes)", NULL);
	/* a word that starts like one JSON lacks is just a word */
	parse_bad(HDR "\"ops\": [{\"name\": info}]}",
	    "t.json:2:18: JSON syntax error near 'info}]}' (expected a value:", NULL);
	/* the quoted text stops at the line's end and cuts no character */
	parse_bad(HDR "\"ops\": [{\"name\": x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9}]}",
	    "near 'x\u00e9\u00e9\u00e9\u00e9\u00e9' (expected", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": tru\n}]}", "near 'tru' (expected", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n"
	    "\"edges\": [[\"a\", \"b\", 00]]}", "t.json:3:22: number '00'", NULL);
	struct pl_graph *g = parse_ok(HDR "\"ops\": [{\"name\": \"01 1. -.5\", \"flops\": 0.5e+1},\n"
	    " {\"name\": \"b\\\"01\", \"flops\": -0E-0}, {\"name\": \"c\", \"flops\": 1E2}],\n"
	    " \"edges\": [[\"01 1. -.5\", \"c\", 0]]}");
	assert_string_equal(g->ops[0].name, "01 1. -.5");
	assert_string_equal(g->ops[1].name, "b\"01");
	assert_true(g->ops[0].flops == 5.0);
	assert_true(g->ops[2].flops == 100.0);
	pl_graph_free(g);
}

/* An empty device or group is no constraint and no group: refused, not
 * read as "any" and "none". */
static void
test_empty_device_group(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"device\": \"\"}]}",
	    "t.json:2:33: op 'a': field 'device'", "expected \"any\"");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"group\": \"\"}]}",
	    "op 'a': field 'group'", "leave it out for none");
}

/* Text that is not UTF-8 (here Latin-1) is refused where it stands: it
 * would reach JSON and SVG outputs as bytes no reader accepts. */
static void
test_not_utf8(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"},\n {\"name\": \"caf\xe9\"}]}",
	    "t.json:3:15: byte 0xE9 is not UTF-8", "iconv");
	struct pl_graph *g = parse_ok(HDR "\"ops\": [{\"name\": \"caf\xc3\xa9\"}]}");
	assert_string_equal(g->ops[0].name, "caf\xc3\xa9");
	pl_graph_free(g);
}

/* A second "ops" or "edges" array is an error at its key, not a silent
 * replacement (the first array's positions used to leak). */
static void
test_key_twice(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}],\n \"ops\": [{\"name\": \"b\"}]}",
	    "t.json:3:2: field 'ops' given a second time", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n"
	    "\"edges\": [[\"a\", \"b\"]], \"edges\": []}",
	    "t.json:3:24: field 'edges' given a second time", NULL);
}

/* Anything after the top-level object is an error at its position: stray
 * brackets, a second object, a NUL byte. */
/* A misspelt field is an error at its key naming the fields expected,
 * not a silent default. */
static void
test_unknown_field(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flop\": 5}]}",
	    "t.json:2:23: op 'a': unknown field 'flop'", "(expected name, type, scope, flops, param_bytes, out_bytes, temp_bytes, measured_us, group, device)");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n\"edges\": [{\"src\": \"a\", \"dst\": \"b\", \"byte\": 4}]}",
	    "t.json:3:36: edges[0]: unknown field 'byte'", "(expected src, dst, bytes, output)");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}],\n \"edgse\": []}",
	    "t.json:3:2: unknown field 'edgse'", "(expected format, name, ops, edges)");
	/* a device kind placelab does not know is not kept as a device name */
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"gpu\": 2, \"fpga\": 3}}]}",
	    "t.json:2:49: op 'a': measured_us key 'fpga' (expected a device kind cpu, gpu or tpu, or a device name", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"GPU\": 3}}]}", "measured_us key 'GPU'", NULL);
	struct pl_graph *g = parse_ok(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"P0\": 3, \"/device:GPU:1\": 2, \"tpu\": 1}}]}");
	assert_int_equal(g->ops[0].n_dev_times, 2);
	pl_graph_free(g);
	/* a wrong format tag is named before the fields it does not know */
	parse_bad("{\"devices\": [], \"format\": \"placelab-cluster/1\"}", "t.json:1:27: format \"placelab-cluster/1\"", NULL);
}

/* JSON nested beyond what cJSON reads is named as such, at its place,
 * in an op's value and in a field the reader takes whole. */
static void
test_deep_nesting(void **state)
{
	(void)state;
	enum { DEEP = 1100 };
	char *text = malloc(64 + 4 * DEEP);
	assert_non_null(text);
	for (int which = 0; which < 2; which++) {
		char *p = text + sprintf(text, which == 0 ? HDR "\"ops\": [" :
		    "{\"format\": \"placelab-graph/1\",\n\"name\": ");
		memset(p, '[', DEEP);
		memset(p + DEEP, ']', DEEP);
		strcpy(p + 2 * DEEP, which == 0 ? "]}" : "}");
		parse_bad(text, "t.json:2:1009: JSON nested more than 1000 levels deep", NULL);
	}
	/* a syntax error inside exactly 1000 levels is a syntax error */
	char *p = text + sprintf(text, "{\"format\": \"placelab-graph/1\",\n\"name\": ");
	memset(p, '[', 1000);
	p[1000] = 'x';
	memset(p + 1001, ']', 1000);
	strcpy(p + 2001, "}");
	parse_bad(text, "t.json:2:1009: JSON syntax error near 'x", NULL);
	free(text);
	/* shallow nesting gets the ordinary message */
	parse_bad("{\"format\": \"placelab-graph/1\", \"name\": [[[]]]}", "field 'name' (expected a string)", NULL);
}

/* Every object refuses a key given twice, at the second one. */
static void
test_duplicate_key(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": 5,\n \"flops\": 6}]}",
	    "t.json:3:2: op 'a': field 'flops' given a second time (expected it once)", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"gpu\": 5, \"gpu\": 6}}]}",
	    "t.json:2:49: op 'a': measured_us: 'gpu' given a second time", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"/gpu:0\": 5, \"/gpu:0\": 6}}]}",
	    "t.json:2:52: op 'a': measured_us: '/gpu:0' given a second time", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}], \"name\": \"u\"}",
	    "t.json:2:25: field 'name' given a second time", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}],\n\"edges\": [{\"src\": \"a\", \"dst\": \"b\", \"src\": \"b\"}]}",
	    "t.json:3:36: edges[0]: field 'src' given a second time", NULL);
}

static void
test_trailing_garbage(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}]}\n]]]garbage", "t.json:3:1: ']]]garbage' after the JSON object", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}]} {\"format\": \"placelab-graph/1\"}\n",
	    "t.json:2:25: '{\"format\": \"' after the JSON object", "expected the end of the file");
	static const char nul[] = HDR "\"ops\": [{\"name\": \"a\"}]}\n\0x";
	char *cause = NULL;
	assert_null(pl_graph_parse_json(nul, sizeof nul - 1, "t.json", &cause));
	assert_non_null(strstr(cause, "t.json:3:1: a NUL byte after the JSON object"));
	free(cause);
	struct pl_graph *g = parse_ok(HDR "\"ops\": [{\"name\": \"a\"}]}\n\t \r\n");
	pl_graph_free(g);
}

static void
test_bad_numbers(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": -1}]}", "op 'a'", "flops");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": 1e300}]}", "op 'a'", "flops");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"out_bytes\": 1.5}]}", "out_bytes", "whole number");
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"param_bytes\": 1e17}]}", "param_bytes", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"flops\": \"many\"}]}", "flops", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"gpu\": -3}}]}",
	    "op 'a': measured_us.gpu -3 (expected a time in us in [0, 1e12])", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"gpu\": 2e12}}]}",
	    "op 'a': measured_us.gpu 2e+12 (expected a time in us in [0, 1e12])", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\", \"measured_us\": {\"gpu\": \"3\"}}]}",
	    "op 'a': measured_us.gpu is not a number", NULL);
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"edges\": [[\"a\", \"b\", -5]]}", "bytes", NULL);
	/* NaN cannot be written in JSON; the builder rejects it from other sources */
	struct pl_graph_builder *b = pl_graph_builder_new("nan");
	struct pl_op op;
	memset(&op, 0, sizeof op);
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		op.measured_us[k] = -1;
	op.name = "n";
	op.flops = 0.0 / 0.0;
	pl_graph_add_op(b, &op, NULL);
	char *cause = NULL;
	assert_null(pl_graph_build(b, &cause));
	assert_non_null(strstr(cause, "flops"));
	free(cause);
}

/* Bytes within range one by one but beyond 2^56 together are refused at
 * the op or edge that crosses the limit (their sums went negative). */
static void
test_total_bytes(void **state)
{
	(void)state;
	for (int extra = 0; extra < 3; extra++) {
		/* 64 ops of 2^50 parameter bytes: exactly the limit */
		struct pl_graph_builder *b = pl_graph_builder_new("big");
		char names[66][8];
		for (int i = 0; i < 64 + (extra == 1); i++) {
			struct pl_op op;
			memset(&op, 0, sizeof op);
			for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
				op.measured_us[k] = -1;
			snprintf(names[i], sizeof names[i], "o%d", i);
			op.name = names[i];
			op.param_bytes = PL_MAX_BYTES;
			pl_graph_add_op(b, &op, NULL);
		}
		if (extra == 2)
			pl_graph_add_edge(b, 0, 1, 0, 1);
		char *cause = NULL;
		struct pl_graph *g = pl_graph_build(b, &cause);
		if (extra == 0) {
			assert_non_null(g);
			pl_graph_free(g);
			continue;
		}
		assert_null(g);
		assert_non_null(strstr(cause, extra == 1 ? "op 'o64': the ops up to here hold more than 2^56 bytes" :
		    "edge 'o0' -> 'o1': the ops and edges up to here hold more than 2^56 bytes"));
		free(cause);
	}
}

static void
test_inconsistent_tensor(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}],\n"
	    "\"edges\": [[\"a\", \"b\", 8, 0], [\"a\", \"c\", 9, 0]]}", "one size per tensor", NULL);
}

static void
test_empty(void **state)
{
	(void)state;
	parse_bad(HDR "\"ops\": []}", "t.json:2:8: 'ops' is empty", "expected at least one op");
	parse_bad("", "empty file", NULL);
	parse_bad("   [1, 2]", "expected a JSON object", NULL);
}

static void
test_format_tag(void **state)
{
	(void)state;
	parse_bad("{\"name\": \"x\", \"ops\": []}", "missing \"format\"", NULL);
	parse_bad("{\"format\": \"placelab-graph/9\", \"ops\": []}", "version", "placelab-graph/1");
	parse_bad("{\"format\": \"placelab-cluster/1\", \"ops\": []}", "t.json:1:12: format \"placelab-cluster/1\"", NULL);
	parse_bad("{\"ops\": [],\n  \"format\": \"placelab-graph/2\"}", "t.json:2:13: format version \"placelab-graph/2\" is not supported", NULL);
	parse_bad("{\"format\": [1], \"ops\": []}", "t.json:1:12: field 'format' (expected the string", NULL);
}

/* A constraint no device satisfies is caught when the problem is built. */
static void
test_unsatisfiable_constraint(void **state)
{
	(void)state;
	struct pl_graph *g = parse_ok(HDR "\"ops\": [{\"name\": \"a\", \"device\": \"tpu\"}, {\"name\": \"b\", \"device\": \"/gpu:7\"}]}");
	struct pl_cluster *c = pl_cluster_preset("k80x2");
	char *cause = NULL;
	assert_null(pl_problem_new(g, c, &cause));
	/* named with the file and the op's line and column */
	assert_non_null(strstr(cause, "t.json:2:9: op 'a': constraint 'tpu' matches no device of cluster 'k80x2'"));
	free(cause);
	pl_graph_free(g);
	g = parse_ok(HDR "\"ops\": [{\"name\": \"a\"},\n {\"name\": \"b\", \"device\": \"/gpu:7\"}]}");
	assert_null(pl_problem_new(g, c, &cause));
	assert_non_null(strstr(cause, "t.json:3:2: op 'b': constraint '/gpu:7' matches no device"));
	free(cause);
	pl_graph_free(g);
	/* group whose members' constraints are disjoint */
	g = parse_ok(HDR "\"ops\": [{\"name\": \"a\", \"device\": \"cpu\", \"group\": \"G\"},\n {\"name\": \"b\", \"device\": \"gpu\", \"group\": \"G\"}]}");
	assert_null(pl_problem_new(g, c, &cause));
	assert_non_null(strstr(cause, "t.json:3:2: colocation group 'G'"));
	assert_non_null(strstr(cause, "with op 'b'"));
	free(cause);
	pl_graph_free(g);
	pl_cluster_free(c);
}

/* Save -> load -> save gives the same text and the same data. */
static void
test_round_trip(void **state)
{
	(void)state;
	struct pl_graph *g = parse_ok(HDR
	    "\"ops\": [{\"name\": \"in put\", \"type\": \"Placeholder\", \"scope\": \"data\", \"flops\": 0, \"out_bytes\": 64},\n"
	    " {\"name\": \"mm\", \"type\": \"MatMul\", \"scope\": \"enc/l0/t1\", \"flops\": 123456.75, \"param_bytes\": 4096,\n"
	    "  \"temp_bytes\": 12, \"measured_us\": {\"gpu\": 3.25, \"/cpu:0\": 40}, \"group\": \"g\\\"q\", \"device\": \"gpu\"},\n"
	    " {\"name\": \"x\", \"flops\": 0.1, \"device\": \"/gpu:1\"}],\n"
	    "\"edges\": [[\"in put\", \"mm\", 64], {\"src\": \"mm\", \"dst\": \"x\", \"bytes\": 32, \"output\": 2}]}");
	char *t1 = pl_graph_to_json(g);
	char *cause = NULL;
	struct pl_graph *h = pl_graph_parse_json(t1, strlen(t1), "rt", &cause);
	assert_non_null(h);
	char *t2 = pl_graph_to_json(h);
	assert_string_equal(t1, t2);
	assert_int_equal(h->n_ops, 3);
	assert_true(h->ops[1].flops == 123456.75);
	assert_true(h->ops[1].measured_us[PL_DEV_GPU] == 3.25);
	assert_int_equal(h->ops[1].n_dev_times, 1);
	assert_string_equal(h->ops[1].dev_times[0].device, "/cpu:0");
	assert_true(h->ops[2].flops == 0.1);
	assert_int_equal(h->ops[2].cons.kind, PL_CONS_DEVICE);
	assert_string_equal(h->ops[2].cons.device, "/gpu:1");
	assert_int_equal(h->tensors[h->edges[1].tensor].index, 2);
	assert_string_equal(h->groups[h->ops[1].group].name, "g\"q");
	free(t1);
	free(t2);
	pl_graph_free(g);
	pl_graph_free(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diamond),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_escaped_keys),
		cmocka_unit_test(test_longest_path_op0_later),
		cmocka_unit_test(test_unknown_op),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_nul_escape),
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_empty_device_group),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_key_twice),
		cmocka_unit_test(test_unknown_field),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_trailing_garbage),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_total_bytes),
		cmocka_unit_test(test_inconsistent_tensor),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_format_tag),
		cmocka_unit_test(test_unsatisfiable_constraint),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_param_bytes_by_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
