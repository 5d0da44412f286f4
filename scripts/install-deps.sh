#!/usr/bin/env bash
# Installs what shardcc needs to build and test, from Debian's repositories, when missing.
# Idempotent: installs nothing (and runs no apt-get) when everything is present.
set -euo pipefail

PKGS=(cmake ninja-build make gcc g++ pkg-config ccache libcmocka-dev libxxhash-dev
      libjansson-dev libarchive-dev libzstd-dev binutils perl python3 file zstd clang clang-format)

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "shardcc: installing missing Debian packages: ${missing[*]}"
    SUDO=
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || { echo "shardcc: need root or sudo to install ${missing[*]}" >&2; exit 2; }
        SUDO=sudo
    fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "shardcc: nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit" >&2
    exit 2
fi
