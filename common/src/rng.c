#define _GNU_SOURCE /* M_PI */
#include "ts/rng.h"

#include <math.h>

uint64_t ts_mix64(uint64_t x)
{
	x += TS_SPLITMIX_GAMMA;
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
	/* ts_mix64 is a bijection and the four inputs differ, so the state
	 * is never all zero (xoshiro's one bad state). */
	for (int i = 0; i < 4; i++) {
		r->s[i] = ts_mix64(seed);
		seed += TS_SPLITMIX_GAMMA;
	}
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ts_rng_next(struct ts_rng *r)
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

uint64_t ts_rng_below(struct ts_rng *r, uint64_t n)
{
	/* Lemire's multiply-shift; the tiny bias is irrelevant here. */
	return (uint64_t)(((unsigned __int128)ts_rng_next(r) * n) >> 64);
}

double ts_rng_double(struct ts_rng *r)
{
	return (double)(ts_rng_next(r) >> 11) * 0x1.0p-53;
}

double ts_rng_normal(struct ts_rng *r)
{
	/* Box-Muller; one value per call keeps the sequence simple. */
	double u1 = 1.0 - ts_rng_double(r); /* (0, 1]: log() stays finite */
	double u2 = ts_rng_double(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
