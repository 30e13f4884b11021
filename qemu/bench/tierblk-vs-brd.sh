#!/bin/sh
# where: guest
# timeout: 900
# tierblk (latency 0, synchronous=1) against brd in the same guest boot:
# fio 4k randread and randwrite, psync, iodepth 1, direct, on the same size
# (the size of /dev/ram0).  Rounds alternate the devices; the table shows the
# median IOPS of each and the ratio tierblk/brd (target >= 0.9).
. /usr/lib/tierswap/lib.sh

RUNTIME=${TIERBLK_BENCH_RUNTIME:-10}
ROUNDS=${TIERBLK_BENCH_ROUNDS:-3}

[ -b /dev/ram0 ] || { echo "tierblk-vs-brd: no /dev/ram0 (brd)"; exit 1; }
bytes=$(($(cat /sys/block/ram0/size) * 512))
tierblk_load size=$bytes || { echo "tierblk-vs-brd: insmod tierblk failed"; exit 1; }
trap 'tierblk_unload' EXIT

# Both fully written first: reads hit allocated pages on both devices.
for d in /dev/ram0 /dev/tierblk0; do
	dd if=/dev/urandom of=$d bs=64k count=$((bytes / 65536)) oflag=direct 2>/dev/null
done

# iops DEV RW: one fio run, its IOPS (terse v3: field 8 read, 49 write).
iops() {
	local f=8
	[ "$2" = randwrite ] && f=49
	fio --name=bench --filename="$1" --direct=1 --ioengine=psync --iodepth=1 \
		--rw="$2" --bs=4k --size="$bytes" --time_based --runtime="$RUNTIME" \
		--norandommap --randrepeat=0 --minimal 2>/dev/null |
		awk -F';' -v f=$f '{ printf "%d\n", $f }'
}


echo "tierblk vs brd: fio 4k psync iodepth=1 direct, ${bytes} bytes, ${RUNTIME}s x $ROUNDS rounds"
printf '%-10s %12s %12s %8s\n' workload brd_iops tierblk_iops ratio
for rw in randread randwrite; do
	b= t= i=0
	while [ $i -lt "$ROUNDS" ]; do
		if [ $((i % 2)) = 0 ]; then
			b="$b $(iops /dev/ram0 $rw)"
			t="$t $(iops /dev/tierblk0 $rw)"
		else
			t="$t $(iops /dev/tierblk0 $rw)"
			b="$b $(iops /dev/ram0 $rw)"
		fi
		i=$((i + 1))
	done
	bm=$(echo $b | median)
	tm=$(echo $t | median)
	ratio=$(awk -v t="$tm" -v b="$bm" 'BEGIN { if (b > 0) printf "%.3f", t / b; else print "-" }')
	printf '%-10s %12s %12s %8s\n' $rw "$bm" "$tm" "$ratio"
	echo "# $rw rounds: brd$b; tierblk$t"
	echo "BENCH tierblk-vs-brd.$rw.brd $bm iops"
	echo "BENCH tierblk-vs-brd.$rw.tierblk $tm iops"
	echo "BENCH tierblk-vs-brd.$rw.ratio $ratio x"
done
echo "reproduce: make bench B=tierblk-vs-brd   (in the guest: /bench/tierblk-vs-brd.sh;" \
	"TIERBLK_BENCH_RUNTIME, TIERBLK_BENCH_ROUNDS)"
