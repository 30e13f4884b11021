/*
 * scprobe: swap cache semantics probes, one scenario per run, every page
 * verified (pattern.h). See docs/swap-cache-tests.md.
 *
 *   scprobe fork|split|migrate|mincore|rewrite|drain [--size 8M]
 *           [--mem anon|shmem|shared] [--thp never|always|default] [--memcg DIR]
 *           [--pageout madvise|none] [--hold] [--stop] [--stop-reread] [--seed S]
 *
 * fork     private anon paged out, then fork: the child's PTEs hold the same
 *          swap entries (swap count 2); child and parent verify at once, the
 *          child rewrites every page (COW) and sends its copies through swap,
 *          the parent's copy must be unchanged, also after another round trip.
 * split    anon large folios paged out and faulted back (on an asynchronous
 *          device they come back from the swap cache, whole); the first half
 *          is split (debugfs split_huge_pages), the second half loses half of
 *          each folio to MADV_DONTNEED; verify, rewrite every 4th page, round
 *          trip through the device, verify.
 * migrate  anon pages faulted back into the swap cache (--hold: a child keeps
 *          the swap entries referenced, so even a synchronous device swaps in
 *          through the swap cache) are moved to the other NUMA node with
 *          move_pages(2); verify, round trip, verify.
 * mincore  mincore(2) after pageout, after draining the swap cache, after a
 *          re-read (anon or shmem).
 * rewrite  anon paged out, the swap cache drained, every page read back (on
 *          an asynchronous device the folios stay in the swap cache with
 *          their slots, mapped writable), then rewritten in place with no
 *          fault: even pages with zeroes, odd ones with the next generation;
 *          paged out again, drained (--stop: then SIGSTOP, for a test to
 *          read the devices), read back: every page must be the new data,
 *          never the slot's stale copy. --stop-reread stops once the pages
 *          were read back, before the rewrite (their folios then sit in
 *          the swap cache holding their slots, for a test to move them).
 * drain    no region: reclaim the memcg --memcg DIR until its memory.stat
 *          swapcached is 0 (for another program's pages, e.g. swapstress
 *          stopped after its pageout); exit 1 when it is not.
 *
 * --memcg DIR is the cgroup the program runs in: memory.reclaim there drains
 * the region (no page mapped or in the swap cache: mincore) before reads
 * that must come from the device. Results are
 * key=value lines; exit 0 clean, 1 corrupt pages, 2 usage, 3 setup failure.
 */
#define _GNU_SOURCE
#include "ts/out.h"
#include "pattern.h"
#include "sc.h"
#include "sysstat.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

enum scen { SCEN_FORK, SCEN_SPLIT, SCEN_MIGRATE, SCEN_MINCORE, SCEN_REWRITE, SCEN_DRAIN };

struct cfg {
	enum scen scen;
	uint64_t size;
	enum sc_mem mem;
	enum sc_thp thp;
	const char *memcg;
	bool pageout;
	bool hold;
	bool stop;
	bool stop_reread;
	uint64_t seed;
};

static const char usage[] =
	"usage: scprobe fork|split|migrate|mincore|rewrite|drain [--size 8M]\n"
	"               [--mem anon|shmem|shared] [--thp never|always|default] [--memcg DIR]\n"
	"               [--pageout madvise|none] [--hold] [--stop] [--stop-reread] [--seed S]\n"
	"Swap cache semantics probes; see docs/swap-cache-tests.md.\n";

static struct ts_out out;
static struct cfg C;
static struct sc_map M;
static uint64_t N;       /* pages */
static uint32_t *gen;    /* expected generation per page */
static uint64_t verified, corrupt;

static void kv(const char *k, uint64_t v)
{
	ts_out_u64(&out, k, v);
}

/* Pages of the region still mapped (pagemap), zero-page ones not counted. */
static uint64_t mapped_now(void)
{
	uint64_t *pm = calloc(N, 8), n = 0;

	if (pm && !ts_pagemap_read(0, (uintptr_t)M.base, N, pm))
		for (uint64_t i = 0; i < N; i++)
			n += (pm[i] & TS_PM_PRESENT) && gen[i] != SC_GEN_ZERO;
	free(pm);
	return n;
}

/*
 * MADV_PAGEOUT is best effort: a folio off the LRU at that moment (in
 * another CPU's LRU batch, isolated by compaction) is skipped. Repeat it,
 * three times at most, while pages of the region are still mapped.
 */
