/* Small helpers shared by the tierswap workloads. */
#ifndef TIERSWAP_UTIL_H
#define TIERSWAP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TS_PAGE_SIZE 4096u
#define TS_PAGE_SHIFT 12

/* Exit codes shared by every program. */
enum {
	TS_EXIT_OK = 0,
	TS_EXIT_FAIL = 1,  /* corruption / unexpected error signal */
	TS_EXIT_USAGE = 2, /* bad command line */
	TS_EXIT_ENV = 3,   /* environment/setup failure (memcg, mmap, child died) */
};

/*
 * Parse a size: decimal digits with an optional binary suffix k/K, m/M,
 * g/G, t/T (optionally followed by "B" or "iB"). Returns 0 on success,
 * -1 on syntax error or overflow.
 */
int ts_parse_size(const char *s, uint64_t *out);

/* Parse an unsigned decimal integer in [min, max]; 0 on success. */
int ts_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Parse a non-negative double; 0 on success. */
int ts_parse_double(const char *s, double *out);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t ts_now_ns(void);

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
