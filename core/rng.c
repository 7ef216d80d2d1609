/*
 * rng — xoshiro256** (Blackman & Vigna 2018) and derived distributions.
 * Invariant: state is never all zero (splitmix64 seeding guarantees it).
 */
#include "rng.h"

#include <float.h>
#include <math.h>

/* One splitmix64 step. */
static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Seed the four state words from one 64-bit seed. */
void
pl_rng_seed(struct pl_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

/* Independent stream k of a seed. */
void
pl_rng_stream(struct pl_rng *r, uint64_t seed, uint64_t k)
{
	uint64_t x = seed ^ (0xD1B54A32D192ED03ULL * (k + 1));
	pl_rng_seed(r, splitmix64(&x));
}

/* Rotate left. */
static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits. */
uint64_t
pl_rng_next(struct pl_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform double in [0, 1). */
double
pl_rng_uniform(struct pl_rng *r)
{
	return (double)(pl_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer below n (Lemire's rejection). */
uint64_t
pl_rng_below(struct pl_rng *r, uint64_t n)
{
	uint64_t threshold = (0 - n) % n;
	for (;;) {
		uint64_t x = pl_rng_next(r);
		if (x >= threshold)
			return x % n;
	}
}

/* Standard normal. */
double
pl_rng_normal(struct pl_rng *r)
{
	double u, v, s;
	do {
		u = 2 * pl_rng_uniform(r) - 1;
		v = 2 * pl_rng_uniform(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

/* Marsaglia & Tsang's v for Gamma(d + 1/3), c being 1 / (3 sqrt(d)) as
 * the caller rounds it: the variate is d * v. */
static double
mt_v(struct pl_rng *r, double d, double c)
{
	for (;;) {
		double x, v;
		do {
			x = pl_rng_normal(r);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = pl_rng_uniform(r);
		if (u < 1 - 0.0331 * x * x * x * x)
			return v;
		if (log(u > 0 ? u : 0x1.0p-53) < 0.5 * x * x + d * (1 - v + log(v)))
			return v;
	}
}

/* Gamma(shape, 1). */
double
pl_rng_gamma(struct pl_rng *r, double shape)
{
	if (shape < 1) {
		/* Boost: Gamma(a) = Gamma(a + 1) * U^(1/a). */
		double u = pl_rng_uniform(r);
		return pl_rng_gamma(r, shape + 1) * pow(u > 0 ? u : 0x1.0p-53, 1 / shape);
	}
	double d = shape - 1.0 / 3;
	return d * mt_v(r, d, 1 / sqrt(9 * d));
}

/*
 * The logarithm of a Gamma(shape, 1) variate as *g + *lu / shape: *g the
 * log of a Gamma(shape + 1) (shape < 1) or Gamma(shape) variate, *lu the
 * log of the boost's uniform (shape < 1) or 0.  Both finite, whatever the
 * shape (*lu / shape may not be); the draws of pl_rng_gamma().
 */
static void
log_gamma(struct pl_rng *r, double shape, double *g, double *lu)
{
	*lu = 0;
	if (shape < 1) {
		double u = pl_rng_uniform(r);
		*lu = log(u > 0 ? u : 0x1.0p-53);
		shape += 1;
	}
	double d = shape - 1.0 / 3;
	*g = log(d) + log(mt_v(r, d, 1 / (3 * sqrt(d))));
}

/*
 * Beta(a, b) = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).  When X + Y is
 * not a normal finite number (tiny shapes: both gammas underflow; huge
 * ones: the sum overflows), the same draws again in logarithms:
 * 1 / (1 + exp(log Y - log X)), where only the sign of log Y - log X
 * matters when both logs are below -DBL_MAX.
 */
double
pl_rng_beta(struct pl_rng *r, double a, double b)
{
	if (a == 1 && b == 1)
		return pl_rng_uniform(r);
	struct pl_rng r0 = *r;
	double x = pl_rng_gamma(r, a), y = pl_rng_gamma(r, b);
	double s = x + y;
	if (s >= DBL_MIN && s <= DBL_MAX)
		return x / s;
	*r = r0;
	double gx, lx, gy, ly, t;
	log_gamma(r, a, &gx, &lx);
	log_gamma(r, b, &gy, &ly);
	double ex = lx / a, ey = ly / b;
	if (isinf(ex) && isinf(ey)) {
		/* a, b < 2^-1000: compare ly / b and lx / a scaled by 2^-1000 */
		double w = ly / ldexp(b, 1000) - lx / ldexp(a, 1000);
		t = w > 0 ? INFINITY : w < 0 ? -INFINITY : 0;
	} else {
		t = (gy - gx) + (ey - ex);
	}
	return 1 / (1 + exp(t));
}

/* Fisher–Yates shuffle. */
void
pl_rng_shuffle(struct pl_rng *r, int *a, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)pl_rng_below(r, (uint64_t)i + 1);
		int t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}
