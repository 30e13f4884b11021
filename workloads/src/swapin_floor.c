/*
 * swapin-floor: what a swap-in cannot cost less than, measured in the boot
 * that measures the swap-ins (issue 19, "the floor"; docs/workloads.md).
 *
 *   swapin-floor [--size 16M] [--rounds 5]
 *
 * copy_4k_ns, copy_64k_ns, copy_2m_ns: one memcpy() of that size from a
 *     RAM buffer into another, both touched beforehand (no fault inside),
 *     over a SIZE region in chunks of that size: the data movement a
 *     swap-in of a folio of that size does at the least;
 * minor_fault_ns: one write fault on a present shmem page (a memfd of SIZE,
 *     written, its PTEs zapped with MADV_DONTNEED, then one byte written per
 *     page; a shared write fault maps one page, no fault-around): what
 *     mapping a page that is already in memory costs;
 * minor_faults_per_page: the faults counted (getrusage) per page touched,
 *     which must be 1 for minor_fault_ns to mean one fault;
 * read_4k_ns: one pread() of 4 KiB from that memfd (in the page cache):
 *     the kernel's own copy of a page (copy_to_user), with a system call
 *     around it. Under QEMU's instruction counting the kernel's copy is
 *     not the user one: without FSRM it is a rep movsb, each byte of it
 *     counted as an instruction, where glibc's memcpy moves 32 bytes an
 *     instruction; brd and tierblk copy a swapped page the same way
 *     (docs/swapin-cost.md).
 * Each value is the median over ROUNDS rounds of the per-operation mean of
 * one round. Results are key=value lines; exit 0, 2 usage, 3 setup.
 */
#define _GNU_SOURCE
#include "ts/out.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_ROUNDS 101

struct cfg {
	uint64_t size;
	uint64_t rounds;
};

static const char usage[] =
	"usage: swapin-floor [--size 16M] [--rounds 5]\n"
	"The cost of a copy of 4K, 64K and 2M and of a minor fault, for comparison with swap-ins.\n";

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int parse_args(int argc, char **argv, struct cfg *c)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*c = (struct cfg){ .size = 16u << 20, .rounds = 5 };
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			if (ts_parse_size(optarg, WL_SIZE_FLAGS, &c->size) || c->size < (2u << 20) ||
			    c->size > (UINT64_C(1) << 32) || c->size % (2u << 20)) {
				fprintf(stderr, "swapin-floor: --size: a multiple of 2M, 2M..4G: '%s'\n", optarg);
				return -1;
			}
			break;
		case 'r':
			if (ts_parse_uint(optarg, 1, MAX_ROUNDS, &c->rounds)) {
				fprintf(stderr, "swapin-floor: --rounds: 1..%d: '%s'\n", MAX_ROUNDS, optarg);
				return -1;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			exit(TS_EXIT_OK);
		default:
			fprintf(stderr, "swapin-floor: unknown option or missing value: '%s' (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "swapin-floor: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* Mean ns of one memcpy() of @chunk bytes over the region, one round. */
static double copy_round(char *dst, const char *src, uint64_t size, uint64_t chunk)
{
	uint64_t off, t0 = ts_now_ns();

	for (off = 0; off < size; off += chunk)
		memcpy(dst + off, src + off, chunk);
	/* Keep the copies: the compiler may not drop them. */
	__asm__ __volatile__("" : : "r"(dst) : "memory");
	return (double)(ts_now_ns() - t0) / (double)(size / chunk);
}

static uint64_t minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_minflt;
}

/* Mean ns of one 4 KiB pread() from @fd over @size bytes, one round; -1 on error. */
static double read_round(int fd, char *buf, uint64_t size)
{
	uint64_t off, t0 = ts_now_ns();

	for (off = 0; off < size; off += TS_PAGE_SIZE)
		if (pread(fd, buf, TS_PAGE_SIZE, (off_t)off) != (ssize_t)TS_PAGE_SIZE)
			return -1;
	return (double)(ts_now_ns() - t0) / (double)(size / TS_PAGE_SIZE);
}

/*
 * One round of minor faults: zap the mapping's PTEs (the pages stay in the
 * memfd), then write one byte per page. Mean ns per fault, and the faults
 * per page in *per_page; -1 if madvise() fails.
 */
static double fault_round(volatile char *map, uint64_t size, double *per_page)
{
	uint64_t pages = size / TS_PAGE_SIZE, i, f0, t0, t1, f1;

	if (madvise((void *)map, size, MADV_DONTNEED))
		return -1;
	f0 = minflt();
	t0 = ts_now_ns();
	for (i = 0; i < pages; i++)
		map[i * TS_PAGE_SIZE] = (char)i;
	t1 = ts_now_ns();
	f1 = minflt();
	*per_page = (double)(f1 - f0) / (double)pages;
	return f1 > f0 ? (double)(t1 - t0) / (double)(f1 - f0) : -1;
}

int main(int argc, char **argv)
{
	static const uint64_t chunks[] = { 4096, 64 << 10, 2 << 20 };
	static const char *const names[] = { "copy_4k_ns", "copy_64k_ns", "copy_2m_ns" };
	double v[MAX_ROUNDS], per_page[MAX_ROUNDS], ns;
	struct ts_out o;
	struct cfg c;
	char *src, *dst, *map;
	uint64_t r;
	size_t k;
	int fd;

	if (parse_args(argc, argv, &c))
		return TS_EXIT_USAGE;
	src = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED || dst == MAP_FAILED) {
		fprintf(stderr, "swapin-floor: mmap %" PRIu64 " bytes: %s\n", c.size, strerror(errno));
		return TS_EXIT_ENV;
	}
	/* Touch both, so no copy below takes a fault. */
	memset(src, 0x5a, c.size);
	memset(dst, 0, c.size);

	ts_out_begin(&o, stdout, false);
	ts_out_u64(&o, "size", c.size);
	ts_out_u64(&o, "rounds", c.rounds);
	for (k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		for (r = 0; r < c.rounds; r++)
			v[r] = copy_round(dst, src, c.size, chunks[k]);
		ts_out_dbl(&o, names[k], median(v, c.rounds), 1);
	}

	fd = memfd_create("swapin-floor", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)c.size)) {
		fprintf(stderr, "swapin-floor: memfd of %" PRIu64 " bytes: %s\n", c.size, strerror(errno));
		return TS_EXIT_ENV;
	}
	map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "swapin-floor: mmap of the memfd: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	memset(map, 1, c.size); /* every page in the page cache */
	for (r = 0; r < c.rounds; r++) {
		ns = fault_round(map, c.size, &per_page[r]);
		if (ns < 0) {
			fprintf(stderr, "swapin-floor: no minor faults measured: %s\n", strerror(errno));
			return TS_EXIT_ENV;
		}
		v[r] = ns;
	}
	ts_out_dbl(&o, "minor_fault_ns", median(v, c.rounds), 1);
	ts_out_dbl(&o, "minor_faults_per_page", median(per_page, c.rounds), 3);
	for (r = 0; r < c.rounds; r++) {
		ns = read_round(fd, dst, c.size);
		if (ns < 0) {
			fprintf(stderr, "swapin-floor: pread of the memfd: %s\n", strerror(errno));
			return TS_EXIT_ENV;
		}
		v[r] = ns;
	}
	ts_out_dbl(&o, "read_4k_ns", median(v, c.rounds), 1);
	ts_out_end(&o);
	return TS_EXIT_OK;
}
