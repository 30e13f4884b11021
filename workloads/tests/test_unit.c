/* Host unit tests: sizes, pattern/verify, histogram, RNG/Zipf, argument
 * parsing, pagemap and vmstat parsing. No swap, no root. */
#include "folios.h"
#include "hist.h"
#include "pattern.h"
#include "rng.h"
#include "sc.h"
#include "ss_args.h"
#include "sysstat.h"
#include "ts/tap.h"
#include "um_args.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void test_sizes(struct ts_tap *t)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 }, { "64M", 64ull << 20 },
		{ "1G", 1ull << 30 }, { "2T", 2ull << 40 }, { "1MiB", 1ull << 20 },
		{ "1MB", 1ull << 20 }, { "0", 0 }, { "512b", 512 },
	};
	static const char *const bad[] = {
		"", "M", "x", "12Q", "-1", "1.5G", "1 M", "99999999999999999999",
		"20000000000T", "4kk", "0x10",
	};
	int allok = 1;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 0;
		if (ts_parse_size(good[i].s, WL_SIZE_FLAGS, &v) || v != good[i].v) {
			printf("# size '%s' -> %" PRIu64 "\n", good[i].s, v);
			allok = 0;
		}
	}
	TS_TAP_OK(t, allok, "ts_parse_size accepts k/M/G/T sizes");
	allok = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v;
		if (ts_parse_size(bad[i], WL_SIZE_FLAGS, &v) == 0) {
			printf("# size '%s' accepted\n", bad[i]);
			allok = 0;
		}
	}
	TS_TAP_OK(t, allok, "ts_parse_size rejects malformed and overflowing sizes");
	uint64_t u;
	TS_TAP_OK(t, ts_parse_uint("12", 1, 20, &u) == 0 && u == 12 && ts_parse_uint("0", 1, 20, &u) &&
		  ts_parse_uint("21", 1, 20, &u) && ts_parse_uint("1x", 0, 20, &u),
	       "ts_parse_uint range and syntax");
}

