/*
 * util — shared helpers of the baseline placers (see util.h).
 * Invariant: groups are only ever moved as a whole and only to devices in
 * prob->group_allowed[group].
 */
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xmalloc.h"

/* Baechi's per-op memory. */
int64_t
pl_pu_op_mem(const struct pl_graph *g, int v)
{
	const struct pl_op *o = &g->ops[v];
	return o->param_bytes + o->out_bytes + o->temp_bytes;
}

/* Memory of a whole group. */
int64_t
pl_pu_group_mem(const struct pl_graph *g, int grp)
{
	const struct pl_group *gr = &g->groups[grp];
	int64_t s = 0;
	for (int i = 0; i < gr->count; i++)
		s += pl_pu_op_mem(g, g->group_ops[gr->first + i]);
	return s;
}

/* Mean over allowed devices. */
double
pl_pu_op_mean_us(const struct pl_problem *p, int v)
{
	double s = 0;
	int n = 0;
	for (int d = 0; d < p->n_dev; d++)
		if ((p->allowed[v] >> d) & 1) {
			s += pl_problem_op_us(p, v, d);
			n++;
		}
	return n ? s / n : 0;
}

/* seed in 31 bits (see util.h). */
int
pl_pu_seed31(uint64_t seed)
{
	if (seed <= 0x7fffffff)
		return (int)seed;
	/* a larger one mixed (splitmix64's finaliser), so that no small
	 * seed's bits decide it */
	seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ULL;
	seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebULL;
	seed ^= seed >> 31;
	return (int)(seed & 0x7fffffff);
}

/* Effective relative speed of every device. */
void
pl_pu_device_speed(const struct pl_problem *p, double *speed)
{
	for (int d = 0; d < p->n_dev; d++) {
		double mean = 0, on = 0;
		for (int v = 0; v < p->n_ops; v++) {
			if (!((p->allowed[v] >> d) & 1))
				continue;
			mean += pl_pu_op_mean_us(p, v);
			on += pl_problem_op_us(p, v, d);
		}
		if (on > 0 && mean > 0)
			speed[d] = mean / on;
		else	/* nothing runs here, or all free: fall back on peak */
			speed[d] = p->c->dev[d].peak_flops / (pl_cluster_total_flops(p->c) / p->n_dev);
	}
}

/* Fastest device of a mask. */
int
pl_pu_fastest_in(const struct pl_problem *p, uint64_t mask, const double *speed)
{
	double local[PL_MAX_DEVICES];
	if (speed == NULL) {
		pl_pu_device_speed(p, local);
		speed = local;
	}
	int best = -1;
	for (int d = 0; d < p->n_dev; d++)
		if (((mask >> d) & 1) && (best < 0 || speed[d] > speed[best]))
			best = d;
	return best;
}

/* Place a group. */
void
pl_pu_set_group(const struct pl_problem *p, struct pl_placement *pl, int grp, int d)
{
	const struct pl_group *gr = &p->g->groups[grp];
	for (int i = 0; i < gr->count; i++)
		pl->dev[p->g->group_ops[gr->first + i]] = d;
}

/* Bring every group onto one allowed device. */
int
pl_pu_fix_groups(const struct pl_problem *p, struct pl_placement *pl)
{
	const struct pl_graph *g = p->g;
	double speed[PL_MAX_DEVICES];
	int have_speed = 0, moved = 0;
	for (int k = 0; k < g->n_groups; k++) {
		const struct pl_group *gr = &g->groups[k];
		uint64_t mask = p->group_allowed[k];
		double w[PL_MAX_DEVICES] = { 0 };
		int first = pl->dev[g->group_ops[gr->first]];
		int same = 1;
		for (int i = 0; i < gr->count; i++) {
			int v = g->group_ops[gr->first + i];
			int d = pl->dev[v];
			if (d != first)
				same = 0;
			if (d >= 0 && d < p->n_dev)
				w[d] += 1e-9 + pl_pu_op_mean_us(p, v);
		}
		if (same && first >= 0 && first < p->n_dev && ((mask >> first) & 1))
			continue;
		int best = -1;
		for (int d = 0; d < p->n_dev; d++)
			if (((mask >> d) & 1) && w[d] > 0 &&
			    (best < 0 || w[d] > w[best] || (w[d] == w[best] && d == first)))
				best = d;
		if (best < 0) {
			if (!have_speed) {
				pl_pu_device_speed(p, speed);
				have_speed = 1;
			}
			best = pl_pu_fastest_in(p, mask, speed);
		}
		for (int i = 0; i < gr->count; i++) {
			int v = g->group_ops[gr->first + i];
			if (pl->dev[v] != best) {
				pl->dev[v] = best;
				moved++;
			}
		}
	}
	return moved;
}

