/*
 * Latency histogram: log-linear buckets (32 per power of two, so ~3%
 * relative error) over nanoseconds, mergeable across threads/processes
 * (plain data, no pointers: it can live in shared memory).
 */
#ifndef TIERSWAP_HIST_H
#define TIERSWAP_HIST_H

#include <stdint.h>

#define TS_HIST_SUB_BITS 5
#define TS_HIST_SUB (1u << TS_HIST_SUB_BITS)
#define TS_HIST_BUCKETS (TS_HIST_SUB * 2 + TS_HIST_SUB * 58)

struct ts_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t b[TS_HIST_BUCKETS];
};

void ts_hist_init(struct ts_hist *h);
void ts_hist_add(struct ts_hist *h, uint64_t ns);
void ts_hist_merge(struct ts_hist *dst, const struct ts_hist *src);
/* Value at quantile q in [0,1] (upper edge of its bucket, capped at max). */
uint64_t ts_hist_quantile(const struct ts_hist *h, double q);
/* Bucket helpers (exposed for tests). */
unsigned ts_hist_bucket(uint64_t ns);
uint64_t ts_hist_bucket_upper(unsigned b);

#endif
