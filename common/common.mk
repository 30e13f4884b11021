# The userspace library nbd-backend and workloads share (docs/architecture.md).
# A component's Makefile includes this file and compiles $(TS_COMMON_SRCS)
# into its programs with $(TS_COMMON_CFLAGS) and its own flags: sources, not
# an archive, so the fuzz harness builds them with its sanitizers and the
# programs link exactly as before (nothing new for ldd or the initramfs).
TS_COMMON := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TS_COMMON_SRCS := $(addprefix $(TS_COMMON)/src/,out.c parse.c rng.c time.c)
TS_COMMON_HDRS := $(wildcard $(TS_COMMON)/include/ts/*.h)
TS_COMMON_CFLAGS := -I$(TS_COMMON)/include
