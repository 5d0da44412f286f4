#!/usr/bin/env bash
# The main job on the bundled example: builds and installs shardcc (installing missing
# Debian packages), then runs the whole pipeline on examples/cuda-cmake with `shardcc
# local`: the unsharded build, 3 shard builds from clean trees, the link job (100 % cache
# hits), and a check that the link job's objects and library are the unsharded build's,
# byte for byte (--compare build; reproducible is the default).
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
N=${SHARDCC_DEMO_SHARDS:-3}
scripts/install-deps.sh --demo # what this needs, not the test suite's torch (3 GB)
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
# each build leaves its library as libkern-<phase>.so: plain (unsharded), shard, link
BUILD='cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build &&
       cp build/libkern.so "$OUT/libkern-${SHARDCC_PHASE:-plain}.so"'

echo "== what the seat does with one TU of the example (shardcc classify)"
for i in $(seq 1 "$N"); do
    shardcc classify --root . --shard "$i/$N" -- nvcc -O3 -MD -MF a.o.d -x cu -c src/heavy_01.cu -o a.o |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("  shard %s: kind=%s action=%s key=%s owner=%s" % (sys.argv[1], d["kind"], d["action"], d["key"], d["owner"]))' "$i/$N"
done

echo "== shardcc local -n $N: the unsharded build, $N shards, the link job"
OUT="$WORK" shardcc local -n "$N" --clean 'rm -rf build' --compare build -- sh -c "$BUILD"
echo "== the link job's library against the unsharded build's"
shardcc compare --exact "$WORK/libkern-link.so" "$WORK/libkern-plain.so"
