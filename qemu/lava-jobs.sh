#!/bin/bash
# LAVA job definitions for the lab's boots: lava-jobs.sh OUTDIR
# One job per boot that `make test` (quick), `make test-full` (full) and
# `make bench` would do, from the same plan (qemu/boot-plan.sh) and the same
# kernel command line and deadline (qemu/boot.sh with BOOT_PRINT=1):
#   OUTDIR/test-quick-LABEL.yaml, OUTDIR/test-full-LABEL.yaml,
#   OUTDIR/bench-TAG.yaml
# Device type qemu (Linaro's qemu.jinja2: arch, memory, no_kvm and
# extra_options come from the job context). The kernel and the initramfs are
# referenced by URL, never copied: ARTIFACT_URL (default file://BUILD, the
# local build directory) stands for build/, so a lab serves the same tree,
# e.g. ARTIFACT_URL=https://example.org/tierswap/build. TREE and FLAVOUR as
# for make test (patched, debug). T="a b": only the boots that
# make test T="a b" does, as OUTDIR/run-LABEL.yaml (make lava-run). The guest is told tierswap.results=console:
# LAVA reads one serial port, so test output joins the kernel console there;
# a monitor test action turns each "### lava NAME pass|fail" line into a
# LAVA test case, and qemu/report.sh judges the whole log (docs/lava.md).
# LAVA_SPLIT=K: the shared boot of each suite becomes K jobs
# (test-SUITE-shared-1.yaml ... -K.yaml), so that K workers share its
# tests: longest first, each to the job with the least so far, by the
# seconds in LAVA_TIMES (a times.tsv of an earlier run, e.g. make
# test-full's) or else by each test's "# timeout:"; a job keeps the
# suite's order. Boots of their own stay one job each.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: lava-jobs.sh OUTDIR}
tree=${TREE:-patched}
flavour=${FLAVOUR:-debug}
artifacts=${ARTIFACT_URL:-file://$top/build}
artifacts=${artifacts%/}

split=${LAVA_SPLIT:-1}
case "$split" in
'' | *[!0-9]* | 0) echo "lava-jobs: LAVA_SPLIT must be a number of jobs >= 1 (got '$split')" >&2; exit 2 ;;
esac
times=${LAVA_TIMES:-}
if [ -n "$times" ] && [ ! -r "$times" ]; then
	echo "lava-jobs: LAVA_TIMES: cannot read '$times'" >&2
	exit 2
fi

