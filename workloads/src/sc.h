/*
 * Helpers of the swap cache tests (scprobe, swaprace): mappings, page
 * verification, /proc/vmstat keys, memcg reclaim and swap cache drain,
 * pagemap/kpageflags census, a futex barrier that works across processes.
 * The pure parts (census counting, swap entry comparison, page ownership,
 * the barrier) are unit tested on the host (tests/test_unit.c).
 */
#ifndef TIERSWAP_SC_H
#define TIERSWAP_SC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* expected generation of a page that must read as zeros (MADV_DONTNEED) */
#define SC_GEN_ZERO UINT32_MAX

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define SC_KPF_SWAPCACHE (1ULL << 13)
#define SC_KPF_COMPOUND_HEAD (1ULL << 15)
#define SC_KPF_COMPOUND_TAIL (1ULL << 16)

enum sc_mem { SC_MEM_ANON, SC_MEM_SHMEM, SC_MEM_SHARED };
enum sc_thp { SC_THP_DEFAULT, SC_THP_NEVER, SC_THP_ALWAYS };

/* A mapping aligned to 2 MiB (so PMD-size folios can be used). */
struct sc_map {
	char *base;
	size_t len;      /* bytes at base */
	char *raw;       /* what munmap needs */
	size_t raw_len;
	int fd;          /* memfd (SC_MEM_SHMEM) or -1 */
};

int sc_map_create(struct sc_map *m, enum sc_mem mem, size_t len, enum sc_thp thp,
		  char *err, size_t errlen);
void sc_map_destroy(struct sc_map *m);
/* --mem and --thp values by name: 0, or -1 for a name not known. */
int sc_parse_mem(const char *name, enum sc_mem *mem);
int sc_parse_thp(const char *name, enum sc_thp *thp);

/* Fill pages [0, n) of base with generation gen[i] (SC_GEN_ZERO: skipped). */
void sc_fill(char *base, uint64_t n, uint64_t seed, const uint32_t *gen);

/*
 * Verify pages [lo, hi): gen[i] or zeros for SC_GEN_ZERO. Returns the
 * number of bad pages; the first few are reported as "# CORRUPT" lines
 * (tag names the phase). *verified counts pages checked.
 */
uint64_t sc_verify(const char *base, uint64_t lo, uint64_t hi, uint64_t seed,
		   const uint32_t *gen, const char *tag, uint64_t *verified);
/* Same for one page; 0 good, 1 bad (reported when report is true). */
int sc_verify_page(const char *base, uint64_t i, uint64_t seed, uint32_t gen,
		   const char *tag, bool report);

/* One event line on stdout with a single write() (no interleaving). */
void sc_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One /proc/vmstat counter (0 if absent). */
/* Sleep that long (nanosleep(); a signal may cut it short). */
void sc_sleep_ms(long ms);
uint64_t sc_vmstat(const char *key);
/* One counter of a vmstat-format text; -1 if absent. */
int sc_vmstat_parse(const char *text, const char *key, uint64_t *val);

/* memory.reclaim of the memcg directory (bytes); 0 or -errno (EAGAIN: less reclaimed). */
int sc_memcg_reclaim(const char *cg, uint64_t bytes);
/* memory.stat "swapcached" of the memcg, in bytes; -1 when unreadable. */
int64_t sc_memcg_swapcached(const char *cg);
/* Reclaim the memcg until it holds nothing in the swap cache (at most
 * tries rounds). Returns what is left in the swap cache, in bytes. */
int64_t sc_drain_swapcache(const char *cg, unsigned tries);

/* Census of mapped pages from pagemap + kpageflags. */
struct sc_census {
	uint64_t present;         /* mapped pages */
	uint64_t large;           /* mapped pages that sit in a large folio */
	uint64_t swapcache;       /* mapped pages whose folio is in the swap cache */
	uint64_t large_swapcache; /* both */
	uint64_t swapped;         /* PTE is a swap entry */
};
/* Pure counting over pagemap entries and the kpageflags of their PFNs. */
void sc_census_count(const uint64_t *pm, const uint64_t *kflags, uint64_t n,
		     struct sc_census *c);
/* Read pagemap (pid 0 = self) and kpageflags for n pages at addr; 0 or -errno. */
int sc_census(pid_t pid, const void *addr, uint64_t n, struct sc_census *c);

/* Pages whose pagemap entries are both swap entries with the same type and offset. */
uint64_t sc_same_swap_entries(const uint64_t *a, const uint64_t *b, uint64_t n);

/* Folio size in pages of the largest folio among n pages at addr (1 if none). */
uint64_t sc_largest_folio_pages(const void *addr, uint64_t n);

/* Race ownership: page p is written by worker p % workers, in round r when
 * (p / workers + r) is even: half the pages of every worker each round. */
static inline unsigned sc_owner(uint64_t p, unsigned workers)
{
	return (unsigned)(p % workers);
}
static inline bool sc_write_sel(uint64_t p, unsigned workers, uint64_t round)
{
	return ((p / workers + round) & 1) == 0;
}

/*
 * A barrier for threads and processes (in MAP_SHARED memory): futex wait
 * on a generation word, with a 100 ms timeout so waiters notice *abort.
 */
struct sc_barrier {
	atomic_uint count;
	atomic_uint gen;
	unsigned n;
};
void sc_barrier_init(struct sc_barrier *b, unsigned n);
/* 0, or -1 when *abort became non-zero while waiting. */
int sc_barrier_wait(struct sc_barrier *b, atomic_int *abort_flag);

/* NUMA: move_pages(2) and get_mempolicy-free node queries via syscall(). */
long sc_move_pages(unsigned long count, void **pages, const int *nodes, int *status, int flags);
#define SC_MPOL_MF_MOVE (1 << 1)

/* ru_majflt of the calling thread. */
uint64_t sc_thread_majflt(void);

#endif
