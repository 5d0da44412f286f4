# shardcc explain and the link job's explanation of its misses: a header changed between the
# shards and the link job (same arguments: "an input differed"), a TU no shard compiled, and
# the standalone command over the link job's journal. Real nvcc and ccache, 3 small TUs.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src proj/include
cd proj
printf '#pragma once\n#define FACTOR 2\n' >include/k.h
for k in add mul; do
    printf '#include "k.h"\n__global__ void %s_k(float *x) { x[threadIdx.x] *= FACTOR; }\nvoid %s(float *x) { %s_k<<<1, 32>>>(x); }\n' $k $k $k >src/$k.cu
done
cat >build.sh <<'SH'
#!/bin/sh
set -e
rm -rf build && mkdir build
for f in src/*.cu; do
    "$CUDACXX" -I"$PWD/include" -O2 -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC -c "$PWD/$f" -o "build/$(basename "$f" .cu).o"
done
SH
chmod +x build.sh
mkdir ../art
for i in 1 2; do
    shardcc shard --shard $i/2 --cell ex --artifact ../art -- ./build.sh 2>/dev/null || fail "shard $i/2"
done
manifest_argv=$(for i in 1 2; do tar --zstd -xOf ../art/shard-ex-$i-of-2.tar.zst manifest.json; done |
    python3 -c 'import json,sys
d = json.JSONDecoder(); s = sys.stdin.read(); n = 0; i = 0
while i < len(s):
    m, i = d.raw_decode(s, i)
    while i < len(s) and s[i].isspace(): i += 1
    n += sum(1 for t in m["tus"] if t["decision"] == "owned" and "-O2" in t.get("argv", []))
print(n)')
expect_eq "the manifests record each owned TU's arguments" "$manifest_argv" "2"

# the header changes after the shards ran: same arguments, other input
printf '#pragma once\n#define FACTOR 3\n' >include/k.h
expect_fail 3 "below the minimum" shardcc link --artifacts ../art --expect-shards 2 -- ./build.sh
for k in add mul; do
    grep -q "explain: src/$k.cu (miss): the same arguments and toolchain as its owner, shard [12]/2: an input differed" "$T/.err" ||
        fail "src/$k.cu: $(cat "$T/.err")"
done
ok "a changed header: each miss explained as an input difference"
shardcc explain --artifacts ../art >"$T/ex.out" 2>"$T/ex.err" || fail "explain: $(cat "$T/ex.err")"
expect_eq "shardcc explain: one line per miss" "$(grep -c 'an input differed' "$T/ex.out")" "2"

# a TU only the link build compiles
printf '#pragma once\n#define FACTOR 2\n' >include/k.h
printf '__global__ void relu_k(float *x) { x[threadIdx.x] = x[threadIdx.x] > 0 ? x[threadIdx.x] : 0; }\n' >src/relu.cu
shardcc link --min-hit-rate 0 --artifacts ../art --expect-shards 2 -- ./build.sh 2>"$T/l.err" || fail "$(cat "$T/l.err")"
shardcc explain --artifacts ../art >"$T/ex.out" 2>&1 || fail "explain: $(cat "$T/ex.out")"
grep -q "explain: src/relu.cu (miss): no shard owned it" "$T/ex.out" || fail "$(cat "$T/ex.out")"
ok "a TU no shard compiled: explained as such"
expect_eq "the other TUs hit again" "$(grep -c '^explain:' "$T/ex.out")" "1"
expect_fail 4 "is empty or missing" shardcc explain --artifacts ../art --journal "$T/none.tsv"
summary
