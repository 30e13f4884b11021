/* Seeded generator: xoshiro256** with splitmix64 seeding. A seed names a
 * sequence for good: guest tests rely on it, so any change here is a change
 * to every seeded run (tests/rng.c holds the known answers). */
#ifndef TS_RNG_H
#define TS_RNG_H

#include <stdint.h>

/* splitmix64's increment (2^64 / golden ratio) */
#define TS_SPLITMIX_GAMMA UINT64_C(0x9e3779b97f4a7c15)

struct ts_rng {
	uint64_t s[4];
};

/* splitmix64 output for state x: the finaliser of x + TS_SPLITMIX_GAMMA. */
uint64_t ts_mix64(uint64_t x);

/* State word i = ts_mix64(seed + i * TS_SPLITMIX_GAMMA), i = 0..3. */
void ts_rng_seed(struct ts_rng *r, uint64_t seed);
uint64_t ts_rng_next(struct ts_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t ts_rng_below(struct ts_rng *r, uint64_t n);
/* Uniform double in [0, 1), 53 bits. */
double ts_rng_double(struct ts_rng *r);
/* Standard normal (Box-Muller); uses two outputs per value. */
double ts_rng_normal(struct ts_rng *r);

#endif
