#!/usr/bin/env bash
# Records what `nvcc -dryrun` prints for the option mixes that tests/unit/test_dryrun.c pins,
# into tests/dryrun/nvcc-<version>/<mix>.txt (stdout and stderr together, as the seat reads
# them). Usage: tests/dryrun/record.sh [NVCC]   (default: nvcc on PATH)
# The recordings are made in a scratch directory /tmp/dr, so that the source's absolute path
# (cicc's --orig_src_path_name) is the same in every recording.
set -euo pipefail
nvcc=${1:-nvcc}
here=$(cd "$(dirname "$0")" && pwd)
ver=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
out=$here/nvcc-$ver
mkdir -p "$out" /tmp/dr
cd /tmp/dr
printf '__global__ void k(int *p) { p[0] = 1; }\nint main() { return 0; }\n' >a.cu
G="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
rec() {
    local name=$1
    shift
    "$nvcc" -dryrun "$@" >"$out/$name.txt" 2>&1
    echo "$name: nvcc -dryrun $*"
}
# shellcheck disable=SC2086 # $G is several words on purpose
{
    rec base -c a.cu -o a.o
    rec gencode $G -c a.cu -o a.o
    rec G -G $G -c a.cu -o a.o
    rec lineinfo -lineinfo $G -c a.cu -o a.o
    rec rdc -rdc=true $G -c a.cu -o a.o
    rec threads --threads 4 $G -c a.cu -o a.o
    rec xptxas -Xptxas -v,-O2 $G -c a.cu -o a.o
    rec ptxonly -gencode arch=compute_90,code=compute_90 -c a.cu -o a.o
    rec twocode -gencode 'arch=compute_80,code=[sm_80,sm_86]' -c a.cu -o a.o
    rec native -arch=native -c a.cu -o a.o
    rec objtemp --objdir-as-tempdir $G -c a.cu -o obj/a.o
    rec quoting '-DMSG="a b"' '-DQ="x"' '-I/tmp/dir with space' -Xcompiler -fPIC,-O2 -O3 \
        --use_fast_math -std=c++17 $G -c a.cu -o a.o
    rec ccbin -ccbin g++ $G -c a.cu -o a.o
    rec dlink -dlink -gencode arch=compute_90,code=sm_90 a.o -o dl.o
    rec archall -arch=all -c a.cu -o a.o
    rec fatbin -fatbin $G a.cu -o a.fatbin
    rec ptx -ptx -arch=sm_90 a.cu -o a.ptx
    rec sm90a -gencode arch=compute_90a,code=sm_90a -c a.cu -o a.o
    rec keep -keep $G -c a.cu -o a.o
} >"$out/README"
