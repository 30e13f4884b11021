/*
 * swapstress: memory-pressure workload with per-page verification.
 * See docs/workloads.md for what it measures and how to read its output.
 */
#define _GNU_SOURCE
#include "folios.h"
#include "hist.h"
#include "ts/out.h"
#include "pattern.h"
#include "rng.h"
#include "ss_args.h"
#include "sysstat.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define SS_MAX_REC 1024
#define THP_ALIGN (2ul << 20)

/* page state flags */
enum {
	PS_TOUCHED = 1,  /* verified since pageout */
	PS_CORRUPT = 2,
	PS_SIGBUS = 4,
	PS_EIO = 8,
	PS_BAD = PS_CORRUPT | PS_SIGBUS | PS_EIO,
};

enum access_result { AR_OK, AR_CORRUPT, AR_SIGBUS, AR_EIO };

struct rec_list {
	uint32_t n;
	uint32_t dropped;
	uint64_t page[SS_MAX_REC];
};

/* One per worker process, in a MAP_SHARED region the parent reads. */
struct proc_result {
	int setup_failed;
	char error[200];
	int mapped;            /* base is a mapping whose pagemap means something */
	uintptr_t base;
	uint64_t first_page;
	uint64_t npages;
	uint64_t fill_ns, pageout_ns;
	uint64_t access_start_ns, access_end_ns;
	uint64_t readback_start_ns, readback_end_ns;
	uint64_t unmap_ns; /* swapin-timer: the munmap() after the read-back */
	uint64_t resident_after_pageout;
	uint64_t pages_verified, accesses, writes, bytes_accessed;
	uint64_t corrupt, sigbus, eio;
	int have_first_corrupt;
	uint64_t fc_page, fc_addr, fc_expected, fc_found;
	struct ts_hist hist;
	struct rec_list sigbus_pages, eio_pages, corrupt_pages;
	int folio_stats_done;
	long long shmem_huge_kb; /* pread runs: nothing mapped to count */
	long long shmem_huge_kb_fill;
	struct ts_folio_census folios;
	struct ts_folio_census folios_fill; /* after fill, before pageout */
	int folio_fill_done;
	char folio_error[120];
};

/* Per worker process state (private). */
struct proc {
	const struct ss_config *c;
	unsigned id;
	struct proc_result *res;
	uint64_t first_page, npages;
	char *map;      /* mapping (anon or shmem mmap) */
	size_t map_len; /* whole mmap length */
	char *base;     /* THP-aligned start inside map */
	int fd;         /* memfd for shmem */
	uint32_t *gen;
	uint8_t *state;
	pthread_mutex_t lock;
	unsigned reports;
};

struct thread {
	struct proc *p;
	unsigned tid;
	uint64_t lo, hi; /* local page range */
	struct ts_hist hist;
	uint64_t verified, accesses, writes;
	void *buf;       /* one page for pread/pwrite */
	int err;
	char error[160];
};

/* ---- SIGBUS recovery (per thread) ---- */

static _Thread_local sigjmp_buf tl_jb;
static _Thread_local volatile sig_atomic_t tl_armed;
static _Thread_local void *volatile tl_fault_addr;

static void sigbus_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!tl_armed) {
		/* Not ours: die with the default action on return. */
		signal(sig, SIG_DFL);
		return;
	}
	tl_armed = 0;
	tl_fault_addr = si->si_addr;
	siglongjmp(tl_jb, 1);
}

static int install_sigbus_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigbus_handler;
	/* SA_NODEFER: SIGBUS must not stay blocked after siglongjmp(.., 0). */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL);
}

/* Words of the pattern in page @gpage: zeroes (--zero-pct), --fill sparse or whole. */
static size_t page_words(const struct ss_config *c, uint64_t gpage)
{
	if (ts_pattern_is_zero(c->seed, gpage, c->zero_pct))
		return 0;
	return c->fill == SS_FILL_SPARSE ? TS_PAT_SPARSE_WORDS : TS_PAT_WORDS;
}

/* Fill one page of generation @gen. */
static void page_fill(const struct ss_config *c, void *page, uint64_t gpage, uint32_t gen)
{
	ts_pattern_fill_words(page, c->seed, gpage, gen, page_words(c, gpage));
}

/* Verify one page of generation @gen as page_fill() wrote it: 0 or 1. */
static int page_verify(const struct ss_config *c, const void *page, uint64_t gpage,
		       uint32_t gen, struct ts_mismatch *m)
{
	return ts_pattern_verify_words(page, c->seed, gpage, gen, page_words(c, gpage), m);
}

/* Verify (and maybe rewrite) one mapped page; a SIGBUS returns AR_SIGBUS. */
static int __attribute__((noinline))
guarded_mmap_access(const struct ss_config *c, char *page, uint64_t gpage, uint32_t gen,
		    int write, struct ts_mismatch *m)
{
	tl_armed = 1;
	if (sigsetjmp(tl_jb, 0))
		return AR_SIGBUS;
	if (page_verify(c, page, gpage, gen, m)) {
		tl_armed = 0;
		return AR_CORRUPT;
	}
	if (write)
		page_fill(c, page, gpage, gen + 1);
	tl_armed = 0;
	return AR_OK;
}

/* Touch one word of a mapped page (swap-in timer). */
static int __attribute__((noinline)) guarded_touch(const char *page)
{
	tl_armed = 1;
	if (sigsetjmp(tl_jb, 0))
		return AR_SIGBUS;
	(void)*(const volatile uint64_t *)page;
	tl_armed = 0;
	return AR_OK;
}

/* ---- event reporting ---- */

static void emit_line(const struct ss_config *c, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 3)
		n = (int)sizeof(line) - 3;
	(void)c;
	line[n++] = '\n';
	/* one write(): lines from several processes do not interleave */
	if (write(STDOUT_FILENO, line, (size_t)n) < 0)
		return;
}

static void rec_add(struct rec_list *l, uint64_t page)
{
	if (l->n < SS_MAX_REC)
		l->page[l->n++] = page;
	else
		l->dropped++;
}

