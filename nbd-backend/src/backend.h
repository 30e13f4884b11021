/* The export's backing store: RAM (locked with the rest of the process)
 * or a file / block device accessed with pread/pwrite. */
#ifndef TIERNBD_BACKEND_H
#define TIERNBD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BACKEND_ALIGN 4096

struct backend {
	uint64_t size;
	uint8_t *ram;      /* RAM export, or NULL for a file */
	size_t ram_len;    /* length of the mapping */
	bool ram_mapped;   /* ram from mmap (else caller-owned) */
	int fd;            /* buffered descriptor, -1 for RAM */
	int fd_direct;     /* O_DIRECT descriptor, -1 unless enabled */
	bool is_blockdev;
	bool read_only;
};

/* All return 0 on success or a negative errno; errbuf gets a message. */
int backend_open_ram(struct backend *b, uint64_t size, char *errbuf, size_t errlen);
/* Wrap caller memory as a RAM export (fuzzing, tests). */
void backend_wrap_ram(struct backend *b, void *mem, uint64_t size);
int backend_open_file(struct backend *b, const char *path, uint64_t size,
		      bool direct, bool read_only, char *errbuf, size_t errlen);
void backend_close(struct backend *b);

int backend_pread(struct backend *b, void *buf, size_t len, uint64_t off);
int backend_pwrite(struct backend *b, const void *buf, size_t len, uint64_t off, bool fua);
int backend_flush(struct backend *b);
int backend_trim(struct backend *b, uint64_t off, uint64_t len);
/* scratch: an aligned buffer of scratch_len bytes the call may zero. */
int backend_zero(struct backend *b, uint64_t off, uint64_t len, bool may_trim,
		 bool fua, void *scratch, size_t scratch_len);

#endif
