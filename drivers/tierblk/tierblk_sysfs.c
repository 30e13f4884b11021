// SPDX-License-Identifier: GPL-2.0-only
/*
 * tierblk: per-device knobs in /sys/block/tierblkN/tierblk/.
 *
 * Every store either applies the whole value or returns an error and
 * changes nothing: -EINVAL for a malformed or out-of-range value, -EBUSY for
 * a change that needs the device unused while it is open.
 */

#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "tierblk.h"

#define TB_MAX_TOKENS	4

static struct tierblk_dev *tb_dev(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

/* ---- parsing ---- */

static int tb_parse_u64(const char *s, u64 *out)
{
	if (!isdigit(*s))
		return -EINVAL;
	return kstrtou64(s, 10, out) ? -EINVAL : 0;
}

/* Decimal bytes with an optional K, M, G or T (powers of 1024) suffix. */
int tierblk_parse_size(const char *buf, u64 *out)
{
	char tmp[32];
	size_t len;
	int shift = 0;
	u64 v;

	len = strscpy(tmp, buf, sizeof(tmp)) < 0 ? 0 : strlen(tmp);
	if (len && tmp[len - 1] == '\n')
		tmp[--len] = '\0';
	if (!len)
		return -EINVAL;
	switch (tmp[len - 1]) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	}
	if (shift)
		tmp[--len] = '\0';
	if (tb_parse_u64(tmp, &v))
		return -EINVAL;
	if (v > (U64_MAX >> shift))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

/*
 * Split a copy of @buf (in @tmp) into at most @max whitespace separated
 * tokens.  Returns the number of tokens, or -EINVAL.
 */
static int tb_split(const char *buf, char *tmp, size_t size, char **tok, int max)
{
	char *p, *t;
	int n = 0;

	if (strscpy(tmp, buf, size) < 0)
		return -EINVAL;
	p = strim(tmp);
	while ((t = strsep(&p, " \t\n")) != NULL) {
		if (!*t)
			continue;
		if (n == max)
			return -EINVAL;
		tok[n++] = t;
	}
	return n;
}

/*
 * The fault vocabulary tierblk shares with tiernbd (docs/conventions.md,
 * "Faults and latencies"): durations with units, rates in percent or ppm,
 * errno names, ranges with size suffixes.
 */

/* Copy @buf to @tmp without surrounding white space; -EINVAL if empty. */
static int tb_token(const char *buf, char *tmp, size_t size)
{
	char *t;

	if (strscpy(tmp, buf, size) < 0)
		return -EINVAL;
	t = strim(tmp);
	if (!*t || strpbrk(t, " \t\n"))
		return -EINVAL;
	memmove(tmp, t, strlen(t) + 1);
	return 0;
}

/* Whole decimal digits at *@p (at least one), advancing *@p. */
static int tb_parse_digits(const char **p, u64 *out)
{
	u64 v = 0;

	if (!isdigit(**p))
		return -EINVAL;
	for (; isdigit(**p); (*p)++)
		if (check_mul_overflow(v, 10ULL, &v) ||
		    check_add_overflow(v, (u64)(**p - '0'), &v))
			return -EINVAL;
	*out = v;
	return 0;
}

/*
 * "N" or "N.F" at *@p: the whole part in *@ip, the fraction as *@fp / *@div
 * (at most @max_digits digits).
 */
static int tb_parse_decimal(const char **p, unsigned int max_digits, u64 *ip,
			    u64 *fp, u64 *div)
{
	if (tb_parse_digits(p, ip))
		return -EINVAL;
	*fp = 0;
	*div = 1;
	if (**p != '.')
		return 0;
	(*p)++;
	if (!isdigit(**p))
		return -EINVAL;
	for (; isdigit(**p); (*p)++) {
		if (!max_digits--)
			return -EINVAL;
		*fp = *fp * 10 + (**p - '0');
		*div *= 10;
	}
	return 0;
}

static const struct {
	const char *name;
	u64 ns;
} tb_time_units[] = {
	{ "s", NSEC_PER_SEC },
	{ "ms", NSEC_PER_MSEC },
	{ "us", NSEC_PER_USEC },
	{ "ns", 1 },
};

/*
 * A duration: a decimal number with a unit (ns, us, ms, s), or a bare whole
 * number of ns (tierblk's unit before the shared vocabulary).  It must come
 * to a whole number of ns.
 */
static int tb_parse_duration(const char *s, u64 *ns)
{
	u64 ip, fp, div, unit = 0, v;
	int i;

	if (tb_parse_decimal(&s, 9, &ip, &fp, &div))
		return -EINVAL;
	if (!*s) {
		if (div != 1)
			return -EINVAL;
		*ns = ip;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(tb_time_units); i++)
		if (!strcmp(s, tb_time_units[i].name))
			unit = tb_time_units[i].ns;
	/* fp < 10^9 and unit <= 10^9: fp * unit fits */
	if (!unit || (fp * unit) % div || check_mul_overflow(ip, unit, &v) ||
	    check_add_overflow(v, fp * unit / div, &v))
		return -EINVAL;
	*ns = v;
	return 0;
}

/* @ns in the largest unit that shows it exactly ("50us"); 0 is "0". */
static void tb_fmt_duration(char *s, size_t size, u64 ns)
{
	int i;

	for (i = 0; ns && i < ARRAY_SIZE(tb_time_units); i++) {
		if (ns % tb_time_units[i].ns == 0) {
			snprintf(s, size, "%llu%s", ns / tb_time_units[i].ns,
				 tb_time_units[i].name);
			return;
		}
	}
	snprintf(s, size, "0");
}

/* A rate: "N%" (up to 4 decimals), "Nppm" or a bare N ppm; at most 100%. */
static int tb_parse_rate(const char *s, u64 *ppm)
{
	u64 ip, fp, div, v;

	if (tb_parse_decimal(&s, 4, &ip, &fp, &div))
		return -EINVAL;
	if (!strcmp(s, "%")) {
		if (ip > 100)
			return -EINVAL;
		v = ip * 10000 + fp * 10000 / div;
	} else if (!*s || !strcmp(s, "ppm")) {
		if (div != 1)
			return -EINVAL;
		v = ip;
	} else {
		return -EINVAL;
	}
	if (v > TB_PPM)
		return -EINVAL;
	*ppm = v;
	return 0;
}

/*
 * A position on the device, in sectors: a bare number of sectors
 * (null_blk's unit), or a number with a suffix, spelt as tiernbd takes
 * them: s (512-byte sectors), p (4 KiB pages), b or B (bytes), K, M, G, T
 * (KiB ... TiB; either case, KiB and KB too).  With @last it is
 * the inclusive end of a range and counts in its unit: "13p" ends with
 * the last sector of page 13, "8191b" with the sector ending at byte 8191.
 * Either way it must fall on a sector boundary.
 */
static int tb_parse_sectors(const char **p, bool last, u64 *out)
{
	u64 v, unit = SECTOR_SIZE;
	bool binary = false, suffix = true;

	if (tb_parse_digits(p, &v))
		return -EINVAL;
	switch (**p) {
	case 's':
		break;
	case 'p':
		unit = SZ_4K;
		break;
	case 'b': case 'B':
		unit = 1;
		break;
	case 'k': case 'K':
		unit = SZ_1K;
		binary = true;
		break;
	case 'm': case 'M':
		unit = SZ_1M;
		binary = true;
		break;
	case 'g': case 'G':
		unit = SZ_1G;
		binary = true;
		break;
	case 't': case 'T':
		unit = SZ_1T;
		binary = true;
		break;
	default:
		suffix = false;		/* sectors */
	}
	if (suffix)
		(*p)++;
	/* as tiernbd takes them: K, k, KiB, KB */
	if (binary && tolower(**p) == 'i')
		(*p)++;
	if (binary && tolower(**p) == 'b')
		(*p)++;
	if ((last && check_add_overflow(v, 1ULL, &v)) ||
	    check_mul_overflow(v, unit, &v) || v & (SECTOR_SIZE - 1))
		return -EINVAL;
	v >>= SECTOR_SHIFT;
	*out = last ? v - 1 : v;
	return 0;
}

/*
 * A range of sectors: "START-END" (END inclusive) or "START+LEN" (LEN > 0),
 * positions as tb_parse_sectors() reads them.
 */
static int tb_parse_range(const char *s, sector_t *start, sector_t *end)
{
	u64 a, b;
	char sep;

	if (tb_parse_sectors(&s, false, &a))
		return -EINVAL;
	sep = *s++;
	if ((sep != '-' && sep != '+') ||
	    tb_parse_sectors(&s, sep == '-', &b) || *s)
		return -EINVAL;
	if (sep == '+' && (!b || check_add_overflow(a, b - 1, &b)))
		return -EINVAL;
	if (a > b)
		return -EINVAL;
	*start = a;
	*end = b;
	return 0;
}

/* ---- configuration updates ---- */

static struct tierblk_cfg *tb_cfg_begin(struct tierblk_dev *dev)
{
	struct tierblk_cfg *cfg;

	mutex_lock(&dev->cfg_mutex);
	cfg = kmemdup(rcu_dereference_protected(dev->cfg,
						lockdep_is_held(&dev->cfg_mutex)),
		      sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		mutex_unlock(&dev->cfg_mutex);
	return cfg;
}

static void tb_cfg_commit(struct tierblk_dev *dev, struct tierblk_cfg *cfg)
{
	struct tierblk_cfg *old;

	tierblk_cfg_derive(cfg);
	old = rcu_replace_pointer(dev->cfg, cfg, lockdep_is_held(&dev->cfg_mutex));
	mutex_unlock(&dev->cfg_mutex);
	kfree_rcu(old, rcu);
}

/* Copy the current configuration to @snap. */
static void tb_cfg_snap(struct tierblk_dev *dev, struct tierblk_cfg *snap)
{
	rcu_read_lock();
	*snap = *rcu_dereference(dev->cfg);
	rcu_read_unlock();
}

/* ---- disksize, synchronous, completion ---- */

static ssize_t disksize_show(struct device *d, struct device_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%llu\n", tb_dev(d)->size);
}

static ssize_t disksize_store(struct device *d, struct device_attribute *a,
			      const char *buf, size_t count)
{
	u64 size;
	int ret;

	if (tierblk_parse_size(buf, &size) || !size || size > TB_MAX_SIZE ||
	    !IS_ALIGNED(size, PAGE_SIZE))
		return -EINVAL;
	ret = tierblk_set_size(tb_dev(d), size);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(disksize);

static ssize_t synchronous_show(struct device *d, struct device_attribute *a,
				char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tb_dev(d)->synchronous));
}

static ssize_t synchronous_store(struct device *d, struct device_attribute *a,
				 const char *buf, size_t count)
{
	u64 v;
	int ret;

	if (tb_parse_u64(buf, &v) || v > 1)
		return -EINVAL;
	ret = tierblk_set_synchronous(tb_dev(d), v);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(synchronous);

/*
 * How a synchronous=0 device ends its bios: from a workqueue (a real
 * asynchronous disk) or in the submitter's context without advertising
 * BLK_FEAT_SYNCHRONOUS (the swap cache path with no I/O offload: isolates
 * the swap cache's cost). Takes effect for the next bio; synchronous=1
 * always completes inline.
 */
static ssize_t completion_show(struct device *d, struct device_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%s\n", READ_ONCE(tb_dev(d)->inline_completion) ?
			  "inline" : "workqueue");
}

static ssize_t completion_store(struct device *d, struct device_attribute *a,
				const char *buf, size_t count)
{
	bool inl;

	if (sysfs_streq(buf, "inline"))
		inl = true;
	else if (sysfs_streq(buf, "workqueue"))
		inl = false;
	else
		return -EINVAL;
	WRITE_ONCE(tb_dev(d)->inline_completion, inl);
	return count;
}
static DEVICE_ATTR_RW(completion);

/* ---- latency ---- */

static const char * const tb_dist_names[] = {
	[TB_DIST_FIXED]		= "fixed",
	[TB_DIST_UNIFORM]	= "uniform",
	[TB_DIST_NORMAL]	= "normal",
	[TB_DIST_LOGNORMAL]	= "lognormal",
};

static ssize_t tb_lat_show(const struct tierblk_lat *lat, char *buf)
{
	char p1[24], p2[24];

	if (lat->dist == TB_DIST_FIXED && !lat->p1)
		return sysfs_emit(buf, "off\n");
	tb_fmt_duration(p1, sizeof(p1), lat->p1);
	if (lat->dist == TB_DIST_FIXED)
		return sysfs_emit(buf, "fixed:%s\n", p1);
	tb_fmt_duration(p2, sizeof(p2), lat->p2);
	return sysfs_emit(buf, "%s:%s,%s\n", tb_dist_names[lat->dist], p1, p2);
}

/* "fixed:D", "uniform:MIN,MAX", "normal:MEAN,SD", "lognormal:MEAN,SD" */
static int tb_parse_dist(char *s, u32 *dist, u64 *p)
{
	char *colon = strchr(s, ':'), *comma;
	int d;

	if (!colon)
		return -EINVAL;
	*colon++ = '\0';
	comma = strchr(colon, ',');
	if (comma)
		*comma++ = '\0';
	d = match_string(tb_dist_names, ARRAY_SIZE(tb_dist_names), s);
	if (d < 0 || (d == TB_DIST_FIXED ? !!comma : !comma) ||
	    tb_parse_duration(colon, &p[0]) ||
	    (comma && tb_parse_duration(comma, &p[1])))
		return -EINVAL;
	*dist = d;
	return 0;
}

/*
 * The shared form: "off", "D" or one of tb_parse_dist()'s.  The form
 * before it stays: "fixed N", "uniform MIN MAX", "normal MEAN SD" (its
 * lognormal took other parameters, a median and sigma in 1/1000: refused
 * rather than read differently).  Durations as tb_parse_duration().
 */
static int tb_parse_lat(const char *buf, struct tierblk_lat *lat)
{
	char tmp[96], *tok[TB_MAX_TOKENS];
	u64 p[2] = { 0, 0 };
	u32 dist;
	int n, i;

	n = tb_split(buf, tmp, sizeof(tmp), tok, 3);
	if (n <= 0)
		return -EINVAL;
	if (n == 1 && !strcmp(tok[0], "off")) {
		dist = TB_DIST_FIXED;
	} else if (n == 1 && strchr(tok[0], ':')) {
		if (tb_parse_dist(tok[0], &dist, p))
			return -EINVAL;
	} else if (n == 1) {
		dist = TB_DIST_FIXED;
		if (tb_parse_duration(tok[0], &p[0]))
			return -EINVAL;
	} else {
		i = match_string(tb_dist_names, ARRAY_SIZE(tb_dist_names), tok[0]);
		if (i < 0 || i == TB_DIST_LOGNORMAL ||
		    n != (i == TB_DIST_FIXED ? 2 : 3))
			return -EINVAL;
		dist = i;
		for (i = 1; i < n; i++)
			if (tb_parse_duration(tok[i], &p[i - 1]))
				return -EINVAL;
	}
	if (p[0] > TB_MAX_DELAY_NS || p[1] > TB_MAX_DELAY_NS)
		return -EINVAL;
	if (dist == TB_DIST_UNIFORM && p[1] < p[0])
		return -EINVAL;
	memset(lat, 0, sizeof(*lat));
	if (dist == TB_DIST_LOGNORMAL &&
	    tierblk_lognormal_from_moments(p[0], p[1], &lat->median,
					   &lat->sigma_q24))
		return -EINVAL;
	lat->dist = dist;
	lat->p1 = p[0];
	lat->p2 = p[1];
	return 0;
}

/* ---- error status ---- */

/*
 * Errno names (what a failed swap read or write reports), then the names
 * before the shared vocabulary; matched without case.
 */
static const struct {
	const char *name;
	blk_status_t status;
} tb_status_names[] = {
	{ "EIO",	BLK_STS_IOERR },
	{ "ENOSPC",	BLK_STS_NOSPC },
	{ "ETIMEDOUT",	BLK_STS_TIMEOUT },
	{ "ENOMEM",	BLK_STS_RESOURCE },
	{ "ENODATA",	BLK_STS_MEDIUM },
	{ "timeout",	BLK_STS_TIMEOUT },
	{ "resource",	BLK_STS_RESOURCE },
	{ "medium",	BLK_STS_MEDIUM },
};

/* ---- the run-time knobs of struct tierblk_cfg, one line each ---- */

enum tb_knob_kind {
	TB_KNOB_U64,		/* decimal, at most max */
	TB_KNOB_NS,		/* a duration (tb_parse_duration), at most max */
	TB_KNOB_RATE,		/* a rate (tb_parse_rate), u32 ppm */
	TB_KNOB_LAT,		/* a delay distribution (tb_parse_lat) */
	TB_KNOB_BANDWIDTH,	/* bytes/s with a size suffix, 0 or >= min */
	TB_KNOB_STATUS,		/* a name of tb_status_names */
};

/*
 * A knob: its attribute, the field of struct tierblk_cfg it sets, how the
 * value is read and shown, its bound, and what else a write restarts
 * (called with the new configuration not yet published).  Every knob may
 * change at any time, also while the device is open or swapped on: a
 * write copies the configuration, sets the field and publishes the copy.
 */
struct tb_knob {
	struct device_attribute attr;
	enum tb_knob_kind kind;
	size_t off;		/* of a field of the kind's size */
	u64 max;
	int op;
	void (*restart)(struct tierblk_dev *dev, int op);
};

static const struct tb_knob *tb_knob(struct device_attribute *a)
{
	return container_of(a, struct tb_knob, attr);
}

static ssize_t tb_knob_show(struct device *d, struct device_attribute *a,
			    char *buf)
{
	const struct tb_knob *k = tb_knob(a);
	struct tierblk_cfg snap;
	const void *f = (const char *)&snap + k->off;
	blk_status_t status;
	unsigned int i;

	tb_cfg_snap(tb_dev(d), &snap);
	switch (k->kind) {
	case TB_KNOB_RATE:
		return sysfs_emit(buf, "%u\n", *(const u32 *)f);
	case TB_KNOB_STATUS:
		status = *(const blk_status_t *)f;
		for (i = 0; i < ARRAY_SIZE(tb_status_names); i++)
			if (tb_status_names[i].status == status)
				return sysfs_emit(buf, "%s\n",
						  tb_status_names[i].name);
		/* only the table's statuses are stored */
		return sysfs_emit(buf, "%u\n", (__force unsigned int)status);
	case TB_KNOB_LAT:
		return tb_lat_show(f, buf);
	default:
		return sysfs_emit(buf, "%llu\n", *(const u64 *)f);
	}
}

union tb_knob_val {
	u64 u64;
	u32 u32;
	blk_status_t status;
	struct tierblk_lat lat;
};

/* Parse @buf for @k into @v; the size of the field in *@size. */
static int tb_knob_parse(const struct tb_knob *k, const char *buf,
			 union tb_knob_val *v, size_t *size)
{
	char tmp[32];
	u64 ppm;
	int i;

	*size = sizeof(v->u64);
	switch (k->kind) {
	case TB_KNOB_U64:
		return tb_parse_u64(buf, &v->u64) || v->u64 > k->max ?
		       -EINVAL : 0;
	case TB_KNOB_NS:
		return tb_token(buf, tmp, sizeof(tmp)) ||
		       tb_parse_duration(tmp, &v->u64) || v->u64 > k->max ?
		       -EINVAL : 0;
	case TB_KNOB_RATE:
		*size = sizeof(v->u32);
		if (tb_token(buf, tmp, sizeof(tmp)) || tb_parse_rate(tmp, &ppm))
			return -EINVAL;
		v->u32 = ppm;
		return 0;
	case TB_KNOB_LAT:
		*size = sizeof(v->lat);
		return tb_parse_lat(buf, &v->lat);
	case TB_KNOB_BANDWIDTH:
		return tierblk_parse_size(buf, &v->u64) ||
		       (v->u64 && v->u64 < k->max) ? -EINVAL : 0;
	case TB_KNOB_STATUS:
		*size = sizeof(v->status);
		if (tb_token(buf, tmp, sizeof(tmp)))
			return -EINVAL;
		for (i = 0; i < ARRAY_SIZE(tb_status_names); i++) {
			if (!strcasecmp(tmp, tb_status_names[i].name)) {
				v->status = tb_status_names[i].status;
				return 0;
			}
		}
		return -EINVAL;
	}
	return -EINVAL;
}

static ssize_t tb_knob_store(struct device *d, struct device_attribute *a,
			     const char *buf, size_t count)
{
	const struct tb_knob *k = tb_knob(a);
	struct tierblk_dev *dev = tb_dev(d);
	struct tierblk_cfg *cfg;
	union tb_knob_val v;
	size_t size;

	if (tb_knob_parse(k, buf, &v, &size))
		return -EINVAL;
	cfg = tb_cfg_begin(dev);
	if (!cfg)
		return -ENOMEM;
	memcpy((char *)cfg + k->off, &v, size);
	if (k->restart)
		k->restart(dev, k->op);
	tb_cfg_commit(dev, cfg);
	return count;
}

/* a new seed restarts every random sequence */
static void tb_restart_draws(struct tierblk_dev *dev, int unused)
{
	int op;

	for (op = 0; op < TB_NR_OPS; op++)
		atomic64_set(&dev->seq[op], 0);
}

/* every_nth counts from the write of its attribute */
static void tb_restart_nth(struct tierblk_dev *dev, int op)
{
	atomic64_set(&dev->nth[op], 0);
}

/* a new bandwidth starts with the link free */
static void tb_restart_link(struct tierblk_dev *dev, int unused)
{
	atomic64_set(&dev->bw_next, 0);
}

#define TB_KNOB(_name, _kind, _field, _max, _op, _restart)		\
	static struct tb_knob tb_knob_##_name = {			\
		.attr = __ATTR(_name, 0644, tb_knob_show, tb_knob_store), \
		.kind = (_kind),					\
		.off = offsetof(struct tierblk_cfg, _field),		\
		.max = (_max),						\
		.op = (_op),						\
		.restart = (_restart),					\
	}

