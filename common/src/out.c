#define _GNU_SOURCE
#include "ts/out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ts_out_begin(struct ts_out *o, FILE *f, bool json)
{
	o->f = f;
	o->json = json;
	o->first = true;
	if (json)
		fputc('{', f);
}

static void key(struct ts_out *o, const char *k)
{
	if (o->json)
		fprintf(o->f, "%s\"%s\":", o->first ? "" : ",", k);
	else
		fprintf(o->f, "%s=", k);
	o->first = false;
}

static void end_item(struct ts_out *o)
{
	if (!o->json)
		fputc('\n', o->f);
}

void ts_out_u64(struct ts_out *o, const char *k, uint64_t v)
{
	key(o, k);
	fprintf(o->f, "%" PRIu64, v);
	end_item(o);
}

void ts_out_i64(struct ts_out *o, const char *k, int64_t v)
{
	key(o, k);
	fprintf(o->f, "%" PRId64, v);
	end_item(o);
}

void ts_out_dbl(struct ts_out *o, const char *k, double v, int prec)
{
	key(o, k);
	fprintf(o->f, "%.*f", prec, v);
	end_item(o);
}

void ts_out_str(struct ts_out *o, const char *k, const char *v)
{
	key(o, k);
	if (o->json) {
		fputc('"', o->f);
		for (const char *p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', o->f);
			/* control characters would break the one-line object */
			if ((unsigned char)*p >= 0x20)
				fputc(*p, o->f);
		}
		fputc('"', o->f);
	} else {
		fputs(v, o->f);
	}
	end_item(o);
}

void ts_out_end(struct ts_out *o)
{
	if (o->json)
		fputs("}\n", o->f);
	fflush(o->f);
}

int ts_outbuf_init(struct ts_outbuf *o, size_t cap)
{
	o->p = malloc(cap);
	if (!o->p)
		return -1;
	o->cap = cap;
	ts_outbuf_reset(o);
	return 0;
}

void ts_outbuf_free(struct ts_outbuf *o)
{
	free(o->p);
	o->p = NULL;
}

void ts_outbuf_reset(struct ts_outbuf *o)
{
	o->len = 0;
	o->truncated = false;
	if (o->cap)
		o->p[0] = '\0';
}

void ts_outbuf_printf(struct ts_outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->truncated || o->len + 1 >= o->cap) {
		o->truncated = true;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		o->truncated = true;
		o->len = o->cap - 1;
	} else {
		o->len += (size_t)n;
	}
}

int ts_log_line(int fd, const char *tag, const char *fmt, ...)
{
	char buf[512];
	struct timespec ts;
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(buf, sizeof buf, "%s[%ld.%06ld]: ", tag, (long)ts.tv_sec,
		     ts.tv_nsec / 1000);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof buf - 1) /* a tag that long leaves no room */
		n = (int)sizeof buf - 2;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	if (write(fd, buf, (size_t)n) < 0)
		return -errno;
	return 0;
}

void ts_usage_fail(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}