static void test_pattern(struct ts_tap *t)
{
	uint64_t *page = aligned_alloc(4096, 4096), *other = aligned_alloc(4096, 4096);
	struct ts_mismatch m;
	int allok = 1;

	for (uint64_t seed = 0; seed < 3; seed++)
		for (uint64_t pg = 0; pg < 200; pg += 37)
			for (uint32_t gen = 0; gen < 3; gen++) {
				ts_pattern_fill(page, seed, pg, gen);
				if (ts_pattern_verify(page, seed, pg, gen, &m))
					allok = 0;
				for (size_t w = 0; w < TS_PAT_WORDS; w += 97)
					if (page[w] != ts_pattern_word(seed, pg, gen, w))
						allok = 0;
			}
	TS_TAP_OK(t, allok, "pattern fill then verify round-trips; ts_pattern_word agrees");

	/* every single-bit flip anywhere is caught at the right offset */
	allok = 1;
	ts_pattern_fill(page, 42, 1234, 7);
	for (size_t byte = 0; byte < 4096; byte += 61) {
		for (int bit = 0; bit < 8; bit += 3) {
			((unsigned char *)page)[byte] ^= (unsigned char)(1u << bit);
			memset(&m, 0, sizeof(m));
			if (!ts_pattern_verify(page, 42, 1234, 7, &m) || m.offset != (byte & ~7ul) ||
			    m.expected != ts_pattern_word(42, 1234, 7, byte / 8) ||
			    m.found != (m.expected ^ ((uint64_t)1 << ((byte % 8) * 8 + (size_t)bit)))) {
				printf("# flip at byte %zu bit %d: offset %zu\n", byte, bit, m.offset);
				allok = 0;
			}
			((unsigned char *)page)[byte] ^= (unsigned char)(1u << bit);
		}
	}
	TS_TAP_OK(t, allok, "a single flipped bit is reported with its offset, expected and found word");

	ts_pattern_fill(page, 42, 1234, 7);
	((unsigned char *)page)[4095] ^= 0x80;
	TS_TAP_OK(t, ts_pattern_verify(page, 42, 1234, 7, &m) && m.offset == 4088,
	       "corruption in the last byte of the page is caught");

	ts_pattern_fill(other, 42, 1233, 7);
	memset(&m, 0, sizeof(m));
	TS_TAP_OK(t, ts_pattern_verify(other, 42, 1234, 7, &m) && m.offset == 0 && m.found_has_magic &&
		  m.found_page == 1233 && m.found_gen == 7,
	       "a neighbour's page in this slot is caught and named (found_page)");

	ts_pattern_fill(other, 42, 1234, 6);
	TS_TAP_OK(t, ts_pattern_verify(other, 42, 1234, 7, &m) && m.found_gen == 6 && m.found_page == 1234 &&
		  m.offset == 8,
	       "a stale generation of the same page is caught (found_gen)");

	memset(other, 0, 4096);
	TS_TAP_OK(t, ts_pattern_verify(other, 42, 1234, 7, &m) && m.found_zero && !m.found_has_magic,
	       "a zero-filled page is caught (found_zero)");

	ts_pattern_fill(other, 43, 1234, 7);
	TS_TAP_OK(t, ts_pattern_verify(other, 42, 1234, 7, &m), "data written with another seed is caught");

	/* --zero-pct: which pages hold zeroes, and their verification */
	{
		unsigned n0 = 0, n30 = 0, n100 = 0, same = 1;

		for (uint64_t pg = 0; pg < 10000; pg++) {
			n0 += (unsigned)ts_pattern_is_zero(5, pg, 0);
			n30 += (unsigned)ts_pattern_is_zero(5, pg, 30);
			n100 += (unsigned)ts_pattern_is_zero(5, pg, 100);
			same &= ts_pattern_is_zero(5, pg, 30) == ts_pattern_is_zero(5, pg, 30);
		}
		printf("# zero pages of 10000: 0%% %u, 30%% %u, 100%% %u\n", n0, n30, n100);
		TS_TAP_OK(t, n0 == 0 && n100 == 10000 && n30 > 2800 && n30 < 3200 && same,
			  "ts_pattern_is_zero: none at 0%%, all at 100%%, 28-32%% of 10000 pages at 30%%, stable");
	}
	memset(other, 0, 4096);
	TS_TAP_OK(t, !ts_pattern_verify_words(other, 42, 1234, 7, 0, &m), "a zero page verifies as zero");
	((unsigned char *)other)[100] = 1;
	memset(&m, 0, sizeof(m));
	TS_TAP_OK(t, ts_pattern_verify_words(other, 42, 1234, 7, 0, &m) && m.offset == 96 && m.expected == 0 &&
		  m.found == (1ull << 32) && !m.found_zero,
		  "a byte set in a zero page is reported with its offset (96) and word");
	ts_pattern_fill(other, 42, 1234, 7);
	TS_TAP_OK(t, ts_pattern_verify_words(other, 42, 1234, 7, 0, &m) && m.offset == 0 && m.found_has_magic &&
		  m.found_page == 1234,
		  "a pattern page where zeroes were expected is caught and named");

	/* sparse pages: the first words of the pattern, zeroes after */
	ts_pattern_fill_words(other, 42, 1234, 7, TS_PAT_SPARSE_WORDS);
	TS_TAP_OK(t, !ts_pattern_verify_words(other, 42, 1234, 7, TS_PAT_SPARSE_WORDS, &m) &&
		  other[TS_PAT_SPARSE_WORDS - 1] == ts_pattern_word(42, 1234, 7, TS_PAT_SPARSE_WORDS - 1) &&
		  !other[TS_PAT_SPARSE_WORDS] && !other[511],
		  "a sparse page holds the first words of the pattern and zeroes, and verifies");
	other[300] = 1;
	TS_TAP_OK(t, ts_pattern_verify_words(other, 42, 1234, 7, TS_PAT_SPARSE_WORDS, &m) &&
		  m.offset == 2400 && m.expected == 0 && m.found == 1,
		  "a word set in a sparse page's zeroes is caught at its offset");
	ts_pattern_fill(other, 42, 1234, 7);
	TS_TAP_OK(t, ts_pattern_verify_words(other, 42, 1234, 7, TS_PAT_SPARSE_WORDS, &m) &&
		  m.offset == TS_PAT_SPARSE_WORDS * 8,
		  "a whole pattern page where a sparse one was expected is caught");

	/* a page shifted by one word (misaligned copy) */
	ts_pattern_fill(page, 42, 1234, 7);
	memmove(other, (char *)page + 8, 4096 - 8);
	other[511] = page[511];
	TS_TAP_OK(t, ts_pattern_verify(other, 42, 1234, 7, &m) && m.offset == 0,
	       "a page shifted by 8 bytes is caught");

	/* patterns of neighbouring pages differ in every pattern word */
	ts_pattern_fill(page, 1, 10, 0);
	ts_pattern_fill(other, 1, 11, 0);
	int same = 0;
	for (size_t w = 0; w < TS_PAT_WORDS; w++)
		same += page[w] == other[w];
	TS_TAP_OK(t, same <= 1, "adjacent pages share at most the seed word (%d shared)", same);
	free(page);
	free(other);
}

