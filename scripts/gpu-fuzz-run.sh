#!/usr/bin/env bash
# On the lent host: every fuzz target of .gpu/fuzz.tgz (scripts/gpu-fuzz-carry.sh; carry
# .gpu/fuzz.tgz) for SECONDS,
# all at once (one core each), through tests/fuzz/run_smoke.sh; each target's log and any
# failing input go to $OUT/fuzz/<name>/, a summary line per target to $OUT/fuzz/summary.txt.
#   scripts/gpu-fuzz-run.sh [SECONDS]      in this call (default 561: one call's 600 s limit)
#   scripts/gpu-fuzz-run.sh --start SECONDS
#                                          starts the run detached, from a copy under /tmp
#                                          (each call lays the working tree anew), and returns
#   scripts/gpu-fuzz-run.sh --collect      in the next call (at once: the host is kept about
#                                          30 s): waits for the detached run and copies its
#                                          results to $OUT
# A run longer than one call is --start, then a call that sleeps, then --collect.
set -uo pipefail
cd "$(dirname "$0")/.."
HOLD=/tmp/shardcc-fuzz-hold # the detached run's copy of .gpu/fuzz and this script, and its output
case "${1:-}" in
--start)
    seconds=${2:?--start SECONDS}
    rm -rf "$HOLD" && mkdir -p "$HOLD/out" && tar -C "$HOLD" -xzf .gpu/fuzz.tgz &&
        mv "$HOLD/fuzz" "$HOLD/src" && cp "$0" "$HOLD/run.sh"
    FUZZ_SRC=$HOLD/src OUT=$HOLD/out setsid nohup bash "$HOLD/run.sh" "$seconds" \
        >"$HOLD/run.log" 2>&1 </dev/null &
    echo "gpu-fuzz-run: started for $seconds s (pid $!), output under $HOLD/out"
    exit 0
    ;;
--collect)
    [ -d "$HOLD/out" ] || { echo "gpu-fuzz-run: no detached run under $HOLD (the host was given back?)" >&2; exit 4; }
    while [ ! -e "$HOLD/out/fuzz/nproc.txt" ]; do sleep 5; done
    cp -r "$HOLD/out/fuzz" "$OUT/" && cat "$OUT/fuzz/summary.txt"
    exit 0
    ;;
esac
seconds=${1:-561}
src=${FUZZ_SRC:-}
if [ -z "$src" ]; then
    src=/tmp/shardcc-fuzz-src
    rm -rf "$src" && mkdir -p "$src" && tar -C "$src" -xzf .gpu/fuzz.tgz --strip-components=1
fi
RT=/tmp/shardcc-fuzz-rt
rm -rf "$RT" && cp -r "$src/rt" "$RT"
export PATH="$src/bin:$PATH" ZSTD="$src/bin/zstd" PYTHON=${PYTHON:-python3}
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
