/*
 * test-core — small core modules: options, rng, pool, strmap, cost model.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cost.h"
#include "io.h"
#include "options.h"
#include "pool.h"
#include "problem.h"
#include "rng.h"
#include "strbuf.h"
#include "strmap.h"

static const struct pl_option_def defs[] = {
	{ "evals", PL_OPT_INT, "5000", "evaluation budget" },
	{ "rho", PL_OPT_DOUBLE, "0.7", "elite bias" },
	{ "objective", PL_OPT_STRING, "runtime", "what to minimise" },
	{ "bias", PL_OPT_BOOL, "on", "use the elite bias" },
	{ NULL, 0, NULL, NULL },
};

/* Defaults, overrides and errors. */
static void
test_options(void **state)
{
	(void)state;
	struct pl_options *o;
	char *cause = NULL;
	assert_int_equal(pl_options_parse(defs, NULL, &o, &cause), 0);
	assert_int_equal(pl_opt_int(o, "evals"), 5000);
	assert_true(pl_opt_double(o, "rho") == 0.7);
	assert_string_equal(pl_opt_str(o, "objective"), "runtime");
	assert_true(pl_opt_bool(o, "bias"));
	pl_options_free(o);
	assert_int_equal(pl_options_parse(defs, "evals=10,objective=mix:0.5,bias=off", &o, &cause), 0);
	assert_int_equal(pl_opt_int(o, "evals"), 10);
	assert_string_equal(pl_opt_str(o, "objective"), "mix:0.5");
	assert_false(pl_opt_bool(o, "bias"));
	assert_int_equal(pl_options_set(o, "rho", "0.9", &cause), 0);
	assert_true(pl_opt_double(o, "rho") == 0.9);
	assert_int_equal(pl_options_set(o, "rho", "nan", &cause), -1);
	assert_non_null(strstr(cause, "not a number"));
	free(cause);
	pl_options_free(o);
	assert_int_equal(pl_options_parse(defs, "evlas=3", &o, &cause), -1);
	assert_non_null(strstr(cause, "unknown option 'evlas'"));
	assert_non_null(strstr(cause, "evals, rho"));
	free(cause);
	/* a list value: parts that are not option names continue it */
	assert_int_equal(pl_options_parse(defs, "objective=heft,expert,evals=7,bias", &o, &cause), 0);
	assert_string_equal(pl_opt_str(o, "objective"), "heft,expert");
	assert_int_equal(pl_opt_int(o, "evals"), 7);
	assert_true(pl_opt_bool(o, "bias"));
	pl_options_free(o);
	/* an empty item is refused, naming the item before it */
	assert_int_equal(pl_options_parse(defs, "evals=3,", &o, &cause), -1);
	assert_non_null(strstr(cause, "an empty item after 'evals=3'"));
	free(cause);
	assert_int_equal(pl_options_parse(defs, "objective=heft,,expert", &o, &cause), -1);
	assert_non_null(strstr(cause, "an empty item after 'objective=heft'"));
	free(cause);
	assert_int_equal(pl_options_parse(defs, ",evals=3", &o, &cause), -1);
	assert_non_null(strstr(cause, "an empty item at the start"));
	free(cause);
	assert_int_equal(pl_options_parse(defs, "evals=1.5", &o, &cause), -1);
	assert_non_null(strstr(cause, "not an integer"));
	free(cause);
	/* integers beyond an int are refused, not wrapped by the placers */
	assert_int_equal(pl_options_parse(defs, "evals=2147483647", &o, &cause), 0);
	assert_int_equal(pl_opt_int(o, "evals"), 2147483647);
	assert_int_equal(pl_options_set(o, "evals", "4294967297", &cause), -1);
	assert_non_null(strstr(cause, "option 'evals': 4294967297 is too large (expected an integer "
	    "in [-2147483648, 2147483647])"));
	free(cause);
	assert_int_equal(pl_options_set(o, "evals", "-2147483649", &cause), -1);
	assert_non_null(strstr(cause, "-2147483649 is too small"));
	free(cause);
	assert_int_equal(pl_opt_int(o, "evals"), 2147483647);
	pl_options_free(o);
}

