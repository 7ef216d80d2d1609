/*
 * options — typed option tables, declared once per placer (name, type,
 * default, help) and parsed from "key=value,key=value" strings or from
 * command-line "--key value" pairs.  --help, the explorer and docs list the
 * same tables.
 *
 * A numeric option may have a range, declared next to its table (struct
 * pl_option_range): a value outside it is refused when it is set, the
 * way a malformed value is.
 *
 * Invariant: a parsed struct pl_options holds one value for every option of
 * its table (the default when not given), within its range, and nothing
 * else.
 */
#ifndef PL_OPTIONS_H
#define PL_OPTIONS_H

#include <stdint.h>

/* PL_OPT_FILE: text naming a file the method reads (commands keep their
 * outputs off it). */
enum pl_opt_type { PL_OPT_INT, PL_OPT_DOUBLE, PL_OPT_STRING, PL_OPT_BOOL, PL_OPT_FILE };

struct pl_option_def {
	const char *name;	/* NULL ends a table */
	enum pl_opt_type type;
	const char *def;	/* default as text */
	const char *help;
};

/* The values a numeric option takes: range is "[lo, hi]", an end written
 * with ( or ) being open, inf (or -inf) for no bound, e.g. "[0.5, 1]",
 * "(0, inf)".  A NULL name ends a table. */
struct pl_option_range {
	const char *name;
	const char *range;
};

struct pl_options;


/* Parse spec ("a=1,b=x,flag"; NULL or "" for all defaults).  A part
 * without '=' that is not an option name continues the previous value
 * ("seed-from=heft,expert").  -1 + *cause on an unknown name, a
 * malformed value or a value missing. */
int pl_options_parse(const struct pl_option_def *defs, const char *spec,
    struct pl_options **out, char **cause);
/* pl_options_parse with the options' ranges (NULL: none): a value given
 * out of its range is an error ("option 'rho': 2 is not in [0.5, 1]").
 * Defaults are taken as written (tests/test-placers checks that every
 * method's defaults are within their ranges). */
int pl_options_parse_ranged(const struct pl_option_def *defs,
    const struct pl_option_range *ranges, const char *spec,
    struct pl_options **out, char **cause);
/* The range text of option name in ranges, or NULL when it has none. */
const char *pl_option_range_of(const struct pl_option_range *ranges, const char *name);
/* Whether text is a range as struct pl_option_range describes. */
int pl_option_range_valid(const char *text);
/* Apply a spec as pl_options_parse reads it to o (a part without '='
 * is a boolean set to true; another option without a value is an
 * error).  -1 + *cause. */
int pl_options_apply(struct pl_options *o, const char *spec, char **cause);
/* Set one option by name from text.  -1 + *cause on error. */
int pl_options_set(struct pl_options *o, const char *name, const char *value,
    char **cause);
/* Whether name is in the table. */
int pl_options_has(const struct pl_options *o, const char *name);
/* Whether option name was given (set from a spec or by name) rather than
 * left at its default. */
int pl_options_given(const struct pl_options *o, const char *name);
void pl_options_free(struct pl_options *o);

/* Typed getters; the name must be in the table (abort otherwise).  An
 * integer option's value always fits an int. */
int64_t pl_opt_int(const struct pl_options *o, const char *name);
double pl_opt_double(const struct pl_options *o, const char *name);
const char *pl_opt_str(const struct pl_options *o, const char *name);
int pl_opt_bool(const struct pl_options *o, const char *name);
/* The table the options were parsed with. */
const struct pl_option_def *pl_options_defs(const struct pl_options *o);
/* Text value of option i of the table. */
const char *pl_options_value(const struct pl_options *o, int i);

#endif
