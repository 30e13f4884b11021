#include "ss_args.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

const char ss_usage[] =
"usage: swapstress [options]\n"
"Allocate memory, fill it with a per-page pattern, push it to swap and\n"
"verify every page read back. Results are key=value lines (or --json).\n"
"\n"
"  --mode stress|swapin-timer  what to run (default stress)\n"
"  --size SIZE               total bytes over all workers (default 64M; k/M/G)\n"
"  --mem anon|shmem|shared   anonymous private mmap, a memfd per process, or a shared\n"
"                            anonymous mmap (shmem; the one that takes mTHP in 6.12)\n"
"                            (default anon)\n"
"  --procs P                 worker processes (default 1)\n"
"  --threads T               threads per process (default 1)\n"
"  --access mmap|read        shmem access through a mapping or pread/pwrite (default mmap)\n"
"  --thp never|always|default  MADV_NOHUGEPAGE / MADV_HUGEPAGE / no advice (default)\n"
"  --pattern seq|random|zipf|stride  access pattern of each pass (default seq); stride:\n"
"                            the first page of every --stride pages, in order (sparse use of\n"
"                            large folios)\n"
"  --zipf-s S                Zipf exponent for --pattern zipf (default 1.0)\n"
"  --stride N                pages per touched page for --pattern stride, 2..4096 (default 16)\n"
"  --passes N                access passes after pageout (default 1)\n"
"  --write-pct PCT           share of accesses that rewrite the page, next generation (default 25)\n"
"  --zero-pct PCT            share of pages (chosen by the seed) that hold zeroes, written and\n"
"                            verified as zeroes in every generation (default 0)\n"
"  --fill pattern|sparse     the whole pattern in every page, or its first 8 words and zeroes\n"
"                            (compresses to a few dozen bytes: zswap, zram) (default pattern)\n"
"  --pageout none|madvise|memcg  MADV_PAGEOUT after filling, or run in a memcg (default madvise)\n"
"  --memcg-max SIZE          memory.max of the memcg (default size/2)\n"
"  --memcg-swap-max SIZE|max memory.swap.max of the memcg (default: not set)\n"
"  --memcg-name NAME         memcg directory name (default swapstress-<pid>)\n"
"  --cgroup-root DIR         cgroup v2 mount (default /sys/fs/cgroup)\n"
"  --pagemap FILE            after pageout write \"<page> <swap_type> <swap_offset>\" per page\n"
"                            (\"<page> - -\" when the page is not a swap entry)\n"
"  --stop-after-pageout      raise(SIGSTOP) after pageout (and pagemap); continue with kill -CONT\n"
"  --expect-sigbus           record SIGBUS / EIO pages and keep going (error injection)\n"
"  --lock-self               mlock each process's own memory (stacks, heap, code) as it is\n"
"                            touched, not the memory under test: a swap tier that dies\n"
"                            takes only the tested pages with it\n"
"  --seed S                  pattern and access-order seed (default 1)\n"
"  --max-reports N           per-page report lines per worker (default 16)\n"
"  --json                    one JSON object instead of key=value lines\n"
"  --fault-times             --mode swapin-timer: time the read-back per group of pages too\n"
"                            (swapin_p50_ns, p99, p999, max, and swapin_cdf_ns: quantile:ns\n"
"                            pairs for a distribution plot); two clock reads a group\n"
"  --fault-group N           pages per timed group, 1..512 (default 1; a large folio's pages\n"
"                            make each group one fault and its touches)\n"
"  --folio-stats             after the last pass, count mapped pages by folio order\n"
"                            (pagemap + kpageflags; root): folio_pages=order:pages,...;\n"
"                            with --access read, shmem_huge_kb from /proc/meminfo\n"
"  --inject-corrupt PAGE     self-test: flip a byte of PAGE after pageout (must be reported)\n"
"  --inject-truncate PAGE    self-test (shmem): truncate the memfd at PAGE after pageout\n"
"  -h, --help                this text\n"
"Exit: 0 no corruption, 1 corruption (or SIGBUS/EIO without --expect-sigbus),\n"
"      2 bad arguments, 3 setup failure.\n";

void ss_config_defaults(struct ss_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = SS_MODE_STRESS;
	c->size = 64ull << 20;
	c->mem = SS_MEM_ANON;
	c->procs = 1;
	c->threads = 1;
	c->access = SS_ACCESS_MMAP;
	c->thp = SS_THP_DEFAULT;
	c->pattern = SS_PAT_SEQ;
	c->zipf_s = 1.0;
	c->stride = 16;
	c->fault_group = 1;
	c->passes = 1;
	c->write_pct = 25;
	c->pageout = SS_PAGEOUT_MADVISE;
	c->memcg_swap_max = -1;
	c->cgroup_root = "/sys/fs/cgroup";
	c->seed = 1;
	c->max_reports = 16;
	c->inject_corrupt = -1;
	c->inject_truncate = -1;
}

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	return -1;
}

