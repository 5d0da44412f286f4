# A TU the shard does not own becomes a stub: a valid ELF relocatable object for the host,
# its depfile, both written atomically; real linkers accept it; a stub that cannot be
# written is exit 4 with the file named.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src build
printf 'template <int N> __global__ void k(float *x) { x[threadIdx.x] *= N; }\nvoid launch(float *x) { k<3><<<1, 32>>>(x); }\n' >src/a.cu
# src/a.cu is owned by shard 2 of 2 (XXH64("src/a.cu") mod 2 + 1 = 2): shard 1 stubs it.
eval "$(shardcc env --root . --shard 1/2)"
cd build
shardcc-nvcc -MD -MF a.o.d -c ../src/a.cu -o a.o
ok "stub written"
expect_eq "ELF type" "$(readelf -h a.o | awk -F: '/Type:/ {gsub(/^ +/, "", $2); print $2}')" "REL (Relocatable file)"
machine=$(readelf -h a.o | awk -F: '/Machine:/ {gsub(/^ +/, "", $2); print $2}')
case "$(uname -m)" in
x86_64) expect_eq "ELF machine" "$machine" "Advanced Micro Devices X86-64" ;;
aarch64) expect_eq "ELF machine" "$machine" "AArch64" ;;
esac
expect_eq "stub symbols" "$(readelf -Ws a.o | awk '$1 ~ /^[0-9]+:$/ && $8 != "" {n++} END {print n + 0}')" "0"
expect_eq "depfile" "$(cat a.o.d)" "a.o:"
expect_eq "no temporary files left" "$(ls -A | grep -c shardcc-tmp || true)" "0"
expect_eq "journal: one stub record" "$(journal_count "$SHARDCC_JOURNAL" tu stub 0)" "1"

# long-form depfile flags and a depfile named after the output (-MD without -MF)
shardcc-nvcc --generate-dependencies-with-compile --dependency-output long.d -c ../src/a.cu -o long.o
expect_eq "long-form depfile" "$(cat long.d)" "long.o:"
shardcc-nvcc -MD -c ../src/a.cu -o sub.o
expect_eq "default depfile name" "$(cat sub.d)" "sub.o:"

# real linkers accept it: a shared library (g++ and nvcc), a relocatable link, an archive,
# an executable (outside a job: in a shard the linker seat writes a placeholder for an
# executable that reads a stub; e2e.corpus_* checks that)
off() { SHARDCC_PHASE=off "$@"; }
{ off g++ -shared -o libstub.so a.o; } || fail "g++ -shared links a stub"
ok "g++ -shared links a stub"
{ off nvcc -shared -o libstub2.so a.o; } || fail "nvcc -shared links a stub"
ok "nvcc -shared links a stub"
{ off ld -r -o merged.o a.o long.o; } || fail "ld -r merges stubs"
ok "ld -r merges stubs"
{ ar rcs libstub.a a.o; } || fail "ar archives a stub"
ok "ar archives a stub"
printf 'int main(void) { return 0; }\n' >main.c
{ off gcc -o app main.c a.o && ./app; } || fail "an executable links with a stub and runs"
ok "an executable links with a stub and runs"
# in the shard: the same executable is a placeholder that names itself and the remedy
gcc -o app2 main.c a.o
expect_fail 1 "app2 is a placeholder: shard 1/2 linked it from stub objects" ./app2
expect_eq "journal: the placeholder link" "$(journal_count "$SHARDCC_JOURNAL" link placeholder 0)" "1"

# a stub that cannot be written: exit 4 naming the file, nothing half-written
mkdir ro && chmod 555 ro
if [ "$(id -u)" = 0 ]; then
    # root ignores directory permissions: use a path whose parent is a file instead
    expect_fail 4 "notadir/a.o" shardcc-nvcc -c ../src/a.cu -o a.o.d/notadir/a.o
else
    expect_fail 4 "ro/a.o" shardcc-nvcc -c ../src/a.cu -o ro/a.o
fi
expect_eq "journal records the failed stub" "$(journal_count "$SHARDCC_JOURNAL" tu stub 4)" "1"
summary
