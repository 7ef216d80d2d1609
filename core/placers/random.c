/*
 * random — the floor: every colocation group on a device drawn uniformly
 * from its allowed devices, seeded.  One step draws one placement; the
 * placer keeps the best of `samples` draws.
 * Invariant: draw i uses rng stream (seed, i), so results do not depend on
 * how the steps are interleaved.
 */
#include <stdlib.h>

#include "baselines.h"
#include "rng.h"
#include "xmalloc.h"

struct random_state {
	long drawn, samples;
	struct pl_placement *cand;
};

/* Read options (samples within its range). */
static int
random_create(struct pl_placer *pl, char **cause)
{
	struct random_state *s = pl_xcalloc(1, sizeof *s);
	s->samples = (long)pl_opt_int(pl->opts, "samples");
	s->cand = pl_placement_new(pl->prob->n_ops, pl->prob->n_dev);
	pl->priv = s;
	return 0;
}

/* Draw one placement. */
static enum pl_step_status
random_step(struct pl_placer *pl)
{
	struct random_state *s = pl->priv;
	const struct pl_problem *p = pl->prob;
	struct pl_rng r;
	pl_rng_stream(&r, pl->run.seed, (uint64_t)s->drawn);
	for (int k = 0; k < p->g->n_groups; k++) {
		uint64_t m = p->group_allowed[k];
		int n = __builtin_popcountll(m);
		int pick = (int)pl_rng_below(&r, (uint64_t)n), d = -1;
		for (int e = 0; e < p->n_dev && pick >= 0; e++)
			if ((m >> e) & 1)
				if (pick-- == 0)
					d = e;
		pl_pu_set_group(p, s->cand, k, d);
	}
	s->drawn++;
	char label[64];
	snprintf(label, sizeof label, "draw %ld", s->drawn);
	enum pl_step_status st = pl_pu_finish(pl, s->cand, label);
	if (st == PL_STEP_DONE && s->drawn < s->samples)
		return PL_STEP_MORE;
	return st;
}

/* Free the state. */
static void
random_destroy(struct pl_placer *pl)
{
	struct random_state *s = pl->priv;
	if (s == NULL)
		return;
	pl_placement_free(s->cand);
	free(s);
}

static const struct pl_option_def random_options[] = {
	{ "samples", PL_OPT_INT, "1", "placements drawn; the best is kept" },
	{ NULL, 0, NULL, NULL },
};

static const struct pl_option_range random_ranges[] = {
	{ "samples", "[1, inf)" },
	{ NULL, NULL },
};

const struct pl_placer_class pl_placer_random = {
	.name = "random",
	.title = "random",
	.summary = "each colocation group on a uniformly random allowed device (seeded)",
	.options = random_options,
	.ranges = random_ranges,
	.create = random_create,
	.step = random_step,
	.destroy = random_destroy,
	.quick = 1,
};
