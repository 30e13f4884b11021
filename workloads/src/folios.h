/*
 * Folio census of a mapping: how many of its pages sit in folios of each
 * order, from /proc/self/pagemap (PFNs; needs CAP_SYS_ADMIN) and
 * /proc/kpageflags (compound head/tail bits). Used to show that a large
 * folio came back from swap whole.
 */
#ifndef TIERSWAP_FOLIOS_H
#define TIERSWAP_FOLIOS_H

#include <stddef.h>
#include <stdint.h>

#define TS_FOLIO_MAX_ORDER 12

struct ts_folio_census {
	uint64_t pages[TS_FOLIO_MAX_ORDER + 1]; /* pages in folios of each order */
	uint64_t not_present;                   /* not mapped (swapped, or never) */
	uint64_t partial;                       /* pages of folios mapped only in part */
};

/*
 * Count the npages pages at addr. Returns 0, or -1 with err set (e.g. no
 * PFNs in pagemap without CAP_SYS_ADMIN).
 */
int ts_folio_census(const void *addr, uint64_t npages, struct ts_folio_census *out,
		    char *err, size_t errlen);

/*
 * The counting step alone, over arrays the caller read: pfn[i] (0 when not
 * present) and flags[i] (kpageflags of pfn[i]). Exposed for unit tests.
 */
void ts_folio_count(const uint64_t *pfn, const uint64_t *flags, uint64_t npages,
		    struct ts_folio_census *out);

/*
 * ShmemHugePages of /proc/meminfo in KiB, or -1: the census of a file read
 * with pread, where nothing is mapped to count (system-wide: meaningful
 * when nothing else holds huge shmem).
 */
long long ts_shmem_huge_kb(void);

/* "order:pages,..." for the orders that have pages ("" when none). */
void ts_folio_format(const struct ts_folio_census *c, char *buf, size_t len);

#endif
