#!/usr/bin/env bash
# On a GPU host (torch 2.x+cu13, nvcc 13, python; no registries): builds examples/torch-ext
# unsharded and sharded (N shards, default 4) with `shardcc local`, checks with `shardcc
# compare` that the link job's wheel is the unsharded one, installs the sharded wheel and
# runs every kernel against its plain-torch reference on the GPU (and the CPU); with
# SHARDCC_GPU_PTX_JIT=1 once more from the embedded PTX (CUDA_FORCE_PTX_JIT=1). With
# SHARDCC_GPU_SPLIT=1 the shards split every CUDA TU with 2 real architectures or more
# (--split-archs 2: give TORCH_CUDA_ARCH_LIST="8.0;9.0+PTX") and the report shows the split
# TUs' items, their owners and the link job's assembly.
# Needs .gpu/ from scripts/gpu-carry.sh (shardcc and ccache with their libraries).
#   scripts/gpu-torch-check.sh [OUT_DIR]     writes OUT_DIR/gpu-torch-check.txt
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
OUTDIR=${1:-$TOP}
N=${SHARDCC_GPU_SHARDS:-4}
REPORT="$OUTDIR/gpu-torch-check${SHARDCC_GPU_HOST_SEAT:+-host-seat}${SHARDCC_EXAMPLE_NO_NINJA:+-setuptools}${SHARDCC_GPU_SPLIT:+-split}.txt"
mkdir -p "$OUTDIR"
exec > >(tee "$REPORT") 2>&1
[ -d .gpu/bin ] || { echo "gpu-torch-check: .gpu/ is missing: run scripts/gpu-carry.sh first"; exit 2; }
rm -rf /tmp/shardcc-rt && cp -r .gpu/rt /tmp/shardcc-rt
export PATH="$TOP/.gpu/bin:$PATH"
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} MAX_JOBS=${MAX_JOBS:-$(nproc)}
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'
nvcc --version | tail -1
echo "$(shardcc --version), $(shardcc-wrap --version), $(ccache --version | head -1)"

WORK=$(mktemp -d /tmp/shardcc-gpu.XXXXXX)
cp -r examples/torch-ext "$WORK/proj"
cd "$WORK/proj"
# each build leaves its wheel as wheel-<phase>/: plain (unsharded), shard, link
BUILD='rm -rf build dist *.egg-info && python3 -m pip wheel . --no-build-isolation --no-deps -q -w dist &&
       rm -rf "$OUT/wheel-${SHARDCC_PHASE:-plain}" && mkdir -p "$OUT/wheel-${SHARDCC_PHASE:-plain}" &&
       cp dist/*.whl "$OUT/wheel-${SHARDCC_PHASE:-plain}/" &&
       { cp build/temp*/build.ninja "$OUT/build-${SHARDCC_PHASE:-plain}.ninja" 2>/dev/null || true; }'
SEATS=()
[ "${SHARDCC_GPU_HOST_SEAT:-0}" = 1 ] && SEATS+=(--host-seat)
# more options of shardcc local (e.g. --no-cuda-home-seat), word-split
# shellcheck disable=SC2206
SEATS+=(${SHARDCC_GPU_OPTS:-})
[ "${SHARDCC_GPU_SPLIT:-0}" = 1 ] && SEATS+=(--split-archs 2)
echo "== shardcc local -n $N ${SEATS[*]} (the unsharded build, $N shards, the link job)"
OUT="$WORK" shardcc local -n "$N" "${SEATS[@]}" --clean 'rm -rf build dist *.egg-info' -- sh -c "$BUILD"
if [ "${SHARDCC_GPU_SPLIT:-0}" = 1 ]; then
    echo "== split TUs: each shard's items (stored: compiled there), the link job's assembly"
    for j in .shardcc/shard-*-of-"$N"/journal.tsv; do
        awk -F'\t' -v j="$j" '$1 == "SCP1" && $3 == "item" && $7 == "stored" {
            printf "  %s: %s %s (%s) stored, %.1f s\n", j, $2, $4, $5, $8 / 1e6 }' "$j"
    done
    awk -F'\t' '$1 == "SCJ2" && $8 == "split" { printf "  link job: %s %s in %.1f s\n", $12, $14, $10 / 1e6 }
                $1 == "SCP1" && $3 == "item" { printf "    item %s (%s): %s\n", $4, $5, $7 }' .shardcc/link/journal.tsv
    n=$(awk -F'\t' '$1 == "SCJ2" && $8 == "split" && $14 == "assembled"' .shardcc/link/journal.tsv | wc -l)
    [ "$n" -gt 0 ] || { echo "gpu-torch-check: no TU was split and assembled"; exit 1; }
    echo "  $n split TUs assembled from the store"
fi
echo "== shardcc compare: the link job's wheel against the unsharded wheel"
shardcc compare "$WORK"/wheel-link/*.whl "$WORK"/wheel-plain/*.whl
echo "== the same, byte for byte (every job reproducible, the default)"
shardcc compare --exact "$WORK"/wheel-link/*.whl "$WORK"/wheel-plain/*.whl
echo "== the sharded wheel, installed, against plain torch"
python3 -m pip install -q --no-deps --no-index --target "$WORK/site" "$WORK"/wheel-link/*.whl
cd "$WORK"
PYTHONPATH="$WORK/site" python3 "$TOP/examples/torch-ext/tests/test_kernels.py" --device "${SHARDCC_GPU_DEVICES:-all}"
if [ "${SHARDCC_GPU_PTX_JIT:-0}" = 1 ]; then
    # the kernels again from the wheel's PTX (TORCH_CUDA_ARCH_LIST with +PTX), JIT-compiled
    echo "== the same with CUDA_FORCE_PTX_JIT=1 (the kernels from the embedded PTX)"
    find "$WORK/site" -name '*.so' -exec cuobjdump --list-elf --list-ptx {} \; | sed 's/^/  /' || true
    CUDA_FORCE_PTX_JIT=1 PYTHONPATH="$WORK/site" python3 "$TOP/examples/torch-ext/tests/test_kernels.py" --device cuda --cpu-reference
fi
echo "== done: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
