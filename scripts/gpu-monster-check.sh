#!/usr/bin/env bash
# On a GPU host (16 cores, torch 2.x+cu13, nvcc 13; no registries): causal-conv1d 1.7.0
# from PyPI, as published (its setup.py asks nvcc for 9 real architectures, --threads 4;
# its backward TU alone is most of an hour of compiles on one core), sharded N ways with
# split TUs, the shards side by side on the one machine, each in its own mount namespace
# so that every job is at the same path and shares /tmp (as the jobs of a self-hosted
# runner do). Then the link job and the package's own tests on the GPU against the link
# job's wheel, with the unsharded build through the seats (shardcc env --plain) running
# beside them, and the link job's wheel compared with it byte for byte (compare --exact).
#   scripts/gpu-monster-check.sh start          lays out /tmp/shardcc-monster and starts the
#                                               run in a session of its own (setsid)
#   scripts/gpu-monster-check.sh wait OUT [S]   waits up to S seconds (default 560) for the
#                                               run, then copies its log and times to OUT
# Needs .gpu/ from scripts/gpu-carry.sh and .gpu/monster/ holding the sdist
# (causal_conv1d-1.7.0.tar.gz). A device call lasts 10 minutes at most and the run takes
# longer: the first call starts it and waits, each next call (made at once) waits again.
#   SHARDCC_MONSTER_SHARDS   N (default 9)
#   SHARDCC_MONSTER_SPLIT    --split-archs (default 9)
#   SHARDCC_MONSTER_SDIST    another sdist or source tarball (a dry run of the steps)
#   SHARDCC_MONSTER_BUILD    its build command (default: pip wheel of a setup.py package)
#   SHARDCC_MONSTER_TESTS    the pytest selection run on the GPU (empty: no tests)
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
W=/tmp/shardcc-monster
LOG=$W/log.txt

start() {
    [ -d .gpu/bin ] || { echo "gpu-monster-check: .gpu/ is missing: run scripts/gpu-carry.sh first" >&2; exit 2; }
    local sdist=${SHARDCC_MONSTER_SDIST:-$(ls .gpu/monster/causal_conv1d-*.tar.gz 2>/dev/null | head -1)}
    [ -f "$sdist" ] || { echo "gpu-monster-check: no sdist (.gpu/monster/causal_conv1d-*.tar.gz)" >&2; exit 2; }
    unshare -m true 2>/dev/null ||
        { echo "gpu-monster-check: unshare -m fails here: the jobs cannot share one path" >&2; exit 2; }
    rm -rf "$W" /tmp/shardcc-rt && mkdir -p "$W/bin" "$W/arts" "$W/p"
    cp -r .gpu/rt /tmp/shardcc-rt
    cp -a .gpu/bin/. "$W/bin/"
    cp "$sdist" "$W/sdist.tar.gz"
    cp "$0" "$W/run.sh"
    setsid bash "$W/run.sh" drive </dev/null >"$LOG" 2>&1 &
    echo "gpu-monster-check: started (log $LOG)"
}