static void test_hist(struct ts_tap *t)
{
	struct ts_hist h, h2;
	int allok = 1;

	ts_hist_init(&h);
	for (uint64_t v = 1; v <= 100000; v++)
		ts_hist_add(&h, v);
	uint64_t p50 = ts_hist_quantile(&h, 0.5), p99 = ts_hist_quantile(&h, 0.99);
	TS_TAP_OK(t, p50 >= 50000 && p50 <= 50000 * 1.04 && p99 >= 99000 && p99 <= 99000 * 1.04 &&
		  ts_hist_quantile(&h, 1.0) == 100000 && h.min_ns == 1,
	       "histogram percentiles within 4%% (p50=%" PRIu64 " p99=%" PRIu64 ")", p50, p99);

	for (uint64_t v = 0; v < 5000000; v = v * 3 / 2 + 1) {
		unsigned b = ts_hist_bucket(v);
		if (ts_hist_bucket_upper(b) < v || (b && ts_hist_bucket_upper(b - 1) >= v))
			allok = 0;
	}
	TS_TAP_OK(t, allok && ts_hist_bucket(UINT64_MAX) < TS_HIST_BUCKETS,
	       "histogram buckets are contiguous and cover 64-bit values");

	ts_hist_init(&h2);
	ts_hist_add(&h2, 7000000);
	ts_hist_merge(&h, &h2);
	TS_TAP_OK(t, h.count == 100001 && h.max_ns == 7000000, "histograms merge");
}

static void test_rng(struct ts_tap *t)
{
	struct ts_rng a, b;
	int same = 1, inrange = 1;

	wl_rng_seed(&a, 99);
	wl_rng_seed(&b, 99);
	for (int i = 0; i < 1000; i++) {
		if (ts_rng_next(&a) != ts_rng_next(&b))
			same = 0;
		if (ts_rng_below(&a, 17) >= 17)
			inrange = 0;
		(void)ts_rng_below(&b, 17);
	}
	TS_TAP_OK(t, same && inrange, "rng is deterministic per seed and below(n) < n");

	/* --seed 42 draws what it drew before the shared generator */
	wl_rng_seed(&a, 42);
	uint64_t v0 = ts_rng_next(&a), v1 = ts_rng_next(&a);
	TS_TAP_OK(t, v0 == 0xbe15272cdf80b6c2ull && v1 == 0xaf6e2ee49ff5d0e3ull,
		  "rng: the workloads' seed 42 keeps its sequence (%#" PRIx64 ")", v0);

	struct ts_zipf z;
	uint64_t n = 10000, hot = 0, N = 200000;
	int ok = 1;
	ts_zipf_init(&z, n, 1.0);
	wl_rng_seed(&a, 5);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t r = ts_zipf_rank(&z, &a);
		if (r >= n)
			ok = 0;
		hot += r < n / 100;
	}
	double frac = (double)hot / (double)N, want = log(101.0) / log(10001.0);
	TS_TAP_OK(t, ok && fabs(frac - want) < 0.03,
	       "zipf s=1: hottest 1%% of pages get %.2f of accesses (expected %.2f)", frac, want);

	ts_zipf_init(&z, n, 0.0);
	hot = 0;
	for (uint64_t i = 0; i < N; i++)
		hot += ts_zipf_rank(&z, &a) < n / 100;
	TS_TAP_OK(t, fabs((double)hot / (double)N - 0.01) < 0.005, "zipf s=0 is uniform");

	ts_zipf_init(&z, 1000, 1.2);
	unsigned char *seen = calloc(1000, 1);
	ok = 1;
	for (uint64_t r = 0; r < 1000; r++) {
		uint64_t pg = ts_zipf_page(&z, r);
		if (pg >= 1000 || seen[pg]++)
			ok = 0;
	}
	TS_TAP_OK(t, ok && ts_zipf_page(&z, 1) != 1, "zipf rank->page map is a scattering bijection");
	free(seen);
}