/* Ranges: values outside are refused when set, with the range named;
 * open ends exclude their bound; the value set before stays. */
static void
test_option_ranges(void **state)
{
	(void)state;
	static const struct pl_option_range ranges[] = {
		{ "evals", "[0, inf)" }, { "rho", "(0.5, 1]" }, { NULL, NULL },
	};
	struct pl_options *o;
	char *cause = NULL;
	assert_int_equal(pl_options_parse_ranged(defs, ranges, "evals=0,rho=1", &o, &cause), 0);
	/* beyond an int: the option's range, its open end at the int's */
	assert_int_equal(pl_options_set(o, "evals", "3000000000", &cause), -1);
	assert_non_null(strstr(cause, "3000000000 is too large (expected an integer in [0, 2147483647])"));
	free(cause);
	assert_false(pl_options_given(o, "objective"));
	assert_true(pl_options_given(o, "rho"));
	assert_int_equal(pl_options_set(o, "rho", "0.5", &cause), -1);
	assert_string_equal(cause, "option 'rho': 0.5 is not in (0.5, 1]");
	free(cause);
	assert_int_equal(pl_options_set(o, "rho", "1.0001", &cause), -1);
	free(cause);
	assert_int_equal(pl_options_set(o, "evals", "-1", &cause), -1);
	assert_string_equal(cause, "option 'evals': -1 is not in [0, inf)");
	free(cause);
	assert_int_equal(pl_opt_int(o, "evals"), 0);
	assert_true(pl_opt_double(o, "rho") == 1);
	pl_options_free(o);
	assert_int_equal(pl_options_parse_ranged(defs, ranges, "rho=2", &o, &cause), -1);
	assert_string_equal(cause, "option 'rho': 2 is not in (0.5, 1]");
	free(cause);
	assert_true(pl_option_range_valid("[-inf, 3)"));
	assert_false(pl_option_range_valid("[1, 0]"));
	assert_false(pl_option_range_valid("0, 1"));
	assert_false(pl_option_range_valid("[0, 1] "));
	assert_string_equal(pl_option_range_of(ranges, "rho"), "(0.5, 1]");
	assert_null(pl_option_range_of(ranges, "bias"));
	/* beyond an int with a fractional or open range: its integers */
	static const struct pl_option_range frac[] = { { "evals", "(0.5, 10)" }, { NULL, NULL } };
	assert_int_equal(pl_options_parse_ranged(defs, frac, "evals=9999999999", &o, &cause), -1);
	assert_non_null(strstr(cause, "is too large (expected an integer in [1, 9])"));
	free(cause);
}

/* Determinism, ranges, stream independence and Beta moments. */
static void
test_rng(void **state)
{
	(void)state;
	struct pl_rng a, b;
	pl_rng_seed(&a, 42);
	pl_rng_seed(&b, 42);
	for (int i = 0; i < 100; i++)
		assert_true(pl_rng_next(&a) == pl_rng_next(&b));
	pl_rng_stream(&a, 42, 0);
	pl_rng_stream(&b, 42, 1);
	assert_true(pl_rng_next(&a) != pl_rng_next(&b));
	/* known first value pins the generator across machines */
	pl_rng_seed(&a, 1);
	uint64_t first = pl_rng_next(&a);
	pl_rng_seed(&b, 1);
	assert_true(pl_rng_next(&b) == first);
	double sum = 0, sumsq = 0;
	int n = 200000;
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&a, 2, 5);
		assert_true(x >= 0 && x <= 1);
		sum += x;
		sumsq += x * x;
	}
	double mean = sum / n, var = sumsq / n - mean * mean;
	/* Beta(2,5): mean 2/7, variance 10/392 */
	assert_true(fabs(mean - 2.0 / 7) < 0.003);
	assert_true(fabs(var - 10.0 / 392) < 0.001);
	int counts[5] = { 0 };
	for (int i = 0; i < 50000; i++)
		counts[pl_rng_below(&a, 5)]++;
	for (int k = 0; k < 5; k++)
		assert_true(abs(counts[k] - 10000) < 400);
	int perm[10];
	for (int i = 0; i < 10; i++)
		perm[i] = i;
	pl_rng_shuffle(&a, perm, 10);
	int seen = 0;
	for (int i = 0; i < 10; i++)
		seen |= 1 << perm[i];
	assert_int_equal(seen, 1023);
}

