/*
 * rng — deterministic pseudo-random numbers (xoshiro256**, seeded through
 * splitmix64) and the distributions placelab's methods sample from.
 *
 * Invariant: the same seed gives the same sequence on every machine; a
 * struct pl_rng is plain data (copy it to fork a stream).  Use
 * pl_rng_stream(seed, k) to give worker k an independent stream whose
 * values do not depend on how many workers there are.
 */
#ifndef PL_RNG_H
#define PL_RNG_H

#include <stdint.h>

struct pl_rng {
	uint64_t s[4];
};

void pl_rng_seed(struct pl_rng *r, uint64_t seed);
/* Stream k of seed: independent of other k. */
void pl_rng_stream(struct pl_rng *r, uint64_t seed, uint64_t k);
uint64_t pl_rng_next(struct pl_rng *r);
/* Uniform in [0, 1), 53 bits. */
double pl_rng_uniform(struct pl_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t pl_rng_below(struct pl_rng *r, uint64_t n);
/* Standard normal (Marsaglia polar method). */
double pl_rng_normal(struct pl_rng *r);
/* Gamma(shape, 1), shape > 0 (Marsaglia & Tsang 2000). */
double pl_rng_gamma(struct pl_rng *r, double shape);
/* Beta(a, b), a, b > 0 and finite, via two gammas; exact uniform for
 * a = b = 1; in [0, 1] over the whole range (tiny shapes give values
 * near 0 and 1, huge ones near the mean). */
double pl_rng_beta(struct pl_rng *r, double a, double b);
/* Shuffle n ints in place (Fisher–Yates). */
void pl_rng_shuffle(struct pl_rng *r, int *a, int n);

#endif
