# Split TUs (docs/shardcc-wrap.md, SPLIT TUS): with --split-archs 4 (SHARDCC_SPLIT_ARCHS), a TU built for 4
# real architectures or more has its device
# items (one per virtual architecture: device preprocessor, cicc, ptxas) owned by different
# shards; each owner keeps its items in the seat's store, and the link job assembles the
# object from them (cudafe++, fatbinary, the host compile). A CMake project shaped like a real
# one: a shared library whose heavy TU is built for sm_80, sm_86, sm_89 and sm_90 plus
# compute_90 PTX, a separable-compilation (-rdc, device-linked) library for the same
# architectures, a TU under --threads 2, a light TU for sm_90 alone (never split) and an
# executable over all of them.
# - shardcc local at N = 1, 3 and 7: the link job's products (objects, libraries, the
#   executable) are the unsharded build's byte for byte (compare --exact), every split TU is
#   assembled with all of its items from the store (a hit), and the light one a ccache hit;
# - at N = 3 the items of one TU are owned by more than one shard, the shards' manifests say
#   "split" with each item's owner, outcome and seconds, and an item's entry is in the
#   artifact of its owner only;
# - the default splits nothing, but times each device item of a whole compile, so that a plan
#   made from such shards splits the heavy TU; a bad SHARDCC_SPLIT_ARCHS is refused (exit 2);
# - guards: an item removed from its owner's artifact makes the link job miss that TU, named
#   with the item (exit 3), and still build it right; a shard whose stored items vanish from
#   its cache fails the shard guard (exit 3), naming KEY#ITEM.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src
cd proj
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.24)
project(split LANGUAGES CXX CUDA)
set(ARCHS 80-real 86-real 89-real 90)
add_library(heavy SHARED src/heavy.cu src/threads.cu)
set_target_properties(heavy PROPERTIES CUDA_ARCHITECTURES "${ARCHS}")
set_source_files_properties(src/threads.cu PROPERTIES COMPILE_OPTIONS --threads=2)
add_library(rdc STATIC src/rdc_a.cu src/rdc_b.cu)
set_target_properties(rdc PROPERTIES CUDA_ARCHITECTURES "${ARCHS}" CUDA_SEPARABLE_COMPILATION ON
  POSITION_INDEPENDENT_CODE ON)
add_library(light SHARED src/light.cu)
set_target_properties(light PROPERTIES CUDA_ARCHITECTURES 90)
add_executable(app src/main.cu)
set_target_properties(app PROPERTIES CUDA_ARCHITECTURES "${ARCHS}" CUDA_SEPARABLE_COMPILATION ON)
target_link_libraries(app heavy rdc light)
CM
for n in heavy threads; do
    cat >src/$n.cu <<CU
template <int N> __global__ void ${n}_k(float *x) {
  float a = x[threadIdx.x];
#pragma unroll
  for (int i = 0; i < N; i++) a = a * 1.0001f + __sinf(a);
  x[threadIdx.x] = a;
}
static __device__ float ${n}_scale = 2;
void ${n}_launch(float *x) { ${n}_k<16><<<1, 32>>>(x); ${n}_k<32><<<1, 32>>>(x); }
CU
done
cat >src/rdc_a.cu <<'CU'
__device__ float rdc_twice(float v);
__global__ void rdc_k(float *x) { x[threadIdx.x] = rdc_twice(x[threadIdx.x]); }
void rdc_launch(float *x) { rdc_k<<<1, 32>>>(x); }
CU
printf '__device__ float rdc_twice(float v) { return 2 * v; }\n' >src/rdc_b.cu
printf '__global__ void light_k(int *x) { x[threadIdx.x] += 1; }\nvoid light_launch(int *x) { light_k<<<1, 32>>>(x); }\n' >src/light.cu
cat >src/main.cu <<'CU'
void heavy_launch(float *); void threads_launch(float *); void rdc_launch(float *);
void light_launch(int *);
int main(int argc, char **) {
  if (argc > 5) { heavy_launch(nullptr); threads_launch(nullptr); rdc_launch(nullptr); light_launch(nullptr); }
  return 0;
}
CU
BUILD='rm -rf build && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null'
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp
# the hash split of every TU of 4 real architectures or more (without it only a plan splits)
export SHARDCC_SPLIT_ARCHS=4

SPLIT_KEYS="src/heavy.cu src/threads.cu src/rdc_a.cu src/rdc_b.cu src/main.cu"
for n in 3 1 7; do
    shardcc local -n $n --cell split --clean 'rm -rf build' --compare build -- sh -c "$BUILD" \
        >"$T/local$n.out" 2>&1 ||
        fail "shardcc local -n $n: $(tail -20 "$T/local$n.out")
