/*
 * swaprace: several tasks fault the same swapped-out pages at once while a
 * reclaimer keeps pushing them back out; every page read is verified.
 * See docs/swap-cache-tests.md.
 *
 *   swaprace --mode fork|threads|shmem|shared [--size 8M] [--workers 3]
 *            [--thp never|always|default] [--memcg DIR]
 *            [--reclaim memcg|madvise|both|none] [--rounds N] [--seconds S]
 *            [--until-signal] [--no-write] [--seed S] [--inject-corrupt PAGE]
 *
 * Memory: fork = a private anon region shared by fork (worker 0 is the
 * parent, the others its children); threads = a private anon region and
 * worker threads; shmem = a memfd mapped MAP_SHARED; shared = a
 * MAP_SHARED|MAP_ANONYMOUS region (both across processes, like fork).
 *
 * Each round: the reclaimer pushes the region out (MADV_PAGEOUT and/or
 * memory.reclaim of the memcg the program runs in, DIR), then all workers
 * start together and each reads and verifies every page in the same order,
 * so they fault the same swap entries at the same time, while the reclaimer
 * keeps reclaiming; then each worker rewrites half of the pages it owns
 * (page p belongs to worker p % workers) with the next generation, again
 * under reclaim. With fork the writes go to the writer's private copy (COW).
 * A round in which two or more workers took major faults (ru_majflt of
 * their thread) counts as concurrent. After the last round every worker
 * verifies every page once more.
 *
 * The run ends after --rounds (default 3) and, when given, --seconds of
 * rounds; with --until-signal it goes on until SIGUSR1 or SIGTERM.
 * Results are key=value lines; exit 0 clean, 1 corrupt, 2 usage, 3 setup.
 */
#define _GNU_SOURCE
#include "ts/out.h"
#include "pattern.h"
#include "sc.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
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

#define MAXW 16

enum mode { MODE_FORK, MODE_THREADS, MODE_SHMEM, MODE_SHARED };
enum reclaim { RC_MEMCG = 1, RC_MADVISE = 2 };

struct cfg {
	enum mode mode;
	uint64_t size;
	unsigned workers;
	enum sc_thp thp;
	const char *memcg;
	unsigned reclaim;
	uint64_t rounds;
	uint64_t seconds;
	bool until_signal;
	bool write;
	uint64_t seed;
	int64_t inject;
};

struct ctl {
	struct sc_barrier bar;
	atomic_int stop, abort_flag;
	atomic_uint done;
	atomic_ullong corrupt, verified, writes;
	atomic_ullong first_corrupt; /* page + 1, 0 = none */
	uint64_t round;
	uint64_t majflt_round[MAXW];
	uint64_t majflt_total[MAXW];
	uint32_t gen[]; /* shmem/shared: shared generations */
};

static struct cfg C;
static struct ctl *ctl;
static struct sc_map M;
static uint64_t N;
static uint32_t *gen;
static pid_t kids[MAXW];
static volatile sig_atomic_t got_signal;
static uint64_t rounds_done, rounds_concurrent, reclaim_calls;

static const char usage[] =
	"usage: swaprace --mode fork|threads|shmem|shared [--size 8M] [--workers 3]\n"
	"                [--thp never|always|default] [--memcg DIR]\n"
	"                [--reclaim memcg|madvise|both|none] [--rounds N] [--seconds S]\n"
	"                [--until-signal] [--no-write] [--seed S] [--inject-corrupt PAGE]\n"
	"Concurrent faults of the same swapped pages under reclaim; see docs/swap-cache-tests.md.\n";

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void verify_all(uint64_t start, const char *tag)
{
	uint64_t bad = 0;

	for (uint64_t k = 0; k < N; k++) {
		uint64_t i = (start + k) % N;

		if (sc_verify_page(M.base, i, C.seed, gen[i], tag, true)) {
			unsigned long long none = 0;

			bad++;
			atomic_compare_exchange_strong(&ctl->first_corrupt, &none, i + 1);
		}
	}
	atomic_fetch_add(&ctl->corrupt, bad);
	atomic_fetch_add(&ctl->verified, N);
}

