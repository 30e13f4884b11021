#!/bin/bash
# Boot the guest: boot.sh MODE KERNEL_TAG [NAME...]
#   MODE  test | bench | run | shell
#   NAME  tests (qemu/tests/NAME.sh) or guest benches (qemu/bench/NAME.sh)
# GUEST_ENV="NAME=VALUE ..." is exported to them in the guest; SUITE as
# TIERSWAP_SUITE.
# Logs go to build/logs/<time>-<tag>-<mode>/{console.log,results.log}; the
# directory is printed on stdout (modes test and bench). The guest is killed
# at a deadline: the sum of the tests' timeouts plus boot time.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?mode}
tag=${2:?kernel tag}
shift 2
obj=$top/build/obj/$tag
kernel=$obj/arch/x86/boot/bzImage
initrd=$top/build/initramfs-$tag.cpio
accel=${ACCEL:-tcg}
mem=${GUEST_MEM:-2G}
cpus=${GUEST_CPUS:-2}
# ICOUNT=1: the guest's clock counts instructions (TCG's -icount, 1 ns an
# instruction, no sleeping ahead of it), on one vCPU: times measured in the
# guest become instruction counts, free of the host's noise (a 64M swap-in
# repeats to 0.5%, against 5-10% in wall time). They count work, not
# memory stalls (docs/architecture.md, "Benchmarks").
icount=()
case "${ICOUNT:-0}" in
0|1) ;;
*) echo "boot: ICOUNT must be 0 or 1, not '$ICOUNT'" >&2; exit 2 ;;
esac
if [ "${ICOUNT:-0}" = 1 ]; then
	[ "$accel" = tcg ] || { echo "boot: ICOUNT=1 needs ACCEL=tcg" >&2; exit 2; }
	icount=(-icount shift=0,sleep=off)
	cpus=1
fi

die() { echo "boot: $*" >&2; exit 1; }

case "$mode" in
test) dir=$top/qemu/tests default_to=120 ;;
bench) dir=$top/qemu/bench default_to=1800 ;;
run) dir= default_to=1800 ;;  # demo.sh, then the story (demo-story.sh)
shell) dir= default_to=0 ;;
*) die "unknown mode '$mode' (test, bench, run, shell)" ;;
esac

deadline=${BOOT_DEADLINE:-120}
names=
for n in "$@"; do
	f=$dir/$n.sh
	[ -f "$f" ] || die "no such $mode script: ${f#"$top"/}"
	to=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
	deadline=$((deadline + ${to:-$default_to} + 5))
	names=${names:+$names,}$n
done
[ "$mode" = run ] && deadline=$((deadline + default_to))
# One cap for the whole boot (70 min; CI stops at 90): a guest still running
# then is killed and its unfinished tests are reported failed.
max=${MAX_DEADLINE:-4200}
[ "$mode" = test ] && [ "$deadline" -gt "$max" ] && deadline=$max

# tierswap.* parameters are for /init; numa=fake=2 gives two nodes for
# migration tests; a panic powers the guest off at once (-no-reboot);
# no5lvl: with -cpu max TCG offers LA57, and an interrupt that lands before
# kasan_init() on a 5-level direct map gives a spurious early KASAN report
# (seen once in 14 boots). Four-level paging is also what most hosts run.
append="console=ttyS0 loglevel=5 panic=-1 numa=fake=2 no5lvl"
append="$append transparent_hugepage=madvise tierswap.mode=$mode tierswap.kernel=$tag"
[ -n "$names" ] && append="$append tierswap.tests=$names"
# SUITE (quick|full) reaches the tests as TIERSWAP_SUITE: sizes may depend on it.
[ -n "${SUITE:-}" ] && append="$append tierswap.suite=$SUITE"
# GUEST_ENV="NAME=VALUE ..." reaches the guest's tests as environment.
for kv in ${GUEST_ENV:-}; do append="$append tierswap.env.$kv"; done
append="$append${EXTRA_APPEND:+ $EXTRA_APPEND}"
machine=(-machine q35 -accel "$accel" "${icount[@]}" -cpu max -m "$mem" -smp "$cpus" -display none -no-reboot -nodefaults)

# BOOT_PRINT=1: print what the boot would be and stop (qemu/lava-jobs.sh
# writes LAVA jobs from it): the deadline, the kernel command line, the
# QEMU options other than the kernel, initramfs and serial ports, and the
# kernel and initramfs paths.
if [ -n "${BOOT_PRINT:-}" ]; then
	printf 'deadline %s\nappend %s\nqemu %s\nkernel %s\ninitrd %s\n' \
		"$deadline" "$append" "${machine[*]}" "$kernel" "$initrd"
	exit 0
fi
[ -f "$kernel" ] || die "no kernel at $kernel (make kernel)"
[ -f "$initrd" ] || die "no initramfs at $initrd (make initramfs)"
command -v qemu-system-x86_64 >/dev/null || die "missing qemu-system-x86_64: apt-get install qemu-system-x86"
qemu=(qemu-system-x86_64 "${machine[@]}" -kernel "$kernel" -initrd "$initrd" -append "$append")

# BOOT_LOGS: a log directory chosen by the caller (qemu/test.sh watches it).
logs=${BOOT_LOGS:-$top/build/logs/$(date +%Y%m%d-%H%M%S)-$tag-$mode}
mkdir -p "$logs"
ln -sfn "$logs" "$top/build/logs/latest"

echo "boot: $tag mode=$mode deadline=${deadline}s logs=${logs#"$top"/}" >&2
case "$mode" in
shell)
	exec "${qemu[@]}" -serial mon:stdio -serial null ;;
run)
	timeout --foreground -k 5 "$deadline" "${qemu[@]}" \
		-serial "file:$logs/console.log" -serial stdio < /dev/null | tee "$logs/results.log"
	;;
*)
	start=$(date +%s.%N)
	rc=0
	timeout -k 5 "$deadline" "${qemu[@]}" \
		-serial "file:$logs/console.log" -serial "file:$logs/results.log" < /dev/null || rc=$?
	end=$(date +%s.%N)
	echo "qemu_rc=$rc wall_s=$(echo "$end - $start" | bc)" > "$logs/boot.info"
	[ "$rc" = 124 ] && echo "boot: guest killed at the ${deadline}s deadline" >&2
	echo "$logs"
	;;
esac
