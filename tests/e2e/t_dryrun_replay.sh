# nvcc -dryrun's plan, parsed (src/wrap/dryrun.c) and run step by step by
# tests/tools/dryrun_replay, makes nvcc's own outputs: with --objdir-as-tempdir the same
# bytes as `nvcc` itself for every option mix below, without it the same up to nvcc's temp
# names; ptxas's -v report reaches stderr unchanged. This is what lets the seat run nvcc's
# pipeline itself (src/wrap/pipeline.h): the parse holds every step, file and environment
# variable.
. "$(dirname "$0")/lib.sh"
: "${SHARDCC_TEST_TOOLS:?SHARDCC_TEST_TOOLS must name the directory holding dryrun_replay}"
replay=$SHARDCC_TEST_TOOLS/dryrun_replay
cd "$T"
mkdir -p src obj "inc dir"
printf '#define SCALE 3\n' >"inc dir/scale.h"
cat >src/k.cu <<'CU'
#include <cstdio>
#include "scale.h"
template <int N> __device__ float f(float x) { return x * N + 1.0f; }
template <int N> __global__ void k(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = f<N>(x[i]) + sinf(x[i]);
}
__device__ int counter;
__global__ void hello() { printf(MSG " %d\n", atomicAdd(&counter, 1)); }
void launch(float *x, int n)
{
    k<SCALE><<<(n + 127) / 128, 128>>>(x, n);
    k<5><<<(n + 127) / 128, 128>>>(x, n);
    hello<<<1, 1>>>();
}
CU
# shellcheck disable=SC2054 # the commas are nvcc's
G=(-gencode arch=compute_80,code=sm_80 -gencode "arch=compute_90,code=[sm_90,compute_90]")
base=(-I"inc dir" '-DMSG="hi there"' -Xcompiler -fPIC)

# replay MIX OUT ARGS...: nvcc ARGS -o OUT, kept as OUT.ref; then the replay of
# nvcc -dryrun ARGS -o OUT, which writes OUT again. Their stderrs in OUT.err.{ref,replay}.
replay() {
    local mix=$1 out=$2
    shift 2
    nvcc "$@" -o "$out" 2>"$out.err.ref" || fail "$mix: nvcc failed: $(cat "$out.err.ref")"
    mv "$out" "$out.ref"
    nvcc -dryrun "$@" -o "$out" 2>"$out.plan" || fail "$mix: nvcc -dryrun failed"
    "$replay" "$out.plan" 2>"$out.err.replay" || fail "$mix: the replay failed: $(cat "$out.err.replay")"
    [ -s "$out" ] || fail "$mix: the replay wrote no $out"
}

# shellcheck disable=SC2086 # "${G[@]}" is several words on purpose
{
    n=0
    for mix in "" "-G" "-lineinfo" "-rdc=true" "--threads 2" "-O3 --use_fast_math" \
        "-std=c++17 -Xcompiler -O2,-Wall"; do
        n=$((n + 1))
        # shellcheck disable=SC2206 # the mix is several words
        args=(--objdir-as-tempdir $mix "${G[@]}" "${base[@]}" -c src/k.cu)
        replay "mix $n (${mix:-no option})" obj/k$n.o "${args[@]}"
        cmp -s obj/k$n.o.ref obj/k$n.o || fail "${mix:-no option}: the replayed object differs from nvcc's"
        ok "--objdir-as-tempdir ${mix:-(no option)}: the replayed object is nvcc's, byte for byte"
    done

    # ptxas -v: the report reaches stderr as nvcc prints it
    replay "-Xptxas -v" obj/v.o --objdir-as-tempdir -Xptxas -v "${G[@]}" "${base[@]}" -c src/k.cu
    cmp -s obj/v.o.ref obj/v.o || fail "-Xptxas -v: objects differ"
    grep -q "ptxas info *: Used [0-9]* registers" obj/v.o.err.ref || fail "nvcc printed no ptxas report"
    # (ptxas times itself: "Compile time = 4.976 ms" is the one part that differs)
    for f in ref replay; do sed 's/Compile time = [0-9.]* ms/Compile time = T ms/' obj/v.o.err.$f >v.$f; done
    diff v.ref v.replay >/dev/null || fail "-Xptxas -v: stderr differs: $(diff v.ref v.replay | head -5)"
    ok "-Xptxas -v: the object and ptxas's report ($(grep -c 'ptxas info' v.ref) lines, times aside) are nvcc's"

    # device code only: -fatbin and -ptx
    replay "-fatbin" obj/k.fatbin --objdir-as-tempdir -fatbin "${G[@]}" "${base[@]}" src/k.cu
    cmp -s obj/k.fatbin.ref obj/k.fatbin || fail "-fatbin: the replayed fatbin differs"
    ok "-fatbin: the replayed fatbin is nvcc's, byte for byte"
    replay "-ptx" obj/k.ptx -ptx -arch=sm_90 "${base[@]}" src/k.cu
    cmp -s obj/k.ptx.ref obj/k.ptx || fail "-ptx: the replayed PTX differs"
    ok "-ptx: the replayed PTX is nvcc's"

    # without --objdir-as-tempdir the names are tmpxft_<pid>_<counter>: the same up to them
    replay "tmpxft" obj/t.o "${G[@]}" "${base[@]}" -c src/k.cu
    cmp -s obj/t.o.ref obj/t.o && fail "tmpxft: identical objects from two pids: the check below would prove nothing"
    shardcc compare obj/t.o.ref obj/t.o >cmp.out || fail "tmpxft: $(cat cmp.out)"
    ok "without --objdir-as-tempdir: $(cat cmp.out)"

    # -dlink over -rdc objects
    replay "-dlink" obj/dl.o -dlink -gencode arch=compute_90,code=sm_90 obj/k4.o
    shardcc compare obj/dl.o.ref obj/dl.o >cmp.out || fail "-dlink: $(cat cmp.out)"
    ok "-dlink: $(cat cmp.out)"
}

# the replay's items: what a split would give each shard
nvcc -dryrun --objdir-as-tempdir "${G[@]}" "${base[@]}" -c src/k.cu -o obj/i.o 2>i.plan
"$replay" --items i.plan >items.txt
grep -qx "item compute_80 \[sm_80\]: device-cpp cicc ptxas" items.txt || fail "items: $(cat items.txt)"
grep -qx "item host: host-cpp cudafe++ fatbinary host-cc" items.txt || fail "items: $(cat items.txt)"
ok "items of a two-architecture TU: $(grep -c '^item' items.txt)"

# an nvcc message in the plan is not a step: the replay refuses it (exit 2), naming it
nvcc -dryrun -arch=native "${base[@]}" -c src/k.cu -o obj/n.o 2>n.plan || true
if grep -q "Cannot find valid GPU" n.plan; then
    expect_fail 2 "not a step (nvcc printed a message): nvcc warning : Cannot find valid GPU" "$replay" n.plan
else
    ok "-arch=native resolved to this machine's GPU: no warning to refuse ($(grep -o 'arch=sm_[0-9a-z]*' n.plan | head -1))"
fi
summary
