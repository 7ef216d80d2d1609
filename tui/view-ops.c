/*
 * view-ops — the ops as a tree by scope: device colour, time, memory and
 * critical-path marks per row; a detail pane for the selected op (costs on
 * every device, inputs and outputs with bytes and where the neighbours
 * run); hand edits of the device (`d`/`D`) resimulate at once.  Enter on
 * an op walks its edges: its inputs then its outputs as one list with a
 * cursor in the detail pane, and Enter on an entry selects the op at its
 * other end.
 *
 * Invariant: nodes[] holds every scope prefix once and every op once as a
 * leaf; a node's parent has a smaller index, so aggregates are summed in
 * one reverse pass; vis[] lists the rows shown (children of open nodes).
 * While walking edges (edges set) the tree's cursor is on e_op's row:
 * whatever moves it leaves the walk first.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "screen.h"
#include "strmap.h"
#include "view.h"
#include "xmalloc.h"

struct node {
	char *label;
	char *path;		/* scope nodes: full path (strmap key) */
	int parent, first_child, last_child, next;
	int op;			/* -1: a scope */
	int depth;
	int open;
	int n_ops;
	double time_us;
	int64_t mem;
	int dev;		/* common device, -1 mixed */
	int crit;		/* critical ops below */
};

struct ops_view {
	struct explore *ex;
	int n_nodes, cap;
	struct node *nodes;
	int *op_node;
	double *dev_time;	/* n_nodes x n_dev */
	int *vis;
	int n_vis;
	int cur, top;
	int tree_h;		/* rows of the tree at last draw */
	int tree_w;		/* and its columns (the detail beside it when wide) */
	int *tmp;		/* n_ops scratch for subtree op lists */
	/* walking edges: e_op's inputs then outputs, one list */
	int edges;		/* 1 while walking */
	int e_op;
	int e_cur, e_top;	/* the cursor and the first entry shown */
	int e_rows;		/* entry rows at last draw */
	int e_y[2], e_from[2], e_n[2];	/* last draw, per list: the first
					 * entry's row (rect-relative), its
					 * index in the joint list, how many */
	int e_x0, e_x1;		/* the pane's columns (rect-relative) */
};

/* Append a node under parent. */
static int
add_node(struct ops_view *o, int parent, const char *label, int op)
{
	if (o->n_nodes == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 256;
		o->nodes = pl_xreallocarray(o->nodes, o->cap, sizeof *o->nodes);
	}
	int i = o->n_nodes++;
	struct node *n = &o->nodes[i];
	memset(n, 0, sizeof *n);
	n->label = pl_xstrdup(label);
	n->parent = parent;
	n->first_child = n->last_child = n->next = -1;
	n->op = op;
	n->depth = parent >= 0 ? o->nodes[parent].depth + 1 : 0;
	if (parent >= 0) {
		struct node *p = &o->nodes[parent];
		if (p->last_child >= 0)
			o->nodes[p->last_child].next = i;
		else
			p->first_child = i;
		p->last_child = i;
	}
	return i;
}

/* Build the scope tree. */
static void
build_tree(struct ops_view *o)
{
	const struct pl_graph *g = o->ex->g;
	struct pl_strmap map;
	pl_strmap_init(&map, 64);
	int first_root = -1, last_root = -1;
	o->op_node = pl_xcalloc(g->n_ops, sizeof *o->op_node);
	for (int v = 0; v < g->n_ops; v++) {
		const char *scope = g->ops[v].scope;
		int parent = -1;
		size_t len = strlen(scope);
		size_t start = 0;
		while (start < len) {
			size_t end = start;
			while (end < len && scope[end] != '/')
				end++;
			char *path = pl_xstrndup(scope, end);
			int k = pl_strmap_get(&map, path);
			if (k < 0) {
				char *lab = pl_xstrndup(scope + start, end - start);
				k = add_node(o, parent, lab, -1);
				free(lab);
				o->nodes[k].path = path;
				pl_strmap_put(&map, o->nodes[k].path, k);
				if (parent < 0) {
					if (last_root >= 0)
						o->nodes[last_root].next = k;
					else
						first_root = k;
					last_root = k;
				}
			} else
				free(path);
			parent = k;
			start = end + 1;
		}
		const char *name = g->ops[v].name;
		if (len > 0 && strncmp(name, scope, len) == 0 && name[len] == '/')
			name += len + 1;
		int k = add_node(o, parent, name, v);
		o->op_node[v] = k;
		if (parent < 0) {
			if (last_root >= 0)
				o->nodes[last_root].next = k;
			else
				first_root = k;
			last_root = k;
		}
	}
	pl_strmap_free(&map);
	(void)first_root;
}

/* The first root (roots are chained through next, starting at the lowest
 * index with no parent). */
static int
first_root(const struct ops_view *o)
{
	return o->n_nodes > 0 ? 0 : -1;
}

