#!/bin/sh
# where: guest
# timeout: 2400
# What demotion buys a hot set (issue 17; mm-patches' demotion and
# watermark, docs/vswap.md): tierblk0 (fast, 10 us
# reads and writes, prio 20) in front of tiernbd (slow, 1 ms, prio 10)
# behind the virtual device. A cold filler pages DEMOTE_COLD (24M) out
# first and stops: it fills tierblk0 (DEMOTE_FAST, 16M). Then a hot
# workload of DEMOTE_HOT (16M) runs zipf passes through a memcg of half its
# size: its pages go out after the filler's. Two cases, in one boot,
# alternating DEMOTE_ROUNDS (3) times:
#   full  tierblk0 left full of the cold pages: the hot pages spill to nbd;
#   mark  watermark "50 25" on tierblk0 before the hot run: the cold pages
#         are demoted to nbd and the hot ones land on tierblk0.
# Per case: the hot accesses' p50/p99 and mean (swapstress's histogram),
# the time of its passes, and the share of its swap-ins served by
# tierblk0; ratio = full / mark (above 1: the watermark helps). With a
# third of the hot set's swap-ins still from nbd, p99 is an nbd read in
# both cases: the mean and the passes' time say what the watermark buys. A kernel without tier directories prints nothing.
. /usr/lib/tierswap/lib.sh

FAST=${DEMOTE_FAST:-16M}
COLD=${DEMOTE_COLD:-24M}
HOT=${DEMOTE_HOT:-16M}
ROUNDS=${DEMOTE_ROUNDS:-3}
V=/sys/kernel/mm/vswap
OUT=/tmp/vswap-demote-hot.out
FOUT=/tmp/vswap-demote-cold.out
fpid=

cleanup() {
	kill_bg "$fpid"
	memcg_destroy demote-hot
	tiers_down
}
trap cleanup EXIT
tdir() { awk -v d="$(tier_dev "$1")" -v v="$V" '$1 == d { print v "/tier" $2 }' "$V/tiers"; }

# one CASE (full or mark): p50 p99 fast_share mean access_ms on stdout
run_case() {
	local d r0 r1 size i
	tiers_up vswap tierblk0:$FAST:prio=20:sync=1 nbd:128M:prio=10 ||
		{ echo "vswap-demote: tiers_up failed" >&2; return 1; }
	tier_latency tierblk0 rw 10us && tier_latency nbd rw 1ms ||
		{ echo "vswap-demote: latency" >&2; return 1; }
	d=$(tdir tierblk0)
	swapstress --size "$COLD" --mem anon --thp never --pageout madvise --lock-self --seed 1 \
		--stop-after-pageout > "$FOUT" 2>&1 &
	fpid=$!
	wait_stopped "$fpid" 600 || { echo "vswap-demote: the filler did not stop" >&2; return 1; }
	if [ "$1" = mark ]; then
		echo "50 25" > "$d/watermark" || return 1
		# the watermark's batches (a second's rest between some): up to
		# two minutes for tierblk0 to be at its low mark
		size=$(awk '$1 == "/dev/tierblk0" { print $3 }' "$V/tiers")
		i=0
		while [ "$(tier_used_kb tierblk0)" -gt $((size / 4 + 256)) ] && [ $i -lt 120 ]; do
			sleep 1
			i=$((i + 1))
		done
	fi
	r0=$(tier_stat tierblk0 reads)
	r1=$(tier_stat nbd reads)
	swapstress --size "$HOT" --mem anon --thp never --pageout memcg --memcg-name demote-hot \
		--memcg-max $((${HOT%M} / 2))M --pattern zipf --passes 4 --write-pct 0 --seed 2 \
		--lock-self > "$OUT" 2>&1 ||
		{ echo "vswap-demote: the hot workload failed: $(tail -3 "$OUT")" >&2; return 1; }
	r0=$(($(tier_stat tierblk0 reads) - r0))
	r1=$(($(tier_stat nbd reads) - r1))
	kill -CONT "$fpid"
	wait "$fpid"
	fpid=
	memcg_destroy demote-hot
	tiers_down || return 1
	echo "$(kv_get "$OUT" p50_us) $(kv_get "$OUT" p99_us)" \
		"$(echo "$r0 $r1" | awk '{ printf "%.3f", ($1 + $2) ? $1 / ($1 + $2) : 0 }')" \
		"$(kv_get "$OUT" mean_us) $(kv_get "$OUT" access_ms)"
}

[ -d "$V" ] || { echo "vswap-demote: no virtual swap in this kernel: nothing to measure"; exit 0; }
tiers_up vswap tierblk0:$FAST:prio=20:sync=1 nbd:128M:prio=10 || { echo "vswap-demote: tiers_up failed"; exit 1; }
d=$(tdir tierblk0)
wm=no
[ -n "$d" ] && [ -e "$d/watermark" ] && wm=yes
tiers_down
if [ $wm = no ]; then
	echo "vswap-demote: no tier watermark in this kernel (mm-patches 0030): nothing to measure"
	exit 0
fi

: > /tmp/vswap-demote.full
: > /tmp/vswap-demote.mark
i=0
while [ $i -lt "$ROUNDS" ]; do
	for c in full mark; do
		res=$(run_case $c) || exit 1
		echo "round $i $c: p50_us p99_us fast_share mean_us access_ms = $res"
		echo "$res" >> /tmp/vswap-demote.$c
	done
	i=$((i + 1))
done
med() { awk -v f="$1" '{ print $f }' "$2" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "BENCH-TABLE vswap-demote (hot set, zipf; tierblk0 10us, nbd 1ms)"
for c in full mark; do
	echo "BENCH vswap-demote.$c.p50 $(med 1 /tmp/vswap-demote.$c) us"
	echo "BENCH vswap-demote.$c.p99 $(med 2 /tmp/vswap-demote.$c) us"
	echo "BENCH vswap-demote.$c.fast_share $(med 3 /tmp/vswap-demote.$c) ratio"
	echo "BENCH vswap-demote.$c.mean $(med 4 /tmp/vswap-demote.$c) us"
	echo "BENCH vswap-demote.$c.access $(med 5 /tmp/vswap-demote.$c) ms"
done
printf '%-10s %10s %10s %10s %12s %12s\n' case p50_us p99_us mean_us access_ms fast_share
for c in full mark; do
	printf '%-10s %10s %10s %10s %12s %12s\n' "$c" "$(med 1 /tmp/vswap-demote.$c)" "$(med 2 /tmp/vswap-demote.$c)" \
		"$(med 4 /tmp/vswap-demote.$c)" "$(med 5 /tmp/vswap-demote.$c)" "$(med 3 /tmp/vswap-demote.$c)"
done
for k in 2:p99 4:mean 5:access; do
	echo "${k#*:} full / mark: $(echo "$(med ${k%%:*} /tmp/vswap-demote.full) $(med ${k%%:*} /tmp/vswap-demote.mark)" |
		awk '{ printf "%.2f", $2 ? $1 / $2 : 0 }')"
done
echo "reproduce: make bench B=vswap-demote   (DEMOTE_FAST, DEMOTE_COLD, DEMOTE_HOT, DEMOTE_ROUNDS through GUEST_ENV)"
