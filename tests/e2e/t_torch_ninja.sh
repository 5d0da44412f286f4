# A torch-style build.ninja (torch 2.11's writer: $nvcc -MD -MF $out.d $cuda_cflags -c $in
# -o $out $cuda_post_cflags, absolute paths, the shell-quoted '-fPIC') with shardcc-nvcc in
# the PYTORCH_NVCC seat and sharding off: it builds, every TU goes through ccache, a fresh
# build tree replays as direct hits, and the library equals the plain build's up to nvcc's
# per-run temp names. Shard builds of the same file succeed with exact stub/owned counts.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src include
printf '#pragma once\ntemplate <typename T> __device__ T twice(T x) { return x + x; }\n' >include/ops.h
for k in add mul relu; do
    cat >src/$k.cu <<CU
#include "ops.h"
template <typename T> __global__ void ${k}_kernel(T *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = twice(x[i]);
}
void ${k}_launch(float *x, int n) { ${k}_kernel<float><<<(n + 255) / 256, 256>>>(x, n); }
void ${k}_launch(double *x, int n) { ${k}_kernel<double><<<(n + 255) / 256, 256>>>(x, n); }
CU
done
printf 'int ext_version(void) { return 1; }\n' >src/host.cpp

write_ninja() { # write_ninja BUILD_DIR NVCC
    local b=$1 nv=$2
    mkdir -p "$b"
    cat >"$b/build.ninja" <<NINJA
ninja_required_version = 1.3
cxx = c++
nvcc = $nv
cflags = -fPIC -O2 -I$T/include
post_cflags = -DTORCH_EXTENSION_NAME=ext -std=c++17
cuda_cflags = -DTORCH_API_INCLUDE_EXTENSION_H -I$T/include -I/usr/local/cuda/include
cuda_post_cflags = -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ --expt-relaxed-constexpr --compiler-options ''"'"'-fPIC'"'"'' -O2 -gencode=arch=compute_90,code=sm_90 -DTORCH_EXTENSION_NAME=ext -std=c++17
ldflags = -shared -Wl,--build-id=none -L/usr/local/cuda/lib64 -lcudart

rule compile
  command = \$cxx -MMD -MF \$out.d \$cflags -c \$in -o \$out \$post_cflags
  depfile = \$out.d
  deps = gcc

rule cuda_compile
  depfile = \$out.d
  deps = gcc
  command = \$nvcc -MD -MF \$out.d \$cuda_cflags -c \$in -o \$out \$cuda_post_cflags

rule link
  command = \$cxx \$in \$ldflags -o \$out

build $b/temp/add.o: cuda_compile $T/src/add.cu
build $b/temp/mul.o: cuda_compile $T/src/mul.cu
build $b/temp/relu.o: cuda_compile $T/src/relu.cu
build $b/temp/host.o: compile $T/src/host.cpp
build $b/ext.so: link $b/temp/add.o $b/temp/mul.o $b/temp/relu.o $b/temp/host.o
NINJA
}

write_ninja "$T/plain" /usr/local/cuda/bin/nvcc
ninja -C "$T/plain" >/dev/null
ok "plain build"

eval "$(shardcc env --root "$T")" # the link phase: cache everything, stub nothing
export CCACHE_STATSLOG="$T/stats.log"
write_ninja "$T/w1" "$PYTORCH_NVCC"
ninja -C "$T/w1" >/dev/null
ok "build with shardcc-nvcc in the seat"
expect_eq "journal: 3 cached TU compiles" "$(journal_count "$SHARDCC_JOURNAL" tu cache 0)" "3"
expect_eq "journal: no stubs" "$(journal_count "$SHARDCC_JOURNAL" tu stub)" "0"
expect_eq "ccache misses" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "3"
same_masked "seat build vs plain build (ext.so)" "$T/w1/ext.so" "$T/plain/ext.so"

: >"$CCACHE_STATSLOG"
write_ninja "$T/w2" "$PYTORCH_NVCC" # a fresh build tree: the outputs' paths differ, not the sources'
ninja -C "$T/w2" >/dev/null
expect_eq "fresh tree: direct hits" "$(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "3"
expect_eq "fresh tree: misses" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "0"
for o in add mul relu; do
    cmp -s "$T/w1/temp/$o.o" "$T/w2/temp/$o.o" || fail "$o.o: the hit differs from the miss"
done
ok "replayed objects are the first build's bytes"
same_masked "replayed build vs plain build (ext.so)" "$T/w2/ext.so" "$T/plain/ext.so"

# the same build.ninja as shards 1..3 of 3: every TU owned by exactly one shard
total_owned=0
for i in 1 2 3; do
    rm -f "$SHARDCC_JOURNAL"
    eval "$(shardcc env --root "$T" --shard $i/3)"
    write_ninja "$T/s$i" "$PYTORCH_NVCC"
    ninja -C "$T/s$i" >/dev/null
    owned=$(journal_count "$SHARDCC_JOURNAL" tu cache 0)
    stubbed=$(journal_count "$SHARDCC_JOURNAL" tu stub 0)
    expect_eq "shard $i/3: owned + stubbed" "$((owned + stubbed))" "3"
    total_owned=$((total_owned + owned))
done
expect_eq "each TU owned by exactly one shard" "$total_owned" "3"
summary
