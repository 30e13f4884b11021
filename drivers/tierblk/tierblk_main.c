// SPDX-License-Identifier: GPL-2.0-only
/*
 * tierblk: a RAM block device that emulates a fast swap tier which can be
 * slow or faulty, or (synchronous=0) an ordinary asynchronous disk.
 *
 * Backing pages are allocated on first write and freed on discard and on
 * swap slot free.  The xarray holds a reference on each; a copy takes its
 * own (looked up under RCU, the page cache's speculative protocol) and
 * copies without RCU held, so a discard racing with I/O frees the page only
 * when the copy puts it, and a drop frees at once otherwise.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "tierblk.h"

static int tierblk_major;
static DEFINE_IDR(tierblk_idr);
static DEFINE_MUTEX(tierblk_idr_mutex);
static struct kmem_cache *tierblk_cmd_cache;
static mempool_t *tierblk_cmd_pool;

static unsigned int nr_devices = 1;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "Number of devices created at load (default 1)");

static u64 default_size = 1ULL << 30;

static int tierblk_size_param_set(const char *val, const struct kernel_param *kp)
{
	u64 size;
	int ret = tierblk_parse_size(val, &size);

	if (ret)
		return ret;
	if (!size || size > TB_MAX_SIZE || !IS_ALIGNED(size, PAGE_SIZE))
		return -EINVAL;
	*(u64 *)kp->arg = size;
	return 0;
}

static int tierblk_size_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops tierblk_size_ops = {
	.set = tierblk_size_param_set,
	.get = tierblk_size_param_get,
};

module_param_cb(size, &tierblk_size_ops, &default_size, 0444);
MODULE_PARM_DESC(size, "Size of each device, K/M/G/T suffixes (default 1G)");

/* An I/O in asynchronous mode. */
struct tierblk_cmd {
	struct tierblk_dev *dev;
	struct bio *bio;
	struct work_struct work;
	struct hrtimer timer;
	struct tierblk_verdict v;
	enum tierblk_op op;
	u64 deadline;
};

/* ---- backing store ---- */

/*
 * The backing page of @idx with a reference held, or NULL.  A page being
 * dropped either is got before the xarray's reference goes (and freed when
 * the caller puts it) or fails get_page_unless_zero() or the reload and the
 * lookup starts again.
 */
static struct page *tierblk_lookup_page(struct tierblk_dev *dev, pgoff_t idx)
{
	XA_STATE(xas, &dev->pages, idx);
	struct page *page;

	rcu_read_lock();
repeat:
	xas_reset(&xas);
	page = xas_load(&xas);
	if (xas_retry(&xas, page))
		goto repeat;
	if (!page)
		goto out;
	if (!get_page_unless_zero(page))
		goto repeat;
	if (unlikely(page != xas_reload(&xas))) {
		put_page(page);
		goto repeat;
	}
	/*
	 * The page may have been freed and inserted again since the first
	 * load: read its contents only after the reload that saw the insert
	 * (which published them), as folio_test_uptodate() does.
	 */
	smp_rmb();
out:
	rcu_read_unlock();
	return page;
}

/*
 * The backing page of @idx for a write, with a reference held: the one
 * there, or a new one.  With @src (a whole page to write) a new page is
 * filled before it is inserted, so it needs no zeroing and no reader sees
 * it half written; *@filled then says @src is in.  Without, a new page is
 * zeroed: a racing reader sees zeroes, never stale memory.
 */
