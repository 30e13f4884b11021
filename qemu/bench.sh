#!/bin/bash
# make bench: every benchmark in qemu/bench/, in one run.
#   - "# where: host" scripts run here once and print their own tables;
#   - "# where: guest" scripts run in one boot of each release kernel, base
#     then patched; one with the line "# boot: own" (it changes what lasts
#     for the boot: zswap, once on, keeps 6.12 from swapping in large
#     folios) gets a boot of its own, after the shared one, whose kernel
#     command line also gets the script's "# append: <parameters>" (e.g.
#     brd.rd_size for a built-in brd of the size it needs); one that also
#     has "# profile: NAME=VALUE" gets one more boot per kernel and round,
#     of the profile flavour (ftrace's function profiler; both kernels
#     built here if missing, about 20 min each the first time) with one
#     vCPU and that setting in GUEST_ENV, for the part of it that splits
#     time by function; BENCH_PROFILE=0 leaves those boots out. Their plain output is shown per kernel (comparisons inside
#     one boot, e.g. tierblk vs brd); their "BENCH <name> <value> <unit>" lines
#     are collected into one A/B table: base, patched, ratio
#     (qemu/bench-ab.awk: ratio > 1 = patched better; times and sizes are
#     lower-is-better, rates higher-is-better); "BENCH-TABLE <title>" lines
#     split that table into titled ones; qemu/bench-plot.py draws each
#     table (ab-<title>.svg: base and patched bars, min..max over rounds).
# B="a b" runs only those benchmarks; GUEST_ENV="NAME=VALUE ..." passes knobs
# to the guest scripts. BENCH_ROUNDS=N (default 1) boots the two kernels N
# times each, in turn (base, patched, base, ...), so a change in the host's
# speed during the run falls on both; each value is then the median over
# the rounds. ICOUNT=1 boots the guests with TCG's instruction counter
# as their clock (qemu/boot.sh): every time a guest script prints is then
# a count of instructions. Results: build/logs/bench-<time>/ (<kernel>.txt
# has every round, <kernel>.rN.txt one).
set -uo pipefail

rounds=${BENCH_ROUNDS:-1}
case $rounds in
''|*[!0-9]*|0) echo "bench: BENCH_ROUNDS='$rounds': give a number >= 1" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/logs/bench-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
export GUEST_MEM=${GUEST_MEM:-4G}

host= guest= own=
for f in "$top"/qemu/bench/*.sh; do
	[ -f "$f" ] || continue
	n=$(basename "$f" .sh)
	[ -n "${B:-}" ] && ! echo " $B " | grep -q " $n " && continue
	case $(sed -n 's/^# where: *//p' "$f" | head -n 1) in
	host) host="$host $n" ;;
	guest) if grep -q '^# boot: own' "$f"; then own="$own $n"; else guest="$guest $n"; fi ;;
	*) echo "bench: $f has no '# where: host|guest' line" >&2; exit 2 ;;
	esac
done

for n in $host; do
	echo "== host bench: $n"
	"$top/qemu/bench/$n.sh" 2>&1 | tee "$out/host-$n.txt"
done

# profile_env NAME: the bench's "# profile:" setting, if any
profile_env() { sed -n 's/^# profile: *//p' "$top/qemu/bench/$1.sh" | head -n 1; }

if [ -n "$guest$own" ]; then
	# the boots of one kernel: the shared one, then one per "boot: own",
	# each followed by its profile boot ("NAME@profile") if it asks
	boots=()
	[ -n "$guest" ] && boots+=("$guest")
	for n in $own; do
		boots+=("$n")
		[ "${BENCH_PROFILE:-1}" != 0 ] && [ -n "$(profile_env "$n")" ] && boots+=("$n@profile")
	done
	if [[ " ${boots[*]} " == *@profile* ]]; then
		for t in base patched; do
			make -s -C "$top" guest-image TREE=$t FLAVOUR=profile KSELFTEST_PARTS=none ||
				{ echo "bench: the $t-profile guest image did not build" >&2; exit 1; }
		done
	fi
	: > "$out/base-release.txt"
	: > "$out/patched-release.txt"
	for r in $(seq 1 "$rounds"); do
		for k in base-release patched-release; do
			: > "$out/$k.r$r.txt"
			for b in "${boots[@]}"; do
				app= kb=$k env=${GUEST_ENV:-} cpus=${GUEST_CPUS:-}
				case $b in
				*@profile)
					b=${b%@profile} kb=${k%-release}-profile cpus=1
					env="${env:+$env }$(profile_env "$b")" ;;
				esac
				echo "== guest benches on $kb: $b (round $r of $rounds)"
				case $b in
				*' '*) ;;
				*) app=$(sed -n 's/^# append: *//p' "$top/qemu/bench/$b.sh" | head -n 1) ;;
				esac
				# shellcheck disable=SC2086
				logs=$(GUEST_ENV="$env" GUEST_CPUS=$cpus EXTRA_APPEND="${EXTRA_APPEND:-}${app:+ $app}" \
					"$top/qemu/boot.sh" bench "$kb" $b)
				tr -d '\r' < "$logs/results.log" | tee -a "$out/$k.r$r.txt" |
					grep -v -e '^BENCH[ -]' -e '^### guest' | sed 's/^### begin \([^ ]*\).*/-- \1 --/; /^### end /d'
			done
			cat "$out/$k.r$r.txt" >> "$out/$k.txt"
		done
	done
	echo
	echo "== A/B: base vs patched (release kernels, profile kernels for a profile part; same benchmark, $rounds round(s) of boots)"
	awk -v base="$out/base-release.txt" -f "$top/qemu/bench-ab.awk" \
		"$out/base-release.txt" "$out/patched-release.txt" | tee "$out/ab.txt"
	# The same tables as pictures, with the spread over rounds.
	"$top/qemu/bench-plot.py" "$out"
fi
echo "reproduce: ${GUEST_ENV:+GUEST_ENV=\"$GUEST_ENV\" }${BENCH_ROUNDS:+BENCH_ROUNDS=$BENCH_ROUNDS }${ICOUNT:+ICOUNT=$ICOUNT }make bench${B:+ B=\"$B\"}   (results in ${out#"$top"/})"
