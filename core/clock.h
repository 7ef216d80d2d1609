/*
 * clock — the one monotonic clock used for search times, budgets and
 * benchmarks.  Invariant: never goes backwards.
 */
#ifndef PL_CLOCK_H
#define PL_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double pl_now_s(void);

#endif
