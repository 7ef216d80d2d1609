/*
 * single — everything on one device: "CPU only" and "single GPU", the
 * papers' simplest baselines.  The device is the fastest of its kind;
 * groups whose constraints forbid it go to their fastest allowed device.
 * Invariant: one step, then done; fails (no placement) only when the
 * cluster has no device of the kind.
 */
#include <stdlib.h>

#include "baselines.h"
#include "xmalloc.h"

/* Place on the fastest device of a kind. */
static enum pl_step_status
single_step(struct pl_placer *pl, enum pl_dev_kind kind)
{
	const struct pl_problem *p = pl->prob;
	uint64_t mask = pl_pu_kind_mask(p->c, kind);
	if (mask == 0) {
		pl_placer_set_status(pl, "no %s in cluster '%s'", pl_dev_kind_name(kind), p->c->name);
		pl_placer_note(pl, "no %s device in cluster '%s'", pl_dev_kind_name(kind), p->c->name);
		return PL_STEP_ERROR;
	}
	double speed[PL_MAX_DEVICES];
	pl_pu_device_speed(p, speed);
	int d = pl_pu_fastest_in(p, mask, speed);
	struct pl_placement *cand = pl_placement_new(p->n_ops, p->n_dev);
	for (int k = 0; k < p->g->n_groups; k++) {
		uint64_t m = p->group_allowed[k];
		pl_pu_set_group(p, cand, k, ((m >> d) & 1) ? d : pl_pu_fastest_in(p, m, speed));
	}
	char *label = pl_xasprintf("all on %s", p->c->dev[d].name);
	enum pl_step_status st = pl_pu_finish(pl, cand, label);
	free(label);
	pl_placement_free(cand);
	return st;
}

/* CPU only. */
static enum pl_step_status
single_cpu_step(struct pl_placer *pl)
{
	return single_step(pl, PL_DEV_CPU);
}

/* Single GPU. */
static enum pl_step_status
single_gpu_step(struct pl_placer *pl)
{
	return single_step(pl, PL_DEV_GPU);
}

static const struct pl_option_def single_options[] = {
	{ NULL, 0, NULL, NULL },
};

const struct pl_placer_class pl_placer_single_cpu = {
	.name = "single-cpu",
	.title = "CPU only",
	.summary = "every op on the fastest CPU (ops constrained elsewhere go to their fastest allowed device)",
	.options = single_options,
	.step = single_cpu_step,
	.quick = 1,
};

const struct pl_placer_class pl_placer_single_gpu = {
	.name = "single-gpu",
	.title = "single GPU",
	.summary = "every op on the fastest GPU (ops constrained elsewhere go to their fastest allowed device)",
	.options = single_options,
	.step = single_gpu_step,
	.quick = 1,
};