static struct page *tierblk_write_page(struct tierblk_dev *dev, pgoff_t idx,
				       const void *src, bool *filled)
{
	gfp_t gfp = GFP_NOIO | __GFP_NOWARN;
	struct page *page;
	int ret;

	*filled = false;
	for (;;) {
		page = tierblk_lookup_page(dev, idx);
		if (page)
			return page;
		page = alloc_page(src ? gfp : gfp | __GFP_ZERO);
		if (!page) {
			this_cpu_inc(dev->stats->alloc_fail);
			return ERR_PTR(-ENOMEM);
		}
		if (src)
			memcpy_to_page(page, 0, src, PAGE_SIZE);
		/* the caller's reference, taken before a drop can put the xarray's */
		get_page(page);
		xa_lock_irq(&dev->pages);
		ret = __xa_insert(&dev->pages, idx, page, gfp);
		if (!ret)
			atomic_long_inc(&dev->nr_pages);
		xa_unlock_irq(&dev->pages);
		if (!ret) {
			*filled = !!src;
			return page;
		}
		/* not inserted: both references go, and the page */
		put_page(page);
		put_page(page);
		if (ret != -EBUSY) {
			this_cpu_inc(dev->stats->alloc_fail);
			return ERR_PTR(ret);
		}
		/* another writer inserted one first: write into theirs */
		this_cpu_inc(dev->stats->insert_races);
	}
}

/* Drop the backing page of @idx; callable under a spinlock. */
static void tierblk_drop_page(struct tierblk_dev *dev, pgoff_t idx)
{
	struct page *page;
	unsigned long flags;

	xa_lock_irqsave(&dev->pages, flags);
	page = __xa_erase(&dev->pages, idx);
	if (page)
		atomic_long_dec(&dev->nr_pages);
	xa_unlock_irqrestore(&dev->pages, flags);
	if (page)
		put_page(page);
}

/* Free every backing page from @from on; the device must be idle. */
static void tierblk_free_pages(struct tierblk_dev *dev, pgoff_t from)
{
	struct page *page;
	unsigned long idx;

	xa_for_each_start(&dev->pages, idx, page, from) {
		tierblk_drop_page(dev, idx);
		cond_resched();
	}
}

static void tierblk_flip_bits(void *buf, sector_t sector, unsigned int len,
			      const struct tierblk_verdict *v,
			      struct tierblk_dev *dev)
{
	unsigned int off;

	for (off = 0; off < len; off += SECTOR_SIZE, sector++) {
		if (sector < v->corrupt_start || sector > v->corrupt_end)
			continue;
		((u8 *)buf)[off] ^= 1;
		this_cpu_inc(dev->stats->corrupted);
	}
}

/*
 * Copy one bio segment (at most a page, possibly straddling two backing
 * pages) to or from the store.
 */
static int tierblk_do_seg(struct tierblk_dev *dev, struct bio_vec *bv,
			  sector_t sector, bool write,
			  const struct tierblk_verdict *v)
{
	unsigned int done = 0;

	while (done < bv->bv_len) {
		pgoff_t idx = sector >> PAGE_SECTORS_SHIFT;
		unsigned int poff = (sector & (PAGE_SECTORS - 1)) << SECTOR_SHIFT;
		unsigned int n = min(bv->bv_len - done, (unsigned int)PAGE_SIZE - poff);
		bool filled = false;
		struct page *page;
		void *mem, *buf, *store;

		mem = kmap_local_page(bv->bv_page);
		buf = mem + bv->bv_offset + done;
		if (write) {
			page = tierblk_write_page(dev, idx,
						  n == PAGE_SIZE ? buf : NULL,
						  &filled);
			if (IS_ERR(page)) {
				kunmap_local(mem);
				return PTR_ERR(page);
			}
		} else {
			page = tierblk_lookup_page(dev, idx);
		}
		if (page && !filled) {
			store = kmap_local_page(page);
			if (write)
				memcpy(store + poff, buf, n);
			else
				memcpy(buf, store + poff, n);
			kunmap_local(store);
		} else if (!page) {
			memset(buf, 0, n);
		}
		if (page)
			put_page(page);
		if (!write && v->corrupt)
			tierblk_flip_bits(buf, sector, n, v, dev);
		kunmap_local(mem);
		done += n;
		sector += n >> SECTOR_SHIFT;
	}
	if (!write)
		flush_dcache_page(bv->bv_page);
	return 0;
}

