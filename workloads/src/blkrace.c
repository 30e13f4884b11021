/*
 * blkrace: readers of a block device racing the frees of the pages they
 * read (tierblk's page lifetime, issue 19 item 4; docs/workloads.md).
 *
 *   blkrace --dev PATH [--pages 1024] [--seconds 10] [--readers 2]
 *           [--writers 1] [--seed 1] [--no-direct] [--inject-foreign] [--eio-ok]
 *
 * Each writer owns the pages p with p % writers == its number and loops:
 * discard a page (BLKDISCARD; fallocate(PUNCH_HOLE) on a regular file),
 * then write it again whole at the next generation, or one sector of it
 * (a partial write: the driver's zero-filled new page). Readers read
 * random pages meanwhile, so a read races a discard that frees the page
 * it copies from, and a write that allocates the next one.
 *
 * Every 8-byte word a writer writes names its place: bits 63..40 the
 * generation, 39..12 the sector, 11..3 the word in the sector, 2..0 the
 * tag 0b101. A reader accepts a word that is 0 (a discarded or never
 * written place) or that names the place it was read from, whatever its
 * generation, and bytes of it torn with zeroes or another generation (a
 * read racing a write of the same place sees either, or bytes of both:
 * block devices promise nothing there). Data from another place, or from
 * a page given back to the allocator and reused, is caught (and, with
 * KASAN, a copy from a freed page).
 *
 * --writers 0: read only (the device is opened O_RDONLY, nothing is
 * discarded or written, words are not checked): readers racing whatever
 * else uses the device, e.g. swap freeing its slots. --eio-ok: a read
 * that fails with EIO (an injected fault) is counted (read_errors), not
 * fatal.
 *
 * --shared: every writer on every page (no discard before each write: a
 * step is a discard, a whole write or a one-sector write), so writes race
 * writes and discards of the same page; the last pass then checks places
 * only. --write-errors-ok: a failed write is counted (write_errors) and
 * its page's content left unchecked. SIGTERM or SIGINT ends the run early,
 * with its results.
 *
 * --inject-foreign (a self-test of the check): writer 0 first writes page 0
 * with page 1's words and leaves it so; readers must report it.
 * --inject-stale (a self-test of the last pass): one whole page is taken
 * to hold the generation after the one written; the pass must report it.
 *
 * Results are key=value lines: reads, writes, partial_writes, discards,
 * zero_words, bad_words, bad_reads, read_errors, the first bad word's
 * place, and from a last pass over every page once the threads are done
 * (writers only) nonzero_pages (the pages that hold data: a RAM device's
 * allocated pages) and final_bad_words. Exit 0
 * if no word was bad, 1 if one was, 2 usage, 3 setup (device, I/O error).
 */
#define _GNU_SOURCE
#include "ts/out.h"
#include "ts/parse.h"
#include "ts/rng.h"
#include "ts/time.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECTOR 512u
#define WORDS_PER_SECTOR (SECTOR / 8)
#define SECTORS_PER_PAGE (TS_PAGE_SIZE / SECTOR)
#define TAG UINT64_C(5)
#define MAX_THREADS 64

struct cfg {
	const char *dev;
	uint64_t pages;
	uint64_t seconds;
	uint64_t readers;
	uint64_t writers;
	uint64_t seed;
	bool direct;
	bool inject_foreign;
	bool eio_ok;
	bool write_errors_ok;
	bool shared;
	bool inject_stale;
};

/* What a page holds now, as its (only) writer left it: checked exactly at the end. */
enum page_kind { PK_ZERO, PK_WHOLE, PK_SECTOR, PK_UNKNOWN };
struct page_state {
	uint32_t gen;
	uint8_t kind;		/* enum page_kind */
	uint8_t sector;		/* PK_SECTOR: which one */
};

