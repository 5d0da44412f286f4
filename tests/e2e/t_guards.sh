# Every guard of the pipeline fires in a test of its own, with the documented exit status
# and a message that names what failed: the seat bypassed in a shard; a missing, duplicate,
# foreign-cell and foreign-fingerprint artifact; a shard variable leaked into the link job;
# a define that differs between shards and link (the TU named as a miss); a link job at
# another root than the shards', and --relocatable on some jobs only; a
# nondeterministic result (the TU named); a failing build; an artifact with a ../ entry
# (nothing written outside); a shard that owns nothing (a warning, an empty artifact).
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src
cd proj
for k in add mul relu; do
    printf '#ifndef SCALE\n#define SCALE 1\n#endif\ntemplate <typename T> __global__ void %s_k(T *x) { x[threadIdx.x] += T(SCALE); }\nvoid %s(float *x) { %s_k<<<1, 32>>>(x); }\n' $k $k $k >src/$k.cu
done
# a torch-style build: build.ninja written at build time from PYTORCH_NVCC, like torch's
cat >gen.sh <<'SH'
#!/bin/sh
# usage: gen.sh [EXTRA-FLAGS]: writes build/build.ninja and builds libext.so
set -e
mkdir -p build
{
    echo "nvcc = ${NVCC_OVERRIDE:-${PYTORCH_NVCC:-/usr/local/cuda/bin/nvcc}}"
    echo "flags = -O2 -gencode=arch=compute_90,code=sm_90 --compiler-options -fPIC $*"
    echo 'rule cu'
    echo '  command = $nvcc -MD -MF $out.d $flags -c $in -o $out'
    echo '  depfile = $out.d'
    echo '  deps = gcc'
    echo 'rule so'
    echo '  command = c++ -shared $in -o $out'
    for k in add mul relu; do echo "build $k.o: cu $PWD/src/$k.cu"; done
    echo 'build libext.so: so add.o mul.o relu.o'
} >build/build.ninja
ninja -C build >/dev/null
SH
chmod +x gen.sh
BUILD="rm -rf build && ./gen.sh"
mkdir -p ../art ../other
for i in 1 2; do
    shardcc shard --shard $i/2 --cell guards --artifact ../art -- sh -c "$BUILD" 2>/dev/null
done
ok "two good shards"
A1=../art/shard-guards-1-of-2.tar.zst
A2=../art/shard-guards-2-of-2.tar.zst

# guard 1: the seat bypassed (the build hard-codes the real nvcc)
expect_fail 3 "the seat saw no TU compile" \
    shardcc shard --shard 1/2 --cell guards --artifact ../other -- sh -c "export NVCC_OVERRIDE=/usr/local/cuda/bin/nvcc; $BUILD"
{ [ ! -e ../other/shard-guards-1-of-2.tar.zst ]; } || fail "no artifact from a bypassed shard"
ok "no artifact from a bypassed shard"
grep -qF 'object files under the root without the seats (e.g. "build/add.o")' "$T/.err" ||
    fail "the bypass guard names no object the build wrote without the seats: $(cat "$T/.err")"
ok "the bypass guard names an object written without the seats"

# the same guard in a tree that is already built (ninja: no work to do): it says so, and
# names --clean, which makes the job work
mkdir -p ../cleaned && shardcc shard --shard 1/2 --cell guards --artifact ../cleaned --clean 'rm -rf build' -- ./gen.sh 2>"$T/.err" ||
    fail "shard --clean: $(cat "$T/.err")"
grep -q "cleaning the tree first: rm -rf build" "$T/.err" || fail "shard --clean said nothing: $(cat "$T/.err")"
ok "shard --clean 'rm -rf build': an artifact"
expect_fail 3 "its tree was already built" \
    shardcc shard --shard 1/2 --cell guards --artifact ../cleaned -- ./gen.sh
grep -qF -- "--clean CMD" "$T/.err" && ! grep -q "without the seats" "$T/.err" ||
    fail "the up-to-date tree's message: $(cat "$T/.err")"
shardcc link --artifacts ../art --expect-shards 2 --clean 'rm -rf build' -- ./gen.sh 2>"$T/.err" ||
    fail "link --clean: $(cat "$T/.err")"
grep -q "hit rate 100.0% (3/3 TUs)" "$T/.err" || fail "link --clean: $(cat "$T/.err")"
ok "link --clean 'rm -rf build': 3/3 hits"
expect_fail 3 "its tree was already built" \
    shardcc link --artifacts ../art --expect-shards 2 -- ./gen.sh
