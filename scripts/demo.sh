#!/usr/bin/env bash
# The main job on the bundled example: builds and installs shardcc (installing missing
# Debian packages), then shows what the seat does with examples/cuda-cmake sharded two ways:
# the wrapper's decision for one TU, and shard 1/2 and 2/2 builds with what each compiled
# and what it stubbed.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build >/dev/null
cmake --install build --prefix "$TOP/_install" >/dev/null
export PATH="$TOP/_install/bin:$PATH"
echo "== shardcc $(shardcc --version | cut -d' ' -f2) installed in _install/bin"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-demo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp -r examples/cuda-cmake "$WORK/proj"
cd "$WORK/proj"

echo "== what the seat does with one TU (shardcc classify)"
for i in 1 2; do
    shardcc classify --root . --shard $i/2 -- nvcc -O3 -MD -MF a.o.d -x cu -c src/heavy_01.cu -o a.o |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("  shard %d/2: kind=%s action=%s key=%s owner=%s" % ('$i', d["kind"], d["action"], d["key"], d["owner"]))'
done

for i in 1 2; do
    echo "== shard $i/2: a clean CMake build with shardcc-nvcc as CUDACXX"
    eval "$(shardcc env --root . --shard $i/2 --cache "$WORK/cache-$i" --journal "$WORK/journal-$i.tsv")"
    start=$(date +%s)
    cmake -S . -B build-$i -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build-$i >/dev/null
    j="$WORK/journal-$i.tsv"
    owned=$(awk -F'\t' '$7 == "tu" && $8 == "cache"' "$j" | wc -l)
    stubbed=$(awk -F'\t' '$7 == "tu" && $8 == "stub"' "$j" | wc -l)
    probes=$(awk -F'\t' '$7 == "probe"' "$j" | wc -l)
    secs=$(awk -F'\t' '$7 == "tu" && $8 == "cache" {s += $10} END {printf "%.1f", s / 1e6}' "$j")
    echo "  compiled $owned TUs ($secs s of compile time), stubbed $stubbed, ran $probes CMake probes directly, $(($(date +%s) - start)) s wall"
    awk -F'\t' '$7 == "tu" && $8 == "cache" {printf "    owned  %s\n", $12}' "$j" | sort | head -5
    echo "    ..."
done
both=$(cat "$WORK"/journal-*.tsv | awk -F'\t' '$7 == "tu" && $8 == "cache" {print $12}' | sort | uniq -d | wc -l)
all=$(cat "$WORK"/journal-*.tsv | awk -F'\t' '$7 == "tu" && $8 == "cache" {print $12}' | sort -u | wc -l)
echo "== $all distinct TUs compiled across the two shards, $both by both"
[ "$both" = 0 ] || { echo "shardcc demo: a TU was compiled by two shards" >&2; exit 1; }