static int parse_ss(struct ss_config *c, char *err, const char *line)
{
	char buf[512], *argv[64];
	int argc = 0;

	snprintf(buf, sizeof(buf), "swapstress %s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	ss_config_defaults(c);
	err[0] = '\0';
	return ss_parse_args(argc, argv, c, err, 256);
}

static void test_ss_args(struct ts_tap *t)
{
	struct ss_config c;
	char err[256];
	int r;

	r = parse_ss(&c, err, "--size 64M --mem shmem --procs 2 --access read --thp always --pattern zipf "
			      "--passes 3 --pageout memcg --memcg-max 32M --pagemap /tmp/pm "
			      "--stop-after-pageout --expect-sigbus --seed 7");
	TS_TAP_OK(t, r == 0 && c.size == 64ull << 20 && c.mem == SS_MEM_SHMEM && c.procs == 2 &&
		  c.access == SS_ACCESS_READ && c.thp == SS_THP_ALWAYS && c.pattern == SS_PAT_ZIPF &&
		  c.passes == 3 && c.pageout == SS_PAGEOUT_MEMCG && c.memcg_max == 32ull << 20 &&
		  c.pagemap_file && strcmp(c.pagemap_file, "/tmp/pm") == 0 && c.stop_after_pageout &&
		  c.expect_sigbus && c.seed == 7,
	       "swapstress: the documented interface parses (%s)", err);

	r = parse_ss(&c, err, "--size=8M --mem=anon --pageout=memcg --thp=never --pattern=random");
	TS_TAP_OK(t, r == 0 && c.size == 8ull << 20 && c.memcg_max == 4ull << 20 && c.thp == SS_THP_NEVER &&
		  c.pattern == SS_PAT_RANDOM,
	       "swapstress: --opt=value form; memcg max defaults to size/2");

	r = parse_ss(&c, err, "--mode swapin-timer --mem shmem --size 256M");
	TS_TAP_OK(t, r == 0 && c.mode == SS_MODE_SWAPIN_TIMER && c.pageout == SS_PAGEOUT_MADVISE,
	       "swapstress: swapin-timer mode");

	TS_TAP_OK(t, parse_ss(&c, err, "--help") == 1 && parse_ss(&c, err, "--size 4M -h") == 1,
	       "swapstress: --help / -h");

	static const struct { const char *args, *msg; } bad[] = {
		{ "--size", "needs a value" },
		{ "--size 12Q", "bad value" },
		{ "--size 0", "bad value" },
		{ "--size 4097", "multiple" },
		{ "--mem disk", "bad value" },
		{ "--procs 0", "bad value" },
		{ "--procs 300", "bad value" },
		{ "--bogus", "unknown option" },
		{ "extra", "unexpected argument" },
		{ "--access read", "needs --mem shmem" },
		{ "--memcg-max 32M", "need --pageout memcg" },
		{ "--pageout madvise --memcg-name x", "need --pageout memcg" },
		{ "--pageout memcg --memcg-name a/b", "bad value" },
		{ "--mode swapin-timer --pageout memcg", "needs --pageout madvise" },
		{ "--json=1", "takes no value" },
		{ "--size 8k --procs 3", "fewer than procs" },
		{ "--inject-truncate 3", "needs --mem shmem" },
		{ "--size 8k --inject-corrupt 2", "beyond" },
		{ "--write-pct 101", "bad value" },
		{ "--zipf-s -1", "bad value" },
	};
	int allok = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = parse_ss(&c, err, bad[i].args);
		if (r != -1 || !strstr(err, bad[i].msg) || strchr(err, '\n')) {
			printf("# '%s' -> %d '%s'\n", bad[i].args, r, err);
			allok = 0;
		}
	}
	TS_TAP_OK(t, allok, "swapstress: bad arguments give a one-line message");
}

