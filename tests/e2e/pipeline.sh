# pipeline.sh: the shard -> merge -> link pipeline on the bundled CMake example, with the
# checks below (sourced by t_pipeline_*.sh after lib.sh).
#   pipeline GENERATOR-ARGS... -- N...
# For each N: N shard builds, each from a clean build tree with a cache of its own; then the
# link job from a clean tree. Checks, for each N: the link job's library is the same as the
# unsharded build's (shardcc compare: up to nvcc's temp names against plain nvcc; --exact,
# library and objects, against the unsharded build through the seats), every object in the
# link job's tree is byte-identical to the one its owner shard compiled, and the link job
# reports a 100 % hit rate with exact counts (24 TUs seen, 24 hits, 0 stubs).
EX="$SHARDCC_SRC/examples/cuda-cmake"
TUS=24

pipeline() {
    local gen=()
    while [ "$1" != -- ]; do gen+=("$1"); shift; done
    shift
    cd "$T"
    cp -r "$EX" proj
    cd proj
    export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
    local build="cmake -S . -B build $(printf '%q ' "${gen[@]}")--no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"
    sh -c "$build"
    if [ -n "${EXPECT_OPTIONS_FILE:-}" ]; then
        local nf
        nf=$(cd build && eval "$EXPECT_OPTIONS_FILE")
        [ "$nf" -ge 1 ] || fail "the build does not pass nvcc an --options-file"
        ok "the build passes nvcc --options-file ($nf places)"
    fi
    mv build ../plain
    ok "unsharded build (${gen[*]})"
    # and through the seats, unsharded (shardcc env --plain): the bytes a link job must make
    (eval "$(shardcc env --plain --cache "$T/plain-cache" --journal "$T/plain.tsv")" && sh -c "$build") ||
        fail "the unsharded build through the seats failed"
    mv build ../seat-plain
    ok "unsharded build through the seats (shardcc env --plain)"
    local n i
    for n in "$@"; do
        rm -rf ../art-$n && mkdir ../art-$n
        local owned_total=0
        for i in $(seq 1 "$n"); do
            rm -rf build
            shardcc shard --shard "$i/$n" --cell example --artifact ../art-$n -- sh -c "$build" 2>"$T/shard.err" ||
                fail "shard $i/$n failed: $(cat "$T/shard.err")"
            local j=.shardcc/shard-$i-of-$n/journal.tsv
            local owned seen
            owned=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "cache" && $4 == "nvcc"' "$j" | wc -l)
            seen=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $4 == "nvcc"' "$j" | wc -l)
            [ "$seen" = "$TUS" ] || fail "shard $i/$n saw $seen CUDA TUs, expected $TUS"
            owned_total=$((owned_total + owned))
            cp "$j" "../journal-$n-$i.tsv"
            mv build "../shard-$n-$i"
        done
        expect_eq "N=$n: every TU owned by exactly one shard" "$owned_total" "$TUS"
        [ -f "../art-$n/shard-example-$n-of-$n.tar.zst" ] || fail "N=$n: artifact missing"
        rm -rf build
        shardcc link --artifacts ../art-$n --expect-shards "$n" -- sh -c "$build" 2>"$T/link.err" ||
            fail "N=$n: link failed: $(cat "$T/link.err")"
        grep -qx "hit rate 100.0% ($TUS/$TUS TUs), 0 stubs, $n/$n shards" "$T/link.err" ||
            fail "N=$n: link summary: $(tail -3 "$T/link.err")"
        ok "N=$n: link reports hit rate 100.0% ($TUS/$TUS TUs), 0 stubs, $n/$n shards"
        expect_eq "N=$n: link journal hits" "$(journal_count .shardcc/link/journal.tsv tu cache 0)" "$TUS"
        expect_eq "N=$n: link journal hit outcomes" \
            "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $14 == "hit"' .shardcc/link/journal.tsv | wc -l)" "$TUS"
        shardcc compare build/libkern.so ../plain/libkern.so >"$T/cmp.out" ||
            fail "N=$n: $(cat "$T/cmp.out")"
        ok "N=$n: $(cat "$T/cmp.out")"
        # byte for byte against the unsharded build through the seats: library and objects
        local f exact=0
        for f in libkern.so $(cd build && find . -path '*.dir/*' -name '*.o' | sort); do
            shardcc compare --exact "build/$f" "../seat-plain/$f" >"$T/cmp.out" ||
                fail "N=$n: $f: not the unsharded build's bytes: $(cat "$T/cmp.out")"
            exact=$((exact + 1))
        done
        [ "$exact" -gt "$TUS" ] || fail "N=$n: only $exact products compared"
        ok "N=$n: libkern.so and $((exact - 1)) objects byte for byte the unsharded build's through the seats (compare --exact)"
        # every object in the link tree is its owner shard's bytes
        local same=0 key out owner
        while IFS=$'\t' read -r key out owner; do
            cmp -s "build/$out" "../shard-$n-$owner/$out" || fail "N=$n: $out differs from shard $owner's"
            same=$((same + 1))
        done < <(for i in $(seq 1 "$n"); do
            awk -F'\t' -v i="$i" '$7 == "tu" && $8 == "cache" && $4 == "nvcc" {print $12 "\t" $13 "\t" i}' "../journal-$n-$i.tsv"
        done)
        expect_eq "N=$n: link objects byte-identical to their owners'" "$same" "$TUS"
        mv build "../link-$n"
        rm -rf ../shard-$n-* # keep the disk use of the suite small
    done
}
