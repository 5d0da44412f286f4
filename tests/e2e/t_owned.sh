# An owned TU goes through ccache: a miss, then a direct hit that returns exactly the bytes
# of the miss, and both equal plain nvcc's object up to nvcc's per-run temp names. The
# long depfile forms, which ccache 4.7.5 cannot cache as written, are cached once the
# wrapper respells them; NVCC_*_FLAGS are part of the key once folded into argv.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src build plain
cat >src/a.cu <<'CU'
#include "common.h"
template <int N> __global__ void scale(float *x) { x[threadIdx.x] *= N * FACTOR; }
void launch(float *x) { scale<3><<<1, 32>>>(x); }
CU
printf '#define FACTOR 2\n' >src/common.h
flags=(-O2 -gencode=arch=compute_90,code=sm_90 --compiler-options -fPIC)

(cd plain && nvcc "${flags[@]}" -MD -MF a.o.d -c ../src/a.cu -o a.o)
eval "$(shardcc env --root . --shard 2/2)" # src/a.cu is owned by shard 2 of 2
export CCACHE_STATSLOG="$T/stats.log"
cd build
shardcc-nvcc "${flags[@]}" -MD -MF a.o.d -c ../src/a.cu -o a.o
cp a.o a.o.miss
expect_eq "first call: cache miss" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "1"
rm -f a.o a.o.d
shardcc-nvcc "${flags[@]}" -MD -MF a.o.d -c ../src/a.cu -o a.o
expect_eq "second call: direct hit" "$(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "1"
cmp -s a.o a.o.miss || fail "the hit returned other bytes than the miss"
ok "hit bytes = miss bytes"
{ [ -s a.o.d ] && grep -q 'common.h' a.o.d; } || fail "the hit restored the depfile"
ok "the hit restored the depfile"
same_masked "cached object vs plain nvcc" a.o ../plain/a.o
expect_eq "journal: two cached TU compiles" "$(journal_count "$SHARDCC_JOURNAL" tu cache 0)" "2"

# long-form depfile flags: plain ccache counts these as errors and caches nothing
: >"$CCACHE_STATSLOG"
for i in 1 2; do
    rm -f l.o l.o.d
    shardcc-nvcc "${flags[@]}" -O1 --generate-dependencies-with-compile --dependency-output l.o.d -c ../src/a.cu -o l.o
done
expect_eq "long forms: preprocessor errors" "$(statslog_count "$CCACHE_STATSLOG" preprocessor_error)" "0"
expect_eq "long forms: first call is a miss" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "1"
expect_eq "long forms: second call is a hit" "$(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "1"

# NVCC_APPEND_FLAGS is folded into argv: ccache never hashes that variable, so without
# the fold a build that differs only there would get another build's object
rm -f a.o
shardcc-nvcc "${flags[@]}" -c ../src/a.cu -o a.o
: >"$CCACHE_STATSLOG"
rm -f a.o
NVCC_APPEND_FLAGS='-O1' shardcc-nvcc "${flags[@]}" -c ../src/a.cu -o a.o
expect_eq "folded NVCC_APPEND_FLAGS: not another build's hit" "$(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "0"
expect_eq "folded NVCC_APPEND_FLAGS: a miss" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "1"
rm -f a.o
NVCC_APPEND_FLAGS='-O1' shardcc-nvcc "${flags[@]}" -c ../src/a.cu -o a.o
expect_eq "the same folded flags hit" "$(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "1"

# a header change is a miss (ccache's own input tracking still works through the seat)
: >"$CCACHE_STATSLOG"
printf '#define FACTOR 5\n' >../src/common.h
rm -f a.o
shardcc-nvcc "${flags[@]}" -MD -MF a.o.d -c ../src/a.cu -o a.o
expect_eq "header change: a miss" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "1"

# -ccbin naming a host compiler the fingerprint does not cover: ccache hashes it too
# (with compiler_check=string: it hashes nothing of it), so another one is a miss
mkdir -p ../hostbin
printf '#!/bin/sh\nexec g++ "$@"\n' >../hostbin/g++
printf '#!/bin/sh\nexec gcc "$@"\n' >../hostbin/gcc
chmod +x ../hostbin/g++ ../hostbin/gcc
: >"$CCACHE_STATSLOG"
for i in 1 2; do
    rm -f c.o
    shardcc-nvcc "${flags[@]}" -ccbin "$T/hostbin/g++" -c ../src/a.cu -o c.o
done
expect_eq "-ccbin of its own: a miss, then a hit" \
    "$(statslog_count "$CCACHE_STATSLOG" cache_miss) $(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "1 1"
printf '#!/bin/sh\n# another host compiler at the same path\nexec g++ -DHOST_B "$@"\n' >../hostbin/g++
rm -f c.o
shardcc-nvcc "${flags[@]}" -ccbin "$T/hostbin/g++" -c ../src/a.cu -o c.o
expect_eq "-ccbin: another host compiler at the same path is a miss, not the other's hit" \
    "$(statslog_count "$CCACHE_STATSLOG" cache_miss) $(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "2 1"
# were that compiler taken as covered, a changed one would get the other's object
for v in C D; do
    printf '#!/bin/sh\n# host compiler %s\nexec g++ -DHOST_%s "$@"\n' $v $v >../hostbin/g++
    rm -f c.o
    SHARDCC_HOST_COVERED="$SHARDCC_HOST_COVERED:$T/hostbin/g++" \
        shardcc-nvcc "${flags[@]}" -ccbin "$T/hostbin/g++" -c ../src/a.cu -o c.o
done
expect_eq "(the same, were it taken as covered: the other's object, a hit)" \
    "$(statslog_count "$CCACHE_STATSLOG" cache_miss) $(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "3 2"
rm -f c.o
shardcc-nvcc "${flags[@]}" --compiler-bindir="$T/hostbin" -c ../src/a.cu -o c.o
expect_eq "--compiler-bindir=DIR: a miss (its g++ and gcc hashed)" \
    "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "4"
printf '#!/bin/sh\n# a fourth one\nexec gcc -DHOST_D "$@"\n' >../hostbin/gcc
rm -f c.o
shardcc-nvcc "${flags[@]}" --compiler-bindir="$T/hostbin" -c ../src/a.cu -o c.o
expect_eq "--compiler-bindir=DIR: its gcc is hashed too (changed: a miss)" \
    "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "5"
: >"$CCACHE_STATSLOG"
for i in 1 2; do
    rm -f c.o
    CCACHE_EXTRAFILES= shardcc-nvcc "${flags[@]}" -ccbin "$(command -v g++)" -c ../src/a.cu -o c.o
done
# (ccache hashes no -ccbin argument: with the covered g++ it is the default host
# compiler's entry, made above by the call without -ccbin)
expect_eq "-ccbin naming the covered g++: the entry of the default host compiler" \
    "$(statslog_count "$CCACHE_STATSLOG" cache_miss) $(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "0 2"

# a compile error passes nvcc's status through, and is journaled
printf '__global__ void broken( {}\n' >../src/bad.cu
rc=0
SHARDCC_PHASE=link shardcc-nvcc -c ../src/bad.cu -o bad.o 2>/dev/null || rc=$?
prc=0
nvcc -c ../src/bad.cu -o bad.o 2>/dev/null || prc=$?
expect_eq "compile error status passed through" "$rc" "$prc"
[ "$rc" != 0 ] || fail "a broken TU compiled"
expect_eq "journal records the failure" "$(awk -F'\t' -v s="$rc" '$12 == "src/bad.cu" && $9 == s' "$SHARDCC_JOURNAL" | wc -l)" "1"
summary