# a CUDA-enabled CMake project whose targets are C++ only: not a bypass; the host seats
# left its host TUs to the real compiler, and --host-seat shards them
mkdir -p "$T/hostonly" && (
    cd "$T/hostonly"
    printf 'cmake_minimum_required(VERSION 3.18)\nproject(h LANGUAGES CXX CUDA)\nadd_library(h SHARED a.cpp b.cpp)\n' >CMakeLists.txt
    echo 'int a() { return 1; }' >a.cpp
    echo 'int b() { return 2; }' >b.cpp
    expect_fail 3 "the build compiled no CUDA TU, and the host seats saw 2 host TUs and left them to the real compiler" \
        shardcc shard --shard 1/2 --artifact "$T/hostonly" -- sh -c 'cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null'
    grep -q -- "--host-seat shards every host TU" "$T/.err" || fail "no --host-seat: $(cat "$T/.err")"
    shardcc shard --shard 1/2 --host-seat --artifact "$T/hostonly" --clean 'rm -rf build' -- \
        sh -c 'cmake -S . -B build -G Ninja >/dev/null && cmake --build build >/dev/null' 2>"$T/.err" ||
        fail "--host-seat on a host-only project: $(cat "$T/.err")"
    ok "a host-only project: told to use --host-seat, which shards it"
)

# a CUDA source outside the root: compiled in every job as nvcc's own; the shard says so
# and names --root
mkdir -p "$T/shared" && printf '__global__ void k2(int *p) { *p = 2; }\n' >"$T/shared/k.cu"
shardcc shard --shard 1/2 --artifact "$T/shared" -- \
    sh -c '"$CUDACXX" -arch=sm_90 -c ../shared/k.cu -o k2.o && "$CUDACXX" -arch=sm_90 -c src/add.cu -o add.o' 2>"$T/.err" ||
    fail "a shard with a source outside the root: $(cat "$T/.err")"
grep -q "1 CUDA source outside the root \"$PWD\" was compiled as nvcc's own.*\"$T/shared/k.cu\".*Give --root a directory that holds it" "$T/.err" ||
    fail "no word of the source outside the root: $(cat "$T/.err")"
ok "a CUDA source outside the root is named, with --root"

# progress lines: every SHARDCC_PROGRESS_INTERVAL seconds when asked for (stderr is no
# terminal here), none otherwise
SHARDCC_PROGRESS=1 SHARDCC_PROGRESS_INTERVAL=1 shardcc shard --shard 1/2 --cell guards --artifact ../cleaned \
    --clean 'rm -rf build' -- sh -c 'sleep 2.5 && ./gen.sh' 2>"$T/.err" || fail "shard with progress: $(cat "$T/.err")"
grep -qE '^shardcc shard: shard 1/2: (no TU compile yet|[0-9]+ TU compiles so far \([0-9]+ through ccache.*\)), [0-9]+s elapsed$' "$T/.err" ||
    fail "no progress line: $(cat "$T/.err")"
ok "progress: $(grep -m1 'elapsed$' "$T/.err")"
SHARDCC_PROGRESS_INTERVAL=1 shardcc shard --shard 1/2 --cell guards --artifact ../cleaned \
    --clean 'rm -rf build' -- sh -c 'sleep 2.5 && ./gen.sh' 2>"$T/.err" || fail "shard: $(cat "$T/.err")"
! grep -q 'elapsed$' "$T/.err" || fail "progress lines in a log: $(cat "$T/.err")"
ok "no progress lines where stderr is not a terminal"
expect_fail 1 "the clean command failed (exit status 7): exit 7" \
    shardcc shard --shard 1/2 --cell guards --artifact ../other --clean 'exit 7' -- ./gen.sh

# a failing build: exit 1, no artifact
expect_fail 1 "the build failed" shardcc shard --shard 1/2 --cell guards --artifact ../other -- sh -c "$BUILD --no-such-nvcc-option"
{ [ ! -e ../other/shard-guards-1-of-2.tar.zst ]; } || fail "no artifact from a failed build"
ok "no artifact from a failed build"

# a shard that owns nothing: a warning and an artifact with no entries
empty=
for s in 1 2 3 4 5 6 7; do
    owners=$(for k in add mul relu; do shardcc classify --root . --shard 1/7 -- nvcc -c src/$k.cu -o $k.o; done |
        python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["owner"]) for l in sys.stdin))')
    case " $owners " in *" $s "*) ;; *) empty=$s; break ;; esac
done
shardcc shard --shard $empty/7 --cell guards --artifact ../other -- sh -c "$BUILD" 2>"$T/empty.err"
grep -q "owned none" "$T/empty.err" || fail "no warning for an empty shard: $(cat "$T/empty.err")"
expect_eq "empty shard: artifact members" "$(tar --zstd -tf ../other/shard-guards-$empty-of-7.tar.zst | wc -l)" "1"

