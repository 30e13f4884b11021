#!/bin/bash
# Build every out-of-tree module under drivers/ against one kernel build:
# build-modules.sh TREE FLAVOUR. Sources are copied to
# build/mod/TREE-FLAVOUR/<name>/ (Kbuild writes next to the sources), so the
# repo stays clean and each kernel gets its own objects.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?tree}
flavour=${2:?flavour}
obj=$top/build/obj/$tree-$flavour
src=$top/build/src/$tree
[ "$tree" = base ] && src=$top/build/src/pristine
[ -f "$obj/Module.symvers" ] || { echo "build-modules: kernel $tree-$flavour not built" >&2; exit 1; }

for d in "$top"/drivers/*/; do
	name=$(basename "$d")
	[ -f "$d/Kbuild" ] || [ -f "$d/Makefile" ] || continue
	out=$top/build/mod/$tree-$flavour/$name
	mkdir -p "$out"
	rsync -a --delete --exclude '*.o' --exclude '*.ko' --exclude '*.mod*' --exclude '.*.cmd' \
		--exclude Module.symvers --exclude modules.order "$d" "$out/"
	make -s -C "$src" O="$obj" M="$out" W=1 -j"$(nproc)" modules >&2 ||
		{ echo "build-modules: $name failed against $tree-$flavour" >&2; exit 1; }
done
