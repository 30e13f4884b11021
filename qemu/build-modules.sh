#!/bin/bash
# Build every out-of-tree module under drivers/ against one kernel build:
# build-modules.sh TREE FLAVOUR. Sources are copied to
# build/mod/TREE-FLAVOUR/<name>/ (Kbuild writes next to the sources), so the
# repo stays clean and each kernel gets its own objects. DRIVER_BEFORE=REV
# also builds each driver as of git revision REV (<name>-before.ko).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?tree}
flavour=${2:?flavour}
obj=$top/build/obj/$tree-$flavour
src=$top/build/src/$tree
[ "$tree" = base ] && src=$top/build/src/pristine
[ -f "$obj/Module.symvers" ] || { echo "build-modules: kernel $tree-$flavour not built" >&2; exit 1; }

# build DIR NAME: the module sources in DIR, built in place
build() {
	make -s -C "$src" O="$obj" M="$1" W=1 -j"$(nproc)" modules >&2 ||
		{ echo "build-modules: $2 failed against $tree-$flavour" >&2; exit 1; }
}

rm -rf "$top/build/mod/$tree-$flavour"/*-before
for d in "$top"/drivers/*/; do
	name=$(basename "$d")
	[ -f "$d/Kbuild" ] || [ -f "$d/Makefile" ] || continue
	out=$top/build/mod/$tree-$flavour/$name
	mkdir -p "$out"
	rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' --exclude '.*.cmd' \
		--exclude Module.symvers --exclude modules.order "$d" "$out/"
	build "$out" "$name"
	# DRIVER_BEFORE=REV: the same driver as of git revision REV too, as
	# NAME-before.ko (same module name: load one or the other), so a bench
	# can compare a driver change with what it changed in one boot
	[ -n "${DRIVER_BEFORE:-}" ] || continue
	before=$out-before
	mkdir -p "$before"
	git -C "$top" archive "$DRIVER_BEFORE" "drivers/$name" | tar -x -C "$before" --strip-components=2 ||
		{ echo "build-modules: DRIVER_BEFORE=$DRIVER_BEFORE: no drivers/$name there" >&2; exit 1; }
	build "$before" "$name (as of $DRIVER_BEFORE)"
	for k in "$before"/*.ko; do mv "$k" "${k%.ko}-before.ko"; done
done
