/*
 * scotch — static mapping with the real libscotch (Pellegrini), the
 * graph-partitioning baseline of the device-placement papers.  The group
 * graph (one vertex per colocation group, vertex weight = compute, edge
 * weight = bytes exchanged) is mapped with SCOTCH_graphMap onto a weighted
 * complete architecture (SCOTCH_archCmpltw) whose weights are the devices'
 * effective speeds.  Groups allowed on a single device are fixed vertices
 * (SCOTCH_graphMapFixed); groups mapped onto a device they may not use go to
 * their fastest allowed device.
 *
 * "scotch" reports what the mapping gives, OOM included, as the papers do.
 * "scotch-mem" is the memory-aware retry: when the plain mapping does not
 * fit it moves groups off full devices (most memory per unit of compute
 * first), and if that is not enough maps again with memory as the vertex
 * weight and capacities as the architecture weights, then repairs; the best
 * candidate (fitting first, then fastest) is kept.
 *
 * Invariant: libscotch objects are initialised and freed within one call.
 */
#include <stdio.h>
#include <stdint.h>
#include <scotch.h>

#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "xmalloc.h"

/*
 * The architecture's weights: the devices' speeds, or their memory
 * capacities, scaled so that the largest is ARCH_WMAX / nd.  Their sum
 * then fits SCOTCH_Num (32 bits here) with room to spare, and a device a
 * million times slower than the fastest still gets its own share (a
 * scale of 1000 gave every device more than 1000 times slower the same
 * weight, 1, and so ops).  A device with no speed or memory weighs 1.
 */
#define ARCH_WMAX 1e9
static void
arch_weights(const struct pl_problem *p, int by_mem, SCOTCH_Num *archw)
{
	int nd = p->n_dev;
	double w[PL_MAX_DEVICES], wmax = 0;
	pl_pu_device_speed(p, w);
	for (int d = 0; d < nd; d++) {
		if (by_mem)
			w[d] = (double)p->c->dev[d].mem_bytes;
		if (w[d] > wmax)
			wmax = w[d];
	}
	double scale = wmax > 0 ? ARCH_WMAX / nd / wmax : 0;
	for (int d = 0; d < nd; d++) {
		double x = w[d] * scale;
		archw[d] = x < 1 ? 1 : (SCOTCH_Num)x;
	}
}

