/*
 * policy — Placeto's graph policy network on the nn kit.
 *
 * Given the node features x0 (n x d) of a grouped graph, the current node
 * and three node sets (its ancestors, descendants and parallel nodes), it
 * outputs one logit per device:
 *
 *   s   = T(x0)                              T: d -> [d, d] -> d
 *   x   = s;  k times:  x = [deg > 0] * g(A f(x)) + s
 *         for A = the sum (or, with mp_mean, the mean) over predecessors
 *         (forward) and successors (backward), each
 *         direction with its own f: d -> [d] -> d and g: d -> [d] -> d
 *         (ReLU after every layer of f and g); T is shared
 *   e   = [x_fwd, x_bwd]                     n x 2d
 *   a_i = pg_i(pool_{set i}(pf_i(e)))        sum (or mean) over the set;
 *                                            pf_i, pg_i: 2d -> [2d] -> 2d
 *   z   = [a_anc, a_desc, a_par, e[cur]]     8d
 *   logits = head(z)                         8d -> [16d, 8d] -> devices
 *
 * This is the radial message passing and three-way aggregation of
 * Placeto's public code.  The backward pass is written by hand.
 *
 * Invariant: a workspace holds the tape of the last forward pass; the
 * backward pass must be given the same inputs right after it.
 *
 * Ownership: pl_policy_free() frees the policy and its model.
 */
#ifndef PL_POLICY_H
#define PL_POLICY_H

#include <stdint.h>

#include "nn.h"

struct pl_policy_cfg {
	int d;			/* feature width */
	int n_dev;		/* logits */
	int k;			/* message-passing rounds */
	int pool_mean;		/* 1: mean over the sets, 0: sum (reference) */
	int mp_mean;		/* 1: mean over neighbours, 0: sum (reference) */
};

struct pl_policy {
	struct pl_policy_cfg cfg;
	struct pl_nn_model *m;
	struct pl_nn_mlp T, f[2], g[2], pf[3], pg[3], head;
};

/* One decision's inputs. */
struct pl_policy_in {
	int n;				/* nodes */
	const float *x0;		/* n x d features */
	const struct pl_nn_csr *adj[2];	/* predecessors, successors */
	int cur;			/* the node being placed */
	const uint8_t *set[3];		/* ancestors, descendants, parallel */
	const uint8_t *allowed;		/* n_dev: devices allowed (NULL: all) */
};

struct pl_policy_ws;

/* A policy with freshly initialised weights (deterministic for seed). */
struct pl_policy *pl_policy_new(const struct pl_policy_cfg *cfg, uint64_t seed);
void pl_policy_free(struct pl_policy *p);

/* A workspace for graphs of up to n nodes (grows on demand). */
struct pl_policy_ws *pl_policy_ws_new(const struct pl_policy *p, int n);
void pl_policy_ws_free(struct pl_policy_ws *ws);

/* Forward: logits and probabilities (n_dev each; probs masked by
 * in->allowed).  w is the weight vector (p->m->w or a copy). */
void pl_policy_forward(const struct pl_policy *p, const float *w,
    const struct pl_policy_in *in, struct pl_policy_ws *ws, float *logits,
    float *probs);
/* Backward from dlogits: adds into gw (p->m->n_params floats). */
void pl_policy_backward(const struct pl_policy *p, const float *w, float *gw,
    const struct pl_policy_in *in, struct pl_policy_ws *ws,
    const float *dlogits);

/* Metadata text describing cfg (stored in weight files; caller frees). */
char *pl_policy_meta(const struct pl_policy *p, const char *extra);
/* Save the weights with their metadata.  0 or -1 + *cause. */
int pl_policy_save(const struct pl_policy *p, const char *extra,
    const char *path, char **cause);
/* Load a policy file: the shapes come from its metadata.  *extra (may be
 * NULL) receives the metadata text.  NULL + *cause. */
struct pl_policy *pl_policy_load(const char *path, char **extra, char **cause);
/* The same from a file already decoded (path names it in messages). */
/* (a setting of its metadata given twice, or not a decimal integer that
 * fits, is refused) */
struct pl_policy *pl_policy_from_file(const struct pl_nn_file *f, const char *path,
    char **extra, char **cause);
/* Integer field "key=V" of a metadata text; def when absent. */
long pl_policy_meta_int(const char *meta, const char *key, long def);

#endif
