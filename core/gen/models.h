/*
 * models — the model builders of core/gen (internal).  Each returns the
 * forward network of one model for fully defaulted options; gen.c turns
 * it into a training-step graph with gnet_build().
 *
 * Invariant: builders read only their options and, for random families,
 * the rng they are given.
 */
#ifndef PL_GEN_MODELS_H
#define PL_GEN_MODELS_H

#include "net.h"
#include "rng.h"

struct gnet *pl_gen_nmt(const char *name, const struct pl_gen_opts *o);
struct gnet *pl_gen_rnnlm(const char *name, const struct pl_gen_opts *o);
struct gnet *pl_gen_enas_rnn(const char *name, const struct pl_gen_opts *o, struct pl_rng *r);
struct gnet *pl_gen_resnet50(const char *name, const struct pl_gen_opts *o);
struct gnet *pl_gen_inception_v3(const char *name, const struct pl_gen_opts *o);
struct gnet *pl_gen_nasnet_a(const char *name, const struct pl_gen_opts *o);
struct gnet *pl_gen_enas_cnn(const char *name, const struct pl_gen_opts *o, struct pl_rng *r);
struct gnet *pl_gen_transformer(const char *name, const struct pl_gen_opts *o);

/* Toy graphs, built directly. */
struct pl_graph *pl_gen_toy(const char *model, const struct pl_gen_opts *o, char **cause);

#endif
