#!/usr/bin/env bash
# On a GPU host (torch 2.x+cu13, nvcc 13, python; no registries): torchsort 0.1.10 from
# PyPI, as published, through `shardcc local -n N` (default 2) with default options, once
# on torch's ninja backend and once on its setuptools backend (a machine without ninja).
# Each time the link job's wheel is compared with the unsharded one, installed, and
# torchsort's own tests run against it on the GPU and the CPU. Their test_vs_original is
# deselected: its reference implementation (fast_soft_sort) is not on PyPI; a stand-in
# module lets the test file import.
# Needs .gpu/ from scripts/gpu-carry.sh and .gpu/pypi/ (the sdist and pytest's wheels:
# scripts/gpu-carry.sh --pypi).
#   scripts/gpu-pypi-check.sh [OUT_DIR]     writes OUT_DIR/gpu-pypi-check-BACKENDS.txt
#   SHARDCC_GPU_BACKENDS="ninja setuptools" the backends to run (default both)
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
OUTDIR=${1:-$TOP}
N=${SHARDCC_GPU_SHARDS:-2}
BACKENDS=${SHARDCC_GPU_BACKENDS:-ninja setuptools}
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/gpu-pypi-check-${BACKENDS// /-}.txt") 2>&1
[ -d .gpu/bin ] && [ -d .gpu/pypi ] ||
    { echo "gpu-pypi-check: .gpu/ is incomplete: run scripts/gpu-carry.sh --pypi first"; exit 2; }
rm -rf /tmp/shardcc-rt && cp -r .gpu/rt /tmp/shardcc-rt
export PATH="$TOP/.gpu/bin:$PATH"
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} MAX_JOBS=${MAX_JOBS:-$(nproc)}
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)'
echo "$(nvcc --version | tail -1); $(shardcc --version), $(ccache --version | head -1)"

WORK=$(mktemp -d /tmp/shardcc-pypi.XXXXXX)
python3 -m pip install -q --no-index --no-deps --target "$WORK/pytest" .gpu/pypi/*.whl
mkdir -p "$WORK/stand-in/fast_soft_sort"
: >"$WORK/stand-in/fast_soft_sort/__init__.py"
printf 'def soft_rank(*a, **k):\n    raise NotImplementedError("fast_soft_sort is not on PyPI")\n\nsoft_sort = soft_rank\n' \
    >"$WORK/stand-in/fast_soft_sort/pytorch_ops.py"
mkdir -p "$WORK/no-ninja"
printf '#!/bin/sh\necho "ninja: not installed" >&2\nexit 127\n' >"$WORK/no-ninja/ninja"
chmod +x "$WORK/no-ninja/ninja"
SDIST=$(ls .gpu/pypi/torchsort-*.tar.gz)
echo "sdist: $(basename "$SDIST") sha256 $(sha256sum "$SDIST" | cut -d' ' -f1)"

BUILD='rm -rf build dist *.egg-info && python3 -m pip wheel . --no-build-isolation --no-deps -q -w dist &&
       rm -rf "$OUT/wheel-${SHARDCC_PHASE:-plain}" && mkdir -p "$OUT/wheel-${SHARDCC_PHASE:-plain}" &&
       cp dist/*.whl "$OUT/wheel-${SHARDCC_PHASE:-plain}/"'
for backend in $BACKENDS; do
    B="$WORK/$backend"
    mkdir -p "$B" && tar -xzf "$SDIST" -C "$B" && mv "$B"/torchsort-* "$B/proj"
    rm -rf "$B/proj"/*.egg-info
    (
        cd "$B/proj"
        [ "$backend" = ninja ] || export PATH="$WORK/no-ninja:$PATH"
        echo "== torchsort, torch's $backend backend: shardcc local -n $N (no other options)"
        OUT="$B" shardcc local -n "$N" --clean 'rm -rf build dist *.egg-info' -- sh -c "$BUILD"
        echo "== shardcc compare: the link job's wheel against the unsharded wheel"
        shardcc compare "$B"/wheel-link/*.whl "$B"/wheel-plain/*.whl
        python3 -m pip install -q --no-deps --no-index --target "$B/site" "$B"/wheel-link/*.whl
        mkdir -p "$B/t" && cp tests/test_ops.py "$B/t/"
        echo "== torchsort's tests against the link job's wheel (GPU and CPU)"
        cd "$B/t"
        PYTHONPATH="$B/site:$WORK/pytest:$WORK/stand-in" python3 -m pytest -q -p no:cacheprovider \
            -k "not vs_original" test_ops.py
        # device0 is the CPU, device1 (and device2) the GPUs
        echo "the same, on the GPU only:"
        PYTHONPATH="$B/site:$WORK/pytest:$WORK/stand-in" python3 -m pytest -q -p no:cacheprovider \
            -k "not vs_original and not device0" test_ops.py
    )
done
echo "== done: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