TB_KNOB(read_latency, TB_KNOB_LAT, lat[TB_OP_READ], 0, TB_OP_READ, NULL);
TB_KNOB(write_latency, TB_KNOB_LAT, lat[TB_OP_WRITE], 0, TB_OP_WRITE, NULL);
TB_KNOB(discard_latency, TB_KNOB_LAT, lat[TB_OP_DISCARD], 0, TB_OP_DISCARD,
	NULL);
TB_KNOB(flush_latency, TB_KNOB_LAT, lat[TB_OP_FLUSH], 0, TB_OP_FLUSH, NULL);
TB_KNOB(error_rate_read, TB_KNOB_RATE, rate_ppm[TB_OP_READ], TB_PPM,
	TB_OP_READ, NULL);
TB_KNOB(error_rate_write, TB_KNOB_RATE, rate_ppm[TB_OP_WRITE], TB_PPM,
	TB_OP_WRITE, NULL);
TB_KNOB(error_rate_discard, TB_KNOB_RATE, rate_ppm[TB_OP_DISCARD], TB_PPM,
	TB_OP_DISCARD, NULL);
TB_KNOB(error_rate_flush, TB_KNOB_RATE, rate_ppm[TB_OP_FLUSH], TB_PPM,
	TB_OP_FLUSH, NULL);
