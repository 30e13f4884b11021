/* KTAP emitter for C unit tests, the dialect of every producer here
 * (docs/conventions.md, "Test output"): "KTAP version 1" first, then
 * "ok N - what" / "not ok N - what" with the failing expression as a
 * comment, "# SKIP" and "# XFAIL" results, and the plan "1..N" at the end. */
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
	fprintf(f, "KTAP version 1\n");
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

/* "ok N - what # SKIP reason", or "ok N - what # XFAIL reason": a known
 * failure, as kselftest's ksft_test_result_xfail() prints it. */
static inline void ts_tap_directive(struct ts_tap *t, const char *directive,
				    const char *what, const char *reason)
{
	t->run++;
	fprintf(t->f, "ok %d - %s # %s %s\n", t->run, what, directive, reason);
}

static inline void ts_tap_skip(struct ts_tap *t, const char *what, const char *reason)
{
	ts_tap_directive(t, "SKIP", what, reason);
}

static inline void ts_tap_xfail(struct ts_tap *t, const char *what, const char *reason)
{
	ts_tap_directive(t, "XFAIL", what, reason);
}

/* Print the plan; returns the exit status: 0 when everything passed. */
static inline int ts_tap_done(struct ts_tap *t)
{
	fprintf(t->f, "1..%d\n", t->run);
	fflush(t->f);
	return t->failed ? 1 : 0;
}

#endif
