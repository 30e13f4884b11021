/* The parsers, good and bad inputs: overflow, empty, bad suffix,
 * negative, trailing junk. */
#include "tests.h"
#include "ts/parse.h"

#include <inttypes.h>
#include <string.h>

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define K 1024ull

struct size_case {
	const char *s;
	uint64_t v;
};

/* All good cases must parse to v, all bad ones fail and leave *out alone. */
static int sizes(struct ts_tap *t, unsigned flags, const struct size_case *good, size_t ng,
		 const char *const *bad, size_t nb)
{
	int ok = 1;

	for (size_t i = 0; i < ng; i++) {
		uint64_t v = 7;

		if (ts_parse_size(good[i].s, flags, &v) || v != good[i].v) {
			fprintf(t->f, "# flags %u: '%s' -> %" PRIu64 "\n", flags, good[i].s, v);
			ok = 0;
		}
	}
	for (size_t i = 0; i < nb; i++) {
		uint64_t v = 7;

		if (ts_parse_size(bad[i], flags, &v) == 0 || v != 7) {
			fprintf(t->f, "# flags %u: '%s' accepted\n", flags, bad[i] ? bad[i] : "(null)");
			ok = 0;
		}
	}
	return ok;
}

static void test_size(struct ts_tap *t)
{
	static const struct size_case common[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4k", 4 * K }, { "4K", 4 * K }, { "64M", 64 * K * K },
		{ "64m", 64 * K * K }, { "1G", K * K * K }, { "2T", 2 * K * K * K * K },
		{ "1MiB", K * K }, { "1MB", K * K }, { "1Mi", K * K }, { "1mib", K * K },
		{ "007", 7 }, { "18446744073709551615", UINT64_MAX }, { "16777215T", 16777215ull << 40 },
	};
	/* bad for every dialect */
	static const char *const bad[] = {
		NULL, "", "M", "K1", "x", "12Q", "-1", "+1", " 1", "1 ", "1 M", "1.5G", "0x10",
		"4kk", "4KBB", "4KiBx", "4iK", "1e3",
		"18446744073709551616", "99999999999999999999", "16777216T", "17179869184G",
	};
	static const struct size_case blocks[] = { { "1s", 512 }, { "8p", 32 * K }, { "1pB", 4096 } };
	static const char *const blocks_bad[] = { "512b", "1B", "1S", "1P", "1si", "1sB", "36028797018963968s" };
	static const struct size_case bytes[] = { { "512b", 512 }, { "512B", 512 } };
	static const char *const bytes_bad[] = { "1s", "1p", "1bb", "1ib", "1bi" };

	TS_TAP_OK(t, sizes(t, 0, common, N_(common), bad, N_(bad)) &&
		  sizes(t, TS_SIZE_BLOCKS, common, N_(common), bad, N_(bad)) &&
		  sizes(t, TS_SIZE_BYTES, common, N_(common), bad, N_(bad)),
		  "size: K M G T with i/B, 64-bit limit; empty, sign, junk, bad suffix, overflow rejected");
	TS_TAP_OK(t, sizes(t, TS_SIZE_BLOCKS, blocks, N_(blocks), blocks_bad, N_(blocks_bad)) &&
		  sizes(t, 0, NULL, 0, blocks_bad, N_(blocks_bad)),
		  "size: s and p only with TS_SIZE_BLOCKS (tiernbd), bare B rejected");
	TS_TAP_OK(t, sizes(t, TS_SIZE_BYTES, bytes, N_(bytes), bytes_bad, N_(bytes_bad)) &&
		  sizes(t, 0, NULL, 0, (const char *const[]){ "512b", "512B" }, 2),
		  "size: bare b/B only with TS_SIZE_BYTES (workloads), s and p rejected");
}

/* The parsers below through one signature, for rejects(). */
static int any_uint(const char *s, void *out) { return ts_parse_uint(s, 0, UINT64_MAX, out); }
static int any_double(const char *s, void *out) { return ts_parse_double(s, out); }
static int any_duration(const char *s, void *out) { return ts_parse_duration_us(s, out); }

/* Every input must fail and leave the output alone. */
static int rejects(struct ts_tap *t, const char *what, int (*parse)(const char *, void *),
		   const char *const *bad, size_t n)
{
	int ok = 1;

	for (size_t i = 0; i < n; i++) {
		union { uint64_t u; double d; } v, before;

		memset(&v, 0xa5, sizeof v);
		before = v;
		if (parse(bad[i], &v) == 0 || memcmp(&v, &before, sizeof v)) {
			fprintf(t->f, "# %s '%s' accepted\n", what, bad[i] ? bad[i] : "(null)");
			ok = 0;
		}
	}
	return ok;
}

static void test_uint(struct ts_tap *t)
{
	static const char *const bad[] = {
		NULL, "", "-1", "+1", " 1", "1 ", "1x", "0x1", "1.0", "1k", "18446744073709551616",
	};
	uint64_t v = 0;

	TS_TAP_OK(t, rejects(t, "uint", any_uint, bad, N_(bad)),
		  "uint: empty, sign, blanks, junk, suffix, overflow rejected");
	TS_TAP_OK(t, ts_parse_uint("18446744073709551615", 0, UINT64_MAX, &v) == 0 && v == UINT64_MAX &&
		  ts_parse_uint("0", 0, 0, &v) == 0 && v == 0 && ts_parse_uint("012", 1, 20, &v) == 0 && v == 12,
		  "uint: the full 64-bit range, leading zeros");
	v = 7;
	TS_TAP_OK(t, ts_parse_uint("12", 1, 20, &v) == 0 && v == 12 && ts_parse_uint("1", 1, 20, &v) == 0 &&
		  ts_parse_uint("20", 1, 20, &v) == 0 && v == 20 && ts_parse_uint("0", 1, 20, &v) &&
		  ts_parse_uint("21", 1, 20, &v) && v == 20,
		  "uint: min and max are inclusive, outside them rejected");
}

