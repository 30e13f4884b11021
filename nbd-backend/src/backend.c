#define _GNU_SOURCE
#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static void init(struct backend *b)
{
	memset(b, 0, sizeof *b);
	b->fd = -1;
	b->fd_direct = -1;
}

int backend_open_ram(struct backend *b, uint64_t size, char *errbuf, size_t errlen)
{
	void *p;

	init(b);
	if (size == 0 || size > SIZE_MAX / 2) {
		snprintf(errbuf, errlen, "bad RAM export size");
		return -EINVAL;
	}
	/* MAP_POPULATE: every page is present before the first client
	 * arrives; mlockall() (done by the caller) then pins it. */
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		snprintf(errbuf, errlen, "cannot allocate %llu bytes: %s",
			 (unsigned long long)size, strerror(e));
		return -e;
	}
	b->ram = p;
	b->ram_len = (size_t)size;
	b->ram_mapped = true;
	b->size = size;
	return 0;
}

void backend_wrap_ram(struct backend *b, void *mem, uint64_t size)
{
	init(b);
	b->ram = mem;
	b->ram_len = (size_t)size;
	b->size = size;
}

int backend_open_file(struct backend *b, const char *path, uint64_t size,
		      bool direct, bool read_only, char *errbuf, size_t errlen)
{
	int flags = (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC;
	struct stat st;
	int e;

	init(b);
	b->read_only = read_only;
	b->fd = open(path, flags | (size && !read_only ? O_CREAT : 0), 0600);
	if (b->fd < 0) {
		e = errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(b->fd, &st) < 0)
		goto err_errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bsize;

		if (ioctl(b->fd, BLKGETSIZE64, &bsize) < 0)
			goto err_errno;
		b->is_blockdev = true;
		if (size > bsize) {
			snprintf(errbuf, errlen, "%s: size larger than the device (%llu)",
				 path, (unsigned long long)bsize);
			backend_close(b);
			return -EINVAL;
		}
		b->size = size ? size : bsize;
	} else if (S_ISREG(st.st_mode)) {
		if (size && (uint64_t)st.st_size != size) {
			if (read_only && (uint64_t)st.st_size < size) {
				snprintf(errbuf, errlen, "%s: file smaller than --size", path);
				backend_close(b);
				return -EINVAL;
			}
			if (!read_only && (uint64_t)st.st_size < size &&
			    ftruncate(b->fd, (off_t)size) < 0)
				goto err_errno;
		}
		b->size = size ? size : (uint64_t)st.st_size;
	} else {
		snprintf(errbuf, errlen, "%s: not a regular file or block device", path);
		backend_close(b);
		return -EINVAL;
	}
	if (b->size == 0) {
		snprintf(errbuf, errlen, "%s: empty export (give --size)", path);
		backend_close(b);
		return -EINVAL;
	}
	if (direct) {
		b->fd_direct = open(path, flags | O_DIRECT);
		if (b->fd_direct < 0)
			goto err_errno;
	}
	return 0;

err_errno:
	e = errno;
	snprintf(errbuf, errlen, "%s: %s", path, strerror(e));
	backend_close(b);
	return -e;
}

void backend_close(struct backend *b)
{
	if (b->ram && b->ram_mapped)
		munmap(b->ram, b->ram_len);
	if (b->fd >= 0)
		close(b->fd);
	if (b->fd_direct >= 0)
		close(b->fd_direct);
	init(b);
}

static int pick_fd(struct backend *b, const void *buf, size_t len, uint64_t off)
{
	if (b->fd_direct >= 0 &&
	    (((uintptr_t)buf | len | off) & (BACKEND_ALIGN - 1)) == 0)
		return b->fd_direct;
	return b->fd;
}

int backend_pread(struct backend *b, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	if (b->ram) {
		memcpy(buf, b->ram + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(pick_fd(b, p, len, off), p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) { /* past the end of a file that shrank */
			memset(p, 0, len);
			return 0;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int backend_pwrite(struct backend *b, const void *buf, size_t len, uint64_t off, bool fua)
{
	const uint8_t *p = buf;

	if (b->ram) {
		memcpy(b->ram + off, buf, len);
		return 0;
	}
	while (len) {
		struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
		ssize_t n = pwritev2(pick_fd(b, p, len, off), &iov, 1, (off_t)off,
				     fua ? RWF_DSYNC : 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int backend_flush(struct backend *b)
{
	if (b->ram)
		return 0;
	if (fdatasync(b->fd) < 0)
		return -errno;
	return 0;
}

int backend_trim(struct backend *b, uint64_t off, uint64_t len)
{
	/* TRIM is advisory: the RAM export zeroes (so a trimmed range reads
	 * back as zeroes, handy for tests), a file gets a hole where the
	 * filesystem can, anything else is ignored. */
	if (b->ram) {
		memset(b->ram + off, 0, (size_t)len);
		return 0;
	}
	if (!b->is_blockdev)
		(void)fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)len);
	return 0;
}

int backend_zero(struct backend *b, uint64_t off, uint64_t len, bool may_trim,
		 bool fua, void *scratch, size_t scratch_len)
{
	int r;

	if (b->ram) {
		memset(b->ram + off, 0, (size_t)len);
		return 0;
	}
	if (!b->is_blockdev) {
		if (fallocate(b->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
			      (off_t)off, (off_t)len) == 0 ||
		    (may_trim && fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					   (off_t)off, (off_t)len) == 0))
			return fua ? backend_flush(b) : 0;
	} else {
		uint64_t range[2] = { off, len };

		if (ioctl(b->fd, BLKZEROOUT, range) == 0)
			return fua ? backend_flush(b) : 0;
	}
	memset(scratch, 0, scratch_len);
	while (len) {
		size_t n = len < scratch_len ? (size_t)len : scratch_len;

		r = backend_pwrite(b, scratch, n, off, false);
		if (r)
			return r;
		off += n;
		len -= n;
	}
	return fua ? backend_flush(b) : 0;
}