link log: $(tail -30 .shardcc/local/logs/link.log 2>&1)"
    grep -q "byte for byte" "$T/local$n.out" || fail "N=$n: no exact comparison: $(tail "$T/local$n.out")"
    ok "N=$n: $(grep -o 'the same as the unsharded build.*' "$T/local$n.out")"
    J=.shardcc/link/journal.tsv
    for k in $SPLIT_KEYS; do
        got=$(awk -F'\t' -v k="$k" '$1 == "SCJ2" && $7 == "tu" && $12 == k {print $8 "/" $14}' $J)
        expect_eq "N=$n link job: $k" "$got" "split/assembled"
    done
    got=$(awk -F'\t' '$1 == "SCJ2" && $12 == "src/light.cu" {print $8 "/" $14}' $J)
    expect_eq "N=$n link job: src/light.cu (one architecture: not split)" "$got" "cache/hit"
    # every item of every split TU came from the store
    expect_eq "N=$n link job: items not from the store" \
        "$(awk -F'\t' '$1 == "SCP1" && $3 == "item" && $7 != "hit"' $J | wc -l)" 0
    grep -q "hit rate 100.0%" "$T/local$n.out" || fail "N=$n: hit rate: $(grep 'hit rate' "$T/local$n.out")"
    ok "N=$n: hit rate 100%"
    if [ $n = 3 ]; then
        # the items of heavy.cu (4 of them) have more than one owner among the shards
        owners=$(cat .shardcc/shard-*-of-3/journal.tsv |
            awk -F'\t' '$1 == "SCP1" && $2 == "src/heavy.cu" && $3 == "item" {print $6}' | sort -u | wc -l)
        [ "$owners" -ge 2 ] || fail "heavy.cu's items have $owners owner(s) at N=3"
        ok "N=3: heavy.cu's 4 items are owned by $owners shards"
        # each shard's manifest: decision split, items with owner, outcome and seconds
        for i in 1 2 3; do
            tar --zstd -xOf .shardcc/local/artifacts/shard-split-$i-of-3.tar.zst manifest.json >"$T/m$i.json"
        done
        python3 - "$T"/m1.json "$T"/m2.json "$T"/m3.json <<'PY' || fail "manifests of split TUs"
import json, sys
stored = {}
for i, path in enumerate(sys.argv[1:], 1):
    m = json.load(open(path))
    entries = {e["path"] for e in m["entries"]}
    for t in m["tus"]:
        if t["key"] != "src/heavy.cu":
            continue
        assert t["decision"] == "split", t
        assert [x["item"] for x in t["items"]] == ["compute_80", "compute_86", "compute_89", "compute_90"], t
        for x in t["items"]:
            if x["owner"] == i:
                assert x["outcome"] == "stored" and x["seconds"] > 0, x
                k = x["key"]
                assert "cache/%s/%s/%sD" % (k[0], k[1], k[2:]) in entries, (i, x)
                stored[x["item"]] = i
            else:
                assert x["outcome"] == "other" and x["key"] is None, x
assert sorted(stored) == ["compute_80", "compute_86", "compute_89", "compute_90"], stored
PY
        ok "N=3: manifests say split, each item stored by its owner alone, in its artifact"
        # shardcc classify shows the same split: parts with the shards' owners
        args=$(awk -F'\t' '$1 == "SCA1" && $2 == "src/heavy.cu"' .shardcc/link/journal.tsv | head -1 | cut -f3-)
        want=$(awk -F'\t' '$1 == "SCP1" && $2 == "src/heavy.cu" && $3 == "item" {print $4 ":" $6}' \
            .shardcc/shard-1-of-3/journal.tsv | paste -sd' ')
        (cd build && IFS=$'\t' && shardcc classify --root .. --shard 1/3 -- nvcc $args) >"$T/cls.json" ||
            fail "shardcc classify of heavy.cu: $(cat "$T/cls.json")"
        got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["action"], " ".join("%s:%d" % (p["item"], p["owner"]) for p in d["parts"]))' "$T/cls.json")
        expect_eq "shardcc classify --shard 1/3 of heavy.cu: action and parts" "$got" "split $want"
        cp -r .shardcc/local/artifacts "$T/art3"
        cp -r .shardcc/local/baseline "$T/base3"
    fi
done

# the default (no SHARDCC_SPLIT_ARCHS, as 0): nothing split, still the same bytes; the shards
# time the device items of the TUs they compile whole, and a plan made from their artifacts
# places the heavy TU as its items
env -u SHARDCC_SPLIT_ARCHS shardcc local -n 3 --cell split --clean 'rm -rf build' --compare build -- sh -c "$BUILD" \
    >"$T/nosplit.out" 2>&1 || fail "the default: $(tail -20 "$T/nosplit.out")"
