# corpus_cmake.sh: the CMake corpus fixture (tests/corpus/cmake: 13 executables, a shared
# library linked with --no-undefined, RDC and a device link, a -fatbin custom command
# embedded into a host object, a CUDA_PTX_COMPILATION library, a generator built from CUDA
# sources and run during the build, CTest tests) through shards and the link job with
# default options; the link job's executables and libraries are the unsharded build's
# through the seats byte for byte (compare --exact). Sourced after lib.sh by t_corpus_*.sh:
#   corpus GENERATOR N [extras]
# extras: launcher (a build with its own ccache launcher), stale (a shard's tree reused by
# the link job).
FX="$SHARDCC_SRC/tests/corpus/cmake"
TUS=19 # CUDA TUs: library 4, generator 2, RDC 2, apps 8, nbody 1, crc_check 2
DEV=2  # device-code-only outputs: the -fatbin custom command, the PTX library
ALL=$((TUS + DEV)) # what the link job counts
LINE="hit rate 100.0% ($ALL/$ALL TUs, $DEV of them device-code outputs)"

# The executables of a build tree (not CMake's own), relative to it, sorted.
corpus_exes() {
    (cd "$1" && find . -type f -perm -u+x ! -path '*/CMakeFiles/*' ! -name '*.so' | sort)
}

is_placeholder() {
    head -c 64 "$1" | grep "shardcc placeholder" >/dev/null
}

