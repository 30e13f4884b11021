/* The generator: known answers pin every seeded sequence the guest tests
 * rely on (tiernbd's injection, the workloads' pages and access order). */
#include "tests.h"
#include "ts/rng.h"

#include <inttypes.h>
#include <math.h>

static const struct {
	uint64_t seed;
	uint64_t first[3];
} known[] = {
	/* ts_rng_seed(seed): tiernbd's --seed and its per-operation streams */
	{ 0, { 0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull, 0x1a5f849d4933e6e0ull } },
	{ 1, { 0xb3f2af6d0fc710c5ull, 0x853b559647364ceaull, 0x92f89756082a4514ull } },
	{ 42, { 0x15780b2e0c2ec716ull, 0x6104d9866d113a7eull, 0xae17533239e499a1ull } },
	{ UINT64_MAX, { 0x8f5520d52a7ead08ull, 0xc476a018caa1802dull, 0x81de31c0d260469eull } },
	/* ts_rng_seed(seed + TS_SPLITMIX_GAMMA): the workloads' --seed 0, 1, 42 */
	{ 0 + TS_SPLITMIX_GAMMA, { 0x422ea740d0977210ull, 0xe062b061b42e2928ull, 0x5a071fc5930841b6ull } },
	{ 1 + TS_SPLITMIX_GAMMA, { 0xf9d20113ec80c6d5ull, 0xd16e236e5cdc6563ull, 0x68a40f278366062aull } },
	{ 42 + TS_SPLITMIX_GAMMA, { 0xbe15272cdf80b6c2ull, 0xaf6e2ee49ff5d0e3ull, 0xca56edd0338a318full } },
};

void test_rng(struct ts_tap *t)
{
	struct ts_rng a, b;
	int ok = 1;

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		ts_rng_seed(&a, known[i].seed);
		for (int k = 0; k < 3; k++) {
			uint64_t v = ts_rng_next(&a);

			if (v != known[i].first[k]) {
				fprintf(t->f, "# seed %#" PRIx64 " output %d: %#" PRIx64 "\n",
					known[i].seed, k, v);
				ok = 0;
			}
		}
	}
	TS_TAP_OK(t, ok, "rng: known first outputs for seven seeds");

	/* the values after them, through each derived sampler */
	ts_rng_seed(&a, 0);
	for (int k = 0; k < 3; k++)
		ts_rng_next(&a);
	double n = ts_rng_normal(&a), u = ts_rng_double(&a);
	TS_TAP_OK(t, n == -0.11069780022979678 && u == 0.9997484362337864,
		  "rng: seed 0 continues with normal %.17g, double %.17g", n, u);
	ts_rng_seed(&a, 42 + TS_SPLITMIX_GAMMA);
	for (int k = 0; k < 3; k++)
		ts_rng_next(&a);
	uint64_t bl = ts_rng_below(&a, 1000);
	u = ts_rng_double(&a);
	TS_TAP_OK(t, bl == 286 && u == 0.054137925757077765,
		  "rng: workloads seed 42 continues with below(1000) %" PRIu64 ", double %.17g", bl, u);

	TS_TAP_OK(t, ts_mix64(0) == 0xe220a8397b1dcdafull, "rng: ts_mix64(0) is splitmix64's first output");

	ts_rng_seed(&a, 99);
	ts_rng_seed(&b, 99);
	ok = 1;
	for (int i = 0; i < 10000; i++)
		if (ts_rng_next(&a) != ts_rng_next(&b))
			ok = 0;
	ts_rng_seed(&b, 100);
	TS_TAP_OK(t, ok && ts_rng_next(&a) != ts_rng_next(&b), "rng: same seed same sequence, next seed another");

	int inrange = 1;
	double lo = 1, hi = 0;
	for (int i = 0; i < 100000; i++) {
		double d = ts_rng_double(&a);

		if (ts_rng_below(&a, 17) >= 17 || ts_rng_below(&a, 1) != 0 || d < 0 || d >= 1)
			inrange = 0;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	TS_TAP_OK(t, inrange && lo < 0.001 && hi > 0.999,
		  "rng: below(n) < n, below(1) = 0, double in [0, 1) and spread over it");

	double sum = 0, sq = 0;
	const int N = 200000;
	for (int i = 0; i < N; i++) {
		double x = ts_rng_normal(&a);

		sum += x;
		sq += x * x;
	}
	double mean = sum / N, sd = sqrt(sq / N - mean * mean);
	TS_TAP_OK(t, fabs(mean) < 0.01 && fabs(sd - 1) < 0.01,
		  "rng: normal has mean %.4f and SD %.4f", mean, sd);
}
