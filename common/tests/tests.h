/* Host unit tests of common/: one file per helper, one TAP stream. */
#ifndef TS_TESTS_H
#define TS_TESTS_H

#include "ts/tap.h"

void test_rng(struct ts_tap *t);
void test_parse(struct ts_tap *t);
void test_time(struct ts_tap *t);
void test_out(struct ts_tap *t);
void test_tap(struct ts_tap *t);

#endif
