/*
 * ss-locate: find swapstress pages on a block device (a swap device).
 *
 *   ss-locate DEV PAGE [MAXSLOTS]
 *   ss-locate --all DEV [MAXSLOTS]
 *
 * Reads DEV 4 KiB slot by slot (O_DIRECT, so the device is what answers)
 * and prints the first slot whose word 0 names swapstress page PAGE (see
 * pattern.h). For tests that inject a fault at the slot holding a given
 * page, where pagemap shows no swap entry (shmem). With --all, every slot
 * that holds a swapstress page, as "SLOT PAGE" lines: which pages a device
 * holds, in one pass. Exit 0 found (--all: read to the end), 1 not found,
 * 2 bad arguments, 3 I/O error.
 */
#define _GNU_SOURCE
#include "pattern.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOT 4096
#define BATCH 64 /* slots per read */

int main(int argc, char **argv)
{
	uint64_t page = 0, max = UINT64_MAX, slot;
	const char *dev;
	unsigned char *buf;
	bool all;
	int fd;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: ss-locate DEV PAGE [MAXSLOTS] | ss-locate --all DEV [MAXSLOTS]\n"
		       "Print the first 4 KiB slot of DEV holding swapstress page PAGE;\n"
		       "with --all, \"SLOT PAGE\" for every slot holding one.\n");
		return 0;
	}
	all = argc >= 2 && !strcmp(argv[1], "--all");
	if (all ? (argc < 3 || argc > 4 ||
		   (argc == 4 && ts_parse_uint(argv[3], 1, UINT64_MAX, &max))) :
		  (argc < 3 || argc > 4 || ts_parse_uint(argv[2], 0, TS_PAT_INDEX_MASK, &page) ||
		   (argc == 4 && ts_parse_uint(argv[3], 1, UINT64_MAX, &max)))) {
		fprintf(stderr, "ss-locate: usage: ss-locate DEV PAGE [MAXSLOTS] | ss-locate --all DEV [MAXSLOTS]\n");
		return 2;
	}
	dev = all ? argv[2] : argv[1];
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "ss-locate: open %s: %s\n", dev, strerror(errno));
		return 3;
	}
	buf = aligned_alloc(SLOT, (size_t)SLOT * BATCH);
	if (!buf) {
		fprintf(stderr, "ss-locate: out of memory\n");
		return 3;
	}
	const uint64_t want = TS_PAT_MAGIC | page;
	for (slot = 0; slot < max;) {
		ssize_t n = pread(fd, buf, (size_t)SLOT * BATCH, (off_t)(slot * SLOT));

		if (n < 0) {
			fprintf(stderr, "ss-locate: read %s at slot %" PRIu64 ": %s\n", dev, slot,
				strerror(errno));
			return 3;
		}
		if (n < SLOT)
			break;
		for (ssize_t i = 0; i + SLOT <= n && slot < max; i += SLOT, slot++) {
			uint64_t w0;

			memcpy(&w0, buf + i, sizeof(w0));
			if (all && (w0 & ~TS_PAT_INDEX_MASK) == TS_PAT_MAGIC)
				printf("%" PRIu64 " %" PRIu64 "\n", slot, (uint64_t)(w0 & TS_PAT_INDEX_MASK));
			else if (!all && w0 == want) {
				printf("%" PRIu64 "\n", slot);
				return 0;
			}
		}
	}
	return all ? 0 : 1;
}
