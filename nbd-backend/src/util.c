#define _GNU_SOURCE
#include "util.h"
#include "proto.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': mul = UINT64_C(1) << 10; break;
		case 'm': case 'M': mul = UINT64_C(1) << 20; break;
		case 'g': case 'G': mul = UINT64_C(1) << 30; break;
		case 't': case 'T': mul = UINT64_C(1) << 40; break;
		case 's': mul = 512; break;
		case 'p': mul = 4096; break;
		default: return -1;
		}
		end++;
		/* accept "KiB", "KB", "K" */
		if (mul >= 1024 && (*end == 'i' || *end == 'I'))
			end++;
		if (mul >= 1024 && (*end == 'b' || *end == 'B'))
			end++;
		if (*end)
			return -1;
	}
	if (v && mul > UINT64_MAX / v)
		return -1;
	*out = v * mul;
	return 0;
}

int parse_duration_us(const char *s, double *out)
{
	char *end;
	double v, mul = 1;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (!strcmp(end, "") || !strcmp(end, "us"))
		mul = 1;
	else if (!strcmp(end, "ms"))
		mul = 1e3;
	else if (!strcmp(end, "s"))
		mul = 1e6;
	else if (!strcmp(end, "ns"))
		mul = 1e-3;
	else
		return -1;
	v *= mul;
	if (v > 600e6) /* ten minutes is plenty */
		return -1;
	*out = v;
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void prng_seed(struct prng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t prng_next(struct prng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double prng_uniform(struct prng *r)
{
	return (double)(prng_next(r) >> 11) * 0x1.0p-53;
}

double prng_normal(struct prng *r)
{
	/* Box-Muller; one value per call keeps the sequence simple. */
	double u1 = 1.0 - prng_uniform(r); /* (0, 1] */
	double u2 = prng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static const struct {
	const char *name;
	uint32_t val;
} nbd_errnos[] = {
	{ "EPERM", NBD_EPERM },         { "EIO", NBD_EIO },
	{ "ENOMEM", NBD_ENOMEM },       { "EINVAL", NBD_EINVAL },
	{ "ENOSPC", NBD_ENOSPC },       { "EOVERFLOW", NBD_EOVERFLOW },
	{ "ENOTSUP", NBD_ENOTSUP },     { "ESHUTDOWN", NBD_ESHUTDOWN },
};

int nbd_errno_parse(const char *s, uint32_t *out)
{
	uint64_t v;

	for (size_t i = 0; i < sizeof nbd_errnos / sizeof nbd_errnos[0]; i++) {
		if (!strcasecmp(s, nbd_errnos[i].name)) {
			*out = nbd_errnos[i].val;
			return 0;
		}
	}
	if (parse_u64(s, &v) == 0) {
		for (size_t i = 0; i < sizeof nbd_errnos / sizeof nbd_errnos[0]; i++) {
			if (nbd_errnos[i].val == v) {
				*out = (uint32_t)v;
				return 0;
			}
		}
	}
	return -1;
}

const char *nbd_errno_name(uint32_t e)
{
	for (size_t i = 0; i < sizeof nbd_errnos / sizeof nbd_errnos[0]; i++)
		if (nbd_errnos[i].val == e)
			return nbd_errnos[i].name;
	return "E?";
}

uint32_t nbd_errno_from_host(int err)
{
	switch (err) {
	case 0: return 0;
	case EPERM: case EROFS: case EACCES: return NBD_EPERM;
	case ENOMEM: return NBD_ENOMEM;
	case EINVAL: return NBD_EINVAL;
	case ENOSPC: case EFBIG: case EDQUOT: return NBD_ENOSPC;
	case EOVERFLOW: return NBD_EOVERFLOW;
	case EOPNOTSUPP: return NBD_ENOTSUP;
	case ESHUTDOWN: return NBD_ESHUTDOWN;
	default: return NBD_EIO;
	}
}

int outbuf_init(struct outbuf *o, size_t cap)
{
	o->p = malloc(cap);
	if (!o->p)
		return -1;
	o->cap = cap;
	outbuf_reset(o);
	return 0;
}

void outbuf_free(struct outbuf *o)
{
	free(o->p);
	o->p = NULL;
}

void outbuf_reset(struct outbuf *o)
{
	o->len = 0;
	o->truncated = false;
	if (o->cap)
		o->p[0] = '\0';
}

void outbuf_printf(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->truncated || o->len + 1 >= o->cap) {
		o->truncated = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		o->truncated = true;
		o->len = o->cap - 1;
	} else {
		o->len += (size_t)n;
	}
}

void log_line(const char *fmt, ...)
{
	char buf[512];
	struct timespec ts;
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(buf, sizeof buf, "tiernbd[%ld.%06ld]: ", (long)ts.tv_sec,
		     ts.tv_nsec / 1000);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	/* one write(2) per line so lines from threads do not interleave */
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

int split_words(char *line, char **argv, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -1;
		argv[n++] = w;
	}
	return n;
}