static void tierblk_do_discard(struct tierblk_dev *dev, sector_t sector,
			       unsigned int bytes)
{
	pgoff_t first = round_up(sector, PAGE_SECTORS) >> PAGE_SECTORS_SHIFT;
	pgoff_t end = round_down(sector + (bytes >> SECTOR_SHIFT),
				 PAGE_SECTORS) >> PAGE_SECTORS_SHIFT;
	struct page *page;
	unsigned long idx;

	if (first >= end)
		return;
	xa_for_each_range(&dev->pages, idx, page, first, end - 1) {
		tierblk_drop_page(dev, idx);
		cond_resched();
	}
}

/* Move the data of @bio; returns the status to complete it with. */
static blk_status_t tierblk_transfer(struct tierblk_dev *dev, struct bio *bio,
				     enum tierblk_op op,
				     const struct tierblk_verdict *v)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	sector_t sector = bio->bi_iter.bi_sector;

	if (v->status != BLK_STS_OK)
		return v->status;
	switch (op) {
	case TB_OP_DISCARD:
		tierblk_do_discard(dev, sector, bio->bi_iter.bi_size);
		return BLK_STS_OK;
	case TB_OP_FLUSH:
		return BLK_STS_OK;
	default:
		break;
	}
	bio_for_each_segment(bv, bio, iter) {
		int ret = tierblk_do_seg(dev, &bv, sector, op == TB_OP_WRITE, v);

		if (ret)
			return errno_to_blk_status(ret);
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

/* ---- delays ---- */

/* Wait until @deadline (ktime ns): busy-wait the last @spin_ns, sleep before. */
static void tierblk_wait_until(u64 deadline, u64 spin_ns)
{
	u64 now = ktime_get_ns();

	while (now + spin_ns < deadline) {
		ktime_t t = ns_to_ktime(deadline - spin_ns);

		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout_range(&t, 0, HRTIMER_MODE_ABS);
		now = ktime_get_ns();
	}
	while (now < deadline) {
		cpu_relax();
		now = ktime_get_ns();
	}
}

static u64 tierblk_spin_ns(struct tierblk_dev *dev)
{
	u64 spin;

	rcu_read_lock();
	spin = rcu_dereference(dev->cfg)->spin_ns;
	rcu_read_unlock();
	return spin;
}

/* ---- asynchronous mode ---- */

static void tierblk_cmd_end(struct tierblk_cmd *cmd)
{
	struct tierblk_dev *dev = cmd->dev;

	bio_endio(cmd->bio);
	mempool_free(cmd, tierblk_cmd_pool);
	if (atomic_dec_and_test(&dev->inflight))
		wake_up_var(&dev->inflight);
}

static enum hrtimer_restart tierblk_timer_fn(struct hrtimer *timer)
{
	tierblk_cmd_end(container_of(timer, struct tierblk_cmd, timer));
	return HRTIMER_NORESTART;
}

static void tierblk_work_fn(struct work_struct *work)
{
	struct tierblk_cmd *cmd = container_of(work, struct tierblk_cmd, work);

	cmd->bio->bi_status = tierblk_transfer(cmd->dev, cmd->bio, cmd->op, &cmd->v);
	if (ktime_get_ns() >= cmd->deadline) {
		tierblk_cmd_end(cmd);
		return;
	}
	hrtimer_init(&cmd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	cmd->timer.function = tierblk_timer_fn;
	hrtimer_start(&cmd->timer, ns_to_ktime(cmd->deadline), HRTIMER_MODE_ABS);
}

static void tierblk_queue_async(struct tierblk_dev *dev, struct bio *bio,
				enum tierblk_op op, u64 deadline,
				const struct tierblk_verdict *v)
{
	struct tierblk_cmd *cmd = mempool_alloc(tierblk_cmd_pool, GFP_NOIO);

	cmd->dev = dev;
	cmd->bio = bio;
	cmd->op = op;
	cmd->v = *v;
	cmd->deadline = deadline;
	atomic_inc(&dev->inflight);
	INIT_WORK(&cmd->work, tierblk_work_fn);
	queue_work(dev->wq, &cmd->work);
}

static void tierblk_drain(struct tierblk_dev *dev)
{
	wait_var_event(&dev->inflight, !atomic_read(&dev->inflight));
}

/* ---- submission ---- */

static void tierblk_submit_bio(struct bio *bio)
{
	struct tierblk_dev *dev = bio->bi_bdev->bd_disk->private_data;
	unsigned int bytes = bio->bi_iter.bi_size;
	struct tierblk_verdict v;
	enum tierblk_op op;
	u64 now = 0;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
		op = TB_OP_READ;
		break;
	case REQ_OP_WRITE:
		op = bytes ? TB_OP_WRITE : TB_OP_FLUSH;
		break;
	case REQ_OP_DISCARD:
		op = TB_OP_DISCARD;
		break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}

	this_cpu_inc(dev->stats->ops[op]);
	this_cpu_add(dev->stats->bytes[op], bytes);

	tierblk_decide(dev, op, bio->bi_iter.bi_sector, bytes, &now, &v);
	if (op == TB_OP_WRITE && (bio->bi_opf & REQ_PREFLUSH)) {
		/* a flush that carries data: flush first, then the write */
		struct tierblk_verdict fv;

		this_cpu_inc(dev->stats->ops[TB_OP_FLUSH]);
		tierblk_decide(dev, TB_OP_FLUSH, 0, 0, &now, &fv);
		v.delay_ns = min(v.delay_ns + fv.delay_ns, TB_MAX_DELAY_NS);
		if (fv.status != BLK_STS_OK)
			v.status = fv.status;
	}
	tierblk_account_delay(dev, v.delay_ns);

	if (!READ_ONCE(dev->synchronous) && !READ_ONCE(dev->inline_completion)) {
		tierblk_queue_async(dev, bio, op, now + v.delay_ns, &v);
		return;
	}

	bio->bi_status = tierblk_transfer(dev, bio, op, &v);
	if (v.delay_ns)
		tierblk_wait_until(now + v.delay_ns, tierblk_spin_ns(dev));
	bio_endio(bio);
}

static void tierblk_swap_slot_free_notify(struct block_device *bdev,
					  unsigned long offset)
{
	struct tierblk_dev *dev = bdev->bd_disk->private_data;

	/* called under a spinlock: no sleeping, no delay */
	this_cpu_inc(dev->stats->slot_free);
	tierblk_drop_page(dev, offset);
}

static int tierblk_open(struct gendisk *disk, blk_mode_t mode)
{
	struct tierblk_dev *dev = disk->private_data;

	lockdep_assert_held(&disk->open_mutex);
	return dev->claim ? -EBUSY : 0;
}

static const struct block_device_operations tierblk_fops = {
	.owner			= THIS_MODULE,
	.open			= tierblk_open,
	.submit_bio		= tierblk_submit_bio,
	.swap_slot_free_notify	= tierblk_swap_slot_free_notify,
};

/* ---- reconfiguration of an unused device ---- */

/*
 * Claim @dev for a change that needs it unused: fails with -EBUSY while it is
 * open (mounted, swapped on, held by a program) or already claimed; while
 * claimed, opens fail with -EBUSY.
 */
int tierblk_claim(struct tierblk_dev *dev)
{
	struct gendisk *disk = dev->disk;
	int ret = 0;

	mutex_lock(&disk->open_mutex);
	if (disk_openers(disk) || dev->claim)
		ret = -EBUSY;
	else
		dev->claim = true;
	mutex_unlock(&disk->open_mutex);
	if (!ret)
		tierblk_drain(dev);
	return ret;
}

void tierblk_release_claim(struct tierblk_dev *dev)
{
	mutex_lock(&dev->disk->open_mutex);
	dev->claim = false;
	mutex_unlock(&dev->disk->open_mutex);
}

int tierblk_set_synchronous(struct tierblk_dev *dev, bool sync)
{
	struct request_queue *q = dev->disk->queue;
	struct queue_limits lim;
	int ret = tierblk_claim(dev);

	if (ret)
		return ret;
	lim = queue_limits_start_update(q);
	if (sync)
		lim.features |= BLK_FEAT_SYNCHRONOUS;
	else
		lim.features &= ~BLK_FEAT_SYNCHRONOUS;
	ret = queue_limits_commit_update_frozen(q, &lim);
	if (!ret)
		WRITE_ONCE(dev->synchronous, sync);
	tierblk_release_claim(dev);
	return ret;
}

int tierblk_set_size(struct tierblk_dev *dev, u64 size)
{
	int ret = tierblk_claim(dev);

	if (ret)
		return ret;
	if (size < dev->size)
		tierblk_free_pages(dev, size >> PAGE_SHIFT);
	dev->size = size;
	set_capacity_and_notify(dev->disk, size >> SECTOR_SHIFT);
	tierblk_release_claim(dev);
	return 0;
}

/* ---- devices ---- */

static int tierblk_add(void)
{
	struct queue_limits lim = {
		.physical_block_size	= PAGE_SIZE,
		.max_hw_discard_sectors	= UINT_MAX,
		.max_discard_segments	= 1,
		.discard_granularity	= PAGE_SIZE,
		.features		= BLK_FEAT_SYNCHRONOUS |
					  BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA,
	};
	struct tierblk_dev *dev;
	struct tierblk_cfg *cfg;
	struct gendisk *disk;
	int ret, id, op;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	cfg = tierblk_cfg_default();
	if (!cfg) {
		ret = -ENOMEM;
		goto out_free_dev;
	}
	RCU_INIT_POINTER(dev->cfg, cfg);
	dev->stats = alloc_percpu(struct tierblk_stats);
	if (!dev->stats) {
		ret = -ENOMEM;
		goto out_free_cfg;
	}
	ret = idr_alloc(&tierblk_idr, dev, 0, 0, GFP_KERNEL);
	if (ret < 0)
		goto out_free_stats;
	id = ret;
	dev->id = id;
	dev->size = default_size;
	dev->synchronous = true;
	xa_init_flags(&dev->pages, XA_FLAGS_LOCK_IRQ);
	atomic_long_set(&dev->nr_pages, 0);
	mutex_init(&dev->cfg_mutex);
	for (op = 0; op < TB_NR_OPS; op++) {
		atomic64_set(&dev->seq[op], 0);
		atomic64_set(&dev->nth[op], 0);
	}
	atomic64_set(&dev->one_shot, -1);
	atomic64_set(&dev->bw_next, 0);
	spin_lock_init(&dev->bad_lock);
	INIT_LIST_HEAD(&dev->bad_list);
	atomic_set(&dev->inflight, 0);

	dev->wq = alloc_workqueue("tierblk%d", WQ_MEM_RECLAIM | WQ_UNBOUND |
				  WQ_HIGHPRI, 0, id);
	if (!dev->wq) {
		ret = -ENOMEM;
		goto out_free_idr;
	}

	disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_free_wq;
	}
	dev->disk = disk;
	disk->major = tierblk_major;
	disk->first_minor = id;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &tierblk_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, DISK_NAME_LEN, TIERBLK_NAME "%d", id);
	set_capacity(disk, dev->size >> SECTOR_SHIFT);

	ret = device_add_disk(NULL, disk, tierblk_disk_groups);
	if (ret)
		goto out_put_disk;
	return id;

