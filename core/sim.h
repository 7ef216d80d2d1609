/*
 * sim — simulate one training step of a placed graph.
 *
 * Two models (docs/SIMULATION.md):
 *  - PL_SIM_PLACETO: bit-exact with Placeto's public reference simulator
 *    (docs/SIMULATION.md, section 3): op cost = the problem's op time on its device,
 *    one outgoing bus per device, one broadcast transfer per output index,
 *    delta1/delta2 gaps from cluster->placeto, FIFO everywhere.
 *  - PL_SIM_NATIVE (default): heterogeneous op times, one transfer per
 *    (tensor, destination device) on its link channel (per ordered pair, or
 *    one shared bus), priority list scheduling when the placement has
 *    priorities, else first-ready first (ties by topological index).
 * Memory (PL_MEM_NATIVE or PL_MEM_PLACETO) is accounted per device and
 * reported with every result, with out-of-memory against capacity.
 *
 * Two entry points: pl_sim_eval() — the lean path for search loops, with a
 * reusable workspace that allocates nothing after its first use (one
 * workspace per thread) — and pl_sim_trace(), which records everything the
 * views and exports draw.
 *
 * Invariant: both paths give the same numbers for the same inputs.
 */
#ifndef PL_SIM_H
#define PL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "placement.h"
#include "problem.h"

#define PL_SIM_KINDS(X) X(NATIVE, "native") X(PLACETO, "placeto")
enum pl_sim_kind {
#define PL_X(e, s) PL_SIM_##e,
	PL_SIM_KINDS(PL_X)
#undef PL_X
};
/* PL_MEM_NONE skips memory accounting (peaks 0, never OOM): for search
 * loops that do not look at memory. */
enum pl_mem_model { PL_MEM_NATIVE = 0, PL_MEM_PLACETO = 1, PL_MEM_NONE = 2 };

struct pl_sim_opts {
	enum pl_sim_kind kind;
	enum pl_mem_model mem;
};
/* "native" / "placeto" -> kind; -1 if unknown.  Likewise for memory
 * ("native", "placeto", "none"). */
int pl_sim_kind_parse(const char *s);
const char *pl_sim_kind_name(enum pl_sim_kind k);
int pl_mem_model_parse(const char *s);
const char *pl_mem_model_name(enum pl_mem_model m);

struct pl_sim_result {
	double makespan_us;
	int n_dev;
	int64_t peak_bytes[PL_MAX_DEVICES];
	double busy_us[PL_MAX_DEVICES];
	int64_t bytes_in[PL_MAX_DEVICES];
	int64_t bytes_out[PL_MAX_DEVICES];
	int64_t bytes_moved;	/* total bytes over links */
	int n_transfers;
	uint64_t oom_mask;	/* bit d: device d's peak exceeds its capacity */
	int64_t peak_max;	/* max over devices of peak_bytes */
	int fullest;		/* the fullest device: largest peak / capacity
				 * (the first of equals) */
	int64_t peak_fullest;	/* its peak_bytes: "peak" in tables and views */
	int64_t oom_excess;	/* sum over devices of bytes above capacity */
};

struct pl_sim_ws;

/* A workspace for problem p (borrowed).  Not shared between threads. */
struct pl_sim_ws *pl_sim_ws_new(const struct pl_problem *p);
void pl_sim_ws_free(struct pl_sim_ws *ws);
/* Bytes held by the workspace (for the benchmarks). */
size_t pl_sim_ws_bytes(const struct pl_sim_ws *ws);

/*
 * The lean path: simulate pl and fill *r.  The placement must be valid
 * (pl_placement_check).  Returns 0, or -1 when the graph cannot complete
 * (cannot happen for a validated graph).
 */
int pl_sim_eval(struct pl_sim_ws *ws, const struct pl_placement *pl,
    const struct pl_sim_opts *o, struct pl_sim_result *r);
/*
 * Start times (us) of the ops in the last pl_sim_eval() on ws, indexed by
 * op id; valid until the next evaluation.  The same as the trace's.
 */
const double *pl_sim_ws_starts(struct pl_sim_ws *ws);

/* One op's run in a trace. */
struct pl_trace_op {
	double start, end;	/* us */
	int dev;
};

/* One transfer: a tensor sent over a channel. */
struct pl_trace_xfer {
	int tensor;		/* graph->tensors index */
	int src_dev, dst_dev;	/* dst_dev is -1 for a Placeto broadcast */
	int channel;		/* index into trace->channel_name */
	double start, end;	/* data moves in [start, end) */
	double busy_until;	/* channel blocked until (end + delta2 in Placeto) */
	int64_t bytes;
};

/* Live bytes on a device after an event at time t (several points may
 * share a time: what starts and ends at one instant shows as a spike). */
struct pl_mem_point {
	double t;
	int64_t live;
};

struct pl_trace {
	struct pl_sim_result res;
	int n_ops;
	struct pl_trace_op *ops;	/* by op id */
	int n_xfers;
	struct pl_trace_xfer *xfers;	/* by start time */
	int n_channels;
	char **channel_name;		/* "/gpu:0->/gpu:1", "bus", "/bus/gpu:0" */
	/* memory over time: mem[d][0 .. n_mem[d]) sorted by time */
	int n_dev;
	int *n_mem;
	struct pl_mem_point **mem;
	/* the critical path: op ids from first to last */
	int n_critical;
	int *critical;
	char *critical_mask;		/* n_ops: 1 if on the critical path */
};

/* The full path: simulate and record.  NULL + *cause on failure. */
struct pl_trace *pl_sim_trace(const struct pl_problem *p,
    const struct pl_placement *pl, const struct pl_sim_opts *o, char **cause);
void pl_trace_free(struct pl_trace *t);

/* Lower bounds on the makespan of any placement under the native model. */
struct pl_bounds {
	double critical_path_us;	/* fastest allowed device, free comms */
	double work_us;			/* total work over combined throughput */
	double best_us;			/* max of the above */
};
void pl_bounds_compute(const struct pl_problem *p, struct pl_bounds *b);
/* (makespan - bound) / bound: the "gap to bound"; when the bound is 0, 0
 * for a makespan of 0 and NAN (no finite gap) for any other. */
double pl_gap_to_bound(double bound_us, double makespan_us);
/* The gap of makespan to b->best_us (NAN without bounds). */
double pl_bounds_gap(const struct pl_bounds *b, double makespan_us);

/*
 * A simulation as a placelab-result/1 JSON document (docs/SIMULATION.md):
 * the summary, the bounds when b is not NULL, and the full trace (ops,
 * channels, transfers, memory curves, critical path) when tr is not NULL.
 * Under PL_MEM_NONE the memory figures (oom, oom_excess, peak_max, the
 * devices' peak_bytes and oom) are null.  The caller frees the string.
 */
char *pl_sim_result_to_json(const struct pl_problem *p,
    const struct pl_placement *pl, const struct pl_sim_opts *o,
    const struct pl_sim_result *r, const struct pl_bounds *b,
    const struct pl_trace *tr);
/* The same document as a cJSON object (the caller deletes it), for
 * writers that add their own fields (`placelab run --json`); pl NULL
 * (no placement) gives the problem's fields with null results. */
struct cJSON;
struct cJSON *pl_sim_result_json(const struct pl_problem *p,
    const struct pl_placement *pl, const struct pl_sim_opts *o,
    const struct pl_sim_result *r, const struct pl_bounds *b,
    const struct pl_trace *tr);

#endif
