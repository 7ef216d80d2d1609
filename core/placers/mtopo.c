/*
 * mtopo — Baechi's memory-constrained topological placer, m-TOPO (Jeon et
 * al., SoCC 2020).  Colocation groups are walked in topological order (of
 * their first op) and packed onto devices in turn, fastest devices first:
 * a device takes groups until its share of the total compute (proportional
 * to its speed) is reached or its memory is full, then the next device
 * takes over.  Memory follows Baechi's model: an op holds its parameter,
 * output and temporary bytes on its device for the whole step.
 * By default only the GPUs take part (Baechi places on GPUs); groups
 * allowed on no GPU keep to their allowed devices.
 * Invariant: a group is only put on a device where it fits, unless no
 * allowed device has room; then it goes where the most room is left and the
 * status says OOM.
 */
#include <stdlib.h>

#include "baselines.h"
#include "xmalloc.h"

/* Sort groups by the topological position of their earliest op. */
static int
cmp_int_key(const void *a, const void *b, void *ctx)
{
	const int *key = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	return key[x] != key[y] ? (key[x] < key[y] ? -1 : 1) : x - y;
}

struct dev_key {
	const double *speed;
	uint64_t usable;
};

/* Order devices: usable first, then by speed, fastest first. */
static int
cmp_speed(const void *a, const void *b, void *ctx)
{
	const struct dev_key *k = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	int ux = (k->usable >> x) & 1, uy = (k->usable >> y) & 1;
	if (ux != uy)
		return uy - ux;
	if (k->speed[x] != k->speed[y])
		return k->speed[x] > k->speed[y] ? -1 : 1;
	return x - y;
}

/* One pass of m-TOPO. */
static enum pl_step_status
mtopo_step(struct pl_placer *pl)
{
	const struct pl_problem *p = pl->prob;
	const struct pl_graph *g = p->g;
	int nd = p->n_dev, ng = g->n_groups;
	double speed[PL_MAX_DEVICES], target[PL_MAX_DEVICES], load[PL_MAX_DEVICES] = { 0 };
	int64_t used[PL_MAX_DEVICES] = { 0 };
	int order_dev[PL_MAX_DEVICES];
	uint64_t usable;
	pl_pu_usable_mask(p, pl_opt_str(pl->opts, "devices"), &usable);
	int nu = __builtin_popcountll(usable);
	pl_pu_device_speed(p, speed);
	for (int d = 0; d < nd; d++)
		order_dev[d] = d;
	struct dev_key dk = { speed, usable };
	qsort_r(order_dev, nd, sizeof *order_dev, cmp_speed, &dk);

	int *first = pl_xmalloc(sizeof *first * (size_t)(ng ? ng : 1));
	int *gord = pl_xmalloc(sizeof *gord * (size_t)(ng ? ng : 1));
	double *gw = pl_xcalloc(ng ? ng : 1, sizeof *gw);
	for (int k = 0; k < ng; k++) {
		first[k] = g->n_ops;
		gord[k] = k;
	}
	double total = 0, sum_speed = 0;
	for (int v = 0; v < g->n_ops; v++) {
		int k = g->ops[v].group;
		if (g->topo_pos[v] < first[k])
			first[k] = g->topo_pos[v];
		gw[k] += pl_pu_op_mean_us(p, v);
	}
	/* the shares are of the compute the usable devices may take: a
	 * group that may only run elsewhere (a CPU-pinned op) counts for
	 * none of them */
	for (int k = 0; k < ng; k++)
		if (p->group_allowed[k] & usable)
			total += gw[k];
	qsort_r(gord, ng, sizeof *gord, cmp_int_key, first);
	for (int d = 0; d < nd; d++)
		if ((usable >> d) & 1)
			sum_speed += speed[d];
	for (int d = 0; d < nd; d++)
		target[d] = ((usable >> d) & 1) ? total * speed[d] / sum_speed : 0;

	struct pl_placement *cand = pl_placement_new(g->n_ops, nd);
	int cur = 0, oom = 0;
	for (int i = 0; i < ng; i++) {
		int k = gord[i];
		uint64_t mask = pl_pu_restrict(p->group_allowed[k], usable);
		int64_t m = pl_pu_group_mem(g, k);
		int d = -1;
		/* the current device, moving on while it is full */
		while (cur < nu) {
			int c = order_dev[cur];
			if (!((mask >> c) & 1))
				break;
			if (used[c] + m <= pl_pu_budget_bytes(pl, c)) {
				d = c;
				break;
			}
			if (cur == nu - 1)
				break;
			cur++;
		}
		if (d < 0) {
			/* not allowed here, or nothing left: any allowed device
			 * with room, earliest in the device order */
			for (int j = 0; j < nd && d < 0; j++) {
				int c = order_dev[j];
				if (((mask >> c) & 1) && used[c] + m <= pl_pu_budget_bytes(pl, c))
					d = c;
			}
		}
		if (d < 0) {
			/* OOM: the allowed device with the most room left */
			int64_t room = 0;
			for (int c = 0; c < nd; c++) {
				int64_t r = pl_pu_budget_bytes(pl, c) - used[c];
				if (((mask >> c) & 1) && (d < 0 || r > room)) {
					d = c;
					room = r;
				}
			}
			oom = 1;
		}
		pl_pu_set_group(p, cand, k, d);
		used[d] += m;
		load[d] += gw[k];
		if (cur < nu - 1 && d == order_dev[cur] && load[d] >= target[d])
			cur++;
	}
	enum pl_step_status st = pl_pu_finish_budget(pl, cand,
	    oom ? "m-TOPO (static memory exceeded)" : "m-TOPO");
	free(first);
	free(gord);
	free(gw);
	pl_placement_free(cand);
	return st;
}

const struct pl_placer_class pl_placer_mtopo = {
	.name = "m-topo",
	.title = "m-TOPO",
	.summary = "Baechi's memory-constrained topological packing: balanced by compute, never above a device's memory",
	.options = pl_pu_budget_options,
	.create = pl_pu_budget_create,
	.step = mtopo_step,
	.destroy = pl_pu_budget_destroy,
	.quick = 1,
};