#define NAMES(...) ((const char *const[]){ __VA_ARGS__ })
#define NNAMES(...) ((int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)))
#define CHOICE(var, type, ...)                                                   \
	do {                                                                     \
		int i_ = pick(val, NAMES(__VA_ARGS__), NNAMES(__VA_ARGS__));     \
		if (i_ < 0)                                                      \
			goto bad_value;                                          \
		var = (type)i_;                                                  \
	} while (0)

int ss_parse_args(int argc, char **argv, struct ss_config *c, char *err, size_t errlen)
{
	bool memcg_max_set = false, memcg_opt_set = false, stride_set = false;
	bool group_set = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char name[64];
		uint64_t u;

		if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
			return 1;
		if (strncmp(arg, "--", 2) != 0) {
			snprintf(err, errlen, "unexpected argument '%s'", arg);
			return -1;
		}
		eq = strchr(arg, '=');
		if (eq) {
			size_t n = (size_t)(eq - arg);
			if (n >= sizeof(name))
				n = sizeof(name) - 1;
			memcpy(name, arg, n);
			name[n] = '\0';
			val = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", arg);
		}

		/* flags */
		static const char *const flags[] = {
			"--stop-after-pageout", "--expect-sigbus", "--json", "--folio-stats",
			"--lock-self", "--fault-times",
		};
		int f = pick(name, flags, 6);
		if (f >= 0) {
			if (val) {
				snprintf(err, errlen, "option %s takes no value", name);
				return -1;
			}
			if (f == 0)
				c->stop_after_pageout = true;
			else if (f == 1)
				c->expect_sigbus = true;
			else if (f == 2)
				c->json = true;
			else if (f == 3)
				c->folio_stats = true;
			else if (f == 4)
				c->lock_self = true;
			else
				c->fault_times = true;
			continue;
		}

		static const char *const valued[] = {
			"--mode", "--size", "--mem", "--procs", "--threads", "--access",
			"--thp", "--pattern", "--zipf-s", "--passes", "--write-pct",
			"--pageout", "--memcg-max", "--memcg-swap-max", "--memcg-name",
			"--cgroup-root", "--pagemap", "--seed", "--max-reports",
			"--inject-corrupt", "--inject-truncate", "--zero-pct", "--fill",
			"--stride", "--fault-group",
		};
		int o = pick(name, valued, (int)(sizeof(valued) / sizeof(valued[0])));
		if (o < 0) {
			snprintf(err, errlen, "unknown option '%s'", name);
			return -1;
		}
		if (!val) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "option %s needs a value", name);
				return -1;
			}
			val = argv[++i];
		}
		switch (o) {
		case 0: CHOICE(c->mode, enum ss_mode, "stress", "swapin-timer"); break;
		case 1:
			if (ts_parse_size(val, WL_SIZE_FLAGS, &c->size) || c->size == 0)
				goto bad_value;
			break;
		case 2: CHOICE(c->mem, enum ss_mem, "anon", "shmem", "shared"); break;
		case 3:
			if (ts_parse_uint(val, 1, 256, &u))
				goto bad_value;
			c->procs = (unsigned)u;
			break;
		case 4:
			if (ts_parse_uint(val, 1, 64, &u))
				goto bad_value;
			c->threads = (unsigned)u;
			break;
		case 5: CHOICE(c->access, enum ss_access, "mmap", "read"); break;
		case 6: CHOICE(c->thp, enum ss_thp, "default", "never", "always"); break;
		case 7: CHOICE(c->pattern, enum ss_pattern, "seq", "random", "zipf", "stride"); break;
		case 8:
			if (ts_parse_double(val, &c->zipf_s) || c->zipf_s > 5.0)
				goto bad_value;
			break;
		case 9:
			if (ts_parse_uint(val, 0, 1000000, &u))
				goto bad_value;
			c->passes = (unsigned)u;
			break;
		case 10:
			if (ts_parse_uint(val, 0, 100, &u))
				goto bad_value;
			c->write_pct = (unsigned)u;
			break;
		case 11: CHOICE(c->pageout, enum ss_pageout, "none", "madvise", "memcg"); break;
		case 12:
			if (ts_parse_size(val, WL_SIZE_FLAGS, &c->memcg_max) || c->memcg_max < TS_PAGE_SIZE)
				goto bad_value;
			memcg_max_set = memcg_opt_set = true;
			break;
		case 13:
			if (strcmp(val, "max") == 0) {
				c->memcg_swap_max = -1;
			} else {
				if (ts_parse_size(val, WL_SIZE_FLAGS, &u) || u > (uint64_t)INT64_MAX)
					goto bad_value;
				c->memcg_swap_max = (int64_t)u;
			}
			memcg_opt_set = true;
			break;
		case 14:
			if (!*val || strchr(val, '/') || strcmp(val, ".") == 0 || strcmp(val, "..") == 0)
				goto bad_value;
			c->memcg_name = val;
			memcg_opt_set = true;
			break;
		case 15:
			if (!*val)
				goto bad_value;
			c->cgroup_root = val;
			break;
		case 16:
			if (!*val)
				goto bad_value;
			c->pagemap_file = val;
			break;
		case 17:
			if (ts_parse_uint(val, 0, UINT64_MAX, &c->seed))
				goto bad_value;
			break;
		case 18:
			if (ts_parse_uint(val, 0, 1000000, &u))
				goto bad_value;
			c->max_reports = (unsigned)u;
			break;
		case 19:
		case 20:
			if (ts_parse_uint(val, 0, (uint64_t)INT64_MAX, &u))
				goto bad_value;
			if (o == 19)
				c->inject_corrupt = (int64_t)u;
			else
				c->inject_truncate = (int64_t)u;
			break;
		case 21:
			if (ts_parse_uint(val, 0, 100, &u))
				goto bad_value;
			c->zero_pct = (unsigned)u;
			break;
		case 22: CHOICE(c->fill, enum ss_fill, "pattern", "sparse"); break;
		case 23:
			if (ts_parse_uint(val, 2, 4096, &u))
				goto bad_value;
			c->stride = (unsigned)u;
			stride_set = true;
			break;
		case 24:
			if (ts_parse_uint(val, 1, 512, &u))
				goto bad_value;
			c->fault_group = (unsigned)u;
			group_set = true;
			break;
		}
		continue;
