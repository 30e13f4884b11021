/*
 * large-entry-race: two tasks on one large shmem swap entry while its read
 * is in flight (issue 15; docs/swap-cache-tests.md).
 *
 *   large-entry-race --size 64K|2M [--b-op fault|read|truncate]
 *                    [--a-page N] [--b-page N] [--b-delay-ms MS] [--seed S]
 *                    [--stop-after-pageout]
 *
 * A MAP_SHARED|MAP_ANONYMOUS region of SIZE, aligned to SIZE (so the shmem
 * mTHP knob of that size can give it one folio), is filled with the
 * per-page pattern and paged out with MADV_PAGEOUT. With
 * --stop-after-pageout the program stops itself (SIGSTOP) so the caller
 * can arm a read error or a latency on the device, and goes on at SIGCONT.
 * Then thread A reads page --a-page (default 0; another page tests a fault
 * that is not at the entry's first index), and thread B, --b-delay-ms later
 * (while A's read is in flight when the device is slow enough), on page
 * --b-page (default 5):
 *   fault     reads the mapped page
 *   read      pread()s it through the region's file (/proc/self/map_files)
 *   truncate  ftruncates the file to N pages
 * After both: every page is read once more and verified (pages past a
 * truncation must SIGBUS), and the file's st_blocks must count exactly the
 * pages that came back (a lost page is neither in memory nor in swap; after
 * a truncation, pages past the end may still count, see below).
 * Results are key=value lines; exit 0 when no page is corrupt and the
 * counts agree, 1 otherwise, 2 usage, 3 setup.
 */
#define _GNU_SOURCE
#include "pattern.h"
#include "sc.h"
#include "ts/out.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

enum b_op { B_FAULT, B_READ, B_TRUNCATE };
static const char *const b_op_names[] = { "fault", "read", "truncate" };

/* What one access of a page gave. */
enum res { ACC_OK, ACC_SIGBUS, ACC_EIO, ACC_CORRUPT, ACC_TRUNCATED, ACC_ERROR };
static const char *const res_names[] = { "ok", "sigbus", "eio", "corrupt", "truncated", "error" };

struct cfg {
	uint64_t size;
	enum b_op op;
	uint64_t a_page;
	uint64_t b_page;
	uint64_t b_delay_ms;
	uint64_t seed;
	bool stop;
};

struct run {
	const struct cfg *c;
	char *base;
	int fd;
	enum res a, b;
	uint64_t a_ns, b_start_ns, b_ns, t0;
};

static _Thread_local sigjmp_buf tl_jb;
static _Thread_local volatile sig_atomic_t tl_armed;

static void sigbus_handler(int sig)
{
	if (!tl_armed) {
		signal(sig, SIG_DFL);
		return;
	}
	tl_armed = 0;
	siglongjmp(tl_jb, 1);
}

/* Read and verify one mapped page; a SIGBUS is a result, not a death. */
static enum res __attribute__((noinline)) check_mapped(const char *page, uint64_t seed, uint64_t i)
{
	tl_armed = 1;
	if (sigsetjmp(tl_jb, 0))
		return ACC_SIGBUS;
	if (ts_pattern_verify(page, seed, i, 0, NULL)) {
		tl_armed = 0;
		return ACC_CORRUPT;
	}
	tl_armed = 0;
	return ACC_OK;
}

static enum res check_pread(int fd, uint64_t seed, uint64_t i)
{
	static _Thread_local uint64_t buf[TS_PAT_WORDS];
	ssize_t n = pread(fd, buf, TS_PAGE_SIZE, (off_t)(i * TS_PAGE_SIZE));

	if (n < 0)
		return errno == EIO ? ACC_EIO : ACC_ERROR;
	if (n != TS_PAGE_SIZE)
		return ACC_ERROR;
	return ts_pattern_verify(buf, seed, i, 0, NULL) ? ACC_CORRUPT : ACC_OK;
}

static void *thread_a(void *arg)
{
	struct run *r = arg;

	r->a = check_mapped(r->base + r->c->a_page * TS_PAGE_SIZE, r->c->seed, r->c->a_page);
	r->a_ns = ts_now_ns() - r->t0;
	return NULL;
}

