#!/bin/bash
# A git working copy of the patched kernel, for editing the series:
#   kernel-git.sh init    build/kernel-git: the pristine tree committed and
#                         tagged tierswap-base, then mm-patches/series applied
#                         with `git am`, one commit per patch
#   kernel-git.sh export  write tierswap-base..HEAD back to mm-patches/ with
#                         `git format-patch` and rewrite the series file
# Nobody edits diff hunks by hand: edit, commit (or rebase -i), export.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
git_dir=$top/build/kernel-git
series=$top/mm-patches/series

die() { echo "kernel-git: $*" >&2; exit 1; }

init() {
	[ ! -e "$git_dir" ] || die "$git_dir exists: export your work (make export-patches), then remove it to start again"
	local src p
	src=$("$top/qemu/kernel-tree.sh" pristine)
	echo "kernel-git: copying the pristine tree" >&2
	cp -a "$src" "$git_dir.tmp"
	cd "$git_dir.tmp"
	git init -q
	git config user.name >/dev/null || git config user.name "tierswap developer"
	git config user.email >/dev/null || git config user.email "tierswap@localhost"
	git add -A -f >/dev/null
	git commit -q -m "Linux $(make -s kernelversion) (Debian linux-source-6.12)"
	# Debian's .gitignore ignores every top-level entry (its packaging
	# repo's rule): drop that so new files show up. Not part of the series.
	sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' .gitignore
	git commit -q -a -m "kernel-git: let git see new files (drop Debian's top-level ignore rule)"
	git tag tierswap-base
	cd "$top"
	mv "$git_dir.tmp" "$git_dir"
	for p in $(sed -e 's/#.*//' "$series"); do
		git -C "$git_dir" am -q --keep-cr "$top/mm-patches/$p" || die "git am of $p failed (see $git_dir)"
	done
	echo "kernel-git: $git_dir at $(git -C "$git_dir" log --oneline -1)" >&2
}

export_series() {
	[ -d "$git_dir/.git" ] || die "no $git_dir: run make kernel-git first"
	local tmp p
	tmp=$(mktemp -d)
	# -N: "[PATCH]" subjects, so adding a patch rewrites no other file
	git -C "$git_dir" format-patch -q -N --zero-commit --no-signature -o "$tmp" tierswap-base..HEAD
	# Keep the series file's header comments; list the patches in order.
	rm -f "$top"/mm-patches/[0-9][0-9][0-9][0-9]-*.patch
	{ grep '^#' "$series" || true
	  for p in "$tmp"/*.patch; do [ -f "$p" ] && basename "$p"; done; } > "$series.tmp"
	for p in "$tmp"/*.patch; do [ -f "$p" ] && mv "$p" "$top/mm-patches/"; done
	mv "$series.tmp" "$series"
	rmdir "$tmp"
	echo "kernel-git: exported $(grep -vc '^#' "$series") patch(es) to mm-patches/" >&2
}

case "${1:-}" in
init) init ;;
export) export_series ;;
*) die "usage: kernel-git.sh init|export" ;;
esac