corpus() {
    local gen=$1 n=$2
    shift 2
    cd "$T"
    rm -rf proj plain art
    cp -r "$FX" proj
    cd proj
    export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
    local build="cmake -S . -B build -G '$gen' -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"

    # the unsharded build through the seats (shardcc env --plain): the bytes a link job makes
    (eval "$(shardcc env --plain --cache "$T/plain-cache" --journal "$T/plain.tsv")" && sh -c "$build") ||
        fail "the unsharded build through the seats failed"
    (cd build && ctest >"$T/ctest.out" 2>&1) || fail "the unsharded build's tests fail: $(tail "$T/ctest.out")"
    mv build ../plain
    expect_eq "unsharded build ($gen): executables" "$(corpus_exes ../plain | wc -l)" "13"

    # Without a pin, a shard that does not compile the generator's main writes a
    # placeholder for it; the build runs it and fails with the remedy.
    local owner other
    owner=$(shardcc classify --root . --shard "1/$n" -- nvcc -c tools/gen_table/main.cu -o m.o |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["owner"])')
    other=$((owner % n + 1))
    mkdir -p ../art
    expect_fail 1 "gen_table is a placeholder: shard $other/$n linked it from stub objects" \
        shardcc shard --shard "$other/$n" --cell corpus --artifact ../art -- sh -c "${build%>/dev/null}>&2"
    grep -qF "pin the sources it is built from (--pin GLOB)" "$T/.err" ||
        fail "shard $other/$n's failure does not name the remedy: $(cat "$T/.err")"
    ok "the remedy (--pin) is named"
    expect_eq "no artifact from the failed shard" "$(find ../art -name '*.tar.zst' | wc -l)" "0"

    # With the generator pinned, every shard succeeds.
    local i j placeholders files
    for i in $(seq 1 "$n"); do
        rm -rf build
        shardcc shard --shard "$i/$n" --cell corpus --pin 'tools/*' --artifact ../art -- \
            sh -c "$build" 2>"$T/shard.err" || fail "shard $i/$n failed: $(cat "$T/shard.err")"
        j=.shardcc/shard-$i-of-$n/journal.tsv
        expect_eq "shard $i/$n: pinned TUs compiled" "$(journal_count "$j" tu pin 0)" "2"
        expect_eq "shard $i/$n: device-code outputs made (never stubbed)" \
            "$(journal_count "$j" tu device 0)" "$DEV"
        expect_eq "shard $i/$n: device-code outputs and their manifests in its artifact" \
            "$(tar --zstd -tf "../art/shard-corpus-$i-of-$n.tar.zst" | grep -c 'D$')" "$((2 * DEV))"
        [ -x build/gen_table ] && ! is_placeholder build/gen_table ||
            fail "shard $i/$n: the pinned generator is not a real program"
        placeholders=$(journal_count "$j" link placeholder 0)
        files=0
        for e in $(corpus_exes build); do
            if is_placeholder "build/$e"; then files=$((files + 1)); fi
        done
        expect_eq "shard $i/$n: placeholder executables (journal = tree)" "$files" "$placeholders"
        [ "$placeholders" -ge 1 ] || fail "shard $i/$n wrote no placeholder (did it link from stubs?)"
    done
    expect_eq "artifacts" "$(find ../art -name '*.tar.zst' | wc -l)" "$n"

    # A placeholder fails the test that runs it, with its message.
    local failed
    failed=$( (cd build && ctest --output-on-failure 2>&1) | grep -c "is a placeholder: shard $n/$n" || true)
    [ "$failed" -ge 1 ] || fail "no test of shard $n/$n's tree ran into a placeholder"
    (cd build && ctest >"$T/ctest.out" 2>&1) && fail "shard $n/$n's tests passed on placeholders"
    ok "placeholders fail the tests that run them ($failed)"

    if [ "${1:-}" = stale ]; then
        # the link job in a shard's tree whose objects were kept (a restored CI cache of the
        # build directory): its links read the stubs and are refused
        shift
        find build -path '*/CMakeFiles' -prune -o -type f \( -perm -u+x -o -name '*.so' \) -print |
            xargs rm -f
        expect_fail 1 "an output of a shard reached the link job" \
            shardcc link --artifacts ../art --expect-shards "$n" -- sh -c "${build%>/dev/null}>&2"
    fi

    rm -rf build
    shardcc link --artifacts ../art --expect-shards "$n" -- sh -c "$build" >"$T/link.out" 2>&1 ||
        fail "link job failed: $(cat "$T/link.out")"
    grep -qF "$LINE, 0 stubs, $n/$n shards" "$T/link.out" ||
        fail "link job: $(tail -3 "$T/link.out")"
    ok "link job: $LINE"
    # CMake's configure state came from the shards: no compiler identification, no ABI probe
    grep -qF "shardcc link: build/: the shards' CMake configure state written" "$T/link.out" ||
        fail "link job: the shards' configure state was not written: $(cat "$T/link.out")"
    expect_eq "link job: CMake's compiler probes (its configure state came from the shards)" \
        "$(awk -F'\t' '$1 == "SCJ2" && $7 == "probe"' .shardcc/link/journal.tsv | wc -l)" "0"
    expect_eq "link job: device-code outputs from the store" \
        "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "device" && $14 == "hit"' \
            .shardcc/link/journal.tsv | wc -l)" "$DEV"
    cmp -s build/src/driver/scale.fatbin ../plain/src/driver/scale.fatbin ||
        fail "link job: scale.fatbin differs from the unsharded build's"
    ok "link job: scale.fatbin the same bytes as the unsharded build's"
    grep -qF "results of pinned TUs differ between shards" "$T/link.out" && [ "$n" -gt 1 ] &&
        ok "link job: the pinned TUs' copies come from shard 1"
    (cd build && ctest >"$T/ctest.out" 2>&1) || fail "the link job's tests fail: $(tail "$T/ctest.out")"
    expect_eq "link job: tests passed" "$(grep -c 'Passed' "$T/ctest.out")" "12"

    local f same=0
    for f in $(corpus_exes build) ./src/core/libcorpus_core.so ./src/rdc/libcorpus_rdc.a; do
        shardcc compare --exact "build/$f" "../plain/$f" >"$T/cmp.out" 2>&1 ||
            fail "$f: the link job's differs from the unsharded build's: $(cat "$T/cmp.out")"
        same=$((same + 1))
    done
    expect_eq "link job's executables and libraries byte for byte the unsharded build's (compare --exact)" "$same" "15"

    if [ "${1:-}" = launcher ]; then
        corpus_launcher "$gen" "$n"
    fi
}

