#!/usr/bin/env bash
# The action's set-up step: shardcc on PATH (GITHUB_PATH), and a ccache it is tested with.
#
# shardcc: one already on PATH at the action's version is kept. Otherwise the release of the
# action's version for this machine (shardcc-VERSION-linux-ARCH.tar.gz, static binaries:
# scripts/build-release.sh, .github/workflows/release.yml) is downloaded from
#   $SHARDCC_RELEASE_URL (a mirror, a test), else
#   https://github.com/REPOSITORY/releases/download/vVERSION, REPOSITORY being the
#   release-repository input or else the action's own repository,
# checked against its .sha256 (and against the sha256 input when given) and unpacked into
# $RUNNER_TEMP/shardcc. With from-source: true it is built from the action's source instead
# (apt-based runners and dnf/yum-based manylinux containers).
# ccache: the system's when it is new enough, else the packages' (apt, dnf/yum), else a
# pinned release built from source.
# Exit status: 0; 2 for a bad input, a missing release or a system it cannot serve; 4 for a
# download that does not match its checksum.
set -euo pipefail
src=${SHARDCC_ACTION_PATH:?}
dest=${RUNNER_TEMP:-/tmp}/shardcc
min=$(sed -n 's/^#define SHARDCC_CCACHE_MIN "\(.*\)"/\1/p' "$src/src/core/toolchain.h")
ccache_version=4.10.2 # built from source where the system's ccache is older than $min
version=$(sed -n 's/^#define SHARDCC_VERSION "\(.*\)"/\1/p' "$src/src/common/version.h")
want="shardcc $version"
from_source=${SHARDCC_IN_FROM_SOURCE:-false}
pin=${SHARDCC_IN_SHA256:-}

error() { # error STATUS MESSAGE: one annotation, and the status
    local m=${2//'%'/'%25'}
    m=${m//$'\r'/'%0D'}
    echo "::error title=shardcc setup::${m//$'\n'/'%0A'}"
    exit "$1"
}
case "$from_source" in true | false) ;; *) error 2 "from-source is true or false, not \"${from_source//[^0-9A-Za-z._-]/?}\"" ;; esac
if [ -n "$pin" ] && { [ "${#pin}" != 64 ] || [ -n "${pin//[0-9a-f]/}" ]; }; then
    error 2 "sha256 is 64 lowercase hex digits, not \"${pin//[^0-9A-Za-z._-]/?}\""
fi

packages() { # what building shardcc or ccache needs
    echo "::group::shardcc: packages"
    if command -v apt-get >/dev/null; then
        "$src/scripts/install-deps.sh" --build
    elif command -v dnf >/dev/null || command -v yum >/dev/null; then
        local pm sudo=
        pm=$(command -v dnf || command -v yum)
        [ "$(id -u)" = 0 ] || sudo=sudo
        local pkgs=(cmake ninja-build gcc gcc-c++ make pkgconfig jansson-devel libarchive-devel
            libyaml-devel libzstd-devel xxhash-devel zstd file git)
        # ccache too where the repositories have it (EPEL's may be too old: built below)
        $sudo "$pm" install -y -q "${pkgs[@]}" ccache >/dev/null ||
            $sudo "$pm" install -y -q "${pkgs[@]}" >/dev/null
    else
        error 2 "neither apt-get nor dnf/yum found: install cmake, ninja, a C compiler, jansson, libarchive, libyaml, zstd and xxhash, then re-run"
    fi
    echo "::endgroup::"
}

fetch() { # fetch URL FILE
    if command -v curl >/dev/null; then
        curl -fsSL --retry 3 --connect-timeout 20 -o "$2" "$1"
    elif command -v wget >/dev/null; then
        wget -q --tries=3 --timeout=20 -O "$2" "$1"
    else
        error 2 "neither curl nor wget found to download $1: install one, or set from-source: true"
    fi
}