static int parse_um(struct um_config *c, char *err, const char *line)
{
	char buf[512], *argv[64];
	int argc = 0;

	snprintf(buf, sizeof(buf), "usemem %s", line);
	for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	um_config_defaults(c);
	err[0] = '\0';
	return um_parse_args(argc, argv, c, err, 256);
}

static void test_um_args(struct ts_tap *t)
{
	struct um_config c;
	char err[256];
	int r;

	r = parse_um(&c, err, "--init-time -O -y -x -n 32 1536M");
	TS_TAP_OK(t, r == 0 && c.init_time && c.anonymous && c.sync_rw && c.sync_free && c.nr_task == 32 &&
		  c.bytes == 1536ull << 20,
	       "usemem: cover-letter command line parses (%s)", err);
	r = parse_um(&c, err, "-On4 -t2 -r 3 -RZq --seed 9 64m");
	TS_TAP_OK(t, r == 0 && c.anonymous && c.nr_task == 4 && c.nr_thread == 2 && c.repeat == 3 &&
		  c.random && c.read_again && c.quiet && c.seed == 9 && c.bytes == 64ull << 20,
	       "usemem: bundled short options (%s)", err);
	r = parse_um(&c, err, "1G -n 2");
	TS_TAP_OK(t, r == 0 && c.nr_task == 2 && c.bytes == 1ull << 30, "usemem: options after the size");
	TS_TAP_OK(t, parse_um(&c, err, "--help") == 1, "usemem: --help");
	static const char *const bad[] = {
		"-n 2", "-n 0 1G", "-P 1G", "-u 1M 1G", "--bogus 1G", "1G 2G", "1Q", "-a -O 1G", "-j 12 1G",
	};
	int allok = 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = parse_um(&c, err, bad[i]);
		if (r != -1 || !err[0] || strchr(err, '\n')) {
			printf("# '%s' -> %d '%s'\n", bad[i], r, err);
			allok = 0;
		}
	}
	TS_TAP_OK(t, allok, "usemem: bad arguments give a one-line message");
}

static void test_sysstat(struct ts_tap *t)
{
	char line[64];
	uint64_t e = TS_PM_SWAP | (12345ull << 5) | 3;

	ts_pagemap_format(line, sizeof(line), 7, e);
	TS_TAP_OK(t, strcmp(line, "7 3 12345\n") == 0, "pagemap swap entry decodes to type and offset");
	ts_pagemap_format(line, sizeof(line), 8, TS_PM_PRESENT | 999);
	TS_TAP_OK(t, strcmp(line, "8 - -\n") == 0, "pagemap present page prints '- -'");
	ts_pagemap_format(line, sizeof(line), 9, 0);
	TS_TAP_OK(t, strcmp(line, "9 - -\n") == 0, "pagemap empty entry prints '- -'");
	e = TS_PM_SWAP | ((1ull << 50) - 1) << 5 | 31;
	TS_TAP_OK(t, TS_PM_SWAP_TYPE(e) == 31 && TS_PM_SWAP_OFFSET(e) == (1ull << 50) - 1,
	       "pagemap: 5 type bits, 50 offset bits");

	struct ts_vmstat s;
	memset(&s, 0, sizeof(s));
	ts_vmstat_parse(&s, "nr_free_pages 5\npswpin_bogus 9\npswpin 11\npswpout 22\nzswpin 0\n");
	TS_TAP_OK(t, s.have[TS_VM_pswpin] && s.v[TS_VM_pswpin] == 11 && s.v[TS_VM_pswpout] == 22 &&
		  s.have[TS_VM_zswpin] && !s.have[TS_VM_pgmajfault],
	       "vmstat parsing picks exact keys");
	struct ts_vmstat s2 = s;
	s2.v[TS_VM_pswpin] = 15;
	TS_TAP_OK(t, ts_vmstat_delta(&s, &s2, TS_VM_pswpin) == 4 && ts_vmstat_delta(&s2, &s, TS_VM_pswpin) == 0,
	       "vmstat deltas");
}

