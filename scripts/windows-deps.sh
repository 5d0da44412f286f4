#!/usr/bin/env bash
# The Windows CLI's libraries, cross-built on Debian with mingw-w64 from Debian's own source
# packages (docs/windows.md): jansson, libyaml, libzstd and libarchive, static, into PREFIX.
# zlib comes built from Debian's binary package libz-mingw-w64-dev. Debian has no mingw builds
# of the other four; its source packages are the same sources and patches as its Linux
# libraries (dpkg-source applies the patches).
#   scripts/windows-deps.sh PREFIX     build what PREFIX lacks (about 3 min on 2 cores)
# Then: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DSHARDCC_WINDOWS_DEPS=PREFIX
# The sources are fetched with a private apt configuration that adds deb-src to the
# machine's own Debian sources (nothing under /etc is changed). A Windows runner takes the
# same libraries from vcpkg instead (docs/windows.md).
# Exit: 0 built (or already there), 2 usage or a missing tool, 4 a fetch or build failed.
set -euo pipefail

usage() { echo "usage: scripts/windows-deps.sh PREFIX" >&2; exit 2; }
[ $# -eq 1 ] || usage
case "$1" in -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
PREFIX=$(realpath -m "$1")
# Debian 12's versions; the stamp says which, so that a change rebuilds
PKGS=(jansson=2.14-2 libyaml=0.2.5-1 libzstd=1.5.4+dfsg2-5 libarchive=3.6.2-1+deb12u5)
STAMP="$PREFIX/.shardcc-windows-deps"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "${PKGS[*]}" ]; then
    exit 0
fi
for t in apt-get dpkg-source x86_64-w64-mingw32-gcc cmake ninja; do
    command -v "$t" >/dev/null || { echo "windows-deps: $t is missing (scripts/install-deps.sh)" >&2; exit 2; }
done
[ -f /usr/x86_64-w64-mingw32/lib/libz.a ] ||
    { echo "windows-deps: /usr/x86_64-w64-mingw32/lib/libz.a is missing (Debian: libz-mingw-w64-dev)" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-windeps.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
die() { echo "windows-deps: $*" >&2; exit 4; }

# apt, privately: the machine's deb822 sources with deb-src added, lists and cache in WORK
mkdir -p "$WORK/apt/parts" "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial"
n=0
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -q 'debian' "$f" || continue
    sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb deb-src/' "$f" >"$WORK/apt/parts/$n.sources"
    n=$((n + 1))
done
if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$WORK/apt/parts/src.list"
fi
[ -n "$(ls "$WORK/apt/parts")" ] || die "no Debian sources under /etc/apt to add deb-src to"
APT=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$WORK/apt/parts"
     -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::Cache=$WORK/apt/cache"
     -o APT::Sandbox::User=root -qq)
echo "windows-deps: fetching Debian's source packages: ${PKGS[*]}"
apt-get "${APT[@]}" update >"$WORK/update.log" 2>&1 || die "apt-get update (deb-src): $(tail -3 "$WORK/update.log")"
mkdir -p "$WORK/src"
(cd "$WORK/src" && apt-get "${APT[@]}" source --download-only "${PKGS[@]}") >"$WORK/fetch.log" 2>&1 ||
    die "apt-get source: $(grep -E '^(E|W):' "$WORK/fetch.log" | head -3)"
for dsc in "$WORK"/src/*.dsc; do
    name=$(basename "$dsc" .dsc)
    (cd "$WORK/src" && dpkg-source --no-check -x "$(basename "$dsc")" "${name%%_*}") >>"$WORK/extract.log" 2>&1 ||
        die "dpkg-source -x $(basename "$dsc"): $(tail -3 "$WORK/extract.log")"
done

TC="$(cd "$(dirname "$0")/.." && pwd)/cmake/mingw-w64-x86_64.cmake"
build() { # NAME SOURCE_DIR CMAKE_ARGS...
    local name=$1 src=$2
    shift 2
    echo "windows-deps: building $name"
    cmake -S "$src" -B "$WORK/b-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$TC" \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_FIND_ROOT_PATH="$PREFIX;/usr/x86_64-w64-mingw32" \
        -DBUILD_SHARED_LIBS=OFF -DCMAKE_POLICY_DEFAULT_CMP0074=NEW "$@" >"$WORK/$name.log" 2>&1 &&
        cmake --build "$WORK/b-$name" >>"$WORK/$name.log" 2>&1 &&
        cmake --install "$WORK/b-$name" >>"$WORK/$name.log" 2>&1 ||
        die "$name: $(grep -iE 'error' "$WORK/$name.log" | head -5)"
}
rm -rf "$PREFIX"
mkdir -p "$PREFIX"
build zstd "$WORK/src/libzstd/build/cmake" -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_SHARED=OFF \
    -DZSTD_BUILD_STATIC=ON -DZSTD_BUILD_TESTS=OFF -DZSTD_MULTITHREAD_SUPPORT=OFF
build jansson "$WORK/src/jansson" -DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF \
    -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_BUILD_SHARED_LIBS=OFF
build yaml "$WORK/src/libyaml" -DBUILD_TESTING=OFF -DINSTALL_CMAKE_DIR=lib/cmake/yaml
# zlib's calling convention is known (Debian's is built without ZLIB_WINAPI): libarchive's check
# for it is a try_run, which a cross build cannot run (CMake 3.25 crashes on it)
ZLIB=/usr/x86_64-w64-mingw32/lib/libz.a
# the formats and filters the artifact uses (tar + zstd, zip for wheels), nothing else
build archive "$WORK/src/libarchive" -DENABLE_TEST=OFF -DENABLE_TAR=OFF -DENABLE_CPIO=OFF -DENABLE_CAT=OFF \
    -DENABLE_ZSTD=ON -DENABLE_ZLIB=ON -DENABLE_BZip2=OFF -DENABLE_LZMA=OFF -DENABLE_LZ4=OFF -DENABLE_LIBXML2=OFF \
    -DENABLE_EXPAT=OFF -DENABLE_OPENSSL=OFF -DENABLE_NETTLE=OFF -DENABLE_LIBB2=OFF -DENABLE_CNG=OFF \
    -DENABLE_ICONV=OFF -DENABLE_ACL=OFF -DENABLE_XATTR=OFF -DENABLE_PCREPOSIX=OFF -DENABLE_PCRE2POSIX=OFF \
    -DZSTD_INCLUDE_DIR="$PREFIX/include" -DZSTD_LIBRARY="$PREFIX/lib/libzstd.a" \
    -DZLIB_INCLUDE_DIR=/usr/x86_64-w64-mingw32/include -DZLIB_LIBRARY="$ZLIB" \
    -DZLIB_WINAPI=0 -DZLIB_WINAPI_WITH_LIB="$ZLIB"
for lib in libjansson.a libyaml.a libzstd.a libarchive_static.a; do
    [ -f "$PREFIX/lib/$lib" ] || die "$lib is not in $PREFIX/lib after the build"
done
printf '%s\n' "${PKGS[*]}" >"$STAMP"
echo "windows-deps: done: $PREFIX"
