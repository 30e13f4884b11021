/* Parsers of command-line and control values. Each returns 0 and sets
 * *out, or returns -1 and leaves *out alone: no message, the caller
 * words its own. None accepts a sign, leading blanks or trailing junk. */
#ifndef TS_PARSE_H
#define TS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Suffixes a component accepts beyond the binary K M G T (each optionally
 * followed by i and/or B: 4K 4KiB 4KB). The flags keep each component's
 * existing spellings; see docs/architecture.md, "Shared userspace code". */
enum {
	TS_SIZE_BYTES = 1u << 0,  /* a bare b/B: bytes ("512b") */
	TS_SIZE_BLOCKS = 1u << 1, /* s: 512-byte sectors, p: 4096-byte pages */
};

/* Decimal size with an optional suffix; -1 on overflow of 64 bits. */
int ts_parse_size(const char *s, unsigned flags, uint64_t *out);

/* Unsigned decimal integer in [min, max]. */
int ts_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Finite non-negative double (strtod syntax, nothing after it). */
int ts_parse_double(const char *s, double *out);

/* A duration as tierblk takes it (the shared fault vocabulary,
 * docs/conventions.md): decimal digits, an optional fraction of at most
 * nine digits, a unit ns, us, ms or s, or none for bare_ns each; it must
 * come to a whole number of ns, at most max_ns. */
int ts_parse_duration_ns(const char *s, uint64_t bare_ns, uint64_t max_ns, uint64_t *out);

/* The same in (fractional) microseconds, bare numbers in us, at most ten
 * minutes. */
int ts_parse_duration_us(const char *s, double *out);

/* A rate: "N%" (fraction allowed, to whole ppm), "Nppm" or a bare N
 * ppm; at most 100% (1000000 ppm). The shared fault vocabulary
 * (docs/conventions.md, "Faults and latencies"). */
int ts_parse_rate_ppm(const char *s, uint32_t *out);

/* ns in the largest of s, ms, us, ns that shows it exactly ("50us",
 * "1500ns"); 0 is "0". Returns snprintf's count. */
int ts_format_duration_ns(char *buf, size_t size, uint64_t ns);

#endif