/* One worker's rounds; w = 0 .. workers-1. */
static void worker(unsigned w)
{
	char tag[32];

	snprintf(tag, sizeof(tag), "worker=%u", w);
	for (;;) {
		uint64_t m0, round, written = 0;

		if (sc_barrier_wait(&ctl->bar, &ctl->abort_flag) || atomic_load(&ctl->stop))
			break;
		round = ctl->round;
		m0 = sc_thread_majflt();
		/* every worker walks the same pages in the same order */
		verify_all(round * 131 % N, tag);
		ctl->majflt_round[w] = sc_thread_majflt() - m0;
		atomic_fetch_add(&ctl->done, 1);
		if (sc_barrier_wait(&ctl->bar, &ctl->abort_flag))
			break;
		for (uint64_t i = w; C.write && i < N; i += C.workers) {
			if (!sc_write_sel(i, C.workers, round))
				continue;
			gen[i]++;
			ts_pattern_fill(M.base + i * TS_PAGE_SIZE, C.seed, i, gen[i]);
			written++;
		}
		if (w == 0 && round == 0 && C.inject >= 0 && (uint64_t)C.inject < N)
			((volatile char *)M.base)[(uint64_t)C.inject * TS_PAGE_SIZE + 100] ^= 0x5a;
		atomic_fetch_add(&ctl->writes, written);
		atomic_fetch_add(&ctl->done, 1);
		if (sc_barrier_wait(&ctl->bar, &ctl->abort_flag))
			break;
	}
	if (!atomic_load(&ctl->abort_flag))
		verify_all(0, tag);
}

static void *worker_thread(void *arg)
{
	worker((unsigned)(uintptr_t)arg);
	return NULL;
}

/* A child that exited while the rounds run means the barrier would hang. */
static void check_kids(void)
{
	for (unsigned w = 1; w < C.workers; w++) {
		siginfo_t si;

		if (kids[w] <= 0)
			continue;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)kids[w], &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid) {
			sc_emit("# worker %u (pid %d) died during the rounds", w, (int)kids[w]);
			atomic_store(&ctl->abort_flag, 1);
		}
	}
}