struct shared {
	const struct cfg *c;
	int fd;
	bool is_file;
	uint64_t deadline_ns;
	atomic_bool failed;	/* an I/O error: stop everyone */
	char error[200];
	pthread_mutex_t lock;	/* error, first bad */
	uint64_t first_bad_sector, first_bad_word, first_bad_value;
	bool have_bad;
	struct page_state *state;	/* per page; not with --shared */
};

static atomic_bool stop_asked;	/* SIGTERM or SIGINT: wind down, report */

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop_asked, true);
}

struct worker {
	struct shared *s;
	unsigned id;
	void *buf;
	uint64_t reads, writes, partial, discards, zero_words, bad_words, bad_reads, read_errors;
	uint64_t write_errors;
};

static const char usage[] =
	"usage: blkrace --dev PATH [--pages 1024] [--seconds 10] [--readers 2] [--writers 1]\n"
	"               [--seed 1] [--no-direct] [--inject-foreign] [--eio-ok] [--write-errors-ok]\n"
	"               [--shared] [--inject-stale]\n"
	"Readers of a block device (or file) racing discards and rewrites of the pages they read;\n"
	"every word read must be zero or name its own place. Overwrites the first --pages pages\n"
	"(--writers 0: only reads, checks nothing, changes nothing).\n";

static uint64_t word_of(uint64_t gen, uint64_t sector, unsigned w)
{
	return (gen & 0xffffff) << 40 | (sector & 0xfffffff) << 12 | (uint64_t)w << 3 | TAG;
}

/*
 * A word read at (sector, w) is fine if each of its place bytes (the low
 * five) is 0 or the place's own: zero, any generation of the place, or a
 * copy of one torn by a write or a zero-filled new page under the read.
 */
static bool word_ok(uint64_t v, uint64_t sector, unsigned w)
{
	uint64_t want = word_of(0, sector, w);

	for (unsigned b = 0; b < 5; b++) {
		uint64_t got = v >> (8 * b) & 0xff;

		if (got && got != (want >> (8 * b) & 0xff))
			return false;
	}
	return true;
}

static void fill(uint64_t *p, uint64_t first_sector, unsigned sectors, uint64_t gen)
{
	for (unsigned s = 0; s < sectors; s++)
		for (unsigned w = 0; w < WORDS_PER_SECTOR; w++)
			p[s * WORDS_PER_SECTOR + w] = word_of(gen, first_sector + s, w);
}

static void fail_io(struct shared *s, const char *what, uint64_t page, int err)
{
	pthread_mutex_lock(&s->lock);
	if (!atomic_load(&s->failed))
		snprintf(s->error, sizeof(s->error), "%s of page %" PRIu64 ": %s", what, page,
			 strerror(err));
	atomic_store(&s->failed, true);
	pthread_mutex_unlock(&s->lock);
}

static int discard(struct shared *s, uint64_t page)
{
	uint64_t range[2] = { page * TS_PAGE_SIZE, TS_PAGE_SIZE };

	if (s->is_file)
		return fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 (off_t)range[0], (off_t)range[1]) ? -errno : 0;
	return ioctl(s->fd, BLKDISCARD, range) ? -errno : 0;
}

static bool running(struct shared *s)
{
	return !atomic_load(&s->failed) && !atomic_load(&stop_asked) && ts_now_ns() < s->deadline_ns;
}

/* A write that failed: fatal, or counted with --write-errors-ok. */
static bool write_failed(struct worker *wk, const char *what, uint64_t page)
{
	int err = errno ? errno : EIO;

	if (wk->s->c->write_errors_ok) {
		wk->write_errors++;
		return false;
	}
	fail_io(wk->s, what, page, err);
	return true;
}

/*
 * One writer. Alone on its pages (p % writers == its number): discard, then
 * write whole or one sector, the page's state kept for the last check.
 * --shared: every writer on every page, each step one of discard, whole
 * write, one-sector write, so writes race writes and discards of the same
 * page (two new pages for one place: one goes back).
 */
