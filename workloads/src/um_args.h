/* usemem command line (vm-scalability compatible subset). */
#ifndef TIERSWAP_UM_ARGS_H
#define TIERSWAP_UM_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct um_config {
	uint64_t bytes;        /* per task (process or thread) */
	unsigned nr_task;      /* -n processes */
	unsigned nr_thread;    /* -t threads per process (0 = none) */
	bool malloc_mem;       /* -a */
	const char *file;      /* -f, default /dev/zero */
	bool file_set;
	bool prefault;         /* -F MAP_POPULATE */
	uint64_t step;         /* -j */
	unsigned repeat;       /* -r */
	bool readonly;         /* -o */
	bool open_rw;          /* -w */
	bool random;           /* -R */
	bool mlock_mem;        /* -M */
	unsigned sleep_secs;   /* -s */
	unsigned runtime_secs; /* -T */
	bool quiet;            /* -q */
	bool sync_rw;          /* -y */
	bool sync_free;        /* -x */
	bool anonymous;        /* -O */
	bool read_again;       /* -Z */
	bool punch_holes;
	bool init_time;
	bool touch_alloc;
	bool json;             /* tierswap extension: summary as JSON */
	uint64_t seed;         /* tierswap extension: -R seed (default: fixed) */
};

void um_config_defaults(struct um_config *c);
/* 0 ok, 1 help, -1 error (one-line message in err). Uses getopt_long. */
int um_parse_args(int argc, char **argv, struct um_config *c, char *err, size_t errlen);

extern const char um_usage[];

#endif
