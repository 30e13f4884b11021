#!/bin/bash
# Prepare a kernel source tree under build/src from Debian's linux-source-6.12.
#
#   kernel-tree.sh pristine   extract the tarball (once per tarball)
#   kernel-tree.sh base       the pristine tree, unmodified
#   kernel-tree.sh patched    a fresh copy with mm-patches/series applied in order
#
# Prints the tree's path on stdout. Any change to the tarball, the series or a
# patch re-applies the whole series onto a fresh copy: never a half-patched tree.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
src=$top/build/src
series_dir=$top/mm-patches

die() { echo "kernel-tree: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "missing $tarball: apt-get install linux-source-6.12"

tarball_id() { stat -c '%n %s %Y' "$(readlink -f "$tarball")"; }

pristine() {
	local dir=$src/pristine stamp=$src/pristine.stamp
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(tarball_id)" ] && [ -f "$dir/Makefile" ]; then
		echo "$dir"; return
	fi
	echo "kernel-tree: extracting $tarball" >&2
	rm -rf "$dir" "$dir.tmp" "$stamp"
	mkdir -p "$dir.tmp"
	tar -xJf "$tarball" -C "$dir.tmp" --strip-components=1
	mv "$dir.tmp" "$dir"
	tarball_id > "$stamp"
	echo "$dir"
}

# The patches named by the series, in order (comments and blank lines skipped).
series_patches() {
	[ -f "$series_dir/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$series_dir/series" | grep -v '^$' || true
}

patched() {
	local base dir=$src/patched stamp=$src/patched.stamp want p
	base=$(pristine)
	want=$( { tarball_id; cat "$series_dir/series" 2>/dev/null || true
		  series_patches | while read -r p; do
			[ -f "$series_dir/$p" ] || { echo "MISSING $p"; continue; }
			sha256sum "$series_dir/$p"; done; } | sha256sum | cut -d' ' -f1)
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dir/Makefile" ]; then
		echo "$dir"; return
	fi
	rm -rf "$dir" "$dir.tmp" "$stamp"
	cp -a "$base" "$dir.tmp"
	while read -r p; do
		[ -n "$p" ] || continue
		[ -f "$series_dir/$p" ] || die "series names $p, which does not exist in mm-patches/"
		echo "kernel-tree: applying $p" >&2
		if ! patch -d "$dir.tmp" -p1 --batch --forward --quiet < "$series_dir/$p" >&2; then
			rm -rf "$dir.tmp"
			die "patch $p does not apply"
		fi
	done < <(series_patches)
	# Files this series or the previous one touched get a new mtime, so an
	# existing object directory rebuilds them (also those a dropped patch
	# reverted to pristine content and pristine age).
	series_files > "$dir.tmp/.tierswap-files"
	{ cat "$dir.tmp/.tierswap-files"; cat "$src/patched.files" 2>/dev/null || true; } | sort -u |
		(cd "$dir.tmp" && while read -r f; do [ -e "$f" ] && touch "$f"; done; true)
	mv "$dir.tmp/.tierswap-files" "$src/patched.files"
	mv "$dir.tmp" "$dir"
	echo "$want" > "$stamp"
	echo "$dir"
}

# Paths the series' patches modify.
series_files() {
	local p
	series_patches | while read -r p; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p; s|^--- a/\([^[:space:]]*\).*|\1|p' "$series_dir/$p"
	done | sort -u
}

# Kernel version string of a tree, read from its Makefile.
version() {
	make -s -C "$1" kernelversion
}

case "${1:-}" in
pristine) pristine ;;
base) pristine ;;
patched) patched ;;
version) version "$(pristine)" ;;
*) die "usage: kernel-tree.sh pristine|base|patched|version" ;;
esac
