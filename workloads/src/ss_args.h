/* swapstress command line. */
#ifndef TIERSWAP_SS_ARGS_H
#define TIERSWAP_SS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ss_mode { SS_MODE_STRESS, SS_MODE_SWAPIN_TIMER };
enum ss_mem { SS_MEM_ANON, SS_MEM_SHMEM, SS_MEM_SHARED };
enum ss_access { SS_ACCESS_MMAP, SS_ACCESS_READ };
enum ss_thp { SS_THP_DEFAULT, SS_THP_NEVER, SS_THP_ALWAYS };
enum ss_pattern { SS_PAT_SEQ, SS_PAT_RANDOM, SS_PAT_ZIPF, SS_PAT_STRIDE };
enum ss_pageout { SS_PAGEOUT_NONE, SS_PAGEOUT_MADVISE, SS_PAGEOUT_MEMCG };
enum ss_fill { SS_FILL_PATTERN, SS_FILL_SPARSE };

struct ss_config {
	enum ss_mode mode;
	uint64_t size;          /* total bytes over all workers */
	enum ss_mem mem;
	unsigned procs;
	unsigned threads;       /* per process */
	enum ss_access access;
	enum ss_thp thp;
	enum ss_pattern pattern;
	double zipf_s;
	unsigned stride;        /* --pattern stride: one page in this many */
	unsigned passes;
	unsigned write_pct;
	unsigned zero_pct;      /* share of pages that hold zeroes */
	enum ss_fill fill;      /* the whole pattern, or its first words only */
	enum ss_pageout pageout;
	uint64_t memcg_max;     /* 0: default size/2 */
	int64_t memcg_swap_max; /* -1: leave alone */
	const char *memcg_name; /* NULL: swapstress-<pid> */
	const char *cgroup_root;
	const char *pagemap_file;
	bool stop_after_pageout;
	bool expect_sigbus;
	bool lock_self;
	bool folio_stats;
	bool fault_times;       /* swapin-timer: time the read-back per group */
	unsigned fault_group;   /* pages per timed group (--fault-group) */
	uint64_t seed;
	bool json;
	unsigned max_reports;
	int64_t inject_corrupt;  /* page index or -1 */
	int64_t inject_truncate; /* page index or -1 */
};

void ss_config_defaults(struct ss_config *c);

/*
 * Parse argv (argv[0] is skipped). Returns 0 when the run should go on,
 * 1 when --help was asked for, -1 on a bad argument with a one-line
 * message in err.
 */
int ss_parse_args(int argc, char **argv, struct ss_config *c, char *err, size_t errlen);

extern const char ss_usage[];

#endif