static void test_folios(struct ts_tap *t)
{
	enum { N = 40 };
	const uint64_t H = 1ULL << 15, T = 1ULL << 16;
	uint64_t pfn[N], fl[N];
	struct ts_folio_census c;
	char buf[100];
	struct ss_config cfg;
	char err[200];
	char *argv[] = { "swapstress", "--mem", "shared", "--folio-stats", NULL };

	/* 0-3: order 0; 4-19: a 16-page folio; 20-21 not present;
	 * 22-24: a tail run without its head (range starts mid-folio);
	 * 25-39: a head with 14 tails (15 pages: mapped in part) */
	for (int i = 0; i < N; i++) {
		pfn[i] = 1000 + (uint64_t)i;
		fl[i] = 0;
	}
	fl[4] = H;
	for (int i = 5; i < 20; i++)
		fl[i] = T;
	pfn[20] = pfn[21] = 0;
	for (int i = 22; i < 25; i++)
		fl[i] = T;
	fl[25] = H;
	for (int i = 26; i < N; i++)
		fl[i] = T;
	ts_folio_count(pfn, fl, N, &c);
	TS_TAP_OK(t, c.pages[0] == 4, "folios: order-0 pages counted (%llu)", (unsigned long long)c.pages[0]);
	TS_TAP_OK(t, c.pages[4] == 16, "folios: a 16-page folio is order 4");
	TS_TAP_OK(t, c.not_present == 2, "folios: pages not present counted");
	TS_TAP_OK(t, c.partial == 3 + 15, "folios: orphan tails and a 15-page run are partial (%llu)",
	       (unsigned long long)c.partial);
	/* a tail whose PFN does not follow ends the folio there */
	pfn[10] = 5;
	ts_folio_count(pfn, fl, 20, &c);
	TS_TAP_OK(t, c.pages[4] == 0 && c.pages[2] == 0 && c.partial == 6 + 10,
	       "folios: a PFN gap splits a run into partial pieces");
	ts_folio_count(pfn, fl, 4, &c);
	ts_folio_format(&c, buf, sizeof(buf));
	TS_TAP_OK(t, strcmp(buf, "0:4") == 0, "folios: format '%s'", buf);
	ss_config_defaults(&cfg);
	TS_TAP_OK(t, ss_parse_args(4, argv, &cfg, err, sizeof(err)) == 0 &&
		  cfg.mem == SS_MEM_SHARED && cfg.folio_stats,
	       "ss_args: --mem shared --folio-stats");
}

static void test_sc_census(struct ts_tap *t)
{
	enum { N = 8 };
	const uint64_t P = TS_PM_PRESENT, S = TS_PM_SWAP;
	const uint64_t H = SC_KPF_COMPOUND_HEAD, T = SC_KPF_COMPOUND_TAIL, SC = SC_KPF_SWAPCACHE;
	/* 0: order 0; 1-4: a large folio in the swap cache; 5: order 0 in the
	 * swap cache; 6: swapped out; 7: not mapped at all */
	uint64_t pm[N] = { P | 10, P | 20, P | 21, P | 22, P | 23, P | 30, S | (7ull << 5) | 1, 0 };
	uint64_t fl[N] = { 0, H | SC, T | SC, T | SC, T | SC, SC, 0, 0 };
	struct sc_census c;

	sc_census_count(pm, fl, N, &c);
	TS_TAP_OK(t, c.present == 6 && c.large == 4 && c.swapcache == 5 && c.large_swapcache == 4 &&
		  c.swapped == 1,
	       "sc census: present %llu large %llu swapcache %llu large_swapcache %llu swapped %llu",
	       (unsigned long long)c.present, (unsigned long long)c.large,
	       (unsigned long long)c.swapcache, (unsigned long long)c.large_swapcache,
	       (unsigned long long)c.swapped);
	/* kpageflags of a page that is not present are ignored */
	fl[7] = H | SC;
	sc_census_count(pm, fl, N, &c);
	TS_TAP_OK(t, c.present == 6 && c.large == 4, "sc census: flags of unmapped pages ignored");

	uint64_t a[5] = { S | (5ull << 5) | 1, S | (6ull << 5) | 1, S | (7ull << 5) | 1, P | 9, S | (8ull << 5) | 2 };
	uint64_t b[5] = { S | (5ull << 5) | 1, S | (6ull << 5) | 2, P | 9, P | 9, S | (8ull << 5) | 2 };
	TS_TAP_OK(t, sc_same_swap_entries(a, b, 5) == 2,
	       "sc: same swap entries need equal type and offset, present pages never count");
	TS_TAP_OK(t, sc_same_swap_entries(a, a, 5) == 4, "sc: a pagemap shares every swap entry with itself");
}

