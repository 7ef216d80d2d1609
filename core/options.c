/*
 * options — typed option tables parsed from text.
 * Invariant: values[i] always holds valid text for defs[i]'s type (an
 * integer within the range of int) within the option's range; given[i]
 * says whether it was set rather than left at its default.
 */
#include "options.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmalloc.h"

struct pl_options {
	const struct pl_option_def *defs;
	const struct pl_option_range *ranges;	/* NULL: none */
	int n;
	char **values;
	char *given;
};

/* A range read from its text. */
struct range {
	double lo, hi;
	int lo_open, hi_open;
};

/* Read "[lo, hi]" (ends ( ) open); 0, or -1 when malformed. */
static int
range_read(const char *s, struct range *r)
{
	char *end;
	if (*s != '[' && *s != '(')
		return -1;
	r->lo_open = *s++ == '(';
	r->lo = strtod(s, &end);
	if (end == s || *end != ',')
		return -1;
	s = end + 1;
	r->hi = strtod(s, &end);
	if (end == s || (*end != ']' && *end != ')') || end[1] != '\0' || !(r->lo <= r->hi))
		return -1;
	r->hi_open = *end == ')';
	return 0;
}

/* Whether text is a well-formed range. */
int
pl_option_range_valid(const char *text)
{
	struct range r;
	return text != NULL && range_read(text, &r) == 0;
}

/* The range text of an option, or NULL. */
const char *
pl_option_range_of(const struct pl_option_range *ranges, const char *name)
{
	for (const struct pl_option_range *r = ranges; r != NULL && r->name != NULL; r++)
		if (strcmp(r->name, name) == 0)
			return r->range;
	return NULL;
}

/* Whether number v is in the range text (a malformed range is a
 * programming error: abort). */
static int
in_range(const char *text, double v)
{
	struct range r;
	if (range_read(text, &r) != 0) {
		fprintf(stderr, "placelab: internal error: malformed option range '%s'\n", text);
		abort();
	}
	return (r.lo_open ? v > r.lo : v >= r.lo) && (r.hi_open ? v < r.hi : v <= r.hi);
}

/* Whether v is a number (pl_parse_number) with a whole value, of any
 * size (5, 5e3, 2.0e1); its value, clamped to long long, in *x. */
static int
int_text(const char *v, long long *x)
{
	return pl_parse_whole(v, x) == 0;
}

/* Check that text is a valid value of type t. */
static int
valid_value(enum pl_opt_type t, const char *v)
{
	long long x;
	switch (t) {
	case PL_OPT_INT:
		return int_text(v, &x) && x >= INT_MIN && x <= INT_MAX;
	case PL_OPT_DOUBLE: {
		double d;
		return pl_parse_number(v, &d) == 0;
	}
	case PL_OPT_BOOL:
		return !strcmp(v, "0") || !strcmp(v, "1") || !strcmp(v, "true") ||
		    !strcmp(v, "false") || !strcmp(v, "yes") || !strcmp(v, "no") ||
		    !strcmp(v, "on") || !strcmp(v, "off");
	case PL_OPT_STRING:
	case PL_OPT_FILE:
		return 1;
	}
	return 0;
}

static const char *const type_names[] = { "an integer", "a number", "a string", "a boolean",
	"a file name" };

/* Index of name in the table, or -1. */
static int
find(const struct pl_options *o, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->defs[i].name, name) == 0)
			return i;
	return -1;
}

/* Set one option from text. */
int
pl_options_set(struct pl_options *o, const char *name, const char *value, char **cause)
{
	int i = find(o, name);
	if (i < 0) {
		char known[512] = "";
		size_t used = 0;
		for (int k = 0; k < o->n && used < sizeof known - 40; k++)
			used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "", o->defs[k].name);
		*cause = pl_xasprintf("unknown option '%s' (expected one of: %s)", name, o->n ? known : "none");
		return -1;
	}
	const char *range = pl_option_range_of(o->ranges, name);
	if (!valid_value(o->defs[i].type, value)) {
		long long x;
		if (o->defs[i].type == PL_OPT_INT && int_text(value, &x)) {
			/* the integers of the option's own range that an int holds
			 * ("[0, inf)": [0, 2147483647]; "(0.5, 10]": [1, 10]) */
			double lo = INT_MIN, hi = INT_MAX;
			struct range rg;
			if (range != NULL && range_read(range, &rg) == 0) {
				double a = rg.lo_open ? floor(rg.lo) + 1 : ceil(rg.lo);
				double b = rg.hi_open ? ceil(rg.hi) - 1 : floor(rg.hi);
				lo = a > lo ? a : lo;
				hi = b < hi ? b : hi;
			}
			*cause = pl_xasprintf("option '%s': %s is too %s (expected an integer in [%.0f, %.0f])",
			    name, value, x > 0 ? "large" : "small", lo, hi);
		} else
			*cause = pl_xasprintf("option '%s': '%s' is not %s", name, value, type_names[o->defs[i].type]);
		return -1;
	}
	if (range != NULL && (o->defs[i].type == PL_OPT_INT || o->defs[i].type == PL_OPT_DOUBLE) &&
	    !in_range(range, strtod(value, NULL))) {
		*cause = pl_xasprintf("option '%s': %s is not in %s", name, value, range);
		return -1;
	}
	free(o->values[i]);
	long long x;
	/* an integer kept in digits ("5e3" as 5000), as pl_opt_int reads it */
	o->values[i] = o->defs[i].type == PL_OPT_INT && int_text(value, &x) ?
	    pl_xasprintf("%lld", x) : pl_xstrdup(value);
	o->given[i] = 1;
	return 0;
}

