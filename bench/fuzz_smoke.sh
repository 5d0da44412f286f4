#!/usr/bin/env bash
# fuzz_smoke: how far each libFuzzer target (tests/fuzz) gets in a fixed time.
#
#   bench/fuzz_smoke.sh [--seconds S] [--jobs J] [--out FILE]
#
# Configures a temporary build directory with clang, SHARDCC_FUZZ=ON and
# -fsanitize=address,undefined (as the fuzz.<name> tests are meant to run), builds the fuzz
# targets (J parallel jobs, default 2), then runs each target in turn for S seconds (default
# 60) through tests/fuzz/run_smoke.sh, on a fresh copy of its seed corpus. Writes
# bench/results/fuzz.txt (or --out FILE): date, machine, clang version, seconds, and per
# target the executions, executions per second, the corpus at the end (inputs/bytes, from
# the seeds it started with) and the coverage (libFuzzer's cov: edges and ft: features).
# Exit status: 0 when every target ran clean, 1 when one found a crash, leak or sanitizer
# report (its input is kept and named), 2 on a usage or build error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
seconds=60
jobs=2
out="$here/results/fuzz.txt"

usage() {
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
need_arg() { [ $# -ge 2 ] || { echo "fuzz_smoke: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) need_arg "$@"; seconds=$2; shift 2 ;;
    --jobs) need_arg "$@"; jobs=$2; shift 2 ;;
    --out) need_arg "$@"; out=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "fuzz_smoke: unknown option $1" >&2; usage 2 ;;
    esac
done
case "$seconds$jobs" in *[!0-9]* | '') echo "fuzz_smoke: --seconds and --jobs take positive integers" >&2; exit 2 ;; esac
if [ "$seconds" -lt 1 ] || [ "$jobs" -lt 1 ]; then
    echo "fuzz_smoke: --seconds and --jobs must be >= 1" >&2
    exit 2
fi
command -v clang >/dev/null || { echo "fuzz_smoke: clang is not on PATH" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_smoke.XXXXXX")
keep=
trap '[ -n "$keep" ] || rm -rf "$tmp"' EXIT
build="$tmp/build"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
echo "fuzz_smoke: building the fuzz targets in $build"
if ! CC=clang cmake -S "$src" -B "$build" "${gen[@]}" -DSHARDCC_FUZZ=ON -DSHARDCC_TESTS=OFF \
    -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    >"$tmp/configure.log" 2>&1 ||
    ! cmake --build "$build" -j "$jobs" --target fuzz >"$tmp/build.log" 2>&1; then
    cat "$tmp/configure.log" "$tmp/build.log" 2>/dev/null | tail -n 40 >&2
    echo "fuzz_smoke: the build failed" >&2
    exit 2
fi

export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
targets=(rsp classify artifact package_yaml)
rows=()
failed=0
for t in "${targets[@]}"; do
    run="$tmp/run/$t"
    echo "fuzz_smoke: fuzz_$t for ${seconds}s"
    if bash "$src/tests/fuzz/run_smoke.sh" "$build/tests/fuzz/fuzz_$t" "$src/tests/fuzz/corpus/$t" \
        "$run" "$seconds" >"$tmp/$t.out" 2>&1; then
        result=ok
    else
        result=FAILED
        failed=1
        keep=1
    fi
    cat "$tmp/$t.out"
    log="$run/fuzz.log"
    seeds=$(grep -m1 -oE 'seed corpus: files: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    last=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1 || true)
    field() { printf '%s\n' "$last" | grep -oE "$1 [^ ]+" | head -n 1 | cut -d' ' -f2; }
    runs=$(grep -oE '^Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || true)
    [ -n "$runs" ] || runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    rate=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    rss=$(grep -oE '^stat::peak_rss_mb: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    rows+=("$(printf '%-18s %-7s %10s %7s %16s %6s %6s %6s %8s' "fuzz_$t" "$result" "$runs" "$rate" \
        "$(field corp:)" "$seeds" "$(field cov:)" "$(field ft:)" "${rss}MB")")
    if [ "$result" != ok ]; then
        for c in "$run"/crashes/*; do
            [ -e "$c" ] && rows+=("                   failing input: $c")
        done
    fi
done

report() {
    echo "# fuzz_smoke: each libFuzzer target of tests/fuzz for a fixed time, ASan+UBSan, leaks checked"
    echo "date:           $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "machine:        $(uname -m), $(nproc) CPUs, $(uname -sr)"
    echo "load average:   $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') (at the end)"
    echo "commit:         $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$src" diff --quiet HEAD -- src tests/fuzz 2>/dev/null || echo ' (src/ or tests/fuzz/ modified)')"
    echo "clang:          $(clang --version | head -n 1)"
    echo "flags:          -fsanitize=fuzzer (targets), fuzzer-no-link (code under test), address,undefined -fno-sanitize-recover=all"
    echo "seconds:        $seconds per target, one target at a time (-timeout=10 -rss_limit_mb=2048)"
    echo
    echo "corpus: inputs/bytes at the end; seeds: inputs it started with; cov: edges, ft: features"
    echo "target             result        runs  exec/s           corpus  seeds   cov:    ft:      rss"
    printf '%s\n' "${rows[@]}"
}
mkdir -p "$(dirname "$out")"
report | tee "$out"
if [ "$failed" = 1 ]; then
    echo "fuzz_smoke: a target failed; its run directory is kept under $tmp/run" >&2
    exit 1
fi
exit 0
