/*
 * Force-included (-include) into the kernel selftests the lab builds
 * (qemu/build-kselftests.sh): line-buffered stdout, as on a terminal. In the
 * guest their stdout is a file; fully buffered, a selftest killed at its time
 * limit would lose every result it printed, and a child it forks would print
 * the parent's unflushed lines again when it exits. No selftest code changes.
 */
#include <stdio.h>

static void __attribute__((constructor)) tierswap_ksft_linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
