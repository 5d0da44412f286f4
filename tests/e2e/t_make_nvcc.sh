# A Makefile CUDA project that links with nvcc -g (tests/corpus/make-nvcc): several test
# executables sharing objects, a static library by ar, every executable linked by nvcc
# with -g (device link and host stub, whose temporary names reach .debug_line_str), and
# a CMake lane in which every target compiles the same common.cu and util.cu. shardcc
# local --compare is byte for byte in both lanes; nvcc's links through the seats are the
# same bytes run after run where plain nvcc's are not; compare names what differs.
. "$(dirname "$0")/lib.sh"
cp -r "$SHARDCC_SRC/tests/corpus/make-nvcc" "$T/p"
cd "$T/p"

shardcc local -n 3 --clean 'make clean' --compare build -- make -j2 >"$T/make.out" 2>&1 ||
    fail "Makefile lane: $(tail -20 "$T/make.out")"
grep -q "hit rate 100.0% (5/5 TUs)" "$T/make.out" && grep -q "9 products, byte for byte" "$T/make.out" ||
    fail "Makefile lane: $(tail -12 "$T/make.out")"
ok "Makefile lane (nvcc -g links, ar): 5/5 hits, 9 products byte for byte"

shardcc local -n 3 --clean 'rm -rf build' --compare build -- \
    sh -c 'cmake -S . -B build -G Ninja >/dev/null && cmake --build build' >"$T/cmake.out" 2>&1 ||
    fail "CMake lane: $(tail -20 "$T/cmake.out")"
grep -q "12 products, byte for byte" "$T/cmake.out" || fail "CMake lane: $(tail -12 "$T/cmake.out")"
ok "CMake lane (common.cu and util.cu in 3 targets each): 12 products byte for byte"

# nvcc's link modes through the seats: the same bytes twice; plain nvcc's differ, and
# compare --exact says they differ only in nvcc's per-run names
make clean >/dev/null
(
    eval "$(shardcc env --plain)"
    make -j2 >/dev/null 2>&1
    for i in 1 2; do
        "$CUDACXX" -g -arch=sm_90 -o build/t build/test_scan.o -Lbuild -lcommon
        "$CUDACXX" -g -arch=sm_90 -dlink -o build/d.o build/test_scan.o build/common.o
        cp build/t "$T/seat-exe-$i" && cp build/d.o "$T/seat-dlink-$i.o"
    done
)
cmp -s "$T/seat-exe-1" "$T/seat-exe-2" && cmp -s "$T/seat-dlink-1.o" "$T/seat-dlink-2.o" ||
    fail "nvcc's links through the seats differ from run to run"
ok "an executable and a -dlink object linked by nvcc -g through the seat: the same bytes twice"
for i in 1 2; do
    nvcc -g -arch=sm_90 -o build/t build/test_scan.o -Lbuild -lcommon
    cp build/t "$T/nvcc-exe-$i"
done
rc=0
shardcc compare --exact "$T/nvcc-exe-1" "$T/nvcc-exe-2" >"$T/cmp.out" 2>&1 || rc=$?
expect_eq "compare --exact of two plain nvcc -g links" "$rc" 1
grep -q "section .debug_line_str, offset 0x[0-9a-f]* (in nvcc's temporary name tmpxft_" "$T/cmp.out" &&
    grep -q "they are the same up to nvcc's per-run names" "$T/cmp.out" ||
    fail "compare's message: $(cat "$T/cmp.out")"
ok "compare --exact names the section, the temporary name, and that only per-run names differ"
shardcc compare "$T/nvcc-exe-1" "$T/nvcc-exe-2" >"$T/cmp.out" || fail "compare: $(cat "$T/cmp.out")"
shardcc compare "$T/seat-exe-1" "$T/seat-exe-2" >"$T/cmp.out" && grep -q "(byte for byte)" "$T/cmp.out" ||
    fail "compare of identical files: $(cat "$T/cmp.out")"
ok "compare of identical files says byte for byte, not 'N temp names masked'"
# the project's own README says make CUDA_HOME=/path: a command-line variable beats the
# environment; refused before anything is built, naming the word and the fix
start=$(date +%s)
expect_fail 2 'the build command sets CUDA_HOME=/usr/local/cuda: a variable given on make' \
    shardcc shard --shard 1/3 --artifact "$T" --clean 'make clean' -- make CUDA_HOME=/usr/local/cuda -j2
grep -q 'or write CUDA_HOME="$CUDA_HOME"' "$T/.err" || fail "no fix named: $(cat "$T/.err")"
[ ! -d build ] && [ $(($(date +%s) - start)) -lt 10 ] || fail "the refused shard built something, or took long"
ok "make CUDA_HOME=... is refused before any compile"
expect_fail 2 'the build command sets CMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc: a CMake cache entry' \
    shardcc shard --shard 2/3 --artifact "$T" -- \
    sh -c 'cmake -S . -B build -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc && cmake --build build'
expect_fail 2 'the build command sets CXX=g++' \
    shardcc shard --shard 1/3 --artifact "$T" -- env CXX=g++ make -j2
shardcc shard --shard 1/3 --artifact "$T" --clean 'make clean' -- sh -c 'make CUDA_HOME="$CUDA_HOME" -j2 >/dev/null' 2>"$T/.err" ||
    fail "CUDA_HOME=\"\$CUDA_HOME\" refused: $(cat "$T/.err")"
ok "make CUDA_HOME=\"\$CUDA_HOME\" (the seat's own value) is taken"
summary