static void pageout(void)
{
	if (!C.pageout)
		return;
	for (int k = 0; k < 3; k++) {
		if (madvise(M.base, N * TS_PAGE_SIZE, MADV_PAGEOUT)) {
			sc_emit("# madvise(MADV_PAGEOUT): %s", strerror(errno));
			return;
		}
		if (!mapped_now())
			return;
	}
}

/* Milliseconds since the previous lap, as ms_NAME (where the time goes). */
static void lap(const char *name)
{
	static uint64_t t0;
	uint64_t now = ts_now_ns();
	char k[64];

	if (t0) {
		snprintf(k, sizeof(k), "ms_%s", name);
		kv(k, (now - t0) / 1000000);
	}
	t0 = now;
}

static uint64_t resident(void);

/*
 * Reclaim our memcg until no page of the region is resident: neither
 * mapped nor in the swap cache (mincore() sees both), so the next reads
 * come from the device. Returns the pages still resident.
 */
static unsigned drain_tries;

static uint64_t drain_region(unsigned tries)
{
	uint64_t r = resident();

	drain_tries = 0;
	for (unsigned i = 0; i < tries && r; i++) {
		drain_tries++;
		/* no more than the region holds: more makes memory.reclaim retry */
		sc_memcg_reclaim(C.memcg, r * TS_PAGE_SIZE);
		r = resident();
		if (r)
			sc_sleep_ms(10); /* writeback still running */
	}
	return r;
}

/* drain_region() after a pageout; records the pages left resident. */
static void drain(const char *key)
{
	uint64_t left;
	char k[80];

	if (!C.memcg || !C.pageout)
		return;
	left = drain_region(100);
	if (left)
		sc_emit("# %s: %" PRIu64 " pages still resident", key, left);
	kv(key, left);
	snprintf(k, sizeof(k), "%s_tries", key);
	kv(k, drain_tries);
}

static uint64_t verify(const char *tag)
{
	uint64_t bad = sc_verify(M.base, 0, N, C.seed, gen, tag, &verified);

	corrupt += bad;
	return bad;
}

