/*
 * pool — a fixed set of worker threads for parallel-for loops.
 *
 * pl_pool_for(pool, n, fn, ctx) calls fn(ctx, i, worker) once for every i
 * in [0, n) and returns when all calls have finished.  `worker` is in
 * [0, pl_pool_size(pool)) and identifies the thread, so each can own a
 * workspace (e.g. a simulator workspace).  Results are independent of the
 * number of threads as long as fn(i) writes only what belongs to i.
 *
 * Invariant: a pool with 1 thread runs everything on the caller's thread;
 * pl_pool_for is not reentrant (one loop at a time per pool).
 */
#ifndef PL_POOL_H
#define PL_POOL_H

struct pl_pool;

typedef void pl_pool_fn(void *ctx, int i, int worker);

/* A pool of `threads` workers (the caller counts as one); threads <= 0
 * means one per online core. */
struct pl_pool *pl_pool_new(int threads);
void pl_pool_free(struct pl_pool *p);
int pl_pool_size(const struct pl_pool *p);
void pl_pool_for(struct pl_pool *p, int n, pl_pool_fn *fn, void *ctx);
/* Online cores. */
int pl_ncores(void);

#endif