/* Recompute the aggregates from the current placement and trace. */
static void
aggregate(struct ops_view *o)
{
	struct explore *ex = o->ex;
	int nd = ex->c->n_dev;
	memset(o->dev_time, 0, (size_t)o->n_nodes * nd * sizeof *o->dev_time);
	for (int i = 0; i < o->n_nodes; i++) {
		struct node *n = &o->nodes[i];
		if (n->op >= 0) {
			int v = n->op, d = ex->cur->dev[v];
			const struct pl_op *op = &ex->g->ops[v];
			n->n_ops = 1;
			n->time_us = pl_problem_op_us(ex->p, v, d);
			n->mem = op->param_bytes + op->out_bytes + op->temp_bytes;
			n->dev = d;
			n->crit = ex->tr != NULL && ex->tr->critical_mask != NULL &&
			    ex->tr->critical_mask[v];
			o->dev_time[(size_t)i * nd + d] = n->time_us;
		} else {
			n->n_ops = 0;
			n->time_us = 0;
			n->mem = 0;
			n->dev = -2;
			n->crit = 0;
		}
	}
	for (int i = o->n_nodes - 1; i >= 0; i--) {
		struct node *n = &o->nodes[i];
		if (n->parent < 0)
			continue;
		struct node *p = &o->nodes[n->parent];
		p->n_ops += n->n_ops;
		p->time_us += n->time_us;
		p->mem += n->mem;
		p->crit += n->crit;
		p->dev = p->dev == -2 ? n->dev : p->dev == n->dev ? p->dev : -1;
		for (int d = 0; d < nd; d++)
			o->dev_time[(size_t)n->parent * nd + d] += o->dev_time[(size_t)i * nd + d];
	}
}

/* Rebuild the visible rows, keeping the cursor on the same node. */
static void
rebuild_vis(struct ops_view *o)
{
	int keep = o->n_vis > 0 && o->cur < o->n_vis ? o->vis[o->cur] : -1;
	o->n_vis = 0;
	/* iterative DFS over open nodes */
	int k = first_root(o);
	while (k >= 0) {
		o->vis[o->n_vis++] = k;
		struct node *n = &o->nodes[k];
		if (n->op < 0 && n->open && n->first_child >= 0) {
			k = n->first_child;
			continue;
		}
		while (k >= 0 && o->nodes[k].next < 0)
			k = o->nodes[k].parent;
		if (k >= 0)
			k = o->nodes[k].next;
	}
	o->cur = 0;
	for (int i = 0; i < o->n_vis; i++)
		if (o->vis[i] == keep)
			o->cur = i;
}

/* Create the view. */
static void *
ops_init(struct explore *ex)
{
	struct ops_view *o = pl_xcalloc(1, sizeof *o);
	o->ex = ex;
	build_tree(o);
	o->dev_time = pl_xcalloc((size_t)o->n_nodes * ex->c->n_dev, sizeof *o->dev_time);
	o->vis = pl_xcalloc(o->n_nodes, sizeof *o->vis);
	o->tmp = pl_xcalloc(ex->g->n_ops, sizeof *o->tmp);
	/* open the roots when there are few of them */
	int roots = 0;
	for (int i = 0; i < o->n_nodes; i++)
		roots += o->nodes[i].parent < 0;
	if (roots <= 3)
		for (int i = 0; i < o->n_nodes; i++)
			if (o->nodes[i].parent < 0)
				o->nodes[i].open = 1;
	aggregate(o);
	rebuild_vis(o);
	return o;
}

/* Free the tree. */
static void
ops_free(void *priv)
{
	struct ops_view *o = priv;
	for (int i = 0; i < o->n_nodes; i++) {
		free(o->nodes[i].label);
		free(o->nodes[i].path);
	}
	free(o->nodes);
	free(o->op_node);
	free(o->dev_time);
	free(o->vis);
	free(o->tmp);
	free(o);
}

/* Ops below node k (or k itself), into o->tmp; returns the count. */
static int
subtree_ops(struct ops_view *o, int k)
{
	int n = 0;
	if (o->nodes[k].op >= 0) {
		o->tmp[n++] = o->nodes[k].op;
		return n;
	}
	int stop = o->nodes[k].parent;
	int i = o->nodes[k].first_child;
	while (i >= 0) {
		if (o->nodes[i].op >= 0)
			o->tmp[n++] = o->nodes[i].op;
		if (o->nodes[i].first_child >= 0) {
			i = o->nodes[i].first_child;
			continue;
		}
		while (i >= 0 && i != k && o->nodes[i].next < 0)
			i = o->nodes[i].parent;
		if (i < 0 || i == k || i == stop)
			break;
		i = o->nodes[i].next;
	}
	return n;
}

/* Keep the cursor on screen. */
static void
scroll_to_cur(struct ops_view *o)
{
	int h = o->tree_h > 1 ? o->tree_h - 1 : 10;	/* the rows under the header */
	if (o->cur < o->top)
		o->top = o->cur;
	if (o->cur >= o->top + h)
		o->top = o->cur - h + 1;
	if (o->top < 0)
		o->top = 0;
}

/* Tell everyone when the cursor lands on an op. */
static void
cursor_moved(struct ops_view *o)
{
	scroll_to_cur(o);
	if (o->n_vis == 0)
		return;
	int op = o->nodes[o->vis[o->cur]].op;
	if (op >= 0 && op != o->ex->sel_op)
		explore_select(o->ex, op);
}

