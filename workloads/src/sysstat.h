/* Snapshots of /proc/vmstat, mTHP stats and memcg files; memcg lifecycle. */
#ifndef TIERSWAP_SYSSTAT_H
#define TIERSWAP_SYSSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/vmstat counters whose deltas the workloads report. */
#define TS_VMSTAT_KEYS \
	X(pswpin) X(pswpout) X(pgmajfault) X(swpin_zero) X(swpout_zero) \
	X(thp_swpout) X(thp_swpout_fallback) X(swap_ra) X(swap_ra_hit) \
	X(zswpin) X(zswpout) X(pgsteal_kswapd) X(pgsteal_direct) X(oom_kill)

enum ts_vmstat_key {
#define X(k) TS_VM_##k,
	TS_VMSTAT_KEYS
#undef X
	TS_VM_NR
};

extern const char *const ts_vmstat_names[TS_VM_NR];

#define TS_MTHP_MAX_SIZES 16
#define TS_MTHP_NSTATS 4
extern const char *const ts_mthp_stat_names[TS_MTHP_NSTATS];

struct ts_vmstat {
	uint64_t v[TS_VM_NR];
	bool have[TS_VM_NR];
	/* per mTHP size (kB) counters from
	 * /sys/kernel/mm/transparent_hugepage/hugepages-<kB>kB/stats/ */
	unsigned nr_mthp;
	unsigned mthp_kb[TS_MTHP_MAX_SIZES];
	uint64_t mthp[TS_MTHP_MAX_SIZES][TS_MTHP_NSTATS];
	bool mthp_have[TS_MTHP_MAX_SIZES][TS_MTHP_NSTATS];
};

/* Parse vmstat-format text into s (used by ts_vmstat_read; testable). */
void ts_vmstat_parse(struct ts_vmstat *s, const char *text);
/* Snapshot /proc/vmstat and mTHP stats. Returns 0, or -errno if /proc/vmstat unreadable. */
int ts_vmstat_read(struct ts_vmstat *s);
/* Delta for a key (0 if missing in either). */
uint64_t ts_vmstat_delta(const struct ts_vmstat *a, const struct ts_vmstat *b, enum ts_vmstat_key k);

struct ts_memcg {
	char path[512];  /* /sys/fs/cgroup/<name> */
	char orig[512];  /* our original cgroup directory */
	bool created;
	bool entered;
};

/*
 * Create <root>/<name>, set memory.max (and memory.swap.max when
 * swap_max >= 0), memory.oom.group=0. On failure fills err and returns
 * -errno (the group is removed again).
 */
int ts_memcg_create(struct ts_memcg *cg, const char *root, const char *name,
		    uint64_t max, int64_t swap_max, char *err, size_t errlen);
/* Move the calling process into the group. */
int ts_memcg_enter(struct ts_memcg *cg, char *err, size_t errlen);
/* Read one "key value" from memory.stat of the group. */
int ts_memcg_stat(const struct ts_memcg *cg, const char *key, uint64_t *val);
/* Read a single-number file of the group (e.g. "memory.peak"). */
int ts_memcg_read_u64(const struct ts_memcg *cg, const char *file, uint64_t *val);
/* Move back to the original cgroup and remove the group. */
int ts_memcg_destroy(struct ts_memcg *cg, char *err, size_t errlen);

/* /proc/<pid>/pagemap entries */
#define TS_PM_PRESENT (1ull << 63)
#define TS_PM_SWAP (1ull << 62)
#define TS_PM_SWAP_TYPE(e) ((unsigned)((e) & 0x1f))
#define TS_PM_SWAP_OFFSET(e) (((e) & ((1ull << 55) - 1)) >> 5)

/* Read n pagemap entries for [vaddr, vaddr + n pages) of pid (0 = self). */
int ts_pagemap_read(pid_t pid, uintptr_t vaddr, size_t n, uint64_t *out);
/*
 * Format one pagemap line "<index> <type> <offset>\n" (or "<index> - -\n"
 * when the entry is not a swap entry) into buf; returns its length.
 */
int ts_pagemap_format(char *buf, size_t len, uint64_t index, uint64_t entry);

#endif
