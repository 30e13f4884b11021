#!/bin/bash
# Host tests for tiernbd: KTAP on stdout (common/ktap.sh).  Needs nbdkit-free Debian clients:
# libnbd-bin (nbdinfo nbdcopy nbdsh) + python3-libnbd, qemu-utils, fio;
# clang for the fuzz run.  Every server runs on loopback or a Unix
# socket in $O/test and is killed on exit.
set -u
export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH  # Debian python3 for nbdsh
O=${O:?O must be set}
B=$O/bin
here=$(cd "$(dirname "$0")" && pwd)
T=$O/test
rm -rf "$T"; mkdir -p "$T"
PIDS=()
. "$here/../../common/ktap.sh"

cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

# start NAME args... : tiernbd on 127.0.0.1:<any port> + $T/NAME.sock,
# control socket $T/NAME.ctl; sets PORT_<NAME>
start() { local name=$1; shift
	rm -f "$T/$name.pid"
	"$B/tiernbd" -p 0 -u "$T/$name.sock" -c "$T/$name.ctl" --pidfile "$T/$name.pid" "$@" \
		2>"$T/$name.log" &
	PIDS+=($!)
	for _ in $(seq 100); do [ -s "$T/$name.pid" ] && break; sleep 0.05; done
	local p; p=$(sed -n 's/.*listening on tcp 127.0.0.1 port \([0-9]*\)/\1/p' "$T/$name.log" | head -1)
	eval "PORT_$name=$p"
	[ -n "$p" ]
}
ctl() { local name=$1; shift; "$B/tiernbd-ctl" -s "$T/$name.ctl" "$@"; }
uri() { eval "echo nbd://127.0.0.1:\$PORT_$1"; }
unixuri() { echo "nbd+unix:///?socket=$T/$1.sock"; }
stat_of() { # stat_of NAME OP KEY
	ctl "$1" stats | awk -v op="op=$2" -v k="$3" '$1==op { for (i=2;i<=NF;i++) { split($i,a,"="); if (a[1]==k) print a[2] } }'; }

# ---- CLI ----
check "tiernbd --help exits 0" "$B/tiernbd" --help
"$B/tiernbd" --bogus >"$T/o" 2>&1; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/o")" = 1 ]; then pass "unknown option: exit 2, one line"; else fail "unknown option: rc=$rc"; diag <"$T/o"; fi
"$B/tiernbd" --size 12Q >"$T/o" 2>&1; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/o")" = 1 ]; then pass "bad size: exit 2, one line"; else fail "bad size: rc=$rc"; fi
"$B/tiernbd" --size 1M --latency read=bogus:1 >"$T/o" 2>&1; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$T/o")" = 1 ]; then pass "bad --latency: exit 2, one line"; else fail "bad --latency: rc=$rc"; diag <"$T/o"; fi
"$B/tiernbd-ctl" >"$T/o" 2>&1; rc=$?
if [ $rc = 2 ]; then pass "tiernbd-ctl without a command: exit 2"; else fail "tiernbd-ctl no command: rc=$rc"; fi

SIZE=$((64<<20))
start m --size 64M || fail "start RAM server"
U=$(uri m)

# ---- handshake / info / list ----
# (nbdinfo runs file(1) on the export for "content"; without it the JSON
# holds raw bytes: deps installs file.)
nbdinfo --json "$U" >"$T/info.json" 2>&1
if python3 - "$T/info.json" $SIZE <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["exports"][0]
assert e["export-size"] == int(sys.argv[2]), e
assert e["can_multi_conn"] and e["can_flush"] and e["can_fua"] and e["can_trim"] and e["can_zero"]
assert e["block_size_maximum"] == 32 << 20 and e["block_size_preferred"] == 4096
PY
then pass "nbdinfo: size, flags, block sizes over TCP"; else fail "nbdinfo"; diag <"$T/info.json"; fi
check "nbdinfo --list over the Unix socket shows the export" bash -c "nbdinfo --list '$(unixuri m)' | grep -q 'export=\"tiernbd\"'"
check "qemu-img info nbd:// reports the size" bash -c "qemu-img info --output=json '$U' | grep -q '\"virtual-size\": $SIZE'"

