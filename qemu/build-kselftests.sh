#!/bin/bash
# Build the kernel's own swap-related selftests from one kernel tree:
# build-kselftests.sh TREE FLAVOUR
#   TREE     base (build/src/pristine) | patched (build/src/patched)
#   FLAVOUR  the kernel build whose `make headers_install` provides the UAPI
#            headers (build/obj/TREE-FLAVOUR)
# Output in build/kselftest/TREE-FLAVOUR/: usr/include (the headers),
# mm/{cow,khugepaged,uffd-unit-tests}, cgroup/{test_memcontrol,test_zswap}
# (static binaries, built by the selftests' own Makefiles) and zram/ (the
# scripts). mkinitramfs.sh puts that directory in the guest at
# /usr/lib/tierswap/kselftest; docs/kselftests.md says what runs.
# KSELFTEST_PARTS="mm cgroup zram" (the default), a subset, or "none": what to
# build (make test passes what its tests need: qemu/kselftest-parts.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?tree}
flavour=${2:?flavour}
obj=$top/build/obj/$tree-$flavour
out=$top/build/kselftest/$tree-$flavour
case "$tree" in
base) src=$top/build/src/pristine ;;
patched) src=$top/build/src/patched ;;
*) echo "build-kselftests: unknown tree '$tree'" >&2; exit 1 ;;
esac
st=$src/tools/testing/selftests

die() { echo "build-kselftests: $*" >&2; exit 1; }
parts=" ${KSELFTEST_PARTS:-mm cgroup zram} "
for p in $parts; do
	case "$p" in mm | cgroup | zram | none) ;; *) die "unknown part '$p' (mm, cgroup, zram, none)" ;; esac
done
want() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }
[ -f "$obj/.config" ] || die "kernel $tree-$flavour not configured (make kernel)"
want mm && { [ -f /usr/include/liburing.h ] || die "missing liburing-dev: apt-get install liburing-dev"; }

MM_PROGS="cow khugepaged uffd-unit-tests"
CG_PROGS="test_memcontrol test_zswap"
ZRAM_FILES="zram.sh zram01.sh zram02.sh zram_lib.sh"

mkdir -p "$out"
if want zram; then
	mkdir -p "$out/zram"
	for f in $ZRAM_FILES; do install -m 755 "$st/zram/$f" "$out/zram/$f"; done
fi
if ! want mm && ! want cgroup; then echo "$out"; exit 0; fi

# UAPI headers of this very tree (what the selftests' KHDR_INCLUDES expects).
make -s -C "$src" O="$obj" headers_install INSTALL_HDR_PATH="$out/usr" >&2 ||
	die "headers_install failed for $tree-$flavour"

# The selftests' Makefiles, unchanged; static so the guest needs no libraries;
# stdout line-buffered (qemu/kselftest-linebuf.h, force-included).
# mm probes for liburing into mm/local_config.{h,mk}: probe again every time.
# Their chatter goes to build/kselftest/TREE-FLAVOUR/build.log, shown on failure.
log=$out/build.log
: > "$log"
sel() { # dir targets...
	local d=$1
	shift
	make -s -C "$st/$d" OUTPUT="$out/$d" KHDR_INCLUDES="-isystem $out/usr/include" \
		USERCFLAGS="-include $top/qemu/kselftest-linebuf.h" USERLDFLAGS=-static "$@" >> "$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "selftests/$d failed to build ($tree)"; }
}
# mm probes for liburing once (mm/local_config.h): probe again if it said no
grep -qs LOCAL_CONFIG_HAVE_LIBURING "$st/mm/local_config.h" ||
	rm -f "$st/mm/local_config.h" "$st/mm/local_config.mk"
mkdir -p "$out/mm" "$out/cgroup"
# make does not see flag changes: rebuild all when the forced header or this
# script changed
fid=$(cat "$top/qemu/kselftest-linebuf.h" "$0" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.flags" 2>/dev/null)" != "$fid" ]; then
	rm -f "$out"/mm/* "$out"/cgroup/*
	echo "$fid" > "$out/.flags"
fi
# 6.12.118's khugepaged.c returns KSFT_SKIP (a stable backport) without
# including kselftest.h, which defines it: force the include for that one.
if want mm; then
	sel mm "$out/mm/cow" "$out/mm/uffd-unit-tests"
	sel mm EXTRA_CFLAGS="-include $st/kselftest.h" "$out/mm/khugepaged"
	grep -q LOCAL_CONFIG_HAVE_LIBURING "$st/mm/local_config.h" ||
		die "selftests/mm built without liburing (cow's io_uring cases would vanish)"
	for p in $MM_PROGS; do f=$out/mm/$p; [ -x "$f" ] || die "no $f"; done
fi
if want cgroup; then
	sel cgroup $(for p in $CG_PROGS; do echo "$out/cgroup/$p"; done)
	for p in $CG_PROGS; do f=$out/cgroup/$p; [ -x "$f" ] || die "no $f"; done
fi
for f in "$out"/mm/* "$out"/cgroup/*; do
	[ -f "$f" ] || continue
	{ ldd "$f" 2>&1 || true; } | grep -q "not a dynamic" || die "$f is not static"
done
echo "$out"
