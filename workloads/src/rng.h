/* The workloads' seeding of the shared generator and a Zipf-like sampler. */
#ifndef TIERSWAP_RNG_H
#define TIERSWAP_RNG_H

#include <stdint.h>

#include "ts/rng.h"

/*
 * The workloads' seeding: one splitmix64 step later than ts_rng_seed (their
 * own copy added the increment twice). Kept so that --seed N gives the same
 * pages and access order as before the shared library.
 */
static inline void wl_rng_seed(struct ts_rng *r, uint64_t seed)
{
	ts_rng_seed(r, seed + TS_SPLITMIX_GAMMA);
}

/*
 * Zipf-like sampler over ranks [0, n): inverse CDF of the continuous
 * power law p(x) ~ x^-s on [1, n+1). s = 0 is uniform, s = 1 log-uniform
 * (about 90% of accesses on ~10%... depending on n), larger s is hotter.
 * Ranks are scattered over the pages by a fixed permutation so the hot set
 * is not one contiguous run.
 */
struct ts_zipf {
	uint64_t n;
	double s;
	double a;      /* precomputed: n+1 ^ (1-s) - 1, or log(n+1) for s==1 */
	uint64_t mult; /* permutation multiplier, coprime with n */
};

void ts_zipf_init(struct ts_zipf *z, uint64_t n, double s);
/* A rank in [0, n): 0 is the hottest. */
uint64_t ts_zipf_rank(const struct ts_zipf *z, struct ts_rng *r);
/* Map a rank to a page index (bijection on [0, n)). */
uint64_t ts_zipf_page(const struct ts_zipf *z, uint64_t rank);

#endif
