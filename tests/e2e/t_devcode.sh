# Device-code-only outputs (nvcc -fatbin/-ptx/-cubin) through shards and the link job: never
# stubbed, made in every shard, kept in the seat's store (D entries of the artifact), hits
# in the link job with the same bytes and a depfile that names the header; a changed header
# is a miss, never a stale hit.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src proj/include && cd proj
printf '#define SCALE 2.0f\n' >include/scale.h
cat >src/k.cu <<'CU'
#include "scale.h"
extern "C" __global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE;
}
CU
cat >src/host.cu <<'CU'
__global__ void touch(int *p) { *p = 1; }
void launch(int *p) { touch<<<1, 1>>>(p); }
CU
# a build of three steps: a fatbin with a depfile, a PTX file, one ordinary TU
cat >build.sh <<'SH'
set -e
mkdir -p out
"$CUDACXX" -fatbin -arch=sm_90 -Iinclude -MD -MT out/k.fatbin -MF out/k.fatbin.d src/k.cu -o out/k.fatbin
"$CUDACXX" -ptx -arch=sm_90 -Iinclude src/k.cu -o out/k.ptx
"$CUDACXX" -c src/host.cu -o out/host.o
SH
CUDACXX=nvcc sh build.sh && mv out plain
ok "unsharded build"

mkdir ../art
for i in 1 2; do
    rm -rf out
    shardcc shard --shard "$i/2" --cell dev --artifact ../art -- sh build.sh 2>"$T/shard.err" ||
        fail "shard $i/2: $(cat "$T/shard.err")"
    j=.shardcc/shard-$i-of-2/journal.tsv
    expect_eq "shard $i/2: device-code outputs made" "$(journal_count "$j" tu device 0)" "2"
    cmp -s out/k.fatbin plain/k.fatbin || [ -s out/k.fatbin ] || fail "shard $i/2: k.fatbin is empty"
    grep -q "include/scale.h" out/k.fatbin.d || fail "shard $i/2: the depfile lacks the header"
    expect_eq "shard $i/2: D entries in the artifact (2 outputs, their 2 manifests)" \
        "$(tar --zstd -tf "../art/shard-dev-$i-of-2.tar.zst" | grep -c 'D$')" "4"
done
grep -q "2 device-code outputs (made in every shard)" "$T/shard.err" ||
    fail "the shard's summary does not count them: $(cat "$T/shard.err")"
ok "the shard's summary counts the device-code outputs"

rm -rf out
shardcc link --artifacts ../art --expect-shards 2 -- sh build.sh >"$T/link.out" 2>&1 ||
    fail "link job: $(cat "$T/link.out")"
grep -qF "hit rate 100.0% (3/3 TUs, 2 of them device-code outputs), 0 stubs, 2/2 shards" "$T/link.out" ||
    fail "link job: $(tail -3 "$T/link.out")"
ok "link job: 3/3 hits, 2 of them device-code outputs"
cmp -s out/k.fatbin plain/k.fatbin && cmp -s out/k.ptx plain/k.ptx ||
    fail "link job: the stored outputs differ from the unsharded build's"
ok "link job: k.fatbin and k.ptx are the unsharded build's bytes"
grep -q "include/scale.h" out/k.fatbin.d && grep -q "^out/k.fatbin:" out/k.fatbin.d ||
    fail "link job: the depfile of a hit: $(cat out/k.fatbin.d)"
ok "link job: the hit's depfile names its target and the header"
expect_eq "summary.json: device" \
    "$(python3 -c 'import json; print(json.load(open(".shardcc/link/summary.json"))["device"])')" "2"
# The store's manifest gave the link job the key without the dependency run (nvcc -M, the
# host preprocessor): a hit costs less than a third of that run alone.
m=$(grep -rl "^key $(awk -F'\t' '$1 == "SCJ2" && $8 == "device" {print $15; exit}' .shardcc/link/journal.tsv)" .shardcc/link/cache)
[ -n "$m" ] && grep -q "^dep [0-9a-f]\{64\} .*include/scale.h$" "$m" ||
    fail "no manifest names the hit's key and the header: $(ls -R .shardcc/link/cache)"
ok "the store holds the manifest of the hit: its key and the header"
dep_ms=$(python3 - <<'PY'
import subprocess, time
best = 1e9
for _ in range(3):
    t = time.monotonic()
    subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-Iinclude", "-M", "-MF", "/dev/null", "src/k.cu"], check=True)
    best = min(best, time.monotonic() - t)
print(int(best * 1000))
PY
)
hit_ms=$(awk -F'\t' '$1 == "SCJ2" && $8 == "device" && $10 > m {m = $10} END {print int(m / 1000)}' .shardcc/link/journal.tsv)
[ $((hit_ms * 3)) -lt "$dep_ms" ] ||
    fail "a hit took ${hit_ms} ms, the dependency run alone ${dep_ms} ms: was the manifest used?"
ok "a hit takes ${hit_ms} ms, the dependency run alone ${dep_ms} ms (the manifest spared it)"

# the key follows the header: a changed header is a miss (and the new bytes), not a hit
printf '#define SCALE 3.0f\n' >include/scale.h
rm -rf out
shardcc link --artifacts ../art --expect-shards 2 --min-hit-rate 0 -- sh build.sh >"$T/link.out" 2>&1 ||
    fail "link job after a header change: $(cat "$T/link.out")"
grep -qF "miss: src/k.cu (miss)" "$T/link.out" || fail "no miss after the header changed: $(cat "$T/link.out")"
grep -qF "hit rate 33.3% (1/3 TUs, 2 of them device-code outputs)" "$T/link.out" ||
    fail "after a header change: $(tail -3 "$T/link.out")"
ok "a changed header misses the store"
CUDACXX=nvcc sh -c 'mkdir -p fresh && nvcc -fatbin -arch=sm_90 -Iinclude src/k.cu -o fresh/k.fatbin'
cmp -s out/k.fatbin fresh/k.fatbin || fail "after a header change: k.fatbin is not the new code"
ok "after a header change: k.fatbin is the new code"
summary