release() { # download, check and unpack the release; sets bin to its bin directory
    [ "$(uname -s)" = Linux ] ||
        error 2 "shardcc's releases are Linux binaries; on $(uname -s) set from-source: true"
    local arch name base repo tmp sum
    arch=$(uname -m)
    name=shardcc-$version-linux-$arch
    base=${SHARDCC_RELEASE_URL:-}
    if [ -z "$base" ]; then
        repo=${SHARDCC_IN_RELEASE_REPOSITORY:-${SHARDCC_ACTION_REPOSITORY:-}}
        [ -n "$repo" ] || error 2 "no repository to download shardcc $version from (the action runs from a local path): set release-repository: OWNER/shardcc, or from-source: true"
        base=https://github.com/$repo/releases/download/v$version
    fi
    tmp=$(mktemp -d "${RUNNER_TEMP:-/tmp}/shardcc-dl.XXXXXX")
    echo "::group::shardcc: release $version for linux-$arch from $base"
    if ! fetch "$base/$name.tar.gz.sha256" "$tmp/$name.tar.gz.sha256" ||
        ! fetch "$base/$name.tar.gz" "$tmp/$name.tar.gz"; then
        echo "::endgroup::"
        error 2 "no release of shardcc $version for linux-$arch at $base ($name.tar.gz and its .sha256): the action's ref is not a release, or the release lacks this architecture; set from-source: true to build it from the action's source"
    fi
    sum=$(cat "$tmp/$name.tar.gz.sha256")
    [[ "$sum" =~ ^[0-9a-f]{64}\ \ $name\.tar\.gz$ ]] ||
        error 4 "$base/$name.tar.gz.sha256 is not one SHA-256 line for $name.tar.gz"
    (cd "$tmp" && sha256sum -c --status "$name.tar.gz.sha256") ||
        error 4 "$base/$name.tar.gz does not match its .sha256 (a damaged or altered download): nothing was installed"
    [ -z "$pin" ] || [ "${sum%% *}" = "$pin" ] ||
        error 4 "$base/$name.tar.gz is sha256 ${sum%% *}, not the sha256 input's $pin: nothing was installed"
    rm -rf "${dest:?}/$name"
    mkdir -p "$dest"
    tar -xzf "$tmp/$name.tar.gz" --no-same-owner -C "$dest" ||
        error 4 "$name.tar.gz could not be unpacked into $dest"
    rm -rf "$tmp"
    local got
    got=$("$dest/$name/bin/shardcc" --version 2>&1) || true
    [ "$got" = "$want" ] || error 4 "the release's shardcc says \"$got\", not \"$want\""
    echo "shardcc: $want from $base/$name.tar.gz (sha256 ${sum%% *})"
    echo "::endgroup::"
    bin=$dest/$name/bin
}

from_source() { # build and install from the action's source; sets bin to its bin directory
    echo "::group::shardcc: build from source"
    if [ ! -x "$dest/bin/shardcc" ] || [ "$("$dest/bin/shardcc" --version)" != "$want" ]; then
        cmake -S "$src" -B "$dest/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDCC_TESTS=OFF \
            -DCMAKE_INSTALL_PREFIX="$dest" >/dev/null
        cmake --build "$dest/build"
        cmake --install "$dest/build" >/dev/null
    fi
    echo "::endgroup::"
    bin=$dest/bin
}

# a runner image (or an earlier step) that has this shardcc already
if command -v shardcc >/dev/null && [ "$(shardcc --version)" = "$want" ]; then
    bin=
    echo "shardcc: $want already on PATH ($(command -v shardcc))"
else
    [ "$from_source" = false ] || packages
fi

# ccache: the system's when it is new enough, else the packages', else built from source
ver() { "$1" --version 2>/dev/null | sed -n '1s/.*version \([0-9.]*\).*/\1/p'; }
newer() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$2" ]; } # newer A B: A >= B
ccache_ok() {
    local have=
    if command -v ccache >/dev/null; then have=$(ver ccache); fi
    [ -n "$have" ] && newer "$have" "$min"
}
if ! ccache_ok && [ "$from_source" = false ]; then
    packages # the system's ccache package, and what building one needs
fi
if ! ccache_ok; then
    echo "::group::shardcc: ccache $ccache_version from source (the system has $(ver ccache || true), shardcc needs $min)"
    rm -rf "$dest/ccache-src"
    git clone -q --depth 1 --branch "v$ccache_version" https://github.com/ccache/ccache.git "$dest/ccache-src"
    cmake -S "$dest/ccache-src" -B "$dest/ccache-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DENABLE_TESTING=OFF -DREDIS_STORAGE_BACKEND=OFF -DCMAKE_INSTALL_PREFIX="$dest" >/dev/null
    cmake --build "$dest/ccache-build" >/dev/null
    cmake --install "$dest/ccache-build" >/dev/null
    echo "$dest/bin" >>"${GITHUB_PATH:-/dev/null}"
    echo "::endgroup::"
fi

if [ "${bin-unset}" = unset ]; then
    if [ "$from_source" = true ]; then from_source; else release; fi
    echo "$bin" >>"${GITHUB_PATH:-/dev/null}"
    "$bin/shardcc" --version
fi