# The build's own ccache as CMAKE_CUDA_COMPILER_LAUNCHER, with a cache directory of its
# own: shardcc env's CCACHE_DISABLE makes it pass calls on, so it stores no stub and the
# link job's objects are real; one that is kept on is refused by the seat.
corpus_launcher() {
    local gen=$1 n=$2 i
    local launch="-DCMAKE_CUDA_COMPILER_LAUNCHER=env;CCACHE_DIR=$T/outer;ccache"
    local build="cmake -S . -B build -G '$gen' -DCMAKE_BUILD_TYPE=Release '$launch' >/dev/null && cmake --build build >/dev/null"
    rm -rf ../art-l "$T/outer" && mkdir ../art-l
    for i in $(seq 1 "$n"); do
        rm -rf build
        shardcc shard --shard "$i/$n" --cell corpus --pin 'tools/*' --artifact ../art-l -- \
            sh -c "$build" 2>"$T/shard.err" || fail "launcher: shard $i/$n failed: $(cat "$T/shard.err")"
    done
    rm -rf build
    # (and the link job's configure afresh, as in a plain build)
    shardcc link --fresh-configure --artifacts ../art-l --expect-shards "$n" -- sh -c "$build" \
        >"$T/link.out" 2>&1 || fail "launcher: link job failed: $(cat "$T/link.out")"
    grep -qF "$LINE" "$T/link.out" || fail "launcher: $(tail -3 "$T/link.out")"
    grep -qF -- "--fresh-configure: the shards' CMake configure state is not used" "$T/link.out" ||
        fail "launcher: --fresh-configure not said: $(cat "$T/link.out")"
    [ "$(awk -F'\t' '$1 == "SCJ2" && $7 == "probe"' .shardcc/link/journal.tsv | wc -l)" -gt 0 ] ||
        fail "launcher: --fresh-configure: CMake identified no compiler"
    grep -q "^CMAKE_CUDA_COMPILER_LAUNCHER.*CCACHE_DIR=$T/outer;ccache" build/CMakeCache.txt ||
        fail "launcher: the build does not use the launcher"
    expect_eq "launcher: results in the build's own cache" "$(find "$T/outer" -name '*R' 2>/dev/null | wc -l)" "0"
    (cd build && ctest >"$T/ctest.out" 2>&1) || fail "launcher: the link job's tests fail"
    shardcc compare --exact build/src/core/libcorpus_core.so ../plain/src/core/libcorpus_core.so >/dev/null ||
        fail "launcher: libcorpus_core.so differs from the unsharded build's"
    ok "launcher: the link job's library is real and the same as the unsharded build's"

    # An outer ccache kept on (CCACHE_DISABLE removed again): it runs the seat as its child
    # for the preprocessing, the seat refuses (its parent is ccache), and ccache falls back
    # to running the compiler uncached: again nothing of the shard lands in its cache.
    local keep="-DCMAKE_CUDA_COMPILER_LAUNCHER=env;-u;CCACHE_DISABLE;CCACHE_DIR=$T/outer2;ccache"
    rm -rf build
    shardcc shard --shard "1/$n" --cell corpus --pin 'tools/*' --artifact ../art-l -- \
        sh -c "cmake -S . -B build -G '$gen' '$keep' >/dev/null && cmake --build build >/dev/null" \
        2>"$T/shard.err" || fail "launcher kept on: shard 1/$n failed: $(cat "$T/shard.err")"
    expect_eq "launcher kept on: results in its cache" "$(find "$T/outer2" -name '*R' | wc -l)" "0"
    CCACHE_DIR=$T/outer2 ccache -s -v | grep "Preprocessing failed: *$TUS /" >/dev/null ||
        fail "launcher kept on: its calls were not refused: $(CCACHE_DIR=$T/outer2 ccache -s -v)"
    ok "launcher kept on: the seat refused to run under it, every call"
    # sccache has no switch to pass calls on: a seat run by it refuses, naming it.
    mkdir -p "$T/launcher" && cp /bin/sh "$T/launcher/sccache"
    eval "$(shardcc env --shard "1/$n" --root .)"
    expect_fail 2 "the build runs this seat through $T/launcher/sccache, a compiler launcher of its own" \
        "$T/launcher/sccache" -c 'shardcc-nvcc -c src/core/blas.cu -o blas.o; exit $?'
}
