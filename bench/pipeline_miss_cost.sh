#!/usr/bin/env bash
# pipeline_miss_cost: what reproducible objects cost (the nvcc seat running nvcc's own plan
# with its own temporary names, src/wrap/pipeline.h), side by side in one run.
#
#   bench/pipeline_miss_cost.sh [--build DIR] [--rounds R] [--hits K] [--out FILE]
#
# For one TU (a templated kernel file, 4 architectures, -O3, -MD -MF, as CMake calls nvcc):
#   miss:  the compile through the seat in the plain phase, reproducible (nvcc -dryrun, then
#          the steps), against the same nvcc call made directly; once with --threads 1 and
#          once with --threads 4
#   hit:   the seat in the link phase, reproducible, on a ccache hit, against `ccache nvcc`
#          on a hit of the same call with the same ccache settings (K calls each; ccache
#          does not run the compiler on a hit, so the pipeline should cost nothing here)
# in R rounds whose order reverses each round; reports medians and their ratios. Checks
# first that the seat's object is the same bytes twice and nvcc's up to temp names. Writes
# bench/results/pipeline_miss_cost.txt (or --out FILE). Exit 0 with the numbers, 1 on a
# wrong setup, 2 on a usage error. Defaults: R=5, K=20, --build is the build/ next to bench/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build" rounds=5 hits=20 out="$here/results/pipeline_miss_cost.txt"
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --hits) hits=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pipeline_miss_cost: unknown option $1" >&2; exit 2 ;;
    esac
done
build=$(cd "$build" && pwd) || exit 2
[ -x "$build/shardcc" ] || { echo "pipeline_miss_cost: no $build/shardcc (build first)" >&2; exit 2; }
export PATH="$build:$PATH"
nvcc=$(command -v nvcc) ccache=$(command -v ccache)
W=$(mktemp -d /tmp/shardcc-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/src" "$W/build"
cat >"$W/src/k.cu" <<'CU'
#include <cstdio>
template <int N, typename T> __device__ T f(T x) { return x * N + T(1); }
template <int N, typename T> __global__ void k(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = f<N>(x[i]) + sin(x[i]) * cos(x[i]);
}
template <typename T> void launch(T *x, int n)
{
    k<1, T><<<n, 128>>>(x, n); k<2, T><<<n, 128>>>(x, n); k<3, T><<<n, 128>>>(x, n);
    k<4, T><<<n, 128>>>(x, n); k<5, T><<<n, 128>>>(x, n); k<6, T><<<n, 128>>>(x, n);
}
template void launch<float>(float *, int);
template void launch<double>(double *, int);
CU
ARCH="-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 -gencode arch=compute_90,code=[sm_90,compute_90]"
cd "$W/build"
now() { date +%s%N; }
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# one compile, in ms: compile KIND THREADS
compile() {
    local t0 t1
    rm -f k.o k.o.d
    t0=$(now)
    # shellcheck disable=SC2086 # ARCH is several words
    if [ "$1" = seat ]; then
        (eval "$(shardcc env --root "$W" --plain)" && "$CUDACXX" --threads "$2" $ARCH -O3 -Xcompiler -fPIC -MD -MF k.o.d -c ../src/k.cu -o k.o)
    else
        "$nvcc" --threads "$2" $ARCH -O3 -Xcompiler -fPIC -MD -MF k.o.d -c ../src/k.cu -o k.o
    fi
    t1=$(now)
    echo $(((t1 - t0) / 1000000))
}
# the setup is right: the seat's object twice the same bytes, and nvcc's up to temp names
compile seat 1 >/dev/null && cp k.o seat1.o
compile seat 1 >/dev/null && cp k.o seat2.o
compile nvcc 1 >/dev/null && cp k.o nvcc.o
cmp -s seat1.o seat2.o || { echo "pipeline_miss_cost: two seat compiles differ" >&2; exit 1; }
shardcc compare seat1.o nvcc.o >/dev/null || { echo "pipeline_miss_cost: seat and nvcc objects differ beyond temp names" >&2; exit 1; }
: >"$W/m"
for r in $(seq 1 "$rounds"); do
    order="seat nvcc"
    [ $((r % 2)) = 0 ] && order="nvcc seat"
    for th in 1 4; do
        for k in $order; do echo "$k$th $(compile "$k" "$th")" >>"$W/m"; done
    done
done
# hits: per side, one subshell with the job's environment set once (as a build has it), a
# warm-up call that fills the cache, then K hits; the mean per call in microseconds
hits() { # hits seat|ccache
    (
        # shellcheck disable=SC2086 # ARCH is several words
        # the same ccache settings on both sides (shardcc env's), each its own cache
        eval "$(shardcc env --root "$W" --cache "$W/cache-$1")"
        if [ "$1" = seat ]; then
            set -- "$CUDACXX"
        else
            unset CCACHE_DISABLE # shardcc env sets it against the build's own launchers
            set -- "$ccache" "$nvcc"
        fi
        "$@" --threads 1 $ARCH -O3 -Xcompiler -fPIC -MD -MF k.o.d -c ../src/k.cu -o k.o
        t0=$(now)
        for _ in $(seq 1 "$hits"); do
            "$@" --threads 1 $ARCH -O3 -Xcompiler -fPIC -MD -MF k.o.d -c ../src/k.cu -o k.o
        done
        t1=$(now)
        echo $(((t1 - t0) / hits / 1000))
    )
}
for r in $(seq 1 "$rounds"); do
    order="seat ccache"
    [ $((r % 2)) = 0 ] && order="ccache seat"
    for k in $order; do echo "hit$k $(hits "$k")" >>"$W/m"; done
done
med() { awk -v k="$1" '$1 == k {print $2}' "$W/m" | median; }
{
    echo "== pipeline_miss_cost $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -m), $(nproc) cores"
    echo "$("$nvcc" --version | tail -1), $(shardcc --version), $("$ccache" --version | head -1)"
    echo "TU: a templated kernel file, 12 kernels, 4 architectures (sm_75, sm_80, sm_86, sm_90 + compute_90), -O3, -MD -MF; $rounds rounds"
    for th in 1 4; do
        s=$(med "seat$th") n=$(med "nvcc$th")
        printf 'miss, --threads %s: seat (plain phase, reproducible) %s ms, nvcc %s ms: ratio %.3f\n' "$th" "$s" "$n" "$(awk -v a="$s" -v b="$n" 'BEGIN {print a / b}')"
    done
    s=$(med hitseat) c=$(med hitccache)
    printf 'hit: seat (link phase, reproducible, journaled) %s us, ccache nvcc %s us: ratio %.3f\n' "$s" "$c" "$(awk -v a="$s" -v b="$c" 'BEGIN {print a / b}')"
} | tee "$out"
