/* The emitter on a memory stream: numbering, diagnostics, plan, status. */
#define _GNU_SOURCE
#include "tests.h"

#include <stdlib.h>
#include <string.h>

void test_tap(struct ts_tap *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ts_tap in;
	int r1, r2, rc;

	ts_tap_init(&in, f);
	r1 = TS_TAP_OK(&in, 1 + 1 == 2, "first %d", 1);
	r2 = TS_TAP_OK(&in, 2 < 1, "second");
	ts_tap_skip(&in, "third", "why");
	ts_tap_xfail(&in, "fourth", "known");
	rc = ts_tap_done(&in);
	fclose(f);
	TS_TAP_OK(t, r1 == 1 && r2 == 0 && rc == 1 && in.run == 4 && in.failed == 1,
		  "tap: counts results and failures (an XFAIL is not one); a failure makes the status 1");
	TS_TAP_OK(t, text && !strncmp(text, "KTAP version 1\nok 1 - first 1\nnot ok 2 - second\n#   failed at ", 62) &&
		  strstr(text, "tap.c:") &&
		  strstr(text, ": 2 < 1\nok 3 - third # SKIP why\nok 4 - fourth # XFAIL known\n1..4\n"),
		  "tap: the KTAP header, numbered lines, the failed expression as a comment, SKIP, XFAIL, the plan last");
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	ts_tap_init(&in, f);
	TS_TAP_OK(&in, 1, "only");
	rc = ts_tap_done(&in);
	fclose(f);
	TS_TAP_OK(t, rc == 0 && text && !strcmp(text, "KTAP version 1\nok 1 - only\n1..1\n"),
		  "tap: all passed gives status 0");
	free(text);
}
