/* Line output: result lines (key=value or JSON), a bounded text buffer,
 * and timestamped log lines. */
#ifndef TS_OUT_H
#define TS_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Result output: "key=value" lines (default) or one JSON object per line
 * (json). Keys are [a-z0-9_]; values never contain spaces or newlines.
 */
struct ts_out {
	FILE *f;
	bool json;
	bool first;
};

void ts_out_begin(struct ts_out *o, FILE *f, bool json);
void ts_out_u64(struct ts_out *o, const char *key, uint64_t v);
void ts_out_i64(struct ts_out *o, const char *key, int64_t v);
void ts_out_dbl(struct ts_out *o, const char *key, double v, int prec);
void ts_out_str(struct ts_out *o, const char *key, const char *v);
void ts_out_end(struct ts_out *o);

/* Fixed-capacity text buffer (allocated once, reused): output past the
 * capacity is dropped and marked truncated, the text stays terminated. */
struct ts_outbuf {
	char *p;
	size_t len, cap;
	bool truncated;
};
int ts_outbuf_init(struct ts_outbuf *o, size_t cap); /* 0 or -1 (no memory) */
void ts_outbuf_free(struct ts_outbuf *o);
void ts_outbuf_reset(struct ts_outbuf *o);
void ts_outbuf_printf(struct ts_outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "tag[sec.usec]: message\n" (CLOCK_REALTIME) on fd in one write(2), so
 * lines from threads do not interleave; at most 511 bytes, the message
 * cut to fit. Returns 0 or -errno. */
int ts_log_line(int fd, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Bad command-line input, the project's convention: "prog: message" on
 * stderr, exit status 2. */
_Noreturn void ts_usage_fail(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