# a cache name that the final rename cannot take is refused before any work ("", or a
# symbolic link, dangling or not, would fail only after the merge)
expect_fail 2 'the cache directory is "": name the directory' shardcc merge --cache "" "$A1" "$A2"
ln -s "$T/nowhere" ../dangling
expect_fail 2 'the cache directory "../dangling" is a symbolic link' \
    shardcc merge --cache ../dangling "$A1" "$A2"
mkdir -p "$T/elsewhere" && ln -s "$T/elsewhere" ../linked
expect_fail 2 'the cache directory "../linked" is a symbolic link' shardcc merge --cache ../linked "$A1" "$A2"

# guard 2: missing, duplicate, foreign cell, foreign fingerprint
expect_fail 3 "shard 2 of 2 missing" shardcc merge --cache ../m1 "$A1"
{ [ ! -e ../m1 ]; } || fail "no cache left by a failed merge"
ok "no cache left by a failed merge"
{ shardcc merge --cache ../m1p --allow-partial "$A1" 2>/dev/null; } || fail "--allow-partial goes on"
ok "--allow-partial goes on"
cp "$A1" ../other/copy-of-1.tar.zst
expect_fail 3 "duplicate: shard 1/2" shardcc merge --cache ../m2 "$A1" "$A2" ../other/copy-of-1.tar.zst
shardcc shard --shard 2/2 --cell other-cell --artifact ../other -- sh -c "$BUILD" 2>/dev/null
expect_fail 3 'foreign cell "other-cell"' shardcc merge --cache ../m3 "$A1" ../other/shard-other-cell-2-of-2.tar.zst "$A2"
mkdir -p ../fp && shardcc shard --shard 2/2 --cell guards --artifact ../fp --real-cxx "$(command -v clang++)" \
    -- sh -c "$BUILD" 2>/dev/null
expect_fail 3 "foreign fingerprint" shardcc merge --cache ../m4 "$A1" ../fp/shard-guards-2-of-2.tar.zst "$A2"
expect_fail 3 "shards of 2, 3 were expected" shardcc merge --cache ../m5 --expect-shards 3 "$A1" "$A2"
expect_fail 3 "shard 2 of 2 missing" shardcc link --artifacts "$A1" --expect-shards 2 -- sh -c "$BUILD"

# guard 4: a shard variable leaked into the link job
expect_fail 3 "leaked into it" shardcc link --artifacts ../art --expect-shards 2 \
    -- sh -c "export SHARDCC_PHASE=shard SHARDCC_SHARD=1/2; $BUILD"
{ grep -q "hit rate .*, [1-9] stubs*, 2/2 shards" "$T/.err"; } || fail "the summary counts the stubs"
ok "the summary counts the stubs"

# guard 3: a define that differs between the shards and the link job: misses named by key
expect_fail 3 "below the minimum 90.0%" shardcc link --artifacts ../art --expect-shards 2 -- sh -c "$BUILD -DSCALE=2"
for k in add mul relu; do
    grep -q "miss: src/$k.cu (miss)" "$T/.err" || fail "src/$k.cu not listed as a miss: $(cat "$T/.err")"
done
ok "every miss listed by key"
for k in add mul relu; do
    grep -q "explain: src/$k.cu (miss): this job ran it with other arguments than its owner" "$T/.err" ||
        fail "src/$k.cu: no explanation: $(cat "$T/.err")"
done
grep -q "only in the link job: -DSCALE=2" "$T/.err" || fail "the explanation does not name -DSCALE=2: $(cat "$T/.err")"
ok "the link job explains each miss by the flag only it passed: -DSCALE=2"
{ grep -q "hit rate 0.0% (0/3 TUs), 0 stubs, 2/2 shards" "$T/.err"; } || fail "summary: hit rate 0.0% (0/3 TUs)"
ok "summary: hit rate 0.0% (0/3 TUs)"
# ... and the good link job passes
shardcc link --artifacts ../art --expect-shards 2 -- sh -c "$BUILD" 2>"$T/ok.err" || fail "$(cat "$T/ok.err")"
{ grep -q "hit rate 100.0% (3/3 TUs), 0 stubs, 2/2 shards" "$T/ok.err"; } || fail "the good link job: 100.0% (3/3 TUs)"
ok "the good link job: 100.0% (3/3 TUs)"
# a threshold that allows the planted miss
shardcc link --artifacts ../art --expect-shards 2 --min-hit-rate 0 -- sh -c "$BUILD -DSCALE=2" 2>/dev/null &&
    ok "--min-hit-rate 0 lets misses through"