/* Static memory per device. */
void
pl_pu_static_mem(const struct pl_problem *p, const struct pl_placement *pl, int64_t *used)
{
	memset(used, 0, sizeof *used * p->n_dev);
	for (int v = 0; v < p->n_ops; v++)
		if (pl->dev[v] >= 0 && pl->dev[v] < p->n_dev)
			used[pl->dev[v]] += pl_pu_op_mem(p->g, v);
}

struct mem_cand {
	int grp;
	double score;
};

/* Sort candidates by score, largest first. */
static int
cmp_cand(const void *a, const void *b)
{
	const struct mem_cand *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->grp - y->grp;
}

/* Greedy memory repair. */
int64_t
pl_pu_fit_memory(const struct pl_problem *p, struct pl_placement *pl)
{
	const struct pl_graph *g = p->g;
	int64_t used[PL_MAX_DEVICES];
	double speed[PL_MAX_DEVICES];
	pl_pu_static_mem(p, pl, used);
	pl_pu_device_speed(p, speed);
	struct mem_cand *cand = pl_xmalloc(sizeof *cand * (size_t)(g->n_groups ? g->n_groups : 1));
	for (int d = 0; d < p->n_dev; d++) {
		int64_t cap = p->c->dev[d].mem_bytes;
		if (used[d] <= cap)
			continue;
		/* Groups on d, most memory per unit of compute first. */
		int n = 0;
		for (int k = 0; k < g->n_groups; k++) {
			if (pl->dev[g->group_ops[g->groups[k].first]] != d)
				continue;
			int64_t m = pl_pu_group_mem(g, k);
			if (m == 0 || p->group_allowed[k] == ((uint64_t)1 << d))
				continue;
			cand[n].grp = k;
			cand[n].score = (double)m / (1.0 + pl_problem_group_us(p, k, d));
			n++;
		}
		qsort(cand, n, sizeof *cand, cmp_cand);
		for (int i = 0; i < n && used[d] > cap; i++) {
			int k = cand[i].grp;
			int64_t m = pl_pu_group_mem(g, k);
			int to = -1;
			int64_t room = 0;
			for (int e = 0; e < p->n_dev; e++) {
				if (e == d || !((p->group_allowed[k] >> e) & 1))
					continue;
				int64_t r = p->c->dev[e].mem_bytes - used[e];
				if (r >= m && (to < 0 || speed[e] > speed[to] ||
				    (speed[e] == speed[to] && r > room))) {
					to = e;
					room = r;
				}
			}
			if (to < 0)
				continue;
			pl_pu_set_group(p, pl, k, to);
			used[d] -= m;
			used[to] += m;
		}
	}
	free(cand);
	int64_t excess = 0;
	for (int d = 0; d < p->n_dev; d++)
		if (used[d] > p->c->dev[d].mem_bytes)
			excess += used[d] - p->c->dev[d].mem_bytes;
	return excess;
}

/* ---- group graph -------------------------------------------------------- */

/* A tensor's trip between two groups, one direction. */
struct pair {
	int a, b;
	int t;		/* the tensor */
	int64_t bytes;
};

/* Order pairs by (a, b, t). */
static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return (p->t > q->t) - (p->t < q->t);
}

/* Build the contracted group graph. */
struct pl_pu_cgraph *
pl_pu_cgraph_new(const struct pl_problem *p)
{
	const struct pl_graph *g = p->g;
	struct pl_pu_cgraph *cg = pl_xcalloc(1, sizeof *cg);
	cg->n = g->n_groups;
	cg->vus = pl_xcalloc(cg->n ? cg->n : 1, sizeof *cg->vus);
	cg->vmem = pl_xcalloc(cg->n ? cg->n : 1, sizeof *cg->vmem);
	for (int v = 0; v < g->n_ops; v++) {
		cg->vus[g->ops[v].group] += pl_pu_op_mean_us(p, v);
		cg->vmem[g->ops[v].group] += pl_pu_op_mem(g, v);
	}
	/* One (producer group, consumer group) pair per tensor and consuming
	 * group, both directions: every edge's, sorted, a tensor reaching
	 * the same group twice counted once (sorting, not a scan of the
	 * producer's pairs so far, which took a fan-out's square). */
	struct pair *pr = pl_xmalloc(sizeof *pr * (size_t)(2 * g->n_edges + 1));
	int np = 0;
	for (int v = 0; v < g->n_ops; v++) {
		int gu = g->ops[v].group;
		for (int j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			const struct pl_edge *e = &g->edges[g->out_edge[j]];
			int gc = g->ops[e->dst].group;
			if (gc == gu)
				continue;
			int64_t b = g->tensors[e->tensor].bytes;
			pr[np++] = (struct pair){ gu, gc, e->tensor, b };
			pr[np++] = (struct pair){ gc, gu, e->tensor, b };
		}
	}
	qsort(pr, np, sizeof *pr, cmp_pair);
	/* Merge duplicates: the same tensor once, other tensors summed. */
	int m = 0;
	for (int i = 0; i < np; i++) {
		if (m > 0 && pr[m - 1].a == pr[i].a && pr[m - 1].b == pr[i].b) {
			if (pr[i].t != pr[i - 1].t)
				pr[m - 1].bytes += pr[i].bytes;
		} else
			pr[m++] = pr[i];
	}
	cg->n_adj = m;
	cg->xadj = pl_xcalloc((size_t)cg->n + 1, sizeof *cg->xadj);
	cg->adj = pl_xmalloc(sizeof *cg->adj * (size_t)(m ? m : 1));
	cg->ebytes = pl_xmalloc(sizeof *cg->ebytes * (size_t)(m ? m : 1));
	for (int i = 0; i < m; i++) {
		cg->xadj[pr[i].a + 1]++;
		cg->adj[i] = pr[i].b;
		cg->ebytes[i] = pr[i].bytes;
	}
	for (int k = 0; k < cg->n; k++)
		cg->xadj[k + 1] += cg->xadj[k];
	free(pr);
	return cg;
}