/* Draw the device column: a name, or a bar of time shares for a mix. */
static void
draw_devcol(struct ops_view *o, WINDOW *w, int y, int x, int width, int k)
{
	struct explore *ex = o->ex;
	const struct node *n = &o->nodes[k];
	if (n->dev >= 0) {
		wattr_on(w, screen_dev_block(n->dev), NULL);
		mvwaddch(w, y, x, (chtype)screen_dev_glyph(n->dev));
		wattr_off(w, screen_dev_block(n->dev), NULL);
		wattr_on(w, screen_dev_fg(n->dev), NULL);
		char lb[256];
		screen_printf(w, y, x + 1, width - 1, 1, " %s",
		    explore_dev_fit(ex, n->dev, width - 2, lb, sizeof lb));
		wattr_off(w, screen_dev_fg(n->dev), NULL);
		return;
	}
	/* a mix: cells in proportion to time, at least one per device used */
	int nd = ex->c->n_dev;
	double tot = 0;
	int used = 0;
	for (int d = 0; d < nd; d++) {
		double t = o->dev_time[(size_t)k * nd + d];
		tot += t;
		used += t > 0;
	}
	int cells[PL_MAX_DEVICES] = { 0 }, given = 0;
	for (int d = 0; d < nd && tot > 0; d++) {
		double t = o->dev_time[(size_t)k * nd + d];
		if (t <= 0)
			continue;
		cells[d] = (int)floor(t / tot * width + 1e-9);
		if (cells[d] < 1 && used <= width)
			cells[d] = 1;
		given += cells[d];
	}
	while (given > width) {	/* take back from the largest */
		int big = 0;
		for (int d = 1; d < nd; d++)
			if (cells[d] > cells[big])
				big = d;
		cells[big]--;
		given--;
	}
	while (given < width && tot > 0) {	/* the rest by largest remainder */
		int big = -1;
		double best = -1;
		for (int d = 0; d < nd; d++) {
			double t = o->dev_time[(size_t)k * nd + d];
			double rem = t / tot * width - cells[d];
			if (t > 0 && rem > best) {
				best = rem;
				big = d;
			}
		}
		cells[big]++;
		given++;
	}
	int cell = 0;
	for (int d = 0; d < nd; d++)
		for (int i = 0; i < cells[d] && cell < width; i++, cell++) {
			wattr_on(w, screen_dev_block(d), NULL);
			mvwaddch(w, y, x + cell, (chtype)screen_dev_glyph(d));
			wattr_off(w, screen_dev_block(d), NULL);
		}
	for (; cell < width; cell++)
		mvwaddch(w, y, x + cell, ' ');
}