/* Beta over the whole accepted range of its parameters: tiny shapes give
 * values near 0 and 1 (about half each when equal), huge ones values near
 * the mean, always in [0, 1]; ordinary ones keep their moments. */
static void
test_rng_beta_extremes(void **state)
{
	(void)state;
	struct pl_rng r;
	pl_rng_seed(&r, 7);
	int n = 20000, low = 0, near = 0;
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&r, 1e-300, 1e-300);
		assert_true(x >= 0 && x <= 1);
		low += x < 0.5;
		near += x < 1e-6 || x > 1 - 1e-6;
	}
	/* Bernoulli(1/2): standard deviation 71, so 1,000 is 14 of them */
	if (abs(low - n / 2) > 1000 || near < n - 10)
		fail_msg("Beta(1e-300, 1e-300): %d of %d below 1/2, %d within 1e-6 of 0 or 1",
		    low, n, near);
	/* the smallest accepted shapes (subnormal), equal and not */
	low = near = 0;
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&r, 4.9e-324, 1e-320);
		assert_true(x >= 0 && x <= 1);
		low += x < 0.5;
		near += x < 1e-6 || x > 1 - 1e-6;
	}
	/* P(X > 1/2) -> a / (a + b), about 1/2000 */
	assert_true(near == n && low > n - 100);
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&r, 1e308, 1e308);
		if (!(fabs(x - 0.5) <= 1e-6))
			fail_msg("Beta(1e308, 1e308): %.17g", x);
		x = pl_rng_beta(&r, 1.7e308, 1.7e308);
		assert_true(fabs(x - 0.5) <= 1e-6);
	}
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&r, 1e308, 1);
		assert_true(x >= 1 - 1e-6 && x <= 1);
	}
	near = 0;
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&r, 1e-300, 1);
		assert_true(x >= 0 && x <= 1);
		near += x < 1e-6;
	}
	assert_true(near >= n - 10);
	/* small but ordinary shapes: never exactly 1/2, half each side */
	low = 0;
	int half = 0;
	for (int i = 0; i < n; i++) {
		double x = pl_rng_beta(&r, 0.001, 0.001);
		assert_true(x >= 0 && x <= 1);
		low += x < 0.5;
		half += x == 0.5;
	}
	if (half > 0 || abs(low - n / 2) > 1000)
		fail_msg("Beta(0.001, 0.001): %d exactly 1/2, %d of %d below", half, low, n);
	/* and ordinary ones: Beta(2, 5) has mean 2/7 (sd of the mean 0.0011) */
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += pl_rng_beta(&r, 2, 5);
	assert_true(fabs(sum / n - 2.0 / 7) < 0.01);
}

struct sum_ctx {
	long *out;
};

/* Each index writes its own slot. */
static void
square(void *ctx, int i, int worker)
{
	struct sum_ctx *c = ctx;
	(void)worker;
	c->out[i] = (long)i * i;
}

