/*
 * usemem: a vm-scalability usemem compatible memory user, written for
 * tierswap so swap numbers compare with the upstream cover letters.
 * Per-task lines keep upstream's format; a key=value summary follows.
 */
#define _GNU_SOURCE
#include "ts/out.h"
#include "rng.h"
#include "sysstat.h"
#include "um_args.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

struct um_result {
	int done;
	int failed;
	uint64_t bytes, usecs, kbps;
	uint64_t ra_bytes, ra_usecs, ra_kbps;
	uint64_t free_usecs;
	uint64_t corrupt;
	uint64_t first_bad_offset, first_bad_found;
	char error[160];
};

struct um_ctx {
	const struct um_config *c;
	int fd;
	uint64_t start_us;  /* upstream start_time: before fork */
	int start_ready[2], start_wake[2], free_ready[2], free_wake[2];
	struct um_result *res; /* MAP_SHARED, one per task */
};

struct um_worker {
	struct um_ctx *x;
	unsigned idx;
};

static uint64_t now_us(void)
{
	return ts_now_ns() / 1000;
}

static void say(const char *line)
{
	/* one write() per line so tasks do not interleave */
	if (write(STDOUT_FILENO, line, strlen(line)) < 0)
		return;
}

static int barrier_ready(int ready_fds[2], int wake_fds[2])
{
	struct pollfd pfd = { .fd = wake_fds[0], .events = POLLIN };

	if (write(ready_fds[1], "*", 1) != 1)
		return -1;
	while (poll(&pfd, 1, -1) != 1)
		if (errno != EINTR)
			return -1;
	return 0;
}

static int barrier_release(int ready_fds[2], int wake_fds[2], unsigned tasks)
{
	char b;

	for (unsigned i = 0; i < tasks; i++) {
		ssize_t r = read(ready_fds[0], &b, 1);
		if (r != 1)
			return -1; /* every task gone */
	}
	return write(wake_fds[1], "!", 1) == 1 ? 0 : -1;
}

static unsigned long *allocate(struct um_ctx *x, struct um_result *r)
{
	const struct um_config *c = x->c;
	unsigned long *p;

	if (!c->bytes)
		return NULL;
	if (c->malloc_mem) {
		p = malloc(c->bytes);
		if (!p)
			snprintf(r->error, sizeof(r->error), "malloc: %s", strerror(errno));
	} else {
		int prot = (c->readonly && !c->open_rw) ? PROT_READ : PROT_READ | PROT_WRITE;
		int flags = (c->file_set ? MAP_SHARED : MAP_PRIVATE) |
			    (c->prefault ? MAP_POPULATE : 0) | (c->anonymous ? MAP_ANONYMOUS : 0);
		p = mmap(NULL, c->bytes, prot, flags, c->anonymous ? -1 : x->fd, 0);
		if (p == MAP_FAILED) {
			snprintf(r->error, sizeof(r->error), "mmap failed: %s", strerror(errno));
			p = NULL;
		}
	}
	if (p && c->touch_alloc) {
		volatile unsigned long *vp = p;
		for (uint64_t i = 0; i < c->bytes / sizeof(*p); i++)
			vp[i] = i;
	}
	return p;
}

/* One read/write sweep; returns bytes accessed. */
static uint64_t rw_once(struct um_ctx *x, unsigned long *p, int read, int verify,
			struct ts_rng *rng, struct um_result *r, uint64_t deadline_us)
{
	const struct um_config *c = x->c;
	volatile unsigned long *vp = p;
	uint64_t m = c->bytes / sizeof(*p), stride = c->step / sizeof(*p), done = 0;

	for (uint64_t i = 0; i < m; i += stride) {
		uint64_t idx = c->random ? ts_rng_below(rng, m) : i;

		if (verify && vp[idx] != idx) {
			if (!r->corrupt++) {
				char line[160];
				r->first_bad_offset = idx * sizeof(*p);
				r->first_bad_found = vp[idx];
				snprintf(line, sizeof(line),
					 "Data wrong at offset 0x%" PRIx64 ". Expected 0x%08" PRIx64 ", got 0x%08lx\n",
					 idx * sizeof(*p), idx, (unsigned long)vp[idx]);
				say(line);
			}
		}
		if (read)
			(void)vp[idx];
		else
			vp[idx] = idx;
		done += sizeof(*p);
		if (deadline_us && !(i & 0xffff) && now_us() > deadline_us)
			break;
	}
	return done;
}

static void stats_line(const char *intro, uint64_t bytes, uint64_t usecs, uint64_t *kbps)
{
	char line[160];

	if (!usecs)
		usecs = 1;
	*kbps = ((bytes * 1000000ull) >> 10) / usecs;
	snprintf(line, sizeof(line), "%s%" PRIu64 " bytes / %" PRIu64 " usecs = %" PRIu64 " KB/s\n",
		 intro, bytes, usecs, *kbps);
	say(line);
}