static void census(const char *prefix, pid_t pid, uint64_t lo, uint64_t hi)
{
	struct sc_census c;
	char k[96];
	int r = sc_census(pid, M.base + lo * TS_PAGE_SIZE, hi - lo, &c);

	if (r) {
		snprintf(k, sizeof(k), "%s_census_error", prefix);
		ts_out_str(&out, k, strerror(-r));
		return;
	}
#define CK(f)                                              \
	do {                                               \
		snprintf(k, sizeof(k), "%s_%s", prefix, #f); \
		kv(k, c.f);                                \
	} while (0)
	CK(present);
	CK(large);
	CK(swapcache);
	CK(large_swapcache);
	CK(swapped);
#undef CK
}

static uint64_t swapped_now(void)
{
	struct sc_census c;

	if (sc_census(0, M.base, N, &c))
		return 0;
	return c.swapped;
}

/* ---- fork ---- */

struct fork_res {
	uint64_t shared, verified1, bad1, bad_written, verified3, bad3, swapped_cow;
	uint64_t drain_left, pswpin1;
	int done;
};

static int scen_fork(void)
{
	struct fork_res *res;
	uint64_t *pm = calloc(N, 8);
	uint64_t pin0, pout0, pin_fork, v0;
	int ready[2], go[2], st;
	pid_t pid;
	char b;

	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!pm || res == MAP_FAILED || pipe(ready) || pipe(go)) {
		ts_out_str(&out, "error", "setup");
		return TS_EXIT_ENV;
	}
	pin0 = sc_vmstat("pswpin");
	pout0 = sc_vmstat("pswpout");
	pageout();
	drain("drain_left");
	if (ts_pagemap_read(0, (uintptr_t)M.base, N, pm))
		memset(pm, 0, N * 8);
	kv("swapped_after_pageout", swapped_now());
	fflush(stdout);
	pin_fork = sc_vmstat("pswpin");
	pid = fork();
	if (pid < 0) {
		ts_out_str(&out, "error", "fork");
		return TS_EXIT_ENV;
	}
	if (pid == 0) {
		uint64_t *mine = calloc(N, 8);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ready[0]);
		close(go[1]);
		if (mine && !ts_pagemap_read(0, (uintptr_t)M.base, N, mine))
			res->shared = sc_same_swap_entries(pm, mine, N);
		if (write(ready[1], "R", 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(3);
		v0 = 0;
		res->bad1 = sc_verify(M.base, 0, N, C.seed, gen, "child", &v0);
		res->verified1 = v0;
		/* the child has faulted every page: pswpin of the concurrent phase */
		res->pswpin1 = sc_vmstat("pswpin") - pin_fork;
		/* every page rewritten: copy on write away from the parent */
		for (uint64_t i = 0; i < N; i++)
			gen[i] = 1;
		sc_fill(M.base, N, C.seed, gen);
		res->bad_written = sc_verify(M.base, 0, N, C.seed, gen, "child-written", NULL);
		pageout();
		if (C.memcg && C.pageout)
			res->drain_left = drain_region(100);
		res->swapped_cow = swapped_now();
		v0 = 0;
		res->bad3 = sc_verify(M.base, 0, N, C.seed, gen, "child-roundtrip", &v0);
		res->verified3 = v0;
		res->done = 1;
		_exit(0);
	}
	/* a child that dies before "R" reads as EOF, not a hang */
	close(ready[1]);
	if (read(ready[0], &b, 1) != 1 || write(go[1], "G", 1) != 1) {
		ts_out_str(&out, "error", "child did not start");
		return TS_EXIT_ENV;
	}
	/* parent and child fault the same swap entries at once */
	kv("parent_corrupt", verify("parent"));
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	kv("parent_corrupt_after_child", verify("parent-after-child"));
	pageout();
	drain("parent_drain_left");
	kv("parent_swapped_again", swapped_now());
	kv("parent_corrupt_roundtrip", verify("parent-roundtrip"));
	kv("child_exit", WIFEXITED(st) ? (uint64_t)WEXITSTATUS(st) : 128 + (uint64_t)WTERMSIG(st));
	kv("child_done", (uint64_t)res->done);
	kv("child_shared_swap_entries", res->shared);
	kv("child_verified", res->verified1);
	kv("child_pswpin", res->pswpin1);
	kv("child_corrupt", res->bad1);
	kv("child_corrupt_written", res->bad_written);
	kv("child_swapped_cow", res->swapped_cow);
	kv("child_drain_left", res->drain_left);
	kv("child_verified_roundtrip", res->verified3);
	kv("child_corrupt_roundtrip", res->bad3);
	kv("pswpin", sc_vmstat("pswpin") - pin0);
	kv("pswpout", sc_vmstat("pswpout") - pout0);
	corrupt += res->bad1 + res->bad_written + res->bad3;
	verified += res->verified1 + res->verified3;
	free(pm);
	return res->done && WIFEXITED(st) && !WEXITSTATUS(st) ? TS_EXIT_OK : TS_EXIT_ENV;
}

/* ---- split ---- */

static int split_range(uint64_t lo, uint64_t hi)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", (int)getpid(),
		 (unsigned long)(uintptr_t)(M.base + lo * TS_PAGE_SIZE),
		 (unsigned long)(uintptr_t)(M.base + hi * TS_PAGE_SIZE));
	return ts_write_file("/sys/kernel/debug/split_huge_pages", cmd);
}

static int scen_split(void)
{
	uint64_t fp, half, pin, thp0 = sc_vmstat("thp_split_page"), pout0 = sc_vmstat("pswpout");
	uint64_t attempts = 0, dontneed = 0, written = 0;
	struct sc_census c;
	int r = 0;

	lap("start");
	fp = sc_largest_folio_pages(M.base, N);
	kv("folio_pages", fp);
	census("fill", 0, 0, N);
	lap("census");
	pageout();
	kv("swapped_after_pageout", swapped_now());
	lap("pageout");
	/* fault back: on an asynchronous device from the swap cache, whole */
	pin = sc_vmstat("pswpin");
	kv("corrupt_refault", verify("refault"));
	kv("refault_pswpin", sc_vmstat("pswpin") - pin);
	lap("refault");
	census("refault", 0, 0, N);

	half = fp > 1 ? N / fp / 2 * fp : 0;
	kv("split_pages", half);
	while (half && attempts < 50) {
		attempts++;
		r = split_range(0, half);
		if (sc_census(0, M.base, half, &c) || !c.large)
			break;
		sc_sleep_ms(100); /* e.g. writeback still running: split refuses */
	}
	kv("split_attempts", attempts);
	lap("split");
	if (r)
		ts_out_str(&out, "split_error", strerror(-r));
	census("split", 0, 0, half);
	/* the rest: unmap the first half of each folio (partially mapped) */
	for (uint64_t f = half; fp > 1 && f + fp <= N; f += fp) {
		if (madvise(M.base + f * TS_PAGE_SIZE, fp / 2 * TS_PAGE_SIZE, MADV_DONTNEED))
			continue;
		for (uint64_t i = f; i < f + fp / 2; i++)
			gen[i] = SC_GEN_ZERO;
		dontneed += fp / 2;
	}
	kv("dontneed_pages", dontneed);
	census("partial", 0, half, N);
	kv("corrupt_split", verify("split"));
	/* write faults on pages still in the swap cache */
	for (uint64_t i = 0; i < N; i += 4) {
		if (gen[i] == SC_GEN_ZERO)
			continue;
		gen[i] = 1;
		ts_pattern_fill(M.base + i * TS_PAGE_SIZE, C.seed, i, 1);
		written++;
	}
	kv("written_pages", written);
	lap("verify_write");
	pageout();
	lap("pageout2");
	drain("drain_left");
	lap("drain");
	kv("swapped_again", swapped_now());
	pin = sc_vmstat("pswpin");
	kv("corrupt_roundtrip", verify("roundtrip"));
	kv("roundtrip_pswpin", sc_vmstat("pswpin") - pin);
	lap("roundtrip");
	kv("pswpout", sc_vmstat("pswpout") - pout0);
	kv("thp_split_page", sc_vmstat("thp_split_page") - thp0);
	return TS_EXIT_OK;
}

