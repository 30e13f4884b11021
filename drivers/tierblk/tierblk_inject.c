// SPDX-License-Identifier: GPL-2.0-only
/*
 * tierblk: latency and error injection.
 *
 * Randomness comes from a counter-based generator: the n-th draw of
 * operation type op is a hash of (seed, op, n, stream), so the sequence a
 * given type sees does not depend on how operations of other types
 * interleave with it.  n counts operations of that type submitted while a
 * random knob of that type is active, and is reset when the seed is
 * written.
 */

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "tierblk.h"

#define TB_STREAM_ERR		0
#define TB_STREAM_LAT		1	/* uses 1, 2 and 3 */

/* 2^(i/64) in Q30, i = 0..64: the fractional part of exp2() */
static const u32 tb_exp2_q30[65] = {
	1073741824, 1085434106, 1097253708, 1109202018, 1121280436,
	1133490379, 1145833280, 1158310587, 1170923762, 1183674286,
	1196563654, 1209593378, 1222764986, 1236080024, 1249540052,
	1263146652, 1276901417, 1290805962, 1304861917, 1319070932,
	1333434672, 1347954824, 1362633090, 1377471191, 1392470869,
	1407633882, 1422962010, 1438457051, 1454120821, 1469955159,
	1485961921, 1502142985, 1518500250, 1535035634, 1551751076,
	1568648537, 1585730000, 1602997467, 1620452965, 1638098541,
	1655936265, 1673968228, 1692196547, 1710623359, 1729250827,
	1748081133, 1767116489, 1786359126, 1805811301, 1825475297,
	1845353420, 1865448001, 1885761398, 1906295993, 1927054196,
	1948038440, 1969251188, 1990694927, 2012372174, 2034285470,
	2056437387, 2078830522, 2101467502, 2124350982, 2147483648,
};

/* log2(e) in Q16 */
#define TB_LOG2E_Q16		94548

static u64 tb_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 tb_rand(u64 seed, u32 op, u64 n, u32 stream)
{
	u64 key = (n << 8) | ((u64)op << 4) | stream;

	return tb_mix(seed ^ tb_mix(key + 0x9e3779b97f4a7c15ULL));
}

/*
 * Standard normal deviate in Q16: the sum of twelve 16-bit uniforms minus
 * their mean (Irwin-Hall).  Variance is exactly 1, tails end at +-6.
 */
static s64 tb_std_normal_q16(u64 seed, u32 op, u64 n)
{
	s64 sum = 0;
	int i, j;

	for (i = 0; i < 3; i++) {
		u64 r = tb_rand(seed, op, n, TB_STREAM_LAT + i);

		for (j = 0; j < 4; j++) {
			sum += r & 0xffff;
			r >>= 16;
		}
	}
	/* each term has mean 32767.5: 12 of them sum to 393210 */
	return sum - 393210;
}

/* base * e^(x / 65536), saturating at TB_MAX_DELAY_NS */
static u64 tb_scale_exp(u64 base, s64 x_q16)
{
	s64 y = div_s64(x_q16 * TB_LOG2E_Q16, 65536);
	s64 k = y >> 16;		/* floor */
	u32 f = y & 0xffff;
	u32 idx = f >> 10, rem = f & 1023;
	u64 m, val;

	m = tb_exp2_q30[idx] +
	    (((u64)(tb_exp2_q30[idx + 1] - tb_exp2_q30[idx]) * rem) >> 10);
	val = mul_u64_u64_shr(base, m, 30);
	if (k >= 0) {
		if (k >= 40 || val > (TB_MAX_DELAY_NS >> k))
			return TB_MAX_DELAY_NS;
		return val << k;
	}
	if (k <= -64)
		return 0;
	return val >> -k;
}

u64 tierblk_sample_lat(const struct tierblk_lat *lat, u64 seed,
		       enum tierblk_op op, u64 n)
{
	s64 z, d;

