# The shadow CUDA_HOME seat (--cuda-home-seat): a build that runs $CUDA_HOME/bin/nvcc
# itself (torch without ninja, older torch, setup.py files that overwrite PYTORCH_NVCC),
# with the long depfile forms, sharded 2 ways: the seat sees every TU, the link job hits
# 100 %, its library is the unsharded one and its objects are their owners' bytes.
. "$(dirname "$0")/lib.sh"
cd "$T"
real=$(cuda_root)
# As on CI images: CUDA_HOME spells the toolkit one way (here through a link), and the first
# nvcc on PATH is a script that execs the real one by another path (/usr/local/bin/nvcc).
# nvcc derives its include paths from the path it was started by, and -lineinfo writes the
# paths of the inlined cuda_fp16.hpp functions into the device line tables: the seat must
# run $CUDA_HOME/bin/nvcc, as the unsharded build does, and give nvcc the real path where
# -I$CUDA_HOME/include names the shadow. (Not -g: GCC orders its debug string tables by a
# hash that covers nvcc's per-run temporary file name, so two plain -g builds differ too.)
mkdir alias pathbin && ln -s "$real" alias/cuda
printf '#!/bin/sh\nexec %s/bin/nvcc "$@"\n' "$real" >pathbin/nvcc && chmod +x pathbin/nvcc
export CUDA_HOME="$T/alias/cuda" PATH="$T/pathbin:$PATH"
unset CUDA_PATH
mkdir -p proj/src
cd proj
for k in add mul relu scan; do
    printf '#include <cuda_fp16.h>\n#include <cuda_runtime.h>\ntemplate <typename T> __global__ void %s_k(T *x) { x[threadIdx.x] = __float2half(__half2float(x[threadIdx.x]) * 2.0f); }\nextern "C" void %s(__half *x) { %s_k<<<1, 32>>>(x); }\n' $k $k $k >src/$k.cu
done
cat >build.sh <<'SH'
#!/bin/sh
# like torch's non-ninja path: $CUDA_HOME/bin/nvcc for every .cu, then the host link;
# PYTORCH_NVCC is overwritten as some setup.py files do
set -e
PYTORCH_NVCC=/usr/local/cuda/bin/nvcc
export PYTORCH_NVCC
NVCC="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
rm -rf build && mkdir build
"$NVCC" --version >/dev/null
for k in add mul relu scan; do
    "$NVCC" -I"${CUDA_HOME:-/usr/local/cuda}/include" -O2 -lineinfo -gencode=arch=compute_90,code=sm_90 \
        --compiler-options -fPIC --generate-dependencies-with-compile --dependency-output build/$k.d \
        -c "$PWD/src/$k.cu" -o build/$k.o