/* Pages of the region mapped or in the swap cache (mincore). */
static uint64_t resident(void)
{
	static unsigned char *vec;
	uint64_t n = 0;

	if (!vec)
		vec = malloc(N);
	if (!vec || mincore(M.base, N * TS_PAGE_SIZE, vec))
		return N;
	for (uint64_t i = 0; i < N; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * memory.reclaim of what the region holds at most: asking for more than the
 * group can give makes the kernel retry (and throttle on writeback) at length.
 */
static void memcg_reclaim_upto(uint64_t pages)
{
	uint64_t r = resident();

	if (r > pages)
		r = pages;
	if (r)
		sc_memcg_reclaim(C.memcg, r * TS_PAGE_SIZE);
}

static void reclaim_step(uint64_t k)
{
	uint64_t q = N / 4 ? N / 4 : N;
	uint64_t off = (k % 4) * q;

	if (C.reclaim & RC_MADVISE)
		madvise(M.base + off * TS_PAGE_SIZE, (off + q > N ? N - off : q) * TS_PAGE_SIZE,
			MADV_PAGEOUT);
	if (C.reclaim & RC_MEMCG)
		memcg_reclaim_upto(q);
	reclaim_calls++;
}

/* Until nothing of the region is resident, three tries at most: an
 * asynchronous device leaves written folios in the swap cache until
 * reclaim comes back for them. */
static void push_out(void)
{
	for (int k = 0; k < 3 && resident(); k++) {
		if (C.reclaim & RC_MADVISE)
			madvise(M.base, N * TS_PAGE_SIZE, MADV_PAGEOUT);
		if (C.reclaim & RC_MEMCG)
			memcg_reclaim_upto(N);
		reclaim_calls++;
	}
}

/* Reclaim while the workers are in a phase; returns when all are done. */
static void reclaim_during_phase(void)
{
	uint64_t k = 0;

	while (atomic_load(&ctl->done) < C.workers && !atomic_load(&ctl->abort_flag)) {
		if (C.reclaim)
			reclaim_step(k++);
		check_kids();
		sc_sleep_ms(C.reclaim ? 2 : 1);
	}
	atomic_store(&ctl->done, 0);
}

static void *reclaimer(void *arg)
{
	uint64_t t0 = ts_now_ns();

	(void)arg;
	for (;;) {
		bool enough = rounds_done >= C.rounds;

		if (C.until_signal)
			enough = enough && got_signal;
		else if (C.seconds)
			enough = enough && ts_now_ns() - t0 >= C.seconds * 1000000000ull;
		if (enough)
			atomic_store(&ctl->stop, 1);
		if (!atomic_load(&ctl->stop))
			push_out();
		ctl->round = rounds_done;
		if (sc_barrier_wait(&ctl->bar, &ctl->abort_flag) || atomic_load(&ctl->stop))
			break;
		reclaim_during_phase();
		{
			char list[MAXW * 21 + 1] = ""; /* 20 digits and a comma a worker */
			size_t used = 0;
			unsigned faulting = 0;

			for (unsigned w = 0; w < C.workers; w++) {
				faulting += ctl->majflt_round[w] > 0;
				ctl->majflt_total[w] += ctl->majflt_round[w];
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%" PRIu64,
							 w ? "," : "", ctl->majflt_round[w]);
			}
			rounds_concurrent += faulting >= 2;
			sc_emit("# round %" PRIu64 " majflt=%s", rounds_done, list);
		}
		if (sc_barrier_wait(&ctl->bar, &ctl->abort_flag))
			break;
		reclaim_during_phase();
		if (sc_barrier_wait(&ctl->bar, &ctl->abort_flag))
			break;
		rounds_done++;
	}
	return NULL;
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'M' },
		{ "size", required_argument, NULL, 's' },
		{ "workers", required_argument, NULL, 'w' },
		{ "thp", required_argument, NULL, 't' },
		{ "memcg", required_argument, NULL, 'c' },
		{ "reclaim", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "until-signal", no_argument, NULL, 'U' },
		{ "no-write", no_argument, NULL, 'W' },
		{ "seed", required_argument, NULL, 'S' },
		{ "inject-corrupt", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_mode = false, have_reclaim = false;
	uint64_t v;
	int o;

	C.size = 8u << 20;
	C.workers = 3;
	C.thp = SC_THP_DEFAULT;
	C.rounds = 3;
	C.write = true;
	C.seed = 1;
	C.inject = -1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'M':
			have_mode = true;
			if (!strcmp(optarg, "fork")) C.mode = MODE_FORK;
			else if (!strcmp(optarg, "threads")) C.mode = MODE_THREADS;
			else if (!strcmp(optarg, "shmem")) C.mode = MODE_SHMEM;
			else if (!strcmp(optarg, "shared")) C.mode = MODE_SHARED;
			else { fprintf(stderr, "swaprace: --mode fork|threads|shmem|shared\n"); return -1; }
			break;
		case 's':
			if (ts_parse_size(optarg, WL_SIZE_FLAGS, &C.size) || !C.size || C.size % (2u << 20)) {
				fprintf(stderr, "swaprace: --size must be a multiple of 2M\n");
				return -1;
			}
			break;
		case 'w':
			if (ts_parse_uint(optarg, 2, MAXW, &v)) {
				fprintf(stderr, "swaprace: --workers 2..%d\n", MAXW);
				return -1;
			}
			C.workers = (unsigned)v;
			break;
		case 't':
			if (sc_parse_thp(optarg, &C.thp)) {
				fprintf(stderr, "swaprace: --thp never|always|default\n");
				return -1;
			}
			break;
		case 'c':
			C.memcg = optarg;
			break;
		case 'r':
			have_reclaim = true;
			if (!strcmp(optarg, "memcg")) C.reclaim = RC_MEMCG;
			else if (!strcmp(optarg, "madvise")) C.reclaim = RC_MADVISE;
			else if (!strcmp(optarg, "both")) C.reclaim = RC_MEMCG | RC_MADVISE;
			else if (!strcmp(optarg, "none")) C.reclaim = 0;
			else { fprintf(stderr, "swaprace: --reclaim memcg|madvise|both|none\n"); return -1; }
			break;
		case 'R':
			if (ts_parse_uint(optarg, 1, 1000000, &C.rounds)) {
				fprintf(stderr, "swaprace: bad --rounds\n");
				return -1;
			}
			break;
		case 'T':
			if (ts_parse_uint(optarg, 0, 86400, &C.seconds)) {
				fprintf(stderr, "swaprace: bad --seconds\n");
				return -1;
			}
			break;
		case 'U':
			C.until_signal = true;
			break;
		case 'W':
			C.write = false;
			break;
		case 'S':
			if (ts_parse_uint(optarg, 0, UINT64_MAX, &C.seed)) {
				fprintf(stderr, "swaprace: bad --seed\n");
				return -1;
			}
			break;
		case 'I':
			if (ts_parse_uint(optarg, 0, UINT32_MAX, &v)) {
				fprintf(stderr, "swaprace: bad --inject-corrupt\n");
				return -1;
			}
			C.inject = (int64_t)v;
			break;
		case 'h':
			return 1;
		default:
			fprintf(stderr, "swaprace: unknown option %s\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc || !have_mode) {
		fprintf(stderr, "swaprace: --mode is required, no other arguments\n");
		return -1;
	}
	if (!have_reclaim)
		C.reclaim = C.memcg ? RC_MEMCG | (C.mode == MODE_THREADS ? RC_MADVISE : 0) : RC_MADVISE;
	if ((C.reclaim & RC_MEMCG) && !C.memcg) {
		fprintf(stderr, "swaprace: --reclaim memcg needs --memcg DIR\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "fork", "threads", "shmem", "shared" };
	static const enum sc_mem mems[] = { SC_MEM_ANON, SC_MEM_ANON, SC_MEM_SHMEM, SC_MEM_SHARED };
	uint64_t pin0, pout0, ra0, rahit0, maj0, t0 = ts_now_ns();
	pthread_t rt, tids[MAXW];
	struct ts_out out;
	size_t ctl_len;
	char err[200], list[MAXW * 21 + 1] = "";
	size_t used = 0;
	unsigned failed = 0;
	bool processes;
	int r, rc;

	r = parse(argc, argv);
	if (r > 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (r < 0)
		return TS_EXIT_USAGE;
	N = C.size / TS_PAGE_SIZE;
	processes = C.mode != MODE_THREADS;
	ctl_len = sizeof(*ctl) + ((C.mode == MODE_SHMEM || C.mode == MODE_SHARED) ? N * 4 : 0);
	ctl = mmap(NULL, ctl_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED) {
		printf("error=mmap control area: %s\nresult=fail\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	/* the control area must not be what the reclaimer fights over */
	if (mlock(ctl, ctl_len))
		sc_emit("# mlock control area: %s", strerror(errno));
	sc_barrier_init(&ctl->bar, C.workers + 1);
	gen = (C.mode == MODE_SHMEM || C.mode == MODE_SHARED) ? ctl->gen : calloc(N, sizeof(*gen));
	if (!gen || sc_map_create(&M, mems[C.mode], C.size, C.thp, err, sizeof(err))) {
		printf("error=%s\nresult=fail\n", gen ? err : "out of memory");
		return TS_EXIT_ENV;
	}
	sc_fill(M.base, N, C.seed, gen);
	signal(SIGUSR1, on_signal);
	signal(SIGTERM, on_signal);
	pin0 = sc_vmstat("pswpin");
	pout0 = sc_vmstat("pswpout");
	ra0 = sc_vmstat("swap_ra");
	rahit0 = sc_vmstat("swap_ra_hit");
	maj0 = sc_vmstat("pgmajfault");
	fflush(stdout);
	for (unsigned w = 1; w < C.workers; w++) {
		if (processes) {
			kids[w] = fork();
			if (kids[w] == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				signal(SIGUSR1, SIG_IGN);
				signal(SIGTERM, SIG_DFL);
				worker(w);
				_exit(0);
			}
			if (kids[w] < 0) {
				printf("error=fork: %s\nresult=fail\n", strerror(errno));
				atomic_store(&ctl->abort_flag, 1);
				return TS_EXIT_ENV;
			}
		} else if (pthread_create(&tids[w], NULL, worker_thread, (void *)(uintptr_t)w)) {
			printf("error=pthread_create\nresult=fail\n");
			atomic_store(&ctl->abort_flag, 1);
			return TS_EXIT_ENV;
		}
	}
	if (pthread_create(&rt, NULL, reclaimer, NULL)) {
		printf("error=pthread_create\nresult=fail\n");
		atomic_store(&ctl->abort_flag, 1);
		return TS_EXIT_ENV;
	}
	worker(0);
	pthread_join(rt, NULL);
	for (unsigned w = 1; w < C.workers; w++) {
		if (processes) {
			int st;

			while (waitpid(kids[w], &st, 0) < 0 && errno == EINTR)
				;
			failed += !WIFEXITED(st) || WEXITSTATUS(st);
		} else {
			pthread_join(tids[w], NULL);
		}
	}

	ts_out_begin(&out, stdout, false);
	ts_out_str(&out, "mode", modes[C.mode]);
	ts_out_u64(&out, "pages", N);
	ts_out_u64(&out, "workers", C.workers);
	ts_out_u64(&out, "rounds", rounds_done);
	ts_out_u64(&out, "rounds_concurrent", rounds_concurrent);
	for (unsigned w = 0; w < C.workers; w++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%" PRIu64, w ? "," : "",
					 ctl->majflt_total[w]);
	ts_out_str(&out, "majflt_per_worker", list);
	ts_out_u64(&out, "reclaim_calls", reclaim_calls);
	ts_out_u64(&out, "pages_verified", atomic_load(&ctl->verified));
	ts_out_u64(&out, "writes", atomic_load(&ctl->writes));
	ts_out_u64(&out, "corrupt", atomic_load(&ctl->corrupt));
	if (atomic_load(&ctl->first_corrupt))
		ts_out_u64(&out, "first_corrupt_page", atomic_load(&ctl->first_corrupt) - 1);
	ts_out_u64(&out, "pswpin", sc_vmstat("pswpin") - pin0);
	ts_out_u64(&out, "pswpout", sc_vmstat("pswpout") - pout0);
	ts_out_u64(&out, "swap_ra", sc_vmstat("swap_ra") - ra0);
	ts_out_u64(&out, "swap_ra_hit", sc_vmstat("swap_ra_hit") - rahit0);
	ts_out_u64(&out, "pgmajfault", sc_vmstat("pgmajfault") - maj0);
	ts_out_u64(&out, "stopped_by_signal", (uint64_t)(got_signal != 0));
	ts_out_u64(&out, "aborted", (uint64_t)atomic_load(&ctl->abort_flag));
	ts_out_u64(&out, "workers_failed", failed);
	ts_out_dbl(&out, "elapsed_ms", (double)(ts_now_ns() - t0) / 1e6, 1);
	if (atomic_load(&ctl->corrupt))
		rc = TS_EXIT_FAIL;
	else if (failed || atomic_load(&ctl->abort_flag))
		rc = TS_EXIT_ENV;
	else
		rc = TS_EXIT_OK;
	ts_out_str(&out, "result", rc == TS_EXIT_OK ? "pass" : "fail");
	ts_out_end(&out);
	fflush(stdout);
	sc_map_destroy(&M);
	return rc;
}