TB_KNOB(every_nth_read, TB_KNOB_U64, every_nth[TB_OP_READ], U64_MAX,
	TB_OP_READ, tb_restart_nth);
TB_KNOB(every_nth_write, TB_KNOB_U64, every_nth[TB_OP_WRITE], U64_MAX,
	TB_OP_WRITE, tb_restart_nth);
TB_KNOB(every_nth_discard, TB_KNOB_U64, every_nth[TB_OP_DISCARD], U64_MAX,
	TB_OP_DISCARD, tb_restart_nth);
TB_KNOB(every_nth_flush, TB_KNOB_U64, every_nth[TB_OP_FLUSH], U64_MAX,
	TB_OP_FLUSH, tb_restart_nth);
TB_KNOB(bandwidth, TB_KNOB_BANDWIDTH, bandwidth, TB_MIN_BANDWIDTH, -1,
	tb_restart_link);
TB_KNOB(seed, TB_KNOB_U64, seed, U64_MAX, -1, tb_restart_draws);
TB_KNOB(spin_threshold_ns, TB_KNOB_NS, spin_ns, TB_MAX_SPIN_NS, -1, NULL);
TB_KNOB(error_status, TB_KNOB_STATUS, status, 0, -1, NULL);

/* ---- bad sector ranges, one-shot, corruption ---- */