out_put_disk:
	put_disk(disk);
out_free_wq:
	destroy_workqueue(dev->wq);
out_free_idr:
	idr_remove(&tierblk_idr, id);
out_free_stats:
	free_percpu(dev->stats);
out_free_cfg:
	kfree(cfg);
out_free_dev:
	kfree(dev);
	return ret;
}

/* Called with tierblk_idr_mutex held. */
static int tierblk_remove(struct tierblk_dev *dev)
{
	int ret = tierblk_claim(dev);

	if (ret)
		return ret;
	del_gendisk(dev->disk);
	tierblk_drain(dev);
	put_disk(dev->disk);
	destroy_workqueue(dev->wq);
	tierblk_free_pages(dev, 0);
	xa_destroy(&dev->pages);
	tierblk_bad_clear(dev);
	kfree(rcu_dereference_protected(dev->cfg, true));
	free_percpu(dev->stats);
	idr_remove(&tierblk_idr, dev->id);
	kfree(dev);
	return 0;
}

/* ---- control class ---- */

/* Reading hot_add creates a device and returns its index. */
static ssize_t hot_add_show(const struct class *class,
			    const struct class_attribute *attr, char *buf)
{
	int ret;

	mutex_lock(&tierblk_idr_mutex);
	ret = tierblk_add();
	mutex_unlock(&tierblk_idr_mutex);
	if (ret < 0)
		return ret;
	return sysfs_emit(buf, "%d\n", ret);
}

