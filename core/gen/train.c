/*
 * train — the forward-network description (gnet) and the training-step
 * builder that emits forward, backward and update ops.
 *
 * Invariant: emission is a deterministic function of the node list: list
 * order is forward ops in node order, then backward ops in reverse node
 * order, each parameter's update op right after its last gradient.
 * Every backward op carries its forward op's scope and colocation group
 * (the forward op's own, or that of the node it is colocated with, as a
 * variable's read is with the variable); every update op its owner's.
 * A forward tensor the backward pass needs gets an edge to the backward op
 * that reads it, so it stays alive until then.
 */
#include "net.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

struct gnode {
	char *name, *scope;
	const char *type;	/* static string */
	enum gnet_grad gk;
	unsigned flags;
	double flops;
	int64_t params, out_elems;
	int64_t saved_elems;	/* intermediates kept for the backward pass */
	int n_out;
	int coloc;		/* node id + 1 it is colocated with, 0: none */
	int n_in, cap_in;
	int *in;
};

struct gnet {
	char *name;
	int dtype, layer, train;
	const char *optimizer;
	int n, cap;
	struct gnode *nodes;
	int64_t over;		/* nodes past PL_MAX_OPS, not kept: the graph
				 * cannot be built (gnet_build says so) */
	char *scope;
	double macs;
	int tf_optimizer;	/* op granularity: TF's slot variables etc. */
	enum gnet_decay decay;
	int *reg, nreg, capreg;	/* regularisation losses */
};

/* A new, empty network. */
struct gnet *
gnet_new(const char *name, const struct pl_gen_opts *o, const char *default_optimizer)
{
	struct gnet *n = pl_xcalloc(1, sizeof *n);
	n->name = pl_xstrdup(name);
	n->dtype = o->dtype_bytes > 0 ? o->dtype_bytes : 4;
	n->layer = o->granularity == PL_GEN_LAYER;
	n->train = !o->forward_only;
	n->optimizer = o->optimizer != NULL ? o->optimizer : default_optimizer;
	n->scope = pl_xstrdup("");
	return n;
}

/* Free a network. */
void
gnet_free(struct gnet *n)
{
	if (n == NULL)
		return;
	for (int i = 0; i < n->n; i++) {
		free(n->nodes[i].name);
		free(n->nodes[i].scope);
		free(n->nodes[i].in);
	}
	free(n->nodes);
	free(n->reg);
	free(n->scope);
	free(n->name);
	free(n);
}

/* Bytes per element. */
int
gnet_dtype(const struct gnet *n)
{
	return n->dtype;
}

/* Whether the net is built at layer granularity. */
int
gnet_layer(const struct gnet *n)
{
	return n->layer;
}

/* Set the current scope. */
void
gnet_scope(struct gnet *n, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	free(n->scope);
	n->scope = pl_xstrdup(buf);
}

/* Append an input ref to node id. */
void
gnet_add_input(struct gnet *n, int id, int ref)
{
	if (n->over > 0)	/* (the node may be a stand-in) */
		return;
	struct gnode *x = &n->nodes[id];
	if (x->n_in == x->cap_in) {
		x->cap_in = x->cap_in ? 2 * x->cap_in : 4;
		x->in = pl_xreallocarray(x->in, x->cap_in, sizeof *x->in);
	}
	x->in[x->n_in++] = ref;
}

/* Add a node with an array of inputs. */
int
gnet_opa(struct gnet *n, const char *name, const char *type, enum gnet_grad gk,
    double flops, int64_t params, int64_t out_elems, int n_in, const int *in)
{
	/* every node is an op of the graph: past the most a graph may have,
	 * nodes are only counted (the last one kept stands in for them), so
	 * that a model far too large is refused without using up memory */
	if (n->n >= PL_MAX_OPS) {
		n->over++;
		return n->n - 1;
	}
	if (n->n == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 256;
		n->nodes = pl_xreallocarray(n->nodes, n->cap, sizeof *n->nodes);
	}
	int id = n->n++;
	struct gnode *x = &n->nodes[id];
	memset(x, 0, sizeof *x);
	x->name = *n->scope ? pl_xasprintf("%s/%s", n->scope, name) : pl_xstrdup(name);
	x->scope = pl_xstrdup(n->scope);
	x->type = type;
	x->gk = gk;
	x->flops = flops;
	x->params = params;
	x->out_elems = out_elems;
	x->n_out = 1;
	for (int i = 0; i < n_in; i++)
		gnet_add_input(n, id, in[i]);
	return id;
}