static ssize_t badblocks_show(struct device *d, struct device_attribute *a,
			      char *buf)
{
	return tierblk_bad_show(tb_dev(d), buf);
}

/* "read", "write", "rw" or a comma list of read and write */
static int tb_parse_rw_ops(char *s, u32 *ops)
{
	char *w;

	if (!strcmp(s, "rw")) {
		*ops = BIT(TB_OP_READ) | BIT(TB_OP_WRITE);
		return 0;
	}
	*ops = 0;
	while ((w = strsep(&s, ",")) != NULL) {
		if (!strcmp(w, "read"))
			*ops |= BIT(TB_OP_READ);
		else if (!strcmp(w, "write"))
			*ops |= BIT(TB_OP_WRITE);
		else
			return -EINVAL;
	}
	return 0;
}

/* "N", "count=N" (N > 0) or "count=inf" (0: forever) */
static int tb_parse_count(const char *s, u64 *cnt)
{
	if (!strncmp(s, "count=", 6)) {
		s += 6;
		if (!strcmp(s, "inf")) {
			*cnt = 0;
			return 0;
		}
		if (tb_parse_u64(s, cnt) || !*cnt)
			return -EINVAL;
	} else if (tb_parse_u64(s, cnt)) {
		return -EINVAL;
	}
	return *cnt > U32_MAX ? -EINVAL : 0;
}