	switch (lat->dist) {
	case TB_DIST_UNIFORM:
		return lat->p1 + mul_u64_u64_shr(tb_rand(seed, op, n, TB_STREAM_LAT),
						 lat->p2 - lat->p1 + 1, 64);
	case TB_DIST_NORMAL:
		z = tb_std_normal_q16(seed, op, n);
		d = (s64)lat->p1 + div_s64((s64)lat->p2 * z, 65536);
		return clamp_t(s64, d, 0, TB_MAX_DELAY_NS);
	case TB_DIST_LOGNORMAL:
		z = tb_std_normal_q16(seed, op, n);
		return tb_scale_exp(lat->median,
				    div_s64((s64)lat->sigma_q24 * z, 1 << 24));
	default:
		return lat->p1;
	}
}

/*
 * log2(y / 2^32) in Q32 for y >= 2^32: the inverse of tb_exp2_q30, by
 * the same linear interpolation between its points.
 */
static u64 tb_log2_q32(u64 y)
{
	int k = fls64(y) - 1 - 32;
	u32 m = y >> (k + 2);		/* Q30, in [1, 2) */
	int lo = 0, hi = 64;

	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;

		if (tb_exp2_q30[mid] <= m)
			lo = mid;
		else
			hi = mid;
	}
	return ((u64)k << 32) + ((u64)lo << 26) +
	       div_u64((u64)(m - tb_exp2_q30[lo]) << 26,
		       tb_exp2_q30[lo + 1] - tb_exp2_q30[lo]);
}

/* ln(2) in Q32 */
#define TB_LN2_Q32		2977044472ULL

/*
 * The lognormal distribution whose delay has mean @mean and standard
 * deviation @sd: with y = 1 + (sd / mean)^2, sigma^2 = ln(y) and the
 * median is mean / sqrt(y).  Sigma in Q24, so that a spread of 0.01% of
 * the mean is still seen.  -EINVAL when sigma would pass
 * TB_MAX_SIGMA_MILLI, or for a spread around a mean of 0.
 */
int tierblk_lognormal_from_moments(u64 mean, u64 sd, u64 *median,
				   u32 *sigma_q24)
{
	u64 r, y, ln, sigma;

	if (!mean) {
		if (sd)
			return -EINVAL;
		*median = 0;
		*sigma_q24 = 0;
		return 0;
	}
	if (div64_u64(sd, mean) >= 4096)
		return -EINVAL;
	r = mul_u64_u64_div_u64(sd, 1ULL << 32, mean);	/* Q32, < 2^44 */
	y = mul_u64_u64_shr(r, r, 32) + (1ULL << 32);	/* Q32, < 2^57 */
	ln = mul_u64_u64_shr(tb_log2_q32(y), TB_LN2_Q32, 32);	/* Q32, < 2^37 */
	/* sqrt(ln / 2^32) * 2^24, rounded */
	sigma = (int_sqrt64(ln << 18) + 1) >> 1;
	if (sigma > div_u64((u64)TB_MAX_SIGMA_MILLI << 24, 1000))
		return -EINVAL;
	*sigma_q24 = sigma;
	*median = tb_scale_exp(mean, -(s64)(ln >> 17));
	return 0;
}

struct tierblk_cfg *tierblk_cfg_default(void)
{
	struct tierblk_cfg *cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);

	if (!cfg)
		return NULL;
	cfg->spin_ns = TB_DEFAULT_SPIN_NS;
	cfg->status = BLK_STS_IOERR;
	tierblk_cfg_derive(cfg);
	return cfg;
}

void tierblk_cfg_derive(struct tierblk_cfg *cfg)
{
	int op;

	cfg->lat_mask = 0;
	cfg->rand_mask = 0;
	cfg->err_mask = 0;
	for (op = 0; op < TB_NR_OPS; op++) {
		const struct tierblk_lat *lat = &cfg->lat[op];
		bool random = lat->dist != TB_DIST_FIXED;

		if (random || lat->p1)
			cfg->lat_mask |= BIT(op);
		if (random || cfg->rate_ppm[op])
			cfg->rand_mask |= BIT(op);
		if (cfg->rate_ppm[op] || cfg->every_nth[op])
			cfg->err_mask |= BIT(op);
	}
}

/* Serialise transfers on one emulated link of @bw bytes/s. */
static u64 tb_bw_wait(struct tierblk_dev *dev, u64 bw, unsigned int bytes,
		      u64 now)
{
	u64 xfer = mul_u64_u64_div_u64(bytes, NSEC_PER_SEC, bw);
	s64 old = atomic64_read(&dev->bw_next);
	s64 end;

	do {
		end = max_t(s64, old, now) + xfer;
	} while (!atomic64_try_cmpxchg(&dev->bw_next, &old, end));
	return end - now;
}

