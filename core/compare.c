/*
 * compare — the comparison table (see compare.h) and its writers.
 * Invariant: derived columns always reflect the current rows; every writer
 * prints the same cells (text formats) or the same raw numbers (CSV, JSON);
 * no name can break a format: the text writers (table, Markdown, LaTeX,
 * CSV) print a control character as a space, and each escapes what its
 * format reads as markup (JSON escapes everything through cJSON).
 */
#include "compare.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io.h"
#include "strbuf.h"
#include "xmalloc.h"

static const char *const format_names[] = {
#define PL_X(e, s) s,
	PL_COMPARE_FORMATS(PL_X)
#undef PL_X
};

/* Format by name (any case, as a file suffix may be written). */
int
pl_compare_format_parse(const char *s)
{
	if (s == NULL)
		return -1;
	if (strcasecmp(s, "markdown") == 0)
		return PL_CMP_MD;
	if (strcasecmp(s, "latex") == 0)
		return PL_CMP_TEX;
	for (int i = 0; i < (int)(sizeof format_names / sizeof *format_names); i++)
		if (strcasecmp(s, format_names[i]) == 0)
			return i;
	return -1;
}

/* The format a file suffix names (txt: the text table). */
int
pl_compare_format_of_suffix(const char *ext)
{
	if (ext == NULL)
		return -1;
	if (strcasecmp(ext, "txt") == 0)
		return PL_CMP_TABLE;
	if (strcasecmp(ext, "table") == 0)	/* a format, not a suffix */
		return -1;
	return pl_compare_format_parse(ext);
}

/* Name of a format. */
const char *
pl_compare_format_name(enum pl_compare_format f)
{
	return format_names[f];
}

/* A new, empty table for problem p. */
struct pl_compare *
pl_compare_new(const struct pl_problem *p, const struct pl_run_opts *run)
{
	struct pl_compare *cmp = pl_xcalloc(1, sizeof *cmp);
	cmp->prob = p;
	cmp->run = *run;
	cmp->graph = pl_xstrdup(p->g->name != NULL ? p->g->name : "");
	cmp->cluster = pl_xstrdup(p->c->name != NULL ? p->c->name : "");
	cmp->sim = pl_xstrdup(pl_sim_kind_name(run->sim.kind));
	cmp->mem = pl_xstrdup(pl_mem_model_name(run->sim.mem));
	struct pl_bounds b;
	pl_bounds_compute(p, &b);
	cmp->bound_us = b.best_us;
	return cmp;
}

/* Free a row's contents. */
static void
row_clear(struct pl_compare_row *r)
{
	free(r->method);
	free(r->title);
	free(r->status);
	free(r->peak_dev);
	pl_placement_free(r->best);
}

/* Free the table. */
void
pl_compare_free(struct pl_compare *cmp)
{
	if (cmp == NULL)
		return;
	for (int i = 0; i < cmp->n_rows; i++)
		row_clear(&cmp->rows[i]);
	free(cmp->rows);
	free(cmp->graph);
	free(cmp->cluster);
	free(cmp->sim);
	free(cmp->mem);
	free(cmp);
}

/* Append a zeroed row. */
static struct pl_compare_row *
new_row(struct pl_compare *cmp)
{
	if (cmp->n_rows == cmp->cap_rows) {
		cmp->cap_rows = cmp->cap_rows ? cmp->cap_rows * 2 : 16;
		cmp->rows = pl_xreallocarray(cmp->rows, cmp->cap_rows, sizeof *cmp->rows);
	}
	struct pl_compare_row *r = &cmp->rows[cmp->n_rows++];
	memset(r, 0, sizeof *r);
	r->makespan_us = r->time_vs_expert_pct = r->gap_best_pct = r->gap_bound_pct = NAN;
	r->search_s = NAN;
	return r;
}

/* Fill row r's figures from a simulation res (memory modelled unless
 * mem_known is 0); the peak is the fullest device's. */
static void
fill_result(struct pl_compare_row *r, const struct pl_cluster *c,
    const struct pl_sim_result *res, int mem_known)
{
	r->has_result = 1;
	r->makespan_us = res->makespan_us;
	r->bytes_moved = res->bytes_moved;
	r->mem_known = mem_known;
	if (!r->mem_known)
		return;
	r->oom = res->oom_mask != 0;
	int worst = res->fullest;
	r->peak_bytes = res->peak_fullest;
	r->peak_cap = c->dev[worst].mem_bytes;
	free(r->peak_dev);
	r->peak_dev = pl_xstrdup(c->dev[worst].name);
}

/* Row from a placer. */
void
pl_compare_add_placer(struct pl_compare *cmp, const struct pl_placer *pl)
{
	struct pl_compare_row *r = new_row(cmp);
	r->method = pl_xstrdup(pl->cls->name);
	r->title = pl_xstrdup(pl->cls->title != NULL ? pl->cls->title : pl->cls->name);
	if (pl->error != NULL && pl->best == NULL)
		r->status = pl_xasprintf("error: %s", pl->error);
	else
		r->status = pl_xstrdup(pl->status != NULL ? pl->status : "");
	r->search_s = pl->search_s;
	r->evals = pl->evals;
	r->steps = pl->n_steps;
	r->peak_dev = pl_xstrdup("");
	if (pl->best != NULL) {
		r->best = pl_placement_clone(pl->best);
		fill_result(r, pl->prob->c, &pl->best_res, pl->run.sim.mem != PL_MEM_NONE);
	}
	pl_compare_update(cmp);
}