/* Whether op v is one of the search's matches (sorted op ids). */
static int
is_match(const struct explore *ex, int v)
{
	int lo = 0, hi = ex->n_matches;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (ex->matches[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ex->n_matches && ex->matches[lo] == v;
}

/* One tree row. */
static void
draw_row(struct ops_view *o, WINDOW *w, int y, int x, int width, int row)
{
	struct explore *ex = o->ex;
	int k = o->vis[row];
	const struct node *n = &o->nodes[k];
	int sel = row == o->cur;
	char t[32], m[32];
	int devw = 10, tw = 10, mw = 10, cw = 2;
	int lw = width - 35;
	attr_t base = sel ? screen_attr(SCR_SELECT) : A_NORMAL;
	wattrset(w, base);
	const char *arrow = n->op >= 0 ? "  " : n->open ? (screen_utf8() ? "▾ " : "- ") :
	    (screen_utf8() ? "▸ " : "+ ");
	/* two columns a level, but at most half the column: a deep scope
	 * keeps room for its name (whole, or cut by screen_put_name) */
	int ind = n->depth * 2 < lw / 2 ? n->depth * 2 : lw / 2;
	char *indent = pl_xasprintf("%*s%s", ind > 0 ? ind : 0, "", arrow);
	char *label = n->op >= 0 ? pl_xstrdup(n->label) :
	    pl_xasprintf("%s/ (%d)", n->label, n->n_ops);
	/* the indent whole while it leaves room, the label's end after
	 * an ellipsis when it is cut (its op count stays in sight) */
	int iw = screen_put(w, y, x, lw, 0, indent);
	if (n->op < 0 && !sel)
		wattr_on(w, A_BOLD, NULL);
	if (n->op >= 0 && ex->search != NULL && is_match(ex, n->op))
		wattr_on(w, A_UNDERLINE, NULL);	/* a search match, as in tig */
	screen_put_name(w, y, x + iw, lw - iw, 1, label);
	free(indent);
	free(label);
	wattrset(w, base);
	waddch(w, ' ');
	draw_devcol(o, w, y, x + lw + 1, devw, k);
	wattrset(w, base);
	screen_printf(w, y, x + lw + 1 + devw, tw + 1, 1, "%*s", tw + 1, screen_fmt_us(t, sizeof t, n->time_us));
	screen_printf(w, y, x + lw + 2 + devw + tw, mw + 1, 1, "%*s", mw + 1, screen_fmt_bytes(m, sizeof m, n->mem));
	if (n->crit) {
		wattrset(w, sel ? base : screen_attr(SCR_CRITICAL));
		screen_put(w, y, x + width - cw, cw, 1, n->op >= 0 ? " *" : " +");
	} else
		screen_put(w, y, x + width - cw, cw, 1, "");
	wattrset(w, A_NORMAL);
}

/* Detail pane: a list of lines drawn until the rectangle is full. */
struct lines {
	WINDOW *w;
	int y, x, h, width, row;
};

/* Start a new detail line; 0 when the pane is full. */
static int
line_next(struct lines *l)
{
	if (l->row >= l->h)
		return 0;
	wmove(l->w, l->y + l->row, l->x);
	l->row++;
	return 1;
}

/* Fields (separated by '\t' in text) on new detail lines, joined by sep:
 * a field that does not fit after others starts the next line, indented
 * by 2, so that none is cut (only one wider than a line alone is); those
 * past the pane's last line are left out. */
static void
line_fields(struct lines *l, const char *sep, const char *text)
{
	int y = 0, x = l->x, end = l->x + l->width, sepw = screen_width(sep), shown = 0;
	char *copy = pl_xstrdup(text), *save = NULL;
	for (char *f = strtok_r(copy, "\t", &save); f != NULL; f = strtok_r(NULL, "\t", &save)) {
		if (shown && x + sepw + screen_width(f) <= end)
			x += screen_put(l->w, y, x, end - x, 0, sep);
		else {
			if (shown)
				screen_fill(l->w, y, x, end - x, ' ');
			if (!line_next(l))
				break;
			y = l->y + l->row - 1;
			x = l->x + (shown ? 2 : 0);
			shown = 1;
		}
		x += screen_put(l->w, y, x, end - x, 0, f);
	}
	if (shown)
		screen_fill(l->w, y, x, end - x, ' ');
	free(copy);
}

/* Entry i of op v's inputs (dir 0) or outputs (1) at (y, x), at most wd
 * columns: the other op's device, the bytes, its name; sel: the whole
 * entry in the selection's colours (the walk's cursor). */
static void
draw_edge(struct ops_view *o, WINDOW *w, int y, int x, int wd, int v, int dir, int i, int sel)
{
	struct explore *ex = o->ex;
	const struct pl_graph *g = ex->g;
	const struct pl_edge *e = &g->edges[dir == 0 ? g->in_edge[i] : g->out_edge[i]];
	int other = dir == 0 ? e->src : e->dst, od = ex->cur->dev[other];
	int x0 = x;
	attr_t base = sel ? screen_attr(SCR_SELECT) : A_NORMAL;
	char a[32];
#define LEFT(n) ((n) < wd - (x - x0) ? (n) : wd - (x - x0))
	wattrset(w, base);
	x += screen_put(w, y, x, LEFT(2), 0, dir == 0 ? "< " : "> ");
	wattrset(w, sel ? base : screen_dev_fg(od));
	/* the device's glyph and name, the name longer where there is room */
	int dw = 1 + explore_dev_tag_w(ex, wd / 5 < 8 ? 8 : wd / 5 > 19 ? 19 : wd / 5);
	char lb[128];
	x += screen_printf(w, y, x, LEFT(dw), 1, "%s", explore_dev_tag(ex, od, dw - 1, lb, sizeof lb));
	wattrset(w, sel ? base : od != ex->cur->dev[v] ? screen_attr(SCR_KEY) : A_NORMAL);
	x += screen_printf(w, y, x, LEFT(11), 1, "%10s", screen_fmt_bytes(a, sizeof a, g->tensors[e->tensor].bytes));
	wattrset(w, base);
	x += screen_put(w, y, x, LEFT(1), 0, " ");
	screen_put_name(w, y, x, wd - (x - x0), 1, g->ops[other].name);
	wattrset(w, A_NORMAL);
#undef LEFT
}

/* Op v's inputs (n_in) and outputs (n_out), the edge walk's joint list. */
static void
edge_counts(const struct ops_view *o, int v, int *n_in, int *n_out)
{
	const struct pl_graph *g = o->ex->g;
	*n_in = g->in_off[v + 1] - g->in_off[v];
	*n_out = g->out_off[v + 1] - g->out_off[v];
}

/* The op at the other end of entry j of the walk's list. */
static int
edge_other(const struct ops_view *o, int j)
{
	const struct pl_graph *g = o->ex->g;
	int v = o->e_op, n_in, n_out;
	edge_counts(o, v, &n_in, &n_out);
	if (j < n_in)
		return g->edges[g->in_edge[g->in_off[v] + j]].src;
	return g->edges[g->out_edge[g->out_off[v] + j - n_in]].dst;
}

/* The walk's detail: the op's name, then its inputs and outputs as one
 * list scrolled to the cursor, each header saying which of its entries
 * are shown.  rect_y, rect_x: the view's corner, for clicks. */
static void
draw_op_edges(struct ops_view *o, struct lines *l, int rect_y, int rect_x)
{
	const struct pl_graph *g = o->ex->g;
	int v = o->e_op, n_in, n_out;
	WINDOW *w = l->w;
	edge_counts(o, v, &n_in, &n_out);
	int total = n_in + n_out;
	int rows = l->h - 3;	/* under the name and the two headers */
	o->e_rows = rows > 1 ? rows : 1;
	if (o->e_cur < o->e_top)
		o->e_top = o->e_cur;
	if (o->e_cur >= o->e_top + o->e_rows)
		o->e_top = o->e_cur - o->e_rows + 1;
	if (o->e_top > total - o->e_rows)	/* a taller pane shows more */
		o->e_top = total - o->e_rows;
	if (o->e_top < 0)
		o->e_top = 0;
	o->e_x0 = l->x - rect_x;
	o->e_x1 = l->x - rect_x + l->width;
	o->e_n[0] = o->e_n[1] = 0;
	if (!line_next(l))
		return;
	wattrset(w, A_BOLD);
	screen_put_name(w, l->y + l->row - 1, l->x, l->width, 1, g->ops[v].name);
	wattrset(w, A_NORMAL);
	int end = o->e_top + (rows > 0 ? rows : 0);
	for (int dir = 0; dir < 2; dir++) {
		int lo = dir == 0 ? 0 : n_in, hi = dir == 0 ? n_in : total;
		int from = o->e_top > lo ? o->e_top : lo, to = end < hi ? end : hi;
		const char *what = dir == 0 ? "inputs" : "outputs";
		if (!line_next(l))
			return;
		int y = l->y + l->row - 1;
		wattrset(w, screen_attr(SCR_HEADER));
		if (hi == lo || (from <= lo && to >= hi))	/* none, or all */
			screen_printf(w, y, l->x, l->width, 1, "%s (%d)", what, hi - lo);
		else if (from >= to)
			screen_printf(w, y, l->x, l->width, 1, "%s (%d): none shown", what, hi - lo);
		else if (to - from == 1)
			screen_printf(w, y, l->x, l->width, 1, "%s (%d): %d", what, hi - lo, from - lo + 1);
		else
			screen_printf(w, y, l->x, l->width, 1, "%s (%d): %d-%d", what, hi - lo,
			    from - lo + 1, to - lo);
		wattrset(w, A_NORMAL);
		o->e_y[dir] = l->y + l->row - rect_y;
		o->e_from[dir] = from;
		for (int j = from; j < to; j++) {
			if (!line_next(l))
				return;
			o->e_n[dir]++;
			int lo_i = dir == 0 ? g->in_off[v] : g->out_off[v];
			draw_edge(o, w, l->y + l->row - 1, l->x, l->width, v, dir, lo_i + j - lo,
			    j == o->e_cur);
		}
	}
}

/* Detail of one op. */
static void
draw_op_detail(struct ops_view *o, struct lines *l, int v)
{
	struct explore *ex = o->ex;
	const struct pl_graph *g = ex->g;
	const struct pl_op *op = &g->ops[v];
	int d = ex->cur->dev[v], nd = ex->c->n_dev;
	char a[32], b[32], c[32];
	WINDOW *w = l->w;
	if (!line_next(l))
		return;
	wattrset(w, A_BOLD);
	screen_put_name(w, l->y + l->row - 1, l->x, l->width, 1, op->name);
	wattrset(w, A_NORMAL);
	if (line_next(l)) {
		const struct pl_group *gr = &g->groups[op->group];
		/* long scope and group names give way, their ends shown */
		int y = l->y + l->row - 1, x = l->x, end = l->x + l->width;
		const char *scope = op->scope[0] ? op->scope : "-";
		const char *gname = gr->name != NULL ? gr->name : "own";
		char count[32];
		snprintf(count, sizeof count, " (%d op%s)", gr->count, gr->count == 1 ? "" : "s");
		x += screen_printf(w, y, x, end - x, 0, "%s  scope ", op->type[0] ? op->type : "?");
		int rest = end - x - (int)strlen("  group ") - screen_width(count);
		int sw = screen_width(scope), gw = screen_width(gname);
		if (sw + gw > rest)	/* share the room, the shorter first */
			sw = sw < rest / 2 ? sw : gw < rest / 2 ? rest - gw : rest / 2;
		x += screen_put_name(w, y, x, sw > 0 ? sw : 0, 0, scope);
		x += screen_put(w, y, x, end - x, 0, "  group ");
		x += screen_put_name(w, y, x, end - x - screen_width(count), 0, gname);
		screen_put(w, y, x, end - x, 1, count);
	}
	if (line_next(l)) {
		int y = l->y + l->row - 1, x = l->x;
		x += screen_put(w, y, x, l->width, 0, "on ");
		/* the times and the mark after the device show whole or not
		 * at all: the name (cut in the middle) gives way to them, down
		 * to EXPLORE_DEV_NAME_MIN columns */
		char runs[96] = "";
		const char *mark = "";
		if (ex->tr != NULL) {
			const struct pl_trace_op *to = &ex->tr->ops[v];
			snprintf(runs, sizeof runs, "  runs %s .. %s",
			    screen_fmt_us(a, sizeof a, to->start), screen_fmt_us(b, sizeof b, to->end));
			if (ex->tr->critical_mask != NULL && ex->tr->critical_mask[v])
				mark = "  * critical path";
		}
		int end = l->x + l->width, rw = screen_width(runs), mw = screen_width(mark);
		int full = screen_width(explore_dev_label(ex, d)), nw = end - x - rw - mw;
		if (nw < EXPLORE_DEV_NAME_MIN && nw < full)	/* the mark left out first */
			nw = end - x - rw, mw = 0;
		if (nw < EXPLORE_DEV_NAME_MIN && nw < full)	/* then the times */
			nw = end - x, rw = 0;
		wattrset(w, screen_dev_fg(d));
		char lb[256];
		x += screen_put(w, y, x, end - x, 0, explore_dev_fit(ex, d, nw < full ? nw : full, lb, sizeof lb));
		wattrset(w, A_NORMAL);
		if (rw > 0)
			x += screen_put(w, y, x, end - x, 0, runs);
		if (mw > 0) {
			wattrset(w, screen_attr(SCR_CRITICAL));
			screen_put(w, y, x, end - x, 0, mark);
			wattrset(w, A_NORMAL);
		}
	}
	char *sizes = pl_xasprintf("%.3g GFLOP\tparams %s\tout %s\ttemp %s",
	    op->flops / 1e9, screen_fmt_bytes(a, sizeof a, op->param_bytes),
	    screen_fmt_bytes(b, sizeof b, op->out_bytes), screen_fmt_bytes(c, sizeof c, op->temp_bytes));
	line_fields(l, "  ", sizes);
	free(sizes);
	/* cost per device, several per line */
	if (line_next(l)) {
		int y = l->y + l->row - 1, x = l->x;
		wattrset(w, screen_attr(SCR_HEADER));
		x += screen_put(w, y, x, l->width, 0, "cost [here]");
		wattrset(w, A_NORMAL);
		/* the devices its colocation group may use: a move takes the
		 * group along */
		uint64_t allowed = ex->p->group_allowed[op->group];
		double best = INFINITY;
		for (int e = 0; e < nd; e++)
			if (allowed & ((uint64_t)1 << e))
				best = fmin(best, pl_problem_op_us(ex->p, v, e));
		for (int e = 0; e < nd; e++) {
			char cell[128], lb[64];
			int ok = (allowed >> e) & 1;
			double us = pl_problem_op_us(ex->p, v, e);
			/* a long name cut in the middle, so that the time shows */
			snprintf(cell, sizeof cell, " %s%s %s%s", e == d ? "[" : "",
			    explore_dev_fit(ex, e, 16, lb, sizeof lb),
			    ok ? screen_fmt_us(a, sizeof a, us) : "n/a", e == d ? "]" : "");
			int cw = screen_width(cell);
			if (x + cw > l->x + l->width) {
				if (!line_next(l))
					break;
				y = l->y + l->row - 1;
				x = l->x + 4;
			}
			wattrset(w, !ok ? screen_attr(SCR_DIM) : us == best ? screen_attr(SCR_GOOD) : A_NORMAL);
			if (e == d)
				wattr_on(w, A_BOLD, NULL);
			x += screen_put(w, y, x, cw, 0, cell);
			wattrset(w, A_NORMAL);
		}
	}
	/* inputs and outputs: what does not fit is shared between the two
	 * lists, and a header says how many of its entries are shown; short
	 * of room, a list of one entry shows it on its header's line */
	int n_in = g->in_off[v + 1] - g->in_off[v], n_out = g->out_off[v + 1] - g->out_off[v];
	int room = l->h - l->row - 2;
	int cap_in = n_in, cap_out = n_out, inline_in = 0, inline_out = 0;
	if (n_in + n_out > room) {
		inline_in = n_in == 1;
		inline_out = n_out == 1;
		int need_in = inline_in ? 0 : n_in, need_out = inline_out ? 0 : n_out;
		int r2 = room > 0 ? room : 0, half = r2 / 2;
		cap_in = need_in < half ? need_in : half;
		cap_out = need_out < r2 - cap_in ? need_out : r2 - cap_in;
		cap_in = need_in < r2 - cap_out ? need_in : r2 - cap_out;	/* what outputs leave */
	}
	for (int dir = 0; dir < 2; dir++) {
		int lo = dir == 0 ? g->in_off[v] : g->out_off[v];
		int hi = dir == 0 ? g->in_off[v + 1] : g->out_off[v + 1];
		int cap = dir == 0 ? cap_in : cap_out;
		const char *what = dir == 0 ? "inputs" : "outputs";
		if (!line_next(l))
			return;
		int y = l->y + l->row - 1;
		wattrset(w, screen_attr(SCR_HEADER));
		if (dir == 0 ? inline_in : inline_out) {
			int x = l->x + screen_printf(w, y, l->x, l->width, 0, "%s (1): ", what);
			wattrset(w, A_NORMAL);
			draw_edge(o, w, y, x, l->width - (x - l->x), v, dir, lo, 0);
			continue;
		}
		if (cap < hi - lo)
			screen_printf(w, y, l->x, l->width, 1, "%s (%d, %d shown)", what, hi - lo, cap);
		else
			screen_printf(w, y, l->x, l->width, 1, "%s (%d)", what, hi - lo);
		wattrset(w, A_NORMAL);
		for (int i = lo; i < lo + cap; i++) {
			if (!line_next(l))
				return;
			draw_edge(o, w, l->y + l->row - 1, l->x, l->width, v, dir, i, 0);
		}
	}
}

/* Detail of a scope. */
static void
draw_scope_detail(struct ops_view *o, struct lines *l, int k)
{
	struct explore *ex = o->ex;
	const struct node *n = &o->nodes[k];
	int nd = ex->c->n_dev;
	char a[32], b[32];
	WINDOW *w = l->w;
	if (!line_next(l))
		return;
	wattrset(w, A_BOLD);
	char *path = pl_xasprintf("%s/", n->path);
	screen_put_name(w, l->y + l->row - 1, l->x, l->width, 1, path);
	free(path);
	wattrset(w, A_NORMAL);
	char *sums = pl_xasprintf("%d ops,\t%s of compute,\t%s of memory,\t%d on the critical path",
	    n->n_ops, screen_fmt_us(a, sizeof a, n->time_us),
	    screen_fmt_bytes(b, sizeof b, n->mem), n->crit);
	line_fields(l, " ", sums);
	free(sums);
	if (line_next(l)) {
		wattrset(w, screen_attr(SCR_HEADER));
		screen_put(w, l->y + l->row - 1, l->x, l->width, 1, "compute per device");
		wattrset(w, A_NORMAL);
	}
	/* the device's glyph and name, the name longer where there is room */
	int lw = 1 + explore_dev_tag_w(ex, l->width / 4 < 8 ? 8 : l->width / 4 > 23 ? 23 : l->width / 4);
	lw = lw < 8 ? 8 : lw;
	int left = 0;	/* devices with compute not listed yet */
	for (int d = 0; d < nd; d++)
		left += o->dev_time[(size_t)k * nd + d] > 0;
	for (int d = 0; d < nd; d++) {
		double t = o->dev_time[(size_t)k * nd + d];
		if (t <= 0)
			continue;
		/* on the pane's last line with more to come: say how many */
		if (left > 1 && l->row == l->h - 1) {
			if (line_next(l))
				screen_printf(w, l->y + l->row - 1, l->x, l->width, 1,
				    "+%d more devices", left);
			return;
		}
		if (!line_next(l))
			return;
		left--;
		int y = l->y + l->row - 1;
		char lb[128];
		wattrset(w, screen_dev_fg(d));
		screen_printf(w, y, l->x, lw, 1, "%s", explore_dev_tag(ex, d, lw - 1, lb, sizeof lb));
		wattrset(w, A_NORMAL);
		screen_printf(w, y, l->x + lw, 11, 1, "%10s ", screen_fmt_us(a, sizeof a, t));
		screen_bar(w, y, l->x + lw + 11, l->width - lw - 11, n->time_us > 0 ? t / n->time_us : 0,
		    screen_dev_block(d), A_NORMAL);
	}
	if (line_next(l))
		screen_put(w, l->y + l->row - 1, l->x, l->width, 1, "d / D moves the whole scope to the next / previous device");
}

/* Draw the view. */
static void
ops_draw(struct view *v, WINDOW *w, const struct view_rect *r)
{
	struct ops_view *o = v->priv;
	int side = r->w >= 130;
	int tree_w = side ? r->w * 58 / 100 : r->w;
	int tree_h = side ? r->h - 1 : r->h * 55 / 100;
	if (tree_h < 4)
		tree_h = r->h;
	o->tree_h = tree_h;
	o->tree_w = tree_w;
	scroll_to_cur(o);
	/* column header */
	wattrset(w, screen_attr(SCR_HEADER));
	screen_printf(w, r->y, r->x, tree_w, 1, "%-*s %-10s%11s%10s %s",
	    tree_w - 35, "scope / op", "device", "time", "memory", "cp");
	wattrset(w, A_NORMAL);
	for (int i = 0; i < tree_h - 1; i++) {
		int row = o->top + i;
		if (row >= o->n_vis)
			break;
		draw_row(o, w, r->y + 1 + i, r->x, tree_w, row);
	}
	struct lines l = { .w = w };
	if (side) {
		wattrset(w, screen_attr(SCR_DIM));
		screen_vline(w, r->y, r->x + tree_w, r->h);
		wattrset(w, A_NORMAL);
		l.y = r->y;
		l.x = r->x + tree_w + 2;
		l.h = r->h;
		l.width = r->w - tree_w - 2;
	} else {
		wattrset(w, screen_attr(SCR_DIM));
		screen_hline(w, r->y + tree_h, r->x, r->w);
		wattrset(w, A_NORMAL);
		l.y = r->y + tree_h + 1;
		l.x = r->x + 1;
		l.h = r->h - tree_h - 1;
		l.width = r->w - 2;
	}
	if (o->n_vis == 0)
		return;
	int k = o->vis[o->cur];
	if (o->edges)
		draw_op_edges(o, &l, r->y, r->x);
	else if (o->nodes[k].op >= 0)
		draw_op_detail(o, &l, o->nodes[k].op);
	else
		draw_scope_detail(o, &l, k);
}

/* Open or close every scope. */
static void
set_all_open(struct ops_view *o, int open)
{
	for (int i = 0; i < o->n_nodes; i++)
		if (o->nodes[i].op < 0)
			o->nodes[i].open = open;
	rebuild_vis(o);
	scroll_to_cur(o);
}

/* Start walking op v's edges; 0 (and a message) when it has none. */
static int
edges_start(struct ops_view *o, int v)
{
	int n_in, n_out;
	edge_counts(o, v, &n_in, &n_out);
	if (n_in + n_out == 0) {
		explore_message(o->ex, 0, "%s has no inputs or outputs", o->ex->g->ops[v].name);
		return 0;
	}
	o->edges = 1;
	o->e_op = v;
	o->e_cur = o->e_top = 0;
	return 1;
}

/* Go to the op at the other end of entry j: the tree selects it (its
 * scopes opened) and the walk ends there. */
static void
edges_go(struct ops_view *o, int j)
{
	int other = edge_other(o, j);
	o->edges = 0;
	explore_select(o->ex, other);
}

/* The walk's keys: the cursor moves along the list, Enter goes to the
 * entry's op, Esc ends the walk; the tree's own moves end it first
 * (VIEW_UNHANDLED: the tree takes the key). */
static int
edges_action(struct ops_view *o, enum tui_action a)
{
	int n_in, n_out;
	edge_counts(o, o->e_op, &n_in, &n_out);
	int last = n_in + n_out - 1;
	int page = o->e_rows > 1 ? o->e_rows - 1 : 1;
	switch (a) {
	case ACT_UP: if (o->e_cur > 0) o->e_cur--; break;
	case ACT_DOWN: if (o->e_cur < last) o->e_cur++; break;
	case ACT_PAGE_UP: o->e_cur = o->e_cur > page ? o->e_cur - page : 0; break;
	case ACT_PAGE_DOWN: o->e_cur = o->e_cur + page < last ? o->e_cur + page : last; break;
	case ACT_HOME: o->e_cur = 0; break;
	case ACT_END: o->e_cur = last; break;
	case ACT_ENTER: edges_go(o, o->e_cur); break;
	case ACT_CANCEL: o->edges = 0; break;
	case ACT_LEFT: case ACT_RIGHT: case ACT_EXPAND_ALL: case ACT_COLLAPSE_ALL:
		o->edges = 0;
		return VIEW_UNHANDLED;
	default:
		return VIEW_UNHANDLED;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Actions. */
static int
ops_action(struct view *v, enum tui_action a)
{
	struct ops_view *o = v->priv;
	if (o->n_vis == 0)
		return VIEW_UNHANDLED;
	if (o->edges) {
		int r = edges_action(o, a);
		if (r != VIEW_UNHANDLED)
			return r;
	}
	int page = o->tree_h > 2 ? o->tree_h - 2 : 1;
	struct node *n = &o->nodes[o->vis[o->cur]];
	switch (a) {
	case ACT_UP: if (o->cur > 0) o->cur--; break;
	case ACT_DOWN: if (o->cur < o->n_vis - 1) o->cur++; break;
	case ACT_PAGE_UP: o->cur = o->cur > page ? o->cur - page : 0; break;
	case ACT_PAGE_DOWN: o->cur = o->cur + page < o->n_vis ? o->cur + page : o->n_vis - 1; break;
	case ACT_HOME: o->cur = 0; break;
	case ACT_END: o->cur = o->n_vis - 1; break;
	case ACT_LEFT:
		if (n->op < 0 && n->open) {
			n->open = 0;
			rebuild_vis(o);
		} else if (n->parent >= 0) {
			for (int i = 0; i < o->n_vis; i++)
				if (o->vis[i] == n->parent)
					o->cur = i;
		}
		break;
	case ACT_RIGHT:
	case ACT_ENTER:
		if (n->op < 0) {
			n->open = a == ACT_ENTER ? !n->open : 1;
			rebuild_vis(o);
		} else if (a == ACT_ENTER)
			edges_start(o, n->op);
		break;
	case ACT_EXPAND_ALL: set_all_open(o, 1); break;
	case ACT_COLLAPSE_ALL: set_all_open(o, 0); break;
	case ACT_DEV_NEXT:
	case ACT_DEV_PREV: {
		if (n->op >= 0) {	/* the explorer moves the op: the one
					 * shown, the first row's too */
			if (n->op != o->ex->sel_op)
				explore_select(o->ex, n->op);
			return VIEW_UNHANDLED;
		}
		int cnt = subtree_ops(o, o->vis[o->cur]);
		int d = explore_next_device(o->ex, o->tmp, cnt, a == ACT_DEV_NEXT ? 1 : -1);
		if (d < 0)
			explore_message(o->ex, 1, "no other device can run all of %s/", n->path);
		else
			explore_move_ops(o->ex, o->tmp, cnt, d);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	default:
		return VIEW_UNHANDLED;
	}
	cursor_moved(o);
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* A click selects a row; a click on the selected scope opens or closes it.
 * While walking edges a click on an entry moves the walk's cursor there,
 * and one on the cursor's entry goes to its op; a row of the tree ends the
 * walk. */
static int
ops_click(struct view *v, int y, int x)
{
	struct ops_view *o = v->priv;
	if (o->edges && x >= o->e_x0 && x < o->e_x1)
		for (int dir = 0; dir < 2; dir++)
			if (y >= o->e_y[dir] && y < o->e_y[dir] + o->e_n[dir]) {
				int j = o->e_from[dir] + y - o->e_y[dir];
				if (j == o->e_cur)
					edges_go(o, j);
				else
					o->e_cur = j;
				return 1;
			}
	int row = o->top + y - 1;
	/* (beside a wide tree, a click in the detail is on no row) */
	if (y < 1 || y >= o->tree_h || x >= o->tree_w || row >= o->n_vis)
		return 0;
	o->edges = 0;
	if (row == o->cur && o->nodes[o->vis[row]].op < 0)
		return ops_action(v, ACT_ENTER);
	o->cur = row;
	cursor_moved(o);
	return 1;
}

/* A new placement or trace: recompute the aggregates. */
static void
ops_changed(struct view *v)
{
	aggregate(v->priv);
}

/* Follow the shared selection: open its scopes and move the cursor. */
static void
ops_selected(struct view *v)
{
	struct ops_view *o = v->priv;
	int op = o->ex->sel_op;
	if (o->edges && op != o->e_op)	/* another op: the walk ends */
		o->edges = 0;
	if (op < 0)
		return;
	int k = o->op_node[op];
	if (o->n_vis > 0 && o->vis[o->cur] == k)
		return;
	for (int p = o->nodes[k].parent; p >= 0; p = o->nodes[p].parent)
		o->nodes[p].open = 1;
	rebuild_vis(o);
	for (int i = 0; i < o->n_vis; i++)
		if (o->vis[i] == k)
			o->cur = i;
	int h = o->tree_h > 0 ? o->tree_h - 1 : 10;
	if (o->cur < o->top || o->cur >= o->top + h)
		o->top = o->cur - h / 2;
	scroll_to_cur(o);
}

/* Shown again (a view key, Tab, a tab's click): a walk of edges ends. */
static void
ops_shown(struct view *v)
{
	struct ops_view *o = v->priv;
	o->edges = 0;
}

/* The status line's keys while walking edges. */
static const char *
ops_hint(const struct view *v)
{
	const struct ops_view *o = v->priv;
	return o->edges ? "Up/Down choose  Enter go there  Esc back" : NULL;
}

const struct view_class view_ops_class = {
	.name = "ops",
	.title = "Ops",
	.demo = "Every op of the graph, grouped by scope. Colour = the device it runs on, "
	    "time = its cost there, * = on the critical path that sets the step time, "
	    "+ = a scope with some of it. "
	    "Select an op and press d to move it to another device: the run time above "
	    "changes at once. Enter opens a scope; / searches.",
	.init = ops_init,
	.free = ops_free,
	.draw = ops_draw,
	.action = ops_action,
	.click = ops_click,
	.changed = ops_changed,
	.selected = ops_selected,
	.shown = ops_shown,
	.hint = ops_hint,
};
