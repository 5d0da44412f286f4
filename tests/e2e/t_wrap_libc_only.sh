# The seat links libc only: every compiler call pays for each shared library it loads.
. "$(dirname "$0")/lib.sh"
libs=$(ldd "$SHARDCC_BIN/shardcc-wrap" | awk '{print $1}' | sed 's/\.so.*//' | sort | tr '\n' ' ')
case "$(uname -m)" in
x86_64) want="/lib64/ld-linux-x86-64 libc linux-vdso " ;;
aarch64) want="/lib/ld-linux-aarch64 libc linux-vdso " ;;
*) want="$libs" ;;
esac
expect_eq "shared libraries of shardcc-wrap" "$libs" "$want"
for s in shardcc-nvcc shardcc-c++ shardcc-cc; do
    expect_eq "$s is the wrapper" "$(readlink -f "$SHARDCC_BIN/$s")" "$(readlink -f "$SHARDCC_BIN/shardcc-wrap")"
done
summary
