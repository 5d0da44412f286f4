# The seat links libc only: every compiler call pays for each shared library it loads. Built
# with SHARDCC_STATIC_WRAPPER (the default) it is linked statically and loads none at all;
# otherwise ldd must show nothing but libc, the vdso and the loader. Where the build found
# musl-gcc (SHARDCC_SEAT_LIBC, from the build's CMake cache) the static seat is musl's and
# carries nothing of glibc's start-up, whose CPU probing costs every call.
. "$(dirname "$0")/lib.sh"
W="$SHARDCC_BIN/shardcc-wrap"
if file "$W" | grep "statically linked" >/dev/null; then
    expect_eq "dynamic section of shardcc-wrap" "$(readelf -d "$W" 2>&1 | grep -c NEEDED || true)" "0"
    ok "shardcc-wrap is statically linked: it loads no shared library"
else
    libs=$(ldd "$W" | awk '{print $1}' | sed 's/\.so.*//' | sort | tr '\n' ' ')
    case "$(uname -m)" in
    x86_64) want="/lib64/ld-linux-x86-64 libc linux-vdso " ;;
    aarch64) want="/lib/ld-linux-aarch64 libc linux-vdso " ;;
    *) want="$libs" ;;
    esac
    expect_eq "shared libraries of shardcc-wrap" "$libs" "$want"
fi
# the libc the seat says it has is the one the build chose, and the binary agrees
# (ctest passes it; run by hand, the build's CMake cache says)
want_libc=${SHARDCC_SEAT_LIBC:-$(sed -n 's/^SHARDCC_SEAT_LIBC_USED:INTERNAL=//p' "$SHARDCC_BIN/CMakeCache.txt" 2>/dev/null || true)}
[ -n "$want_libc" ] || fail "cannot tell which libc the build in $SHARDCC_BIN chose (SHARDCC_SEAT_LIBC unset, no CMakeCache.txt)"
expect_eq "shardcc-wrap --version" "$("$W" --version)" "shardcc-wrap $("$SHARDCC_BIN/shardcc" --version | awk '{print $2}') (libc: $want_libc)"
tunables=$(grep -c GLIBC_TUNABLES "$W" || true)
if [ "$want_libc" = musl ]; then
    expect_eq "glibc's tunables start-up in the musl seat" "$tunables" "0"
    expect_eq "shardcc-wrap is static" "$(file "$W" | grep -c 'statically linked' || true)" "1"
elif file "$W" | grep "statically linked" >/dev/null; then
    expect_eq "glibc's tunables start-up in the static glibc seat" "$tunables" "1"
fi
# whatever the linking, nothing but libc's symbols: no libarchive, jansson, yaml, zstd
for lib in archive_ json_ yaml_ ZSTD_; do
    expect_eq "no $lib symbols in shardcc-wrap" "$(nm "$W" 2>/dev/null | grep -c " [TU] $lib" || true)" "0"
done
for s in shardcc-nvcc shardcc-nvcc-torch shardcc-c++ shardcc-cc; do
    expect_eq "$s is the wrapper" "$(readlink -f "$SHARDCC_BIN/$s")" "$(readlink -f "$W")"
done
summary