/* Add a node with inputs as trailing int arguments. */
int
gnet_op(struct gnet *n, const char *name, const char *type, enum gnet_grad gk,
    double flops, int64_t params, int64_t out_elems, int n_in, ...)
{
	int in[16];
	va_list ap;
	va_start(ap, n_in);
	for (int i = 0; i < n_in && i < 16; i++)
		in[i] = va_arg(ap, int);
	va_end(ap);
	return gnet_opa(n, name, type, gk, flops, params, out_elems, n_in < 16 ? n_in : 16, in);
}

/* A variable holding params elements. */
int
gnet_var(struct gnet *n, const char *name, int64_t params)
{
	return gnet_opa(n, name, "VariableV2", GG_VAR, 0, params, params, 0, NULL);
}

/* Give node id k equal outputs. */
void
gnet_set_outputs(struct gnet *n, int id, int k)
{
	n->nodes[id].n_out = k;
}

/* Intermediates a fused (layer-granularity) node keeps for its backward
 * op, in elements: they count in its out_bytes (memory held until its
 * last consumer, the backward op, has run) but travel on no edge. */
void
gnet_set_saved(struct gnet *n, int id, int64_t elems)
{
	n->nodes[id].saved_elems = elems;
}

/* Colocate node id with node `with` (its root, if `with` is itself
 * colocated). */
void
gnet_set_coloc(struct gnet *n, int id, int with)
{
	if (n->over > 0 || id == with)	/* (a stand-in: the build fails) */
		return;
	while (n->nodes[with].coloc)
		with = n->nodes[with].coloc - 1;
	n->nodes[id].coloc = with + 1;
}

/* Set the weight-decay style. */
void
gnet_set_decay(struct gnet *n, enum gnet_decay d)
{
	n->decay = d;
}

/* The weight-decay style (none at layer granularity or without a
 * training step). */
enum gnet_decay
gnet_decay(const struct gnet *n)
{
	return n->layer || !n->train ? GD_NONE : n->decay;
}

/* Emit the optimizer as TF does at op granularity: slot variables
 * ("<var>/Momentum"), hyper-parameter constants, global_step. */
void
gnet_set_tf_optimizer(struct gnet *n)
{
	n->tf_optimizer = 1;
}

/* Register a regularisation loss. */
void
gnet_add_reg(struct gnet *n, int id)
{
	if (n->nreg == n->capreg) {
		n->capreg = n->capreg ? 2 * n->capreg : 64;
		n->reg = pl_xreallocarray(n->reg, n->capreg, sizeof *n->reg);
	}
	n->reg[n->nreg++] = id;
}

/* Number of regularisation losses. */
int
gnet_reg_count(const struct gnet *n)
{
	return n->nreg;
}

/* The regularisation losses. */
const int *
gnet_regs(const struct gnet *n)
{
	return n->reg;
}

/* Set flags on node id. */
void
gnet_set_flags(struct gnet *n, int id, unsigned flags)
{
	n->nodes[id].flags |= flags;
}

/* Output elements of node id. */
int64_t
gnet_out_elems(const struct gnet *n, int id)
{
	return n->nodes[id].out_elems;
}

/* Number of nodes so far. */
int
gnet_count(const struct gnet *n)
{
	return n->n;
}

/* Count multiply-adds. */
void
gnet_count_macs(struct gnet *n, double macs)
{
	n->macs += macs;
}

/* Forward figures. */
void
gnet_stats(const struct gnet *n, struct pl_gen_stats *st)
{
	st->fwd_flops = 0;
	st->params = 0;
	st->fwd_macs = n->macs;
	for (int i = 0; i < n->n; i++) {
		st->fwd_flops += n->nodes[i].flops;
		if (!(n->nodes[i].flags & GN_STATE))
			st->params += n->nodes[i].params;
	}
}

/* ---- emission ----------------------------------------------------------- */

/* A gradient contribution to one output of a forward node. */
struct contrib {
	int src, out;		/* builder op id and output index */
	int64_t bytes;
	int node_out;		/* which output of the forward node */
	int next;
};

struct emit {
	struct gnet *n;
	struct pl_graph_builder *b;	/* NULL: ops only counted */
	int64_t n_ops;			/* ops emitted */
	struct contrib *c;
	int nc, capc;
	int *head;		/* per node: first contribution, -1 */
	char *active;
	const char *upd_type;
	int upd_flops, upd_slots;
	const char *opt_name;		/* TF optimizer name ("Momentum") */
	const char *const *slot_names;	/* its slot variables */
	const char *const *hyper;	/* its hyper-parameter constants */
	int n_hyper;
	int *hyper_ops;			/* emitted on first use, -1 before */
};

