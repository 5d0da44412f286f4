#!/usr/bin/env bash
# On a GPU host (nvcc 13, CMake, ninja; no registries): the CUDA 13 library fixture
# (tests/corpus/cuda13-lib with BACKEND_GPU_CHECK=ON) run on the GPU after what the seats
# rewrite in it: kernels launched across TUs (hidden symbols in the shards' hollow links),
# the template-only TU whose module id ends in the seat's number instead of cudafe++'s
# process id, a static kernel (its name holds the module id's hash), and the heavy TU split
# over the shards (its device items assembled in the link job).
#   1. shardcc local -n 3 --split-archs 3 --compare build: the unsharded build and the link
#      job each run backend_check and selftest on the GPU; the link job's products are the
#      unsharded build's byte for byte;
#   2. --relocatable: 4 shards at one path, the link job at another with another TMPDIR
#      (every split item from the store), whose backend_check runs on the GPU.
# Needs .gpu/ from scripts/gpu-carry.sh.
#   scripts/gpu-cuda13-check.sh [OUT_DIR]     writes OUT_DIR/gpu-cuda13-check.txt
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
OUTDIR=${1:-$TOP}
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/gpu-cuda13-check.txt") 2>&1
[ -d .gpu/bin ] || { echo "gpu-cuda13-check: .gpu/ is missing: run scripts/gpu-carry.sh first"; exit 2; }
rm -rf /tmp/shardcc-rt && cp -r .gpu/rt /tmp/shardcc-rt
export PATH="$TOP/.gpu/bin:$PATH"
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "$(nvcc --version | tail -1); $(cmake --version | head -1); $(shardcc --version)"

WORK=$(mktemp -d /tmp/shardcc-cuda13.XXXXXX)
cp -r tests/corpus/cuda13-lib "$WORK/proj"
cd "$WORK/proj"
BUILD='cmake -S . -B build -G Ninja -DBACKEND_GPU_CHECK=ON >/dev/null && cmake --build build >/dev/null &&
       if [ "${SHARDCC_PHASE:-plain}" != shard ]; then
           echo "${SHARDCC_PHASE:-plain}: $(build/backend_check)" >>"$OUT/runs.txt" && build/selftest >>"$OUT/runs.txt";
       fi'
echo "== 1. shardcc local -n 3 --split-archs 3 --compare build (the GPU runs in the unsharded build and the link job)"
OUT="$WORK" shardcc local -n 3 --split-archs 3 --clean 'rm -rf build' --compare build -- sh -c "$BUILD"
cat "$WORK/runs.txt"
[ "$(grep -c 'backend_check: 0 wrong elements.*answer 42, no error' "$WORK/runs.txt")" = 2 ] ||
    { echo "gpu-cuda13-check: FAIL: backend_check did not pass in both"; exit 1; }

echo "== 2. --relocatable: shards at $WORK/ra, the link job at $WORK/rb with another TMPDIR"
mkdir -p "$WORK/ra" "$WORK/rb" "$WORK/arts" "$WORK/tmpa" "$WORK/tmpb"
cp -r "$TOP/tests/corpus/cuda13-lib" "$WORK/ra/p"
cp -r "$TOP/tests/corpus/cuda13-lib" "$WORK/rb/p"
RB='cmake -S . -B build -G Ninja -DBACKEND_GPU_CHECK=ON >/dev/null && cmake --build build >/dev/null'
for i in 1 2 3 4; do
    (cd "$WORK/ra/p" && TMPDIR="$WORK/tmpa" shardcc shard --relocatable --shard $i/4 --split-archs 3 \
        --clean "rm -rf build" --artifact "$WORK/arts" -- sh -c "$RB" 2>&1 | tail -1)
done
(cd "$WORK/rb/p" && TMPDIR="$WORK/tmpb" shardcc link --relocatable --artifacts "$WORK/arts" \
    --expect-shards 4 --split-archs 3 -- sh -c "$RB" 2>&1 | tail -2)
grep -c "	item	.*	hit	" "$WORK/rb/p/.shardcc/link/journal.tsv" | sed 's/^/items from the store: /'
"$WORK/rb/p/build/backend_check"
"$WORK/rb/p/build/selftest"
echo "gpu-cuda13-check: every check passed"
