/*
 * placement — per-op devices and priorities, and the validity check.
 * Invariant: see placement.h.
 */
#include "placement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* A placement with every op on device 0 and no priorities. */
struct pl_placement *
pl_placement_new(int n_ops, int n_dev)
{
	struct pl_placement *p = pl_xcalloc(1, sizeof *p);
	p->n_ops = n_ops;
	p->n_dev = n_dev;
	p->dev = pl_xcalloc(n_ops ? n_ops : 1, sizeof *p->dev);
	return p;
}

/* Deep copy. */
struct pl_placement *
pl_placement_clone(const struct pl_placement *p)
{
	struct pl_placement *n = pl_placement_new(p->n_ops, p->n_dev);
	pl_placement_copy(n, p);
	return n;
}

/* Copy src into dst of the same shape. */
void
pl_placement_copy(struct pl_placement *dst, const struct pl_placement *src)
{
	memcpy(dst->dev, src->dev, sizeof *dst->dev * src->n_ops);
	if (src->prio != NULL) {
		if (dst->prio == NULL)
			dst->prio = pl_xmalloc(sizeof *dst->prio * (src->n_ops ? src->n_ops : 1));
		memcpy(dst->prio, src->prio, sizeof *dst->prio * src->n_ops);
	} else {
		free(dst->prio);
		dst->prio = NULL;
	}
	if (src->tprio != NULL) {
		size_t n = (size_t)src->n_tensors * src->n_dev;
		if (dst->tprio == NULL || dst->n_tensors != src->n_tensors) {
			free(dst->tprio);
			dst->tprio = pl_xmalloc(sizeof *dst->tprio * (n ? n : 1));
		}
		memcpy(dst->tprio, src->tprio, sizeof *dst->tprio * n);
		dst->n_tensors = src->n_tensors;
	} else {
		free(dst->tprio);
		dst->tprio = NULL;
		dst->n_tensors = 0;
	}
}

/* Free a placement. */
void
pl_placement_free(struct pl_placement *p)
{
	if (p == NULL)
		return;
	free(p->dev);
	free(p->prio);
	free(p->tprio);
	free(p);
}

/* Add zeroed op priorities. */
void
pl_placement_ensure_prio(struct pl_placement *p)
{
	if (p->prio == NULL)
		p->prio = pl_xcalloc(p->n_ops ? p->n_ops : 1, sizeof *p->prio);
}

/* Add zeroed tensor priorities. */
void
pl_placement_ensure_tprio(struct pl_placement *p, int n_tensors)
{
	if (p->tprio != NULL)
		return;
	size_t n = (size_t)n_tensors * p->n_dev;
	p->tprio = pl_xcalloc(n ? n : 1, sizeof *p->tprio);
	p->n_tensors = n_tensors;
}

/* A constraint's name in messages. */
const char *
pl_constraint_name(const struct pl_constraint *cons)
{
	return cons->kind == PL_CONS_DEVICE ? cons->device : pl_dev_kind_name(cons->dev_kind);
}

/* Whether device d satisfies a constraint. */
int
pl_constraint_allows(const struct pl_constraint *cons, const struct pl_cluster *c, int d)
{
	switch (cons->kind) {
	case PL_CONS_ANY:
		return 1;
	case PL_CONS_KIND:
		return c->dev[d].kind == cons->dev_kind;
	case PL_CONS_DEVICE:
		return strcmp(c->dev[d].name, cons->device) == 0;
	}
	return 0;
}

/* Check a placement (see placement.h); *op is the op named, or -1. */
int
pl_placement_check_op(const struct pl_placement *p, const struct pl_graph *g,
    const struct pl_cluster *c, char **cause, int *op)
{
	*op = -1;
	if (p->n_ops != g->n_ops) {
		*cause = pl_xasprintf("placement has %d ops, graph '%s' has %d", p->n_ops, g->name, g->n_ops);
		return -1;
	}
	for (int v = 0; v < g->n_ops; v++) {
		int d = p->dev[v];
		*op = v;
		if (d < 0 || d >= c->n_dev) {
			*cause = pl_xasprintf("op '%s': device %d (expected 0..%d)", g->ops[v].name, d, c->n_dev - 1);
			return -1;
		}
		const struct pl_constraint *k = &g->ops[v].cons;
		if (!pl_constraint_allows(k, c, d)) {
			*cause = pl_xasprintf("op '%s': placed on '%s', which its device constraint '%s' forbids",
			    g->ops[v].name, c->dev[d].name, pl_constraint_name(k));
			return -1;
		}
		if (p->prio != NULL && !isfinite(p->prio[v])) {
			*cause = pl_xasprintf("op '%s': priority is not a finite number", g->ops[v].name);
			return -1;
		}
	}
	*op = -1;
	if (p->tprio != NULL && p->n_tensors != g->n_tensors) {
		*cause = pl_xasprintf("placement has tensor priorities for %d tensors, graph '%s' has %d",
		    p->n_tensors, g->name, g->n_tensors);
		return -1;
	}
	for (int k = 0; k < g->n_groups; k++) {
		const struct pl_group *gr = &g->groups[k];
		int v0 = g->group_ops[gr->first], d0 = p->dev[v0];
		for (int i = 1; i < gr->count; i++) {
			int v = g->group_ops[gr->first + i];
			if (p->dev[v] != d0) {
				*op = v;
				*cause = pl_xasprintf("op '%s': on '%s' but its colocation group '%s' is on '%s' (where op '%s' is)",
				    g->ops[v].name, c->dev[p->dev[v]].name, gr->name ? gr->name : "?",
				    c->dev[d0].name, g->ops[v0].name);
				return -1;
			}
		}
	}
	return 0;
}

/* Check a placement (see placement.h). */
int
pl_placement_check(const struct pl_placement *p, const struct pl_graph *g,
    const struct pl_cluster *c, char **cause)
{
	int op;
	return pl_placement_check_op(p, g, c, cause, &op);
}

/* How many devices run at least one op. */
int
pl_placement_devices_used(const struct pl_placement *p)
{
	uint64_t used = 0;
	for (int v = 0; v < p->n_ops; v++)
		used |= (uint64_t)1 << p->dev[v];
	return __builtin_popcountll(used);
}

/* Same devices and priorities. */
int
pl_placement_equal(const struct pl_placement *a, const struct pl_placement *b)
{
	if (a->n_ops != b->n_ops || memcmp(a->dev, b->dev, sizeof *a->dev * (size_t)a->n_ops) != 0)
		return 0;
	if ((a->prio == NULL) != (b->prio == NULL) || (a->tprio == NULL) != (b->tprio == NULL))
		return 0;
	if (a->prio != NULL && memcmp(a->prio, b->prio, sizeof *a->prio * (size_t)a->n_ops) != 0)
		return 0;
	return a->tprio == NULL || (a->n_tensors == b->n_tensors &&
	    memcmp(a->tprio, b->tprio, sizeof *a->tprio * (size_t)a->n_tensors * (size_t)a->n_dev) == 0);
}