expect_eq "the default: split TUs" \
    "$(awk -F'\t' '$1 == "SCJ2" && $8 == "split"' .shardcc/link/journal.tsv | wc -l)" 0
whole=$(for a in .shardcc/local/artifacts/*.tar.zst; do tar --zstd -xOf "$a" manifest.json; echo; done |
    python3 -c '
import json, sys
n = 0
for doc in sys.stdin.read().split("\n{"):
    m = json.loads(doc if doc.startswith("{") else "{" + doc)
    for t in m["tus"]:
        if t["key"] == "src/heavy.cu" and t["decision"] == "owned":
            n = sum(1 for x in t.get("items", []) if x["outcome"] == "whole" and x["seconds"] > 0)
print(n)')
expect_eq "the default: heavy.cu's device items timed in its whole compile" "$whole" 4
shardcc plan -n 20 .shardcc/local/artifacts >"$T/plan20.json" || fail "shardcc plan: $(cat "$T/plan20.json")"
grep -q '"src/heavy.cu#compute_80"' "$T/plan20.json" ||
    fail "a plan from TU-level shards does not split heavy.cu: $(cat "$T/plan20.json")"
ok "a plan made from shards that split nothing places heavy.cu as its items"
expect_fail 2 "SHARDCC_SPLIT_ARCHS=\"many\" is not a number" env SHARDCC_SPLIT_ARCHS=many \
    shardcc shard --shard 1/3 --cell split --artifact "$T/bad" -- sh -c "$BUILD"

# guard: an item gone from its owner's artifact: the link job compiles it, and misses the TU
item=$(python3 - "$T"/m1.json "$T"/m2.json "$T"/m3.json <<'PY'
import json, sys
for i, path in enumerate(sys.argv[1:], 1):
    for t in json.load(open(path))["tus"]:
        if t["key"] == "src/heavy.cu":
            for x in t["items"]:
                if x["owner"] == i:
                    print(i, x["item"], x["key"])
                    sys.exit(0)
sys.exit(1)
PY
) || fail "no item of heavy.cu in the shards' manifests"
set -- $item
owner=$1 name=$2 key=$3
A=$T/art3/shard-split-$owner-of-3.tar.zst
mkdir -p "$T/x" && tar --zstd -xf "$A" -C "$T/x"
rel=cache/${key:0:1}/${key:1:1}/${key:2}D
[ -f "$T/x/$rel" ] || fail "item $name's entry $rel is not in shard $owner's artifact"
rm "$T/x/$rel"
python3 - "$T/x/manifest.json" "$rel" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["entries"] = [e for e in m["entries"] if e["path"] != sys.argv[2]]
json.dump(m, open(sys.argv[1], "w"))
PY
(cd "$T/x" && tar --zstd -cf "$A" manifest.json cache)
rm -rf build
shardcc link --expect-shards 3 --artifacts "$T/art3" -- sh -c "$BUILD" >"$T/link.out" 2>&1 && rc=0 || rc=$?
expect_eq "link job without item $name of src/heavy.cu: exit status" "$rc" 3
grep -q "miss: src/heavy.cu (miss: items not in the shards' store: $name)" "$T/link.out" ||
    fail "the miss does not name the item: $(cat "$T/link.out")"
ok "the link job names the missing item: src/heavy.cu ($name)"
grep -q "explain: src/heavy.cu: item $name: shard $owner/3 stored it under the key this job looked for, but the merged store lacks it" "$T/link.out" ||
    fail "no explanation of the missing item: $(cat "$T/link.out")"
ok "explain: item $name's owner (shard $owner) stored it, the merged store lacks it"
shardcc compare --exact "$T/base3/build/libheavy.so" build/libheavy.so >"$T/cmp.out" ||
    fail "libheavy.so with the item compiled in the link job: $(cat "$T/cmp.out")"
ok "the link job compiled the missing item itself: libheavy.so still the unsharded one's bytes"

# guard: a shard whose stored items vanish from its cache before it packs them
rm -rf build .shardcc/cache
expect_fail 3 "src/heavy.cu#" shardcc shard --shard 1/1 --cell split --artifact "$T/gone" -- \
    sh -c "$BUILD"' && find "$SHARDCC_CCACHE_DIR" -name "*D" -delete'

# no temporary left behind
left=$(find "$T/tmp" -name 'tmpxft_*' | head -3)
[ -z "$left" ] || fail "temporaries left in TMPDIR: $left"
ok "no temporary left in TMPDIR"
summary
