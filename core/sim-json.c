/*
 * sim-json — a simulation's result, and optionally its full trace, as a
 * placelab-result/1 document (docs/SIMULATION.md lists the fields).
 *
 * Invariant: this is the one writer of the summary every placelab-result/1
 * document shares (`sim --json`, and `run --json` which adds the
 * method's fields); times are in us and printed so that they read back
 * to the same double, byte counts as exact integers (above 2^53 too);
 * memory figures are null when memory is not modelled.
 */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "io.h"
#include "sim.h"
#include "xmalloc.h"

/* Gap of a makespan to a bound, as a fraction of the bound (see sim.h). */
double
pl_gap_to_bound(double bound_us, double makespan_us)
{
	if (bound_us > 0)
		return (makespan_us - bound_us) / bound_us;
	return makespan_us <= bound_us ? 0 : NAN;
}

/* Gap of a makespan to bounds b. */
double
pl_bounds_gap(const struct pl_bounds *b, double makespan_us)
{
	return b == NULL ? NAN : pl_gap_to_bound(b->best_us, makespan_us);
}

/* The name of tensor t: "op:index". */
static char *
tensor_name(const struct pl_graph *g, int t)
{
	if (t < 0 || t >= g->n_tensors)
		return pl_xstrdup("");
	return pl_xasprintf("%s:%d", g->ops[g->tensors[t].op].name, g->tensors[t].index);
}

/* The trace's arrays. */
static void
add_trace(cJSON *root, const struct pl_problem *p, const struct pl_trace *tr)
{
	const struct pl_graph *g = p->g;
	const struct pl_cluster *c = p->c;
	cJSON *ops = cJSON_AddArrayToObject(root, "ops");
	for (int v = 0; v < tr->n_ops; v++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", g->ops[v].name);
		cJSON_AddStringToObject(o, "device", c->dev[tr->ops[v].dev].name);
		cJSON_AddNumberToObject(o, "start_us", tr->ops[v].start);
		cJSON_AddNumberToObject(o, "end_us", tr->ops[v].end);
		cJSON_AddBoolToObject(o, "critical", tr->critical_mask[v] != 0);
		cJSON_AddItemToArray(ops, o);
	}
	cJSON *chs = cJSON_AddArrayToObject(root, "channels");
	for (int i = 0; i < tr->n_channels; i++)
		cJSON_AddItemToArray(chs, cJSON_CreateString(tr->channel_name[i]));
	cJSON *xs = cJSON_AddArrayToObject(root, "xfers");
	for (int i = 0; i < tr->n_xfers; i++) {
		const struct pl_trace_xfer *x = &tr->xfers[i];
		cJSON *o = cJSON_CreateObject();
		char *tn = tensor_name(g, x->tensor);
		cJSON_AddStringToObject(o, "tensor", tn);
		free(tn);
		cJSON_AddStringToObject(o, "src", c->dev[x->src_dev].name);
		if (x->dst_dev >= 0)
			cJSON_AddStringToObject(o, "dst", c->dev[x->dst_dev].name);
		else
			cJSON_AddNullToObject(o, "dst");
		cJSON_AddStringToObject(o, "channel", tr->channel_name[x->channel]);
		cJSON_AddNumberToObject(o, "start_us", x->start);
		cJSON_AddNumberToObject(o, "end_us", x->end);
		cJSON_AddNumberToObject(o, "busy_until_us", x->busy_until);
		cJSON_AddItemToObject(o, "bytes", pl_json_bytes(x->bytes));
		cJSON_AddItemToArray(xs, o);
	}
	cJSON *mem = cJSON_AddObjectToObject(root, "memory");
	for (int d = 0; d < tr->n_dev; d++) {
		cJSON *a = cJSON_AddArrayToObject(mem, c->dev[d].name);
		for (int i = 0; i < tr->n_mem[d]; i++) {
			cJSON *pt = cJSON_CreateArray();
			cJSON_AddItemToArray(pt, cJSON_CreateNumber(tr->mem[d][i].t));
			cJSON_AddItemToArray(pt, pl_json_bytes(tr->mem[d][i].live));
			cJSON_AddItemToArray(a, pt);
		}
	}
	cJSON *cp = cJSON_AddArrayToObject(root, "critical_path");
	for (int i = 0; i < tr->n_critical; i++)
		cJSON_AddItemToArray(cp, cJSON_CreateString(g->ops[tr->critical[i]].name));
}