done
g++ -shared -Wl,--build-id=none -o build/libext.so build/*.o
SH
chmod +x build.sh
./build.sh && mv build ../plain
ok "plain build with the real CUDA_HOME"

mkdir ../art
owned=0
for i in 1 2; do
    shardcc shard --cuda-home-seat --shard $i/2 --cell ch --artifact ../art -- ./build.sh 2>"$T/s.err" ||
        fail "shard $i/2: $(cat "$T/s.err")"
    j=.shardcc/shard-$i-of-2/journal.tsv
    expect_eq "shard $i/2: TUs seen through \$CUDA_HOME/bin/nvcc" "$(awk -F'\t' '$1 == "SCJ2" && $4 == "nvcc" && $7 == "tu"' "$j" | wc -l)" "4"
    expect_eq "shard $i/2: nvcc --version ran directly" "$(journal_count "$j" info direct 0)" "1"
    owned=$((owned + $(journal_count "$j" tu cache 0)))
    cp "$j" ../journal-$i.tsv
    mv build ../shard-$i
done
expect_eq "every TU owned by one shard" "$owned" "4"
[ -L .shardcc/cuda-home/include ] && [ -e .shardcc/cuda-home/include/cuda_runtime.h ] ||
    fail "the shadow CUDA_HOME does not lead to the real headers"
ok "the shadow CUDA_HOME's include/ is the real toolkit's"
expect_eq "the shadow nvcc is the seat" "$(readlink -f .shardcc/cuda-home/bin/nvcc)" "$(readlink -f "$SHARDCC_BIN/shardcc-wrap")"
# env_set VAR CMD...: the value of VAR in the "set" object CMD --format json prints
env_set() { local var=$1; shift
    "$@" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["set"][sys.argv[1]])' "$var"; }
expect_eq "the seat runs \$CUDA_HOME/bin/nvcc, not PATH's" "$(env_set SHARDCC_REAL_NVCC shardcc env --cuda-home-seat)" "$CUDA_HOME/bin/nvcc"
fp() { env_set CCACHE_COMPILERCHECK shardcc env --real-nvcc "$1"; }
expect_eq "the fingerprint of an nvcc script is the real toolkit's" "$(fp "$T/pathbin/nvcc")" "$(fp "$real/bin/nvcc")"
shardcc link --cuda-home-seat --artifacts ../art --expect-shards 2 -- ./build.sh 2>"$T/l.err" ||
    fail "link: $(cat "$T/l.err")"
grep -qx "hit rate 100.0% (4/4 TUs), 0 stubs, 2/2 shards" "$T/l.err" || fail "link: $(tail -2 "$T/l.err")"
ok "link: hit rate 100.0% (4/4 TUs), 0 stubs, 2/2 shards"
shardcc compare build/libext.so ../plain/libext.so >"$T/c.out" || fail "$(cat "$T/c.out")"
ok "$(cat "$T/c.out")"
n=0
while IFS=$'\t' read -r out i; do
    cmp -s "$out" "../shard-$i/${out#build/}" || fail "$out differs from shard $i's"
    n=$((n + 1))
done < <(for i in 1 2; do awk -F'\t' -v i=$i '$7 == "tu" && $8 == "cache" {print $13 "\t" i}' ../journal-$i.tsv; done)
expect_eq "link objects byte-identical to their owners'" "$n" "4"

# Without --cuda-home-seat, torch's ninja path runs PYTORCH_NVCC and CMake runs CUDACXX;
# unsharded, torch would run $CUDA_HOME/bin/nvcc and CMake PATH's nvcc. Each seat runs the
# nvcc its build would have run: -lineinfo objects tell the two spellings apart.
mkdir "$T/tseat" && cd "$T/tseat"
cp ../proj/src/add.cu .
fl=(-O2 -lineinfo -gencode=arch=compute_90,code=sm_90 -c "$PWD/add.cu")
"$CUDA_HOME/bin/nvcc" "${fl[@]}" -o torch-plain.o
nvcc "${fl[@]}" -o cmake-plain.o
rc=0
shardcc compare torch-plain.o cmake-plain.o >"$T/c.out" || rc=$?
expect_eq "unsharded: \$CUDA_HOME/bin/nvcc and PATH's nvcc give different -lineinfo objects" "$rc" "1"
inshard() { bash -c 'eval "$(shardcc env --shard 1/1)" && exec "$@"' inshard "$@"; }
expect_eq "PYTORCH_NVCC is the torch seat" "$(inshard printenv PYTORCH_NVCC)" "$(cd "$SHARDCC_BIN" && pwd -P)/shardcc-nvcc-torch"
expect_eq "CUDACXX is the nvcc seat" "$(inshard printenv CUDACXX)" "$(cd "$SHARDCC_BIN" && pwd -P)/shardcc-nvcc"
expect_eq "the torch seat runs \$CUDA_HOME/bin/nvcc" "$(inshard printenv SHARDCC_REAL_NVCC_TORCH)" "$CUDA_HOME/bin/nvcc"
expect_eq "the CUDACXX seat runs PATH's nvcc" "$(inshard printenv SHARDCC_REAL_NVCC)" "$T/pathbin/nvcc"
inshard sh -c '"$PYTORCH_NVCC" "$@"' nvcc "${fl[@]}" -o torch-seat.o
# one cache for both: the fingerprint is the same for both spellings, and the nvcc seat adds
# the real nvcc's path as spelled to ccache's key, so this call misses rather than getting
# the torch seat's object (two spellings, different keys: docs/shardcc-env.md, THE
# FINGERPRINT)
inshard sh -c '"$CUDACXX" "$@"' nvcc "${fl[@]}" -o cmake-seat.o
expect_eq "both compiles went through ccache" "$(journal_count .shardcc/journal.tsv tu cache 0)" "2"
expect_eq "two spellings of one toolkit: two misses, two entries" \
    "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "cache" {print $14}' .shardcc/journal.tsv | sort | uniq -c | awk '{print $1 " " $2}')" "2 miss"
inshard sh -c '"$CUDACXX" "$@"' nvcc "${fl[@]}" -o cmake-seat2.o
expect_eq "the same spelling again: a hit" \
    "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "cache" {print $14}' .shardcc/journal.tsv | tail -1)" "hit"
cmp -s cmake-seat.o cmake-seat2.o || fail "the hit is not the object it stored"
shardcc compare torch-seat.o torch-plain.o >"$T/c.out" || fail "torch seat: $(cat "$T/c.out")"
ok "torch seat: $(cat "$T/c.out")"
shardcc compare cmake-seat.o cmake-plain.o >"$T/c.out" || fail "CUDACXX seat: $(cat "$T/c.out")"
ok "CUDACXX seat: $(cat "$T/c.out")"
# the shadow is the default here (torch's nvcc and PATH's run from one toolkit), and off
# with --no-cuda-home-seat
expect_eq "default: CUDA_HOME is the shadow" "$(inshard printenv CUDA_HOME)" "$PWD/.shardcc/cuda-home"
expect_eq "--no-cuda-home-seat: CUDA_HOME as the caller set it" \
    "$(bash -c 'eval "$(shardcc env --shard 1/1 --no-cuda-home-seat)" && printenv CUDA_HOME')" "$CUDA_HOME"
tnv() { env_set SHARDCC_REAL_NVCC_TORCH env "$@" shardcc env; }
expect_eq "a PYTORCH_NVCC naming an nvcc: torch runs it" "$(tnv PYTORCH_NVCC="$real/bin/nvcc")" "$real/bin/nvcc"
expect_eq "CUDA_PATH when CUDA_HOME is unset" "$(tnv -u CUDA_HOME CUDA_PATH="$T/alias/cuda/")" "$T/alias/cuda/bin/nvcc"
mkdir -p tk/bin && cp ../pathbin/nvcc tk/bin/nvcc
expect_eq "neither: PATH's nvcc two directories up, then bin/nvcc (torch's guess)" \
    "$(tnv -u CUDA_HOME -u CUDA_PATH PATH="$PWD/tk/bin:$PATH")" "$PWD/tk/bin/nvcc"
expect_eq "torch's guess not a file: the CUDACXX seat's nvcc" \
    "$(tnv -u CUDA_HOME -u CUDA_PATH SHARDCC_REAL_NVCC="$real/bin/nvcc")" "$real/bin/nvcc"
# the fingerprint covers the torch seat's toolkit when it is another one
tfp() { env_set CCACHE_COMPILERCHECK env "$@" shardcc env; }
mkdir -p other/bin && cp "$real/bin/nvcc" other/bin/nvcc
expect_eq "same toolkit by two spellings: one fingerprint" "$(tfp CUDA_HOME="$T/alias/cuda")" "$(tfp CUDA_HOME="$real")"
[ "$(tfp CUDA_HOME="$PWD/other")" != "$(tfp CUDA_HOME="$real")" ] ||
    fail "a CUDA_HOME naming another toolkit leaves the fingerprint unchanged"
ok "a CUDA_HOME naming another toolkit changes the fingerprint"

# The debug-info map (in CPPFLAGS, which setuptools appends to Python's own flags) names the
# toolkit as the caller's CUDA_HOME spells it, when that is the real nvcc's toolkit (the
# unsharded build writes that spelling into its debug info)
map() { env "$@" shardcc env --cuda-home-seat --real-nvcc "$real/bin/nvcc" --format json 2>"$T/map.err" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["set"]["CPPFLAGS"].split("=", 2)[2])'; }
expect_eq "CUDA_HOME spelled as its real path" "$(map CUDA_HOME="$real" CPPFLAGS=)" "$real"
expect_eq "CUDA_HOME spelled through a link" "$(map CUDA_HOME="$T/alias/cuda/" CPPFLAGS=)" "$T/alias/cuda"
expect_eq "no CUDA_HOME: the real nvcc's root" "$(map -u CUDA_HOME -u CUDA_PATH CPPFLAGS=)" "$real"
expect_eq "CUDA_HOME of another toolkit: the real nvcc's root" "$(map CUDA_HOME="$T" CPPFLAGS=)" "$real"
grep -q "CUDA_HOME=\"$T\" is not the toolkit of the real nvcc" "$T/map.err" || fail "no warning: $(cat "$T/map.err")"
ok "a warning names a CUDA_HOME that is not the real nvcc's toolkit"
summary