/* The row of a placement no method of the table found. */
void
pl_compare_current_row(const struct pl_compare *cmp, const char *title, const char *status,
    const struct pl_sim_result *res, struct pl_compare_row *r)
{
	memset(r, 0, sizeof *r);
	r->current = 1;
	r->method = pl_xstrdup("current");
	r->title = pl_xstrdup(title);
	r->status = pl_xstrdup(status);
	r->peak_dev = pl_xstrdup("");
	r->search_s = NAN;
	fill_result(r, cmp->prob->c, res, strcmp(cmp->mem, "none") != 0);
	pl_compare_derive(cmp, r);
}

/* Free a row's contents (a row from pl_compare_current_row()). */
void
pl_compare_row_free(struct pl_compare_row *r)
{
	row_clear(r);
	memset(r, 0, sizeof *r);
}

/* Refresh a row in place: build it at the end, then move it to i. */
void
pl_compare_set_placer(struct pl_compare *cmp, int i, const struct pl_placer *pl)
{
	pl_compare_add_placer(cmp, pl);
	struct pl_compare_row fresh = cmp->rows[--cmp->n_rows];
	row_clear(&cmp->rows[i]);
	cmp->rows[i] = fresh;
	pl_compare_update(cmp);
}

/* Row for a method that did not run. */
void
pl_compare_add_failure(struct pl_compare *cmp, const struct pl_placer_class *cls,
    const char *why)
{
	struct pl_compare_row *r = new_row(cmp);
	r->method = pl_xstrdup(cls->name);
	r->title = pl_xstrdup(cls->title != NULL ? cls->title : cls->name);
	r->status = pl_xasprintf("error: %s", why);
	r->peak_dev = pl_xstrdup("");
	r->search_s = 0;
}

/* Run one method within a budget and add it. */
int
pl_compare_run(struct pl_compare *cmp, const struct pl_placer_class *cls,
    const char *optspec, const struct pl_compare_budget *b)
{
	char *cause = NULL;
	struct pl_placer *pl = pl_placer_new(cls, cmp->prob, optspec, &cmp->run, &cause);
	if (pl == NULL) {
		pl_compare_add_failure(cmp, cls, cause);
		free(cause);
		return cmp->n_rows - 1;
	}
	pl_placer_run(pl, b != NULL ? b->max_steps : 0, b != NULL ? b->max_seconds : 0);
	pl_compare_add_placer(cmp, pl);
	pl_placer_free(pl);
	return cmp->n_rows - 1;
}

/* Best fitting row. */
int
pl_compare_best(const struct pl_compare *cmp)
{
	int best = -1;
	for (int i = 0; i < cmp->n_rows; i++) {
		const struct pl_compare_row *r = &cmp->rows[i];
		if (r->has_result && !r->oom && !r->current &&
		    (best < 0 || r->makespan_us < cmp->rows[best].makespan_us))
			best = i;
	}
	return best;
}

/* The table's expert run time (NAN: none that fits). */
static double
expert_us(const struct pl_compare *cmp)
{
	double expert = NAN;
	for (int i = 0; i < cmp->n_rows; i++) {
		const struct pl_compare_row *e = &cmp->rows[i];
		if (strcmp(e->method, "expert") == 0 && e->has_result && !e->oom)
			expert = e->makespan_us;
	}
	return expert;
}

/* Row r's derived columns against the expert's run time, the best row
 * and the table's bound. */
static void
derive(const struct pl_compare *cmp, struct pl_compare_row *r, double expert, int best)
{
	r->time_vs_expert_pct = r->gap_best_pct = r->gap_bound_pct = NAN;
	if (!r->has_result)
		return;
	/* relative differences as the gap to bound takes them: against a
	 * time of 0, 0 for 0 and none (NAN) for more */
	if (expert >= 0)
		r->time_vs_expert_pct = pl_gap_to_bound(expert, r->makespan_us) * 100;
	if (best >= 0)
		r->gap_best_pct = pl_gap_to_bound(cmp->rows[best].makespan_us, r->makespan_us) * 100;
	r->gap_bound_pct = pl_gap_to_bound(cmp->bound_us, r->makespan_us) * 100;
}

/* A row's derived columns against the table's expert, best and bound
 * (the row need not be one of the table's). */
void
pl_compare_derive(const struct pl_compare *cmp, struct pl_compare_row *r)
{
	derive(cmp, r, expert_us(cmp), pl_compare_best(cmp));
}

/* Derived columns of every row (the expert and the best found once). */
void
pl_compare_update(struct pl_compare *cmp)
{
	double expert = expert_us(cmp);
	int best = pl_compare_best(cmp);
	for (int i = 0; i < cmp->n_rows; i++)
		derive(cmp, &cmp->rows[i], expert, best);
}