/*
 * "+RANGE [OPS] [COUNT]" adds, "-RANGE" clears, "clear" clears all.  RANGE
 * as tb_parse_range() reads it, below the capacity; OPS read, write or rw
 * (the default); COUNT as tb_parse_count() reads it.
 */
static ssize_t badblocks_store(struct device *d, struct device_attribute *a,
			       const char *buf, size_t count)
{
	struct tierblk_dev *dev = tb_dev(d);
	u32 ops = BIT(TB_OP_READ) | BIT(TB_OP_WRITE);
	char tmp[96], *tok[TB_MAX_TOKENS];
	sector_t start, end;
	u64 cnt = 0;
	int n, i, ret;
	bool add;

	n = tb_split(buf, tmp, sizeof(tmp), tok, 3);
	if (n <= 0)
		return -EINVAL;
	if (n == 1 && !strcmp(tok[0], "clear")) {
		tierblk_bad_clear(dev);
		return count;
	}
	if (tok[0][0] != '+' && tok[0][0] != '-')
		return -EINVAL;
	add = tok[0][0] == '+';
	if (tb_parse_range(tok[0] + 1, &start, &end) ||
	    end >= get_capacity(dev->disk))
		return -EINVAL;
	if (!add && n > 1)
		return -EINVAL;
	for (i = 1; i < n; i++) {
		if (isdigit(tok[i][0]) || !strncmp(tok[i], "count=", 6)) {
			if (i != n - 1 || tb_parse_count(tok[i], &cnt))
				return -EINVAL;
		} else if (i != 1 || tb_parse_rw_ops(tok[i], &ops) || !ops) {
			return -EINVAL;
		}
	}
	ret = tierblk_bad_update(dev, add, start, end, ops, cnt);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(badblocks);

static ssize_t one_shot_read_sector_show(struct device *d,
					 struct device_attribute *a, char *buf)
{
	s64 s = atomic64_read(&tb_dev(d)->one_shot);

	if (s < 0)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%lld\n", s);
}

static ssize_t one_shot_read_sector_store(struct device *d,
					  struct device_attribute *a,
					  const char *buf, size_t count)
{
	struct tierblk_dev *dev = tb_dev(d);
	char tmp[32];
	const char *p = tmp;
	u64 s;

	if (tb_token(buf, tmp, sizeof(tmp)))
		return -EINVAL;
	if (!strcmp(tmp, "none")) {
		atomic64_set(&dev->one_shot, -1);
		return count;
	}
	if (tb_parse_sectors(&p, false, &s) || *p || s >= get_capacity(dev->disk))
		return -EINVAL;
	atomic64_set(&dev->one_shot, s);
	return count;
}
static DEVICE_ATTR_RW(one_shot_read_sector);

static ssize_t corrupt_show(struct device *d, struct device_attribute *a,
			    char *buf)
{
	struct tierblk_cfg snap;

	tb_cfg_snap(tb_dev(d), &snap);
	if (!snap.corrupt)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%llu-%llu\n",
			  (unsigned long long)snap.corrupt_start,
			  (unsigned long long)snap.corrupt_end);
}