static void test_sc_owner(struct ts_tap *t)
{
	int allok = 1;

	for (unsigned w = 2; w <= 5; w++) {
		for (uint64_t p = 0; p < 200; p++) {
			/* exactly one owner; written in exactly one of two consecutive rounds */
			unsigned o = sc_owner(p, w);
			if (o >= w || (uint64_t)o != p % w)
				allok = 0;
			if (sc_write_sel(p, w, 7) == sc_write_sel(p, w, 8))
				allok = 0;
		}
	}
	TS_TAP_OK(t, allok, "sc: every page has one writer, written every other round");
	uint64_t per[3] = { 0, 0, 0 };
	for (uint64_t p = 0; p < 3000; p++)
		if (sc_write_sel(p, 3, 0))
			per[sc_owner(p, 3)]++;
	TS_TAP_OK(t, per[0] == 500 && per[1] == 500 && per[2] == 500,
	       "sc: each worker rewrites half of its pages a round (%llu %llu %llu)",
	       (unsigned long long)per[0], (unsigned long long)per[1], (unsigned long long)per[2]);
	uint64_t v = 0;
	TS_TAP_OK(t, sc_vmstat_parse("pswpin 3\nworkingset_refault_anon 17\n", "workingset_refault_anon", &v) == 0 &&
		  v == 17 && sc_vmstat_parse("pswpin 3\n", "pswp", &v) != 0,
	       "sc: vmstat key lookup is exact");
}

struct bar_arg {
	struct sc_barrier *b;
	atomic_int *phase_count;
	atomic_int *errors;
	atomic_int *abort_flag;
	int n;
};

static void *bar_thread(void *p)
{
	struct bar_arg *a = p;

	for (int round = 0; round < 300; round++) {
		atomic_fetch_add(a->phase_count, 1);
		sc_barrier_wait(a->b, a->abort_flag);
		/* after the barrier every thread has counted this round */
		if (atomic_load(a->phase_count) < (round + 1) * a->n)
			atomic_fetch_add(a->errors, 1);
		sc_barrier_wait(a->b, a->abort_flag);
	}
	return NULL;
}

static void test_sc_barrier(struct ts_tap *t)
{
	struct sc_barrier b;
	atomic_int count = 0, errors = 0, abort_flag = 0;
	struct bar_arg a = { &b, &count, &errors, &abort_flag, 4 };
	pthread_t th[4];

	sc_barrier_init(&b, 4);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, bar_thread, &a);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	TS_TAP_OK(t, errors == 0 && count == 4 * 300, "sc barrier: 4 threads, 600 waits, nobody passes early");
	sc_barrier_init(&b, 2);
	atomic_store(&abort_flag, 1);
	TS_TAP_OK(t, sc_barrier_wait(&b, &abort_flag) == -1, "sc barrier: a waiter returns -1 on abort");
}

int main(void)
{
	struct ts_tap t;

	ts_tap_init(&t, stdout);

	test_sizes(&t);
	test_pattern(&t);
	test_hist(&t);
	test_rng(&t);
	test_ss_args(&t);
	test_um_args(&t);
	test_sysstat(&t);
	test_folios(&t);
	test_sc_census(&t);
	test_sc_owner(&t);
	test_sc_barrier(&t);
	return ts_tap_done(&t);
}