static bool tb_bad_hit(struct tierblk_dev *dev, enum tierblk_op op,
		       sector_t sector, sector_t last)
{
	struct tierblk_bad *b, *tmp;
	unsigned long flags;
	bool hit = false;

	spin_lock_irqsave(&dev->bad_lock, flags);
	list_for_each_entry_safe(b, tmp, &dev->bad_list, node) {
		if (b->start > last)
			break;
		if (b->end < sector || !(b->ops & BIT(op)))
			continue;
		hit = true;
		if (b->count && --b->count == 0) {
			list_del(&b->node);
			kfree(b);
			WRITE_ONCE(dev->nr_bad, dev->nr_bad - 1);
		}
	}
	spin_unlock_irqrestore(&dev->bad_lock, flags);
	return hit;
}

static bool tb_one_shot_hit(struct tierblk_dev *dev, sector_t sector,
			    sector_t last)
{
	s64 s = atomic64_read(&dev->one_shot);

	if (s < 0 || s < sector || s > last)
		return false;
	return atomic64_cmpxchg(&dev->one_shot, s, -1) == s;
}

static void tb_count(struct tierblk_dev *dev, enum tierblk_op op, int src)
{
	this_cpu_inc(dev->stats->errors[op]);
	this_cpu_inc(dev->stats->err_src[src]);
}

void tierblk_decide(struct tierblk_dev *dev, enum tierblk_op op, sector_t sector,
		    unsigned int bytes, u64 *now, struct tierblk_verdict *v)
{
	sector_t last = sector + (bytes >> SECTOR_SHIFT) - 1;
	const struct tierblk_cfg *cfg;
	bool nth = false, rate = false;
	u32 bit = BIT(op);
	u64 n = 0, delay = 0;
	int src = -1;

	v->corrupt = false;

	rcu_read_lock();
	cfg = rcu_dereference(dev->cfg);
	if (cfg->rand_mask & bit)
		n = atomic64_fetch_inc(&dev->seq[op]);
	if (((cfg->lat_mask & bit) || (cfg->bandwidth && bytes)) && !*now)
		*now = ktime_get_ns();
	if (cfg->lat_mask & bit)
		delay = tierblk_sample_lat(&cfg->lat[op], cfg->seed, op, n);
	if (cfg->bandwidth && bytes)
		delay += tb_bw_wait(dev, cfg->bandwidth, bytes, *now);
	if (cfg->err_mask & bit) {
		if (cfg->every_nth[op]) {
			u64 cnt = atomic64_inc_return(&dev->nth[op]);
			u64 rem;

			div64_u64_rem(cnt, cfg->every_nth[op], &rem);
			nth = rem == 0;
		}
		if (cfg->rate_ppm[op])
			rate = mul_u64_u64_shr(tb_rand(cfg->seed, op, n, TB_STREAM_ERR),
					       TB_PPM, 64) < cfg->rate_ppm[op];
	}
	if (cfg->corrupt && op == TB_OP_READ && bytes &&
	    cfg->corrupt_start <= last && cfg->corrupt_end >= sector) {
		v->corrupt = true;
		v->corrupt_start = cfg->corrupt_start;
		v->corrupt_end = cfg->corrupt_end;
	}
	v->status = cfg->status;
	rcu_read_unlock();

	v->delay_ns = min(delay, TB_MAX_DELAY_NS);

	/* Every source is evaluated so that its counters advance. */
	if (op == TB_OP_READ && bytes && tb_one_shot_hit(dev, sector, last))
		src = TB_SRC_ONE_SHOT;
	if ((op == TB_OP_READ || op == TB_OP_WRITE) && bytes &&
	    READ_ONCE(dev->nr_bad) && tb_bad_hit(dev, op, sector, last) &&
	    src < 0)
		src = TB_SRC_BADBLOCK;
	if (nth && src < 0)
		src = TB_SRC_EVERY_NTH;
	if (rate && src < 0)
		src = TB_SRC_RATE;

	if (src < 0) {
		v->status = BLK_STS_OK;
		return;
	}
	v->corrupt = false;
	tb_count(dev, op, src);
}