/* Methods from a list. */
int
pl_compare_methods(const char *list, const struct pl_placer_class ***out, char **cause)
{
	int n = 0;
	while (pl_placer_classes[n] != NULL)
		n++;
	const struct pl_placer_class **m = pl_xcalloc((size_t)n + 1, sizeof *m);
	int k = 0;
	/* "all" alone, blanks around it as around any name */
	size_t lead = list != NULL ? strspn(list, " ") : 0;
	int all = list != NULL && strncmp(list + lead, "all", 3) == 0 &&
	    list[lead + 3 + strspn(list + lead + 3, " ")] == '\0';
	if (list == NULL || all) {
		for (int i = 0; i < n; i++)
			if (all || pl_placer_classes[i]->quick)
				m[k++] = pl_placer_classes[i];
		*out = m;
		return 0;
	}
	if (list[strspn(list, " ")] == '\0') {
		*cause = pl_xasprintf("no method named (expected a comma-separated list of "
		    "the names 'placelab run --list' prints, or all)");
		free(m);
		return -1;
	}
	char *copy = pl_xstrdup(list), *rest = copy, *prev = NULL;
	for (char *t = strsep(&rest, ","); t != NULL; prev = t, t = strsep(&rest, ",")) {
		while (*t == ' ')
			t++;
		size_t tl = strlen(t);
		while (tl > 0 && t[tl - 1] == ' ')
			t[--tl] = '\0';
		const struct pl_placer_class *cls = *t != '\0' ? pl_placer_find(t) : NULL;
		int dup = 0;
		for (int i = 0; cls != NULL && i < k; i++)
			dup |= m[i] == cls;
		if (*t == '\0' && prev == NULL)
			*cause = pl_xasprintf("an empty item at the start (expected method names "
			    "separated by single commas)");
		else if (*t == '\0')
			*cause = pl_xasprintf("an empty item after '%s' (expected method names "
			    "separated by single commas)", prev);
		else if (cls == NULL && strcmp(t, "all") == 0)
			*cause = pl_xasprintf("'all' in a list (expected 'all' alone, for every method, "
			    "or the methods' names)");
		else if (cls == NULL)
			*cause = pl_xasprintf("unknown method '%s' (expected one of the names 'placelab run --list' prints)", t);
		else if (dup)
			*cause = pl_xasprintf("'%s' is named twice (expected each method once)", t);
		if (*t == '\0' || cls == NULL || dup) {
			free(copy);
			free(m);
			return -1;
		}
		m[k++] = cls;
	}
	free(copy);
	*out = m;
	return 0;
}

/* ---- writers ------------------------------------------------------------ */

#define N_COLS PL_COMPARE_NCOLS
const char *const pl_compare_headers[PL_COMPARE_NCOLS] = {
	"method", "step time (ms)", "time vs expert", "gap to best", "gap to bound",
	"peak memory (GiB)", "OOM", "moved (MB)", "search (s)", "evals",
};

/* Whether c is an ASCII control character (a newline, a tab, ...). */
static int
is_ctl(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* Control characters of s to spaces, in place. */
static void
no_ctl(char *s)
{
	for (; *s; s++)
		if (is_ctl(*s))
			*s = ' ';
}

/* Write s with its control characters as spaces. */
static void
put_plain(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(is_ctl(*s) ? ' ' : *s, f);
}

/* Format a percentage cell. */
static void
pct_cell(char *buf, size_t len, double v, int sign)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, sign ? "%+.1f%%" : "%.1f%%", v);
}

/* cell = before + name + after, the name cut at its start to fit (after
 * "…", on a UTF-8 character's first byte) when the whole does not: its
 * end tells names apart ("…/task:0/device:GPU:3"), and the cell stays
 * UTF-8 with its closing text. */
static void
name_cell(char cell[PL_COMPARE_CELL], const char *before, const char *name, const char *after)
{
	static const char more[] = "\u2026";
	size_t room = PL_COMPARE_CELL - 1 - strlen(before) - strlen(after);
	size_t n = strlen(name);
	if (n > room) {
		name += n - (room - (sizeof more - 1));
		while ((*name & 0xC0) == 0x80)	/* a continuation byte */
			name++;
		snprintf(cell, PL_COMPARE_CELL, "%s%s%s%s", before, more, name, after);
	} else
		snprintf(cell, PL_COMPARE_CELL, "%s%s%s", before, name, after);
}

