# The bundled CMake example (examples/cuda-cmake: 24 CUDA TUs, 2 host TUs, one shared
# library) built with shardcc-nvcc as CUDACXX and shardcc-c++ as the C++ compiler, sharding
# off: CMake's compiler identification and ABI probes run the real compilers directly, every
# TU goes through ccache, the library equals the plain build's up to nvcc's temp names, and
# a fresh build tree at the same path replays every TU as a direct hit with the first
# build's bytes.
. "$(dirname "$0")/lib.sh"
EX="$SHARDCC_SRC/examples/cuda-cmake"
cd "$T"
cp -r "$EX" proj
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--build-id=none")

cmake -S proj -B plain "${common[@]}" >/dev/null
cmake --build plain >/dev/null
ok "plain build"

eval "$(shardcc env --root "$T/proj" --host-seat)" # every host TU through the seat
export CCACHE_STATSLOG="$T/stats.log"
CXX="$SHARDCC_BIN/shardcc-c++" cmake -S proj -B proj/build1 "${common[@]}" >/dev/null
grep -q "CMAKE_CUDA_COMPILER:FILEPATH=$SHARDCC_BIN/shardcc-nvcc" proj/build1/CMakeCache.txt ||
    fail "CMake did not take shardcc-nvcc from CUDACXX"
ok "configure with the seats in place"
probes=$(journal_count "$SHARDCC_JOURNAL" probe direct 0)
[ "$probes" -ge 2 ] || fail "expected CMake's probes to run directly, journal has $probes"
ok "CMake's probes ran the real compilers directly ($probes calls)"
expect_eq "configure cached nothing" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "0"
rm -f "$SHARDCC_JOURNAL"
cmake --build proj/build1 >/dev/null
expect_eq "journal: TU compiles through ccache" "$(journal_count "$SHARDCC_JOURNAL" tu cache 0)" "26"
expect_eq "journal: stubs" "$(journal_count "$SHARDCC_JOURNAL" tu stub)" "0"
expect_eq "journal: CUDA TUs" "$(awk -F'\t' '$1 == "SCJ2" && $4 == "nvcc" && $7 == "tu"' "$SHARDCC_JOURNAL" | wc -l)" "24"
expect_eq "ccache misses" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "26"
same_masked "libkern.so: seat build vs plain build" proj/build1/libkern.so plain/libkern.so

# a fresh build tree at the same path (a fresh CI job: ccache's keys hold absolute paths,
# and the tree's generated files are under it)
: >"$CCACHE_STATSLOG"
rm -f "$SHARDCC_JOURNAL"
mv proj/build1 first
CXX="$SHARDCC_BIN/shardcc-c++" cmake -S proj -B proj/build1 "${common[@]}" >/dev/null
cmake --build proj/build1 >/dev/null
expect_eq "fresh tree: direct hits" "$(statslog_count "$CCACHE_STATSLOG" direct_cache_hit)" "26"
expect_eq "fresh tree: misses" "$(statslog_count "$CCACHE_STATSLOG" cache_miss)" "0"
n=0
for o in $(cd first && find CMakeFiles/kern.dir -name '*.o'); do
    cmp -s "first/$o" "proj/build1/$o" || fail "$o: replayed bytes differ"
    n=$((n + 1))
done
expect_eq "replayed objects identical to the first build's" "$n" "26"
same_masked "libkern.so: replayed build vs plain build" proj/build1/libkern.so plain/libkern.so
summary
