#!/bin/bash
# run-plot.sh LOGDIR: the picture of make run's story (qemu/guest/
# demo-story.sh). Reads the "USAGE t_s tierblk0_kb
# nbd_kb zswap_kb" lines between USAGE-BEGIN and USAGE-END of
# LOGDIR/results.log (the guest's output) and draws, with gnuplot, what
# each tier held over the run: LOGDIR/tier-usage.svg (data beside it in
# tier-usage.dat). Prints the picture's path. Exit 2 on a bad LOGDIR or no
# samples, 1 if gnuplot fails.
set -uo pipefail

dir=${1:-}
[ -n "$dir" ] && [ -r "$dir/results.log" ] ||
	{ echo "run-plot: usage: run-plot.sh LOGDIR (with a results.log)" >&2; exit 2; }
dat=$dir/tier-usage.dat
svg=$dir/tier-usage.svg
# the serial console may end lines with CR
tr -d '\r' < "$dir/results.log" |
	awk '/^USAGE-BEGIN/ { on = 1; next } /^USAGE-END/ { on = 0 }
	     on && $1 == "USAGE" && NF == 5 { print $2, $3 / 1024, $4 / 1024, $5 / 1024 }' > "$dat"
[ -s "$dat" ] || { echo "run-plot: no USAGE samples in $dir/results.log" >&2; exit 2; }
gnuplot <<GP || { echo "run-plot: gnuplot failed" >&2; exit 1; }
set terminal svg size 900,420 dynamic font "sans,12"
set output "$svg"
set title "make run: what each tier held (MiB) over the story"
set xlabel "seconds since the tiers came up"
set ylabel "MiB"
set key top left
set grid
plot "$dat" using 1:2 with lines lw 2 title "tierblk0 (fast)", \
     "$dat" using 1:3 with lines lw 2 title "nbd (slow)", \
     "$dat" using 1:4 with lines lw 2 title "zswap (compressed)"
GP
echo "$svg"