static void *do_units(void *arg)
{
	struct um_worker *w = arg;
	struct um_ctx *x = w->x;
	const struct um_config *c = x->c;
	struct um_result *r = &x->res[w->idx];
	struct ts_rng rng;
	unsigned long *p;
	uint64_t rw_bytes, deadline = c->runtime_secs ? x->start_us + c->runtime_secs * 1000000ull : 0;
	bool written_seq = !c->readonly && !c->random;
	char line[96];

	wl_rng_seed(&rng, c->seed ^ ((uint64_t)w->idx << 32));
	if (!c->sync_rw && barrier_ready(x->start_ready, x->start_wake))
		goto fail_barrier;
	p = allocate(x, r);
	if (c->bytes && !p) {
		r->failed = 1;
		if (c->sync_rw)
			barrier_ready(x->start_ready, x->start_wake);
		if (c->sync_free)
			barrier_ready(x->free_ready, x->free_wake);
		return NULL;
	}
	/* upstream counts a newly allocated unit as bytes/8 of work */
	rw_bytes = c->bytes / 8;
	if (c->sync_rw && barrier_ready(x->start_ready, x->start_wake))
		goto fail_barrier;
	for (unsigned rep = 0; rep < c->repeat && p; rep++) {
		if (rep > 0 && !c->quiet)
			say(".");
		rw_bytes += rw_once(x, p, c->readonly, rep > 0 && written_seq, &rng, r, deadline);
		if (deadline && now_us() > deadline)
			break;
	}
	r->bytes = rw_bytes;
	r->usecs = now_us() - x->start_us;
	if (rw_bytes)
		stats_line("", r->bytes, r->usecs, &r->kbps);

	if (c->read_again && p) {
		uint64_t t0 = now_us(), b = 0;
		for (unsigned rep = 0; rep < c->repeat; rep++)
			b += rw_once(x, p, 1, written_seq, &rng, r, 0);
		r->ra_bytes = b;
		r->ra_usecs = now_us() - t0;
		stats_line("read again ", r->ra_bytes, r->ra_usecs, &r->ra_kbps);
	}
	if (c->mlock_mem && p && mlock(p, c->bytes))
		snprintf(r->error, sizeof(r->error), "mlock: %s", strerror(errno));
	if (c->punch_holes && p) {
		for (uint64_t off = 0; off + 2 * TS_PAGE_SIZE <= c->bytes; off += 2 * TS_PAGE_SIZE)
			madvise((char *)p + off, TS_PAGE_SIZE, MADV_DONTNEED);
		say("punch holes done\n");
	}
	for (unsigned s = c->sleep_secs; s;)
		s = sleep(s);
	if (c->sync_free && barrier_ready(x->free_ready, x->free_wake))
		goto fail_barrier;
	if (p) {
		uint64_t t0 = now_us();
		if (c->malloc_mem)
			free(p);
		else
			munmap(p, c->bytes);
		r->free_usecs = now_us() - t0;
		snprintf(line, sizeof(line), "%" PRIu64 " usecs to free memory\n", r->free_usecs);
		say(line);
	}
	r->done = 1;
	return NULL;

fail_barrier:
	r->failed = 1;
	snprintf(r->error, sizeof(r->error), "barrier pipe failed");
	return NULL;
}

static int do_task(struct um_ctx *x, unsigned task)
{
	const struct um_config *c = x->c;

	if (!c->nr_thread) {
		struct um_worker w = { x, task };
		do_units(&w);
		return x->res[task].failed ? TS_EXIT_ENV : 0;
	}
	pthread_t *tids = calloc(c->nr_thread, sizeof(*tids));
	struct um_worker *ws = calloc(c->nr_thread, sizeof(*ws));
	int rc = 0;

	if (!tids || !ws)
		return TS_EXIT_ENV;
	for (unsigned i = 0; i < c->nr_thread; i++) {
		ws[i].x = x;
		ws[i].idx = task * c->nr_thread + i;
		if (pthread_create(&tids[i], NULL, do_units, &ws[i])) {
			x->res[ws[i].idx].failed = 1;
			tids[i] = 0;
			rc = TS_EXIT_ENV;
		}
	}
	for (unsigned i = 0; i < c->nr_thread; i++) {
		if (tids[i])
			pthread_join(tids[i], NULL);
		if (x->res[ws[i].idx].failed)
			rc = TS_EXIT_ENV;
	}
	free(tids);
	free(ws);
	return rc;
}

