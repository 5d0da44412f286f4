#!/usr/bin/env bash
# Builds shardcc and runs the whole test suite (unit + end-to-end against the real nvcc,
# ccache, CMake and Ninja). Installs missing Debian packages first.
#   scripts/test.sh            everything
#   scripts/test.sh -L unit    the fast subset (any ctest arguments are passed on)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
BUILD=${SHARDCC_BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD"
cd "$BUILD"
ctest --output-on-failure --timeout 900 "$@"