/* Set item name from a spec: its value, or none given (val NULL), which
 * only a boolean takes (as true). */
static int
set_item(struct pl_options *o, const char *name, const char *val, char **cause)
{
	if (val == NULL) {
		int i = find(o, name);
		if (i >= 0 && o->defs[i].type != PL_OPT_BOOL) {
			*cause = pl_xasprintf("option '%s' needs a value (%s=%s)", name, name,
			    o->defs[i].type == PL_OPT_STRING ? "TEXT" :
			    o->defs[i].type == PL_OPT_FILE ? "FILE" : "N");
			return -1;
		}
		val = "1";
	}
	return pl_options_set(o, name, val, cause);
}

/* Apply "a=1,b=x,flag" to o. */
int
pl_options_apply(struct pl_options *o, const char *spec, char **cause)
{
	if (spec == NULL || *spec == '\0')
		return 0;
	/* Items are "name=value" or "name" (a boolean); a part without '='
	 * that is not an option name continues the previous value, so
	 * lists such as "seed-from=heft,expert" need no quoting. */
	char *copy = pl_xstrdup(spec), *rest = copy;
	char *name = NULL, *val = NULL, *prev = NULL;
	int rc = 0;
	for (char *tok = strsep(&rest, ","); tok && rc == 0; prev = tok, tok = strsep(&rest, ",")) {
		if (*tok == '\0') {
			if (prev == NULL)
				*cause = pl_xasprintf("options: an empty item at the start "
				    "(expected name=value items separated by single commas)");
			else
				*cause = pl_xasprintf("options: an empty item after '%s' (expected "
				    "name=value items separated by single commas)", prev);
			rc = -1;
			break;
		}
		char *eq = strchr(tok, '=');
		if (eq == NULL && val != NULL && find(o, tok) < 0) {
			char *joined = pl_xasprintf("%s,%s", val, tok);
			free(val);
			val = joined;
			continue;
		}
		if (name != NULL)
			rc = set_item(o, name, val, cause);
		free(name);
		free(val);
		name = pl_xstrndup(tok, eq != NULL ? (size_t)(eq - tok) : strlen(tok));
		val = eq != NULL ? pl_xstrdup(eq + 1) : NULL;
	}
	if (rc == 0 && name != NULL)
		rc = set_item(o, name, val, cause);
	free(name);
	free(val);
	free(copy);
	return rc;
}

/* Parse "a=1,b=2" against defs and ranges (the defaults are taken as
 * written: tests/test-placers checks every method's defaults). */
int
pl_options_parse_ranged(const struct pl_option_def *defs, const struct pl_option_range *ranges,
    const char *spec, struct pl_options **out, char **cause)
{
	static const struct pl_option_def none[] = { { NULL, 0, NULL, NULL } };
	struct pl_options *o = pl_xcalloc(1, sizeof *o);
	o->defs = defs != NULL ? defs : none;
	o->ranges = ranges;
	while (o->defs[o->n].name != NULL)
		o->n++;
	o->values = pl_xcalloc(o->n ? o->n : 1, sizeof *o->values);
	o->given = pl_xcalloc(o->n ? o->n : 1, 1);
	for (int i = 0; i < o->n; i++)
		o->values[i] = pl_xstrdup(o->defs[i].def != NULL ? o->defs[i].def : "");
	if (pl_options_apply(o, spec, cause) != 0) {
		pl_options_free(o);
		return -1;
	}
	*out = o;
	return 0;
}

/* Parse "a=1,b=2" against defs. */
int
pl_options_parse(const struct pl_option_def *defs, const char *spec,
    struct pl_options **out, char **cause)
{
	return pl_options_parse_ranged(defs, NULL, spec, out, cause);
}

/* Whether name is in the table. */
int
pl_options_has(const struct pl_options *o, const char *name)
{
	return find(o, name) >= 0;
}

/* Whether option name was given. */
int
pl_options_given(const struct pl_options *o, const char *name)
{
	int i = find(o, name);
	return i >= 0 && o->given[i];
}

/* Free parsed options. */
void
pl_options_free(struct pl_options *o)
{
	if (o == NULL)
		return;
	for (int i = 0; i < o->n; i++)
		free(o->values[i]);
	free(o->values);
	free(o->given);
	free(o);
}

/* Text of a known option; aborts on a programming error. */
static const char *
must(const struct pl_options *o, const char *name)
{
	int i = find(o, name);
	if (i < 0) {
		fprintf(stderr, "placelab: internal error: option '%s' not declared\n", name);
		abort();
	}
	return o->values[i];
}

/* Integer option. */
int64_t
pl_opt_int(const struct pl_options *o, const char *name)
{
	return strtoll(must(o, name), NULL, 10);
}

/* Number option. */
double
pl_opt_double(const struct pl_options *o, const char *name)
{
	return strtod(must(o, name), NULL);
}

/* String option. */
const char *
pl_opt_str(const struct pl_options *o, const char *name)
{
	return must(o, name);
}

/* Boolean option. */
int
pl_opt_bool(const struct pl_options *o, const char *name)
{
	const char *v = must(o, name);
	return !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on");
}

/* The option table. */
const struct pl_option_def *
pl_options_defs(const struct pl_options *o)
{
	return o->defs;
}

/* Text of option i. */
const char *
pl_options_value(const struct pl_options *o, int i)
{
	return o->values[i];
}