# job NAME CMD...: runs CMD in a fresh copy of the project, bound at $W/p in a mount
# namespace of its own; its wall time goes to $W/times.txt
job() {
    local name=$1
    shift
    rm -rf "${W:?}/$name" && mkdir -p "$W/$name"
    tar -xzf "$W/sdist.tar.gz" -C "$W/$name" --strip-components=1
    rm -rf "$W/$name"/*.egg-info
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    unshare -m bash -c 'mount --bind "$1" "$2" && cd "$2" && shift 2 && exec "$@"' _ \
        "$W/$name" "$W/p" "$@" >"$W/$name.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    awk -v n="$name" -v a="$t0" -v b="$t1" -v r="$rc" 'BEGIN {printf "%s\t%.1f\t%s\n", n, b - a, r}' >>"$W/times.txt"
    return $rc
}

drive() {
    export PATH="$W/bin:$PATH" CAUSAL_CONV1D_FORCE_BUILD=TRUE
    local n=${SHARDCC_MONSTER_SHARDS:-9} split=${SHARDCC_MONSTER_SPLIT:-9}
    local build=${SHARDCC_MONSTER_BUILD:-'python3 -m pip wheel . --no-build-isolation --no-deps -q -w dist'}
    local clean='rm -rf build dist *.egg-info'
    echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
    python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
    echo "$(nvcc --version | tail -1); $(shardcc --version); $(ccache --version | head -1)"
    echo "sdist sha256 $(sha256sum "$W/sdist.tar.gz" | cut -d' ' -f1)"
    : >"$W/times.txt"

    echo "== $n shards side by side, --split-archs $split, each at $W/p in its own mount namespace"
    local i pids=() t0 t1
    t0=$(date +%s.%N)
    for i in $(seq 1 "$n"); do
        job "shard$i" shardcc shard --shard "$i/$n" --split-archs "$split" --clean "$clean" \
            --artifact "$W/arts" -- sh -c "$build" &
        pids+=($!)
    done
    local failed=0
    for i in "${!pids[@]}"; do wait "${pids[i]}" || { failed=1; echo "shard $((i + 1)) failed:"; tail -15 "$W/shard$((i + 1)).log"; }; done
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v r="$failed" 'BEGIN {printf "shards\t%.1f\t%s\n", b - a, r}' >>"$W/times.txt"
    for i in $(seq 1 "$n"); do tail -2 "$W/shard$i.log" | sed "s/^/shard $i: /"; done
    [ "$failed" = 0 ] || { echo "gpu-monster-check: FAIL: a shard failed"; echo DONE >>"$W/times.txt"; exit 1; }

    # the unsharded build starts now, beside the link job and the tests (light on the
    # processors: an assembly and one host TU, then the GPU): the device time a session has
    # does not hold the two one after the other
    echo "== the unsharded build through the seats (shardcc env --plain), started beside the link job"
    job plain sh -c "eval \"\$(shardcc env --plain)\" && $build" &
    local plain_pid=$!
    echo "== the link job"
    job link shardcc link --artifacts "$W/arts" --expect-shards "$n" --split-archs "$split" --clean "$clean" \
        -- sh -c "$build" || { tail -30 "$W/link.log"; echo DONE >>"$W/times.txt"; exit 1; }
    tail -8 "$W/link.log"
    grep -c "	item	.*	hit	" "$W/link/.shardcc/link/journal.tsv" | sed 's/^/split items from the shards: /' || true

    if [ -n "${SHARDCC_MONSTER_TESTS-test_causal_conv1d_update or (test_causal_conv1d and not varlen and not race and not bwd_determ and not default_mode)}" ]; then
        echo "== the package's tests on the GPU against the link job's wheel"
        python3 -m pip install -q --no-deps --no-index --target "$W/site" "$W"/link/dist/*.whl
        (cd "$W/link/tests" && PYTHONPATH="$W/site" timeout 900 python3 -m pytest -q -p no:cacheprovider \
            -x -k "${SHARDCC_MONSTER_TESTS-test_causal_conv1d_update or (test_causal_conv1d and not varlen and not race and not bwd_determ and not default_mode)}" \
            test_causal_conv1d.py 2>&1 | tail -5) || echo "gpu-monster-check: FAIL: the tests"
    fi

    echo "== waiting for the unsharded build"
    wait "$plain_pid" || { tail -30 "$W/plain.log"; echo DONE >>"$W/times.txt"; exit 1; }
    echo "== compare --exact: the link job's wheel and the unsharded one"
    shardcc compare --exact "$W"/link/dist/* "$W"/plain/dist/* || echo "gpu-monster-check: FAIL: compare"
    echo "== times (s): job, wall, exit"
    cat "$W/times.txt"
    awk -F'\t' '$1 ~ /^shard[0-9]/ && $2 > s {s = $2} $1 == "link" {l = $2} $1 == "plain" {p = $2}
        END {if (p > 0) printf "slowest shard %.1f s + link %.1f s = %.1f s against unsharded %.1f s: %.3f\n", s, l, s + l, p, (s + l) / p}' \
        "$W/times.txt"
    echo "== done: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo DONE >>"$W/times.txt"
}

wait_run() {
    local out=${1:?wait OUT}
    local limit=${2:-560} t=0
    while ! grep -q '^DONE' "$W/times.txt" 2>/dev/null && [ "$t" -lt "$limit" ]; do
        sleep 10
        t=$((t + 10))
    done
    mkdir -p "$out"
    cp "$LOG" "$out/gpu-monster-check.txt" 2>/dev/null || true
    cp "$W/times.txt" "$out/" 2>/dev/null || true
    if grep -q '^DONE' "$W/times.txt" 2>/dev/null; then
        for f in "$W"/*.log; do echo "== $f" && tail -40 "$f"; done >"$out/gpu-monster-jobs.txt" 2>&1 || true
        echo "gpu-monster-check: the run is over"
    else
        echo "gpu-monster-check: still running after ${limit} s"
    fi
    tail -25 "$LOG"
}

case "${1:-}" in
start) start ;;
drive) drive ;;
wait) shift && wait_run "$@" ;;
*) echo "usage: scripts/gpu-monster-check.sh start | wait OUT [SECONDS]" >&2 && exit 2 ;;
esac
