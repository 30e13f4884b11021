#include "pattern.h"

static uint64_t pattern_base(uint64_t seed, uint64_t page_index, uint32_t gen)
{
	return ts_mix64(ts_mix64(seed ^ 0x5157a9e5ull) ^ ts_mix64(page_index) ^
			((uint64_t)gen << 17));
}

static uint64_t word0(uint64_t page_index)
{
	return TS_PAT_MAGIC | (page_index & TS_PAT_INDEX_MASK);
}

static uint64_t word1(uint64_t seed, uint32_t gen)
{
	return ((uint64_t)gen << 32) | (seed & 0xffffffffull);
}

uint64_t ts_pattern_word(uint64_t seed, uint64_t page_index, uint32_t gen, size_t word)
{
	if (word == 0)
		return word0(page_index);
	if (word == 1)
		return word1(seed, gen);
	return pattern_base(seed, page_index, gen) + (uint64_t)word * TS_PAT_STEP;
}

void ts_pattern_fill_words(void *page, uint64_t seed, uint64_t page_index, uint32_t gen,
			   size_t nwords)
{
	uint64_t *w = page;
	uint64_t base = pattern_base(seed, page_index, gen);
	size_t i;

	if (nwords > TS_PAT_WORDS)
		nwords = TS_PAT_WORDS;
	for (i = 0; i < nwords && i < 2; i++)
		w[i] = i ? word1(seed, gen) : word0(page_index);
	for (; i < nwords; i++)
		w[i] = base + (uint64_t)i * TS_PAT_STEP;
	for (; i < TS_PAT_WORDS; i++)
		w[i] = 0;
}

void ts_pattern_fill(void *page, uint64_t seed, uint64_t page_index, uint32_t gen)
{
	ts_pattern_fill_words(page, seed, page_index, gen, TS_PAT_WORDS);
}

int ts_pattern_is_zero(uint64_t seed, uint64_t page_index, unsigned zero_pct)
{
	if (!zero_pct)
		return 0;
	return ts_mix64(ts_mix64(seed ^ 0x2e60ull) ^ page_index) % 100 < zero_pct;
}

int ts_pattern_verify_words(const void *page, uint64_t seed, uint64_t page_index,
			    uint32_t gen, size_t nwords, struct ts_mismatch *m)
{
	const volatile uint64_t *w = page;
	uint64_t base = pattern_base(seed, page_index, gen), diff = 0, exp;
	size_t i;

	if (nwords > TS_PAT_WORDS)
		nwords = TS_PAT_WORDS;
	/* Fast path: accumulate differences, locate only on failure. */
	for (i = 0; i < nwords && i < 2; i++)
		diff |= w[i] ^ (i ? word1(seed, gen) : word0(page_index));
	for (; i < nwords; i++)
		diff |= w[i] ^ (base + (uint64_t)i * TS_PAT_STEP);
	for (; i < TS_PAT_WORDS; i++)
		diff |= w[i];
	if (!diff)
		return 0;
	if (!m)
		return 1;

	for (i = 0; i < TS_PAT_WORDS; i++) {
		exp = i < nwords ? ts_pattern_word(seed, page_index, gen, i) : 0;
		if (w[i] != exp) {
			m->offset = i * sizeof(uint64_t);
			m->expected = exp;
			m->found = w[i];
			break;
		}
	}
	m->found_has_magic = (w[0] & ~TS_PAT_INDEX_MASK) == TS_PAT_MAGIC;
	m->found_page = w[0] & TS_PAT_INDEX_MASK;
	m->found_gen = (uint32_t)(w[1] >> 32);
	m->found_zero = 1;
	for (i = 0; i < TS_PAT_WORDS; i++) {
		if (w[i]) {
			m->found_zero = 0;
			break;
		}
	}
	return 1;
}

int ts_pattern_verify(const void *page, uint64_t seed, uint64_t page_index,
		      uint32_t gen, struct ts_mismatch *m)
{
	return ts_pattern_verify_words(page, seed, page_index, gen, TS_PAT_WORDS, m);
}