/* The human-readable cells of a row. */
void
pl_compare_row_cells(const struct pl_compare_row *r, char cells[PL_COMPARE_NCOLS][PL_COMPARE_CELL])
{
	const double gib = 1024.0 * 1024 * 1024;
	name_cell(cells[0], "", r->title, "");
	/* a placement no method found (the current row) has no search */
	if (isnan(r->search_s))
		cells[8][0] = '\0';
	else if (r->search_s < 0.0005)
		snprintf(cells[8], PL_COMPARE_CELL, "<0.001");
	else
		snprintf(cells[8], PL_COMPARE_CELL, "%.3f", r->search_s);
	if (r->current)
		cells[9][0] = '\0';
	else
		snprintf(cells[9], PL_COMPARE_CELL, "%ld", r->evals);
	if (!r->has_result) {
		for (int i = 1; i < 8; i++)
			snprintf(cells[i], PL_COMPARE_CELL, "n/a");
	} else {
		snprintf(cells[1], PL_COMPARE_CELL, "%.3f", r->makespan_us / 1000);
		pct_cell(cells[2], PL_COMPARE_CELL, r->time_vs_expert_pct, 1);
		pct_cell(cells[3], PL_COMPARE_CELL, r->gap_best_pct, 0);
		pct_cell(cells[4], PL_COMPARE_CELL, r->gap_bound_pct, 0);
		if (r->mem_known) {
			char peak[32];
			snprintf(peak, sizeof peak, "%.2f (", (double)r->peak_bytes / gib);
			name_cell(cells[5], peak, r->peak_dev, ")");
			snprintf(cells[6], PL_COMPARE_CELL, "%s", r->oom ? "OOM" : "no");
		} else {
			snprintf(cells[5], PL_COMPARE_CELL, "n/a");
			snprintf(cells[6], PL_COMPARE_CELL, "n/a");
		}
		snprintf(cells[7], PL_COMPARE_CELL, "%.1f", (double)r->bytes_moved / 1e6);
	}
	for (int i = 0; i < PL_COMPARE_NCOLS; i++)
		no_ctl(cells[i]);
}

/* One line naming what was compared: graph, cluster, simulator, memory
 * model (peaks differ between models) and the bound; control characters
 * as spaces, however long the names.  The caller frees it. */
static char *
caption(const struct pl_compare *cmp)
{
	char *cap = pl_xasprintf("%s on %s, %s simulator, %s%s, lower bound %.3f ms",
	    cmp->graph, cmp->cluster, cmp->sim,
	    strcmp(cmp->mem, "none") == 0 ? "memory not modelled (--mem none)" : cmp->mem,
	    strcmp(cmp->mem, "none") == 0 ? "" : " memory model", cmp->bound_us / 1000);
	no_ctl(cap);
	return cap;
}

/* A line on a row without a result or out of memory: its method and
 * status after prefix (a comment mark). */
static void
note(FILE *f, const char *prefix, const struct pl_compare_row *r)
{
	fputs(prefix, f);
	put_plain(f, r->method);
	fputs(": ", f);
	put_plain(f, r->status);
	fputc('\n', f);
}

/* s in a column of width w (in terminal columns: a name's "…" is one
 * column, not three bytes, a CJK character two), left- or right-aligned,
 * after sep. */
static void
put_col(FILE *f, const char *sep, const char *s, int w, int left)
{
	int pad = w - (int)pl_utf8_width(s);
	fputs(sep, f);
	for (int k = 0; !left && k < pad; k++)
		fputc(' ', f);
	fputs(s, f);
	for (int k = 0; left && k < pad; k++)
		fputc(' ', f);
}

/* Aligned plain text. */
static void
write_table(const struct pl_compare *cmp, FILE *f)
{
	int w[N_COLS];
	char cells[N_COLS][PL_COMPARE_CELL];
	for (int c = 0; c < N_COLS; c++)
		w[c] = (int)pl_utf8_width(pl_compare_headers[c]);
	for (int i = 0; i < cmp->n_rows; i++) {
		pl_compare_row_cells(&cmp->rows[i], cells);
		for (int c = 0; c < N_COLS; c++)
			if ((int)pl_utf8_width(cells[c]) > w[c])
				w[c] = (int)pl_utf8_width(cells[c]);
	}
	char *cap = caption(cmp);
	fprintf(f, "%s\n", cap);
	free(cap);
	for (int c = 0; c < N_COLS; c++)
		put_col(f, c == 0 ? "" : "  ", pl_compare_headers[c], w[c], c == 0);
	fputc('\n', f);
	for (int c = 0; c < N_COLS; c++) {
		fputs(c == 0 ? "" : "  ", f);
		for (int k = 0; k < w[c]; k++)
			fputc('-', f);
	}
	fputc('\n', f);
	for (int i = 0; i < cmp->n_rows; i++) {
		pl_compare_row_cells(&cmp->rows[i], cells);
		for (int c = 0; c < N_COLS; c++)
			put_col(f, c == 0 ? "" : "  ", cells[c], w[c], c == 0);
		fputc('\n', f);
	}
	for (int i = 0; i < cmp->n_rows; i++)
		if (!cmp->rows[i].has_result || cmp->rows[i].oom)
			note(f, "", &cmp->rows[i]);
}

