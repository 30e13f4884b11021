#!/bin/bash
# where: host
# tiernbd vs nbdkit's memory plugin, both on 127.0.0.1, same run, same
# client: fio's nbd engine (libnbd).  Each export is 256M, prefilled,
# then 4k random read / write (iodepth 32) and 1M sequential read /
# write (iodepth 8), RUNTIME seconds each (default 5), ROUNDS times
# (default 3) alternating nbdkit and tiernbd.  Prints the median
# throughput of each server and the ratio tiernbd/nbdkit (> 1: tiernbd
# faster).  Zero injected latency.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-$top/build/host/nbd-backend}
runtime=${TIERNBD_BENCH_RUNTIME:-5}
rounds=${TIERNBD_BENCH_ROUNDS:-3}
size=256M
work=$(mktemp -d /tmp/tiernbd-bench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

die() { echo "tiernbd-vs-nbdkit: $*" >&2; exit 1; }
command -v nbdkit >/dev/null || die "missing nbdkit: apt-get install nbdkit"
fio --enghelp 2>/dev/null | grep -qw nbd || die "fio has no nbd engine"
[ -x "$O/bin/tiernbd" ] || make -s -C "$top/nbd-backend" O="$O" || die "cannot build tiernbd"

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
waitport() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }

pk=$(freeport)
nbdkit -f --exit-with-parent -i 127.0.0.1 -p "$pk" memory "$size" 2>"$work/nbdkit.log" &
pids+=($!)
pt=$(freeport)
"$O/bin/tiernbd" --size "$size" --bind 127.0.0.1 --port "$pt" 2>"$work/tiernbd.log" &
pids+=($!)
waitport "$pk" || die "nbdkit did not start"
waitport "$pt" || die "tiernbd did not start"

# name rw bs iodepth
workloads="randread-4k:randread:4k:32 randwrite-4k:randwrite:4k:32 seqread-1m:read:1m:8 seqwrite-1m:write:1m:8"

runfio() { # uri rw bs qd -> prints "iops MiB/s"
	fio --name=b --ioengine=nbd --uri="$1" --rw="$2" --bs="$3" --iodepth="$4" \
		--size="$size" --time_based --runtime="$runtime" --ramp_time=1 \
		--output-format=json --output="$work/fio.json" >/dev/null 2>&1 || { echo "0 0"; return; }
	python3 - "$work/fio.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
iops = j["read"]["iops"] + j["write"]["iops"]
bw = (j["read"]["bw_bytes"] + j["write"]["bw_bytes"]) / 2**20
print("%.0f %.1f" % (iops, bw))
PY
}

for uri in "nbd://127.0.0.1:$pk" "nbd://127.0.0.1:$pt"; do
	fio --name=prefill --ioengine=nbd --uri="$uri" --rw=write --bs=1m --iodepth=8 \
		--size="$size" >/dev/null 2>&1 || die "prefill of $uri failed"
done

printf '%-14s %12s %10s %12s %10s %7s\n' workload nbdkit_MiB/s nbdkit_iops tiernbd_MiB/s tiernbd_iops ratio
for w in $workloads; do
	IFS=: read -r name rw bs qd <<<"$w"
	kl= tl=
	for _ in $(seq "$rounds"); do
		kl="$kl $(runfio "nbd://127.0.0.1:$pk" "$rw" "$bs" "$qd" | tr ' ' /)"
		tl="$tl $(runfio "nbd://127.0.0.1:$pt" "$rw" "$bs" "$qd" | tr ' ' /)"
	done
	median() { python3 -c 'import sys, statistics as s; v=[x.split("/") for x in sys.argv[1:]]; print("%.0f %.1f" % (s.median(float(a) for a, b in v), s.median(float(b) for a, b in v)))' $1; }
	read -r ki kb < <(median "$kl")
	read -r ti tb < <(median "$tl")
	ratio=$(python3 -c "print('%.2f' % ($tb / $kb if $kb > 0 else 0))")
	printf '%-14s %12s %10s %12s %10s %7s\n' "$name" "$kb" "$ki" "$tb" "$ti" "$ratio"
done
echo "client: fio $(fio --version | sed 's/fio-//') ioengine=nbd (libnbd), one connection per job; servers: nbdkit $(nbdkit --version | awk '{print $2}') memory plugin, tiernbd RAM export; median of $rounds alternating runs of ${runtime}s"
echo "reproduce: make bench B=tiernbd-vs-nbdkit   or   RUNTIME=$runtime ROUNDS=$rounds qemu/bench/tiernbd-vs-nbdkit.sh"