# ---- read/write/flush/trim/zero with qemu-io ----
check "qemu-io: write, read back, flush, discard, write-zeroes (TCP)" bash -c "
qemu-io -f raw '$U' -c 'write -P 0xa5 0 1M' -c 'write -P 0x5a -f 1M 64k' -c 'flush' \
  -c 'read -P 0xa5 0 1M' -c 'read -P 0x5a 1M 64k' -c 'discard 0 64k' -c 'read -P 0 0 64k' \
  -c 'write -z 2M 1M' -c 'read -P 0 2M 1M' -c 'aio_write -P 0x11 8M 4k' -c 'aio_flush' -c 'read -P 0x11 8M 4k' \
  2>&1 | grep -qi -e fail -e error -e mismatch && exit 1 || exit 0"
check "qemu-io over the Unix socket" bash -c "qemu-io -f raw 'nbd:unix:$T/m.sock' -c 'read -P 0xa5 4k 4k' | grep -q 'read 4096/4096'"

# ---- nbdcopy (multi-conn) ----
head -c $((16<<20)) /dev/urandom >"$T/rand"
ctl m stats reset >/dev/null
o1=$(ctl m stats | sed -n 's/.*conns_opened=\([0-9]*\).*/\1/p')
check "nbdcopy file -> tiernbd -> file is identical (multi-conn)" bash -c "
nbdcopy --connections=4 '$T/rand' '$U' && nbdcopy --connections=4 '$U' '$T/back' &&
cmp <(head -c $((16<<20)) '$T/back') '$T/rand'"
o2=$(ctl m stats | sed -n 's/.*conns_opened=\([0-9]*\).*/\1/p')
if [ $((o2 - o1)) -ge 4 ]; then pass "nbdcopy used several connections ($((o2 - o1)))"; else fail "nbdcopy connections: $((o2 - o1))"; fi

# ---- nbdsh: every command, multi-conn visibility ----
check "nbdsh: pread/pwrite/flush/trim/zero, FUA, data visible on a second connection" nbdsh -c "
h.connect_uri('$U')
h2 = nbd.NBD(); h2.connect_uri('$U')
assert h.can_multi_conn()
h.pwrite(b'\x42' * 8192, 4096, nbd.CMD_FLAG_FUA)
assert h2.pread(8192, 4096) == b'\x42' * 8192
h.flush()
h.trim(4096, 4096)
assert h2.pread(4096, 4096) == bytes(4096)
h.pwrite(b'\x33' * 512, 100000)
h.zero(512, 100000)
assert h.pread(512, 100000) == bytes(512)
h.pwrite(b'\x01\x02\x03', 12345)
assert h.pread(3, 12345) == b'\x01\x02\x03'
h.shutdown(); h2.shutdown()
"

# ---- fio's nbd engine ----
if fio --enghelp 2>/dev/null | grep -qw nbd; then
	check "fio nbd engine: random write + verify (crc32c, iodepth 16)" \
		fio --aux-path="$T" --name=v --ioengine=nbd --uri="$U" --rw=randwrite --bs=4k --iodepth=16 \
		--size=16m --verify=crc32c --do_verify=1 --verify_fatal=1 --runtime=30
	check "fio nbd engine: trim" fio --aux-path="$T" --name=tr --ioengine=nbd --uri="$U" --rw=randtrim --bs=64k \
		--iodepth=4 --size=8m --runtime=20
else
	skip "fio nbd engine" "fio has no nbd engine"; skip "fio trim" "fio has no nbd engine"
fi