mkdir -p "$out"
rm -f "$out"/*.yaml

# url PATH: PATH under build/ as a URL under ARTIFACT_URL
url() { echo "$artifacts/${1#"$top/build/"}"; }

# job FILE NAME MODE TAG SUITE NAME...: one job, written to OUTDIR/FILE
job() {
	local file=$1 title=$2 mode=$3 tag=$4 suite=$5 plan deadline append qopts kernel initrd mem extra test_min
	shift 5
	plan=$(BOOT_PRINT=1 SUITE=$suite EXTRA_APPEND=tierswap.results=console \
		"$top/qemu/boot.sh" "$mode" "$tag" "$@")
	deadline=$(sed -n 's/^deadline //p' <<< "$plan")
	append=$(sed -n 's/^append //p' <<< "$plan")
	qopts=$(sed -n 's/^qemu //p' <<< "$plan")
	kernel=$(url "$(sed -n 's/^kernel //p' <<< "$plan")")
	initrd=$(url "$(sed -n 's/^initrd //p' <<< "$plan")")
	# -m goes to the template's memory (MiB); -display and -nodefaults stay
	# out (LAVA's console is QEMU's default serial, -nographic); the rest,
	# option and value, become extra_options.
	mem=$(awk '{ for (i = 1; i < NF; i++) if ($i == "-m") { v = $(i + 1); print (v ~ /G$/) ? v * 1024 : v + 0 } }' <<< "$qopts")
	extra=$(awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "-m" || $i == "-display") { i++; continue }
			if ($i == "-nodefaults") continue
			if (i < NF && $(i + 1) !~ /^-/) { printf "    - \"%s %s\"\n", $i, $(i + 1); i++ }
			else printf "    - \"%s\"\n", $i
		}
	}' <<< "$qopts")
	test_min=$(( (deadline + 59) / 60 + 1 ))
	cat > "$out/$file" <<YAML
# $title: written by qemu/lava-jobs.sh, do not edit
job_name: "tierswap $title"
device_type: qemu
visibility: public
priority: medium
timeouts:
  job:
    minutes: $((test_min + 15))
  action:
    minutes: $test_min
  connection:
    minutes: 2
metadata:
  tierswap.kernel: "$tag"
  tierswap.mode: "$mode"
  tierswap.suite: "${suite:-none}"
  tierswap.tests: "$*"
context:
  arch: amd64
  no_kvm: true
  memory: $mem
  extra_options:
$extra
actions:
- deploy:
    to: tmpfs
    timeout:
      minutes: 10
    images:
      kernel:
        url: "$kernel"
        image_arg: '-kernel {kernel} -append "$append"'
      ramdisk:
        url: "$initrd"
        image_arg: "-initrd {ramdisk}"
- boot:
    method: qemu
    media: tmpfs
    timeout:
      minutes: 5
- test:
    timeout:
      minutes: $test_min
    monitors:
    - name: tierswap-$mode
      start: "### guest up"
      end: "### lava done"
      pattern: "### lava (?P<test_case_id>[-_a-zA-Z0-9.@]+) (?P<result>pass|fail)"
YAML
}

if [ -n "${T:-}" ]; then
	while read -r label fl tests; do
		[ "$fl" = - ] && fl=$flavour
		job "run-$label.yaml" "test $label ($tree-$fl)" test "$tree-$fl" quick $tests
	done < <("$top/qemu/boot-plan.sh" quick $T)
	exit 0
fi
# split_shared NAME...: LAVA_SPLIT lines "K NAME..." (the K-th job's
# tests, in the given order; a job with no test is left out). A test that
# LAVA_TIMES does not name weighs the mean of those it does.
split_shared() {
	local n m
	for n in "$@"; do
		m=$([ -n "$times" ] && awk -F'\t' -v n="$n" '$2 == n && s == "" { s = $3 } END { if (s != "") print s }' "$times")
		echo "$n ${m:--} $(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$top/qemu/tests/$n.sh" | head -n 1)"
	done | awk -v k="$split" '
		{ name[NR] = $1; m[NR] = $2; t[NR] = $3 + 0; if ($2 != "-") { sum += $2; known++ } }
		END {
			for (i = 1; i <= NR; i++)
				w[i] = !known ? t[i] : m[i] != "-" ? m[i] + 0 : sum / known
			# longest first (ties: suite order), each to the lightest job
			for (i = 1; i <= NR; i++) ord[i] = i
			for (i = 2; i <= NR; i++)
				for (j = i; j > 1 && w[ord[j]] > w[ord[j - 1]]; j--) { x = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = x }
			for (i = 1; i <= NR; i++) {
				b = 1
				for (j = 2; j <= k; j++) if (load[j] < load[b]) b = j
				job[ord[i]] = b; load[b] += w[ord[i]]
			}
			for (j = 1; j <= k; j++) {
				line = ""
				for (i = 1; i <= NR; i++) if (job[i] == j) line = line " " name[i]
				if (line != "") print j line
			}
		}'
}

for suite in quick full; do
	names=$("$top/qemu/suite-list.sh" "$suite")
	while read -r label fl tests; do
		[ "$fl" = - ] && fl=$flavour
		if [ "$label" = shared ] && [ "$split" -gt 1 ]; then
			parts=$(split_shared $tests)
			[ "$(echo "$parts" | awk '{ n += NF - 1 } END { print n + 0 }')" = "$(echo $tests | wc -w)" ] ||
				{ echo "lava-jobs: could not split the $suite shared boot" >&2; exit 1; }
			while read -r k part; do
				job "test-$suite-shared-$k.yaml" "test $suite shared $k/$split ($tree-$fl)" \
					test "$tree-$fl" "$suite" $part
			done <<< "$parts"
			continue
		fi
		# the boot's own guest environment (boot-plan.sh --env), as make test's
		GUEST_ENV="${GUEST_ENV:-} $("$top/qemu/boot-plan.sh" --env "$label")" \
			job "test-$suite-$label.yaml" "test $suite $label ($tree-$fl)" test "$tree-$fl" "$suite" $tests
	done < <("$top/qemu/boot-plan.sh" "$suite" $names)
done
# make bench: every guest bench in one boot of each release kernel, with
# bench.sh's memory
benches=$(grep -l '^# where: *guest' "$top"/qemu/bench/*.sh | xargs -n 1 basename | sed 's/\.sh$//' | tr '\n' ' ')
for tag in base-release patched-release; do
	GUEST_MEM=${GUEST_MEM:-4G} job "bench-$tag.yaml" "bench ($tag)" bench "$tag" "" $benches
done
ls "$out"/*.yaml | wc -l | sed 's/$/ LAVA jobs in '"${out//\//\\/}"'/'
