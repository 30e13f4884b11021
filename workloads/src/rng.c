#include "rng.h"
#include "pattern.h"

#include <math.h>

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++) {
		x += 0x9e3779b97f4a7c15ull;
		r->s[i] = ts_mix64(x);
	}
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;
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

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

void ts_zipf_init(struct ts_zipf *z, uint64_t n, double s)
{
	z->n = n ? n : 1;
	z->s = s;
	if (fabs(s - 1.0) < 1e-9)
		z->a = log((double)z->n + 1.0);
	else
		z->a = pow((double)z->n + 1.0, 1.0 - s) - 1.0;
	/* A multiplier near n * golden ratio, made coprime with n. */
	z->mult = (uint64_t)((double)z->n * 0.6180339887) | 1;
	if (z->mult == 0)
		z->mult = 1;
	while (gcd(z->mult, z->n) != 1)
		z->mult += 2;
}

uint64_t ts_zipf_rank(const struct ts_zipf *z, struct ts_rng *r)
{
	double u = ts_rng_double(r), x;
	uint64_t k;

	if (fabs(z->s - 1.0) < 1e-9)
		x = exp(u * z->a);
	else
		x = pow(1.0 + u * z->a, 1.0 / (1.0 - z->s));
	/* x in [1, n+1) */
	k = x < 1.0 ? 0 : (uint64_t)(x - 1.0);
	return k >= z->n ? z->n - 1 : k;
}

uint64_t ts_zipf_page(const struct ts_zipf *z, uint64_t rank)
{
	return (uint64_t)(((unsigned __int128)rank * z->mult) % z->n);
}
