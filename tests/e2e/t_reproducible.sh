# Reproducible objects (docs/shardcc-wrap.md, THE PIPELINE): the nvcc seat runs nvcc's own plan (nvcc
# -dryrun) with temporary names of its choosing (src/wrap/pipeline.h), on by default. A CMake
# project (a shared library of three CUDA TUs, one with -lineinfo, and an executable linked
# to it) built twice through the seats without sharding, once in the plain phase (shardcc
# env --plain: no cache) and once in the link phase with an empty cache, gives the same
# bytes twice, objects, library and executable, and leaves no temporary; 2 shards and the
# link job give those bytes again (compare --exact), and so does shardcc local --compare,
# which fails (exit 3, naming the file) on a product that differs. The objects are a plain
# nvcc build's up to nvcc's temp names (shardcc compare). With --no-reproducible two such
# builds differ. A link job without it over shards made with it, and a merge of shards
# made with and without it, are refused (exit 3); a plan the seat cannot read runs nvcc
# whole, said, journaled and warned of; a bad SHARDCC_REPRODUCIBLE is refused (exit 2).
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src
cd proj
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.24)
project(repro LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
add_library(k SHARED src/a.cu src/b.cu src/c.cu)
set_source_files_properties(src/c.cu PROPERTIES COMPILE_OPTIONS -lineinfo)
add_executable(app src/main.cu)
target_link_libraries(app k)
CM
for n in a b c; do
    cat >src/$n.cu <<CU
template <int N> __global__ void ${n}_k(float *x) { x[threadIdx.x] = x[threadIdx.x] * N + 1; }
static __device__ float ${n}_scale = 2;
__global__ void ${n}_s(float *x) { x[0] *= ${n}_scale; }
void ${n}_launch(float *x) { ${n}_k<3><<<1, 32>>>(x); ${n}_s<<<1, 1>>>(x); }
CU
done
printf 'void a_launch(float *);\nint main() { a_launch(nullptr); return 0; }\n' >src/main.cu
BUILD='rm -rf build && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null'
products() { (cd "$1" && find . -name '*.o' | sort; echo ./libk.so; echo ./app); }

# a plain build through the seats: the link phase with a fresh cache compiles everything
plain() { # plain DEST [ENV OPTIONS...]
    local dest=$1
    shift
    rm -rf "$T/cache-$dest"
    (eval "$(shardcc env --root . --cache "$T/cache-$dest" --journal "$T/j-$dest.tsv" "$@")" && sh -c "$BUILD") ||
        fail "plain build $dest through the seats failed"
    rm -rf "$T/$dest" && cp -r build "$T/$dest"
}
exact_all() { # exact_all WHAT DIR_A DIR_B: every product the same bytes
    local f n=0
    for f in $(products "$2"); do
        shardcc compare --exact "$2/$f" "$3/$f" >"$T/cmp.out" || fail "$1: $f: $(cat "$T/cmp.out")"
        n=$((n + 1))
    done
    ok "$1: $n products the same byte for byte (objects, libk.so, app)"
}

# the temporaries go to a directory of the test's own, which must be empty afterwards
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp
plain r1 --plain 2>"$T/r1.err"
plain r2 2>"$T/r2.err"
expect_eq "on by default: shardcc env sets SHARDCC_REPRODUCIBLE" \
    "$(shardcc env --root . | grep -c '^export SHARDCC_REPRODUCIBLE=.\?1.\?$')" "1"
expect_eq "the plain phase: every call ran the real compiler, none through ccache" \
    "$(awk -F'\t' '$1 == "SCJ2" && $5 == "plain" && $7 == "tu" && $14 == "-"' "$T/j-r1.tsv" | wc -l)" "4"
[ ! -d "$T/cache-r1" ] || [ -z "$(find "$T/cache-r1" -type f -name '*R')" ] || fail "the plain phase stored cache entries"
! grep -h "nvcc runs whole" "$T/r1.err" "$T/r2.err" || fail "a TU fell back to nvcc whole"
! grep -h "objdir-as-tempdir" "$T/j-r1.tsv" "$T/j-r2.tsv" || fail "a journal records --objdir-as-tempdir"
ok "every CUDA TU ran as nvcc's plan, none fell back to nvcc whole"
expect_eq "temporaries left in TMPDIR" "$(find "$T/tmp" -mindepth 1 | wc -l)" "0"
exact_all "two builds through the seats, the plain phase and the link phase with an empty cache" "$T/r1" "$T/r2"

plain n1 --no-reproducible
plain n2 --no-reproducible
rc=0
shardcc compare --exact "$T/n1/CMakeFiles/k.dir/src/a.cu.o" "$T/n2/CMakeFiles/k.dir/src/a.cu.o" >/dev/null || rc=$?
expect_eq "with --no-reproducible: two plain builds' objects differ byte for byte" "$rc" "1"
shardcc compare "$T/n1/CMakeFiles/k.dir/src/a.cu.o" "$T/n2/CMakeFiles/k.dir/src/a.cu.o" >/dev/null ||
    fail "without it, the objects differ beyond nvcc's temp names"
ok "without it, they are the same only up to nvcc's temp names"
# the seat changes names, never code: its objects are plain nvcc's up to the names
n=0
for f in $(cd "$T/r1" && find . -name '*.cu.o' | sort); do
    shardcc compare "$T/r1/$f" "$T/n1/$f" >"$T/cmp.out" || fail "$f: reproducible vs not: $(cat "$T/cmp.out")"
    n=$((n + 1))
done
ok "with it, every object ($n) is the plain nvcc build's up to nvcc's temp names: $(cat "$T/cmp.out")"

rm -rf ../art && mkdir ../art
for i in 1 2; do
    shardcc shard --shard $i/2 --cell repro --artifact ../art -- sh -c "$BUILD" \
        >"$T/shard.log" 2>&1 || fail "shard $i/2: $(tail -5 "$T/shard.log")"
done
shardcc link --artifacts ../art --expect-shards 2 -- sh -c "$BUILD" >"$T/link.log" 2>&1 ||
    fail "link: $(tail -5 "$T/link.log")"
grep -x "hit rate 100.0% (4/4 TUs), 0 stubs, 2/2 shards" "$T/link.log" >/dev/null ||
    fail "link: $(grep 'hit rate' "$T/link.log")"
ok "shards and link (reproducible by default): hit rate 100.0% (4/4 TUs)"
exact_all "the link job against the plain build through the seats" build "$T/r1"

expect_fail 3 "the shards ran with --reproducible and this link job without it: the link job would miss every TU" \
    shardcc link --no-reproducible --artifacts ../art --expect-shards 2 -- sh -c "$BUILD"
mkdir -p ../art-plain
shardcc shard --no-reproducible --shard 2/2 --cell repro --artifact ../art-plain -- sh -c "$BUILD" >"$T/shard.log" 2>&1 ||
    fail "shard 2/2 with --no-reproducible: $(tail -5 "$T/shard.log")"
expect_fail 3 "shard-repro-2-of-2.tar.zst: made not reproducible, the others reproducible" \
    shardcc merge --cache "$T/mixed" ../art/shard-repro-1-of-2.tar.zst ../art-plain/shard-repro-2-of-2.tar.zst

# shardcc local --compare: the baseline is a plain build through the seats, kept, and the
# link job's products must be its bytes
shardcc local -n 2 --clean 'rm -rf build' --compare build -- sh -c "$BUILD" >"$T/local.out" 2>&1 ||
    fail "shardcc local --compare build: $(tail -5 "$T/local.out")"
grep -x "the same as the unsharded build (through the seats): 6 products, byte for byte" "$T/local.out" >/dev/null ||
    fail "shardcc local --compare: $(grep 'same as' "$T/local.out")"
ok "shardcc local --compare build: 6 products, byte for byte"
# a product that differs between the baseline and the link job: exit 3, named
mkdir -p ../tiny && cp src/a.cu ../tiny/ && cd ../tiny
TINY='rm -rf out && mkdir out && "$CUDACXX" -c a.cu -o out/a.o && printf %s "$SHARDCC_PHASE" >out/m.txt && ar rc out/libm.a out/m.txt'
expect_fail 3 "shardcc local: --compare: the link job's \"out/libm.a\" is not the unsharded build's byte for byte" \
    shardcc local -n 1 --compare out -- sh -c "$TINY"
cd ../proj

# a plan the seat cannot read (nvcc's warning for -arch=native on a host without a GPU):
# nvcc runs whole with --objdir-as-tempdir, said on stderr, journaled (SCP1) and warned of
nvcc -dryrun -arch=native -c src/a.cu -o "$T/n.o" >"$T/native.plan" 2>&1 || true
if grep -q "Cannot find valid GPU" "$T/native.plan"; then
    mkdir -p ../native && cp src/a.cu ../native/ && cd ../native
    NATIVE='rm -rf out && mkdir out && "$CUDACXX" -arch=native -c a.cu -o out/a.o'
    shardcc shard --shard 1/1 --cell native --artifact ../art-native --journal "$T/native.tsv" \
        -- sh -c "$NATIVE" >"$T/native.out" 2>&1 || fail "shard with -arch=native: $(tail -5 "$T/native.out")"
    grep -q "nvcc runs whole, with --objdir-as-tempdir" "$T/native.out" ||
        fail "no note of the fallback: $(cat "$T/native.out")"
    grep -q "warning: 1 TU compile ran as nvcc whole, with --objdir-as-tempdir, not as nvcc's plan" "$T/native.out" ||
        fail "no warning from shardcc shard: $(cat "$T/native.out")"
    expect_eq "the fallback journaled (SCP1, with nvcc's message)" \
        "$(awk -F'\t' '$1 == "SCP1" && $2 == "a.cu" && $3 == "fallback" && $4 ~ /Cannot find valid GPU/' "$T/native.tsv" | wc -l)" "1"
    [ -s out/a.o ] || fail "no object from the fallback"
    cd ../proj
else
    ok "a GPU here: -arch=native resolves, so its plan is read and no fallback is exercised"
fi

eval "$(shardcc env --root . --reproducible)"
SHARDCC_REPRODUCIBLE=yes expect_fail 2 'SHARDCC_REPRODUCIBLE="yes" is not 1' \
    shardcc-nvcc -c src/a.cu -o "$T/x.o"
summary
