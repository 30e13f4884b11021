#!/bin/sh
# Run the libFuzzer harness for FUZZ_SECONDS (default 25) from a fresh
# seed corpus under $O/fuzz.  Exit 0 when no crash was found.
set -eu
O=${O:?O must be set}
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECONDS:-25}
corpus=$O/fuzz/corpus
mkdir -p "$corpus" "$O/fuzz/artifacts"
python3 "$here/seeds.py" "$corpus"
exec "$O/fuzz/fuzz-conn" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
	-artifact_prefix="$O/fuzz/artifacts/" -print_final_stats=1 "$corpus"