/* Whether c is an ASCII letter or digit. */
static int
is_alnum(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Write s as Markdown text that shows as written (compare.h): a backslash
 * before each character that could start markup ('_' only where it could
 * start emphasis: not inside a word; '<' before a tag, '&' before an
 * entity), control characters as spaces.  At
 * the start of a line (line_start), leading blanks are dropped (an indent
 * would make code) and a character that would begin a heading, list,
 * quote or rule is escaped, and the '.' or ')' after leading digits (an
 * ordered list). */
static void
md_text(FILE *f, const char *s, int line_start)
{
	const char *p = s;
	if (line_start) {
		while (*p == ' ' || *p == '\t')	/* (an indent is a code block) */
			p++;
		s = p;
		if (*p != '\0' && strchr("#-+=>", *p) != NULL) {
			fputc('\\', f);
			fputc(*p++, f);
		} else {
			while (*p >= '0' && *p <= '9')
				fputc(*p++, f);
			if (p > s && (*p == '.' || *p == ')')) {
				fputc('\\', f);
				fputc(*p++, f);
			}
		}
	}
	for (; *p; p++) {
		int esc = strchr("\\|*`[]~", *p) != NULL;
		if (*p == '_')	/* emphasis */
			esc = p == s || !is_alnum(p[-1]) || !is_alnum(p[1]);
		else if (*p == '<')	/* a tag or an autolink */
			esc = p[1] == '/' || p[1] == '!' || p[1] == '?' ||
			    ((p[1] | 0x20) >= 'a' && (p[1] | 0x20) <= 'z');
		else if (*p == '&')	/* an entity */
			esc = p[1] == '#' || is_alnum(p[1]);
		if (esc)
			fputc('\\', f);
		fputc(is_ctl(*p) ? ' ' : *p, f);
	}
}

/* A Markdown table cell (compare.h). */
void
pl_compare_md_cell(FILE *f, const char *s)
{
	md_text(f, s, 0);
}

/* GitHub-flavoured Markdown table; the best row in bold. */
static void
write_md(const struct pl_compare *cmp, FILE *f)
{
	char cells[N_COLS][PL_COMPARE_CELL], *cap = caption(cmp);
	md_text(f, cap, 1);
	free(cap);
	fputs("\n\n|", f);
	for (int c = 0; c < N_COLS; c++)
		fprintf(f, " %s |", pl_compare_headers[c]);
	fputs("\n|", f);
	for (int c = 0; c < N_COLS; c++)
		fputs(c == 0 || c == 6 ? ":---|" : "---:|", f);
	fputc('\n', f);
	int best = pl_compare_best(cmp);
	for (int i = 0; i < cmp->n_rows; i++) {
		pl_compare_row_cells(&cmp->rows[i], cells);
		fputc('|', f);
		for (int c = 0; c < N_COLS; c++) {
			fputc(' ', f);
			int bold = i == best && (c == 0 || c == 1);
			if (bold)
				fputs("**", f);
			pl_compare_md_cell(f, cells[c]);
			if (bold)
				fputs("**", f);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	int notes = 0;
	for (int i = 0; i < cmp->n_rows; i++) {
		const struct pl_compare_row *r = &cmp->rows[i];
		if (r->has_result && !r->oom)
			continue;
		fputs(notes++ ? "" : "\n", f);
		fputs("- ", f);
		pl_compare_md_cell(f, r->title);
		fputs(": ", f);
		pl_compare_md_cell(f, r->status);
		fputc('\n', f);
	}
}

/* LaTeX: escape the special characters; < > | as text symbols (in the
 * default OT1 encoding the characters print as ¡ ¿ —) and '"' as the
 * typewriter font's straight quote (OT1 has no \textquotedbl, and its
 * roman '"' prints as ”); control characters as spaces; ligatures
 * broken. */
static void
tex_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': case '%': case '$': case '#': case '_': case '{': case '}':
			fputc('\\', f);
			fputc(*s, f);
			break;
		case '~':
			fputs("\\textasciitilde{}", f);
			break;
		case '^':
			fputs("\\textasciicircum{}", f);
			break;
		case '\\':
			fputs("\\textbackslash{}", f);
			break;
		case '<':
			fputs("\\textless{}", f);
			break;
		case '>':
			fputs("\\textgreater{}", f);
			break;
		case '|':
			fputs("\\textbar{}", f);
			break;
		case '"':
			fputs("{\\ttfamily\\char34}", f);
			break;
		default:
			fputc(is_ctl(*s) ? ' ' : *s, f);
			/* TeX's ligatures (-- --- `` '' ,, !` ?`) broken by an
			 * empty group, so "x--y" prints as written */
			if ((strchr("-`',", *s) != NULL && s[1] == *s) ||
			    ((*s == '!' || *s == '?') && s[1] == '`'))
				fputs("{}", f);
		}
	}
}

/* LaTeX booktabs tabular; the best row in bold. */
static void
write_tex(const struct pl_compare *cmp, FILE *f)
{
	char cells[N_COLS][PL_COMPARE_CELL], *cap = caption(cmp);
	fputs("% ", f);
	fputs(cap, f);
	free(cap);
	fputs("\n% needs \\usepackage{booktabs}\n\\begin{tabular}{lrrrrrlrrr}\n\\toprule\n", f);
	for (int c = 0; c < N_COLS; c++) {
		tex_cell(f, pl_compare_headers[c]);
		fputs(c + 1 < N_COLS ? " & " : " \\\\\n", f);
	}
	fputs("\\midrule\n", f);
	int best = pl_compare_best(cmp);
	for (int i = 0; i < cmp->n_rows; i++) {
		pl_compare_row_cells(&cmp->rows[i], cells);
		for (int c = 0; c < N_COLS; c++) {
			int bold = i == best && (c == 0 || c == 1);
			if (bold)
				fputs("\\textbf{", f);
			tex_cell(f, cells[c]);
			if (bold)
				fputc('}', f);
			fputs(c + 1 < N_COLS ? " & " : " \\\\\n", f);
		}
	}
	fputs("\\bottomrule\n\\end{tabular}\n", f);
	for (int i = 0; i < cmp->n_rows; i++)
		if (!cmp->rows[i].has_result || cmp->rows[i].oom)
			note(f, "% ", &cmp->rows[i]);
}