static ssize_t corrupt_store(struct device *d, struct device_attribute *a,
			     const char *buf, size_t count)
{
	struct tierblk_dev *dev = tb_dev(d);
	char tmp[64], *tok[TB_MAX_TOKENS];
	sector_t start = 0, end = 0;
	struct tierblk_cfg *cfg;
	bool on = true;
	int n;

	n = tb_split(buf, tmp, sizeof(tmp), tok, 1);
	if (n != 1)
		return -EINVAL;
	if (!strcmp(tok[0], "none"))
		on = false;
	else if (tb_parse_range(tok[0], &start, &end) ||
		 end >= get_capacity(dev->disk))
		return -EINVAL;
	cfg = tb_cfg_begin(dev);
	if (!cfg)
		return -ENOMEM;
	cfg->corrupt = on;
	cfg->corrupt_start = start;
	cfg->corrupt_end = end;
	tb_cfg_commit(dev, cfg);
	return count;
}
static DEVICE_ATTR_RW(corrupt);

/* ---- statistics ---- */

static void tb_stats_sum(struct tierblk_dev *dev, struct tierblk_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *src = (const u64 *)per_cpu_ptr(dev->stats, cpu);
		u64 *dst = (u64 *)sum;

		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

static const char * const tb_op_names[TB_NR_OPS] = {
	"read", "write", "discard", "flush",
};

static const char * const tb_src_names[TB_NR_SRC] = {
	"badblock", "rate", "every_nth", "one_shot",
};

static ssize_t stats_show(struct device *d, struct device_attribute *a,
			  char *buf)
{
	struct tierblk_dev *dev = tb_dev(d);
	struct tierblk_stats *s;
	ssize_t len = 0;
	int i;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	tb_stats_sum(dev, s);
	len += sysfs_emit_at(buf, len, "reads %llu\nwrites %llu\n",
			     s->ops[TB_OP_READ], s->ops[TB_OP_WRITE]);
	len += sysfs_emit_at(buf, len, "discards %llu\nflushes %llu\n",
			     s->ops[TB_OP_DISCARD], s->ops[TB_OP_FLUSH]);
	len += sysfs_emit_at(buf, len, "read_bytes %llu\nwrite_bytes %llu\n",
			     s->bytes[TB_OP_READ], s->bytes[TB_OP_WRITE]);
	len += sysfs_emit_at(buf, len, "discard_bytes %llu\n",
			     s->bytes[TB_OP_DISCARD]);
	for (i = 0; i < TB_NR_OPS; i++)
		len += sysfs_emit_at(buf, len, "%s_errors %llu\n",
				     tb_op_names[i], s->errors[i]);
	for (i = 0; i < TB_NR_SRC; i++)
		len += sysfs_emit_at(buf, len, "%s_errors %llu\n",
				     tb_src_names[i], s->err_src[i]);
	len += sysfs_emit_at(buf, len, "corrupted_sectors %llu\n", s->corrupted);
	len += sysfs_emit_at(buf, len, "slot_free_notify %llu\n", s->slot_free);
	len += sysfs_emit_at(buf, len, "alloc_failures %llu\n", s->alloc_fail);
	len += sysfs_emit_at(buf, len, "insert_races %llu\n", s->insert_races);
	len += sysfs_emit_at(buf, len, "delayed_ops %llu\ndelay_total_us %llu\n",
			     s->delayed, div_u64(s->delay_ns, NSEC_PER_USEC));
	len += sysfs_emit_at(buf, len, "delay_total_ns %llu\n", s->delay_ns);
	len += sysfs_emit_at(buf, len, "pages %ld\n",
			     atomic_long_read(&dev->nr_pages));
	kfree(s);
	return len;
}
static DEVICE_ATTR_RO(stats);

/* Non-empty buckets: "LOW-HIGH COUNT", ns, HIGH inclusive. */
static ssize_t delay_histogram_show(struct device *d,
				    struct device_attribute *a, char *buf)
{
	struct tierblk_dev *dev = tb_dev(d);
	struct tierblk_stats *s;
	ssize_t len = 0;
	int i;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	tb_stats_sum(dev, s);
	for (i = 0; i < TB_HIST_BUCKETS; i++) {
		if (!s->hist[i])
			continue;
		if (i == TB_HIST_BUCKETS - 1)
			len += sysfs_emit_at(buf, len, "%llu-inf %llu\n",
					     1ULL << i, s->hist[i]);
		else
			len += sysfs_emit_at(buf, len, "%llu-%llu %llu\n",
					     1ULL << i, (2ULL << i) - 1,
					     s->hist[i]);
	}
	kfree(s);
	return len;
}
static DEVICE_ATTR_RO(delay_histogram);

static ssize_t reset_stats_store(struct device *d, struct device_attribute *a,
				 const char *buf, size_t count)
{
	struct tierblk_dev *dev = tb_dev(d);
	int cpu;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(dev->stats, cpu), 0, sizeof(struct tierblk_stats));
	return count;
}
static DEVICE_ATTR_WO(reset_stats);