static void record_bad(struct thread *t, uint64_t local, int r, const struct ts_mismatch *m,
		       int err_no)
{
	struct proc *p = t->p;
	struct proc_result *res = p->res;
	const struct ss_config *c = p->c;
	uint64_t gpage = p->first_page + local;
	/* mapped: the virtual address; --access read: the offset in the memfd */
	uintptr_t paddr = p->base ? (uintptr_t)(p->base + local * TS_PAGE_SIZE)
				  : (uintptr_t)(local * TS_PAGE_SIZE);
	bool report;

	pthread_mutex_lock(&p->lock);
	report = p->reports < c->max_reports;
	if (report)
		p->reports++;
	switch (r) {
	case AR_CORRUPT:
		p->state[local] |= PS_CORRUPT;
		res->corrupt++;
		rec_add(&res->corrupt_pages, gpage);
		if (!res->have_first_corrupt) {
			res->have_first_corrupt = 1;
			res->fc_page = gpage;
			res->fc_addr = paddr + m->offset;
			res->fc_expected = m->expected;
			res->fc_found = m->found;
		}
		if (!report)
			break;
		if (c->json)
			emit_line(c, "{\"event\":\"corrupt\",\"page\":%" PRIu64 ",\"%s\":\"0x%" PRIxPTR
				  "\",\"addr\":\"0x%" PRIxPTR "\",\"offset\":%zu,\"expected\":\"0x%016" PRIx64
				  "\",\"found\":\"0x%016" PRIx64 "\",\"gen\":%u,\"found_page\":%" PRId64
				  ",\"found_gen\":%u,\"found_zero\":%d,\"proc\":%u}",
				  gpage, p->base ? "page_addr" : "file_offset", paddr, paddr + m->offset,
				  m->offset, m->expected, m->found,
				  p->gen[local], m->found_has_magic ? (int64_t)m->found_page : -1,
				  m->found_gen, m->found_zero, p->id);
		else
			emit_line(c, "# CORRUPT page=%" PRIu64 " %s=0x%" PRIxPTR " addr=0x%" PRIxPTR
				  " offset=%zu expected=0x%016" PRIx64 " found=0x%016" PRIx64
				  " gen=%u found_page=%" PRId64 " found_gen=%u found_zero=%d proc=%u",
				  gpage, p->base ? "page_addr" : "file_offset", paddr, paddr + m->offset,
				  m->offset, m->expected, m->found,
				  p->gen[local], m->found_has_magic ? (int64_t)m->found_page : -1,
				  m->found_gen, m->found_zero, p->id);
		break;
	case AR_SIGBUS:
		p->state[local] |= PS_SIGBUS;
		res->sigbus++;
		rec_add(&res->sigbus_pages, gpage);
		if (!report)
			break;
		if (c->json)
			emit_line(c, "{\"event\":\"sigbus\",\"page\":%" PRIu64 ",\"page_addr\":\"0x%" PRIxPTR
				  "\",\"si_addr\":\"%p\",\"proc\":%u}", gpage, paddr, tl_fault_addr, p->id);
		else
			emit_line(c, "# SIGBUS page=%" PRIu64 " page_addr=0x%" PRIxPTR " si_addr=%p proc=%u",
				  gpage, paddr, tl_fault_addr, p->id);
		break;
	case AR_EIO:
		p->state[local] |= PS_EIO;
		res->eio++;
		rec_add(&res->eio_pages, gpage);
		if (!report)
			break;
		if (c->json)
			emit_line(c, "{\"event\":\"eio\",\"page\":%" PRIu64 ",\"offset\":%" PRIu64
				  ",\"errno\":%d,\"error\":\"%s\",\"proc\":%u}", gpage,
				  local * TS_PAGE_SIZE, err_no, err_no ? strerror(err_no) : "short read",
				  p->id);
		else
			emit_line(c, "# EIO page=%" PRIu64 " file_offset=%" PRIu64 " errno=%d (%s) proc=%u",
				  gpage, local * TS_PAGE_SIZE, err_no,
				  err_no ? strerror(err_no) : "short read", p->id);
		break;
	}
	pthread_mutex_unlock(&p->lock);
}

/* ---- page access ---- */