/* A CSV field (pl_sb_csv). */
static void
csv_str(FILE *f, const char *s)
{
	struct pl_strbuf b = { 0 };
	pl_sb_csv(&b, s);
	char *t = pl_sb_take(&b);
	fputs(t, f);
	free(t);
}

/* A number, or empty for NAN. */
static void
csv_num(FILE *f, double v)
{
	if (!isnan(v))
		fprintf(f, "%.17g", v);
}

/* CSV with raw units (us, bytes, seconds). */
static void
write_csv(const struct pl_compare *cmp, FILE *f)
{
	fputs("method,title,makespan_us,time_vs_expert_pct,gap_best_pct,gap_bound_pct,"
	    "peak_bytes,peak_capacity,peak_device,oom,bytes_moved,search_s,evals,steps,status\n", f);
	for (int i = 0; i < cmp->n_rows; i++) {
		const struct pl_compare_row *r = &cmp->rows[i];
		csv_str(f, r->method);
		fputc(',', f);
		csv_str(f, r->title);
		fputc(',', f);
		csv_num(f, r->makespan_us);
		fputc(',', f);
		csv_num(f, r->time_vs_expert_pct);
		fputc(',', f);
		csv_num(f, r->gap_best_pct);
		fputc(',', f);
		csv_num(f, r->gap_bound_pct);
		fputc(',', f);
		if (r->has_result && r->mem_known) {
			fprintf(f, "%lld,%lld,", (long long)r->peak_bytes, (long long)r->peak_cap);
			csv_str(f, r->peak_dev);
			fprintf(f, ",%d,", r->oom);
		} else
			fputs(",,,,", f);
		if (r->has_result)
			fprintf(f, "%lld", (long long)r->bytes_moved);
		fputc(',', f);
		csv_num(f, r->search_s);
		if (r->current)
			fputs(",,,", f);	/* no search: no evals, no steps */
		else
			fprintf(f, ",%ld,%d,", r->evals, r->steps);
		csv_str(f, r->status);
		fputc('\n', f);
	}
}

/* A number or null. */
static void
json_num(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

/* JSON document "placelab-compare/1". */
static void
write_json(const struct pl_compare *cmp, FILE *f)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "format", PL_FORMAT_COMPARE);
	cJSON_AddStringToObject(root, "graph", cmp->graph);
	cJSON_AddStringToObject(root, "cluster", cmp->cluster);
	cJSON_AddStringToObject(root, "sim", cmp->sim);
	cJSON_AddStringToObject(root, "mem", cmp->mem);
	json_num(root, "lower_bound_us", cmp->bound_us);
	int best = pl_compare_best(cmp);
	if (best >= 0)
		cJSON_AddStringToObject(root, "best", cmp->rows[best].method);
	else
		cJSON_AddNullToObject(root, "best");
	cJSON *rows = cJSON_AddArrayToObject(root, "rows");
	for (int i = 0; i < cmp->n_rows; i++) {
		const struct pl_compare_row *r = &cmp->rows[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "method", r->method);
		cJSON_AddStringToObject(o, "title", r->title);
		cJSON_AddStringToObject(o, "status", r->status);
		cJSON_AddBoolToObject(o, "has_result", r->has_result);
		json_num(o, "makespan_us", r->makespan_us);
		json_num(o, "time_vs_expert_pct", r->time_vs_expert_pct);
		json_num(o, "gap_best_pct", r->gap_best_pct);
		json_num(o, "gap_bound_pct", r->gap_bound_pct);
		/* memory figures only where a placement was simulated with memory */
		int mem = r->has_result && r->mem_known;
		if (mem) {
			cJSON_AddItemToObject(o, "peak_bytes", pl_json_bytes(r->peak_bytes));
			cJSON_AddItemToObject(o, "peak_capacity", pl_json_bytes(r->peak_cap));
		} else {
			cJSON_AddNullToObject(o, "peak_bytes");
			cJSON_AddNullToObject(o, "peak_capacity");
		}
		if (mem) {
			cJSON_AddStringToObject(o, "peak_device", r->peak_dev);
			cJSON_AddBoolToObject(o, "oom", r->oom);
		} else {
			cJSON_AddNullToObject(o, "peak_device");
			cJSON_AddNullToObject(o, "oom");
		}
		if (r->has_result)
			cJSON_AddItemToObject(o, "bytes_moved", pl_json_bytes(r->bytes_moved));
		else
			cJSON_AddNullToObject(o, "bytes_moved");
		json_num(o, "search_s", r->search_s);
		if (r->current) {	/* no search: no evals, no steps */
			cJSON_AddNullToObject(o, "evals");
			cJSON_AddNullToObject(o, "steps");
		} else {
			cJSON_AddNumberToObject(o, "evals", (double)r->evals);
			cJSON_AddNumberToObject(o, "steps", r->steps);
		}
		if (r->current)
			cJSON_AddBoolToObject(o, "current", 1);
		cJSON_AddItemToArray(rows, o);
	}
	char *s = pl_json_print(root);
	fputs(s, f);
	fputc('\n', f);
	free(s);
	cJSON_Delete(root);
}