static struct class_attribute class_attr_hot_add =
	__ATTR(hot_add, 0400, hot_add_show, NULL);

static ssize_t hot_remove_store(const struct class *class,
				const struct class_attribute *attr,
				const char *buf, size_t count)
{
	struct tierblk_dev *dev;
	int ret, id;

	ret = kstrtoint(buf, 10, &id);
	if (ret || id < 0)
		return -EINVAL;
	mutex_lock(&tierblk_idr_mutex);
	dev = idr_find(&tierblk_idr, id);
	ret = dev ? tierblk_remove(dev) : -ENODEV;
	mutex_unlock(&tierblk_idr_mutex);
	return ret ? ret : count;
}
static CLASS_ATTR_WO(hot_remove);

static struct attribute *tierblk_control_class_attrs[] = {
	&class_attr_hot_add.attr,
	&class_attr_hot_remove.attr,
	NULL,
};
ATTRIBUTE_GROUPS(tierblk_control_class);

static struct class tierblk_control_class = {
	.name		= "tierblk-control",
	.class_groups	= tierblk_control_class_groups,
};

/* ---- module ---- */

static int tierblk_remove_cb(int id, void *ptr, void *data)
{
	WARN_ON_ONCE(tierblk_remove(ptr));
	return 0;
}

static void tierblk_destroy_all(void)
{
	mutex_lock(&tierblk_idr_mutex);
	idr_for_each(&tierblk_idr, tierblk_remove_cb, NULL);
	idr_destroy(&tierblk_idr);
	mutex_unlock(&tierblk_idr_mutex);
}

