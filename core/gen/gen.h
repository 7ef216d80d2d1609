/*
 * gen — generators for placelab's sample graphs: the placement papers'
 * benchmark models as training steps (forward, backward, parameter
 * update), families of random networks for generalisation experiments and
 * small toy graphs.
 *
 * Invariant: a generator is a pure function of its options: the same
 * model, options and seed give the same graph (op for op, byte for byte
 * once saved) on every machine.  Randomness comes only from core/rng.h.
 * Every generated graph is built through pl_graph_build(), so it is
 * validated like a loaded one.
 *
 * Conventions (docs/SAMPLES.md): FLOPs count a multiply-add as 2; the
 * backward op of forward op F is named "F/grad" or "F/grad_<x>", has F's
 * scope and is colocated with F; the update op of a parameter owner P is
 * "P/update" and is colocated with P.
 *
 * Ownership: returned graphs belong to the caller (pl_graph_free); *cause
 * strings too.
 */
#ifndef PL_GEN_H
#define PL_GEN_H

#include <stdint.h>

#include "graph.h"

enum pl_gen_granularity {
	PL_GEN_OP = 0,		/* framework-sized: every matmul, add, gradient */
	PL_GEN_LAYER,		/* one op per layer (per cell and time step) */
};

/* Options; 0 (or NULL) fields take the model's defaults. */
struct pl_gen_opts {
	enum pl_gen_granularity granularity;
	int forward_only;	/* 1: no backward and update ops */
	int batch;
	int seq_len;		/* RNNs, Transformer: time steps */
	int hidden;		/* RNN units, Transformer d_model */
	int layers;		/* RNN / Transformer layers (per side) */
	int vocab;
	int image;		/* CNN input height and width */
	int dtype_bytes;	/* default 4 */
	int cells;		/* NAS networks: cells per stack */
	const char *optimizer;	/* "adam", "sgd", "momentum" */
	uint64_t seed;		/* families */
	int seeded;		/* 1: seed given (families randomise shapes) */
};

/* Figures of the forward pass, for tests and docs. */
struct pl_gen_stats {
	double fwd_flops;	/* forward FLOPs per step (whole batch) */
	double fwd_macs;	/* multiply-adds of convolutions and matmuls */
	int64_t params;		/* trainable parameters (elements) */
	int batch;		/* the batch size used */
};

/* A model, for listing and docs. */
struct pl_gen_model {
	const char *name;
	const char *summary;
	const char *source;	/* where the defaults come from */
	int family;		/* 1: randomised by --seed */
	const char *options;	/* the options it reads, e.g. "--batch --image" */
};
/* NULL-terminated table. */
extern const struct pl_gen_model pl_gen_models[];
const struct pl_gen_model *pl_gen_model_find(const char *name);
/* 0, or -1 + *cause when o sets an option model m does not read (for a
 * user's options: pl_gen() ignores such options, so that one set of
 * options serves every model). */
int pl_gen_check_applies(const struct pl_gen_model *m, const struct pl_gen_opts *o, char **cause);

/* Generate a model; st may be NULL.  NULL + *cause on bad options. */
struct pl_graph *pl_gen(const char *model, const struct pl_gen_opts *o,
    struct pl_gen_stats *st, char **cause);

/* Member i of a family ("enas-cnn", "enas-rnn", "nmt"): the model with
 * seed derived from (seed, i).  Its name ends in "-NN". */
struct pl_graph *pl_gen_family_member(const char *family, int i,
    uint64_t seed, const struct pl_gen_opts *o, char **cause);

#endif
