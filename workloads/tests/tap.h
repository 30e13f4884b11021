/* Minimal TAP emitter for unit tests: lines "ok - what" / "not ok - what";
 * tests/check.sh numbers them and prints the plan. */
#ifndef TIERSWAP_TAP_H
#define TIERSWAP_TAP_H

#include <stdio.h>

struct tap {
	int run, failed;
};

#define TAP_OK(t, cond, ...)                                           \
	do {                                                           \
		int c_ = !!(cond);                                     \
		(t)->run++;                                            \
		if (!c_)                                               \
			(t)->failed++;                                 \
		printf("%s - ", c_ ? "ok" : "not ok");                 \
		printf(__VA_ARGS__);                                   \
		printf("\n");                                          \
		if (!c_)                                               \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	} while (0)

#endif
