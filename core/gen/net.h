/*
 * net — the forward network a generator describes, and the training-step
 * builder that turns it into a placelab graph (internal to core/gen).
 *
 * A generator adds forward nodes in a topological order: each names its
 * type, its gradient rule, its FLOPs, the parameters it owns and its
 * output size in elements.  gnet_build() then emits, in list order, the
 * forward ops, the backward ops (reverse order, one per differentiable
 * input at op granularity, one per forward op at layer granularity,
 * gradient sums where a tensor feeds several ops) and the parameter
 * update ops.
 *
 * Invariant: node ids are positions in the node list; every input refers
 * to an earlier node, so the list is a topological order.
 */
#ifndef PL_GEN_NET_H
#define PL_GEN_NET_H

#include <stdint.h>

#include "gen.h"
#include "graph.h"

/* How gradients flow through a node. */
enum gnet_grad {
	GG_NONE = 0,	/* no gradient (inputs, labels, random numbers, shapes) */
	GG_LINEAR,	/* dX from dY alone (Add, Concat, Split, pooling by mean) */
	GG_PRODUCT,	/* dX_i needs the other inputs (Mul, MatMul, Conv2D) */
	GG_OUTPUT,	/* dX needs the node's output (Sigmoid, Tanh, Relu) */
	GG_INPUT,	/* dX needs inputs and output (MaxPool, norms, losses) */
	GG_VAR,		/* a variable: owns parameters, no inputs */
};

/* Node flags. */
#define GN_BCAST 0x1	/* binary elementwise: TF-style broadcast grad ops */
#define GN_SPARSE 0x2	/* gradient to a variable input is sparse (Gather) */
#define GN_LOSS 0x4	/* the loss: backward starts here */
#define GN_PASS 0x8	/* gradient passes through unchanged to every input
			 * (Identity reads, AddN): no backward op, as in TF */
#define GN_STATE 0x10	/* non-trainable variable (batch-norm moving
			 * statistics): not counted in the parameter stats */
#define GN_MEAN 0x20	/* reduce-mean: TF's Reshape, Tile, RealDiv gradient */
#define GN_TFGRAD 0x40	/* TF's gradient ops for ConcatV2 (Rank, FloorMod,
			 * ShapeN, ConcatOffset, a Slice per input) and
			 * convolutions (ShapeN or Shape, BackpropInput and
			 * BackpropFilter) */

/* Weight-decay styles of a model's reference training (op granularity). */
enum gnet_decay {
	GD_NONE = 0,
	GD_SLIM,	/* per variable scale * L2Loss (TF-slim l2_regularizer),
			 * summed into the total loss by one AddN */
	GD_SUM,		/* decay * AddN(L2Loss of each variable), added to
			 * the loss (TF official ResNet) */
};

/* An input reference: node id, output index. */
#define GREF(id, out) ((int)(((unsigned)(out) << 24) | (unsigned)(id)))
#define GREF_ID(r) ((r) & 0xffffff)
#define GREF_OUT(r) ((int)((unsigned)(r) >> 24))

struct gnet;

struct gnet *gnet_new(const char *name, const struct pl_gen_opts *o,
    const char *default_optimizer);
void gnet_free(struct gnet *n);
int gnet_dtype(const struct gnet *n);
int gnet_layer(const struct gnet *n);

/* Set the scope of the nodes added next (printf-style). */
void gnet_scope(struct gnet *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Add a node "scope/name"; n_in (at most 16) input refs follow as ints.
 * Returns its id. */
int gnet_op(struct gnet *n, const char *name, const char *type,
    enum gnet_grad gk, double flops, int64_t params, int64_t out_elems,
    int n_in, ...);
/* Same with an array of inputs. */
int gnet_opa(struct gnet *n, const char *name, const char *type,
    enum gnet_grad gk, double flops, int64_t params, int64_t out_elems,
    int n_in, const int *in);
/* A variable of `params` elements (GG_VAR). */
int gnet_var(struct gnet *n, const char *name, int64_t params);
/* Give a node k equal outputs, or flags. */
void gnet_set_outputs(struct gnet *n, int id, int k);
void gnet_set_flags(struct gnet *n, int id, unsigned flags);
/* Elements of intermediates a fused node keeps for its backward op (they
 * count in its out_bytes in a training step). */
void gnet_set_saved(struct gnet *n, int id, int64_t elems);
/* Place node id with node `with` (TF colocation: variable reads and
 * assignments live with their variable); its backward ops follow. */
void gnet_set_coloc(struct gnet *n, int id, int with);
/* Weight decay: the style, and the regularisation losses registered so
 * far (op granularity). */
void gnet_set_decay(struct gnet *n, enum gnet_decay d);
/* At op granularity, emit the optimizer as TF does: slot variables
 * "<var>/Momentum" (or "/Adam", "/Adam_1") colocated with their variable
 * and holding the slots' bytes, hyper-parameter constants feeding every
 * update, and global_step with its AssignAdd. */
void gnet_set_tf_optimizer(struct gnet *n);
enum gnet_decay gnet_decay(const struct gnet *n);
void gnet_add_reg(struct gnet *n, int id);
int gnet_reg_count(const struct gnet *n);
const int *gnet_regs(const struct gnet *n);
/* Add input refs to an existing node (for recurrences built late). */
void gnet_add_input(struct gnet *n, int id, int ref);
int64_t gnet_out_elems(const struct gnet *n, int id);
int gnet_count(const struct gnet *n);
/* Count `macs` multiply-adds in the stats (convolutions, matmuls). */
void gnet_count_macs(struct gnet *n, double macs);

/* Forward figures of the net so far. */
void gnet_stats(const struct gnet *n, struct pl_gen_stats *st);

/* Emit the training step (or the forward pass when forward_only) and
 * build the graph.  Consumes n. */
struct pl_graph *gnet_build(struct gnet *n, char **cause);

#endif