int main(int argc, char **argv)
{
	struct um_config c;
	struct um_ctx x;
	struct ts_vmstat vm0, vm1;
	char err[256];
	unsigned workers;
	uint64_t t_begin;
	int r, rc = 0;

	um_config_defaults(&c);
	r = um_parse_args(argc, argv, &c, err, sizeof(err));
	if (r == 1) {
		fputs(um_usage, stdout);
		return 0;
	}
	if (r < 0) {
		fprintf(stderr, "usemem: %s (try --help)\n", err);
		return TS_EXIT_USAGE;
	}
	memset(&x, 0, sizeof(x));
	x.c = &c;
	x.fd = -1;
	workers = c.nr_task * (c.nr_thread ? c.nr_thread : 1);
	t_begin = now_us();
	x.start_us = t_begin;

	x.res = mmap(NULL, sizeof(*x.res) * workers, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (x.res == MAP_FAILED) {
		printf("error=cannot map result area: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	if (pipe(x.start_ready) || pipe(x.start_wake) || pipe(x.free_ready) || pipe(x.free_wake)) {
		printf("error=pipe: %s\n", strerror(errno));
		return TS_EXIT_ENV;
	}
	if (!c.malloc_mem && !c.anonymous) {
		x.fd = open(c.file, ((c.readonly && !c.open_rw) ? O_RDONLY : O_RDWR) | O_CREAT, 0666);
		if (x.fd < 0) {
			printf("error=failed to open %s: %s\n", c.file, strerror(errno));
			return TS_EXIT_ENV;
		}
	}
	if (ts_vmstat_read(&vm0))
		memset(&vm0, 0, sizeof(vm0));
	if (c.init_time) {
		uint64_t d = now_us() - x.start_us;
		char line[96];
		snprintf(line, sizeof(line), "the initialization time is %" PRIu64 " secs %" PRIu64 " usecs\n",
			 d / 1000000, d % 1000000);
		say(line);
		x.start_us = now_us();
	}

	fflush(stdout);
	pid_t *pids = calloc(c.nr_task, sizeof(*pids));
	unsigned forked = 0;
	if (!pids)
		return TS_EXIT_ENV;
	for (unsigned i = 0; i < c.nr_task; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(do_task(&x, i));
		}
		if (pid < 0) {
			printf("error=fork: %s\n", strerror(errno));
			rc = TS_EXIT_ENV;
			break;
		}
		pids[i] = pid;
		forked++;
	}
	close(x.start_ready[1]);
	close(x.free_ready[1]);
	unsigned waiting = forked * (c.nr_thread ? c.nr_thread : 1);
	if (barrier_release(x.start_ready, x.start_wake, waiting) ||
	    (c.sync_free && barrier_release(x.free_ready, x.free_wake, waiting)))
		rc = TS_EXIT_ENV;
	unsigned killed = 0;
	for (unsigned i = 0; i < forked; i++) {
		int st;
		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st))
			killed++;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = rc ? rc : TS_EXIT_ENV;
	}
	if (ts_vmstat_read(&vm1))
		vm1 = vm0;

	/* summary */
	uint64_t kb_sum = 0, ra_sum = 0, free_sum = 0, free_max = 0, corrupt = 0, bytes = 0;
	unsigned done = 0, nfree = 0;
	const char *first_err = NULL;
	for (unsigned i = 0; i < workers; i++) {
		struct um_result *w = &x.res[i];
		if (w->error[0] && !first_err)
			first_err = w->error;
		if (!w->done)
			continue;
		done++;
		kb_sum += w->kbps;
		ra_sum += w->ra_kbps;
		bytes += w->bytes;
		corrupt += w->corrupt;
		if (c.bytes) {
			nfree++;
			free_sum += w->free_usecs;
			if (w->free_usecs > free_max)
				free_max = w->free_usecs;
		}
	}
	struct ts_out o;
	ts_out_begin(&o, stdout, c.json);
	ts_out_u64(&o, "usemem_tasks", workers);
	ts_out_u64(&o, "usemem_done", done);
	ts_out_u64(&o, "usemem_killed", killed);
	ts_out_u64(&o, "size", c.bytes);
	ts_out_u64(&o, "throughput_sum_kbps", kb_sum);
	ts_out_u64(&o, "throughput_mean_kbps", done ? kb_sum / done : 0);
	if (c.read_again)
		ts_out_u64(&o, "read_again_sum_kbps", ra_sum);
	ts_out_u64(&o, "free_latency_mean_us", nfree ? free_sum / nfree : 0);
	ts_out_u64(&o, "free_latency_max_us", free_max);
	ts_out_u64(&o, "corrupt", corrupt);
	ts_out_u64(&o, "pswpin", ts_vmstat_delta(&vm0, &vm1, TS_VM_pswpin));
	ts_out_u64(&o, "pswpout", ts_vmstat_delta(&vm0, &vm1, TS_VM_pswpout));
	ts_out_u64(&o, "pgmajfault", ts_vmstat_delta(&vm0, &vm1, TS_VM_pgmajfault));
	ts_out_dbl(&o, "elapsed_ms", (double)(now_us() - t_begin) / 1e3, 1);
	if (first_err)
		ts_out_str(&o, "error", first_err);
	if (corrupt)
		rc = TS_EXIT_FAIL;
	ts_out_str(&o, "result", rc ? "fail" : "pass");
	ts_out_end(&o);
	(void)bytes;
	return rc;
}