/* ---- migrate ---- */

static uint64_t on_node(void **pages, int *status, int node)
{
	uint64_t n = 0;

	if (sc_move_pages(N, pages, NULL, status, 0))
		return 0;
	for (uint64_t i = 0; i < N; i++)
		n += status[i] == node;
	return n;
}

static int scen_migrate(void)
{
	void **pages = calloc(N, sizeof(*pages));
	void **todo = calloc(N, sizeof(*todo));
	int *status = calloc(N, sizeof(int)), *nodes = calloc(N, sizeof(int));
	uint64_t mig0, thpmig0, pin, moved = 0, attempts = 0, pout0 = sc_vmstat("pswpout");
	int src, dst, hold[2] = { -1, -1 }, st;
	pid_t holder = -1;

	if (!pages || !todo || !status || !nodes) {
		ts_out_str(&out, "error", "out of memory");
		return TS_EXIT_ENV;
	}
	for (uint64_t i = 0; i < N; i++)
		pages[i] = M.base + i * TS_PAGE_SIZE;
	kv("folio_pages", sc_largest_folio_pages(M.base, N));
	census("fill", 0, 0, N);
	pageout();
	kv("swapped_after_pageout", swapped_now());
	if (C.hold) {
		/* every page out first: a page still mapped at fork is shared
		 * with the holder, and move_pages() leaves shared pages alone */
		drain("hold_drain_left");
		kv("hold_swapped", swapped_now());
		/* a child keeps every swap entry referenced: swap count 2 */
		if (pipe(hold)) {
			ts_out_str(&out, "error", "pipe");
			return TS_EXIT_ENV;
		}
		holder = fork();
		if (holder == 0) {
			char b;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(hold[1]);
			while (read(hold[0], &b, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		close(hold[0]);
	}
	pin = sc_vmstat("pswpin");
	kv("corrupt_refault", verify("refault"));
	kv("refault_pswpin", sc_vmstat("pswpin") - pin);
	census("before", 0, 0, N);

	if (sc_move_pages(N, pages, NULL, status, 0)) {
		ts_out_str(&out, "error", "move_pages query failed");
		return TS_EXIT_ENV;
	}
	src = status[0] < 0 ? 0 : status[0];
	dst = src ? 0 : 1;
	kv("node_from", (uint64_t)src);
	kv("node_to", (uint64_t)dst);
	kv("pages_on_from", on_node(pages, status, src));
	mig0 = sc_vmstat("pgmigrate_success");
	thpmig0 = sc_vmstat("thp_migration_success");
	while (attempts < 5) {
		unsigned long n = 0;

		if (sc_move_pages(N, pages, NULL, status, 0))
			break;
		for (uint64_t i = 0; i < N; i++) {
			if (status[i] == dst)
				continue;
			todo[n] = pages[i];
			nodes[n] = dst;
			n++;
		}
		if (!n)
			break;
		attempts++;
		if (sc_move_pages(n, todo, nodes, status, SC_MPOL_MF_MOVE) < 0) {
			ts_out_str(&out, "move_error", strerror(errno));
			break;
		}
	}
	moved = on_node(pages, status, dst);
	kv("move_attempts", attempts);
	kv("pages_on_to", moved);
	kv("pgmigrate_success", sc_vmstat("pgmigrate_success") - mig0);
	kv("thp_migration_success", sc_vmstat("thp_migration_success") - thpmig0);
	census("after", 0, 0, N);
	kv("corrupt_migrated", verify("migrated"));
	pageout();
	drain("drain_left");
	kv("swapped_again", swapped_now());
	pin = sc_vmstat("pswpin");
	kv("corrupt_roundtrip", verify("roundtrip"));
	kv("roundtrip_pswpin", sc_vmstat("pswpin") - pin);
	kv("pswpout", sc_vmstat("pswpout") - pout0);
	if (holder > 0) {
		close(hold[1]);
		waitpid(holder, &st, 0);
	}
	free(pages);
	free(todo);
	free(status);
	free(nodes);
	return TS_EXIT_OK;
}

/* ---- mincore ---- */

/* Pages mincore() sees resident (mapped or in the swap cache); pages that
 * must read as zeros (MADV_DONTNEED, then read: the zero page) not counted.
 * N when mincore() cannot tell: a failure must not read as drained. */
static uint64_t resident(void)
{
	unsigned char *vec = malloc(N);
	uint64_t n = 0;

	if (!vec || mincore(M.base, N * TS_PAGE_SIZE, vec)) {
		free(vec);
		return N;
	}
	for (uint64_t i = 0; i < N; i++)
		n += (vec[i] & 1) && gen[i] != SC_GEN_ZERO;
	free(vec);
	return n;
}

static int scen_mincore(void)
{
	uint64_t pin, pout0 = sc_vmstat("pswpout");

	kv("resident_filled", resident());
	pageout();
	kv("resident_after_pageout", resident());
	kv("swapped_after_pageout", swapped_now());
	drain("drain_left");
	kv("resident_after_drain", resident());
	pin = sc_vmstat("pswpin");
	kv("corrupt_reread", verify("reread"));
	kv("reread_pswpin", sc_vmstat("pswpin") - pin);
	kv("resident_after_reread", resident());
	kv("pswpout", sc_vmstat("pswpout") - pout0);
	return TS_EXIT_OK;
}

/* ---- rewrite ---- */

static int scen_rewrite(void)
{
	uint64_t pin, pout0 = sc_vmstat("pswpout"), zero0 = sc_vmstat("swpout_zero");

	pageout();
	drain("drain_left");
	kv("swapped_after_pageout", swapped_now());
	/* read faults: through the swap cache, the slot kept, PTE writable */
	pin = sc_vmstat("pswpin");
	kv("corrupt_reread", verify("reread"));
	kv("reread_pswpin", sc_vmstat("pswpin") - pin);
	census("reread", 0, 0, N);
	if (C.stop_reread) {
		fflush(stdout);
		raise(SIGSTOP);
	}
	/* in place, with no fault: dirty PTEs of folios that still have slots */
	for (uint64_t i = 0; i < N; i++) {
		gen[i] = i % 2 ? gen[i] + 1 : SC_GEN_ZERO;
		if (gen[i] == SC_GEN_ZERO)
			memset(M.base + i * TS_PAGE_SIZE, 0, TS_PAGE_SIZE);
	}
	sc_fill(M.base, N, C.seed, gen);
	kv("rewritten_zero", (N + 1) / 2);
	kv("rewritten_data", N / 2);
	pageout();
	drain("rewrite_drain_left");
	kv("swapped_after_rewrite", swapped_now());
	kv("pswpout", sc_vmstat("pswpout") - pout0);
	kv("swpout_zero", sc_vmstat("swpout_zero") - zero0);
	if (C.stop) {
		fflush(stdout);
		raise(SIGSTOP);
	}
	pin = sc_vmstat("pswpin");
	kv("corrupt_final", verify("final"));
	kv("final_pswpin", sc_vmstat("pswpin") - pin);
	return TS_EXIT_OK;
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "mem", required_argument, NULL, 'm' },
		{ "thp", required_argument, NULL, 't' },
		{ "memcg", required_argument, NULL, 'c' },
		{ "pageout", required_argument, NULL, 'p' },
		{ "hold", no_argument, NULL, 'H' },
		{ "stop", no_argument, NULL, 'T' },
		{ "stop-reread", no_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const scen[] = { "fork", "split", "migrate", "mincore", "rewrite", "drain" };
	int o, i;

	C.size = 8u << 20;
	C.mem = SC_MEM_ANON;
	C.thp = SC_THP_DEFAULT;
	C.pageout = true;
	C.seed = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			if (ts_parse_size(optarg, WL_SIZE_FLAGS, &C.size) || !C.size || C.size % (2u << 20)) {
				fprintf(stderr, "scprobe: --size must be a multiple of 2M\n");
				return -1;
			}
			break;
		case 'm':
			if (sc_parse_mem(optarg, &C.mem)) {
				fprintf(stderr, "scprobe: --mem anon|shmem|shared\n");
				return -1;
			}
			break;
		case 't':
			if (sc_parse_thp(optarg, &C.thp)) {
				fprintf(stderr, "scprobe: --thp never|always|default\n");
				return -1;
			}
			break;
		case 'c':
			C.memcg = optarg;
			break;
		case 'p':
			if (!strcmp(optarg, "madvise")) C.pageout = true;
			else if (!strcmp(optarg, "none")) C.pageout = false;
			else { fprintf(stderr, "scprobe: --pageout madvise|none\n"); return -1; }
			break;
		case 'H':
			C.hold = true;
			break;
		case 'T':
			C.stop = true;
			break;
		case 'R':
			C.stop_reread = true;
			break;
		case 'S':
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &C.seed)) {
				fprintf(stderr, "scprobe: bad --seed\n");
				return -1;
			}
			break;
		case 'h':
			return 1;
		default:
			fprintf(stderr, "scprobe: unknown option %s\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "scprobe: one scenario: fork, split, migrate, mincore, rewrite or drain\n");
		return -1;
	}
	for (i = 0; i < 6; i++)
		if (!strcmp(argv[optind], scen[i]))
			break;
	if (i == 6) {
		fprintf(stderr, "scprobe: unknown scenario '%s'\n", argv[optind]);
		return -1;
	}
	C.scen = (enum scen)i;
	if (C.scen == SCEN_DRAIN && !C.memcg) {
		fprintf(stderr, "scprobe: drain needs --memcg DIR\n");
		return -1;
	}
	if (C.scen != SCEN_MINCORE && C.scen != SCEN_DRAIN && C.mem != SC_MEM_ANON) {
		fprintf(stderr, "scprobe: %s works on --mem anon only\n", scen[i]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const scen[] = { "fork", "split", "migrate", "mincore", "rewrite", "drain" };
	static const char *const mem[] = { "anon", "shmem", "shared" };
	char err[200];
	int r, rc;
	uint64_t t0 = ts_now_ns();

	r = parse(argc, argv);
	if (r > 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (r < 0)
		return TS_EXIT_USAGE;
	if (C.scen == SCEN_DRAIN) {
		/* for another program's pages: until the memcg's swap cache is empty */
		int64_t left = sc_drain_swapcache(C.memcg, 200);

		printf("swapcached_left_bytes=%" PRId64 "\n", left);
		return left ? TS_EXIT_FAIL : TS_EXIT_OK;
	}
	N = C.size / TS_PAGE_SIZE;
	gen = calloc(N, sizeof(*gen));
	if (!gen || sc_map_create(&M, C.mem, C.size, C.thp, err, sizeof(err))) {
		printf("error=%s\nresult=fail\n", gen ? err : "out of memory");
		return TS_EXIT_ENV;
	}
	ts_out_begin(&out, stdout, false);
	ts_out_str(&out, "scenario", scen[C.scen]);
	ts_out_str(&out, "mem", mem[C.mem]);
	kv("pages", N);
	kv("seed", C.seed);
	sc_fill(M.base, N, C.seed, gen);
	switch (C.scen) {
	case SCEN_FORK: rc = scen_fork(); break;
	case SCEN_SPLIT: rc = scen_split(); break;
	case SCEN_MIGRATE: rc = scen_migrate(); break;
	case SCEN_REWRITE: rc = scen_rewrite(); break;
	default: rc = scen_mincore(); break;
	}
	kv("pages_verified", verified);
	kv("corrupt", corrupt);
	ts_out_dbl(&out, "elapsed_ms", (double)(ts_now_ns() - t0) / 1e6, 1);
	if (corrupt)
		rc = TS_EXIT_FAIL;
	ts_out_str(&out, "result", rc == TS_EXIT_OK ? "pass" : "fail");
	ts_out_end(&out);
	fflush(stdout);
	sc_map_destroy(&M);
	return rc;
}