static void tierblk_free_globals(void)
{
	mempool_destroy(tierblk_cmd_pool);
	kmem_cache_destroy(tierblk_cmd_cache);
}

static int __init tierblk_init(void)
{
	unsigned int i;
	int ret;

	if (nr_devices > 1024)
		return -EINVAL;
	tierblk_cmd_cache = KMEM_CACHE(tierblk_cmd, 0);
	if (!tierblk_cmd_cache)
		return -ENOMEM;
	tierblk_cmd_pool = mempool_create_slab_pool(64, tierblk_cmd_cache);
	if (!tierblk_cmd_pool) {
		ret = -ENOMEM;
		goto out_globals;
	}
	ret = class_register(&tierblk_control_class);
	if (ret)
		goto out_globals;
	ret = register_blkdev(0, TIERBLK_NAME);
	if (ret < 0)
		goto out_class;
	tierblk_major = ret;

	mutex_lock(&tierblk_idr_mutex);
	for (i = 0; i < nr_devices; i++) {
		ret = tierblk_add();
		if (ret < 0)
			break;
	}
	mutex_unlock(&tierblk_idr_mutex);
	if (ret < 0)
		goto out_devices;
	pr_info("%u device(s) of %llu bytes\n", nr_devices, default_size);
	return 0;

out_devices:
	tierblk_destroy_all();
	unregister_blkdev(tierblk_major, TIERBLK_NAME);
out_class:
	class_unregister(&tierblk_control_class);
out_globals:
	tierblk_free_globals();
	return ret;
}

static void __exit tierblk_exit(void)
{
	class_unregister(&tierblk_control_class);
	tierblk_destroy_all();
	unregister_blkdev(tierblk_major, TIERBLK_NAME);
	tierblk_free_globals();
}

module_init(tierblk_init);
module_exit(tierblk_exit);

MODULE_DESCRIPTION("RAM block device emulating a slow or faulty swap tier");
MODULE_LICENSE("GPL");
