/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tierblk: a RAM block device that emulates a fast swap tier which can be
 * slow or faulty.  See docs/tierblk.md for the user interface.
 */
#ifndef TIERBLK_H
#define TIERBLK_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/blkdev.h>
#include <linux/blk_types.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#define TIERBLK_NAME		"tierblk"

/* Operation types, as seen by latency and error injection. */
enum tierblk_op {
	TB_OP_READ,
	TB_OP_WRITE,
	TB_OP_DISCARD,
	TB_OP_FLUSH,
	TB_NR_OPS,
};

/* Where an injected error came from. */
enum tierblk_err_src {
	TB_SRC_BADBLOCK,
	TB_SRC_RATE,
	TB_SRC_EVERY_NTH,
	TB_SRC_ONE_SHOT,
	TB_NR_SRC,
};

/* Latency distributions. */
enum tierblk_dist {
	TB_DIST_FIXED,		/* p1 = ns */
	TB_DIST_UNIFORM,	/* p1 = min ns, p2 = max ns */
	TB_DIST_NORMAL,		/* p1 = mean ns, p2 = standard deviation ns */
	TB_DIST_LOGNORMAL,	/* p1 = mean ns, p2 = standard deviation ns */
};

/* Longest delay one operation can be given (10 s). */
#define TB_MAX_DELAY_NS		(10ULL * NSEC_PER_SEC)
/* Largest lognormal sigma, in 1/1000. */
#define TB_MAX_SIGMA_MILLI	4000
/* Longest busy-wait threshold (1 ms). */
#define TB_MAX_SPIN_NS		NSEC_PER_MSEC
#define TB_DEFAULT_SPIN_NS	(100 * NSEC_PER_USEC)
/* Smallest non-zero bandwidth limit, bytes/s. */
#define TB_MIN_BANDWIDTH	4096ULL
/* Largest device, bytes. */
#define TB_MAX_SIZE		BIT_ULL(42)
/* Most bad sector ranges per device. */
#define TB_MAX_BAD		64
/* log2 buckets of the injected delay histogram. */
#define TB_HIST_BUCKETS		40

#define TB_PPM			1000000U

struct tierblk_lat {
	u32 dist;
	u64 p1;
	u64 p2;
	/* lognormal: median * e^(sigma * Z), derived from p1 and p2 */
	u64 median;
	u32 sigma_q24;
};

/*
 * Run-time knobs read on the I/O path.  A published tierblk_cfg is never
 * modified: a writer copies it, changes the copy and swaps the RCU pointer.
 */
struct tierblk_cfg {
	struct tierblk_lat lat[TB_NR_OPS];
	u32 rate_ppm[TB_NR_OPS];
	u64 every_nth[TB_NR_OPS];
	u64 bandwidth;			/* bytes/s, 0 = unlimited */
	u64 seed;
	u64 spin_ns;			/* delays up to this busy-wait */
	blk_status_t status;		/* status of injected errors */
	bool corrupt;
	sector_t corrupt_start;		/* inclusive */
	sector_t corrupt_end;		/* inclusive */
	/* derived, per op bit: any latency, any random draw, any error knob */
	u32 lat_mask;
	u32 rand_mask;
	u32 err_mask;
	struct rcu_head rcu;
};

/* One bad sector range. */
struct tierblk_bad {
	struct list_head node;
	sector_t start;			/* inclusive */
	sector_t end;			/* inclusive */
	u32 ops;			/* BIT(TB_OP_READ) | BIT(TB_OP_WRITE) */
	u32 count;			/* failures left, 0 = forever */
};

struct tierblk_stats {
	u64 ops[TB_NR_OPS];
	u64 bytes[TB_NR_OPS];
	u64 errors[TB_NR_OPS];
	u64 err_src[TB_NR_SRC];
	u64 corrupted;
	u64 slot_free;
	u64 alloc_fail;
	u64 insert_races;		/* a new page lost to another writer's */
	u64 delayed;
	u64 delay_ns;
	u64 hist[TB_HIST_BUCKETS];
};

struct tierblk_dev {
	int id;
	struct gendisk *disk;
	u64 size;			/* bytes */
	bool synchronous;
	bool inline_completion;		/* synchronous=0 bios done in submit context */
	bool claim;			/* under disk->open_mutex */

	struct xarray pages;
	atomic_long_t nr_pages;

	struct tierblk_cfg __rcu *cfg;
	struct mutex cfg_mutex;		/* serialises knob writers */

	atomic64_t seq[TB_NR_OPS];	/* random draws, reset by seed */
	atomic64_t nth[TB_NR_OPS];	/* every_nth counters */
	atomic64_t one_shot;		/* sector, or -1 */
	atomic64_t bw_next;		/* ns when the bandwidth link is free */

	spinlock_t bad_lock;		/* bad_list, nr_bad, counts */
	struct list_head bad_list;
	unsigned int nr_bad;

	struct tierblk_stats __percpu *stats;

	struct workqueue_struct *wq;
	atomic_t inflight;		/* asynchronous commands in flight */
};

/* What the injection layer decided for one bio. */
struct tierblk_verdict {
	blk_status_t status;
	u64 delay_ns;
	bool corrupt;
	sector_t corrupt_start;
	sector_t corrupt_end;
};

/* tierblk_inject.c */
struct tierblk_cfg *tierblk_cfg_default(void);
void tierblk_cfg_derive(struct tierblk_cfg *cfg);
void tierblk_decide(struct tierblk_dev *dev, enum tierblk_op op, sector_t sector,
		    unsigned int bytes, u64 *now, struct tierblk_verdict *v);
void tierblk_account_delay(struct tierblk_dev *dev, u64 delay_ns);
int tierblk_bad_update(struct tierblk_dev *dev, bool add, sector_t start,
		       sector_t end, u32 ops, u32 count);
void tierblk_bad_clear(struct tierblk_dev *dev);
ssize_t tierblk_bad_show(struct tierblk_dev *dev, char *buf);
int tierblk_lognormal_from_moments(u64 mean, u64 sd, u64 *median,
				   u32 *sigma_q24);
u64 tierblk_sample_lat(const struct tierblk_lat *lat, u64 seed,
		       enum tierblk_op op, u64 n);

/* tierblk_main.c */
int tierblk_claim(struct tierblk_dev *dev);
void tierblk_release_claim(struct tierblk_dev *dev);
int tierblk_set_synchronous(struct tierblk_dev *dev, bool sync);
int tierblk_set_size(struct tierblk_dev *dev, u64 size);

/* tierblk_sysfs.c */
extern const struct attribute_group *tierblk_disk_groups[];
int tierblk_parse_size(const char *buf, u64 *out);

#endif /* TIERBLK_H */