bad_value:
		snprintf(err, errlen, "bad value '%s' for %s", val, name);
		return -1;
	}

	/* cross-checks */
	uint64_t pages = c->size / TS_PAGE_SIZE;
	if (c->size % TS_PAGE_SIZE) {
		snprintf(err, errlen, "--size must be a multiple of %u", TS_PAGE_SIZE);
		return -1;
	}
	if (pages < (uint64_t)c->procs * c->threads) {
		snprintf(err, errlen, "--size gives %llu pages, fewer than procs*threads",
			 (unsigned long long)pages);
		return -1;
	}
	if (stride_set && c->pattern != SS_PAT_STRIDE) {
		snprintf(err, errlen, "--stride needs --pattern stride");
		return -1;
	}
	if (c->access == SS_ACCESS_READ && c->mem != SS_MEM_SHMEM) {
		snprintf(err, errlen, "--access read needs --mem shmem");
		return -1;
	}
	if (memcg_opt_set && c->pageout != SS_PAGEOUT_MEMCG) {
		snprintf(err, errlen, "memcg options need --pageout memcg");
		return -1;
	}
	if (c->pageout == SS_PAGEOUT_MEMCG && !memcg_max_set)
		c->memcg_max = c->size / 2 < TS_PAGE_SIZE ? TS_PAGE_SIZE : c->size / 2;
	if (c->mode == SS_MODE_SWAPIN_TIMER && c->pageout == SS_PAGEOUT_MEMCG) {
		snprintf(err, errlen, "--mode swapin-timer needs --pageout madvise (or none for a baseline)");
		return -1;
	}
	if (c->fault_times && c->mode != SS_MODE_SWAPIN_TIMER) {
		snprintf(err, errlen, "--fault-times needs --mode swapin-timer (stress mode always times its accesses)");
		return -1;
	}
	if (group_set && !c->fault_times) {
		snprintf(err, errlen, "--fault-group needs --fault-times");
		return -1;
	}
	if (c->inject_corrupt >= 0 && (uint64_t)c->inject_corrupt >= pages) {
		snprintf(err, errlen, "--inject-corrupt page beyond --size");
		return -1;
	}
	if (c->inject_truncate >= 0) {
		if (c->mem != SS_MEM_SHMEM) {
			snprintf(err, errlen, "--inject-truncate needs --mem shmem");
			return -1;
		}
		if ((uint64_t)c->inject_truncate >= pages) {
			snprintf(err, errlen, "--inject-truncate page beyond --size");
			return -1;
		}
	}
	return 0;
}