static void *thread_b(void *arg)
{
	struct run *r = arg;
	const struct cfg *c = r->c;
	struct timespec d = { .tv_sec = (time_t)(c->b_delay_ms / 1000),
			      .tv_nsec = (long)(c->b_delay_ms % 1000) * 1000000L };

	nanosleep(&d, NULL);
	r->b_start_ns = ts_now_ns() - r->t0;
	switch (c->op) {
	case B_FAULT:
		r->b = check_mapped(r->base + c->b_page * TS_PAGE_SIZE, c->seed, c->b_page);
		break;
	case B_READ:
		r->b = check_pread(r->fd, c->seed, c->b_page);
		break;
	case B_TRUNCATE:
		r->b = ftruncate(r->fd, (off_t)(c->b_page * TS_PAGE_SIZE)) ? ACC_ERROR : ACC_TRUNCATED;
		break;
	}
	r->b_ns = ts_now_ns() - r->t0;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: large-entry-race --size 64K|2M [--b-op fault|read|truncate] [--a-page N]\n"
		   "                        [--b-page N] [--b-delay-ms MS] [--seed S] [--stop-after-pageout]\n");
}

static int parse_args(int argc, char **argv, struct cfg *c)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "b-op", required_argument, NULL, 'o' },
		{ "a-page", required_argument, NULL, 'a' },
		{ "b-page", required_argument, NULL, 'p' },
		{ "b-delay-ms", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 'S' },
		{ "stop-after-pageout", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	size_t i;

	*c = (struct cfg){ .size = 0, .op = B_FAULT, .b_page = 5, .b_delay_ms = 100, .seed = 1 };
	opterr = 0; /* one line of our own per bad command line */
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (ts_parse_size(optarg, WL_SIZE_FLAGS, &c->size) ||
			    c->size < 2 * TS_PAGE_SIZE || c->size > (UINT64_C(1) << 30) ||
			    (c->size & (c->size - 1))) {
				fprintf(stderr, "large-entry-race: --size: a power of two, 8K..1G: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'o':
			for (i = 0; i < 3 && strcmp(optarg, b_op_names[i]); i++)
				;
			if (i == 3) {
				fprintf(stderr, "large-entry-race: --b-op: fault, read or truncate: '%s'\n", optarg);
				return -1;
			}
			c->op = (enum b_op)i;
			break;
		case 'a':
			if (ts_parse_uint(optarg, 0, UINT32_MAX, &c->a_page)) {
				fprintf(stderr, "large-entry-race: --a-page: a page number: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'p':
			if (ts_parse_uint(optarg, 1, UINT32_MAX, &c->b_page)) {
				fprintf(stderr, "large-entry-race: --b-page: a page number >= 1: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'd':
			if (ts_parse_uint(optarg, 0, 600000, &c->b_delay_ms)) {
				fprintf(stderr, "large-entry-race: --b-delay-ms: 0..600000: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'S':
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &c->seed)) {
				fprintf(stderr, "large-entry-race: --seed: an integer: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'x':
			c->stop = true;
			break;
		case 'h':
			usage(stdout);
			exit(TS_EXIT_OK);
		default:
			fprintf(stderr, "large-entry-race: unknown option or missing value: '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "large-entry-race: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	if (!c->size) {
		fprintf(stderr, "large-entry-race: --size is required (see --help)\n");
		return -1;
	}
	if (c->b_page >= c->size / TS_PAGE_SIZE) {
		fprintf(stderr, "large-entry-race: --b-page %" PRIu64 " is outside the %" PRIu64 " pages\n",
			c->b_page, c->size / TS_PAGE_SIZE);
		return -1;
	}
	if (c->a_page >= c->size / TS_PAGE_SIZE) {
		fprintf(stderr, "large-entry-race: --a-page %" PRIu64 " is outside the %" PRIu64 " pages\n",
			c->a_page, c->size / TS_PAGE_SIZE);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg c;
	struct run r = { .c = &c, .fd = -1 };
	struct sc_map m;
	struct ts_out o;
	struct stat st;
	struct sigaction sa;
	pthread_t ta, tb;
	uint64_t pages, i, n[6] = { 0 }, eof_pages, resident = 0, file_pages;
	unsigned char *vec;
	char err[256], path[64];

	if (parse_args(argc, argv, &c))
		return TS_EXIT_USAGE;
	pages = c.size / TS_PAGE_SIZE;
	/* SA_NODEFER: SIGBUS must not stay blocked after siglongjmp(.., 0). */
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = sigbus_handler;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);

	if (sc_map_create(&m, SC_MEM_SHARED, c.size, SC_THP_ALWAYS, err, sizeof(err))) {
		fprintf(stderr, "large-entry-race: %s\n", err);
		return TS_EXIT_ENV;
	}
	/* The region is 2M-aligned, so also aligned to any smaller power of two. */
	r.base = m.base;
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)(uintptr_t)m.base,
		 (unsigned long)(uintptr_t)(m.base + c.size));
	r.fd = open(path, O_RDWR | O_CLOEXEC);
	if (r.fd < 0) {
		fprintf(stderr, "large-entry-race: open %s: %s\n", path, strerror(errno));
		return TS_EXIT_ENV;
	}
	for (i = 0; i < pages; i++)
		ts_pattern_fill(m.base + i * TS_PAGE_SIZE, c.seed, i, 0);
	if (madvise(m.base, c.size, MADV_PAGEOUT)) {
		fprintf(stderr, "large-entry-race: MADV_PAGEOUT: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	vec = calloc(pages, 1);
	if (!vec || mincore(m.base, c.size, vec)) {
		fprintf(stderr, "large-entry-race: mincore: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	for (i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	if (c.stop)
		raise(SIGSTOP);

	r.t0 = ts_now_ns();
	if (pthread_create(&ta, NULL, thread_a, &r) || pthread_create(&tb, NULL, thread_b, &r)) {
		fprintf(stderr, "large-entry-race: pthread_create failed\n");
		return TS_EXIT_ENV;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);

	/* Every page once more: what is left of the region after the race. */
	eof_pages = c.op == B_TRUNCATE ? pages - c.b_page : 0;
	for (i = 0; i < pages; i++) {
		enum res x = check_mapped(m.base + i * TS_PAGE_SIZE, c.seed, i);

		if (i >= pages - eof_pages)
			n[x == ACC_SIGBUS ? ACC_TRUNCATED : ACC_CORRUPT]++;
		else
			n[x]++;
	}
	if (fstat(r.fd, &st)) {
		fprintf(stderr, "large-entry-race: fstat: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}

	ts_out_begin(&o, stdout, false);
	ts_out_u64(&o, "pages", pages);
	ts_out_u64(&o, "resident_after_pageout", resident);
	ts_out_str(&o, "b_op", b_op_names[c.op]);
	ts_out_str(&o, "a", res_names[r.a]);
	ts_out_str(&o, "b", res_names[r.b]);
	ts_out_u64(&o, "a_ms", r.a_ns / 1000000);
	ts_out_u64(&o, "b_start_ms", r.b_start_ns / 1000000);
	ts_out_u64(&o, "b_ms", r.b_ns / 1000000);
	ts_out_u64(&o, "pages_ok", n[ACC_OK]);
	ts_out_u64(&o, "pages_sigbus", n[ACC_SIGBUS]);
	ts_out_u64(&o, "pages_corrupt", n[ACC_CORRUPT]);
	ts_out_u64(&o, "pages_past_eof", n[ACC_TRUNCATED]);
	/* st_blocks counts pages in memory and in swap, not poisoned ones. */
	ts_out_u64(&o, "file_pages", (uint64_t)st.st_blocks * 512 / TS_PAGE_SIZE);
	ts_out_u64(&o, "file_size_pages", (uint64_t)st.st_size / TS_PAGE_SIZE);
	ts_out_end(&o);
	fflush(stdout);

	file_pages = (uint64_t)st.st_blocks * 512 / TS_PAGE_SIZE;
	if (n[ACC_CORRUPT] || r.a == ACC_CORRUPT || r.b == ACC_CORRUPT)
		return TS_EXIT_FAIL;
	/*
	 * Every page was touched: each is in memory (counted) or was lost
	 * (poisoned, not counted). Truncation may keep a large swap entry
	 * that straddles the new size whole until the inode goes (6.12
	 * skips such boundary entries), so its pages past the end may count.
	 */
	if (file_pages < n[ACC_OK] || file_pages > n[ACC_OK] + n[ACC_TRUNCATED] ||
	    (c.op != B_TRUNCATE && file_pages != n[ACC_OK]))
		return TS_EXIT_FAIL;
	return TS_EXIT_OK;
}