void tierblk_account_delay(struct tierblk_dev *dev, u64 delay_ns)
{
	int b;

	if (!delay_ns)
		return;
	b = min(fls64(delay_ns) - 1, TB_HIST_BUCKETS - 1);
	this_cpu_inc(dev->stats->delayed);
	this_cpu_add(dev->stats->delay_ns, delay_ns);
	this_cpu_inc(dev->stats->hist[b]);
}

/*
 * Add [start, end] (failing @ops @count times) or clear it.  Adding first
 * clears the span, so ranges never overlap.  A range cut in two by a clear
 * leaves two ranges that each keep the remaining count.  An update that
 * would leave more than TB_MAX_BAD ranges fails with -ENOSPC.
 */
int tierblk_bad_update(struct tierblk_dev *dev, bool add, sector_t start,
		       sector_t end, u32 ops, u32 count)
{
	struct tierblk_bad *nb = NULL, *split, *b, *tmp;
	LIST_HEAD(freelist);
	int nr, ret = 0;

	split = kzalloc(sizeof(*split), GFP_KERNEL);
	if (add)
		nb = kzalloc(sizeof(*nb), GFP_KERNEL);
	if (!split || (add && !nb)) {
		ret = -ENOMEM;
		goto out;
	}

	spin_lock_irq(&dev->bad_lock);
	/* first pass: the number of ranges after the update */
	nr = dev->nr_bad + add;
	list_for_each_entry(b, &dev->bad_list, node) {
		if (b->start < start && b->end > end)
			nr++;
		else if (b->start >= start && b->end <= end)
			nr--;
	}
	if (nr > TB_MAX_BAD) {
		spin_unlock_irq(&dev->bad_lock);
		ret = -ENOSPC;
		goto out;
	}
	list_for_each_entry_safe(b, tmp, &dev->bad_list, node) {
		if (b->end < start || b->start > end)
			continue;
		if (b->start < start && b->end > end) {
			*split = *b;
			split->start = end + 1;
			list_add(&split->node, &b->node);
			split = NULL;
			b->end = start - 1;
		} else if (b->start < start) {
			b->end = start - 1;
		} else if (b->end > end) {
			b->start = end + 1;
		} else {
			list_move(&b->node, &freelist);
		}
	}
	if (add) {
		nb->start = start;
		nb->end = end;
		nb->ops = ops;
		nb->count = count;
		list_for_each_entry(b, &dev->bad_list, node)
			if (b->start > end)
				break;
		list_add_tail(&nb->node, &b->node);
		nb = NULL;
	}
	WRITE_ONCE(dev->nr_bad, nr);
	spin_unlock_irq(&dev->bad_lock);

out:
	list_for_each_entry_safe(b, tmp, &freelist, node)
		kfree(b);
	kfree(split);
	kfree(nb);
	return ret;
}

void tierblk_bad_clear(struct tierblk_dev *dev)
{
	struct tierblk_bad *b, *tmp;
	LIST_HEAD(freelist);

	spin_lock_irq(&dev->bad_lock);
	list_splice_init(&dev->bad_list, &freelist);
	WRITE_ONCE(dev->nr_bad, 0);
	spin_unlock_irq(&dev->bad_lock);
	list_for_each_entry_safe(b, tmp, &freelist, node)
		kfree(b);
}

static const char *tb_ops_name(u32 ops)
{
	if (ops == (BIT(TB_OP_READ) | BIT(TB_OP_WRITE)))
		return "rw";
	return ops == BIT(TB_OP_READ) ? "read" : "write";
}

ssize_t tierblk_bad_show(struct tierblk_dev *dev, char *buf)
{
	struct tierblk_bad *b;
	ssize_t len = 0;

	spin_lock_irq(&dev->bad_lock);
	list_for_each_entry(b, &dev->bad_list, node)
		len += sysfs_emit_at(buf, len, "%llu-%llu %s %u\n",
				     (unsigned long long)b->start,
				     (unsigned long long)b->end,
				     tb_ops_name(b->ops), b->count);
	spin_unlock_irq(&dev->bad_lock);
	return len;
}
