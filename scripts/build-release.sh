#!/usr/bin/env bash
# build-release: shardcc's release archive for this machine's architecture.
#
#   scripts/build-release.sh [--out DIR] [--build DIR]
#   scripts/build-release.sh --windows [--deps DIR] [--out DIR] [--build DIR]
#
# Builds a Release shardcc with a static CLI (SHARDCC_STATIC_CLI) and the static musl seat,
# installs it into a staging prefix, checks that shardcc and shardcc-wrap are static
# executables that run and agree on their version, and writes into DIR (default dist/):
#   shardcc-VERSION-linux-ARCH.tar.gz         bin/, libexec/ and share/ as `cmake --install`
#                                             lays them out, under shardcc-VERSION-linux-ARCH/
#   shardcc-VERSION-linux-ARCH.tar.gz.sha256  its SHA-256, in sha256sum's format
# ARCH is `uname -m` (x86_64, aarch64). The archive is byte-stable for one source tree and
# toolchain: sorted names, owner 0, every time SOURCE_DATE_EPOCH (default: the last commit's
# time), gzip without a name or a time. The build directory defaults to a temporary one.
# The action's set-up step (ci/github/setup.sh) downloads and verifies these files;
# .github/workflows/release.yml builds them for a tag on x86_64 and aarch64 runners.
# --windows: the Windows binaries instead, cross-built with mingw-w64 against the CLI's
# libraries from Debian's source packages (scripts/windows-deps.sh, into --deps DIR,
# default BUILD/windows-deps), linked statically and without a link time stamp:
#   shardcc-VERSION-windows-x86_64.zip        bin/shardcc.exe, bin/shardcc-wrap.exe and the
#                                             seats' copies, under shardcc-VERSION-windows-x86_64/
#   shardcc-VERSION-windows-x86_64.zip.sha256
# checked to load no DLL beyond Windows' own (and, where Wine is installed, to run); the
# action's Windows set-up step (ci/github/setup-windows.ps1) downloads and verifies them.
# Exit status: 0, 1 when the build or a check fails, 2 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/dist
build=
windows=0
deps=
usage() {
    sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
while [ $# -gt 0 ]; do
    case "$1" in
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --windows) windows=1; shift ;;
    --deps) [ $# -ge 2 ] || usage; deps=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "build-release: unknown option $1" >&2; usage 2 ;;
    esac
done
die() {
    echo "build-release: $*" >&2
    exit 1
}

version=$(sed -n 's/^#define SHARDCC_VERSION "\(.*\)"/\1/p' "$here/src/common/version.h")
[ -n "$version" ] || die "no SHARDCC_VERSION in $here/src/common/version.h"
arch=$(uname -m)
name=shardcc-$version-linux-$arch
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-release.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -n "$build" ] || build=$tmp/build
: "${SOURCE_DATE_EPOCH:=$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH

if [ "$windows" = 1 ]; then
    name=shardcc-$version-windows-x86_64
    [ -n "$deps" ] || deps=$build/windows-deps
    echo "build-release: $name (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
    "$here/scripts/windows-deps.sh" "$deps" || die "the Windows CLI's libraries (scripts/windows-deps.sh $deps)"
    cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDCC_WINDOWS_DEPS="$deps" \
        -DCMAKE_TOOLCHAIN_FILE="$here/cmake/mingw-w64-x86_64.cmake" >/dev/null ||
        die "cmake could not configure the Windows build"
    cmake --build "$build" >/dev/null || die "the Windows build failed (cmake --build $build)"
    stage=$tmp/stage/$name
    cmake --install "$build" --prefix "$stage" >/dev/null || die "cmake --install failed"
    x86_64-w64-mingw32-strip "$stage"/bin/*.exe
    for f in "$stage"/bin/*.exe; do
        extra=$(x86_64-w64-mingw32-objdump -p "$f" | sed -n 's/.*DLL Name: //p' |
            grep -viE '^(kernel32|msvcrt|ws2_32|shell32|bcrypt|advapi32|user32)\.dll$' || true)
        [ -z "$extra" ] || die "$(basename "$f") loads DLLs beyond Windows' own: $extra"
    done
    if command -v wine >/dev/null; then
        for f in shardcc shardcc-wrap; do
            got=$(WINEDEBUG=-all wine "$stage/bin/$f.exe" --version </dev/null 2>/dev/null | tr -d '\r' | awk 'NR == 1 {print $2}')
            [ "$got" = "$version" ] || die "$f.exe --version under Wine says \"$got\", the source says $version"
        done
    fi
    mkdir -p "$out"
    # a zip with sorted names and every time SOURCE_DATE_EPOCH's: byte-stable
    python3 - "$tmp/stage" "$name" "$tmp/$name.zip" "$SOURCE_DATE_EPOCH" <<'PY' || die "writing $name.zip"
import os, sys, time, zipfile
root, name, out, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip's times start in 1980
files = []
for d, _, fs in os.walk(os.path.join(root, name)):
    files += [os.path.join(d, f) for f in fs]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for f in sorted(files):
        info = zipfile.ZipInfo(os.path.relpath(f, root).replace(os.sep, "/"), stamp)
        info.external_attr = 0o755 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, open(f, "rb").read())
PY
    (cd "$tmp" && sha256sum "$name.zip" >"$name.zip.sha256")
    mv "$tmp/$name.zip" "$tmp/$name.zip.sha256" "$out/"
    echo "build-release: $out/$name.zip ($(stat -c %s "$out/$name.zip") bytes)"
    cat "$out/$name.zip.sha256"
    exit 0
fi

echo "build-release: $name (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDCC_TESTS=OFF \
    -DSHARDCC_STATIC_CLI=ON -DSHARDCC_SEAT_LIBC=musl >/dev/null ||
    die "cmake could not configure the release build (scripts/install-deps.sh --release installs what it needs)"
cmake --build "$build" >/dev/null || die "the release build failed (cmake --build $build)"
stage=$tmp/stage/$name
cmake --install "$build" --prefix "$stage" >/dev/null || die "cmake --install failed"
strip "$stage/bin/shardcc" "$stage/bin/shardcc-wrap"

# the checks: static, running, one version
for f in shardcc shardcc-wrap; do
    desc=$(file -b "$stage/bin/$f")
    case "$desc" in
    *"statically linked"* | *"static-pie linked"*) ;;
    *) die "$f is not a static executable: $desc" ;;
    esac
    got=$("$stage/bin/$f" --version | awk 'NR == 1 {print $2}')
    [ "$got" = "$version" ] || die "$f --version says \"$got\", the source says $version"
done
for seat in shardcc-nvcc shardcc-nvcc-torch shardcc-c++ shardcc-cc; do
    [ "$(readlink "$stage/bin/$seat")" = shardcc-wrap ] || die "bin/$seat is not a link to shardcc-wrap"
done
[ -e "$stage/libexec/shardcc/ld-seat/ld" ] || die "libexec/shardcc/ld-seat/ld is missing"

mkdir -p "$out"
tar -C "$tmp/stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --format=gnu -cf - "$name" | gzip -n -9 >"$tmp/$name.tar.gz"
(cd "$tmp" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
mv "$tmp/$name.tar.gz" "$tmp/$name.tar.gz.sha256" "$out/"
echo "build-release: $out/$name.tar.gz ($(stat -c %s "$out/$name.tar.gz") bytes)"
cat "$out/$name.tar.gz.sha256"
