#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ts_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (p == s)
		return -1;
	switch (*p) {
	case 'k': case 'K': shift = 10; p++; break;
	case 'm': case 'M': shift = 20; p++; break;
	case 'g': case 'G': shift = 30; p++; break;
	case 't': case 'T': shift = 40; p++; break;
	case 'b': case 'B': break;
	case '\0': break;
	default: return -1;
	}
	if (shift && (*p == 'i' || *p == 'I'))
		p++;
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int ts_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	for (; *p; p++) {
		unsigned d;
		if (*p < '0' || *p > '9')
			return -1;
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int ts_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

uint64_t ts_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long ts_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		ssize_t r = read(fd, buf + got, len - 1 - got);
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	return (long)got;
}

int ts_write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t w;
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, s, len);
	if (w < 0)
		e = -errno;
	else if ((size_t)w != len)
		e = -EIO;
	close(fd);
	return e;
}

int ts_kv_lookup(const char *text, const char *key, uint64_t *val)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			char *end;
			unsigned long long v = strtoull(p + klen + 1, &end, 10);
			if (end == p + klen + 1)
				return -1;
			*val = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}
