/*
 * mincut — the min-cut partitioning baseline of the hierarchical planner's
 * paper (Mirhoseini et al., ICLR 2018), with METIS (Karypis and Kumar):
 * METIS_PartGraphKway splits the group graph (vertex weight = compute, edge
 * weight = bytes) into one part per device minimising the edge cut, with
 * target part weights proportional to the devices' effective speeds.
 * Groups that land on a device they may not use go to their fastest
 * allowed device.  Memory is not considered: a partition that does not fit
 * is reported as OOM.
 * METIS prints some complaints (a bisection left with no vertex) with
 * printf and still returns METIS_OK; they are caught and become the
 * method's note, so that stdout carries only what placelab writes.
 * Invariant: part i of METIS is device i.
 */
#include <metis.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "strbuf.h"
#include "xmalloc.h"

/* Serialises the calls that borrow stdout (glibc lets a program assign
 * it; the explorer's curses output does not go through it). */
static pthread_mutex_t metis_stdout_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * METIS_PartGraphKway with whatever METIS prints caught: the text, its
 * lines joined by "; " without tabs or "***", goes to *said (NULL when
 * it printed nothing).
 */
static int
metis_kway_quiet(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy,
    idx_t *vwgt, idx_t *adjwgt, idx_t *nparts, real_t *tpwgts, idx_t *options,
    idx_t *obj, idx_t *part, char **said)
{
	char *buf = NULL;
	size_t len = 0;
	*said = NULL;
	FILE *sink = open_memstream(&buf, &len);
	pthread_mutex_lock(&metis_stdout_lock);
	FILE *saved = stdout;
	if (sink != NULL) {
		fflush(stdout);
		stdout = sink;
	}
	int rc = METIS_PartGraphKway(nvtxs, ncon, xadj, adjncy, vwgt, NULL, adjwgt,
	    nparts, tpwgts, NULL, options, obj, part);
	stdout = saved;
	pthread_mutex_unlock(&metis_stdout_lock);
	if (sink == NULL)
		return rc;
	fclose(sink);
	struct pl_strbuf sb = { 0 };
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, "\t *");
		if (*line != '\0')
			pl_sb_printf(&sb, "%s%s", sb.len ? "; " : "", line);
	}
	free(buf);
	*said = sb.s;
	return rc;
}

/* Partition with METIS; *said: what METIS printed, if anything. */
int
pl_metis_partition(const struct pl_problem *p, const struct pl_pu_cgraph *cg,
    uint64_t seed, int ufactor, int *part, int64_t *objval, char **said,
    char **cause)
{
	int nd = p->n_dev, n = cg->n;
	*objval = 0;
	*said = NULL;
	if (nd == 1 || n <= 1) {
		/* nothing to partition: the fastest allowed device */
		for (int k = 0; k < n; k++)
			part[k] = pl_pu_fastest_in(p, p->group_allowed[k], NULL);
		return 0;
	}
	int32_t *vw, *ew;
	pl_pu_cgraph_int_weights(cg, 0, &vw, &ew);
	idx_t *xadj = pl_xmalloc(sizeof *xadj * ((size_t)n + 1));
	idx_t *adjncy = pl_xmalloc(sizeof *adjncy * (size_t)(cg->n_adj ? cg->n_adj : 1));
	idx_t *vwgt = pl_xmalloc(sizeof *vwgt * (size_t)n);
	idx_t *adjwgt = pl_xmalloc(sizeof *adjwgt * (size_t)(cg->n_adj ? cg->n_adj : 1));
	idx_t *mpart = pl_xmalloc(sizeof *mpart * (size_t)n);
	for (int k = 0; k <= n; k++)
		xadj[k] = cg->xadj[k];
	for (int k = 0; k < n; k++)
		vwgt[k] = vw[k];
	for (int i = 0; i < cg->n_adj; i++) {
		adjncy[i] = cg->adj[i];
		adjwgt[i] = ew[i];
	}
	double speed[PL_MAX_DEVICES], ssum = 0;
	pl_pu_device_speed(p, speed);
	for (int d = 0; d < nd; d++)
		ssum += speed[d];
	real_t tpwgts[PL_MAX_DEVICES];
	for (int d = 0; d < nd; d++)
		tpwgts[d] = (real_t)(speed[d] / ssum);
	idx_t options[METIS_NOPTIONS];
	METIS_SetDefaultOptions(options);
	options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
	options[METIS_OPTION_NUMBERING] = 0;
	options[METIS_OPTION_SEED] = (idx_t)pl_pu_seed31(seed);
	options[METIS_OPTION_UFACTOR] = ufactor;
	idx_t nvtxs = n, ncon = 1, nparts = nd, obj = 0;
	int rc = metis_kway_quiet(&nvtxs, &ncon, xadj, adjncy, vwgt, adjwgt,
	    &nparts, tpwgts, options, &obj, mpart, said);
	if (rc != METIS_OK) {
		*cause = pl_xasprintf("mincut: METIS_PartGraphKway returned %d on '%s' (%d vertices, %d parts)",
		    rc, p->g->name, n, nd);
	} else {
		for (int k = 0; k < n; k++)
			part[k] = (int)mpart[k];
		*objval = obj;
	}
	free(xadj);
	free(adjncy);
	free(vwgt);
	free(adjwgt);
	free(mpart);
	free(vw);
	free(ew);
	return rc == METIS_OK ? 0 : -1;
}

/* One pass. */
static enum pl_step_status
mincut_step(struct pl_placer *pl)
{
	const struct pl_problem *p = pl->prob;
	struct pl_pu_cgraph *cg = pl_pu_cgraph_new(p);
	int *part = pl_xmalloc(sizeof *part * (size_t)(cg->n ? cg->n : 1));
	int64_t cut;
	char *cause = NULL, *said = NULL;
	enum pl_step_status st;
	int rc = pl_metis_partition(p, cg, pl->run.seed, (int)pl_opt_int(pl->opts, "ufactor"),
	    part, &cut, &said, &cause);
	if (rc != 0) {
		pl_placer_note(pl, "%s", cause);
		pl_placer_set_status(pl, "error: %s", cause);
		free(cause);
		st = PL_STEP_ERROR;
	} else {
		struct pl_placement *cand = pl_placement_new(p->n_ops, p->n_dev);
		for (int k = 0; k < cg->n; k++)
			pl_pu_set_group(p, cand, k, part[k]);
		char *label = pl_xasprintf("METIS k-way, edge cut %lld (scaled)%s%s",
		    (long long)cut, said != NULL ? "; METIS said: " : "", said != NULL ? said : "");
		st = pl_pu_finish(pl, cand, label);
		free(label);
		pl_placement_free(cand);
	}
	free(said);
	free(part);
	pl_pu_cgraph_free(cg);
	return st;
}

static const struct pl_option_def mincut_options[] = {
	{ "ufactor", PL_OPT_INT, "30", "allowed load imbalance in 1/1000 (METIS_OPTION_UFACTOR)" },
	{ NULL, 0, NULL, NULL },
};

static const struct pl_option_range mincut_ranges[] = {
	{ "ufactor", "[1, 10000]" },
	{ NULL, NULL },
};

const struct pl_placer_class pl_placer_mincut = {
	.name = "mincut",
	.title = "METIS min-cut",
	.summary = "METIS k-way min-cut partitioning of the group graph, parts sized by device speed",
	.options = mincut_options,
	.ranges = mincut_ranges,
	.step = mincut_step,
	.quick = 1,
};