# ---- error injection reaches clients with the right errno ----
ctl m error add read 1M+4K count=inf errno=EIO >"$T/id" && id=$(sed -n 's/id=//p' "$T/id")
check "qemu-io read of an injected range: Input/output error" bash -c "
qemu-io -f raw '$U' -c 'read 1M 4k' 2>&1 | grep -q 'Input/output error'"
check "qemu-io read next to the range succeeds" bash -c "qemu-io -f raw '$U' -c 'read 1028k 4k' 2>&1 | grep -q 'read 4096/4096'"
ctl m error del "$id"
ctl m error add write 2M+1 count=inf errno=ENOSPC >/dev/null
check "qemu-io write into an ENOSPC range: No space left on device" bash -c "
qemu-io -f raw '$U' -c 'write 2M 4k' 2>&1 | grep -q 'No space left on device'"
ctl m error clear
ctl m error add read 0+4K count=2 errno=EIO >/dev/null
check "nbdsh: range with count=2 fails twice with EIO then passes; list shows hits" nbdsh -c "
import subprocess
h.connect_uri('$U')
errs = []
for i in range(3):
    try:
        h.pread(512, 0); errs.append(0)
    except nbd.Error as e:
        errs.append(e.errno)
assert errs == ['EIO', 'EIO', 0], errs
out = subprocess.run(['$B/tiernbd-ctl', '-s', '$T/m.ctl', 'error', 'list'], capture_output=True, text=True).stdout
assert 'count=0' in out and 'hits=2' in out, out
"
ctl m error clear
for e in EPERM ENOMEM EINVAL ENOSPC ESHUTDOWN; do
	ctl m error add flush 0 errno=$e >/dev/null
	check "flush error $e reaches libnbd as $e" nbdsh -c "
h.connect_uri('$U')
try:
    h.flush(); raise SystemExit('no error')
except nbd.Error as e:
    assert e.errno == '$e', (e.errno, e)
"
	ctl m error clear
done
ctl m error every write 3 errno=EIO >/dev/null
check "every_nth: error every write 3 -> writes 3, 6, 9 fail" nbdsh -c "
h.connect_uri('$U')
bad = []
for i in range(1, 10):
    try:
        h.pwrite(b'x' * 512, 0)
    except nbd.Error:
        bad.append(i)
assert bad == [3, 6, 9], bad
"
ctl m error clear
cat >"$T/rate.py" <<PY
h.connect_uri('$U')
out = []
for i in range(400):
    try:
        h.pread(512, 0); out.append('.')
    except nbd.Error:
        out.append('x')
print(''.join(out))
PY
ctl m seed 5; ctl m error rate read 250000
nbdsh -c "exec(open('$T/rate.py').read())" >"$T/rate1"
ctl m seed 5
nbdsh -c "exec(open('$T/rate.py').read())" >"$T/rate2"
ctl m seed 6
nbdsh -c "exec(open('$T/rate.py').read())" >"$T/rate3"
nx=$(tr -cd x <"$T/rate1" | wc -c)
if cmp -s "$T/rate1" "$T/rate2" && ! cmp -s "$T/rate1" "$T/rate3" && [ "$nx" -gt 60 ] && [ "$nx" -lt 140 ]; then
	pass "rate 250000 ppm: $nx/400 reads failed; same seed same sequence, other seed differs"
else fail "rate/seed: nx=$nx"; diag <"$T/rate1"; diag <"$T/rate2"; fi
ctl m error clear