static int pread_page(int fd, void *buf, uint64_t local, int *err_no)
{
	size_t got = 0;

	while (got < TS_PAGE_SIZE) {
		ssize_t r = pread(fd, (char *)buf + got, TS_PAGE_SIZE - got,
				  (off_t)(local * TS_PAGE_SIZE + got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err_no = errno;
			return -1;
		}
		if (r == 0) {
			*err_no = 0; /* short read (beyond EOF) */
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

static int pwrite_page(int fd, const void *buf, uint64_t local, int *err_no)
{
	size_t done = 0;

	while (done < TS_PAGE_SIZE) {
		ssize_t r = pwrite(fd, (const char *)buf + done, TS_PAGE_SIZE - done,
				   (off_t)(local * TS_PAGE_SIZE + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err_no = errno;
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

/* Verify page `local`, rewrite it with the next generation if write. */
static int access_page(struct thread *t, uint64_t local, int write)
{
	struct proc *p = t->p;
	const struct ss_config *c = p->c;
	uint64_t gpage = p->first_page + local;
	struct ts_mismatch m;
	int r, err_no = 0;

	memset(&m, 0, sizeof(m));
	if (c->access == SS_ACCESS_MMAP) {
		r = guarded_mmap_access(c, p->base + local * TS_PAGE_SIZE, gpage,
					p->gen[local], write, &m);
	} else {
		if (pread_page(p->fd, t->buf, local, &err_no)) {
			r = AR_EIO;
		} else if (page_verify(c, t->buf, gpage, p->gen[local], &m)) {
			r = AR_CORRUPT;
		} else {
			r = AR_OK;
			if (write) {
				page_fill(c, t->buf, gpage, p->gen[local] + 1);
				if (pwrite_page(p->fd, t->buf, local, &err_no))
					r = AR_EIO;
			}
		}
	}
	if (r == AR_OK) {
		t->verified++;
		if (write) {
			p->gen[local]++;
			t->writes++;
		}
	} else {
		if (r == AR_CORRUPT)
			t->verified++;
		record_bad(t, local, r, &m, err_no);
	}
	p->state[local] |= PS_TOUCHED;
	return r;
}

/* ---- phases ---- */

static void *fill_thread(void *arg)
{
	struct thread *t = arg;
	struct proc *p = t->p;
	const struct ss_config *c = p->c;

	for (uint64_t i = t->lo; i < t->hi && !t->err; i++) {
		uint64_t gpage = p->first_page + i;
		if (c->access == SS_ACCESS_MMAP) {
			page_fill(c, p->base + i * TS_PAGE_SIZE, gpage, 0);
		} else {
			int e = 0;
			page_fill(c, t->buf, gpage, 0);
			if (pwrite_page(p->fd, t->buf, i, &e)) {
				t->err = e;
				snprintf(t->error, sizeof(t->error), "pwrite memfd: %s", strerror(e));
			}
		}
	}
	return NULL;
}

static void *access_thread(void *arg)
{
	struct thread *t = arg;
	struct proc *p = t->p;
	const struct ss_config *c = p->c;
	uint64_t n = t->hi - t->lo;
	/* stride: the first page of every c->stride, the rest left alone */
	uint64_t per_pass = c->pattern == SS_PAT_STRIDE ? (n + c->stride - 1) / c->stride : n;
	struct ts_zipf z;

	if (c->pattern == SS_PAT_ZIPF)
		ts_zipf_init(&z, n, c->zipf_s);
	for (unsigned pass = 0; pass < c->passes; pass++) {
		struct ts_rng rng;

		wl_rng_seed(&rng, c->seed ^ ((uint64_t)p->id << 40) ^ ((uint64_t)t->tid << 24) ^
					  ((uint64_t)pass << 1) ^ 0xacce55ull);
		for (uint64_t k = 0; k < per_pass; k++) {
			uint64_t idx;
			int write;
			uint64_t t0, t1;

			switch (c->pattern) {
			case SS_PAT_RANDOM: idx = t->lo + ts_rng_below(&rng, n); break;
			case SS_PAT_ZIPF: idx = t->lo + ts_zipf_page(&z, ts_zipf_rank(&z, &rng)); break;
			case SS_PAT_STRIDE: idx = t->lo + k * c->stride; break;
			default: idx = t->lo + k; break;
			}
			write = c->write_pct && ts_rng_below(&rng, 100) < c->write_pct;
			if (p->state[idx] & PS_BAD)
				continue;
			t0 = ts_now_ns();
			access_page(t, idx, write);
			t1 = ts_now_ns();
			ts_hist_add(&t->hist, t1 - t0);
			t->accesses++;
		}
	}
	/* every page is verified at least once after pageout */
	for (uint64_t i = t->lo; i < t->hi; i++)
		if (!(p->state[i] & (PS_TOUCHED | PS_BAD)))
			access_page(t, i, 0);
	return NULL;
}

static void *readback_thread(void *arg)
{
	struct thread *t = arg;
	struct proc *p = t->p;
	const struct ss_config *c = p->c;

	uint64_t t0 = 0;

	for (uint64_t i = t->lo; i < t->hi; i++) {
		int r, err_no = 0;
		/* --fault-times: a group starts at a multiple of its size */
		bool first = c->fault_times && (i % c->fault_group == 0 || i == t->lo);
		bool last = c->fault_times && ((i + 1) % c->fault_group == 0 || i + 1 == t->hi);

		if (first)
			t0 = ts_now_ns();
		if (c->access == SS_ACCESS_MMAP) {
			r = guarded_touch(p->base + i * TS_PAGE_SIZE);
		} else {
			r = pread_page(p->fd, t->buf, i, &err_no) ? AR_EIO : AR_OK;
		}
		if (last)
			ts_hist_add(&t->hist, ts_now_ns() - t0);
		if (r != AR_OK)
			record_bad(t, i, r, NULL, err_no);
	}
	return NULL;
}

static int run_threads(struct proc *p, struct thread *th, void *(*fn)(void *), char *err, size_t errlen)
{
	unsigned n = p->c->threads;
	pthread_t *tids;
	int e;

	if (n == 1) {
		fn(&th[0]);
		return 0;
	}
	tids = calloc(n, sizeof(*tids));
	if (!tids) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		e = pthread_create(&tids[i], NULL, fn, &th[i]);
		if (e) {
			snprintf(err, errlen, "pthread_create: %s", strerror(e));
			for (unsigned j = 0; j < i; j++)
				pthread_join(tids[j], NULL);
			free(tids);
			return -1;
		}
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return 0;
}

static uint64_t count_resident(void *addr, size_t len)
{
	size_t n = len / TS_PAGE_SIZE;
	unsigned char *vec = malloc(n ? n : 1);
	uint64_t cnt = 0;

	if (!vec)
		return 0;
	if (mincore(addr, len, vec) == 0)
		for (size_t i = 0; i < n; i++)
			cnt += vec[i] & 1;
	free(vec);
	return cnt;
}

/* Map the worker's memory. Returns 0 or -1 with err set. */
static int setup_memory(struct proc *p, char *err, size_t errlen)
{
	const struct ss_config *c = p->c;
	size_t len = p->npages * TS_PAGE_SIZE;

	p->fd = -1;
	if (c->mem == SS_MEM_SHMEM) {
		char name[32];
		snprintf(name, sizeof(name), "swapstress-%u", p->id);
		p->fd = memfd_create(name, MFD_CLOEXEC);
		if (p->fd < 0) {
			snprintf(err, errlen, "memfd_create: %s", strerror(errno));
			return -1;
		}
		if (ftruncate(p->fd, (off_t)len)) {
			snprintf(err, errlen, "ftruncate memfd: %s", strerror(errno));
			return -1;
		}
		if (c->access == SS_ACCESS_READ)
			return 0;
		p->map_len = len;
		p->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
		if (p->map == MAP_FAILED) {
			p->map = NULL;
			snprintf(err, errlen, "mmap memfd: %s", strerror(errno));
			return -1;
		}
		p->base = p->map;
	} else {
		/* shared: MAP_SHARED | MAP_ANONYMOUS is shmem (anon mTHP sizes apply) */
		int share = c->mem == SS_MEM_SHARED ? MAP_SHARED : MAP_PRIVATE;

		p->map_len = len + THP_ALIGN;
		p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE,
			      share | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p->map == MAP_FAILED) {
			p->map = NULL;
			snprintf(err, errlen, "mmap %zu bytes: %s", p->map_len, strerror(errno));
			return -1;
		}
		p->base = (char *)(((uintptr_t)p->map + THP_ALIGN - 1) & ~(uintptr_t)(THP_ALIGN - 1));
	}
	if (c->thp != SS_THP_DEFAULT) {
		int adv = c->thp == SS_THP_ALWAYS ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
		if (madvise(p->base, len, adv)) {
			snprintf(err, errlen, "madvise(%s): %s",
				 adv == MADV_HUGEPAGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * MADV_PAGEOUT of one thread's range, from the thread that filled it: the
 * kernel drains only the calling CPU's LRU add batch, so paging out from
 * the filling thread leaves fewer pages behind.
 */
static void *pageout_thread(void *arg)
{
	struct thread *t = arg;
	struct proc *p = t->p;
	size_t len = (t->hi - t->lo) * TS_PAGE_SIZE;
	char *addr;

	if (!len)
		return NULL;
	if (p->c->access == SS_ACCESS_READ) {
		/* MADV_PAGEOUT walks page tables: map and populate a view. */
		addr = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, p->fd,
			    (off_t)(t->lo * TS_PAGE_SIZE));
		if (addr == MAP_FAILED) {
			t->err = errno;
			snprintf(t->error, sizeof(t->error), "mmap memfd for pageout: %s", strerror(errno));
			return NULL;
		}
	} else {
		addr = p->base + t->lo * TS_PAGE_SIZE;
	}
	if (madvise(addr, len, MADV_PAGEOUT)) {
		t->err = errno;
		snprintf(t->error, sizeof(t->error), "madvise(MADV_PAGEOUT): %s", strerror(errno));
	}
	if (p->c->access == SS_ACCESS_READ)
		munmap(addr, len);
	return NULL;
}

static int do_pageout(struct proc *p, struct thread *th, char *err, size_t errlen)
{
	const struct ss_config *c = p->c;
	size_t len = p->npages * TS_PAGE_SIZE;
	char *addr = p->base;

	if (c->pageout == SS_PAGEOUT_MADVISE) {
		if (run_threads(p, th, pageout_thread, err, errlen))
			return -1;
		for (unsigned i = 0; i < c->threads; i++) {
			if (th[i].err) {
				snprintf(err, errlen, "%s", th[i].error);
				return -1;
			}
		}
	}
	if (c->access == SS_ACCESS_READ) {
		addr = mmap(NULL, len, PROT_READ, MAP_SHARED, p->fd, 0);
		if (addr == MAP_FAILED) {
			snprintf(err, errlen, "mmap memfd: %s", strerror(errno));
			return -1;
		}
	}
	p->res->resident_after_pageout = count_resident(addr, len);
	if (c->access == SS_ACCESS_READ)
		munmap(addr, len);
	return 0;
}

static int inject(struct proc *p, char *err, size_t errlen)
{
	const struct ss_config *c = p->c;

	if (c->inject_corrupt >= 0 && (uint64_t)c->inject_corrupt >= p->first_page &&
	    (uint64_t)c->inject_corrupt < p->first_page + p->npages) {
		uint64_t local = (uint64_t)c->inject_corrupt - p->first_page;
		off_t off = (off_t)(local * TS_PAGE_SIZE + 100);
		if (c->access == SS_ACCESS_MMAP) {
			((volatile char *)p->base)[off] ^= 0x5a;
		} else {
			unsigned char b;
			if (pread(p->fd, &b, 1, off) != 1 || (b ^= 0x5a, pwrite(p->fd, &b, 1, off) != 1)) {
				snprintf(err, errlen, "inject-corrupt: %s", strerror(errno));
				return -1;
			}
		}
	}
	if (c->inject_truncate >= 0 && (uint64_t)c->inject_truncate < p->first_page + p->npages) {
		uint64_t local = (uint64_t)c->inject_truncate > p->first_page ?
				 (uint64_t)c->inject_truncate - p->first_page : 0;
		if (ftruncate(p->fd, (off_t)(local * TS_PAGE_SIZE))) {
			snprintf(err, errlen, "inject-truncate: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int wait_go(int go_fd)
{
	char b;

	for (;;) {
		ssize_t r = read(go_fd, &b, 1);
		if (r == 1)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		return -1; /* parent gone */
	}
}

static void rec_sort(struct rec_list *l)
{
	for (uint32_t i = 1; i < l->n; i++) {
		uint64_t v = l->page[i];
		uint32_t j = i;
		for (; j > 0 && l->page[j - 1] > v; j--)
			l->page[j] = l->page[j - 1];
		l->page[j] = v;
	}
}

/* Body of one worker process. Returns its exit code. */
/*
 * --lock-self: lock this process's pages as they are touched (MCL_ONFAULT
 * populates nothing), in its mappings now and to come: stacks, heap,
 * code. A worker unlocks the mapping under test as soon as it is made.
 * Locks are not inherited: the parent and each worker lock themselves.
 */
static int lock_self(char *err, size_t errlen)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) {
		snprintf(err, errlen, "mlockall: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int worker(const struct ss_config *c, unsigned id, struct proc_result *res,
		  int ready_fd, int go_fd)
{
	uint64_t total = c->size / TS_PAGE_SIZE;
	struct proc p;
	struct thread *th = NULL;
	char err[200] = "";
	int signalled_ready = 0;
	uint64_t t0;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.id = id;
	p.res = res;
	p.first_page = total * id / c->procs;
	p.npages = total * (id + 1) / c->procs - p.first_page;
	p.fd = -1;
	pthread_mutex_init(&p.lock, NULL);
	ts_hist_init(&res->hist);
	res->first_page = p.first_page;
	res->npages = p.npages;

	if (install_sigbus_handler()) {
		snprintf(err, sizeof(err), "sigaction: %s", strerror(errno));
		goto fail;
	}
	if (c->lock_self && lock_self(err, sizeof(err)))
		goto fail;
	p.gen = calloc(p.npages, sizeof(*p.gen));
	p.state = calloc(p.npages, 1);
	th = calloc(c->threads, sizeof(*th));
	if (!p.gen || !p.state || !th) {
		snprintf(err, sizeof(err), "out of memory for page state");
		goto fail;
	}
	if (setup_memory(&p, err, sizeof(err)))
		goto fail;
	if (c->lock_self && p.map && munlock(p.map, p.map_len)) {
		snprintf(err, sizeof(err), "munlock: %s", strerror(errno));
		goto fail;
	}
	res->base = (uintptr_t)p.base;
	res->mapped = p.base != NULL;
	for (unsigned i = 0; i < c->threads; i++) {
		th[i].p = &p;
		th[i].tid = i;
		th[i].lo = p.npages * i / c->threads;
		th[i].hi = p.npages * (i + 1) / c->threads;
		ts_hist_init(&th[i].hist);
		if (c->access == SS_ACCESS_READ) {
			th[i].buf = aligned_alloc(TS_PAGE_SIZE, TS_PAGE_SIZE);
			if (!th[i].buf) {
				snprintf(err, sizeof(err), "out of memory");
				goto fail;
			}
		}
	}

	/* fill */
	t0 = ts_now_ns();
	if (run_threads(&p, th, fill_thread, err, sizeof(err)))
		goto fail;
	for (unsigned i = 0; i < c->threads; i++) {
		if (th[i].err) {
			snprintf(err, sizeof(err), "%s", th[i].error);
			goto fail;
		}
	}
	res->fill_ns = ts_now_ns() - t0;
	/*
	 * What the fill got: large folios that were never allocated cannot
	 * come back whole, so the census after readback is read against this.
	 */
	if (c->folio_stats && !p.base)
		res->shmem_huge_kb_fill = ts_shmem_huge_kb();
	if (c->folio_stats && p.base &&
	    ts_folio_census(p.base, p.npages, &res->folios_fill, res->folio_error,
			    sizeof(res->folio_error)) == 0)
		res->folio_fill_done = 1;

	/* pageout */
	t0 = ts_now_ns();
	if (c->pageout != SS_PAGEOUT_NONE && do_pageout(&p, th, err, sizeof(err)))
		goto fail;
	res->pageout_ns = ts_now_ns() - t0;
	if (inject(&p, err, sizeof(err)))
		goto fail;

	/* barrier: the parent writes the pagemap and maybe stops */
	if (write(ready_fd, "R", 1) != 1) {
		snprintf(err, sizeof(err), "ready pipe: %s", strerror(errno));
		goto fail;
	}
	signalled_ready = 1;
	if (wait_go(go_fd)) {
		snprintf(err, sizeof(err), "parent went away");
		goto fail;
	}

	if (c->mode == SS_MODE_SWAPIN_TIMER) {
		res->readback_start_ns = ts_now_ns();
		if (run_threads(&p, th, readback_thread, err, sizeof(err)))
			goto fail;
		res->readback_end_ns = ts_now_ns();
		/* untimed full verification */
		for (unsigned i = 0; i < c->threads; i++)
			for (uint64_t k = th[i].lo; k < th[i].hi; k++)
				if (!(p.state[k] & PS_BAD))
					access_page(&th[i], k, 0);
	} else {
		res->access_start_ns = ts_now_ns();
		if (run_threads(&p, th, access_thread, err, sizeof(err)))
			goto fail;
		res->access_end_ns = ts_now_ns();
	}

	for (unsigned i = 0; i < c->threads; i++) {
		ts_hist_merge(&res->hist, &th[i].hist);
		res->pages_verified += th[i].verified;
		res->accesses += th[i].accesses;
		res->writes += th[i].writes;
	}
	res->bytes_accessed = res->accesses * TS_PAGE_SIZE;
	if (c->folio_stats && !p.base)
		res->shmem_huge_kb = ts_shmem_huge_kb();
	if (c->folio_stats && p.base) {
		if (ts_folio_census(p.base, p.npages, &res->folios, res->folio_error,
				    sizeof(res->folio_error)) == 0)
			res->folio_stats_done = 1;
	}
	/*
	 * swapin-timer: time the teardown too. munmap() frees what the
	 * read-back left behind (swap cache folios and their slots), which
	 * the synchronous path frees at fault time, inside the timed window.
	 * A memfd keeps its pages: nothing to time there.
	 */
	if (c->mode == SS_MODE_SWAPIN_TIMER && p.fd < 0 && p.map) {
		uint64_t t0 = ts_now_ns();

		if (munmap(p.map, p.map_len) == 0) {
			res->unmap_ns = ts_now_ns() - t0;
			p.map = p.base = NULL;
		}
	}
	rec_sort(&res->sigbus_pages);
	rec_sort(&res->eio_pages);
	rec_sort(&res->corrupt_pages);
	return 0;

fail:
	res->setup_failed = 1;
	snprintf(res->error, sizeof(res->error), "%s", err);
	/* a worker that fails before the barrier still reports there */
	if (!signalled_ready && write(ready_fd, "E", 1) != 1)
		res->setup_failed = 2;
	return TS_EXIT_ENV;
}

/* ---- parent ---- */

struct list_buf {
	char *s;
	size_t len, cap;
};

static void list_append(struct list_buf *b, const struct rec_list *l)
{
	for (uint32_t i = 0; i < l->n; i++) {
		char num[32];
		int n = snprintf(num, sizeof(num), "%s%" PRIu64, b->len ? "," : "", l->page[i]);
		if (b->len + (size_t)n + 1 > b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 256;
			while (cap < b->len + (size_t)n + 1)
				cap *= 2;
			char *s = realloc(b->s, cap);
			if (!s)
				return;
			b->s = s;
			b->cap = cap;
		}
		memcpy(b->s + b->len, num, (size_t)n + 1);
		b->len += (size_t)n;
	}
}

static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Merge the per-process lists into one sorted comma list. */
static char *merged_list(struct proc_result *res, unsigned procs, size_t which, uint64_t *dropped)
{
	struct rec_list *all = calloc(1, sizeof(*all));
	uint64_t *tmp = NULL;
	size_t n = 0, cap = 0;
	struct list_buf b = { 0 };

	*dropped = 0;
	for (unsigned i = 0; i < procs; i++) {
		struct rec_list *l = (struct rec_list *)((char *)&res[i] + which);
		*dropped += l->dropped;
		if (n + l->n > cap) {
			cap = (n + l->n) * 2;
			uint64_t *t = realloc(tmp, cap * sizeof(*t));
			if (!t)
				break;
			tmp = t;
		}
		memcpy(tmp + n, l->page, l->n * sizeof(*tmp));
		n += l->n;
	}
	if (n)
		qsort(tmp, n, sizeof(*tmp), u64cmp);
	for (size_t i = 0; all && i < n; i += SS_MAX_REC) {
		size_t k = n - i < SS_MAX_REC ? n - i : SS_MAX_REC;
		all->n = (uint32_t)k;
		memcpy(all->page, tmp + i, k * sizeof(*tmp));
		list_append(&b, all);
	}
	free(tmp);
	free(all);
	if (!b.s)
		b.s = calloc(1, 1);
	return b.s;
}

static int write_pagemap(const struct ss_config *c, struct proc_result *res, pid_t *pids,
			 uint64_t *swapped, char *err, size_t errlen)
{
	FILE *f = NULL;
	int ret = 0;

	*swapped = 0;
	if (c->pagemap_file) {
		f = fopen(c->pagemap_file, "w");
		if (!f) {
			snprintf(err, errlen, "open %s: %s", c->pagemap_file, strerror(errno));
			return -1;
		}
	}
	for (unsigned i = 0; i < c->procs; i++) {
		struct proc_result *r = &res[i];
		uint64_t *ent = NULL;

		if (r->mapped && r->npages && pids[i] > 0) {
			ent = malloc(r->npages * sizeof(*ent));
			if (!ent || ts_pagemap_read(pids[i], r->base, r->npages, ent)) {
				snprintf(err, errlen, "read /proc/%d/pagemap: %s", (int)pids[i],
					 ent ? strerror(errno) : "out of memory");
				free(ent);
				ent = NULL;
				ret = -1;
			}
		}
		for (uint64_t k = 0; k < r->npages; k++) {
			uint64_t e = ent ? ent[k] : 0;
			if ((e & TS_PM_SWAP) && !(e & TS_PM_PRESENT))
				(*swapped)++;
			if (f) {
				char line[64];
				ts_pagemap_format(line, sizeof(line), r->first_page + k, e);
				fputs(line, f);
			}
		}
		free(ent);
	}
	if (f && fclose(f)) {
		snprintf(err, errlen, "write %s: %s", c->pagemap_file, strerror(errno));
		ret = -1;
	}
	return ret;
}

static const char *const mode_names[] = { "stress", "swapin-timer" };
static const char *const mem_names[] = { "anon", "shmem", "shared" };
static const char *const access_names[] = { "mmap", "read" };
static const char *const thp_names[] = { "default", "never", "always" };
static const char *const pattern_names[] = { "seq", "random", "zipf", "stride" };
static const char *const pageout_names[] = { "none", "madvise", "memcg" };

static void out_memcg(struct ts_out *o, const struct ts_memcg *cg)
{
	static const char *const keys[] = {
		"pgmajfault", "pgscan_direct", "pgscan_kswapd", "pgsteal_direct", "pgsteal_kswapd",
		"workingset_refault_anon", "workingset_refault_file", "swpin_zero", "swpout_zero",
		"thp_swpout", "thp_swpout_fallback", "zswpin", "zswpout",
	};
	char name[80], buf[2048], path[600];
	uint64_t v;

	if (ts_memcg_read_u64(cg, "memory.peak", &v) == 0)
		ts_out_u64(o, "memcg_peak_bytes", v);
	if (ts_memcg_read_u64(cg, "memory.swap.peak", &v) == 0)
		ts_out_u64(o, "memcg_swap_peak_bytes", v);
	if (ts_memcg_read_u64(cg, "memory.swap.current", &v) == 0)
		ts_out_u64(o, "memcg_swap_current_bytes", v);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (ts_memcg_stat(cg, keys[i], &v) == 0) {
			snprintf(name, sizeof(name), "memcg_%s", keys[i]);
			ts_out_u64(o, name, v);
		}
	}
	snprintf(path, sizeof(path), "%s/memory.events", cg->path);
	if (ts_read_file(path, buf, sizeof(buf)) > 0) {
		if (ts_kv_lookup(buf, "oom_kill", &v) == 0)
			ts_out_u64(o, "memcg_oom_kill", v);
		if (ts_kv_lookup(buf, "max", &v) == 0)
			ts_out_u64(o, "memcg_max_events", v);
	}
}

/* The parent's view of one run: the workers, their barriers, the
 * counters before and after, what went wrong. */
struct run_state {
	const struct ss_config *c;
	struct proc_result *res; /* MAP_SHARED, one per worker */
	pid_t *pids;             /* < 0: reaped early */
	int ready[2], go[2];     /* worker -> parent: filled; parent -> workers: go */
	struct ts_vmstat vm0, vm1, vm2; /* start, after pageout, end */
	struct ts_memcg cg;
	bool use_memcg;
	char err[600];
	unsigned ready_count, failed;
	uint64_t swapped;
	bool pagemap_failed;
	uint64_t t_start;
};

/* The workers' results added up. */
struct run_totals {
	struct ts_hist h;
	uint64_t verified, corrupt, sigbus, eio, accesses, writes, bytes;
	uint64_t fill_ns, pageout_ns, resident;
	uint64_t a_start, a_end, r_start, r_end;
	uint64_t unmap_ns; /* the slowest worker's */
	int fc; /* first worker that saw a corrupt page, or -1 */
};

/* Result area, pipes, the first counters, the memcg the workers inherit. */
static int run_setup(struct run_state *s)
{
	const struct ss_config *c = s->c;

	s->t_start = ts_now_ns();
	s->use_memcg = c->pageout == SS_PAGEOUT_MEMCG;
	if (c->lock_self && lock_self(s->err, sizeof(s->err))) {
		printf("error=%s\n", s->err);
		return TS_EXIT_ENV;
	}
	s->res = mmap(NULL, sizeof(struct proc_result) * c->procs, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	s->pids = calloc(c->procs, sizeof(*s->pids));
	if (s->res == MAP_FAILED || !s->pids) {
		printf("error=cannot allocate result area\n");
		return TS_EXIT_ENV;
	}
	if (pipe2(s->ready, O_CLOEXEC) || pipe2(s->go, O_CLOEXEC)) {
		printf("error=pipe: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	if (ts_vmstat_read(&s->vm0))
		memset(&s->vm0, 0, sizeof(s->vm0));

	if (s->use_memcg) {
		char name[128];
		if (c->memcg_name)
			snprintf(name, sizeof(name), "%s", c->memcg_name);
		else
			snprintf(name, sizeof(name), "swapstress-%d", (int)getpid());
		if (ts_memcg_create(&s->cg, c->cgroup_root, name, c->memcg_max, c->memcg_swap_max,
				    s->err, sizeof(s->err)) ||
		    ts_memcg_enter(&s->cg, s->err, sizeof(s->err))) {
			char e2[200];
			printf("error=memcg: %s\n", s->err);
			ts_memcg_destroy(&s->cg, e2, sizeof(e2));
			return TS_EXIT_ENV;
		}
	}
	return 0;
}

static void run_spawn(struct run_state *s)
{
	const struct ss_config *c = s->c;

	fflush(stdout);
	fflush(stderr);
	for (unsigned i = 0; i < c->procs; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			close(s->ready[0]);
			close(s->go[1]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(worker(c, i, &s->res[i], s->ready[1], s->go[0]));
		}
		if (pid < 0) {
			snprintf(s->err, sizeof(s->err), "fork: %s", strerror(errno));
			s->failed++;
			break;
		}
		s->pids[i] = pid;
	}
	close(s->ready[1]);
	close(s->go[0]);
}

/* Wait for every worker to finish fill + pageout (or die). */
static void run_wait_ready(struct run_state *s)
{
	unsigned forked = 0, dead = 0;

	for (unsigned i = 0; i < s->c->procs; i++)
		forked += s->pids[i] > 0;
	while (s->ready_count + dead < forked) {
		struct pollfd pfd = { .fd = s->ready[0], .events = POLLIN };
		int pr = poll(&pfd, 1, 200);
		if (pr > 0) {
			char b;
			ssize_t r = read(s->ready[0], &b, 1);
			if (r == 1)
				s->ready_count++;
			else if (r == 0)
				break; /* all writers gone */
		} else if (pr == 0) {
			/* did someone die before reaching the barrier? */
			dead = 0;
			for (unsigned i = 0; i < s->c->procs; i++) {
				int st;
				if (s->pids[i] > 0 && waitpid(s->pids[i], &st, WNOHANG) == s->pids[i]) {
					s->pids[i] = -s->pids[i];
					s->failed++;
				}
				if (s->pids[i] < 0)
					dead++;
			}
		}
	}
}

/* Everything is paged out: record it, stop if asked, let the workers go. */
static void run_release(struct run_state *s)
{
	const struct ss_config *c = s->c;

	if (ts_vmstat_read(&s->vm1))
		s->vm1 = s->vm0;
	if (write_pagemap(c, s->res, s->pids, &s->swapped, s->err, sizeof(s->err)))
		s->pagemap_failed = true;

	if (c->stop_after_pageout) {
		if (c->json)
			printf("{\"event\":\"stopped\",\"pid\":%d}\n", (int)getpid());
		else
			printf("# stopping after pageout: pid=%d (continue with kill -CONT)\n", (int)getpid());
		fflush(stdout);
		raise(SIGSTOP);
	}
	for (unsigned i = 0; i < c->procs; i++)
		if (write(s->go[1], "G", 1) != 1)
			break;
	close(s->go[1]);
}

static void run_reap(struct run_state *s)
{
	for (unsigned i = 0; i < s->c->procs; i++) {
		int st;
		if (s->pids[i] <= 0)
			continue;
		while (waitpid(s->pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st)) {
			s->failed++;
			if (!s->err[0])
				snprintf(s->err, sizeof(s->err), "worker %u killed by signal %d", i,
					 WTERMSIG(st));
		} else if (WEXITSTATUS(st)) {
			s->failed++;
		}
	}
	close(s->ready[0]);
	if (ts_vmstat_read(&s->vm2))
		s->vm2 = s->vm1;
}

static void run_add_up(struct run_state *s, struct run_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->a_start = t->r_start = UINT64_MAX;
	t->fc = -1;
	ts_hist_init(&t->h);
	for (unsigned i = 0; i < s->c->procs; i++) {
		struct proc_result *r = &s->res[i];
		if (r->setup_failed && !s->err[0])
			snprintf(s->err, sizeof(s->err), "worker %u: %s", i, r->error);
		ts_hist_merge(&t->h, &r->hist);
		t->verified += r->pages_verified;
		t->corrupt += r->corrupt;
		t->sigbus += r->sigbus;
		t->eio += r->eio;
		t->accesses += r->accesses;
		t->writes += r->writes;
		t->bytes += r->bytes_accessed;
		t->resident += r->resident_after_pageout;
		if (r->fill_ns > t->fill_ns)
			t->fill_ns = r->fill_ns;
		if (r->pageout_ns > t->pageout_ns)
			t->pageout_ns = r->pageout_ns;
		if (r->access_end_ns) {
			if (r->access_start_ns < t->a_start)
				t->a_start = r->access_start_ns;
			if (r->access_end_ns > t->a_end)
				t->a_end = r->access_end_ns;
		}
		if (r->unmap_ns > t->unmap_ns)
			t->unmap_ns = r->unmap_ns;
		if (r->readback_end_ns) {
			if (r->readback_start_ns < t->r_start)
				t->r_start = r->readback_start_ns;
			if (r->readback_end_ns > t->r_end)
				t->r_end = r->readback_end_ns;
		}
		if (t->fc < 0 && r->have_first_corrupt)
			t->fc = (int)i;
	}
}

/* How many of the run's pages hold zeroes (--zero-pct). */
static uint64_t count_zero_pages(const struct ss_config *c)
{
	uint64_t i, n = 0, pages = c->size / TS_PAGE_SIZE;

	for (i = 0; c->zero_pct && i < pages; i++)
		n += (uint64_t)ts_pattern_is_zero(c->seed, i, c->zero_pct);
	return n;
}

/*
 * --fault-times: the read-back's time per group of pages as percentiles
 * and as a distribution (quantile:ns pairs, each the upper edge of its
 * histogram bucket, about 3%: enough for a CDF plot). The upper quantiles
 * are dense: with groups of one page and large folios, the faults are
 * the top 1/16 or 1/512 of the touches.
 */
static void out_fault_times(struct ts_out *o, const struct ss_config *c, const struct ts_hist *h)
{
	static const double q[] = { 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
				    0.9, 0.95, 0.99, 0.995, 0.998, 0.999, 1.0 };
	char cdf[512];
	size_t len = 0;

	ts_out_u64(o, "swapin_fault_group", c->fault_group);
	ts_out_u64(o, "swapin_groups_timed", h->count);
	ts_out_u64(o, "swapin_p50_ns", ts_hist_quantile(h, 0.50));
	ts_out_u64(o, "swapin_p99_ns", ts_hist_quantile(h, 0.99));
	ts_out_u64(o, "swapin_p999_ns", ts_hist_quantile(h, 0.999));
	ts_out_u64(o, "swapin_max_ns", h->max_ns);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		int n = snprintf(cdf + len, sizeof(cdf) - len, "%s%g:%" PRIu64, i ? "," : "", q[i],
				 ts_hist_quantile(h, q[i]));

		if (n < 0 || (size_t)n >= sizeof(cdf) - len)
			break;
		len += (size_t)n;
	}
	ts_out_str(o, "swapin_cdf_ns", cdf);
}

/* The configuration, the fill and pageout, and the mode's timings. */
static void report_run(struct ts_out *o, const struct run_state *s, const struct run_totals *t)
{
	const struct ss_config *c = s->c;

	ts_out_str(o, "mode", mode_names[c->mode]);
	ts_out_str(o, "mem", mem_names[c->mem]);
	ts_out_u64(o, "size", c->size);
	ts_out_u64(o, "pages", c->size / TS_PAGE_SIZE);
	ts_out_u64(o, "procs", c->procs);
	ts_out_u64(o, "threads", c->threads);
	ts_out_str(o, "access", access_names[c->access]);
	ts_out_str(o, "thp", thp_names[c->thp]);
	ts_out_str(o, "pattern", pattern_names[c->pattern]);
	if (c->pattern == SS_PAT_STRIDE)
		ts_out_u64(o, "stride", c->stride);
	ts_out_u64(o, "passes", c->passes);
	ts_out_u64(o, "write_pct", c->write_pct);
	ts_out_str(o, "fill", c->fill == SS_FILL_SPARSE ? "sparse" : "pattern");
	ts_out_u64(o, "zero_pct", c->zero_pct);
	ts_out_u64(o, "zero_pages", count_zero_pages(c));
	ts_out_str(o, "pageout", pageout_names[c->pageout]);
	if (s->use_memcg) {
		ts_out_str(o, "memcg", s->cg.path);
		ts_out_u64(o, "memcg_max", c->memcg_max);
	}
	ts_out_u64(o, "seed", c->seed);
	ts_out_dbl(o, "fill_ms", (double)t->fill_ns / 1e6, 1);
	ts_out_dbl(o, "pageout_ms", (double)t->pageout_ns / 1e6, 1);
	ts_out_u64(o, "resident_after_pageout", t->resident);
	ts_out_u64(o, "swapped_after_pageout", s->swapped);
	ts_out_u64(o, "pswpout_pageout", ts_vmstat_delta(&s->vm0, &s->vm1, TS_VM_pswpout));

	if (c->mode == SS_MODE_SWAPIN_TIMER && t->r_end) {
		double ms = (double)(t->r_end - t->r_start) / 1e6;
		ts_out_dbl(o, "swapin_ms", ms, 1);
		ts_out_dbl(o, "swapin_mbps", ms > 0 ? (double)c->size / 1048576.0 / (ms / 1e3) : 0, 1);
		ts_out_dbl(o, "swapin_us_per_page", (double)(t->r_end - t->r_start) / 1e3 /
			   (double)(c->size / TS_PAGE_SIZE), 2);
		ts_out_u64(o, "swapin_pswpin", ts_vmstat_delta(&s->vm1, &s->vm2, TS_VM_pswpin));
		if (t->unmap_ns)
			ts_out_dbl(o, "swapin_unmap_ms", (double)t->unmap_ns / 1e6, 2);
		if (c->fault_times)
			out_fault_times(o, c, &t->h);
	}
	if (c->mode == SS_MODE_STRESS) {
		const struct ts_hist *h = &t->h;
		double ms = t->a_end > t->a_start ? (double)(t->a_end - t->a_start) / 1e6 : 0;
		ts_out_dbl(o, "access_ms", ms, 1);
		ts_out_u64(o, "accesses", t->accesses);
		ts_out_u64(o, "writes", t->writes);
		ts_out_dbl(o, "throughput_mbps", ms > 0 ? (double)t->bytes / 1048576.0 / (ms / 1e3) : 0, 1);
		ts_out_u64(o, "throughput_kbps", ms > 0 ? (uint64_t)((double)t->bytes / 1024.0 / (ms / 1e3)) : 0);
		ts_out_dbl(o, "p50_us", (double)ts_hist_quantile(h, 0.50) / 1e3, 2);
		ts_out_dbl(o, "p99_us", (double)ts_hist_quantile(h, 0.99) / 1e3, 2);
		ts_out_dbl(o, "p999_us", (double)ts_hist_quantile(h, 0.999) / 1e3, 2);
		ts_out_dbl(o, "max_us", (double)h->max_ns / 1e3, 2);
		ts_out_dbl(o, "mean_us", h->count ? (double)h->sum_ns / (double)h->count / 1e3 : 0, 2);
		ts_out_u64(o, "p50_ns", ts_hist_quantile(h, 0.50));
		ts_out_u64(o, "p99_ns", ts_hist_quantile(h, 0.99));
		ts_out_u64(o, "max_ns", h->max_ns);
	}
}

/* Verified, corrupt, SIGBUS and EIO pages, with their lists. */
static void report_pages(struct ts_out *o, const struct run_state *s, const struct run_totals *t)
{
	const struct proc_result *res = s->res;
	uint64_t dropped, d2;
	char *list;

	ts_out_u64(o, "pages_verified", t->verified);
	ts_out_u64(o, "corrupt", t->corrupt);
	list = merged_list(s->res, s->c->procs, offsetof(struct proc_result, corrupt_pages), &dropped);
	ts_out_str(o, "corrupt_pages", list);
	free(list);
	if (t->fc >= 0) {
		char hex[32];
		ts_out_u64(o, "first_corrupt_page", res[t->fc].fc_page);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, res[t->fc].fc_addr);
		ts_out_str(o, "first_corrupt_addr", hex);
		snprintf(hex, sizeof(hex), "0x%016" PRIx64, res[t->fc].fc_expected);
		ts_out_str(o, "first_corrupt_expected", hex);
		snprintf(hex, sizeof(hex), "0x%016" PRIx64, res[t->fc].fc_found);
		ts_out_str(o, "first_corrupt_found", hex);
	}
	ts_out_u64(o, "sigbus", t->sigbus);
	list = merged_list(s->res, s->c->procs, offsetof(struct proc_result, sigbus_pages), &d2);
	ts_out_str(o, "sigbus_pages", list);
	free(list);
	dropped += d2;
	ts_out_u64(o, "eio", t->eio);
	list = merged_list(s->res, s->c->procs, offsetof(struct proc_result, eio_pages), &d2);
	ts_out_str(o, "eio_pages", list);
	free(list);
	dropped += d2;
	if (dropped)
		ts_out_u64(o, "pages_lists_truncated", dropped);
}

/* --folio-stats: the pagemap census of every worker, added up. */
static void report_folios(struct ts_out *o, const struct run_state *s)
{
	const struct proc_result *res = s->res;
	struct ts_folio_census all = { 0 };
	char buf[200];
	uint64_t large = 0;
	int done = 0;

	for (unsigned i = 0; i < s->c->procs; i++) {
		if (!res[i].folio_stats_done) {
			if (res[i].folio_error[0])
				ts_out_str(o, "folio_error", res[i].folio_error);
			continue;
		}
		done++;
		for (int k = 0; k <= TS_FOLIO_MAX_ORDER; k++)
			all.pages[k] += res[i].folios.pages[k];
		all.not_present += res[i].folios.not_present;
		all.partial += res[i].folios.partial;
	}
	for (int k = 1; k <= TS_FOLIO_MAX_ORDER; k++)
		large += all.pages[k];
	if (done) {
		uint64_t large_fill = 0;

		for (unsigned i = 0; i < s->c->procs; i++) {
			if (!res[i].folio_fill_done)
				continue;
			for (int k = 1; k <= TS_FOLIO_MAX_ORDER; k++)
				large_fill += res[i].folios_fill.pages[k];
		}
		ts_out_u64(o, "folio_pages_large_fill", large_fill);
	}
	ts_folio_format(&all, buf, sizeof(buf));
	ts_out_u64(o, "folio_stats_procs", (uint64_t)done);
	ts_out_str(o, "folio_pages", buf);
	ts_out_u64(o, "folio_pages_large", large);
	ts_out_u64(o, "folio_pages_order0", all.pages[0]);
	ts_out_u64(o, "folio_pages_not_present", all.not_present);
	ts_out_u64(o, "folio_pages_partial", all.partial);
	if (s->c->access == SS_ACCESS_READ) {
		ts_out_i64(o, "shmem_huge_kb_fill", res[0].shmem_huge_kb_fill);
		ts_out_i64(o, "shmem_huge_kb", res[0].shmem_huge_kb);
	}
}

/* The kernel's counters over the run: vmstat, mTHP, the memcg's. */
static void report_counters(struct ts_out *o, const struct run_state *s)
{
	const struct ts_vmstat *vm0 = &s->vm0, *vm2 = &s->vm2;
	char keybuf[96], cs[64];

	for (int k = 0; k < TS_VM_NR; k++) {
		if (!vm0->have[k] && k != TS_VM_pswpin && k != TS_VM_pswpout)
			continue;
		ts_out_u64(o, ts_vmstat_names[k], ts_vmstat_delta(vm0, vm2, (enum ts_vmstat_key)k));
	}
	for (unsigned i = 0; i < vm0->nr_mthp && i < vm2->nr_mthp; i++) {
		for (int k = 0; k < TS_MTHP_NSTATS; k++) {
			if (!vm0->mthp_have[i][k] || vm2->mthp[i][k] <= vm0->mthp[i][k])
				continue;
			snprintf(keybuf, sizeof(keybuf), "mthp_%ukB_%s", vm0->mthp_kb[i], ts_mthp_stat_names[k]);
			ts_out_u64(o, keybuf, vm2->mthp[i][k] - vm0->mthp[i][k]);
		}
	}
	if (s->use_memcg)
		out_memcg(o, &s->cg);
	/* latency resolution depends on it: jiffies means 1 ms steps */
	if (ts_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			 cs, sizeof(cs)) > 0) {
		cs[strcspn(cs, "\n ")] = '\0';
		ts_out_str(o, "clocksource", cs);
	}
}

/* Remove the memcg, then the verdict: a corrupt page fails the run, a
 * worker that could not run is an environment error, SIGBUS or EIO fail
 * it unless expected. */
static int run_finish(struct ts_out *o, struct run_state *s, const struct run_totals *t)
{
	int exit_code;

	if (s->use_memcg) {
		char e2[600];
		if (ts_memcg_destroy(&s->cg, e2, sizeof(e2))) {
			if (!s->err[0])
				snprintf(s->err, sizeof(s->err), "memcg cleanup: %.500s", e2);
			s->failed++;
		}
	}
	if (s->pagemap_failed)
		s->failed++;
	ts_out_u64(o, "workers_failed", s->failed);
	if (s->err[0])
		ts_out_str(o, "error", s->err);

	if (t->corrupt)
		exit_code = TS_EXIT_FAIL;
	else if (s->failed)
		exit_code = TS_EXIT_ENV;
	else if ((t->sigbus || t->eio) && !s->c->expect_sigbus)
		exit_code = TS_EXIT_FAIL;
	else
		exit_code = TS_EXIT_OK;
	ts_out_str(o, "result", exit_code == 0 ? "pass" : "fail");
	return exit_code;
}

/* Workers fill and page out, wait at a barrier (where --stop-after-pageout
 * stops the parent), then access and verify; the parent adds up and
 * reports. */
static int run(const struct ss_config *c)
{
	struct run_state s = { .c = c };
	struct run_totals t;
	struct ts_out o;
	int exit_code;

	exit_code = run_setup(&s);
	if (exit_code)
		return exit_code;
	run_spawn(&s);
	run_wait_ready(&s);
	run_release(&s);
	run_reap(&s);
	run_add_up(&s, &t);

	ts_out_begin(&o, stdout, c->json);
	report_run(&o, &s, &t);
	report_pages(&o, &s, &t);
	if (c->folio_stats)
		report_folios(&o, &s);
	report_counters(&o, &s);
	ts_out_dbl(&o, "elapsed_ms", (double)(ts_now_ns() - s.t_start) / 1e6, 1);
	exit_code = run_finish(&o, &s, &t);
	ts_out_end(&o);
	return exit_code;
}

int main(int argc, char **argv)
{
	struct ss_config c;
	char err[256];
	int r;

	ss_config_defaults(&c);
	r = ss_parse_args(argc, argv, &c, err, sizeof(err));
	if (r == 1) {
		fputs(ss_usage, stdout);
		return 0;
	}
	if (r < 0) {
		fprintf(stderr, "swapstress: %s (try --help)\n", err);
		return TS_EXIT_USAGE;
	}
	return run(&c);
}
