# A CUDA 13 library built by CMake with separable compilation (tests/corpus/cuda13-lib):
# kernels defined in one TU and launched from another (hidden symbols that a shard's
# hollow link of the library must still link), a TU of template instantiations only (a
# module id that cudafe++ ends in its process id), one heavy TU of several architectures,
# and one .cu compiled in two targets. shardcc local -n 3 --compare is byte for byte; two
# seat compiles of the template-only TU are the same bytes; its architectures split over 4
# shards hit 100 % with no false warning; a hollow link that fails says it was shardcc's.
. "$(dirname "$0")/lib.sh"
cp -r "$SHARDCC_SRC/tests/corpus/cuda13-lib" "$T/p"
cd "$T/p"
BUILD='cmake -S . -B build -G Ninja >/dev/null && cmake --build build'

# the shape the test needs: the launching TU and the defining one in different shards
o1=$(shardcc classify --root . --shard 1/3 -- nvcc -c src/kernels.cu -o k.o | python3 -c 'import json,sys; print(json.load(sys.stdin)["owner"])')
o2=$(shardcc classify --root . --shard 1/3 -- nvcc -c src/launch.cu -o l.o | python3 -c 'import json,sys; print(json.load(sys.stdin)["owner"])')
[ "$o1" != "$o2" ] || fail "kernels.cu and launch.cu are both shard $o1's at N=3: the hidden-symbol case is not exercised"
ok "kernels.cu (shard $o1) and launch.cu (shard $o2): a shard links the library with the kernels' TU a stub"

shardcc local -n 3 --clean 'rm -rf build' --compare build -- sh -c "$BUILD" >"$T/local.out" 2>&1 ||
    fail "local -n 3 --compare: $(tail -30 "$T/local.out")"
grep -q "the same as the unsharded build (through the seats): 13 products, byte for byte" "$T/local.out" ||
    fail "local -n 3: $(tail -12 "$T/local.out")"
grep -q "hit rate 100.0% (7/7 TUs)" "$T/local.out" || fail "local -n 3 hit rate: $(tail -12 "$T/local.out")"
ok "local -n 3 --compare: 13 products byte for byte (both objects of common.cu too), 7/7 hits"
# the hash partition gives shard 1 five TUs of seven, the heavy one among them
grep -q "the shards are lopsided: the slowest shard's compiles took" "$T/local.out" &&
    grep -q "shardcc plan -n 3 -o plan.json .*/.shardcc/local/artifacts" "$T/local.out" ||
    fail "no plan suggested for lopsided shards: $(tail -8 "$T/local.out")"
ok "local suggests a plan: $(grep -o 'would make it [^:]*' "$T/local.out")"
art=$(sed -n 's/^  shardcc plan -n 3 -o plan.json //p' "$T/local.out")
shardcc report --artifacts "$art" >"$T/report.out" 2>&1 || fail "report: $(cat "$T/report.out")"
grep -q "the shards are lopsided: .*shardcc plan -n 3 -o plan.json ARTIFACTS" "$T/report.out" ||
    fail "report suggests no plan: $(tail -3 "$T/report.out")"
ok "report suggests the plan too"
shardcc plan -n 3 -o "$T/plan.json" "$art" 2>/dev/null || fail "the suggested plan command failed"
shardcc local -n 3 --plan "$T/plan.json" --clean 'rm -rf build' --compare build -- sh -c "$BUILD" >"$T/planned.out" 2>&1 ||
    fail "local with the suggested plan: $(tail -20 "$T/planned.out")"
grep -q "lopsided" "$T/planned.out" && fail "a plan suggested for a planned run"
ok "the suggested plan runs, byte for byte, with no suggestion"
grep -q "and 2 host TUs compiled here as in every job .*--host-seat shards every host TU" .shardcc/local/logs/link.log ||
    fail "the link job does not count the host TUs: $(grep 'hit rate' .shardcc/local/logs/link.log)"