# ---- latency ----
lat_run() { # reads N sequential 4K reads, prints elapsed seconds
	nbdsh -c "
import time
h.connect_uri('$U')
t0 = time.monotonic()
for i in range($1):
    h.pread(4096, 0)
print('%.4f' % (time.monotonic() - t0))
"; }
base=$(lat_run 50)
ctl m latency read fixed:20ms
el=$(lat_run 20)
if python3 -c "import sys; e=$el; sys.exit(0 if 0.39 < e < 0.9 else 1)"; then pass "fixed 20ms: 20 reads took ${el}s (no-delay 50 reads: ${base}s)"; else fail "fixed 20ms: ${el}s"; fi
ctl m latency read fixed:50ms
el=$(nbdsh -c "
import time
h.connect_uri('$U')
bufs = [nbd.Buffer(4096) for _ in range(16)]
t0 = time.monotonic()
cookies = [h.aio_pread(b, i * 4096) for i, b in enumerate(bufs)]
while h.aio_in_flight() > 0:
    h.poll(-1)
for c in cookies: h.aio_command_completed(c)
print('%.4f' % (time.monotonic() - t0))
")
if python3 -c "import sys; e=$el; sys.exit(0 if 0.049 < e < 0.4 else 1)"; then pass "delays pipeline: 16 parallel reads of 50ms done in ${el}s"; else fail "pipelined latency: ${el}s"; fi
for d in uniform:1000,3000 normal:2000,500 lognormal:2000,500 500us; do
	ctl m stats reset; ctl m latency read $d
	lat_run 200 >/dev/null
	nd=$(stat_of m read injected_delays); us=$(stat_of m read injected_delay_us)
	mean=$((us / (nd > 0 ? nd : 1)))
	want=2000; [ $d = 500us ] && want=500
	if [ "$nd" = 200 ] && [ $mean -gt $((want * 85 / 100)) ] && [ $mean -lt $((want * 115 / 100)) ]; then
		pass "latency $d: 200 delays, mean ${mean}us"
	else fail "latency $d: delays=$nd mean=${mean}us"; fi
done
p50=$(stat_of m read lat_p50_lt_us)
# The bucket holds measured service time: at least the delay; the upper
# bound is only a sanity bound (a busy host, e.g. a kernel build beside the
# tests, once put p50 in the <4096us bucket).
if [ "$p50" -ge 512 ] && [ "$p50" -le 16384 ]; then pass "histogram p50 bucket for 500us delays: <${p50}us"; else fail "p50 bucket $p50 (want 512..16384)"; fi
ctl m latency all off
ctl m bandwidth 20M
el=$(nbdsh -c "
import time
h.connect_uri('$U')
t0 = time.monotonic()
for i in range(20):
    h.pread(1 << 20, i << 20)
print('%.4f' % (time.monotonic() - t0))
")
if python3 -c "import sys; e=$el; sys.exit(0 if 0.9 < e < 2.5 else 1)"; then pass "bandwidth 20M: 20 MiB read in ${el}s"; else fail "bandwidth: ${el}s"; fi
ctl m bandwidth off

# ---- disconnects ----
ctl m stats reset
ctl m disconnect after 5
check "disconnect after 5: the 6th request fails, the connection is gone" nbdsh -c "
h.connect_uri('$U')
for i in range(5): h.pread(512, 0)
try:
    h.pread(512, 0); raise SystemExit('6th read succeeded')
except nbd.Error:
    pass
assert not h.aio_is_ready()
"
check "injected disconnect counted and logged" bash -c "ctl() { '$B/tiernbd-ctl' -s '$T/m.ctl' \"\$@\"; }; ctl stats | grep -q disconnects_injected=1 && grep -q 'injected disconnect at request 6' '$T/m.log'"
nbdsh -c "
import time, subprocess
h.connect_uri('$U')
h.pread(512, 0)
r = subprocess.run(['$B/tiernbd-ctl', '-s', '$T/m.ctl', 'disconnect', 'now', 'all'], capture_output=True, text=True)
assert 'disconnected=1' in r.stdout, r
time.sleep(0.2)
try:
    h.pread(512, 0); raise SystemExit('read after disconnect succeeded')
except nbd.Error:
    pass
" >"$T/o" 2>&1 && pass "disconnect now: the client's next request fails" || { fail "disconnect now"; diag <"$T/o"; }
check "disconnect on command is logged" grep -q "injected disconnect on command" "$T/m.log"

# ---- every control command round-trips ----
ctlcheck() { # ctlcheck "cmd words" expected-regex-in-output-or-show
	local cmd=$1 re=$2 out
	if out=$(ctl m $cmd 2>&1) && { [ -z "$re" ] || { echo "$out"; ctl m show; ctl m error list; } | grep -qE -- "$re"; }; then
		pass "ctl $cmd"
	else fail "ctl $cmd"; echo "$out" | diag; fi
}
ctlcheck "ping" "pong"
ctlcheck "help" "disconnect after"
ctlcheck "status" "swap_safe="
ctlcheck "conns" ""
ctlcheck "stats" "op=discard requests="
ctlcheck "stats" "^read_errors 0\$"
ctlcheck "stats reset" ""
ctlcheck "latency read 250" "latency read fixed:250us"
ctlcheck "latency rw 1ms" "latency write fixed:1ms"
ctlcheck "latency read 1.5ms" "latency read fixed:1500us"
ctlcheck "latency read 0us" "latency read off"
ctlcheck "latency read fixed:0" "latency read off"
ctlcheck "latency write uniform:10,20" "latency write uniform:10us,20us"
ctlcheck "latency flush normal:1ms,100us" "latency flush normal:1ms,100us"
ctlcheck "latency trim lognormal:300,50" "latency discard lognormal:300us,50us"
ctlcheck "latency zero off" "latency discard off"
ctlcheck "latency all off" "latency read off"
ctlcheck "bandwidth 100M" "bandwidth 104857600"
ctlcheck "bandwidth off" "bandwidth off"
ctlcheck "seed 1234" "seed 1234"
ctlcheck "verbose on" "verbose on"
ctlcheck "verbose off" "verbose off"
ctlcheck "error add read,write 10p+2p count=3 errno=ENOSPC" "ops=read,write range=40960\+8192 count=3 errno=ENOSPC"
ctlcheck "error add trim 8s" "ops=discard range=4096\+1 count=inf errno=EIO"
ctlcheck "error add read 4096-8191" "ops=read range=4096\+4096 count=inf"
ctlcheck "error add read 12p-13p" "ops=read range=49152\+8192 count=inf"
ctlcheck "error add read 1s-1s" "ops=read range=512\+512 count=inf"
ctlcheck "error add read 4096b-8191b" "ops=read range=4096\+4096 count=inf"
ctlcheck "error add read 1KiB+1k" "ops=read range=1024\+1024 count=inf"
ctlcheck "error list" "id="
ctlcheck "error del all" ""
ctlcheck "error rate write 10 errno=ENOMEM" "error rate write 10 errno=ENOMEM"
ctlcheck "error rate read 20%" "error rate read 200000 errno=EIO"
ctlcheck "error rate flush 0.5%" "error rate flush 5000 errno=EIO"
ctlcheck "error rate read 250ppm" "error rate read 250 errno=EIO"
ctlcheck "error every flush 7" "error every flush 7 errno=EIO"
ctlcheck "error clear" "error rate write 0"
ctlcheck "disconnect after 1000" "disconnect after 1000"
ctlcheck "disconnect after off" "disconnect after off"
ctlcheck "disconnect now" "disconnected=0"
ctlcheck "show" "seed 1234"
for bad in "bogus" "latency read weird:1" "error add read" "error del 999" "error rate read 2000000" "error rate read 101%" "error rate read 0.00001%" "error add read 8-4" "error add read 4-" "latency read lognormal:0,5" "latency read 1e3us" "latency read .5ms" "latency read 0x10" "seed x" "verbose maybe" "disconnect now 999" "bandwidth -1"; do
	if ctl m $bad >"$T/o" 2>&1; then fail "ctl '$bad' should fail"; else
		grep -q "error:" "$T/o" && pass "ctl '$bad' fails with an error line" || fail "ctl '$bad' message"; fi
done

# ---- start-up options = control commands ----
start k --size 1M --latency read=fixed:100 --latency trim=normal:5,1 --bandwidth 1G --seed 9 \
	--error-add read=0+4K,count=3,errno=ENOSPC --error-rate write=10,errno=ENOMEM \
	--error-every flush=4 --disconnect-after 100 --verbose || fail "start with knobs"
ctl k show >"$T/show.k"
if grep -q "seed 9" "$T/show.k" && grep -q "latency read fixed:100us" "$T/show.k" &&
   grep -q "latency discard normal:5us,1us" "$T/show.k" && grep -q "bandwidth 1073741824" "$T/show.k" &&
   grep -q "ops=read range=0+4096 count=3 errno=ENOSPC" "$T/show.k" &&
   grep -q "error rate write 10 errno=ENOMEM" "$T/show.k" && grep -q "error every flush 4 errno=EIO" "$T/show.k" &&
   grep -q "disconnect after 100" "$T/show.k" && grep -q "verbose on" "$T/show.k"; then
	pass "start-up options set the same knobs as the control commands"
else fail "start-up knobs"; diag <"$T/show.k"; fi
qemu-io -f raw "$(uri k)" -c 'read 0 512' >/dev/null 2>&1
check "verbose mode logs each request" grep -q "READ off=0 len=512" "$T/k.log"

# ---- hostile clients ----
if python3 "$here/hostile.py" 127.0.0.1 "$PORT_m" $SIZE >"$T/hostile" 2>&1; then
	pass "hostile clients: $(grep -c '^ok' "$T/hostile") checks"
else fail "hostile clients"; diag <"$T/hostile"; fi
check "server alive after hostile clients" ctl m ping
check "no connection left behind" bash -c "[ -z \"\$('$B/tiernbd-ctl' -s '$T/m.ctl' conns)\" ]"

# ---- file backend, O_DIRECT, read-only ----
start f --file "$T/disk.img" --size 32M --direct || fail "start file server"
check "file export with O_DIRECT: qemu-io write/read/zero/discard, unaligned too" bash -c "
qemu-io -f raw '$(uri f)' -c 'write -P 0x77 0 1M' -c 'read -P 0x77 0 1M' -c 'write -P 0x66 1000 3000' \
  -c 'read -P 0x66 1000 3000' -c 'write -z 4M 1M' -c 'read -P 0 4M 1M' -c 'discard 8M 1M' -c flush 2>&1 |
  grep -qi -e fail -e error -e mismatch && exit 1 || exit 0"
check "file export: data is in the file" bash -c "cmp <(head -c 1000 /dev/zero | tr '\\0' '\\167') <(head -c 1000 '$T/disk.img')"
check "file export: fio verify" fio --aux-path="$T" --name=fv --ioengine=nbd --uri="$(uri f)" --rw=randwrite --bs=16k \
	--iodepth=8 --size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --runtime=30
start r --file "$T/disk.img" --read-only || fail "start read-only"
check "read-only export: flag set; a raw WRITE gets EPERM, TRIM too" python3 "$here/hostile.py" 127.0.0.1 "$PORT_r" 0 readonly

# ---- signals ----
kill -TERM "${PIDS[0]}" && wait "${PIDS[0]}"; rc=$?
if [ $rc = 0 ] && [ ! -e "$T/m.sock" ] && grep -q "shutting down" "$T/m.log"; then pass "SIGTERM: clean exit, sockets removed"; else fail "SIGTERM rc=$rc"; fi

# ---- fuzz ----
if command -v clang >/dev/null && echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){(void)d;(void)n;return 0;}' |
	clang -fsanitize=fuzzer -x c - -o "$T/fz" 2>/dev/null; then
	if make -s -C "$here/.." O="$O" FUZZ_SECONDS="${FUZZ_SECONDS:-25}" fuzz >"$T/fuzz.log" 2>&1; then
		pass "libFuzzer harness: $(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$T/fuzz.log") runs without a crash"
	else fail "fuzz"; tail -30 "$T/fuzz.log" | diag; fi
else skip "libFuzzer harness" "clang with libFuzzer not installed"; fi

tap_end
