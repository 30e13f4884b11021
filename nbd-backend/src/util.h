/* tiernbd's own helpers; the generic ones (parsers, generator, clock,
 * line output) are the shared library's, common/include/ts/. */
#ifndef TIERNBD_UTIL_H
#define TIERNBD_UTIL_H

#include <stdint.h>
#include <unistd.h>

#include "ts/out.h"
#include "ts/parse.h"
#include "ts/rng.h"
#include "ts/time.h"

/* tiernbd's sizes also take s (512-byte sectors), p (4096-byte pages) and
 * a bare b (bytes), as tierblk's positions (docs/conventions.md). */
#define NBD_SIZE_FLAGS (TS_SIZE_BLOCKS | TS_SIZE_BYTES)

/* One log line on stderr: "tiernbd[sec.usec]: ...". */
#define log_line(...) ts_log_line(STDERR_FILENO, "tiernbd", __VA_ARGS__)

/* Map between the NBD wire error values and their names. */
int nbd_errno_parse(const char *s, uint32_t *out);
const char *nbd_errno_name(uint32_t e);
/* Map a host errno to the closest NBD wire error. */
uint32_t nbd_errno_from_host(int err);

/* Split a line into at most max whitespace-separated words in place.
 * Returns the word count or -1 when there are more than max. */
int split_words(char *line, char **argv, int max);

#endif
