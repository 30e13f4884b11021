#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
