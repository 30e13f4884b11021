/* TAP emitter for C unit tests: "ok N - what" / "not ok N - what" with
 * the failing expression as a comment, and the plan "1..N" at the end. */
#ifndef TS_TAP_H
#define TS_TAP_H

#include <stdarg.h>
#include <stdio.h>

struct ts_tap {
	FILE *f;
	int run, failed;
};

static inline void ts_tap_init(struct ts_tap *t, FILE *f)
{
	t->f = f;
	t->run = 0;
	t->failed = 0;
}

/* TS_TAP_OK(t, cond, fmt, ...): one result; returns cond as 0 or 1. */
#define TS_TAP_OK(t, cond, ...) \
	ts_tap_result((t), !!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

static inline int ts_tap_result(struct ts_tap *t, int ok, const char *file, int line,
				const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static inline int ts_tap_result(struct ts_tap *t, int ok, const char *file, int line,
				const char *expr, const char *fmt, ...)
{
	va_list ap;

	t->run++;
	if (!ok)
		t->failed++;
	fprintf(t->f, "%s %d - ", ok ? "ok" : "not ok", t->run);
	va_start(ap, fmt);
	vfprintf(t->f, fmt, ap);
	va_end(ap);
	fputc('\n', t->f);
	if (!ok)
		fprintf(t->f, "#   failed at %s:%d: %s\n", file, line, expr);
	return ok;
}

/* Print the plan; returns the exit status: 0 when everything passed. */
static inline int ts_tap_done(struct ts_tap *t)
{
	fprintf(t->f, "1..%d\n", t->run);
	fflush(t->f);
	return t->failed ? 1 : 0;
}

#endif
