/*
 * cnn — building blocks for convolutional networks (internal to
 * core/gen): convolution + batch norm + ReLU, separable convolution,
 * pooling, concatenation, residual add, classifier head.
 *
 * Invariant: shapes are tracked NCHW per image; FLOPs count a
 * multiply-add as 2 and cover the whole batch; every helper adds nodes in
 * the scope it is given, one op per layer at layer granularity.
 */
#ifndef PL_GEN_CNN_H
#define PL_GEN_CNN_H

#include "net.h"

/* A feature map: the node producing it and its shape per image. */
struct fmap {
	int ref;
	int c, h, w;
};

/* Padding modes. */
#define CNN_VALID 0
#define CNN_SAME 1

/* The images placeholder. */
struct fmap cnn_input(struct gnet *n, int batch, int c, int h, int w);
/* Conv (no bias) + batch norm (+ ReLU) in scope; kh x kw, stride. */
struct fmap cnn_conv(struct gnet *n, int batch, const char *scope, struct fmap x,
    int cout, int kh, int kw, int stride, int pad, int relu);
/* ReLU -> depthwise k x k (stride) -> pointwise 1x1 -> batch norm. */
struct fmap cnn_sepconv(struct gnet *n, int batch, const char *scope, struct fmap x,
    int cout, int k, int stride);
/* Max or average pooling ("MaxPool" / "AvgPool"). */
struct fmap cnn_pool(struct gnet *n, int batch, const char *scope, const char *type,
    struct fmap x, int k, int stride, int pad);
/* Concatenation of k (at most 64) maps along channels. */
struct fmap cnn_concat(struct gnet *n, int batch, const char *scope, const struct fmap *x, int k);
/* Elementwise sum of k (at most 64) maps (AddN, or Add for two). */
struct fmap cnn_add(struct gnet *n, int batch, const char *scope, const struct fmap *x, int k, int relu);
/* Global average pool, fully connected layer, softmax cross-entropy loss. */
void cnn_head(struct gnet *n, int batch, struct fmap x, int classes);

#endif
