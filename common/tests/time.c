#define _GNU_SOURCE
#include "tests.h"
#include "ts/time.h"

#include <time.h>

void test_time(struct ts_tap *t)
{
	struct timespec ts, two_ms = { 0, 2000000 };
	uint64_t a, b, c, prev;
	int mono = 1;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	a = ts_now_ns();
	TS_TAP_OK(t, a / 1000000000u - (uint64_t)ts.tv_sec <= 1, "time: ts_now_ns is CLOCK_MONOTONIC in ns");
	prev = a;
	for (int i = 0; i < 100000; i++) {
		b = ts_now_ns();
		if (b < prev)
			mono = 0;
		prev = b;
	}
	nanosleep(&two_ms, NULL);
	c = ts_now_ns();
	TS_TAP_OK(t, mono && c - a >= 2000000 && c - a < 10000000000ull,
		  "time: never goes back; a 2 ms sleep advances it by 2 ms or more");
}