/* Free the group graph. */
void
pl_pu_cgraph_free(struct pl_pu_cgraph *cg)
{
	if (cg == NULL)
		return;
	free(cg->xadj);
	free(cg->adj);
	free(cg->ebytes);
	free(cg->vus);
	free(cg->vmem);
	free(cg);
}

/* Scale doubles to positive ints whose total stays below ~2^29. */
static int32_t *
scale_ints(const double *x, int n)
{
	double total = 0;
	for (int i = 0; i < n; i++)
		total += x[i];
	double scale = total > 0 ? 5e8 / total : 1;
	if (scale > 1e6)
		scale = 1e6;
	int32_t *out = pl_xmalloc(sizeof *out * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++) {
		double s = floor(x[i] * scale + 0.5);
		out[i] = s < 1 ? 1 : (int32_t)s;
	}
	return out;
}

/* Integer vertex and edge weights. */
void
pl_pu_cgraph_int_weights(const struct pl_pu_cgraph *cg, int by_mem, int32_t **vw,
    int32_t **ew)
{
	double *x = pl_xmalloc(sizeof *x * (size_t)(cg->n + cg->n_adj + 1));
	for (int k = 0; k < cg->n; k++)
		x[k] = by_mem ? (double)cg->vmem[k] : cg->vus[k];
	*vw = scale_ints(x, cg->n);
	for (int i = 0; i < cg->n_adj; i++)
		x[i] = (double)cg->ebytes[i];
	*ew = scale_ints(x, cg->n_adj);
	free(x);
}

/* Edge cut of a partition. */
int64_t
pl_pu_cgraph_cut(const struct pl_pu_cgraph *cg, const int32_t *ew, const int *part)
{
	int64_t cut = 0;
	for (int k = 0; k < cg->n; k++)
		for (int i = cg->xadj[k]; i < cg->xadj[k + 1]; i++)
			if (cg->adj[i] > k && part[cg->adj[i]] != part[k])
				cut += ew[i];
	return cut;
}

/* ---- finishing ---------------------------------------------------------- */

/* "fits", or the worst device's excess (to free). */
char *
pl_pu_describe_mem(const struct pl_problem *p, const struct pl_sim_result *r)
{
	if (r->oom_mask == 0)
		return pl_xstrdup("fits");
	int worst = r->fullest;	/* over capacity, as a device is */
	char need[32], have[32];
	return pl_xasprintf("OOM: %s needs %s of %s", p->c->dev[worst].name,
	    pl_fmt_mem(need, sizeof need, (double)r->peak_bytes[worst]),
	    pl_fmt_mem(have, sizeof have, (double)p->c->dev[worst].mem_bytes));
}

/* Fix groups, check, simulate and offer cand; *r gets its result. */
static enum pl_step_status
finish_result(struct pl_placer *pl, struct pl_placement *cand, const char *label,
    struct pl_sim_result *r)
{
	const struct pl_problem *p = pl->prob;
	pl_pu_fix_groups(p, cand);
	char *cause = NULL;
	if (pl_placement_check(cand, p->g, p->c, &cause) != 0) {
		pl_placer_note(pl, "%s: invalid placement: %s", label, cause);
		free(cause);
		return PL_STEP_ERROR;
	}
	pl_placer_evaluate(pl, cand, r);
	pl_placer_offer(pl, cand, r);
	char *mem = pl_pu_describe_mem(p, &pl->best_res);
	if (pl->best_res.oom_mask != 0)
		pl_placer_set_status(pl, "%s", mem);
	else
		pl_placer_set_status(pl, "%.3f ms", pl->best_res.makespan_us / 1000);
	free(mem);
	mem = pl_pu_describe_mem(p, r);
	pl_placer_note(pl, "%s: %.1f us, %s", label, r->makespan_us, mem);
	free(mem);
	return PL_STEP_DONE;
}

