/* Small helpers shared by tiernbd and tiernbd-ctl. */
#ifndef TIERNBD_UTIL_H
#define TIERNBD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse a size: decimal with optional K M G T (binary), s (512-byte
 * sectors) or p (4096-byte pages) suffix.  Returns 0 or -1. */
int parse_size(const char *s, uint64_t *out);
/* Parse an unsigned decimal integer (no suffix).  Returns 0 or -1. */
int parse_u64(const char *s, uint64_t *out);
/* Parse a duration, default unit microseconds, suffixes us ms s.
 * Returns 0 or -1; result in (fractional) microseconds. */
int parse_duration_us(const char *s, double *out);

uint64_t now_ns(void);

/* xoshiro256** seeded through splitmix64: same seed, same sequence. */
struct prng {
	uint64_t s[4];
};
void prng_seed(struct prng *r, uint64_t seed);
uint64_t prng_next(struct prng *r);
double prng_uniform(struct prng *r); /* [0, 1) */
double prng_normal(struct prng *r);  /* standard normal */

/* Map between the NBD wire error values and their names. */
int nbd_errno_parse(const char *s, uint32_t *out);
const char *nbd_errno_name(uint32_t e);
/* Map a host errno to the closest NBD wire error. */
uint32_t nbd_errno_from_host(int err);

/* Fixed-capacity text buffer (allocated once, reused). */
struct outbuf {
	char *p;
	size_t len, cap;
	bool truncated;
};
int outbuf_init(struct outbuf *o, size_t cap);
void outbuf_free(struct outbuf *o);
void outbuf_reset(struct outbuf *o);
void outbuf_printf(struct outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One log line on stderr, prefixed with a timestamp. */
void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Split a line into at most max whitespace-separated words in place.
 * Returns the word count or -1 when there are more than max. */
int split_words(char *line, char **argv, int max);

#endif