/* Bytes of one output of node v. */
static int64_t
tbytes(const struct gnet *n, int v)
{
	const struct gnode *x = &n->nodes[v];
	return x->out_elems * n->dtype / x->n_out;
}

/* Colocation group of node v's backward and update ops: its root's name
 * (the node itself unless colocated with another). */
static const char *
bgroup(const struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	return x->coloc ? e->n->nodes[x->coloc - 1].name : x->name;
}

/* TensorFlow's name of the gradient op of `type` for input i (weights: i
 * = -1), or NULL for the generic "Grad<type>". */
static const char *
tf_grad_type(const char *type, int i)
{
	static const struct {
		const char *type, *in, *w;
	} t[] = {
		{ "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter" },
		{ "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
		  "DepthwiseConv2dNativeBackpropFilter" },
		{ "Relu", "ReluGrad", NULL },
		{ "MaxPool", "MaxPoolGrad", NULL },
		{ "AvgPool", "AvgPoolGrad", NULL },
		{ "Rsqrt", "RsqrtGrad", NULL },
		{ "L2Loss", "Mul", NULL },
		{ "Squeeze", "Reshape", NULL },
		{ "BiasAdd", "Identity", "BiasAddGrad" },
		{ "SoftmaxCrossEntropyWithLogits", "Mul", NULL },
	};
	for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
		if (strcmp(t[k].type, type) == 0)
			return i == 0 ? t[k].in : t[k].w;
	return NULL;
}

