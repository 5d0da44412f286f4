#!/usr/bin/env bash
# On a GPU host (nvcc 13, CMake, ninja; no registries): the CMake corpus fixture
# (tests/corpus/cmake: 13 executables, RDC, a driver-API program loading an embedded
# fatbin, PTX JIT-loaded, a generator run during the build) through `shardcc local` with
# default options and the generator pinned. The unsharded build and the link job each run
# the fixture's CTest tests on the GPU (CORPUS_GPU_TESTS=ON: every kernel against its CPU
# reference); then every executable and library of the link job is compared with the
# unsharded build's, byte for byte (reproducible by default). Needs .gpu/ from
# scripts/gpu-carry.sh.
#   scripts/gpu-corpus-check.sh [OUT_DIR]     writes OUT_DIR/gpu-corpus-check.txt
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
OUTDIR=${1:-$TOP}
N=${SHARDCC_GPU_SHARDS:-4}
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/gpu-corpus-check.txt") 2>&1
[ -d .gpu/bin ] || { echo "gpu-corpus-check: .gpu/ is missing: run scripts/gpu-carry.sh first"; exit 2; }
rm -rf /tmp/shardcc-rt && cp -r .gpu/rt /tmp/shardcc-rt
export PATH="$TOP/.gpu/bin:$PATH"
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "$(nvcc --version | tail -1); $(cmake --version | head -1); $(shardcc --version), $(shardcc-wrap --version)"

WORK=$(mktemp -d /tmp/shardcc-corpus.XXXXXX)
cp -r tests/corpus/cmake "$WORK/proj"
cd "$WORK/proj"
# the unsharded build and the link job run the tests on the GPU, and keep their tree
BUILD='cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCORPUS_GPU_TESTS=ON >/dev/null &&
       cmake --build build >/dev/null &&
       if [ "${SHARDCC_PHASE:-plain}" != shard ]; then
           (cd build && ctest --output-on-failure) &&
           rm -rf "$OUT/tree-${SHARDCC_PHASE:-plain}" && cp -r build "$OUT/tree-${SHARDCC_PHASE:-plain}";
       fi'
echo "== shardcc local -n $N --pin 'tools/*' (the unsharded build and the link job run ctest on the GPU)"
OUT="$WORK" shardcc local -n "$N" --pin 'tools/*' --clean 'rm -rf build' -- sh -c "$BUILD"
echo "== the link job's tests, on the GPU, again with their output"
for e in vector_add/vector_add saxpy/saxpy reduce/reduce scan/scan histogram/histogram \
         transpose/transpose stencil/stencil matmul/matmul multi/crc_check; do
    "$WORK/tree-link/apps/$e"
done
"$WORK/tree-link/src/rdc/nbody"
"$WORK/tree-link/src/driver/driver_launch"
"$WORK/tree-link/src/ptx/ptx_info"
echo "== shardcc compare --exact: the link job's executables and libraries against the unsharded build's"
echo "   (every job reproducible, the default: byte for byte, nothing masked)"
n=0
for f in $(cd "$WORK/tree-link" && find . -path '*/CMakeFiles' -prune -o -type f \( -perm -u+x -o -name '*.so' -o -name '*.a' \) -print | sort); do
    shardcc compare --exact "$WORK/tree-link/$f" "$WORK/tree-plain/$f"
    n=$((n + 1))
done
echo "== $n files the same as the unsharded build's, byte for byte"
