#define _GNU_SOURCE
#include "folios.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define KPF_COMPOUND_HEAD (1ULL << 15)
#define KPF_COMPOUND_TAIL (1ULL << 16)

static int ilog2_u64(uint64_t n)
{
	int o = 0;

	while (n > 1) {
		n >>= 1;
		o++;
	}
	return o;
}

void ts_folio_count(const uint64_t *pfn, const uint64_t *flags, uint64_t npages,
		    struct ts_folio_census *out)
{
	memset(out, 0, sizeof(*out));
	for (uint64_t i = 0; i < npages;) {
		uint64_t n = 1;

		if (!pfn[i]) {
			out->not_present++;
			i++;
			continue;
		}
		if (flags[i] & KPF_COMPOUND_TAIL) {
			/* the range starts inside a folio, or a head is unmapped */
			out->partial++;
			i++;
			continue;
		}
		if (flags[i] & KPF_COMPOUND_HEAD) {
			while (i + n < npages && pfn[i + n] == pfn[i] + n &&
			       (flags[i + n] & KPF_COMPOUND_TAIL))
				n++;
		}
		/* a whole folio has a power-of-two size */
		if (n & (n - 1)) {
			out->partial += n;
		} else {
			int o = ilog2_u64(n);

			out->pages[o > TS_FOLIO_MAX_ORDER ? TS_FOLIO_MAX_ORDER : o] += n;
		}
		i += n;
	}
}

int ts_folio_census(const void *addr, uint64_t npages, struct ts_folio_census *out,
		    char *err, size_t errlen)
{
	uint64_t *pfn = calloc(npages ? npages : 1, sizeof(*pfn));
	uint64_t *flags = calloc(npages ? npages : 1, sizeof(*flags));
	long psz = sysconf(_SC_PAGESIZE);
	int pm = -1, kf = -1, ret = -1;

	if (!pfn || !flags) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	pm = open("/proc/self/pagemap", O_RDONLY);
	kf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kf < 0) {
		snprintf(err, errlen, "open %s: %s", pm < 0 ? "/proc/self/pagemap" : "/proc/kpageflags",
			 strerror(errno));
		goto out;
	}
	off_t off = (off_t)((uintptr_t)addr / (uintptr_t)psz) * 8;
	if (pread(pm, pfn, npages * 8, off) != (ssize_t)(npages * 8)) {
		snprintf(err, errlen, "read pagemap: %s", strerror(errno));
		goto out;
	}
	for (uint64_t i = 0; i < npages; i++) {
		uint64_t e = pfn[i];

		pfn[i] = (e & PM_PRESENT) ? (e & PM_PFN_MASK) : 0;
		if ((e & PM_PRESENT) && !pfn[i]) {
			snprintf(err, errlen, "pagemap hides PFNs (needs CAP_SYS_ADMIN)");
			goto out;
		}
		if (pfn[i] && pread(kf, &flags[i], 8, (off_t)(pfn[i] * 8)) != 8) {
			snprintf(err, errlen, "read kpageflags: %s", strerror(errno));
			goto out;
		}
	}
	ts_folio_count(pfn, flags, npages, out);
	ret = 0;
out:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	free(pfn);
	free(flags);
	return ret;
}

void ts_folio_format(const struct ts_folio_census *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int o = 0; o <= TS_FOLIO_MAX_ORDER && used < len; o++) {
		if (!c->pages[o])
			continue;
		int n = snprintf(buf + used, len - used, "%s%d:%llu", used ? "," : "", o,
				 (unsigned long long)c->pages[o]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

long long ts_shmem_huge_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ShmemHugePages: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}