/* Write in a format. */
void
pl_compare_write(const struct pl_compare *cmp, enum pl_compare_format fmt, FILE *out)
{
	switch (fmt) {
	case PL_CMP_TABLE:
		write_table(cmp, out);
		break;
	case PL_CMP_MD:
		write_md(cmp, out);
		break;
	case PL_CMP_CSV:
		write_csv(cmp, out);
		break;
	case PL_CMP_TEX:
		write_tex(cmp, out);
		break;
	case PL_CMP_JSON:
		write_json(cmp, out);
		break;
	}
}

/* Write with one more row last: the table's rows are borrowed into a
 * copy of its header, so the writers see one table. */
void
pl_compare_write_with(const struct pl_compare *cmp, const struct pl_compare_row *extra,
    enum pl_compare_format fmt, FILE *out)
{
	if (extra == NULL) {
		pl_compare_write(cmp, fmt, out);
		return;
	}
	struct pl_compare t = *cmp;
	t.rows = pl_xreallocarray(NULL, (size_t)cmp->n_rows + 1, sizeof *t.rows);
	if (cmp->n_rows > 0)
		memcpy(t.rows, cmp->rows, sizeof *t.rows * (size_t)cmp->n_rows);
	t.rows[t.n_rows++] = *extra;
	t.cap_rows = t.n_rows;
	pl_compare_write(&t, fmt, out);
	free(t.rows);
}

/* ---- parsing back ------------------------------------------------------- */

/* String member or "" (NULL if present but not a string). */
static const char *
get_s(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (v == NULL)
		return "";
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Number member, NAN for null or absent; 0 if the type is wrong (*bad). */
static double
get_n(const cJSON *o, const char *key, int *bad)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (v == NULL || cJSON_IsNull(v))
		return NAN;
	if (!cJSON_IsNumber(v)) {
		*bad = 1;
		return 0;
	}
	return v->valuedouble;
}

/* Parse a compare document. */
struct pl_compare *
pl_compare_parse_json(const char *text, size_t len, const char *name, char **cause)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	if (root == NULL) {
		*cause = pl_xasprintf("%s: not valid JSON", name);
		return NULL;
	}
	const char *fmt = get_s(root, "format");
	if (fmt == NULL || strcmp(fmt, PL_FORMAT_COMPARE) != 0) {
		*cause = pl_xasprintf("%s: format '%s' (expected \"%s\")", name, fmt ? fmt : "?",
		    PL_FORMAT_COMPARE);
		cJSON_Delete(root);
		return NULL;
	}
	struct pl_compare *cmp = pl_xcalloc(1, sizeof *cmp);
	int bad = 0;
	const char *gname = get_s(root, "graph"), *cname = get_s(root, "cluster"), *sname = get_s(root, "sim");
	const char *mname = get_s(root, "mem");
	cmp->graph = pl_xstrdup(gname ? gname : "");
	cmp->cluster = pl_xstrdup(cname ? cname : "");
	cmp->sim = pl_xstrdup(sname ? sname : "");
	cmp->mem = pl_xstrdup(mname != NULL && *mname ? mname : "native");
	cmp->bound_us = get_n(root, "lower_bound_us", &bad);
	const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
	if (!cJSON_IsArray(rows) || gname == NULL || cname == NULL || sname == NULL || mname == NULL ||
	    pl_mem_model_parse(cmp->mem) < 0 || bad) {
		*cause = pl_xasprintf("%s: expected string graph/cluster/sim, a memory model mem, a number lower_bound_us and a rows array", name);
		goto fail;
	}
	int i = 0;
	const cJSON *o;
	cJSON_ArrayForEach(o, rows) {
		const char *m = get_s(o, "method"), *t = get_s(o, "title"), *st = get_s(o, "status");
		const cJSON *pdv = cJSON_GetObjectItemCaseSensitive(o, "peak_device");
		const cJSON *hr = cJSON_GetObjectItemCaseSensitive(o, "has_result");
		const cJSON *oom = cJSON_GetObjectItemCaseSensitive(o, "oom");
		const cJSON *cur = cJSON_GetObjectItemCaseSensitive(o, "current");
		/* oom and peak_device are null where memory is unknown */
		if (!cJSON_IsObject(o) || m == NULL || !*m || t == NULL || st == NULL ||
		    !cJSON_IsBool(hr) || !(cJSON_IsBool(oom) || cJSON_IsNull(oom)) ||
		    !(cJSON_IsString(pdv) || cJSON_IsNull(pdv)) || (cur != NULL && !cJSON_IsBool(cur))) {
			*cause = pl_xasprintf("%s: rows[%d]: expected an object with string method, title, status, boolean has_result, peak_device and oom (null where memory is unknown), and an optional boolean current", name, i);
			goto fail;
		}
		struct pl_compare_row *r = new_row(cmp);
		r->method = pl_xstrdup(m);
		r->title = pl_xstrdup(t);
		r->status = pl_xstrdup(st);
		r->peak_dev = pl_xstrdup(cJSON_IsString(pdv) ? pdv->valuestring : "");
		r->has_result = cJSON_IsTrue(hr);
		r->oom = cJSON_IsTrue(oom);
		r->current = cJSON_IsTrue(cur);
		r->mem_known = cJSON_IsBool(oom);
		r->makespan_us = get_n(o, "makespan_us", &bad);
		r->time_vs_expert_pct = get_n(o, "time_vs_expert_pct", &bad);
		r->gap_best_pct = get_n(o, "gap_best_pct", &bad);
		r->gap_bound_pct = get_n(o, "gap_bound_pct", &bad);
		double pb = get_n(o, "peak_bytes", &bad), pc = get_n(o, "peak_capacity", &bad);
		double bm = get_n(o, "bytes_moved", &bad);
		r->search_s = get_n(o, "search_s", &bad);
		double ev = get_n(o, "evals", &bad), sp = get_n(o, "steps", &bad);
		if (bad || (r->has_result && isnan(r->makespan_us))) {
			*cause = pl_xasprintf("%s: rows[%d] ('%s'): a numeric field has the wrong type or makespan_us is missing", name, i, m);
			goto fail;
		}
		/* counts: whole numbers in range (a cast of more would be
		 * undefined); byte counts above 2^53 read to the nearest double */
		const struct { const char *key; double v, top; } counts[] = {
			{ "peak_bytes", pb, 0x1p62 }, { "peak_capacity", pc, 0x1p62 },
			{ "bytes_moved", bm, 0x1p62 }, { "evals", ev, 0x1p62 }, { "steps", sp, INT_MAX },
		};
		for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
			double v = counts[k].v;
			if (!isnan(v) && !(v >= 0 && v <= counts[k].top && v == floor(v))) {
				*cause = pl_xasprintf("%s: rows[%d] ('%s'): %s %g (expected a whole number in [0, %.0f])",
				    name, i, m, counts[k].key, v, counts[k].top);
				goto fail;
			}
		}
		r->peak_bytes = isnan(pb) ? 0 : (int64_t)pb;
		r->peak_cap = isnan(pc) ? 0 : (int64_t)pc;
		r->bytes_moved = isnan(bm) ? 0 : (int64_t)bm;
		r->evals = isnan(ev) ? 0 : (long)ev;
		r->steps = isnan(sp) ? 0 : (int)sp;
		i++;
	}
	cJSON_Delete(root);
	return cmp;
