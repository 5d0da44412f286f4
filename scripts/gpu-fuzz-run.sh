#!/usr/bin/env bash
# On the lent host: every fuzz target of .gpu/fuzz (scripts/gpu-fuzz-carry.sh) for SECONDS,
# all at once (one core each), through tests/fuzz/run_smoke.sh; each target's log and any
# failing input go to $OUT/fuzz/<name>/, a summary line per target to $OUT/fuzz/summary.txt.
#   scripts/gpu-fuzz-run.sh [SECONDS]   (default 600)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
src=.gpu/fuzz
RT=/tmp/shardcc-fuzz-rt
rm -rf "$RT" && cp -r "$src/rt" "$RT"
export PATH="$PWD/$src/bin:$PATH" ZSTD="$PWD/$src/bin/zstd" PYTHON=${PYTHON:-python3}
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
mkdir -p "$OUT/fuzz"
pids=()
for f in "$src"/bin/fuzz_*; do
    name=${f##*/fuzz_}
    (
        rc=0
        bash "$src/run_smoke.sh" "$f" "$src/corpus/$name" "/tmp/fuzz-run/$name" "$seconds" \
            >"$OUT/fuzz/$name.out" 2>&1 || rc=$?
        mkdir -p "$OUT/fuzz/$name"
        tail -c 20000 "/tmp/fuzz-run/$name/fuzz.log" >"$OUT/fuzz/$name/fuzz.log.tail" 2>/dev/null
        cp -r "/tmp/fuzz-run/$name/crashes" "$OUT/fuzz/$name/" 2>/dev/null
        echo "$name: exit $rc; $(grep -E '^Done [0-9]+ runs' "/tmp/fuzz-run/$name/fuzz.log" | tail -1); $(grep -E 'DONE|pulse' "/tmp/fuzz-run/$name/fuzz.log" | tail -1)" \
            >>"$OUT/fuzz/summary.txt"
    ) &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
nproc >"$OUT/fuzz/nproc.txt"
cat "$OUT/fuzz/summary.txt"
