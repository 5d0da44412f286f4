#!/usr/bin/env bash
# The action's set-up step: the packages shardcc builds with, a ccache it is tested with,
# and shardcc itself, built from the action's own source into $RUNNER_TEMP/shardcc and put
# on PATH (GITHUB_PATH). apt-based runners and dnf/yum-based manylinux containers.
set -euo pipefail
src=${SHARDCC_ACTION_PATH:?}
dest=${RUNNER_TEMP:-/tmp}/shardcc
min=$(sed -n 's/^#define SHARDCC_CCACHE_MIN "\(.*\)"/\1/p' "$src/src/core/toolchain.h")
ccache_version=4.10.2 # built from source where the system's ccache is older than $min

want=$(sed -n 's/^#define SHARDCC_VERSION "\(.*\)"/shardcc \1/p' "$src/src/common/version.h")
# a runner image (or an earlier step) that has this shardcc already
if command -v shardcc >/dev/null && [ "$(shardcc --version)" = "$want" ]; then
    echo "shardcc: $want already on PATH ($(command -v shardcc))"
    exit 0
fi

echo "::group::shardcc: packages"
if command -v apt-get >/dev/null; then
    "$src/scripts/install-deps.sh" --build
elif command -v dnf >/dev/null || command -v yum >/dev/null; then
    pm=$(command -v dnf || command -v yum)
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo "$pm" install -y -q cmake ninja-build gcc gcc-c++ make pkgconfig jansson-devel \
        libarchive-devel libyaml-devel libzstd-devel xxhash-devel zstd file git >/dev/null
else
    echo "::error::shardcc: neither apt-get nor dnf/yum found: install cmake, ninja, a C compiler, jansson, libarchive, libyaml, zstd and xxhash, then re-run"
    exit 2
fi
echo "::endgroup::"

# ccache: the system's when it is new enough, else a pinned release built from source
ver() { "$1" --version 2>/dev/null | sed -n '1s/.*version \([0-9.]*\).*/\1/p'; }
newer() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$2" ]; } # newer A B: A >= B
have=
if command -v ccache >/dev/null; then have=$(ver ccache); fi
if [ -z "$have" ] || ! newer "$have" "$min"; then
    echo "::group::shardcc: ccache $ccache_version from source (the system has ${have:-none}, shardcc needs $min)"
    rm -rf "$dest/ccache-src"
    git clone -q --depth 1 --branch "v$ccache_version" https://github.com/ccache/ccache.git "$dest/ccache-src"
    cmake -S "$dest/ccache-src" -B "$dest/ccache-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DENABLE_TESTING=OFF -DREDIS_STORAGE_BACKEND=OFF -DCMAKE_INSTALL_PREFIX="$dest" >/dev/null
    cmake --build "$dest/ccache-build" >/dev/null
    cmake --install "$dest/ccache-build" >/dev/null
    echo "::endgroup::"
fi

echo "::group::shardcc: build"
if [ ! -x "$dest/bin/shardcc" ] || [ "$("$dest/bin/shardcc" --version)" != "$want" ]; then
    cmake -S "$src" -B "$dest/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDCC_TESTS=OFF \
        -DCMAKE_INSTALL_PREFIX="$dest" >/dev/null
    cmake --build "$dest/build"
    cmake --install "$dest/build" >/dev/null
fi
echo "::endgroup::"
echo "$dest/bin" >>"${GITHUB_PATH:-/dev/null}"
"$dest/bin/shardcc" --version
