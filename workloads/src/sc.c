#define _GNU_SOURCE
#include "sc.h"
#include "pattern.h"
#include "sysstat.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SC_ALIGN (2ul << 20)
#define SC_MAX_REPORTS 16

static atomic_uint reports;

void sc_emit(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		return;
}

int sc_map_create(struct sc_map *m, enum sc_mem mem, size_t len, enum sc_thp thp,
		  char *err, size_t errlen)
{
	int share = mem == SC_MEM_ANON ? MAP_PRIVATE : MAP_SHARED;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->len = len;
	m->raw_len = len + SC_ALIGN;
	/* reserve an area with room to align, then place the mapping in it */
	m->raw = mmap(NULL, m->raw_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->raw == MAP_FAILED) {
		m->raw = NULL;
		snprintf(err, errlen, "mmap %zu bytes: %s", m->raw_len, strerror(errno));
		return -1;
	}
	m->base = (char *)(((uintptr_t)m->raw + SC_ALIGN - 1) & ~(uintptr_t)(SC_ALIGN - 1));
	if (mem == SC_MEM_SHMEM) {
		m->fd = memfd_create("sc-shmem", MFD_CLOEXEC);
		if (m->fd < 0 || ftruncate(m->fd, (off_t)len)) {
			snprintf(err, errlen, "memfd: %s", strerror(errno));
			return -1;
		}
		if (mmap(m->base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->fd, 0) ==
		    MAP_FAILED) {
			snprintf(err, errlen, "mmap memfd: %s", strerror(errno));
			return -1;
		}
	} else if (mmap(m->base, len, PROT_READ | PROT_WRITE,
			share | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED) {
		snprintf(err, errlen, "mmap %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	if (thp != SC_THP_DEFAULT &&
	    madvise(m->base, len, thp == SC_THP_ALWAYS ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		snprintf(err, errlen, "madvise(%s): %s",
			 thp == SC_THP_ALWAYS ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", strerror(errno));
		return -1;
	}
	return 0;
}

void sc_map_destroy(struct sc_map *m)
{
	if (m->raw)
		munmap(m->raw, m->raw_len);
	if (m->fd >= 0)
		close(m->fd);
	m->raw = NULL;
	m->fd = -1;
}

void sc_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int sc_parse_mem(const char *name, enum sc_mem *mem)
{
	if (!strcmp(name, "anon"))
		*mem = SC_MEM_ANON;
	else if (!strcmp(name, "shmem"))
		*mem = SC_MEM_SHMEM;
	else if (!strcmp(name, "shared"))
		*mem = SC_MEM_SHARED;
	else
		return -1;
	return 0;
}

int sc_parse_thp(const char *name, enum sc_thp *thp)
{
	if (!strcmp(name, "default"))
		*thp = SC_THP_DEFAULT;
	else if (!strcmp(name, "never"))
		*thp = SC_THP_NEVER;
	else if (!strcmp(name, "always"))
		*thp = SC_THP_ALWAYS;
	else
		return -1;
	return 0;
}

void sc_fill(char *base, uint64_t n, uint64_t seed, const uint32_t *gen)
{
	for (uint64_t i = 0; i < n; i++)
		if (gen[i] != SC_GEN_ZERO)
			ts_pattern_fill(base + i * TS_PAGE_SIZE, seed, i, gen[i]);
}

int sc_verify_page(const char *base, uint64_t i, uint64_t seed, uint32_t gen,
		   const char *tag, bool report)
{
	const volatile uint64_t *w = (const volatile uint64_t *)(base + i * TS_PAGE_SIZE);
	struct ts_mismatch m;

	if (gen == SC_GEN_ZERO) {
		uint64_t any = 0;
		size_t k;

		for (k = 0; k < TS_PAT_WORDS; k++)
			any |= w[k];
		if (!any)
			return 0;
		for (k = 0; k < TS_PAT_WORDS && !w[k]; k++)
			;
		if (report && atomic_fetch_add(&reports, 1) < SC_MAX_REPORTS)
			sc_emit("# CORRUPT %s page=%" PRIu64 " addr=%p expected=zero offset=%zu found=0x%016" PRIx64
				" found_page=%" PRId64, tag, i, (const void *)w, k * 8, w[k],
				(w[0] & ~TS_PAT_INDEX_MASK) == TS_PAT_MAGIC ? (int64_t)(w[0] & TS_PAT_INDEX_MASK) : -1);
		return 1;
	}
	memset(&m, 0, sizeof(m));
	if (!ts_pattern_verify((const void *)w, seed, i, gen, &m))
		return 0;
	if (report && atomic_fetch_add(&reports, 1) < SC_MAX_REPORTS)
		sc_emit("# CORRUPT %s page=%" PRIu64 " addr=%p offset=%zu expected=0x%016" PRIx64
			" found=0x%016" PRIx64 " gen=%u found_page=%" PRId64 " found_gen=%u found_zero=%d",
			tag, i, (const void *)w, m.offset, m.expected, m.found, gen,
			m.found_has_magic ? (int64_t)m.found_page : -1, m.found_gen, m.found_zero);
	return 1;
}

uint64_t sc_verify(const char *base, uint64_t lo, uint64_t hi, uint64_t seed,
		   const uint32_t *gen, const char *tag, uint64_t *verified)
{
	uint64_t bad = 0;

	for (uint64_t i = lo; i < hi; i++) {
		bad += (uint64_t)sc_verify_page(base, i, seed, gen[i], tag, true);
		if (verified)
			(*verified)++;
	}
	return bad;
}

int sc_vmstat_parse(const char *text, const char *key, uint64_t *val)
{
	return ts_kv_lookup(text, key, val);
}

uint64_t sc_vmstat(const char *key)
{
	static char buf[65536];
	uint64_t v = 0;

	if (ts_read_file("/proc/vmstat", buf, sizeof(buf)) <= 0)
		return 0;
	if (sc_vmstat_parse(buf, key, &v))
		return 0;
	return v;
}

int sc_memcg_reclaim(const char *cg, uint64_t bytes)
{
	char path[600], val[32];

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	snprintf(val, sizeof(val), "%" PRIu64, bytes);
	return ts_write_file(path, val);
}

int64_t sc_memcg_swapcached(const char *cg)
{
	char path[600], buf[8192];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	if (ts_read_file(path, buf, sizeof(buf)) <= 0 || ts_kv_lookup(buf, "swapcached", &v))
		return -1;
	return (int64_t)v;
}

int64_t sc_drain_swapcache(const char *cg, unsigned tries)
{
	int64_t sc = sc_memcg_swapcached(cg);

	for (unsigned i = 0; i < tries && sc != 0; i++) {
		/* what the swap cache holds: asking for more than the group
		 * can give makes memory.reclaim retry (and throttle) at length */
		sc_memcg_reclaim(cg, sc > 0 ? (uint64_t)sc : TS_PAGE_SIZE);
		sc = sc_memcg_swapcached(cg);
		if (sc)
			sc_sleep_ms(10); /* writeback still running */
	}
	return sc;
}

void sc_census_count(const uint64_t *pm, const uint64_t *kflags, uint64_t n,
		     struct sc_census *c)
{
	memset(c, 0, sizeof(*c));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t f = kflags[i];
		bool large;

		if (!(pm[i] & TS_PM_PRESENT)) {
			if (pm[i] & TS_PM_SWAP)
				c->swapped++;
			continue;
		}
		c->present++;
		large = (f & (SC_KPF_COMPOUND_HEAD | SC_KPF_COMPOUND_TAIL)) != 0;
		c->large += large;
		c->swapcache += (f & SC_KPF_SWAPCACHE) != 0;
		c->large_swapcache += large && (f & SC_KPF_SWAPCACHE);
	}
}

#define PM_PFN_MASK ((1ULL << 55) - 1)

static int read_census(pid_t pid, const void *addr, uint64_t n, uint64_t *pm, uint64_t *fl)
{
	int kf, r;

	r = ts_pagemap_read(pid, (uintptr_t)addr, n, pm);
	if (r)
		return r;
	kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (kf < 0)
		return -errno;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t pfn = pm[i] & PM_PFN_MASK;
		ssize_t got;

		fl[i] = 0;
		if (!(pm[i] & TS_PM_PRESENT))
			continue;
		if (!pfn) {
			r = -EPERM; /* no PFNs without CAP_SYS_ADMIN */
			break;
		}
		got = pread(kf, &fl[i], 8, (off_t)(pfn * 8));
		if (got != 8) {
			r = got < 0 ? -errno : -EIO; /* a short read sets no errno */
			break;
		}
	}
	close(kf);
	return r;
}

int sc_census(pid_t pid, const void *addr, uint64_t n, struct sc_census *c)
{
	uint64_t *pm = calloc(n ? n : 1, 8), *fl = calloc(n ? n : 1, 8);
	int r = -ENOMEM;

	memset(c, 0, sizeof(*c));
	if (pm && fl) {
		r = read_census(pid, addr, n, pm, fl);
		if (!r)
			sc_census_count(pm, fl, n, c);
	}
	free(pm);
	free(fl);
	return r;
}

uint64_t sc_largest_folio_pages(const void *addr, uint64_t n)
{
	uint64_t *pm = calloc(n ? n : 1, 8), *fl = calloc(n ? n : 1, 8);
	uint64_t best = 1;

	if (pm && fl && !read_census(0, addr, n, pm, fl)) {
		for (uint64_t i = 0; i < n; i++) {
			uint64_t k = 1;

			if (!(fl[i] & SC_KPF_COMPOUND_HEAD))
				continue;
			while (i + k < n && (fl[i + k] & SC_KPF_COMPOUND_TAIL) &&
			       (pm[i + k] & PM_PFN_MASK) == (pm[i] & PM_PFN_MASK) + k)
				k++;
			if (k > best)
				best = k;
		}
	}
	free(pm);
	free(fl);
	return best;
}

uint64_t sc_same_swap_entries(const uint64_t *a, const uint64_t *b, uint64_t n)
{
	uint64_t same = 0;

	for (uint64_t i = 0; i < n; i++) {
		bool sa = (a[i] & TS_PM_SWAP) && !(a[i] & TS_PM_PRESENT);
		bool sb = (b[i] & TS_PM_SWAP) && !(b[i] & TS_PM_PRESENT);

		same += sa && sb && TS_PM_SWAP_TYPE(a[i]) == TS_PM_SWAP_TYPE(b[i]) &&
			TS_PM_SWAP_OFFSET(a[i]) == TS_PM_SWAP_OFFSET(b[i]);
	}
	return same;
}

void sc_barrier_init(struct sc_barrier *b, unsigned n)
{
	atomic_store(&b->count, 0);
	atomic_store(&b->gen, 0);
	b->n = n;
}

int sc_barrier_wait(struct sc_barrier *b, atomic_int *abort_flag)
{
	unsigned gen = atomic_load(&b->gen);

	if (atomic_fetch_add(&b->count, 1) + 1 == b->n) {
		atomic_store(&b->count, 0);
		atomic_fetch_add(&b->gen, 1);
		syscall(SYS_futex, &b->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		return 0;
	}
	while (atomic_load(&b->gen) == gen) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (abort_flag && atomic_load(abort_flag))
			return -1;
		/* shared futex (no FUTEX_PRIVATE_FLAG): works across processes */
		syscall(SYS_futex, &b->gen, FUTEX_WAIT, gen, &ts, NULL, 0);
	}
	return 0;
}

long sc_move_pages(unsigned long count, void **pages, const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}

uint64_t sc_thread_majflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_majflt;
}
