#define _GNU_SOURCE
#include "tests.h"
#include "ts/out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_result_lines(struct ts_tap *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ts_out o;

	ts_out_begin(&o, f, false);
	ts_out_u64(&o, "pages", UINT64_MAX);
	ts_out_i64(&o, "delta", -3);
	ts_out_dbl(&o, "p99_us", 12.345, 1);
	ts_out_str(&o, "result", "pass");
	ts_out_end(&o);
	ts_out_begin(&o, f, true);
	ts_out_u64(&o, "corrupt", 0);
	ts_out_str(&o, "note", "a\"b\\c\nd");
	ts_out_dbl(&o, "x", 0.5, 3);
	ts_out_end(&o);
	fclose(f);
	TS_TAP_OK(t, text && !strcmp(text, "pages=18446744073709551615\ndelta=-3\np99_us=12.3\nresult=pass\n"
				  "{\"corrupt\":0,\"note\":\"a\\\"b\\\\cd\",\"x\":0.500}\n"),
		  "out: key=value lines; one JSON object a line, quotes escaped, control characters dropped");
	free(text);
}

static void test_outbuf(struct ts_tap *t)
{
	struct ts_outbuf o;

	TS_TAP_OK(t, ts_outbuf_init(&o, 16) == 0 && o.len == 0 && !o.truncated && !strcmp(o.p, ""),
		  "outbuf: starts empty");
	ts_outbuf_printf(&o, "ok %d\n", 1);
	ts_outbuf_printf(&o, "%s", "abc");
	TS_TAP_OK(t, !strcmp(o.p, "ok 1\nabc") && o.len == 8 && !o.truncated, "outbuf: appends");
	ts_outbuf_printf(&o, "%s", "0123456789");
	TS_TAP_OK(t, o.truncated && o.len == 15 && !strcmp(o.p, "ok 1\nabc0123456"),
		  "outbuf: past the capacity cut, terminated, marked truncated");
	ts_outbuf_printf(&o, "more");
	TS_TAP_OK(t, o.truncated && o.len == 15, "outbuf: nothing added once truncated");
	ts_outbuf_reset(&o);
	ts_outbuf_printf(&o, "x");
	TS_TAP_OK(t, !strcmp(o.p, "x") && o.len == 1 && !o.truncated, "outbuf: reset empties it");
	ts_outbuf_free(&o);
	TS_TAP_OK(t, o.p == NULL, "outbuf: free");
}

static void test_log_line(struct ts_tap *t)
{
	char big[1000], got[2048];
	int fds[2];
	ssize_t n, n2;
	long sec, usec;
	int used = 0;

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	if (pipe(fds)) {
		TS_TAP_OK(t, 0, "log: pipe");
		return;
	}
	int r1 = ts_log_line(fds[1], "tiernbd", "listening on port %d", 10809);
	n = read(fds[0], got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	TS_TAP_OK(t, r1 == 0 && sscanf(got, "tiernbd[%ld.%6ld]: %n", &sec, &usec, &used) == 2 && used > 0 &&
		  !strcmp(got + used, "listening on port 10809\n") && got[used - 3] == ']',
		  "log: 'tag[sec.usec]: message' and a newline");
	int r2 = ts_log_line(fds[1], "tiernbd", "%s", big);
	n2 = read(fds[0], got, sizeof got);
	TS_TAP_OK(t, r2 == 0 && n2 == 511 && got[510] == '\n' && got[509] == 'x',
		  "log: a long message is cut to one 511-byte line (%zd)", n2);
	close(fds[0]);
	close(fds[1]);
	TS_TAP_OK(t, ts_log_line(-1, "t", "x") == -EBADF, "log: a write error is returned");
}

static void test_usage_fail(struct ts_tap *t)
{
	char got[256];
	int fds[2], st = 0;
	ssize_t n = 0, r;
	pid_t pid;

	if (pipe(fds)) {
		TS_TAP_OK(t, 0, "usage: pipe");
		return;
	}
	fflush(NULL); /* the child's exit() must not write our buffers again */
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		ts_usage_fail("prog", "bad size '%s'", "12Q");
	}
	close(fds[1]);
	while (pid > 0 && (r = read(fds[0], got + n, sizeof got - 1 - (size_t)n)) > 0)
		n += r;
	got[n] = '\0';
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	TS_TAP_OK(t, pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
		  !strcmp(got, "prog: bad size '12Q'\n"),
		  "usage: 'prog: message' on stderr, exit status 2");
}

void test_out(struct ts_tap *t)
{
	test_result_lines(t);
	test_outbuf(t);
	test_log_line(t);
	test_usage_fail(t);
}
