/*
 * graph — a computation graph: ops, the tensors they produce and the edges
 * that consume them.
 *
 * Invariant: a struct pl_graph is immutable once pl_graph_build() has
 * returned it.  It is a validated DAG: every edge names existing ops, op
 * names are unique, numbers are finite and within range, every op belongs
 * to exactly one group (ops without a colocation group get a group of their
 * own), and topo[] is a topological order that breaks ties by list order.
 * Ops keep the order of the input ("list order"), which the Placeto
 * simulator's semantics depend on.
 *
 * A tensor is one output (op, output index).  Every edge consumes one
 * tensor; all edges of the same tensor carry the same byte count.
 *
 * Ownership: pl_graph_build() consumes the builder; pl_graph_free() frees
 * the graph and every string in it.
 */
#ifndef PL_GRAPH_H
#define PL_GRAPH_H

#include <stdint.h>

/* Device kinds; X-macro keeps the enum and the names in sync. */
#define PL_DEV_KINDS(X) X(CPU, "cpu") X(GPU, "gpu") X(TPU, "tpu")
enum pl_dev_kind {
#define PL_X(e, s) PL_DEV_##e,
	PL_DEV_KINDS(PL_X)
#undef PL_X
	PL_DEV_KIND_COUNT
};
const char *pl_dev_kind_name(enum pl_dev_kind k);
/* Returns the kind for a name, or -1. */
int pl_dev_kind_parse(const char *s);

/* Where an op may run. */
enum pl_constraint_kind {
	PL_CONS_ANY = 0,
	PL_CONS_KIND,		/* any device of one kind (cpu / gpu / tpu) */
	PL_CONS_DEVICE,		/* one named device */
};

struct pl_constraint {
	enum pl_constraint_kind kind;
	enum pl_dev_kind dev_kind;	/* PL_CONS_KIND */
	char *device;			/* PL_CONS_DEVICE: device name */
};

/* A measured time on one named device (overrides the kind's time). */
struct pl_dev_time {
	char *device;
	double us;
};

struct pl_op {
	char *name;
	char *type;		/* e.g. "MatMul"; never NULL ("" if unknown) */
	char *scope;		/* e.g. "enc/l2/t7/lstm"; never NULL */
	double flops;		/* floating-point operations per step */
	int64_t param_bytes;	/* parameters resident on the op's device */
	int64_t out_bytes;	/* the op's outputs: at least the sum of its
				 * tensors.  A builder takes PL_OUT_BYTES_SUM
				 * for that sum; a smaller value is raised to
				 * it for a program, refused for a file */
	int64_t temp_bytes;	/* scratch memory while the op runs */
	double measured_us[PL_DEV_KIND_COUNT];	/* < 0: not measured */
	int n_dev_times;	/* measured times on named devices */
	struct pl_dev_time *dev_times;
	int group;		/* index into graph->groups */
	struct pl_constraint cons;
	int first_tensor;	/* tensors of this op: [first_tensor, first_tensor+n_tensors) */
	int n_tensors;
};

struct pl_tensor {
	int op;			/* producer */
	int index;		/* output index */
	int64_t bytes;
};

struct pl_edge {
	int src, dst;
	int tensor;		/* index into graph->tensors */
};

struct pl_group {
	char *name;		/* colocation group name; NULL for a singleton */
	int first, count;	/* its ops: graph->group_ops[first .. first+count) */
};

/* A place in a source file (line 0: unknown; col 0: line only). */
struct pl_src_pos {
	int line, col;
};

struct pl_graph {
	char *name;
	char *source;			/* file the graph was read from, or NULL */
	struct pl_src_pos *op_pos;	/* where each op is defined in it */
	int n_ops, n_edges, n_tensors, n_groups;
	struct pl_op *ops;		/* list order */
	struct pl_edge *edges;		/* input order */
	struct pl_tensor *tensors;	/* by producer in list order, then index */
	struct pl_group *groups;
	int *group_ops;
	/* CSR adjacency: out edges of op v are out_edge[out_off[v] .. out_off[v+1]),
	 * in input order; likewise in_edge for in edges. Entries are edge ids. */
	int *out_off, *out_edge;
	int *in_off, *in_edge;
	int *topo;			/* topological order of op ids */
	int *topo_pos;			/* topo_pos[topo[i]] == i */
};

