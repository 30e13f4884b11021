/*
 * Per-page data pattern: every 4 KiB page holds 512 64-bit words derived
 * from (seed, page index, generation).
 *
 *   word 0   = TS_PAT_MAGIC | page_index        (page index in the low 40 bits)
 *   word 1   = (generation << 32) | (seed & 0xffffffff)
 *   word i>1 = base + i * TS_PAT_STEP, base = mix(seed, page, generation)
 *
 * Any changed byte, a page written to the wrong slot (word 0 names the page
 * it belongs to), a stale page (word 1 names its generation) and a zero page
 * all mismatch.
 */
#ifndef TIERSWAP_PATTERN_H
#define TIERSWAP_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "ts/rng.h" /* ts_mix64 */

#define TS_PAT_WORDS 512u
#define TS_PAT_MAGIC 0x7453000000000000ull /* "tS" */
#define TS_PAT_INDEX_MASK 0x000000ffffffffffull
#define TS_PAT_STEP 0x9e3779b97f4a7c15ull

struct ts_mismatch {
	size_t offset;          /* byte offset of the first bad word in the page */
	uint64_t expected;      /* expected word there */
	uint64_t found;         /* word found there */
	uint64_t found_page;    /* page index word 0 claims (if magic present) */
	uint32_t found_gen;     /* generation word 1 claims */
	int found_has_magic;    /* word 0 carries the magic: a whole pattern page */
	int found_zero;         /* the whole page reads as zero */
};

/*
 * Whether page @page_index is one of the about @zero_pct percent of pages
 * that hold zeroes instead of the pattern (swapstress --zero-pct): chosen
 * from the seed, the same in every generation. 0 never, 100 always.
 */
int ts_pattern_is_zero(uint64_t seed, uint64_t page_index, unsigned zero_pct);

/*
 * The pattern in the first @nwords words only, zeroes after them: 0 is a
 * zero page, TS_PAT_SPARSE_WORDS a page that compresses to a few dozen
 * bytes and still names its page and generation, TS_PAT_WORDS the whole
 * pattern (ts_pattern_fill() and ts_pattern_verify()).
 */
#define TS_PAT_SPARSE_WORDS 8u
void ts_pattern_fill_words(void *page, uint64_t seed, uint64_t page_index, uint32_t gen,
			   size_t nwords);
int ts_pattern_verify_words(const void *page, uint64_t seed, uint64_t page_index,
			    uint32_t gen, size_t nwords, struct ts_mismatch *m);

/* Fill one page (TS_PAT_WORDS words) with the pattern. */
void ts_pattern_fill(void *page, uint64_t seed, uint64_t page_index, uint32_t gen);

/* Expected value of one word. */
uint64_t ts_pattern_word(uint64_t seed, uint64_t page_index, uint32_t gen, size_t word);

/*
 * Verify one page. Returns 0 when it matches, 1 on mismatch (filling *m
 * when m is not NULL).
 */
int ts_pattern_verify(const void *page, uint64_t seed, uint64_t page_index,
		      uint32_t gen, struct ts_mismatch *m);

#endif