/* The name of an op being emitted (none while ops are only counted). */
static char *__attribute__((format(printf, 2, 3)))
ename(const struct emit *e, const char *fmt, ...)
{
	if (e->b == NULL)
		return NULL;
	va_list ap;
	va_start(ap, fmt);
	char *s = pl_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Add an op to the builder. */
static int
add(struct emit *e, const char *name, const char *type, const char *scope,
    double flops, int64_t param_bytes, int64_t out_bytes, const char *group)
{
	if (e->b == NULL)	/* counting: the id it would get */
		return (int)e->n_ops++;
	struct pl_op op;
	memset(&op, 0, sizeof op);
	for (int k = 0; k < PL_DEV_KIND_COUNT; k++)
		op.measured_us[k] = -1;
	op.name = (char *)name;
	op.type = (char *)type;
	op.scope = (char *)scope;
	op.flops = flops;
	op.param_bytes = param_bytes;
	op.out_bytes = out_bytes;
	e->n_ops++;
	return pl_graph_add_op(e->b, &op, group);
}

/* Add an edge to the builder (none when ops are only counted). */
static void
edge(struct emit *e, int src, int dst, int src_out, int64_t bytes)
{
	if (e->b != NULL)
		pl_graph_add_edge(e->b, src, dst, src_out, bytes);
}

/* Record a gradient contribution to output o of node v. */
static void
contribute(struct emit *e, int v, int o, int src, int out, int64_t bytes)
{
	if (e->nc == e->capc) {
		e->capc = e->capc ? 2 * e->capc : 1024;
		e->c = pl_xreallocarray(e->c, e->capc, sizeof *e->c);
	}
	e->c[e->nc] = (struct contrib){ src, out, bytes, o, e->head[v] };
	e->head[v] = e->nc++;
}

/* Edges from every gradient source of v into op g. */
static void
wire_dy(struct emit *e, int v, int g)
{
	for (int k = e->head[v]; k >= 0; k = e->c[k].next)
		edge(e, e->c[k].src, g, e->c[k].out, e->c[k].bytes);
}

/* Edge from forward tensor ref into op g. */
static void
wire_fwd(struct emit *e, int ref, int g)
{
	int u = GREF_ID(ref);
	edge(e, u, g, GREF_OUT(ref), tbytes(e->n, u));
}

/* At op granularity, sum a forward output's several gradients with AddN. */
static void
accumulate(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	for (int o = 0; o < x->n_out; o++) {
		int cnt = 0;
		int64_t bytes = 0;
		for (int k = e->head[v]; k >= 0; k = e->c[k].next)
			if (e->c[k].node_out == o) {
				cnt++;
				bytes = e->c[k].bytes;
			}
		if (cnt < 2)
			continue;
		char *nm = x->n_out > 1 ? ename(e, "%s/grad_accum_%d", x->name, o) :
		    ename(e, "%s/grad_accum", x->name);
		int g = add(e, nm, "AddN", x->scope, (double)(cnt - 1) * (double)(bytes / e->n->dtype),
		    0, bytes, bgroup(e, v));
		free(nm);
		/* Move the contributions of output o into the sum. */
		int *pp = &e->head[v];
		while (*pp >= 0) {
			struct contrib *c = &e->c[*pp];
			if (c->node_out == o) {
				edge(e, c->src, g, c->out, c->bytes);
				*pp = c->next;
			} else
				pp = &c->next;
		}
		contribute(e, v, o, g, 0, bytes);
	}
}

/* Whether node x's backward needs its own output. */
static int
needs_output(const struct gnode *x)
{
	return x->gk == GG_OUTPUT || x->gk == GG_INPUT;
}

/* FLOPs of the gradient of x with respect to input i. */
static double
grad_flops(const struct emit *e, const struct gnode *x, int i)
{
	if (x->flags & GN_SPARSE)
		return 0;
	if (x->gk == GG_LINEAR) {
		double in = (double)e->n->nodes[GREF_ID(x->in[i])].out_elems /
		    e->n->nodes[GREF_ID(x->in[i])].n_out;
		return x->flops < in ? x->flops : in;
	}
	return x->flops;
}

/* Bytes of the gradient x sends to input i. */
static int64_t
grad_bytes(const struct emit *e, const struct gnode *x, int i)
{
	int u = GREF_ID(x->in[i]);
	if ((x->flags & GN_SPARSE) && e->n->nodes[u].gk == GG_VAR)
		return x->out_elems * e->n->dtype;
	return tbytes(e->n, u);
}

/* The update op of parameter owner v, fed by its weight gradients. */
static void
emit_update(struct emit *e, int v, const int *src, const int *src_out,
    const int64_t *bytes, int k)
{
	const struct gnode *x = &e->n->nodes[v];
	char *nm = ename(e, "%s/update", x->name);
	int64_t pb = x->params * e->n->dtype;
	/* The slots' bytes stay on the update op (param_bytes), in every
	 * model; a TF optimizer also shows the slot variables as ops. */
	int tf = e->n->tf_optimizer && !e->n->layer && x->gk == GG_VAR;
	int u = add(e, nm, e->upd_type, x->scope, (double)x->params * e->upd_flops,
	    pb * e->upd_slots, 0, bgroup(e, v));
	free(nm);
	for (int i = 0; i < k; i++)
		edge(e, src[i], u, src_out[i], bytes[i]);
	if (x->gk == GG_VAR)
		edge(e, v, u, 0, tbytes(e->n, v));
	if (!tf)
		return;
	for (int s = 0; s < e->upd_slots; s++) {
		nm = ename(e, "%s/%s", x->name, e->slot_names[s]);
		/* A reference to the slot, colocated with the update: its
		 * bytes are the update op's param_bytes. */
		int sv = add(e, nm, "VariableV2", x->scope, 0, 0, 0, bgroup(e, v));
		free(nm);
		edge(e, sv, u, 0, 0);
	}
	for (int h = 0; h < e->n_hyper; h++) {
		if (e->hyper_ops[h] < 0) {
			nm = ename(e, "%s/%s", e->opt_name, e->hyper[h]);
			e->hyper_ops[h] = add(e, nm, "Const", e->opt_name, 0, 0, 4, NULL);
			free(nm);
		}
		edge(e, e->hyper_ops[h], u, 0, 4);
	}
}

/* TF's step counter: global_step incremented by an AssignAdd named like
 * the optimizer, colocated with it. */
static void
emit_global_step(struct emit *e)
{
	int gs = add(e, "global_step", "VariableV2", "global_step", 0, 0, 8, "global_step");
	char *nm = ename(e, "%s/value", e->opt_name);
	int one = add(e, nm, "Const", e->opt_name, 0, 0, 8, NULL);
	free(nm);
	int a = add(e, e->opt_name, "AssignAdd", e->opt_name, 1, 0, 8, "global_step");
	edge(e, gs, a, 0, 8);
	edge(e, one, a, 0, 8);
}

/* Layer granularity: one backward op per forward node. */
static void
emit_grad_layer(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	double flops = 0;
	int64_t out = 0;
	int k = 0, data = 0, weights = x->params > 0;
	for (int i = 0; i < x->n_in; i++) {
		int u = GREF_ID(x->in[i]);
		if (!e->active[u])
			continue;
		if (x->gk == GG_LINEAR)
			flops += grad_flops(e, x, i);
		else if (e->n->nodes[u].gk == GG_VAR)
			weights = 1;
		else
			data = 1;
		out += grad_bytes(e, x, i);
	}
	/* Like the op-level graph: one pass for the inputs' gradients, one
	 * for the weights'. */
	if (x->gk != GG_LINEAR)
		flops += (x->flags & GN_SPARSE ? 0 : x->flops) * (data + weights);
	if (x->params > 0)
		out += x->params * e->n->dtype;
	char *nm = ename(e, "%s/grad", x->name);
	char *ty = ename(e, "Grad%s", x->type);
	int g = add(e, nm, ty, x->scope, flops, 0, out, bgroup(e, v));
	free(nm);
	free(ty);
	wire_dy(e, v, g);
	for (int i = 0; i < x->n_in; i++)
		wire_fwd(e, x->in[i], g);
	if (needs_output(x))
		wire_fwd(e, GREF(v, 0), g);
	for (int i = 0; i < x->n_in; i++) {
		int u = GREF_ID(x->in[i]);
		if (e->active[u])
			contribute(e, u, GREF_OUT(x->in[i]), g, k++, grad_bytes(e, x, i));
	}
	if (x->params > 0) {
		int64_t pb = x->params * e->n->dtype;
		emit_update(e, v, &g, &k, &pb, 1);
	}
}

/* TF's gradient of a binary elementwise op: shapes, broadcast arguments,
 * then per input [Mul] Sum Reshape. */
static void
emit_grad_bcast(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	char *nm;
	int sh[2], bga;
	for (int i = 0; i < 2; i++) {
		nm = ename(e, "%s/grad_shape%d", x->name, i);
		sh[i] = add(e, nm, "Shape", x->scope, 0, 0, 16, bgroup(e, v));
		free(nm);
	}
	nm = ename(e, "%s/grad_bcast", x->name);
	bga = add(e, nm, "BroadcastGradientArgs", x->scope, 0, 0, 32, bgroup(e, v));
	free(nm);
	edge(e, sh[0], bga, 0, 16);
	edge(e, sh[1], bga, 0, 16);
	for (int i = 0; i < x->n_in && i < 2; i++) {
		int u = GREF_ID(x->in[i]);
		if (!e->active[u])
			continue;
		int64_t bytes = grad_bytes(e, x, i), full = tbytes(e->n, v);
		int src = -1;
		if (x->gk == GG_PRODUCT) {
			/* dY * other input, at the output's (broadcast) size. */
			nm = ename(e, "%s/grad_%d", x->name, i);
			src = add(e, nm, "Mul", x->scope, (double)(full / e->n->dtype), 0, full,
			    bgroup(e, v));
			free(nm);
			wire_dy(e, v, src);
			for (int j = 0; j < x->n_in; j++)
				if (j != i)
					wire_fwd(e, x->in[j], src);
		}
		nm = ename(e, "%s/grad_%d_sum", x->name, i);
		int s = add(e, nm, "Sum", x->scope, 0, 0, bytes, bgroup(e, v));
		free(nm);
		if (src >= 0)
			edge(e, src, s, 0, full);
		else
			wire_dy(e, v, s);
		edge(e, bga, s, 0, 32);
		nm = ename(e, "%s/grad_%d_reshape", x->name, i);
		int r = add(e, nm, "Reshape", x->scope, 0, 0, bytes, bgroup(e, v));
		free(nm);
		edge(e, s, r, 0, bytes);
		edge(e, sh[i], r, 0, 16);
		contribute(e, u, GREF_OUT(x->in[i]), r, 0, bytes);
	}
}

/* TF's gradient of Identity and AddN: dY itself goes to every input, no
 * op (the node's several gradients were summed by accumulate()). */
static void
emit_grad_pass(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	int k = e->head[v];
	if (k < 0)
		return;
	struct contrib c = e->c[k];
	for (int i = 0; i < x->n_in; i++) {
		int u = GREF_ID(x->in[i]);
		if (e->active[u])
			contribute(e, u, GREF_OUT(x->in[i]), c.src, c.out, grad_bytes(e, x, i));
	}
}

/* TF's gradient of a reduce-mean with static shapes: Reshape dY to keep
 * the reduced axes, Tile it to the input's shape, divide by the count. */
static void
emit_grad_mean(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	int u = GREF_ID(x->in[0]);
	if (!e->active[u])
		return;
	int64_t in = grad_bytes(e, x, 0), out = tbytes(e->n, v);
	char *nm = ename(e, "%s/grad_reshape", x->name);
	int r = add(e, nm, "Reshape", x->scope, 0, 0, out, bgroup(e, v));
	free(nm);
	wire_dy(e, v, r);
	nm = ename(e, "%s/grad_tile", x->name);
	int t = add(e, nm, "Tile", x->scope, 0, 0, in, bgroup(e, v));
	free(nm);
	edge(e, r, t, 0, out);
	nm = ename(e, "%s/grad", x->name);
	int d = add(e, nm, "RealDiv", x->scope, grad_flops(e, x, 0), 0, in, bgroup(e, v));
	free(nm);
	edge(e, t, d, 0, in);
	contribute(e, u, GREF_OUT(x->in[0]), d, 0, in);
}

/* TF's gradient of ConcatV2 (inputs, then the axis) and of convolutions
 * (input, filter): shape ops feed one gradient op per differentiable
 * input (a Slice of dY at its offset; BackpropInput, BackpropFilter). */
static void
emit_grad_tf(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	int concat = strcmp(x->type, "ConcatV2") == 0, k = concat ? x->n_in - 1 : x->n_in;
	int count = 0, shapes[2] = { -1, -1 }, offset = -1;
	for (int i = 0; i < k; i++)
		count += e->active[GREF_ID(x->in[i])];
	if (count == 0)
		return;
	char *nm;
	if (concat) {
		nm = ename(e, "%s/grad_rank", x->name);
		int r = add(e, nm, "Rank", x->scope, 0, 0, 4, bgroup(e, v));
		free(nm);
		nm = ename(e, "%s/grad_mod", x->name);
		int m = add(e, nm, "FloorMod", x->scope, 1, 0, 4, bgroup(e, v));
		free(nm);
		edge(e, r, m, 0, 4);
		nm = ename(e, "%s/grad_shapes", x->name);
		shapes[0] = add(e, nm, "ShapeN", x->scope, 0, 0, 16 * (int64_t)k, bgroup(e, v));
		free(nm);
		nm = ename(e, "%s/grad_offset", x->name);
		offset = add(e, nm, "ConcatOffset", x->scope, 0, 0, 16 * (int64_t)k, bgroup(e, v));
		free(nm);
		edge(e, m, offset, 0, 4);
		for (int i = 0; i < k; i++)
			edge(e, shapes[0], offset, i, 16);
	} else if (strcmp(x->type, "Conv2D") == 0) {
		nm = ename(e, "%s/grad_shapes", x->name);
		shapes[0] = shapes[1] = add(e, nm, "ShapeN", x->scope, 0, 0, 32, bgroup(e, v));
		free(nm);
	} else {
		for (int i = 0; i < 2; i++) {
			nm = ename(e, "%s/grad_shape%d", x->name, i);
			shapes[i] = add(e, nm, "Shape", x->scope, 0, 0, 16, bgroup(e, v));
			free(nm);
		}
	}
	for (int i = 0; i < k; i++) {
		int u = GREF_ID(x->in[i]);
		if (!e->active[u])
			continue;
		int64_t bytes = grad_bytes(e, x, i);
		nm = count == 1 ? ename(e, "%s/grad", x->name) : ename(e, "%s/grad_%d", x->name, i);
		const char *ty = concat ? "Slice" : tf_grad_type(x->type, i == 0 ? 0 : -1);
		int g = add(e, nm, ty, x->scope, grad_flops(e, x, i), 0, bytes, bgroup(e, v));
		free(nm);
		wire_dy(e, v, g);
		if (concat) {
			edge(e, offset, g, i, 16);
			edge(e, shapes[0], g, i, 16);
		} else {
			/* BackpropInput reads the filter, BackpropFilter the input. */
			wire_fwd(e, x->in[1 - i], g);
			edge(e, shapes[i], g, shapes[0] == shapes[1] ? i : 0, 16);
		}
		contribute(e, u, GREF_OUT(x->in[i]), g, 0, bytes);
	}
}

/* Op granularity: one backward op per differentiable input, one for the
 * node's own parameters. */
static void
emit_grad_ops(struct emit *e, int v)
{
	const struct gnode *x = &e->n->nodes[v];
	accumulate(e, v);
	if (x->flags & GN_PASS) {
		emit_grad_pass(e, v);
		return;
	}
	if ((x->flags & GN_MEAN) && x->n_in == 1 && x->params == 0) {
		emit_grad_mean(e, v);
		return;
	}
	if ((x->flags & GN_BCAST) && x->n_in == 2 && x->params == 0) {
		emit_grad_bcast(e, v);
		return;
	}
	if ((x->flags & GN_TFGRAD) && x->params == 0) {
		emit_grad_tf(e, v);
		return;
	}
	int count = x->params > 0;
	for (int i = 0; i < x->n_in; i++)
		count += e->active[GREF_ID(x->in[i])];
	char *ty = ename(e, "Grad%s", x->type);
	for (int i = 0; i < x->n_in; i++) {
		int u = GREF_ID(x->in[i]);
		if (!e->active[u])
			continue;
		int64_t bytes = grad_bytes(e, x, i);
		char *nm = count == 1 ? ename(e, "%s/grad", x->name) :
		    ename(e, "%s/grad_%d", x->name, i);
		const char *tt = tf_grad_type(x->type, i == 0 ? 0 : -1);
		int g = add(e, nm, tt != NULL ? tt : ty, x->scope, grad_flops(e, x, i), 0, bytes,
		    bgroup(e, v));
		free(nm);
		wire_dy(e, v, g);
		if (x->gk == GG_PRODUCT) {
			for (int j = 0; j < x->n_in; j++)
				if (j != i)
					wire_fwd(e, x->in[j], g);
		} else if (x->gk == GG_INPUT) {
			for (int j = 0; j < x->n_in; j++)
				wire_fwd(e, x->in[j], g);
		}
		if (needs_output(x))
			wire_fwd(e, GREF(v, 0), g);
		contribute(e, u, GREF_OUT(x->in[i]), g, 0, bytes);
	}
	if (x->params > 0) {
		int64_t pb = x->params * e->n->dtype;
		char *nm = count == 1 ? ename(e, "%s/grad", x->name) :
		    ename(e, "%s/grad_w", x->name);
		int g = add(e, nm, ty, x->scope, x->flops, 0, pb, bgroup(e, v));
		free(nm);
		wire_dy(e, v, g);
		for (int j = 0; j < x->n_in; j++)
			wire_fwd(e, x->in[j], g);
		int zero = 0;
		emit_update(e, v, &g, &zero, &pb, 1);
	}
	free(ty);
}

/* Update of a variable from its (possibly several) gradients. */
static void
emit_var(struct emit *e, int v)
{
	if (!e->n->layer)
		accumulate(e, v);
	int k = 0;
	for (int c = e->head[v]; c >= 0; c = e->c[c].next)
		k++;
	if (k == 0)
		return;
	int *src = pl_xmalloc(sizeof *src * k), *out = pl_xmalloc(sizeof *out * k);
	int64_t *bytes = pl_xmalloc(sizeof *bytes * k);
	int i = 0;
	for (int c = e->head[v]; c >= 0; c = e->c[c].next, i++) {
		src[i] = e->c[c].src;
		out[i] = e->c[c].out;
		bytes[i] = e->c[c].bytes;
	}
	emit_update(e, v, src, out, bytes, k);
	free(src);
	free(out);
	free(bytes);
}

/* Emit every op of the training step into b (NULL: only count them);
 * returns how many there are. */
static int64_t
emit_step(struct gnet *n, struct pl_graph_builder *b)
{
	struct emit e;
	memset(&e, 0, sizeof e);
	e.n = n;
	e.b = b;
	int nn = n->n;
	char *req = pl_xcalloc(nn ? nn : 1, 1), *reach = pl_xcalloc(nn ? nn : 1, 1);
	e.active = pl_xcalloc(nn ? nn : 1, 1);
	e.head = pl_xmalloc(sizeof *e.head * (nn ? nn : 1));
	static const char *const sgd_hyper[] = { "learning_rate" };
	static const char *const momentum_slots[] = { "Momentum" };
	static const char *const momentum_hyper[] = { "learning_rate", "momentum" };
	static const char *const adam_slots[] = { "Adam", "Adam_1" };
	static const char *const adam_hyper[] = { "learning_rate", "beta1", "beta2", "epsilon" };
	int hyper_ops[4] = { -1, -1, -1, -1 };
	e.hyper_ops = hyper_ops;
	if (strcmp(n->optimizer, "sgd") == 0) {
		e.upd_type = "ApplyGradientDescent";
		e.upd_flops = 2;
		e.upd_slots = 0;
		e.opt_name = "GradientDescent";
		e.slot_names = NULL;
		e.hyper = sgd_hyper;
		e.n_hyper = 1;
	} else if (strcmp(n->optimizer, "momentum") == 0) {
		e.upd_type = "ApplyMomentum";
		e.upd_flops = 4;
		e.upd_slots = 1;
		e.opt_name = "Momentum";
		e.slot_names = momentum_slots;
		e.hyper = momentum_hyper;
		e.n_hyper = 2;
	} else {
		e.upd_type = "ApplyAdam";
		e.upd_flops = 10;
		e.upd_slots = 2;
		e.opt_name = "Adam";
		e.slot_names = adam_slots;
		e.hyper = adam_hyper;
		e.n_hyper = 4;
	}
	for (int v = 0; v < nn; v++) {
		const struct gnode *x = &n->nodes[v];
		e.head[v] = -1;
		if (x->gk == GG_VAR || x->params > 0)
			req[v] = 1;
		else if (x->gk != GG_NONE)
			for (int i = 0; i < x->n_in; i++)
				req[v] |= req[GREF_ID(x->in[i])];
	}
	for (int v = nn - 1; v >= 0; v--) {
		const struct gnode *x = &n->nodes[v];
		if (x->flags & GN_LOSS)
			reach[v] = 1;
		if (reach[v] && x->gk != GG_NONE)
			for (int i = 0; i < x->n_in; i++)
				reach[GREF_ID(x->in[i])] = 1;
	}
	for (int v = 0; v < nn; v++)
		e.active[v] = n->train && req[v] && reach[v];
	/* Nodes others are colocated with get a group even when inactive. */
	char *anchor = pl_xcalloc(nn ? nn : 1, 1);
	for (int v = 0; v < nn; v++)
		if (n->nodes[v].coloc)
			anchor[n->nodes[v].coloc - 1] = 1;

	/* Forward ops, ids equal to node ids. */
	for (int v = 0; v < nn; v++) {
		const struct gnode *x = &n->nodes[v];
		add(&e, x->name, x->type, x->scope, x->flops, x->params * n->dtype,
		    tbytes(n, v) * x->n_out + (n->train ? x->saved_elems * n->dtype : 0),
		    x->coloc || e.active[v] || anchor[v] ? bgroup(&e, v) : NULL);
	}
	free(anchor);
	for (int v = 0; v < nn; v++) {
		const struct gnode *x = &n->nodes[v];
		for (int i = 0; i < x->n_in; i++)
			wire_fwd(&e, x->in[i], v);
	}
	/* Backward, last node first. */
	for (int v = nn - 1; v >= 0 && n->train; v--) {
		const struct gnode *x = &n->nodes[v];
		if (!e.active[v])
			continue;
		if (x->gk == GG_VAR) {
			emit_var(&e, v);
			continue;
		}
		if (e.head[v] < 0 && !(x->flags & GN_LOSS))
			continue;
		if ((x->flags & GN_LOSS) && !n->layer && (x->flags & (GN_PASS | GN_MEAN | GN_BCAST)) &&
		    e.head[v] < 0) {
			/* A loss whose gradient rule reads dY: TF's seed, a
			 * Fill of ones shaped like the loss. */
			char *nm = ename(&e, "%s/grad_ys", x->name);
			int f = add(&e, nm, "Fill", x->scope, 0, 0, tbytes(n, v), bgroup(&e, v));
			free(nm);
			contribute(&e, v, 0, f, 0, tbytes(n, v));
		}
		if (n->layer)
			emit_grad_layer(&e, v);
		else
			emit_grad_ops(&e, v);
	}
	if (n->train && n->tf_optimizer && !n->layer)
		emit_global_step(&e);
	free(req);
	free(reach);
	free(e.active);
	free(e.head);
	free(e.c);
	return e.n_ops;
}

/* Forward nodes from which the training step's ops are counted before
 * they are built: a model far too large is then refused at once, where
 * building it stopped only at the limit (a minute and 8 GB). */
#define GNET_COUNT_FROM (PL_MAX_OPS / 16)

/* Emit everything and build. */
struct pl_graph *
gnet_build(struct gnet *n, char **cause)
{
	int64_t ops = n->n + n->over;
	if (n->over == 0 && n->train && n->n >= GNET_COUNT_FROM)
		ops = emit_step(n, NULL);
	if (ops > PL_MAX_OPS) {
		*cause = pl_xasprintf("%s: %lld ops%s, more than the %d supported "
		    "(expected a smaller model: fewer layers, a shorter sequence, fewer cells)",
		    n->name, (long long)ops, n->over > 0 ? " or more" : "", PL_MAX_OPS);
		gnet_free(n);
		return NULL;
	}
	struct pl_graph_builder *b = pl_graph_builder_new(n->name);
	emit_step(n, b);
	struct pl_graph *g = pl_graph_build(b, cause);
	gnet_free(n);
	return g;
}