/* The pool covers every index exactly once, with 1 and several threads. */
static void
test_pool(void **state)
{
	(void)state;
	for (int threads = 1; threads <= 4; threads++) {
		struct pl_pool *p = pl_pool_new(threads);
		assert_int_equal(pl_pool_size(p), threads);
		for (int round = 0; round < 20; round++) {
			long out[1000];
			memset(out, 0xff, sizeof out);
			struct sum_ctx c = { out };
			pl_pool_for(p, 1000, square, &c);
			for (int i = 0; i < 1000; i++)
				assert_true(out[i] == (long)i * i);
		}
		pl_pool_free(p);
	}
}

/* Insert, find, grow. */
static void
test_strmap(void **state)
{
	(void)state;
	struct pl_strmap m;
	pl_strmap_init(&m, 2);
	char keys[500][8];
	for (int i = 0; i < 500; i++) {
		snprintf(keys[i], sizeof keys[i], "k%d", i);
		assert_int_equal(pl_strmap_put(&m, keys[i], i), -1);
	}
	assert_int_equal(pl_strmap_put(&m, "k7", 99), 7);
	for (int i = 0; i < 500; i++)
		assert_int_equal(pl_strmap_get(&m, keys[i]), i);
	assert_int_equal(pl_strmap_get(&m, "nope"), -1);
	pl_strmap_free(&m);
}

/* The roofline's time of op "b" in a graph of ops a0..a{na-1} and b,
 * where b reads output 0 of a_i rep times (edges listed again). */
static double
cost_of_fan_in(int na, int rep)
{
	struct pl_strbuf sb = { 0 };
	pl_sb_printf(&sb, "{\"format\": \"placelab-graph/1\", \"name\": \"f\", \"ops\": [");
	for (int i = 0; i < na; i++)
		pl_sb_printf(&sb, "{\"name\": \"a%d\", \"flops\": 1}, ", i);
	pl_sb_printf(&sb, "{\"name\": \"b\"}], \"edges\": [");
	for (int r = 0; r < rep; r++)
		for (int i = 0; i < na; i++)
			pl_sb_printf(&sb, "%s[\"a%d\", \"b\", 1000000000, 0]", r + i ? ", " : "", i);
	pl_sb_printf(&sb, "]}");
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(sb.s, sb.len, "f", &cause);
	assert_non_null(g);
	assert_int_equal(g->n_edges, na * rep);
	struct pl_cluster *c = pl_cluster_preset("k80x2");
	double us = pl_cost_op_us(g, na, c, 1);
	pl_cluster_free(c);
	pl_graph_free(g);
	free(sb.s);
	return us;
}

/* A tensor consumed by several edges of one op (an edge listed twice) is
 * read once: the op's time is that of one edge per tensor, for a few
 * inputs and for many (another way of counting above 64). */
static void
test_cost_duplicate_edges(void **state)
{
	(void)state;
	double one = cost_of_fan_in(3, 1);
	assert_true(one > 5);	/* memory bound: 3 GB read */
	assert_true(cost_of_fan_in(3, 2) == one);
	assert_true(cost_of_fan_in(3, 5) == one);
	double many = cost_of_fan_in(100, 1);
	assert_true(many > one);
	assert_true(cost_of_fan_in(100, 3) == many);
}