/* A memory figure: item where memory is modelled (known), else null. */
#define MEM_ITEM(known, item) ((known) ? (item) : cJSON_CreateNull())

/* The document as an object; caller deletes. */
cJSON *
pl_sim_result_json(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_sim_opts *o, const struct pl_sim_result *r,
    const struct pl_bounds *b, const struct pl_trace *tr)
{
	const struct pl_cluster *c = p->c;
	int mem = o->mem != PL_MEM_NONE && pl != NULL;
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "format", PL_FORMAT_RESULT);
	cJSON_AddStringToObject(root, "graph", p->g->name != NULL ? p->g->name : "");
	cJSON_AddStringToObject(root, "cluster", c->name != NULL ? c->name : "");
	cJSON_AddStringToObject(root, "sim", pl_sim_kind_name(o->kind));
	cJSON_AddStringToObject(root, "mem", pl_mem_model_name(o->mem));
	if (pl != NULL)
		cJSON_AddNumberToObject(root, "makespan_us", r->makespan_us);
	else
		cJSON_AddNullToObject(root, "makespan_us");
	if (b != NULL) {
		cJSON *bo = cJSON_AddObjectToObject(root, "bounds");
		cJSON_AddNumberToObject(bo, "critical_path_us", b->critical_path_us);
		cJSON_AddNumberToObject(bo, "work_us", b->work_us);
		cJSON_AddNumberToObject(bo, "best_us", b->best_us);
		double gap = pl_bounds_gap(b, r->makespan_us);
		if (pl != NULL && !isnan(gap))
			cJSON_AddNumberToObject(root, "gap_to_bound", gap);
		else
			cJSON_AddNullToObject(root, "gap_to_bound");
	}
	/* (mem is 0 without a placement, where r may hold nothing) */
	cJSON_AddItemToObject(root, "oom", MEM_ITEM(mem, cJSON_CreateBool(r->oom_mask != 0)));
	cJSON_AddItemToObject(root, "oom_excess", MEM_ITEM(mem, pl_json_bytes(r->oom_excess)));
	cJSON_AddItemToObject(root, "peak_max", MEM_ITEM(mem, pl_json_bytes(r->peak_max)));
	if (pl == NULL) {
		cJSON_AddNullToObject(root, "bytes_moved");
		cJSON_AddNullToObject(root, "transfers");
		cJSON_AddNullToObject(root, "devices");
		return root;
	}
	cJSON_AddItemToObject(root, "bytes_moved", pl_json_bytes(r->bytes_moved));
	cJSON_AddNumberToObject(root, "transfers", r->n_transfers);
	cJSON *devs = cJSON_AddArrayToObject(root, "devices");
	for (int d = 0; d < p->n_dev; d++) {
		cJSON *dv = cJSON_CreateObject();
		int n = 0;
		for (int v = 0; v < p->n_ops; v++)
			n += pl->dev[v] == d;
		cJSON_AddStringToObject(dv, "name", c->dev[d].name);
		cJSON_AddNumberToObject(dv, "ops", n);
		cJSON_AddNumberToObject(dv, "busy_us", r->busy_us[d]);
		cJSON_AddNumberToObject(dv, "utilisation",
		    r->makespan_us > 0 ? r->busy_us[d] / r->makespan_us : 0);
		cJSON_AddItemToObject(dv, "peak_bytes", MEM_ITEM(mem, pl_json_bytes(r->peak_bytes[d])));
		cJSON_AddItemToObject(dv, "capacity", pl_json_bytes(c->dev[d].mem_bytes));
		cJSON_AddItemToObject(dv, "oom", MEM_ITEM(mem, cJSON_CreateBool((r->oom_mask >> d) & 1)));
		cJSON_AddItemToObject(dv, "bytes_in", pl_json_bytes(r->bytes_in[d]));
		cJSON_AddItemToObject(dv, "bytes_out", pl_json_bytes(r->bytes_out[d]));
		cJSON_AddItemToArray(devs, dv);
	}
	if (tr != NULL)
		add_trace(root, p, tr);
	return root;
}

/* The document; caller frees. */
char *
pl_sim_result_to_json(const struct pl_problem *p, const struct pl_placement *pl,
    const struct pl_sim_opts *o, const struct pl_sim_result *r,
    const struct pl_bounds *b, const struct pl_trace *tr)
{
	cJSON *root = pl_sim_result_json(p, pl, o, r, b, tr);
	char *out = pl_json_print(root);
	cJSON_Delete(root);
	return out;
}