/* Map the group graph with libscotch. */
int
pl_scotch_map(const struct pl_problem *p, const struct pl_pu_cgraph *cg, int by_mem,
    uint64_t seed, int *part, FILE *view, char **cause)
{
	int nd = p->n_dev, n = cg->n;
	if (nd == 1 || n == 0) {
		for (int k = 0; k < n; k++)
			part[k] = 0;
		return 0;
	}
	int32_t *vw, *ew;
	pl_pu_cgraph_int_weights(cg, by_mem, &vw, &ew);
	SCOTCH_Num *verttab = pl_xmalloc(sizeof *verttab * ((size_t)n + 1));
	SCOTCH_Num *velotab = pl_xmalloc(sizeof *velotab * (size_t)n);
	SCOTCH_Num *edgetab = pl_xmalloc(sizeof *edgetab * (size_t)(cg->n_adj ? cg->n_adj : 1));
	SCOTCH_Num *edlotab = pl_xmalloc(sizeof *edlotab * (size_t)(cg->n_adj ? cg->n_adj : 1));
	SCOTCH_Num *parttab = pl_xmalloc(sizeof *parttab * (size_t)n);
	for (int k = 0; k <= n; k++)
		verttab[k] = cg->xadj[k];
	for (int k = 0; k < n; k++)
		velotab[k] = vw[k];
	for (int i = 0; i < cg->n_adj; i++) {
		edgetab[i] = cg->adj[i];
		edlotab[i] = ew[i];
	}
	SCOTCH_Num archw[PL_MAX_DEVICES];
	arch_weights(p, by_mem, archw);
	int fixed = 0;
	for (int k = 0; k < n; k++) {
		uint64_t m = p->group_allowed[k];
		parttab[k] = -1;
		if (__builtin_popcountll(m) == 1) {
			parttab[k] = __builtin_ctzll(m);
			fixed = 1;
		}
	}

	SCOTCH_Graph graph, bound;
	SCOTCH_Arch arch;
	SCOTCH_Strat strat;
	SCOTCH_Context ctx;
	int rc = -1;
	/* A private context: deterministic, seeded, one thread — so the same
	 * seed gives the same mapping every time. */
	SCOTCH_contextInit(&ctx);
	SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
	SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
	SCOTCH_contextRandomSeed(&ctx, (SCOTCH_Num)pl_pu_seed31(seed));
	SCOTCH_contextThreadSpawn(&ctx, 1, NULL);
	SCOTCH_graphInit(&bound);
	SCOTCH_graphInit(&graph);
	SCOTCH_archInit(&arch);
	SCOTCH_stratInit(&strat);
	/* (no SCOTCH_graphCheck: the group graph is symmetric and without
	 * loops or repeated edges by construction, and the check takes the
	 * square of a vertex's degree) */
	if (SCOTCH_graphBuild(&graph, 0, n, verttab, NULL, velotab, NULL, cg->n_adj,
	    edgetab, edlotab) != 0) {
		*cause = pl_xasprintf("scotch: SCOTCH_graphBuild rejected the group graph of '%s' (%d vertices)",
		    p->g->name, n);
		goto out;
	}
	if (SCOTCH_contextBindGraph(&ctx, &graph, &bound) != 0) {
		*cause = pl_xasprintf("scotch: SCOTCH_contextBindGraph failed");
		goto out;
	}
	if (SCOTCH_archCmpltw(&arch, nd, archw) != 0) {
		*cause = pl_xasprintf("scotch: SCOTCH_archCmpltw failed for %d devices", nd);
		goto out;
	}
	if ((fixed ? SCOTCH_graphMapFixed(&bound, &arch, &strat, parttab)
	    : SCOTCH_graphMap(&bound, &arch, &strat, parttab)) != 0) {
		*cause = pl_xasprintf("scotch: SCOTCH_graphMap failed on '%s'", p->g->name);
		goto out;
	}
	for (int k = 0; k < n; k++) {
		if (parttab[k] < 0 || parttab[k] >= nd) {
			*cause = pl_xasprintf("scotch: SCOTCH_graphMap put group %d on terminal %ld (expected 0..%d)",
			    k, (long)parttab[k], nd - 1);
			goto out;
		}
		part[k] = (int)parttab[k];
	}
	if (view != NULL) {
		SCOTCH_Mapping map;
		if (SCOTCH_graphMapInit(&graph, &map, &arch, parttab) == 0) {
			SCOTCH_graphMapView(&graph, &map, view);
			SCOTCH_graphMapExit(&graph, &map);
		}
	}
	rc = 0;
out:
	SCOTCH_stratExit(&strat);
	SCOTCH_archExit(&arch);
	SCOTCH_graphExit(&bound);
	SCOTCH_graphExit(&graph);
	SCOTCH_contextExit(&ctx);
	free(verttab);
	free(velotab);
	free(edgetab);
	free(edlotab);
	free(parttab);
	free(vw);
	free(ew);
	return rc;
}

struct scotch_state {
	int phase;
	int mem_aware;
	struct pl_pu_cgraph *cg;
	struct pl_placement *cand;
};

/* Set up the group graph. */
static int
scotch_create_common(struct pl_placer *pl, int mem_aware)
{
	struct scotch_state *s = pl_xcalloc(1, sizeof *s);
	s->mem_aware = mem_aware;
	s->cand = pl_placement_new(pl->prob->n_ops, pl->prob->n_dev);
	pl->priv = s;
	return 0;
}

