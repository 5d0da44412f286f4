#!/usr/bin/env bash
# Prepares .gpu/ for a GPU host that has nvcc, torch and python but no package registry
# and no ccache: shardcc and Debian's ccache, with every shared library they need and
# Debian's loader, rewritten (patchelf) to load them from /tmp/shardcc-rt, so they run
# whatever the host's own C library is. scripts/gpu-torch-check.sh uses it there.
#   scripts/gpu-carry.sh [--pypi]   --pypi: also .gpu/pypi/, torchsort's sdist and pytest's
#                                   wheels (scripts/gpu-pypi-check.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
command -v patchelf >/dev/null || { apt-get install -y -qq patchelf >/dev/null; }
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDCC_TESTS=OFF >/dev/null
cmake --build build-gpu >/dev/null
RT=/tmp/shardcc-rt
rm -rf .gpu && mkdir -p .gpu/bin .gpu/rt
cp build-gpu/shardcc build-gpu/shardcc-wrap "$(command -v ccache)" .gpu/bin/
for s in shardcc-nvcc shardcc-nvcc-torch shardcc-c++ shardcc-cc; do ln -s shardcc-wrap .gpu/bin/$s; done
# the linker seat's names (shardcc env finds BINDIR/ld-seat)
mkdir .gpu/bin/ld-seat
for l in ld ld.bfd ld.gold ld.lld ld.mold; do ln -s ../shardcc-wrap .gpu/bin/ld-seat/$l; done
for b in shardcc ccache; do
    ldd ".gpu/bin/$b" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' | while read -r lib; do
        cp -L "$lib" .gpu/rt/
    done
    # DT_RPATH (not RUNPATH): it also governs the libraries' own dependencies
    patchelf --set-interpreter "$RT/$(basename "$(ldd .gpu/bin/$b | awk '/ld-linux/ {print $1}')")" \
        --force-rpath --set-rpath "$RT" ".gpu/bin/$b"
done
for lib in .gpu/rt/*.so*; do
    case "$lib" in */ld-linux*) continue ;; esac
    patchelf --force-rpath --set-rpath "$RT" "$lib"
done
if [ "${1:-}" = --pypi ]; then
    mkdir -p .gpu/pypi
    python3 -m pip download -q --no-deps --no-binary :all: --no-build-isolation -d .gpu/pypi torchsort==0.1.10
    python3 -m pip download -q --only-binary :all: -d .gpu/pypi pytest
fi
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
du -sh .gpu
