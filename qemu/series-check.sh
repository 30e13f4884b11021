#!/bin/bash
# Bisectability of mm-patches: build the kernel at every patch of the series
# and run checkpatch --strict on each, then print one table.
#
#   series-check.sh [FLAVOUR [FIRST]]
#
# FLAVOUR: debug by default (the config make test boots). FIRST: check
# patches FIRST.. only (default 1), for a series whose earlier prefixes a
# previous run checked unchanged; the build at FIRST is still a whole
# kernel (make rebuilds whatever the object directory's last build lacks).
#
# Works in build/kernel-git (created from mm-patches/series if missing; it
# must be clean, and must hold the series as exported: its commits after
# tierswap-base are checked one by one, in a detached HEAD, and the branch
# is checked out again at the end). Objects go to build/obj/git-FLAVOUR,
# so each step rebuilds only what the patch touched (and ccache serves the
# rest). Exit 1 if a patch does not build or checkpatch finds an error.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-debug}
git_dir=$top/build/kernel-git
logs=$top/build/logs/series-check-$(date +%Y%m%d-%H%M%S)

die() { echo "series-check: $*" >&2; exit 2; }

first=${2:-1}
case "$flavour" in debug | release) ;; *) die "unknown flavour '$flavour' (debug or release)" ;; esac
case "$first" in '' | 0* | *[!0-9]*) die "FIRST '$first': a patch number, 1 or more" ;; esac
[ -d "$git_dir/.git" ] || "$top/qemu/kernel-git.sh" init
git -C "$git_dir" diff --quiet HEAD || die "$git_dir has uncommitted changes"
branch=$(git -C "$git_dir" symbolic-ref -q --short HEAD) || die "$git_dir: check out a branch first"
commits=$(git -C "$git_dir" rev-list --reverse tierswap-base..HEAD)
[ -n "$commits" ] || die "no commits after tierswap-base in $git_dir"
# The series as exported must be what mm-patches/series lists.
want=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/mm-patches/series" | wc -l)
have=$(echo "$commits" | wc -l)
[ "$want" = "$have" ] || die "$git_dir has $have commits, mm-patches/series lists $want: re-create it (rm -rf, make kernel-git)"
[ "$first" -le "$have" ] || die "FIRST $first: the series has $have patches"

mkdir -p "$logs"
restore() { git -C "$git_dir" checkout -q "$branch"; }
trap restore EXIT

fail=0 n=0
printf '%-3s %-62s %-7s %8s %9s %9s %6s\n' '#' patch build warnings cp_errors cp_warns secs
for c in $commits; do
	n=$((n + 1))
	[ "$n" -ge "$first" ] || continue
	subj=$(git -C "$git_dir" log -1 --format=%s "$c")
	git -C "$git_dir" checkout -q "$c"
	log=$logs/$(printf '%04d' $n).log
	t0=$(date +%s)
	if "$top/qemu/build-kernel.sh" git "$flavour" >/dev/null 2>"$log"; then b=ok; else b=FAILED; fail=1; fi
	secs=$(($(date +%s) - t0))
	w=$(grep -c 'warning:' "$log" || true)
	git -C "$git_dir" format-patch -1 --stdout "$c" > "$logs/$(printf '%04d' $n).patch"
	(cd "$git_dir" && ./scripts/checkpatch.pl --strict --no-color --terse - \
		< "$logs/$(printf '%04d' $n).patch" > "$logs/$(printf '%04d' $n).checkpatch" 2>&1) || true
	ce=$(grep -c ': ERROR:' "$logs/$(printf '%04d' $n).checkpatch" || true)
	cw=$(grep -c -E ': (WARNING|CHECK):' "$logs/$(printf '%04d' $n).checkpatch" || true)
	[ "$ce" = 0 ] || fail=1
	printf '%-3s %-62.62s %-7s %8s %9s %9s %6s\n' "$n" "$subj" "$b" "$w" "$ce" "$cw" "$secs"
done
echo "command: qemu/series-check.sh $flavour $first; logs: ${logs#"$top"/}"
exit $fail