static const struct attribute_group tierblk_group;

/* The attributes a person can write, comma-separated (null_blk's features). */
static ssize_t features_show(struct device *d, struct device_attribute *a,
			     char *buf)
{
	struct attribute **attr;
	ssize_t len = 0;

	for (attr = tierblk_group.attrs; *attr; attr++)
		if ((*attr)->mode & 0200)
			len += sysfs_emit_at(buf, len, "%s%s", len ? "," : "",
					     (*attr)->name);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}
static DEVICE_ATTR_RO(features);

static struct attribute *tierblk_attrs[] = {
	&dev_attr_disksize.attr,
	&dev_attr_synchronous.attr,
	&dev_attr_completion.attr,
	&tb_knob_read_latency.attr.attr,
	&tb_knob_write_latency.attr.attr,
	&tb_knob_discard_latency.attr.attr,
	&tb_knob_flush_latency.attr.attr,
	&tb_knob_bandwidth.attr.attr,
	&tb_knob_seed.attr.attr,
	&tb_knob_spin_threshold_ns.attr.attr,
	&tb_knob_error_rate_read.attr.attr,
	&tb_knob_error_rate_write.attr.attr,
	&tb_knob_error_rate_discard.attr.attr,
	&tb_knob_error_rate_flush.attr.attr,
	&tb_knob_every_nth_read.attr.attr,
	&tb_knob_every_nth_write.attr.attr,
	&tb_knob_every_nth_discard.attr.attr,
	&tb_knob_every_nth_flush.attr.attr,
	&tb_knob_error_status.attr.attr,
	&dev_attr_badblocks.attr,
	&dev_attr_one_shot_read_sector.attr,
	&dev_attr_corrupt.attr,
	&dev_attr_stats.attr,
	&dev_attr_delay_histogram.attr,
	&dev_attr_reset_stats.attr,
	&dev_attr_features.attr,
	NULL,
};

static const struct attribute_group tierblk_group = {
	.name	= TIERBLK_NAME,
	.attrs	= tierblk_attrs,
};

const struct attribute_group *tierblk_disk_groups[] = {
	&tierblk_group,
	NULL,
};
