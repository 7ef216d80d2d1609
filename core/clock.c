/*
 * clock — CLOCK_MONOTONIC in seconds.
 */
#include "clock.h"

#include <time.h>

/* Monotonic seconds. */
double
pl_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
