#!/usr/bin/env bash
# Prepares .gpu/fuzz/ for the long fuzz runs on the lent 16-core host (no package registry
# there): the libFuzzer targets of a sanitizer build (AddressSanitizer and UBSan, as
# scripts/test.sh builds them), zstd, every shared library they need and Debian's loader,
# rewritten (patchelf) to load from /tmp/shardcc-fuzz-rt, with the seed corpora and
# run_smoke.sh, and packs them into .gpu/fuzz.tgz (the carry's limit is 64 MiB; ICU's data
# alone is 31 MB unpacked). scripts/gpu-fuzz-run.sh unpacks and runs them there.
#   scripts/gpu-fuzz-carry.sh [SAN_BUILD_DIR]   (default build-asan, configured if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
SAN=${1:-build-asan}
RT=/tmp/shardcc-fuzz-rt
command -v patchelf >/dev/null || apt-get install -y -qq patchelf >/dev/null
CC=clang cmake -S . -B "$SAN" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDCC_STATIC_WRAPPER=OFF \
    -DSHARDCC_FUZZ=ON -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    >/dev/null
cmake --build "$SAN" --target fuzz >/dev/null
out=.gpu/fuzz
rm -rf "$out" && mkdir -p "$out/bin" "$out/rt"
cp "$SAN"/tests/fuzz/fuzz_* "$(command -v zstd)" "$out/bin/"
rm -f "$out"/bin/*.c
cp -r tests/fuzz/corpus tests/fuzz/run_smoke.sh "$out/"
for b in "$out"/bin/*; do
    ldd "$b" | awk '/=> \// {print $3} /^\t\/.*ld-linux/ {print $1}' | while read -r lib; do
        cp -L "$lib" "$out/rt/"
    done
    patchelf --set-interpreter "$RT/$(basename "$(ldd "$b" | awk '/ld-linux/ {print $1}')")" \
        --force-rpath --set-rpath "$RT" "$b"
done
for lib in "$out"/rt/*.so*; do
    case "$lib" in */ld-linux*) continue ;; esac
    patchelf --force-rpath --set-rpath "$RT" "$lib"
done
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
tar -C .gpu -czf .gpu/fuzz.tgz fuzz
du -sh "$out" .gpu/fuzz.tgz
