/* Clocks. */
#ifndef TS_TIME_H
#define TS_TIME_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t ts_now_ns(void);

#endif
