/*
 * pool — worker threads that share the indices of a parallel-for through
 * an atomic counter.  The calling thread works as worker 0.
 *
 * Invariant: `generation` increases once per pl_pool_for call; a worker
 * joins a loop only when it sees a new generation, and `active` counts the
 * helpers still inside the current loop.
 */
#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "xmalloc.h"

struct pl_pool {
	int n;			/* workers including the caller */
	pthread_t *threads;
	pthread_mutex_t mu;
	pthread_cond_t start, done;
	unsigned long generation;
	int active;
	int quit;
	/* the current loop */
	pl_pool_fn *fn;
	void *ctx;
	int count;
	atomic_int next;
};

struct worker_arg {
	struct pl_pool *p;
	int id;
};

/* Take indices until none are left. */
static void
drain(struct pl_pool *p, int id)
{
	for (;;) {
		int i = atomic_fetch_add(&p->next, 1);
		if (i >= p->count)
			break;
		p->fn(p->ctx, i, id);
	}
}

/* Helper thread body. */
static void *
worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct pl_pool *p = wa->p;
	int id = wa->id;
	free(wa);
	unsigned long seen = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->quit && p->generation == seen)
			pthread_cond_wait(&p->start, &p->mu);
		if (p->quit)
			break;
		seen = p->generation;
		pthread_mutex_unlock(&p->mu);
		drain(p, id);
		pthread_mutex_lock(&p->mu);
		if (--p->active == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Online cores (at least 1). */
int
pl_ncores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Start the helper threads. */
struct pl_pool *
pl_pool_new(int threads)
{
	struct pl_pool *p = pl_xcalloc(1, sizeof *p);
	p->n = threads > 0 ? threads : pl_ncores();
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
	p->threads = pl_xcalloc(p->n, sizeof *p->threads);
	for (int i = 1; i < p->n; i++) {
		struct worker_arg *wa = pl_xmalloc(sizeof *wa);
		wa->p = p;
		wa->id = i;
		if (pthread_create(&p->threads[i], NULL, worker_main, wa) != 0) {
			free(wa);
			p->n = i;	/* run with the threads we have */
			break;
		}
	}
	return p;
}

/* Stop and join the helpers. */
void
pl_pool_free(struct pl_pool *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	for (int i = 1; i < p->n; i++)
		pthread_join(p->threads[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
	free(p->threads);
	free(p);
}

/* Number of workers. */
int
pl_pool_size(const struct pl_pool *p)
{
	return p->n;
}

/* Run fn over [0, n) on all workers. */
void
pl_pool_for(struct pl_pool *p, int n, pl_pool_fn *fn, void *ctx)
{
	if (n <= 0)
		return;
	if (p->n == 1 || n == 1) {
		for (int i = 0; i < n; i++)
			fn(ctx, i, 0);
		return;
	}
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->ctx = ctx;
	p->count = n;
	atomic_store(&p->next, 0);
	p->active = p->n - 1;
	p->generation++;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->mu);
	drain(p, 0);
	pthread_mutex_lock(&p->mu);
	while (p->active > 0)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}
