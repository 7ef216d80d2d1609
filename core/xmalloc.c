/*
 * xmalloc — aborting allocation wrappers with an allocation counter.
 * Invariant: no function here returns NULL, but pl_alloc_pages() (whose
 * callers have a fallback).
 */
#include "xmalloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__)
#include <sys/mman.h>
#endif

static void (*fail_hook)(void);
static atomic_ulong n_allocs;

/* Report exhaustion and abort. */
void
pl_die_oom(size_t size)
{
	if (fail_hook != NULL)
		fail_hook();
	fprintf(stderr, "placelab: out of memory allocating %zu bytes\n", size);
	abort();
}

/* Install the hook that runs before an out-of-memory abort. */
void
pl_alloc_set_fail_hook(void (*hook)(void))
{
	fail_hook = hook;
}

/* Allocations so far, all threads. */
unsigned long
pl_alloc_count(void)
{
	return atomic_load(&n_allocs);
}

/* malloc that never fails; size 0 gives a unique pointer. */
void *
pl_xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);
	atomic_fetch_add(&n_allocs, 1);
	if (p == NULL)
		pl_die_oom(size);
	return p;
}

/* calloc that never fails. */
void *
pl_xcalloc(size_t n, size_t size)
{
	if (n == 0 || size == 0)
		n = size = 1;
	void *p = calloc(n, size);
	atomic_fetch_add(&n_allocs, 1);
	if (p == NULL)
		pl_die_oom(n * size);
	return p;
}

/* realloc of n*size bytes with overflow check; never fails. */
void *
pl_xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		pl_die_oom(SIZE_MAX);
	size_t total = n * size;
	void *q = realloc(p, total == 0 ? 1 : total);
	atomic_fetch_add(&n_allocs, 1);
	if (q == NULL)
		pl_die_oom(total);
	return q;
}

/* strdup that never fails. */
char *
pl_xstrdup(const char *s)
{
	return pl_xstrndup(s, strlen(s));
}

/* strndup that never fails. */
char *
pl_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = pl_xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* vasprintf into a fresh buffer. */
char *
pl_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = pl_xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

/* pl_xasprintf with a va_list. */
char *
pl_xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (len < 0)
		len = 0;
	char *p = pl_xmalloc((size_t)len + 1);
	p[0] = '\0';
	vsnprintf(p, (size_t)len + 1, fmt, ap);
	return p;
}

#define PAGE_2M ((size_t)2 << 20)

/* A zeroed region on 2 MiB boundaries, advised onto large pages; where
 * there is no mmap, calloc.  NULL when refused. */
void *
pl_alloc_pages(size_t size, size_t *len)
{
	if (size > SIZE_MAX - 2 * PAGE_2M)
		return NULL;
	size_t want = (size + PAGE_2M - 1) & ~(PAGE_2M - 1);
#if defined(__unix__) && defined(MAP_ANONYMOUS)
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#if defined(MAP_NORESERVE)
	flags |= MAP_NORESERVE;
#endif
	size_t span = want + PAGE_2M;
	char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (m == MAP_FAILED)
		return NULL;	/* e.g. strict overcommit accounting */
	char *p = (char *)(((uintptr_t)m + PAGE_2M - 1) & ~(uintptr_t)(PAGE_2M - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (p + want < m + span)
		munmap(p + want, (size_t)(m + span - (p + want)));
#if defined(MADV_HUGEPAGE)
	madvise(p, want, MADV_HUGEPAGE);	/* advice: may be refused */
#endif
#else
	void *p = calloc(1, want);
	if (p == NULL)
		return NULL;
#endif
	atomic_fetch_add(&n_allocs, 1);
	*len = want;
	return p;
}

/* Release a region of pl_alloc_pages(). */
void
pl_free_pages(void *p, size_t len)
{
	if (p == NULL)
		return;
#if defined(__unix__) && defined(MAP_ANONYMOUS)
	munmap(p, len);
#else
	(void)len;
	free(p);
#endif
}