/* Roofline, measured times (kind and device) and transfers. */
static void
test_cost(void **state)
{
	(void)state;
	const char *json = "{\"format\": \"placelab-graph/1\", \"name\": \"c\", \"ops\": [\n"
	    "{\"name\": \"mm\", \"flops\": 4.37e9, \"out_bytes\": 1000},\n"
	    "{\"name\": \"add\", \"flops\": 10, \"out_bytes\": 2.4e8},\n"
	    "{\"name\": \"m\", \"flops\": 1, \"device\": \"gpu\", \"measured_us\": {\"gpu\": 7, \"/gpu:1\": 3}},\n"
	    "{\"name\": \"noop\"}],\n"
	    "\"edges\": [[\"mm\", \"add\", 1000]]}";
	char *cause = NULL;
	struct pl_graph *g = pl_graph_parse_json(json, strlen(json), "c", &cause);
	assert_non_null(g);
	struct pl_cluster *c = pl_cluster_preset("k80x2");	/* cpu, gpu0, gpu1 */
	/* compute bound: 4.37e9 / 4.37e12 s = 1000 us, + 5 us launch */
	assert_true(fabs(pl_cost_op_us(g, 0, c, 1) - 1005) < 1e-9);
	/* memory bound: (1000 in + 2.4e8 out) / 240e9 B/s = 1000.004 us + 5 */
	assert_true(fabs(pl_cost_op_us(g, 1, c, 1) - (1000.004166666 + 5)) < 1e-3);
	assert_true(pl_cost_op_us(g, 2, c, 1) == 7);
	assert_true(pl_cost_op_us(g, 2, c, 2) == 3);
	assert_true(pl_cost_op_us(g, 3, c, 0) == 0);
	/* PCIe: 10 us + 12e9 bytes/s */
	assert_true(fabs(pl_cost_xfer_us(c, 1, 2, 12000000) - 1010) < 1e-9);
	assert_true(pl_cost_xfer_us(c, 1, 1, 12000000) == 0);
	struct pl_problem *p = pl_problem_new(g, c, &cause);
	assert_non_null(p);
	assert_true(pl_problem_op_us(p, 2, 2) == 3);
	assert_true(pl_problem_op_min_us(p, 2) == 3);
	assert_true(p->allowed[0] == 7);
	assert_true(p->allowed[2] == 6);
	pl_problem_free(p);
	pl_cluster_free(c);
	pl_graph_free(g);
}

/* Numbers on the command line and in options: decimal and finite. */
static void
test_parse_number(void **state)
{
	(void)state;
	static const char *const good[] = { "0", "-0", "2", "10.25", "0.5", "1e3", "1E-3",
		"2.5e+2", "0e5", "1e-310", "4.9e-324", NULL };
	static const char *const bad[] = { "", " 1", "1 ", "0x10", "0x0.8p0", "inf", "nan",
		"-inf", "1e", "1e+", ".", "-", "+", "1e400", "1,5", "1.2.3", "+2", "1.", ".5",
		"-.5", "1.e3", "01", "-01", "00", "00.5", NULL };
	double v = -1;
	for (int i = 0; good[i] != NULL; i++) {
		assert_int_equal(pl_parse_number(good[i], &v), 0);
		assert_true(v == strtod(good[i], NULL));
	}
	for (int i = 0; bad[i] != NULL; i++)
		if (pl_parse_number(bad[i], &v) == 0)
			fail_msg("'%s' read as %g", bad[i], v);
	/* whole values, read exactly (2^53 + 1 is not 2^53), clamped */
	static const struct { const char *s; long long v; } whole[] = {
		{ "5", 5 }, { "-0", 0 }, { "0.0e-7", 0 }, { "5e3", 5000 }, { "2.0e1", 20 },
		{ "1E2", 100 }, { "1.50e1", 15 }, { "-25e1", -250 }, { "12500e-2", 125 },
		{ "9007199254740993", 9007199254740993LL }, { "9.007199254740993e15", 9007199254740993LL },
		{ "1e300", LLONG_MAX }, { "-1e19", -LLONG_MAX }, { NULL, 0 },
	};
	for (int i = 0; whole[i].s != NULL; i++) {
		long long x = -1;
		if (pl_parse_whole(whole[i].s, &x) != 0 || x != whole[i].v)
			fail_msg("'%s' read as %lld", whole[i].s, x);
	}
	static const char *const unwhole[] = { "1.5", "1.05e1", "1e-400", "-0.5", "1e400",
		"+5", "05", "abc", "", NULL };
	for (int i = 0; unwhole[i] != NULL; i++) {
		long long x;
		if (pl_parse_whole(unwhole[i], &x) == 0)
			fail_msg("'%s' read as the whole number %lld", unwhole[i], x);
	}
}