/* ---- building ----------------------------------------------------------- */

struct pl_graph_builder;

struct pl_graph_builder *pl_graph_builder_new(const char *name);
void pl_graph_builder_free(struct pl_graph_builder *b);

/* Rename the graph being built. */
void pl_graph_builder_set_name(struct pl_graph_builder *b, const char *name);
/* Where in the source the next added item comes from, for error messages. */
void pl_graph_builder_set_source(struct pl_graph_builder *b, const char *file);
void pl_graph_builder_set_line(struct pl_graph_builder *b, int line, int column);

/*
 * Add an op.  The op struct is copied; its strings are duplicated (NULL
 * type/scope become "").  group_name: colocation group or NULL.  Returns the
 * op id (list position).  Checks are deferred to pl_graph_build().
 */
int pl_graph_add_op(struct pl_graph_builder *b, const struct pl_op *op,
    const char *group_name);
/* Add an edge by op names (resolved in build) or by id (>= 0 wins). */
void pl_graph_add_edge_named(struct pl_graph_builder *b, const char *src,
    const char *dst, int src_output, int64_t bytes);
void pl_graph_add_edge(struct pl_graph_builder *b, int src, int dst,
    int src_output, int64_t bytes);
/* Look up an op added so far by name; -1 if none. */
int pl_graph_builder_find(const struct pl_graph_builder *b, const char *name);
int pl_graph_builder_n_ops(const struct pl_graph_builder *b);
/* Op added so far, for generators that adjust fields after adding. */
struct pl_op *pl_graph_builder_op(struct pl_graph_builder *b, int id);

/*
 * Validate and freeze.  Always consumes b.  On error returns NULL and sets
 * *cause to a message "FILE:LINE:COL: op 'x': what was expected" (caller
 * frees).
 */
struct pl_graph *pl_graph_build(struct pl_graph_builder *b, char **cause);

void pl_graph_free(struct pl_graph *g);

/* A message about op v for *cause: "FILE:LINE:COL: " (what is known of
 * where the op was defined) and the formatted text.  Caller frees. */
char *pl_graph_op_message(const struct pl_graph *g, int v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- queries ------------------------------------------------------------ */

/* Op id by name (hash lookup), or -1. */
int pl_graph_find(const struct pl_graph *g, const char *name);
/* The tensor op v outputs at output index idx (an op's outputs need not
 * be numbered 0, 1, ...), or -1. */
int pl_graph_tensor_of(const struct pl_graph *g, int v, long idx);
/* Total flops, parameter bytes and output (activation) bytes. */
double pl_graph_total_flops(const struct pl_graph *g);
int64_t pl_graph_total_params(const struct pl_graph *g);
/* The same split: the parameters, and the optimizer state that update ops
 * (of a type such as ApplyAdam or ResourceSparseApplyMomentum, FORMAT.md)
 * carry as their param_bytes. */
void pl_graph_param_bytes(const struct pl_graph *g, int64_t *params, int64_t *optimizer);
int64_t pl_graph_total_activations(const struct pl_graph *g);
/* Longest path weighted by flops; fills path (may be NULL) with op ids in
 * order and returns its length via *len; returns the path's flops. */
double pl_graph_longest_flops_path(const struct pl_graph *g, int *path, int *len);

/* Limits that validation enforces. */
#define PL_MAX_OPS (1 << 24)
#define PL_MAX_BYTES ((int64_t)1 << 50)	/* 1 PiB: anything larger is absurd */
/* The ops' bytes and the edges' bytes of a graph together: every sum of
 * memory or traffic (a tensor copied to each of 64 devices included) then
 * fits an int64_t. */
#define PL_MAX_GRAPH_BYTES ((int64_t)1 << 56)
#define PL_MAX_FLOPS 1e18
#define PL_MAX_OUTPUTS 4096
#define PL_MAX_DEV_TIMES 64
/* out_bytes for the builder: left out, the sum of the op's tensors. */
#define PL_OUT_BYTES_SUM ((int64_t)-1)

#endif