static void *writer(void *arg)
{
	struct worker *wk = arg;
	struct shared *s = wk->s;
	const struct cfg *c = s->c;
	uint64_t step = c->shared ? 1 : c->writers, base = c->shared ? 0 : wk->id;
	uint64_t mine = (c->pages - base + step - 1) / step, first = 0;
	uint32_t gen = 0;
	struct ts_rng rng;

	ts_rng_seed(&rng, c->seed ^ ((uint64_t)wk->id << 32) ^ 0x3717e);
	if (c->inject_foreign && wk->id == 0) {
		/* the self-test: page 0 holds page 1's words, left so */
		fill(wk->buf, SECTORS_PER_PAGE, SECTORS_PER_PAGE, 1);
		if (pwrite(s->fd, wk->buf, TS_PAGE_SIZE, 0) != (ssize_t)TS_PAGE_SIZE) {
			fail_io(s, "write", 0, errno ? errno : EIO);
			return NULL;
		}
		if (s->state)
			s->state[0] = (struct page_state){ .kind = PK_UNKNOWN };
		first = 1;
	}
	while (mine > first && running(s)) {
		uint64_t page = base + (first + ts_rng_below(&rng, mine - first)) * step;
		uint64_t sector = page * SECTORS_PER_PAGE, r = ts_rng_below(&rng, 8);
		struct page_state *ps = s->state ? &s->state[page] : NULL;
		int ret;

		if (!c->shared || r < 2) {
			ret = discard(s, page);
			if (ret) {
				errno = -ret;
				fail_io(s, "discard", page, -ret);
				break;
			}
			wk->discards++;
			if (ps)
				*ps = (struct page_state){ .kind = PK_ZERO };
			if (c->shared)
				continue;
		}
		gen++;
		errno = 0;
		if (r < 4) {
			/* one sector: on a new page the rest must read as zeroes */
			unsigned k = (unsigned)ts_rng_below(&rng, SECTORS_PER_PAGE);

			fill(wk->buf, sector + k, 1, gen);
			if (pwrite(s->fd, wk->buf, SECTOR, (off_t)((sector + k) * SECTOR)) != (ssize_t)SECTOR) {
				if (write_failed(wk, "one-sector write", page))
					break;
				if (ps)
					ps->kind = PK_UNKNOWN;
				continue;
			}
			wk->partial++;
			if (ps)
				*ps = (struct page_state){ .kind = PK_SECTOR, .gen = gen, .sector = (uint8_t)k };
		} else {
			fill(wk->buf, sector, SECTORS_PER_PAGE, gen);
			if (pwrite(s->fd, wk->buf, TS_PAGE_SIZE, (off_t)(page * TS_PAGE_SIZE)) !=
			    (ssize_t)TS_PAGE_SIZE) {
				if (write_failed(wk, "write", page))
					break;
				if (ps)
					ps->kind = PK_UNKNOWN;
				continue;
			}
			if (ps)
				*ps = (struct page_state){ .kind = PK_WHOLE, .gen = gen };
		}
		wk->writes++;
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct worker *wk = arg;
	struct shared *s = wk->s;
	const struct cfg *c = s->c;
	const uint64_t *p = wk->buf;
	struct ts_rng rng;

	ts_rng_seed(&rng, c->seed ^ ((uint64_t)wk->id << 32) ^ 0x4ead);
	while (running(s)) {
		uint64_t page = ts_rng_below(&rng, c->pages), bad = 0;

		errno = 0;
		if (pread(s->fd, wk->buf, TS_PAGE_SIZE, (off_t)(page * TS_PAGE_SIZE)) != (ssize_t)TS_PAGE_SIZE) {
			if (errno == EIO && c->eio_ok) {
				wk->read_errors++;
				continue;
			}
			fail_io(s, "read", page, errno ? errno : EIO);
			break;
		}
		wk->reads++;
		if (!c->writers)
			continue;
		for (unsigned i = 0; i < TS_PAGE_SIZE / 8; i++) {
			uint64_t sector = page * SECTORS_PER_PAGE + i / WORDS_PER_SECTOR;
			unsigned w = i % WORDS_PER_SECTOR;

			if (!p[i]) {
				wk->zero_words++;
				continue;
			}
			if (word_ok(p[i], sector, w))
				continue;
			if (!bad++) {
				pthread_mutex_lock(&s->lock);
				if (!s->have_bad) {
					s->have_bad = true;
					s->first_bad_sector = sector;
					s->first_bad_word = w;
					s->first_bad_value = p[i];
				}
				pthread_mutex_unlock(&s->lock);
			}
		}
		wk->bad_words += bad;
		wk->bad_reads += bad != 0;
	}
	return NULL;
}

static int parse_args(int argc, char **argv, struct cfg *c)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "pages", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "readers", required_argument, NULL, 'r' },
		{ "writers", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 'S' },
		{ "no-direct", no_argument, NULL, 'n' },
		{ "inject-foreign", no_argument, NULL, 'f' },
		{ "eio-ok", no_argument, NULL, 'e' },
		{ "write-errors-ok", no_argument, NULL, 'W' },
		{ "shared", no_argument, NULL, 'x' },
		{ "inject-stale", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*c = (struct cfg){ .pages = 1024, .seconds = 10, .readers = 2, .writers = 1, .seed = 1,
			   .direct = true };
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'd': c->dev = optarg; break;
		case 'p':
			if (ts_parse_uint(optarg, 1, UINT64_C(1) << 25, &c->pages)) {
				fprintf(stderr, "blkrace: --pages: 1..%u: '%s'\n", 1u << 25, optarg);
				return -1;
			}
			break;
		case 's':
			if (ts_parse_uint(optarg, 1, 3600, &c->seconds)) {
				fprintf(stderr, "blkrace: --seconds: 1..3600: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'r':
		case 'w':
			if (ts_parse_uint(optarg, ch == 'r' ? 1 : 0, MAX_THREADS / 2,
					  ch == 'r' ? &c->readers : &c->writers)) {
				fprintf(stderr, "blkrace: --%s: %d..%d: '%s'\n", ch == 'r' ? "readers" : "writers",
					ch == 'r' ? 1 : 0, MAX_THREADS / 2, optarg);
				return -1;
			}
			break;
		case 'S':
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &c->seed)) {
				fprintf(stderr, "blkrace: --seed: a number: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'n': c->direct = false; break;
		case 'f': c->inject_foreign = true; break;
		case 'e': c->eio_ok = true; break;
		case 'W': c->write_errors_ok = true; break;
		case 'x': c->shared = true; break;
		case 'T': c->inject_stale = true; break;
		case 'h':
			fputs(usage, stdout);
			exit(TS_EXIT_OK);
		default:
			fprintf(stderr, "blkrace: unknown option or missing value: '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "blkrace: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	if (!c->dev) {
		fprintf(stderr, "blkrace: --dev PATH is required (see --help)\n");
		return -1;
	}
	if (c->inject_foreign && (!c->writers || c->pages < 2)) {
		fprintf(stderr, "blkrace: --inject-foreign needs a writer and 2 pages or more\n");
		return -1;
	}
	if (c->inject_stale && (!c->writers || c->shared)) {
		fprintf(stderr, "blkrace: --inject-stale needs pages with one writer (writers, not --shared)\n");
		return -1;
	}
	if (c->shared && c->inject_foreign) {
		fprintf(stderr, "blkrace: --inject-foreign needs pages with one writer (not --shared)\n");
		return -1;
	}
	if (c->writers > c->pages) {
		fprintf(stderr, "blkrace: --writers %" PRIu64 " > --pages %" PRIu64 "\n", c->writers, c->pages);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct worker wk[MAX_THREADS] = { 0 };
	pthread_t tid[MAX_THREADS];
	struct shared s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	unsigned n = 0, started = 0;
	struct cfg c;
	struct stat st;
	struct ts_out o;
	uint64_t t0, tot[9] = { 0 }, nonzero_pages = 0, final_bad = 0;
	int e;

	if (parse_args(argc, argv, &c))
		return TS_EXIT_USAGE;
	s.c = &c;
	s.fd = open(c.dev, (c.writers ? O_RDWR : O_RDONLY) | (c.direct ? O_DIRECT : 0));
	if (s.fd < 0 || fstat(s.fd, &st)) {
		fprintf(stderr, "blkrace: %s: %s\n", c.dev, strerror(errno));
		return TS_EXIT_ENV;
	}
	s.is_file = S_ISREG(st.st_mode);
	if (!s.is_file && !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "blkrace: %s: not a block device or a regular file\n", c.dev);
		return TS_EXIT_ENV;
	}
	if (c.writers && s.is_file && ftruncate(s.fd, (off_t)(c.pages * TS_PAGE_SIZE))) {
		fprintf(stderr, "blkrace: %s: ftruncate: %s\n", c.dev, strerror(errno));
		return TS_EXIT_ENV;
	}
	if (!c.writers || !s.is_file) {
		uint64_t bytes = s.is_file ? (uint64_t)st.st_size : 0;

		if ((!s.is_file && ioctl(s.fd, BLKGETSIZE64, &bytes)) || bytes < c.pages * TS_PAGE_SIZE) {
			fprintf(stderr, "blkrace: %s: %" PRIu64 " bytes, --pages %" PRIu64 " needs %" PRIu64 "\n",
				c.dev, bytes, c.pages, c.pages * TS_PAGE_SIZE);
			return TS_EXIT_ENV;
		}
	}
	n = (unsigned)(c.readers + c.writers);
	for (unsigned i = 0; i < n; i++) {
		wk[i].s = &s;
		wk[i].id = i < c.writers ? i : i - (unsigned)c.writers;
		if (posix_memalign(&wk[i].buf, TS_PAGE_SIZE, TS_PAGE_SIZE)) {
			fprintf(stderr, "blkrace: out of memory\n");
			return TS_EXIT_ENV;
		}
	}
	if (c.writers && !c.shared) {
		s.state = calloc(c.pages, sizeof(*s.state));
		if (!s.state) {
			fprintf(stderr, "blkrace: out of memory\n");
			return TS_EXIT_ENV;
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	/* Start from a device that holds no page: everything reads zero. */
	for (uint64_t p = 0; c.writers && p < c.pages; p++) {
		e = discard(&s, p);
		if (e) {
			fprintf(stderr, "blkrace: %s: discard of page %" PRIu64 ": %s\n", c.dev, p, strerror(-e));
			return TS_EXIT_ENV;
		}
	}
	t0 = ts_now_ns();
	s.deadline_ns = t0 + c.seconds * UINT64_C(1000000000);
	for (unsigned i = 0; i < n; i++) {
		e = pthread_create(&tid[i], NULL, i < c.writers ? writer : reader, &wk[i]);
		if (e) {
			fail_io(&s, "pthread_create", 0, e);
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	/* the last check's self-test: one whole page is said to be a generation on */
	for (uint64_t p = 0; c.inject_stale && p < c.pages; p++) {
		if (s.state[p].kind == PK_WHOLE) {
			s.state[p].gen++;
			break;
		}
	}
	/*
	 * Quiescent: every page once more. A page a writer wrote holds data
	 * (nonzero_pages: what the device should count as allocated), and no
	 * word may be bad now; a page with one writer must hold exactly what
	 * it left (its last whole write, or its last sector and zeroes, or
	 * zeroes after a discard), --shared pages only their place's words.
	 * With --eio-ok a read that fails is tried again (100 times).
	 */
	for (uint64_t p = 0; c.writers && !atomic_load(&s.failed) && p < c.pages; p++) {
		const uint64_t *w = wk[0].buf;
		const struct page_state *ps = s.state ? &s.state[p] : NULL;
		bool nonzero = false;
		int tries = 0;
		ssize_t got;

		do {
			errno = 0;
			got = pread(s.fd, wk[0].buf, TS_PAGE_SIZE, (off_t)(p * TS_PAGE_SIZE));
		} while (got != (ssize_t)TS_PAGE_SIZE && errno == EIO && c.eio_ok && ++tries < 100);
		if (got != (ssize_t)TS_PAGE_SIZE) {
			fail_io(&s, "final read", p, errno ? errno : EIO);
			break;
		}
		for (unsigned i = 0; i < TS_PAGE_SIZE / 8; i++) {
			uint64_t sector = p * SECTORS_PER_PAGE + i / WORDS_PER_SECTOR, want = 0;
			unsigned k = i / WORDS_PER_SECTOR;
			bool ok;

			nonzero |= w[i] != 0;
			if (!ps || ps->kind == PK_UNKNOWN) {
				ok = word_ok(w[i], sector, i % WORDS_PER_SECTOR);
			} else {
				if (ps->kind == PK_WHOLE || (ps->kind == PK_SECTOR && k == ps->sector))
					want = word_of(ps->gen, sector, i % WORDS_PER_SECTOR);
				ok = w[i] == want;
			}
			final_bad += !ok;
		}
		nonzero_pages += nonzero;
	}
	for (unsigned i = 0; i < n; i++) {
		tot[0] += wk[i].reads;
		tot[1] += wk[i].writes;
		tot[2] += wk[i].partial;
		tot[3] += wk[i].discards;
		tot[4] += wk[i].zero_words;
		tot[5] += wk[i].bad_words;
		tot[6] += wk[i].bad_reads;
		tot[7] += wk[i].read_errors;
		tot[8] += wk[i].write_errors;
		free(wk[i].buf);
	}
	close(s.fd);
	free(s.state);

	ts_out_begin(&o, stdout, false);
	ts_out_str(&o, "dev", c.dev);
	ts_out_u64(&o, "pages", c.pages);
	ts_out_u64(&o, "readers", c.readers);
	ts_out_u64(&o, "writers", c.writers);
	ts_out_str(&o, "direct", c.direct ? "yes" : "no");
	ts_out_u64(&o, "reads", tot[0]);
	ts_out_u64(&o, "writes", tot[1]);
	ts_out_u64(&o, "partial_writes", tot[2]);
	ts_out_u64(&o, "discards", tot[3]);
	ts_out_u64(&o, "zero_words", tot[4]);
	ts_out_u64(&o, "bad_words", tot[5]);
	ts_out_u64(&o, "bad_reads", tot[6]);
	ts_out_u64(&o, "read_errors", tot[7]);
	ts_out_u64(&o, "write_errors", tot[8]);
	ts_out_str(&o, "shared", c.shared ? "yes" : "no");
	if (c.writers) {
		ts_out_u64(&o, "nonzero_pages", nonzero_pages);
		ts_out_u64(&o, "final_bad_words", final_bad);
	}
	if (s.have_bad) {
		ts_out_u64(&o, "first_bad_sector", s.first_bad_sector);
		ts_out_u64(&o, "first_bad_word", s.first_bad_word);
		char v[24];

		snprintf(v, sizeof(v), "0x%016" PRIx64, s.first_bad_value);
		ts_out_str(&o, "first_bad_value", v);
	}
	ts_out_dbl(&o, "elapsed_ms", (double)(ts_now_ns() - t0) / 1e6, 1);
	if (atomic_load(&s.failed)) {
		ts_out_str(&o, "error", "io");
		ts_out_end(&o);
		fprintf(stderr, "blkrace: %s: %s\n", c.dev, s.error);
		return TS_EXIT_ENV;
	}
	ts_out_str(&o, "result", tot[5] || final_bad ? "fail" : "pass");
	ts_out_end(&o);
	return tot[5] || final_bad ? TS_EXIT_FAIL : TS_EXIT_OK;
}