struct real_case {
	const char *s;
	double v;
};

/* Every input must parse to exactly v. */
static int accepts(struct ts_tap *t, const char *what, int (*parse)(const char *, void *),
		   const struct real_case *good, size_t n)
{
	int ok = 1;

	for (size_t i = 0; i < n; i++) {
		double v = -1;

		if (parse(good[i].s, &v) || v != good[i].v) {
			fprintf(t->f, "# %s '%s' -> %g\n", what, good[i].s, v);
			ok = 0;
		}
	}
	return ok;
}

static void test_reals(struct ts_tap *t)
{
	static const struct real_case dbl[] = {
		{ "0.5", 0.5 }, { "1e3", 1000 }, { "0", 0 }, { ".25", 0.25 },
	};
	static const char *const dbl_bad[] = {
		NULL, "", "-1", "-0.5", "1x", "1 ", "inf", "nan", "1e999", ".", "x1",
	};
	static const struct real_case dur[] = {
		{ "50", 50 }, { "50us", 50 }, { "1ms", 1000 }, { "2s", 2e6 }, { "500ns", 0.5 },
		{ "0.5ms", 500 }, { "0", 0 }, { "600s", 600e6 }, { "1500us", 1500 }, { "0.3us", 0.3 },
		{ "1ns", 0.001 }, { "9881.342645ms", 9881342.645 }, { "599.999999999s", 599999999.999 },
		{ "273080688654ns", 273080688.654 },
	};
	static const char *const dur_bad[] = {
		NULL, "", "-1", "+1", " 1", "us", "1m", "1 ms", "1ms ", "1MS", "1sec", "601s",
		"inf", "nan", "1e999", "1e-400", "0.1ns", "1.0001ns", "0.0000001ms",
		"1e3us", "0x10", ".5ms", "1.", "1.ms", "1.5e-3ms", "1.0000000001s",
		"18446744073709551616ns",
	};

	TS_TAP_OK(t, accepts(t, "double", any_double, dbl, N_(dbl)), "double: decimal and exponent forms");
	TS_TAP_OK(t, rejects(t, "double", any_double, dbl_bad, N_(dbl_bad)),
		  "double: empty, negative, junk, infinite, NaN, out of range rejected");
	TS_TAP_OK(t, accepts(t, "duration", any_duration, dur, N_(dur)),
		  "duration: no unit = us; ns us ms s; fractions; ten minutes allowed");
	TS_TAP_OK(t, rejects(t, "duration", any_duration, dur_bad, N_(dur_bad)),
		  "duration: empty, sign, bad unit, junk, over ten minutes, out of range, under 1 ns rejected");
}

static int any_rate(const char *s, void *out) { return ts_parse_rate_ppm(s, out); }

static void test_rate(struct ts_tap *t)
{
	static const struct {
		const char *s;
		uint32_t v;
	} good[] = {
		{ "0", 0 }, { "200000", 200000 }, { "20%", 200000 }, { "0.5%", 5000 }, { "0.0001%", 1 },
		{ "100%", 1000000 }, { "100.0%", 1000000 }, { "1000000", 1000000 }, { "250ppm", 250 },
		{ "0%", 0 }, { "12.34%", 123400 },
	};
	static const char *const bad[] = {
		NULL, "", "%", "-1%", "+1", " 1", "1 ", "1x", "101%", "100.0001%", "1000001", "0.00001%",
		"1.5", "1.5ppm", "1.%", ".5%", "20 %", "20%%", "1e3", "18446744073709551616%",
	};
	int ok = 1;

	for (size_t i = 0; i < N_(good); i++) {
		uint32_t v = 7;

		if (ts_parse_rate_ppm(good[i].s, &v) || v != good[i].v) {
			fprintf(t->f, "# rate '%s' -> %u\n", good[i].s, v);
			ok = 0;
		}
	}
	TS_TAP_OK(t, ok, "rate: N%% (to whole ppm), Nppm, bare ppm, up to 100%%");
	TS_TAP_OK(t, rejects(t, "rate", any_rate, bad, N_(bad)),
		  "rate: empty, sign, junk, over 100%%, finer than 1 ppm rejected");
}

static void test_format_duration(struct ts_tap *t)
{
	static const struct {
		uint64_t ns;
		const char *s;
	} cases[] = {
		{ 0, "0" }, { 1, "1ns" }, { 1500, "1500ns" }, { 50000, "50us" }, { 1000000, "1ms" },
		{ 1500000, "1500us" }, { 2000000000, "2s" }, { UINT64_MAX, "18446744073709551615ns" },
	};
	int ok = 1;

	for (size_t i = 0; i < N_(cases); i++) {
		char buf[32];

		ts_format_duration_ns(buf, sizeof buf, cases[i].ns);
		if (strcmp(buf, cases[i].s)) {
			fprintf(t->f, "# %" PRIu64 " ns -> '%s'\n", cases[i].ns, buf);
			ok = 0;
		}
	}
	TS_TAP_OK(t, ok, "format duration: the largest exact unit, 0 as 0");
}

void test_parse(struct ts_tap *t)
{
	test_size(t);
	test_uint(t);
	test_reals(t);
	test_rate(t);
	test_format_duration(t);
}
