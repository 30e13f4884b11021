#!/bin/bash
# Configure and build one kernel: build-kernel.sh TREE FLAVOUR
#   TREE    base | patched | git (build/kernel-git as it is checked out:
#           make kernel-git, qemu/series-check.sh)
#   FLAVOUR debug (kernel.config + debug.config: what make test boots)
#           release (kernel.config only: what make bench boots)
#           debug-nothp (debug + nothp.config: no THP, so slab swap
#           tables; tests marked "# also-flavour: debug-nothp")
#           profile (release + profile.config: ftrace's function
#           profiler, for the benches that split time by function)
# Output in build/obj/TREE-FLAVOUR (bzImage, modules, a config check).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tree=${1:?tree}
flavour=${2:?flavour}
obj=$top/build/obj/$tree-$flavour
jobs=${JOBS:-$(nproc)}

die() { echo "build-kernel: $*" >&2; exit 1; }

case "$flavour" in
debug) frags=("$top/qemu/kernel.config" "$top/qemu/debug.config") ;;
release) frags=("$top/qemu/kernel.config") ;;
debug-nothp) frags=("$top/qemu/kernel.config" "$top/qemu/debug.config" "$top/qemu/nothp.config") ;;
profile) frags=("$top/qemu/kernel.config" "$top/qemu/profile.config") ;;
*) die "unknown flavour '$flavour' (debug, release, debug-nothp or profile)" ;;
esac

if [ "$tree" = git ]; then
	src=$top/build/kernel-git
	[ -d "$src/.git" ] || die "no $src: run make kernel-git first"
else
	src=$("$top/qemu/kernel-tree.sh" "$tree")
fi
# Options a tree has only with our patches (virtual swap: mm-patches 0013).
if grep -q '^config VIRTUAL_SWAP$' "$src/mm/Kconfig"; then
	frags+=("$top/qemu/vswap.config")
fi

# ccache lives outside the repo so a fresh clone on this machine reuses it;
# base_dir turns absolute paths relative so different clones share hits.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/tierswap-ccache}
export CCACHE_BASEDIR=$top
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
command -v ccache >/dev/null || die "missing ccache: apt-get install ccache"
# Fixed build identity: the same sources give the same objects (cache hits).
export KBUILD_BUILD_TIMESTAMP="2026-01-01 00:00:00 UTC" KBUILD_BUILD_USER=tierswap KBUILD_BUILD_HOST=tierswap

# MAKEFLAGS of a calling `make -s` would silence kbuild's step lines, which
# the progress line needs; -j is given here.
kmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$src" O="$obj" -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# Reconfigure only when a fragment or the tree changed.
cfgid=$(cat "${frags[@]}" "$src/Makefile" | sha256sum | cut -d' ' -f1)
mkdir -p "$obj"
if [ "$(cat "$obj/.tierswap-cfgid" 2>/dev/null)" != "$cfgid" ] || [ ! -f "$obj/.config" ]; then
	kmake -s tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null
	kmake -s olddefconfig >/dev/null
	# Every option's last setting in the fragments must survive kconfig.
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) want=$line; grep -qxF -- "$want" "$obj/.config" || {
				echo "build-kernel: kconfig dropped '$want' (have: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo unset))" >&2; missing=1; } ;;
		"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}
			if grep -qE "^$opt=" "$obj/.config"; then
				echo "build-kernel: kconfig kept '$opt' which the fragment turns off" >&2; missing=1; fi ;;
		esac
	done < <(cat "${frags[@]}" | awk -f "$top/qemu/config-final.awk")
	[ "$missing" = 0 ] || die "config check failed for $tree-$flavour"
	echo "$cfgid" > "$obj/.tierswap-cfgid"
fi

echo "build-kernel: building $tree-$flavour ($(make -s -C "$src" kernelversion)) in $obj" >&2
# Not -s: kbuild's step lines feed a line of progress at least every 30 s.
kmake bzImage modules 2>&1 | "$top/qemu/progress.sh" "build-kernel: $tree-$flavour" >&2 ||
	die "build of $tree-$flavour failed"
echo "$obj"