/* Terminal columns of UTF-8 text. */
static void
test_utf8_width(void **state)
{
	(void)state;
	assert_int_equal(pl_utf8_width(""), 0);
	assert_int_equal(pl_utf8_width("gpu0"), 4);
	assert_int_equal(pl_utf8_width("caf\xc3\xa9"), 4);		/* precomposed é */
	assert_int_equal(pl_utf8_width("cafe\xcc\x81"), 4);		/* e + combining acute */
	assert_int_equal(pl_utf8_width("\xe7\x94\xb2\xe4\xb9\x99"), 4);	/* 甲乙 */
	assert_int_equal(pl_utf8_width("\xef\xbc\xa1"), 2);		/* fullwidth A */
	assert_int_equal(pl_utf8_width("\xf0\x9f\x9a\x80x"), 3);	/* rocket emoji, x */
	assert_int_equal(pl_utf8_width("a\xe2\x80\x8b" "b"), 2);		/* zero-width space */
	assert_int_equal(pl_utf8_width("\xe2\x80\xa6"), 1);		/* … */
	/* bytes that are not a whole character: one column each */
	assert_int_equal(pl_utf8_width("\xe4" "a"), 2);
	assert_int_equal(pl_utf8_width("\xc3"), 1);
	assert_int_equal(pl_utf8_width("\xff\xff"), 2);
	assert_int_equal(pl_utf8_width("a\x80\x9f" "b"), 4);
}

/* CSV fields: quoted when needed, one line, never a spreadsheet formula. */
static void
test_csv_field(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "gpu0", "gpu0" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "two lines" },
		{ "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"" },
		{ "=1+1", "'=1+1" },
		{ "+cmd", "'+cmd" },
		{ "-gpu", "'-gpu" },
		{ "@SUM(A1)", "'@SUM(A1)" },
		{ "-12.5", "-12.5" },
		{ "+3e2", "+3e2" },
		{ "-inf", "'-inf" },
		{ "+nan", "'+nan" },
		{ "-0x1p3", "'-0x1p3" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct pl_strbuf b = { 0 };
		pl_sb_csv(&b, cases[i][0]);
		assert_string_equal(b.len ? b.s : "", cases[i][1]);
		free(b.s);
	}
}

/* A cluster's check quotes a long device name cut between characters
 * and marked, with the figure and its range after it (a fixed buffer cut
 * it mid-character and lost them). */
static void
test_cluster_validate_long_name(void **state)
{
	(void)state;
	char name[1000];
	int n = snprintf(name, sizeof name, "/gpu:0-");
	for (int k = 0; k < 300; k++, n += 2)
		memcpy(name + n, "é", 3);
	struct pl_cluster *c = pl_cluster_new("long");
	struct pl_device d = { .name = name, .kind = PL_DEV_GPU, .peak_flops = 1,
		.mem_bytes = 1 << 30, .mem_bw = 1e11, .launch_us = 0 };
	pl_cluster_add_device(c, &d, 1e10, 1);
	char *cause = NULL;
	assert_int_equal(pl_cluster_validate(c, &cause), -1);
	char want[200];
	n = snprintf(want, sizeof want, "device '/gpu:0-");
	for (int k = 0; k < 56; k++, n += 2)	/* 7 + 56 * 2 = 119 bytes */
		memcpy(want + n, "é", 3);
	snprintf(want + n, sizeof want - (size_t)n, "…': peak_flops 1 (expected");
	if (strstr(cause, want) == NULL)
		fail_msg("cause '%s'", cause);
	free(cause);
	pl_cluster_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_cluster_validate_long_name),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_utf8_width),
		cmocka_unit_test(test_parse_number),
		cmocka_unit_test(test_option_ranges),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_rng_beta_extremes),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_strmap),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_cost_duplicate_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
