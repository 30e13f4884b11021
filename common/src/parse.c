#include "ts/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Leading decimal digits (at least one) into *v; *end after them. */
static int digits(const char *s, uint64_t *v, const char **end)
{
	const char *p = s;
	uint64_t x = 0;

	if (!s)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	if (p == s)
		return -1;
	*v = x;
	*end = p;
	return 0;
}

/* "N" or "N.F" (F at most max_digits digits): N in *ip, F as *fp / *div;
 * *end after it. The shared vocabulary's numbers: no sign, exponent or
 * leading '.'. */
static int decimal(const char *s, unsigned max_digits, uint64_t *ip, uint64_t *fp,
		   uint64_t *div, const char **end)
{
	const char *p;

	if (digits(s, ip, &p))
		return -1;
	*fp = 0;
	*div = 1;
	if (*p == '.') {
		if (!(p[1] >= '0' && p[1] <= '9'))
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (!max_digits--)
				return -1;
			*fp = *fp * 10 + (uint64_t)(*p - '0');
			*div *= 10;
		}
	}
	*end = p;
	return 0;
}

int ts_parse_size(const char *s, unsigned flags, uint64_t *out)
{
	const char *p;
	uint64_t v, mul = 1;

	if (digits(s, &v, &p))
		return -1;
	switch (*p) {
	case '\0': break;
	case 'k': case 'K': mul = UINT64_C(1) << 10; p++; break;
	case 'm': case 'M': mul = UINT64_C(1) << 20; p++; break;
	case 'g': case 'G': mul = UINT64_C(1) << 30; p++; break;
	case 't': case 'T': mul = UINT64_C(1) << 40; p++; break;
	case 's': case 'p':
		if (!(flags & TS_SIZE_BLOCKS))
			return -1;
		mul = *p++ == 's' ? 512 : 4096;
		break;
	case 'b': case 'B':
		if (!(flags & TS_SIZE_BYTES))
			return -1;
		break; /* taken as the B below */
	default:
		return -1;
	}
	/* i and B after any multiplier of 1024 or more, as tiernbd always
	 * took them ("4pB" included); a bare B only with TS_SIZE_BYTES. */
	if (mul >= 1024 && (*p == 'i' || *p == 'I'))
		p++;
	if ((mul >= 1024 || (mul == 1 && (flags & TS_SIZE_BYTES))) && (*p == 'b' || *p == 'B'))
		p++;
	if (*p)
		return -1;
	if (v && mul > UINT64_MAX / v)
		return -1;
	*out = v * mul;
	return 0;
}

int ts_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;

	if (digits(s, &v, &end) || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int ts_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

int ts_parse_duration_ns(const char *s, uint64_t bare_ns, uint64_t max_ns, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	const char *p;
	uint64_t ip, fp, div, unit = 0, v;

	/* nine digits at most: finer than 1 ns in any unit */
	if (decimal(s, 9, &ip, &fp, &div, &p))
		return -1;
	if (!*p)
		unit = bare_ns;
	for (size_t i = 0; !unit && i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(p, units[i].name))
			unit = units[i].ns;
	/* fp < 10^9 and unit <= 10^9: fp * unit fits */
	if (!unit || (fp * unit) % div || ip > UINT64_MAX / unit)
		return -1;
	v = ip * unit;
	if (v > UINT64_MAX - fp * unit / div)
		return -1;
	v += fp * unit / div;
	if (v > max_ns)
		return -1;
	*out = v;
	return 0;
}

int ts_parse_duration_us(const char *s, double *out)
{
	uint64_t ns;

	/* ten minutes is plenty */
	if (ts_parse_duration_ns(s, 1000, UINT64_C(600000000000), &ns))
		return -1;
	*out = (double)ns / 1000;
	return 0;
}

int ts_parse_rate_ppm(const char *s, uint32_t *out)
{
	const char *p;
	uint64_t ip, fp, div, v;

	/* a fraction of a percent, down to whole ppm (4 digits) */
	if (decimal(s, 4, &ip, &fp, &div, &p))
		return -1;
	if (!strcmp(p, "%")) {
		if (ip > 100)
			return -1;
		v = ip * 10000 + fp * 10000 / div;
	} else if ((!*p || !strcmp(p, "ppm")) && div == 1) {
		v = ip;
	} else {
		return -1;
	}
	if (v > 1000000)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int ts_format_duration_ns(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = { { "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 } };

	for (size_t i = 0; ns && i < sizeof units / sizeof units[0]; i++)
		if (ns % units[i].ns == 0)
			return snprintf(buf, size, "%" PRIu64 "%s", ns / units[i].ns, units[i].name);
	return snprintf(buf, size, "0");
}
