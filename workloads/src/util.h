/* Helpers of the workloads; the generic ones (parsers, clock, generator,
 * result lines) are the shared library's, common/include/ts/. */
#ifndef TIERSWAP_UTIL_H
#define TIERSWAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ts/parse.h"
#include "ts/time.h"

#define TS_PAGE_SIZE 4096u
#define TS_PAGE_SHIFT 12

/* The workloads' sizes also take a bare b/B ("512b"). */
#define WL_SIZE_FLAGS TS_SIZE_BYTES

/* Exit codes shared by every program. */
enum {
	TS_EXIT_OK = 0,
	TS_EXIT_FAIL = 1,  /* corruption / unexpected error signal */
	TS_EXIT_USAGE = 2, /* bad command line */
	TS_EXIT_ENV = 3,   /* environment/setup failure (memcg, mmap, child died) */
};

/* Read a whole small file into buf (NUL terminated). Returns bytes or -errno. */
long ts_read_file(const char *path, char *buf, size_t len);

/* Write a string to a file (e.g. a cgroup knob). Returns 0 or -errno. */
int ts_write_file(const char *path, const char *s);

/*
 * Look up "key value" (space separated, as /proc/vmstat and memory.stat)
 * in text. Returns 0 and sets *val when found, -1 otherwise.
 */
int ts_kv_lookup(const char *text, const char *key, uint64_t *val);

#endif