/* Check, simulate, offer and describe a one-shot result. */
enum pl_step_status
pl_pu_finish(struct pl_placer *pl, struct pl_placement *cand, const char *label)
{
	struct pl_sim_result r;
	return finish_result(pl, cand, label, &r);
}

/* ---- memory budgets ----------------------------------------------------- */

#define BUDGET_PASSES 16

const struct pl_option_def pl_pu_budget_options[] = {
	{ "devices", PL_OPT_STRING, "gpu", "devices to spread over: gpu (the GPUs, as Baechi; ops allowed nowhere else keep their devices) or all" },
	{ NULL, 0, NULL, NULL },
};

/* Check the devices option; start every device's budget at its capacity. */
int
pl_pu_budget_create(struct pl_placer *pl, char **cause)
{
	uint64_t usable;
	const char *w = pl_opt_str(pl->opts, "devices");
	if (pl_pu_usable_mask(pl->prob, w, &usable) != 0) {
		*cause = pl_xasprintf("%s: devices '%s' (expected gpu or all)", pl->cls->name, w);
		return -1;
	}
	struct pl_pu_budget *b = pl_xcalloc(1, sizeof *b);
	for (int d = 0; d < pl->prob->n_dev; d++)
		b->bytes[d] = pl->prob->c->dev[d].mem_bytes;
	pl->priv = b;
	return 0;
}

/* Free the budgets. */
void
pl_pu_budget_destroy(struct pl_placer *pl)
{
	free(pl->priv);
	pl->priv = NULL;
}

/* Bytes device d may take in this pass. */
int64_t
pl_pu_budget_bytes(const struct pl_placer *pl, int d)
{
	const struct pl_pu_budget *b = pl->priv;
	return b->bytes[d];
}

/* Finish a pass; when the simulated peak overflows, shrink the budget of
 * each device that overflowed to what it held by the static model, scaled
 * by capacity / simulated peak, and ask for another pass. */
enum pl_step_status
pl_pu_finish_budget(struct pl_placer *pl, struct pl_placement *cand, const char *label)
{
	struct pl_pu_budget *b = pl->priv;
	struct pl_sim_result r;
	char text[160];
	snprintf(text, sizeof text, "%s, pass %d", label, b->pass + 1);
	enum pl_step_status st = finish_result(pl, cand, text, &r);
	if (st != PL_STEP_DONE || r.oom_mask == 0 || ++b->pass >= BUDGET_PASSES)
		return st;
	const struct pl_graph *g = pl->prob->g;
	int64_t held[PL_MAX_DEVICES] = { 0 };
	for (int k = 0; k < g->n_groups; k++)
		held[cand->dev[g->group_ops[g->groups[k].first]]] += pl_pu_group_mem(g, k);
	for (int d = 0; d < pl->prob->n_dev; d++) {
		if (!((r.oom_mask >> d) & 1) || r.peak_bytes[d] <= 0)
			continue;
		double fit = 0.98 * (double)pl->prob->c->dev[d].mem_bytes / (double)r.peak_bytes[d];
		int64_t want = (int64_t)((double)held[d] * fit);
		if (want < b->bytes[d])
			b->bytes[d] = want;
	}
	return PL_STEP_MORE;
}

/* ---- devices ------------------------------------------------------------ */

/* Devices of kind k. */
int
pl_pu_count_kind(const struct pl_cluster *c, enum pl_dev_kind k)
{
	int n = 0;
	for (int d = 0; d < c->n_dev; d++)
		if (c->dev[d].kind == k)
			n++;
	return n;
}

/* Mask of the devices of kind k. */
uint64_t
pl_pu_kind_mask(const struct pl_cluster *c, enum pl_dev_kind k)
{
	uint64_t m = 0;
	for (int d = 0; d < c->n_dev; d++)
		if (c->dev[d].kind == k)
			m |= (uint64_t)1 << d;
	return m;
}

/* Devices to spread over. */
int
pl_pu_usable_mask(const struct pl_problem *p, const char *which, uint64_t *mask)
{
	uint64_t all = ~(uint64_t)0 >> (64 - p->n_dev);
	if (strcmp(which, "all") == 0) {
		*mask = all;
		return 0;
	}
	if (strcmp(which, "gpu") == 0) {
		uint64_t g = pl_pu_kind_mask(p->c, PL_DEV_GPU);
		*mask = g != 0 ? g : all;
		return 0;
	}
	return -1;
}