ok "the link job says its 2 host TUs were compiled in every job, and --host-seat"
grep -h "hidden symbol" .shardcc/local/logs/*.log && fail "a hidden symbol in a shard's log"
ok "no shard's link of the library failed on a hidden symbol"

# two seat compiles of the template-only TU: the same bytes (the module id's process id
# is the seat's number), and the number is not cudafe++'s process id
(
    eval "$(shardcc env --plain)"
    for i in 1 2; do
        mkdir -p "$T/t$i"
        "$CUDACXX" -rdc=true -arch=sm_90 -Isrc -c src/templates.cu -o "$T/t$i/templates.o"
    done
)
cmp -s "$T/t1/templates.o" "$T/t2/templates.o" || fail "two seat compiles of templates.cu differ"
id=$(strings -a "$T/t1/templates.o" | sed -n 's/^__cudaRegisterLinkedBinary_//p' | head -1)
case $id in *_templates_cu_*_[0-9][0-9][0-9][0-9][0-9]) ;; *) fail "module id $id" ;; esac
ok "two seat compiles of a template-only -rdc TU are the same bytes (module id $id)"
# plain nvcc's differ (the reason for the above)
nvcc -rdc=true -arch=sm_90 -Isrc -c src/templates.cu -o "$T/n1.o"
nvcc -rdc=true -arch=sm_90 -Isrc -c src/templates.cu -o "$T/n2.o"
cmp -s "$T/n1.o" "$T/n2.o" && fail "plain nvcc's two compiles are the same: the case is not exercised"
ok "plain nvcc's two compiles of it differ"

# the architectures of the heavy TU over 4 shards: every item hits, no false warning
shardcc local -n 4 --split-archs 3 --clean 'rm -rf build' --compare build -- sh -c "$BUILD" >"$T/split.out" 2>&1 ||
    fail "local -n 4 --split-archs 3: $(tail -30 "$T/split.out")"
grep -q "hit rate 100.0% (7/7 TUs)" "$T/split.out" && grep -q "13 products, byte for byte" "$T/split.out" ||
    fail "split: $(tail -12 "$T/split.out")"
grep -q "not cacheable" .shardcc/local/logs/shard-*.log && fail "a false warning: $(grep -h 'not cacheable' .shardcc/local/logs/shard-*.log | head -2)"
grep -q "device item.* of 1 split TU" .shardcc/local/logs/shard-1-of-4.log ||
    fail "the shard's summary does not count the split TU's items: $(grep 'TUs owned' .shardcc/local/logs/shard-1-of-4.log)"
ok "split over 4 shards: 7/7 hits, byte for byte, $(grep -o '[0-9]* TUs owned and [^(]*' .shardcc/local/logs/shard-1-of-4.log)"
# a link job with another define: its items miss, and explain says which input differed
rc=0
shardcc link --artifacts .shardcc/local/artifacts --expect-shards 4 --split-archs 3 --clean 'rm -rf build' -- \
    sh -c 'cmake -S . -B build -G Ninja -DCMAKE_CUDA_FLAGS=-DEXTRA=1 >/dev/null && cmake --build build >/dev/null' \
    >"$T/miss.out" 2>&1 || rc=$?
expect_eq "a link job with another define: exit status" "$rc" 3
grep -q "explain: src/heavy.cu: item compute_[0-9]*: shard [0-9]/4 stored it under .*what differed: the toolchain or the device steps' arguments" "$T/miss.out" ||
    fail "explain names no input of the items: $(grep explain "$T/miss.out" | head -3)"
grep "item compute" "$T/miss.out" | grep -q "preprocessed source\|module id" &&
    fail "explain blames an input that did not differ: $(grep explain "$T/miss.out" | head -2)"
ok "explain of a split item's miss names the input that differed (the arguments), not CCACHE_DEBUG"

# --relocatable: the shards at one path, the link job at another with another TMPDIR;
# every split item hits, and the products are a plain build's at the link job's path
mkdir -p "$T/ra" "$T/rb" "$T/rarts" "$T/tmp-a" "$T/tmp-b"
cp -r "$SHARDCC_SRC/tests/corpus/cuda13-lib" "$T/ra/p"
cp -r "$SHARDCC_SRC/tests/corpus/cuda13-lib" "$T/rb/p"
for i in 1 2 3 4; do
    (cd "$T/ra/p" && TMPDIR="$T/tmp-a" shardcc shard --relocatable --shard $i/4 --split-archs 3 \
        --clean 'rm -rf build' --artifact "$T/rarts" -- sh -c "$BUILD" >"$T/rshard.out" 2>&1) ||
        fail "relocatable shard $i/4: $(tail -5 "$T/rshard.out")"
done
(cd "$T/rb/p" && TMPDIR="$T/tmp-b" shardcc link --relocatable --artifacts "$T/rarts" --expect-shards 4 \
    --split-archs 3 -- sh -c "$BUILD" >"$T/rlink.out" 2>&1) || fail "relocatable link: $(tail -12 "$T/rlink.out")"
grep -q "hit rate 100.0% (7/7 TUs)" "$T/rlink.out" || fail "relocatable link: $(tail -3 "$T/rlink.out")"
n=$(grep -c "	item	.*	hit	" "$T/rb/p/.shardcc/link/journal.tsv" || true)
[ "$n" -ge 3 ] || fail "the split TU's items did not hit at another path and TMPDIR ($n hits)"
ok "shards at one path, the link job at another with another TMPDIR: 7/7, $n device items from the store"
mv "$T/rb/p/build" "$T/rb/linked"
(cd "$T/rb/p" && eval "$(shardcc env --plain --relocatable)" && sh -c "$BUILD" >/dev/null 2>&1) || fail "plain build at rb"
for f in libbackend.so selftest CMakeFiles/backend.dir/src/heavy.cu.o CMakeFiles/backend.dir/src/templates.cu.o; do
    shardcc compare --exact "$T/rb/linked/$f" "$T/rb/p/build/$f" >/dev/null || fail "relocatable: $f differs: $(shardcc compare --exact "$T/rb/linked/$f" "$T/rb/p/build/$f")"
done
ok "the relocated link job's library, executable and split/template objects are the plain build's there, byte for byte"

# a hollow link that fails: the message says it was shardcc's link with stub inputs
rc=0
shardcc shard --shard "$o1/3" --clean 'rm -rf build' --artifact "$T" --cell req -- \
    sh -c 'cmake -S . -B build -G Ninja -DBACKEND_REQUIRE=_Z13common_answerv >/dev/null && cmake --build build' \
    >"$T/req.out" 2>&1 || rc=$?
owner_common=$(shardcc classify --root . --shard 1/3 -- nvcc -c src/common.cu -o c.o | python3 -c 'import json,sys; print(json.load(sys.stdin)["owner"])')
if [ "$owner_common" != "$o1" ]; then
    expect_eq "a hollow link that fails: shard exit status" "$rc" 1
    grep -q 'this link of "libbackend.so" failed where shardcc linked it from stub inputs' "$T/req.out" &&
        grep -q -- "--pin GLOB" "$T/req.out" || fail "the hollow link's message: $(grep shardcc "$T/req.out" | tail -5)"
    ok "a failed hollow link names itself, its stub inputs and --pin"
else
    fail "common.cu is shard $o1's: pick another shard for the hollow-link case"
fi
# a build step that reads a library the shard linked from stubs (an nm check of its exports,
# as a real project's POST_BUILD does): the shard says which output was hollow and --pin
NMBUILD='cmake -S . -B build -G Ninja -DBACKEND_NM_CHECK=ON >/dev/null && cmake --build build'
rc=0
shardcc shard --shard "$o1/3" --clean 'rm -rf build' --artifact "$T" --cell nm -- sh -c "$NMBUILD" >"$T/nm.out" 2>&1 || rc=$?
expect_eq "a shard whose build checks a hollow library: exit status" "$rc" 1
grep -q "libbackend.so lacks backend_scale" "$T/nm.out" &&
    grep -q "1 library of this shard was linked from stub objects, so it holds no code .*(libbackend.so).*--pin GLOB" "$T/nm.out" ||
    fail "no word of the hollow library: $(grep shardcc "$T/nm.out" | tail -4)"
ok "the project's own check failed on a hollow library: the shard names it and --pin"
shardcc shard --shard "$o1/3" --pin 'src/launch.cu' --clean 'rm -rf build' --artifact "$T" --cell nm -- \
    sh -c "$NMBUILD" >"$T/nm.out" 2>&1 || fail "with --pin src/launch.cu: $(tail -5 "$T/nm.out")"
ok "--pin src/launch.cu: the check passes in that shard"
summary
