/*
 * xmalloc — the one allocation entry point of placelab.
 *
 * Invariant: every allocation in core/, viz/ and tui/ goes through these
 * functions.  They never return NULL (but for pl_alloc_pages(), whose
 * callers have a fallback): on exhaustion they call the fail hook (which
 * restores the terminal in the explorer) and abort.  The counter lets
 * benchmarks and tests check that hot paths do not allocate.
 */
#ifndef PL_XMALLOC_H
#define PL_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *pl_xmalloc(size_t size);
void *pl_xcalloc(size_t n, size_t size);
void *pl_xreallocarray(void *p, size_t n, size_t size);
char *pl_xstrdup(const char *s);
char *pl_xstrndup(const char *s, size_t n);
/* printf into a fresh string; the caller frees it. */
char *pl_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list (ap is used up). */
char *pl_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A zeroed region of at least size bytes, backed by the system's large
 * (2 MiB) pages where it allows them, for large workspaces whose random
 * accesses would otherwise miss the TLB; pages cost memory only once
 * touched.  *len receives what to pass to pl_free_pages().  The one
 * allocation here that may fail: NULL when the system refuses the
 * reservation (its caller allocates otherwise). */
void *pl_alloc_pages(size_t size, size_t *len);
void pl_free_pages(void *p, size_t len);

/* Report that size bytes could not be had (the hook, a message) and
 * abort: for allocations made elsewhere, e.g. by cJSON. */
void pl_die_oom(size_t size) __attribute__((noreturn));
/* Called before aborting on exhaustion (e.g. to restore the terminal). */
void pl_alloc_set_fail_hook(void (*hook)(void));
/* Number of allocations made so far (for allocation-count benchmarks). */
unsigned long pl_alloc_count(void);

#endif
