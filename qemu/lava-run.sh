#!/bin/bash
# make lava-run T="a b": the boots that `make test T="a b"` does, each run as
# a LAVA job by LAVA's own dispatcher (Debian's lava-dispatcher, lava-run
# standalone: no server, no worker), then judged by qemu/report.sh as
# make test judges its boots, to the same "N passed, N failed, N skipped".
# The device is qemu/lava/tierswap-qemu.jinja2, rendered with each job's
# context from the qemu device-type templates of Debian's lava-server
# package (downloaded and unpacked under build/lava/, never installed).
# Logs: build/logs/<time>-lava/<label>/ (job.yaml, device.yaml, lava.log,
# console.log, results.log, lava-results.tsv).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${T:-}" ] || { echo "lava-run: name the tests: make lava-run T=\"a b\"" >&2; exit 2; }
tree=${TREE:-patched}
flavour=${FLAVOUR:-debug}
run=$top/build/logs/$(date +%Y%m%d-%H%M%S)-lava
pkg=$top/build/lava/lava-server
types=$pkg/usr/share/lava-server/device-types
start=$(date +%s)

die() { echo "lava-run: $*" >&2; exit 1; }
[ -x /usr/bin/lava-run ] || die "no /usr/bin/lava-run: apt-get install lava-dispatcher (make lava-run does)"
if [ ! -f "$types/qemu.jinja2" ]; then
	mkdir -p "$pkg" && (cd "$pkg" && apt-get download lava-server >/dev/null 2>&1) &&
		dpkg-deb -x "$pkg"/lava-server_*.deb "$pkg" ||
		die "could not fetch the qemu device-type templates (apt-get download lava-server)"
fi

mkdir -p "$run"
printf 'boot\ttest\tseconds\tresult\n' > "$run/times.tsv"
T=$T TREE=$tree FLAVOUR=$flavour "$top/qemu/lava-jobs.sh" "$run/jobs" >/dev/null || die "lava-jobs.sh failed"
tp=0 tf=0 ts=0 id=$((100000 + $$ % 100000))
for job in "$run"/jobs/run-*.yaml; do
	label=$(basename "$job" .yaml)
	label=${label#run-}
	d=$run/$label
	mkdir -p "$d"
	cp "$job" "$d/job.yaml"
	tests=$(sed -n 's/^  tierswap.tests: "\(.*\)"$/\1/p' "$job")
	"$top/qemu/lava-device.py" "$top/qemu/lava/tierswap-qemu.jinja2" "$job" "$types" > "$d/device.yaml" ||
		die "could not render the device for $label"
	echo "== lava: $label ($tests), job $id"
	t0=$(date +%s)
	# Debian's python3: the one that sees lava_dispatcher and guestfs.
	/usr/bin/python3 /usr/bin/lava-run --job-id "$id" --output-dir "$d/out" \
		--device "$d/device.yaml" "$job" > "$d/lava.log" 2>&1
	rc=$?
	rm -rf "/var/lib/lava/dispatcher/tmp/$id"
	job_result=$("$top/qemu/lava-log.py" "$d/lava.log" "$d") || job_result="unreadable log"
	echo "lava-run exit $rc, LAVA job result: $job_result, $(( $(date +%s) - t0 )) s; LAVA test cases:" \
		$(awk -F'\t' '$1 != "lava" { printf "%s=%s ", $2, $3 }' "$d/lava-results.tsv" 2>/dev/null)
	out=$("$top/qemu/report.sh" "$d" $tests)
	echo "$out" > "$d/report.txt"
	"$top/qemu/boot-rows.sh" "$d" "$label" "$d/report.txt" >> "$run/times.tsv"
	echo "$out" | sed '$d'
	read -r _ _ p f s < <(echo "$out" | tail -n 1)
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	echo "logs: ${d#"$top"/}"
	id=$((id + 1))
done
"$top/qemu/kcidb.py" "$run" "$tree" "$flavour" > "$run/kcidb.json" &&
	echo "results: ${run#"$top"/}/times.tsv, kcidb.json"
echo "wall: $(($(date +%s) - start)) s"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
