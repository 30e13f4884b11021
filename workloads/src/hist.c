#include "hist.h"

#include <string.h>

void ts_hist_init(struct ts_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned ts_hist_bucket(uint64_t v)
{
	unsigned msb, shift;

	if (v < 2 * TS_HIST_SUB)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - TS_HIST_SUB_BITS;
	/* (v >> shift) is in [SUB, 2*SUB): buckets continue right after 2*SUB */
	unsigned b = shift * TS_HIST_SUB + (unsigned)(v >> shift);
	return b < TS_HIST_BUCKETS ? b : TS_HIST_BUCKETS - 1;
}

uint64_t ts_hist_bucket_upper(unsigned b)
{
	unsigned shift;
	uint64_t sub;

	if (b < 2 * TS_HIST_SUB)
		return b;
	shift = b / TS_HIST_SUB - 1;
	sub = b % TS_HIST_SUB + TS_HIST_SUB;
	return ((sub + 1) << shift) - 1;
}

void ts_hist_add(struct ts_hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->b[ts_hist_bucket(ns)]++;
}

void ts_hist_merge(struct ts_hist *dst, const struct ts_hist *src)
{
	if (!src->count)
		return;
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (unsigned i = 0; i < TS_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

uint64_t ts_hist_quantile(const struct ts_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min_ns;
	if (q >= 1)
		return h->max_ns;
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < TS_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t up = ts_hist_bucket_upper(i);
			return up > h->max_ns ? h->max_ns : up;
		}
	}
	return h->max_ns;
}
