/*
 * metf — Baechi's memory-constrained Earliest Task First placer, m-ETF
 * (Jeon et al., SoCC 2020, after Hwang et al.'s ETF, SIAM J. Comput. 1989).
 * List scheduling: among the ready ops and the devices with memory room,
 * repeatedly pick the (op, device) pair that can start earliest (ties: the
 * op earlier in topological order, then the lower device index), counting
 * transfer times from the producers' devices.  The first op of a
 * colocation group reserves the whole group's memory (Baechi's model:
 * param + out + temp bytes per op, held for the step) and fixes its device.
 * By default only the GPUs take part (Baechi places on GPUs); groups
 * allowed on no GPU keep to their allowed devices.
 * The schedule's start order becomes the placement's priorities.
 * Invariant: a group is only put on a device where it fits, unless no
 * allowed device has room for it; the status then says OOM.
 */
#include <math.h>
#include <stdlib.h>

#include "baselines.h"
#include "xmalloc.h"

/* One pass of m-ETF. */
static enum pl_step_status
metf_step(struct pl_placer *pl)
{
	const struct pl_problem *p = pl->prob;
	const struct pl_graph *g = p->g;
	int n = g->n_ops, nd = p->n_dev, ng = g->n_groups;
	size_t nn = n ? (size_t)n : 1;
	double dev_free[PL_MAX_DEVICES] = { 0 };
	int64_t used[PL_MAX_DEVICES] = { 0 };
	int *missing = pl_xmalloc(sizeof *missing * nn);
	int *ready = pl_xmalloc(sizeof *ready * nn);
	double *data_at = pl_xmalloc(sizeof *data_at * nn * nd);
	double *finish = pl_xmalloc(sizeof *finish * nn);
	int *group_dev = pl_xmalloc(sizeof *group_dev * (size_t)(ng ? ng : 1));
	int64_t *gmem = pl_xmalloc(sizeof *gmem * (size_t)(ng ? ng : 1));
	struct pl_placement *cand = pl_placement_new(n, nd);
	pl_placement_ensure_prio(cand);
	for (int k = 0; k < ng; k++) {
		group_dev[k] = -1;
		gmem[k] = pl_pu_group_mem(g, k);
	}
	int n_ready = 0, oom = 0;
	uint64_t usable;
	pl_pu_usable_mask(p, pl_opt_str(pl->opts, "devices"), &usable);
	for (int v = 0; v < n; v++) {
		missing[v] = g->in_off[v + 1] - g->in_off[v];
		if (missing[v] == 0) {
			ready[n_ready++] = v;
			for (int d = 0; d < nd; d++)
				data_at[(size_t)v * nd + d] = 0;
		}
	}
	for (int step = 0; step < n; step++) {
		double best_t = INFINITY;
		int bi = -1, bd = -1;
		/* pairs that fit first; if none fits, OOM fallback below */
		for (int i = 0; i < n_ready; i++) {
			int v = ready[i], k = g->ops[v].group;
			uint64_t mask = group_dev[k] >= 0 ? (uint64_t)1 << group_dev[k]
			    : pl_pu_restrict(p->group_allowed[k], usable);
			for (int d = 0; d < nd; d++) {
				if (!((mask >> d) & 1))
					continue;
				if (group_dev[k] < 0 && used[d] + gmem[k] > p->c->dev[d].mem_bytes)
					continue;
				double t = data_at[(size_t)v * nd + d];
				if (dev_free[d] > t)
					t = dev_free[d];
				if (t < best_t || (t == best_t && (g->topo_pos[v] < g->topo_pos[ready[bi]] ||
				    (v == ready[bi] && d < bd)))) {
					best_t = t;
					bi = i;
					bd = d;
				}
			}
		}
		if (bi < 0) {
			/* Nothing fits: the ready op first in topological order
			 * goes to its allowed device with the most room. */
			for (int i = 0; i < n_ready; i++)
				if (bi < 0 || g->topo_pos[ready[i]] < g->topo_pos[ready[bi]])
					bi = i;
			int k = g->ops[ready[bi]].group;
			int64_t room = 0;
			for (int d = 0; d < nd; d++) {
				int64_t r = p->c->dev[d].mem_bytes - used[d];
				if (((pl_pu_restrict(p->group_allowed[k], usable) >> d) & 1) && (bd < 0 || r > room)) {
					bd = d;
					room = r;
				}
			}
			best_t = data_at[(size_t)ready[bi] * nd + bd];
			if (dev_free[bd] > best_t)
				best_t = dev_free[bd];
			oom = 1;
		}
		int v = ready[bi], k = g->ops[v].group;
		ready[bi] = ready[--n_ready];
		if (group_dev[k] < 0) {
			group_dev[k] = bd;
			used[bd] += gmem[k];
		}
		cand->dev[v] = bd;
		cand->prio[v] = (double)(n - step);
		finish[v] = best_t + pl_problem_op_us(p, v, bd);
		dev_free[bd] = finish[v];
		for (int j = g->out_off[v]; j < g->out_off[v + 1]; j++) {
			const struct pl_edge *e = &g->edges[g->out_edge[j]];
			int w = e->dst;
			if (--missing[w] != 0)
				continue;
			for (int d = 0; d < nd; d++) {
				double at = 0;
				for (int q = g->in_off[w]; q < g->in_off[w + 1]; q++) {
					const struct pl_edge *ie = &g->edges[g->in_edge[q]];
					double r = finish[ie->src] + pl_problem_xfer_us(p, cand->dev[ie->src], d,
					    g->tensors[ie->tensor].bytes);
					if (r > at)
						at = r;
				}
				data_at[(size_t)w * nd + d] = at;
			}
			ready[n_ready++] = w;
		}
	}
	double makespan = 0;
	for (int d = 0; d < nd; d++)
		if (dev_free[d] > makespan)
			makespan = dev_free[d];
	char label[96];
	snprintf(label, sizeof label, "m-ETF schedule %.1f us%s", makespan,
	    oom ? " (static memory exceeded)" : "");
	enum pl_step_status st = pl_pu_finish(pl, cand, label);
	free(missing);
	free(ready);
	free(data_at);
	free(finish);
	free(group_dev);
	free(gmem);
	pl_placement_free(cand);
	return st;
}

static const struct pl_option_def metf_options[] = {
	{ "devices", PL_OPT_STRING, "gpu", "devices to spread over: gpu (the GPUs, as Baechi; ops allowed nowhere else keep their devices) or all" },
	{ NULL, 0, NULL, NULL },
};

/* Check the devices option. */
static int
metf_create(struct pl_placer *pl, char **cause)
{
	uint64_t m;
	const char *w = pl_opt_str(pl->opts, "devices");
	if (pl_pu_usable_mask(pl->prob, w, &m) != 0) {
		*cause = pl_xasprintf("m-etf: devices '%s' (expected gpu or all)", w);
		return -1;
	}
	return 0;
}

const struct pl_placer_class pl_placer_metf = {
	.name = "m-etf",
	.title = "m-ETF",
	.summary = "Baechi's memory-constrained earliest-task-first list scheduling: never above a device's memory",
	.options = metf_options,
	.create = metf_create,
	.step = metf_step,
	.quick = 1,
};