/* Plain Scotch. */
static int
scotch_create(struct pl_placer *pl, char **cause)
{
	(void)cause;
	return scotch_create_common(pl, 0);
}

/* Memory-aware Scotch. */
static int
scotch_mem_create(struct pl_placer *pl, char **cause)
{
	(void)cause;
	return scotch_create_common(pl, 1);
}

/* Map (by compute or memory) into s->cand.  0 or -1 (note set). */
static int
map_into(struct pl_placer *pl, struct scotch_state *s, int by_mem)
{
	int *part = pl_xmalloc(sizeof *part * (size_t)(s->cg->n ? s->cg->n : 1));
	char *cause = NULL;
	if (pl_scotch_map(pl->prob, s->cg, by_mem, pl->run.seed, part, NULL, &cause) != 0) {
		pl_placer_note(pl, "%s", cause);
		pl_placer_set_status(pl, "error: %s", cause);
		free(cause);
		free(part);
		return -1;
	}
	for (int k = 0; k < s->cg->n; k++)
		pl_pu_set_group(pl->prob, s->cand, k, part[k]);
	free(part);
	return 0;
}

/* One phase: map by compute; (scotch-mem) repair; map by memory + repair. */
static enum pl_step_status
scotch_step(struct pl_placer *pl)
{
	struct scotch_state *s = pl->priv;
	enum pl_step_status st;
	if (s->cg == NULL)
		s->cg = pl_pu_cgraph_new(pl->prob);
	switch (s->phase++) {
	case 0:
		if (map_into(pl, s, 0) != 0)
			return PL_STEP_ERROR;
		st = pl_pu_finish(pl, s->cand, "SCOTCH_graphMap by compute");
		if (st != PL_STEP_DONE || !s->mem_aware || pl->best_res.oom_mask == 0)
			return st;
		return PL_STEP_MORE;
	case 1: {
		int64_t left = pl_pu_fit_memory(pl->prob, s->cand);
		char label[96];
		snprintf(label, sizeof label, "memory repair of the compute mapping (%s)",
		    left ? "static estimate still over" : "static estimate fits");
		st = pl_pu_finish(pl, s->cand, label);
		if (st != PL_STEP_DONE || pl->best_res.oom_mask == 0)
			return st;
		return PL_STEP_MORE;
	}
	default: {
		if (map_into(pl, s, 1) != 0)
			return PL_STEP_ERROR;
		int64_t left = pl_pu_fit_memory(pl->prob, s->cand);
		char label[96];
		snprintf(label, sizeof label, "SCOTCH_graphMap by memory + repair (%s)",
		    left ? "static estimate still over" : "static estimate fits");
		return pl_pu_finish(pl, s->cand, label);
	}
	}
}

/* Free the state. */
static void
scotch_destroy(struct pl_placer *pl)
{
	struct scotch_state *s = pl->priv;
	if (s == NULL)
		return;
	pl_pu_cgraph_free(s->cg);
	pl_placement_free(s->cand);
	free(s);
}

static const struct pl_option_def scotch_options[] = {
	{ NULL, 0, NULL, NULL },
};

const struct pl_placer_class pl_placer_scotch = {
	.name = "scotch",
	.title = "Scotch",
	.summary = "libscotch static mapping of the group graph onto devices weighted by speed (OOM reported, not fixed)",
	.options = scotch_options,
	.create = scotch_create,
	.step = scotch_step,
	.destroy = scotch_destroy,
	.quick = 1,
};

const struct pl_placer_class pl_placer_scotch_mem = {
	.name = "scotch-mem",
	.title = "Scotch (memory-aware)",
	.summary = "Scotch, then when it does not fit: memory repair, then a memory-weighted remap with repair",
	.options = scotch_options,
	.create = scotch_mem_create,
	.step = scotch_step,
	.destroy = scotch_destroy,
	.quick = 1,
};
