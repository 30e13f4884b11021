#include "rng.h"

#include <math.h>

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