fail:
	cJSON_Delete(root);
	pl_compare_free(cmp);
	return NULL;
}

/* ---- one result --------------------------------------------------------- */

/* Option i's value as JSON of its type: a number, a boolean or text. */
static cJSON *
option_json(const struct pl_options *o, const struct pl_option_def *def, int i)
{
	switch (def->type) {
	case PL_OPT_INT:
		return cJSON_CreateNumber((double)pl_opt_int(o, def->name));
	case PL_OPT_DOUBLE:
		return cJSON_CreateNumber(pl_opt_double(o, def->name));
	case PL_OPT_BOOL:
		return cJSON_CreateBool(pl_opt_bool(o, def->name));
	case PL_OPT_STRING:
	case PL_OPT_FILE:
		break;
	}
	return cJSON_CreateString(pl_options_value(o, i));
}

/* A placer's result as placelab-result/1: the simulation summary every
 * result document has (pl_sim_result_json), then the method's fields. */
char *
pl_result_to_json(const struct pl_placer *pl)
{
	const struct pl_problem *p = pl->prob;
	struct pl_bounds b;
	pl_bounds_compute(p, &b);
	cJSON *root = pl_sim_result_json(p, pl->best, &pl->run.sim, &pl->best_res, &b, NULL);
	cJSON_AddStringToObject(root, "method", pl->cls->name);
	cJSON_AddNumberToObject(root, "seed", (double)pl->run.seed);
	cJSON_AddStringToObject(root, "status", pl->status != NULL ? pl->status : "");
	if (pl->error != NULL)
		cJSON_AddStringToObject(root, "error", pl->error);
	else
		cJSON_AddNullToObject(root, "error");
	cJSON_AddNumberToObject(root, "steps", pl->n_steps);
	cJSON_AddNumberToObject(root, "evals", (double)pl->evals);
	cJSON_AddNumberToObject(root, "search_s", pl->search_s);
	cJSON *opts = cJSON_AddObjectToObject(root, "options");
	const struct pl_option_def *defs = pl_options_defs(pl->opts);
	for (int i = 0; defs != NULL && defs[i].name != NULL; i++)
		if (pl->cls->option_unused != NULL && pl->cls->option_unused(pl->opts, defs[i].name))
			cJSON_AddNullToObject(opts, defs[i].name);	/* does nothing here */
		else
			cJSON_AddItemToObject(opts, defs[i].name, option_json(pl->opts, &defs[i], i));
	cJSON *pobj = NULL;
	if (pl->best != NULL) {
		char *pj = pl_placement_to_json(pl->best, p->g, p->c);
		pobj = cJSON_Parse(pj);
		free(pj);
	}
	if (pobj != NULL)
		cJSON_AddItemToObject(root, "placement", pobj);
	else
		cJSON_AddNullToObject(root, "placement");
	char *out = pl_json_print(root);
	cJSON_Delete(root);
	return out;
}
