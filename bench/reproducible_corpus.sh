#!/usr/bin/env bash
# Byte-for-byte results on the CMake corpus fixture (tests/corpus/cmake: 13 executables,
# shared and static libraries, RDC with a device link, a -fatbin custom command, a PTX
# object library, a pinned generator), with and without --reproducible:
#   - two plain builds through the seats (shardcc env, no shard, fresh caches);
#   - N shards + the link job, against the first of those.
# Every ELF file of the build trees (objects, libraries, executables) is compared with
# `shardcc compare --exact`; the counts of files the same and different are printed.
#   bench/reproducible_corpus.sh [BUILD_DIR] [N]   writes bench/results/reproducible_corpus.txt
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
BIN=$(cd "${1:-$SRC/build}" && pwd)
N=${2:-3}
OUT="$HERE/results/reproducible_corpus.txt"
export PATH="$BIN:$PATH"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
W=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-repro.XXXXXX")
trap 'rm -rf "$W"' EXIT
exec > >(tee "$OUT") 2>&1
echo "reproducible_corpus: $(date -u +%Y-%m-%dT%H:%M:%S), $(uname -m), $(nproc) cores"
echo "nvcc: $(nvcc --version | tail -1); $(cmake --version | head -1); $(shardcc --version)"
cp -r "$SRC/tests/corpus/cmake" "$W/proj"
cd "$W/proj"
BUILD="rm -rf build && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"

plain() { # plain DEST [OPTIONS...]: a build through the seats, the link phase, a fresh cache
    local dest=$1
    shift
    (eval "$(shardcc env --root . --cache "$W/cache-$dest" "$@")" && sh -c "$BUILD")
    mv build "$W/$dest"
}
# ELF files of a build tree, less CMake's own probe programs (CMakeFiles/<version>/), which
# its configure step builds with the compilers run directly
elf_files() { (cd "$1" && find . -type f ! -path './CMakeFiles/[0-9]*' -exec sh -c 'head -c 4 "$1" | grep -q ELF' _ {} \; -print | sort); }
tally() { # tally WHAT A B
    local f same=0 diff=0 first=""
    for f in $(elf_files "$2"); do
        if shardcc compare --exact "$2/$f" "$3/$f" >/dev/null 2>&1; then
            same=$((same + 1))
        else
            diff=$((diff + 1))
            [ -n "$first" ] || first=$f
        fi
    done
    printf '  %-58s %3d same, %3d different%s\n' "$1:" "$same" "$diff" "${first:+ (first: $first)}"
}
shards() { # shards [OPTIONS...]: N shards and the link job, the link job's tree in $W/link
    rm -rf "$W/art" && mkdir "$W/art"
    local i
    for i in $(seq 1 "$N"); do
        shardcc shard "$@" --shard "$i/$N" --cell corpus --pin 'tools/*' --artifact "$W/art" -- sh -c "$BUILD" >/dev/null 2>&1
    done
    shardcc link "$@" --artifacts "$W/art" --expect-shards "$N" -- sh -c "$BUILD" 2>&1 | grep '^hit rate' | sed 's/^/  link job: /'
    rm -rf "$W/link" && mv build "$W/link"
}

echo
echo "without --reproducible:"
plain p1
plain p2
tally "plain build vs plain build (through the seats)" "$W/p1" "$W/p2"
shards
tally "link job (N=$N) vs plain build" "$W/link" "$W/p1"
echo
echo "with --reproducible:"
rm -rf "$W/p1" "$W/p2"
plain p1 --reproducible
plain p2 --reproducible
tally "plain build vs plain build (through the seats)" "$W/p1" "$W/p2"
shards --reproducible
tally "link job (N=$N) vs plain build" "$W/link" "$W/p1"
