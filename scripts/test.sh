#!/usr/bin/env bash
# Builds shardcc and runs the whole test suite (unit + end-to-end against the real nvcc,
# ccache, CMake and Ninja), then once more under AddressSanitizer and
# UndefinedBehaviorSanitizer (clang): the unit tests, the libFuzzer smoke runs and the
# end-to-end suites labelled "san" (those whose time is shardcc's, not nvcc's).
# Installs missing Debian packages first.
#   scripts/test.sh            everything
#   scripts/test.sh -L unit    the fast subset (any ctest arguments are passed on; the
#                              sanitizer pass then runs only with SHARDCC_SANITIZE=1)
#   scripts/test.sh -L corpus  the real-project suite left out of the default run
#   SHARDCC_SANITIZE=0         skip the sanitizer pass
set -euo pipefail
cd "$(dirname "$0")/.."
# -L unit alone needs only the test build's tools (cmocka, the linters, clang, zizmor,
# actionlint); anything else may run the pipelines, the torch lane or the Windows suites
if [ "$*" = "-L unit" ]; then scripts/install-deps.sh --tests; else scripts/install-deps.sh; fi
export PATH="$PATH:/usr/local/cuda/bin"
echo "shardcc test: nvcc $(command -v nvcc), CUDA_HOME=${CUDA_HOME:-(unset)}, $(ccache --version | head -1)"
BUILD=${SHARDCC_BUILD_DIR:-build}
# the seat as users get it from scripts/install-deps.sh: static, musl (a missing musl-gcc
# fails here rather than quietly testing the slower glibc seat)
# the tests are asked for whatever the cache holds (the default build, scripts/demo.sh's
# too, leaves them out)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDCC_SEAT_LIBC=musl \
    -DSHARDCC_TESTS=ON >/dev/null
cmake --build "$BUILD"
# the labelled real-project suite (corpus) runs only when asked for: -L corpus
NARGS=$#
[ $# -gt 0 ] || set -- -LE corpus
# finding no test is a failure, not a pass
(cd "$BUILD" && ctest --output-on-failure --no-tests=error --timeout 900 "$@")

SANITIZE=${SHARDCC_SANITIZE:-$([ "$NARGS" -eq 0 ] && echo 1 || echo 0)}
[ "$SANITIZE" = 1 ] || exit 0
echo "shardcc test: once more under AddressSanitizer and UndefinedBehaviorSanitizer"
SAN=${SHARDCC_SAN_BUILD_DIR:-build-asan}
# the seat is linked dynamically here: the sanitizers' runtimes do not link statically
CC=clang cmake -S . -B "$SAN" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSHARDCC_STATIC_WRAPPER=OFF -DSHARDCC_FUZZ=ON -DSHARDCC_TESTS=ON \
    -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    >/dev/null
cmake --build "$SAN"
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-san.XXXXXX")
# A report goes to a file under LOGS and ends the process with status 86; the files are
# checked after the run as well, for reports from a process whose status a build ignored.
# Leak checking is on in the fuzz targets (their own ASAN_OPTIONS); the CLI, like most
# command-line tools, leaves its last allocations to the exit.
export ASAN_OPTIONS="log_path=$LOGS/asan:exitcode=86:detect_leaks=0"
export UBSAN_OPTIONS="log_path=$LOGS/ubsan:print_stacktrace=1:exitcode=86"
rc=0
(cd "$SAN" && ctest --output-on-failure --no-tests=error --timeout 900 -L '^(unit|fuzz|san)$' -E '^lint\.') || rc=$?
if [ -n "$(ls -A "$LOGS")" ]; then
    echo "shardcc test: sanitizer reports:" >&2
    for f in "$LOGS"/*; do echo "== $f" >&2; cat "$f" >&2; done
    rc=1
fi
rm -rf "$LOGS"
exit $rc
