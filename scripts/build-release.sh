#!/usr/bin/env bash
# build-release: shardcc's release archive for this machine's architecture.
#
#   scripts/build-release.sh [--out DIR] [--build DIR]
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
# Exit status: 0, 1 when the build or a check fails, 2 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/dist
build=
usage() {
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
while [ $# -gt 0 ]; do
    case "$1" in
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
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