# the root: without --relocatable every job runs at one path (ccache keys hold absolute
# paths); with it on every job, a link job elsewhere hits; a mix is refused
mkdir ../proj2 && cp -r src gen.sh ../proj2/
expect_fail 3 "the shards ran at \"$PWD\" and this link job at \"$(cd ../proj2 && pwd)\"" \
    sh -c "cd ../proj2 && shardcc link --artifacts ../art --expect-shards 2 -- sh -c '$BUILD'"
mkdir ../reloc
for i in 1 2; do
    shardcc shard --relocatable --shard $i/2 --cell guards --artifact ../reloc -- sh -c "$BUILD" 2>/dev/null
done
(cd ../proj2 && shardcc link --relocatable --artifacts ../reloc --expect-shards 2 -- sh -c "$BUILD") 2>"$T/reloc.err" ||
    fail "--relocatable link elsewhere: $(cat "$T/reloc.err")"
{ grep -q "hit rate 100.0% (3/3 TUs), 0 stubs, 2/2 shards" "$T/reloc.err"; } || fail "--relocatable: $(tail -3 "$T/reloc.err")"
ok "--relocatable: a link job at another path hits 100.0% (3/3 TUs)"
expect_fail 3 "the shards ran with --relocatable and this link job without it" \
    shardcc link --artifacts ../reloc --expect-shards 2 -- sh -c "$BUILD"
expect_fail 3 "this link job runs with --relocatable and the shards ran without it" \
    shardcc link --relocatable --artifacts ../art --expect-shards 2 -- sh -c "$BUILD"
expect_fail 3 "made at any root (--relocatable), the others at \"$PWD\"" \
    shardcc merge --cache ../m9 "$A1" ../reloc/shard-guards-2-of-2.tar.zst "$A2"
grep -q "run every job at one path .*or pass --relocatable to every job" "$T/.err" ||
    fail "the merge's root mismatch names no remedy: $(cat "$T/.err")"
ok "the merge's root mismatch names the remedy, as the link job's does"

# guard 5: nondeterministic codegen. Plant shard 1's first result entry, with other bytes,
# into shard 2's artifact (manifest kept truthful) and merge.
rm -rf ../x1 ../x2 && mkdir ../x1 ../x2
tar --zstd -xf "$A1" -C ../x1
tar --zstd -xf "$A2" -C ../x2
rel=$(cd ../x1 && find cache -name '*R' | sort | head -1)
mkdir -p "../x2/$(dirname "$rel")"
{ cat "../x1/$rel"; printf 'different bytes'; } >"../x2/$rel"
python3 - ../x2 "$rel" <<'PY'
import hashlib, json, os, sys
d, rel = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(d, "manifest.json")))
data = open(os.path.join(d, rel), "rb").read()
m["entries"].append({"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
json.dump(m, open(os.path.join(d, "manifest.json"), "w"))
PY
(cd ../x2 && tar --zstd -cf ../other/nondet-2.tar.zst manifest.json cache)
tu=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); k="".join(sys.argv[2][6:].split("/"))[:-1]; print([t["key"] for t in m["tus"] if t["result"]==k][0])' ../x1/manifest.json "$rel")
expect_fail 3 "nondeterministic codegen: $tu" shardcc merge --cache ../m6 "$A1" ../other/nondet-2.tar.zst
{ [ ! -e ../m6 ]; } || fail "no cache left by a refused merge"
ok "no cache left by a refused merge"
shardcc merge --cache ../m7 --allow-nondeterministic "$A1" ../other/nondet-2.tar.zst 2>/dev/null &&
    ok "--allow-nondeterministic goes on"

# an artifact with a ../ entry: refused (exit 4), nothing written outside
python3 - "$A1" ../other/evil.tar <<'PY'
import io, subprocess, sys, tarfile
src, dst = sys.argv[1], sys.argv[2]
manifest = subprocess.run(["tar", "--zstd", "-xOf", src, "manifest.json"], capture_output=True, check=True).stdout
with tarfile.open(dst, "w", format=tarfile.PAX_FORMAT) as t:
    for name, data in (("manifest.json", manifest), ("cache/../../escaped", b"owned")):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PY
zstd -q --rm ../other/evil.tar -o ../other/evil-1.tar.zst
expect_fail 4 'entry "cache/../../escaped" escapes the cache directory' shardcc merge --cache ../m8 ../other/evil-1.tar.zst "$A2"
{ [ ! -e ../escaped ] && [ ! -e ../../escaped ] && [ ! -e escaped ]; } || fail "nothing written outside the cache"
ok "nothing written outside the cache"
{ [ ! -e ../m8 ]; } || fail "no cache left behind"
ok "no cache left behind"
summary
