# compare streams a wheel member too large to hold (docs/security.md, "Limits on what is
# read"): two wheels with a 1 GiB member that differ only in nvcc temporary
# names, one of them across the boundary of compare's 1 MiB window, are the same, in at
# most 64 MiB of peak memory; a byte changed at 700 MiB is found and named.
. "$(dirname "$0")/lib.sh"
cd "$T"
command -v /usr/bin/time >/dev/null || fail "/usr/bin/time is missing (Debian's time package)"
python3 - <<'PY'
import zipfile
MiB = 1 << 20
def wheel(path, names, poke=None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("pkg/__init__.py", "x = 1\n")
        with z.open("pkg/big.bin", "w", force_zip64=True) as f:
            zero = bytes(MiB)
            for i in range(1024):
                chunk = bytearray(zero)
                if i == 0:  # straddles the first window's end
                    chunk[MiB - 10:] = names[0][:10].encode()
                if i == 1:
                    chunk[:14] = names[0][10:].encode()
                if i == 500:
                    chunk[100:124] = names[1].encode()
                if poke is not None and i == poke:
                    chunk[7] = 1
                f.write(chunk)
wheel("a.whl", ["tmpxft_0000abcd_00000001", "tmpxft_00001234_0000beef"])
wheel("b.whl", ["tmpxft_1111abcd_00000002", "tmpxft_99991234_0000cafe"])
wheel("c.whl", ["tmpxft_1111abcd_00000002", "tmpxft_99991234_0000cafe"], poke=700)
PY
ls -la a.whl b.whl c.whl | awk '{print $5, $9}'
rc=0
/usr/bin/time -f '%M' -o rss.txt shardcc compare a.whl b.whl >out.txt 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "two wheels that differ in temporary names only: exit $rc: $(cat out.txt)"
grep -q '^same: .*(2 temp names masked' out.txt || fail "compare's line: $(cat out.txt)"
ok "the same, 2 temp names masked (one across the window boundary): $(cat out.txt)"
rss=$(cat rss.txt)
[ "$rss" -le 65536 ] || fail "peak memory $rss KB, more than 64 MiB"
ok "peak memory $((rss / 1024)) MiB for a 1 GiB member (at most 64)"
rc=0
shardcc compare a.whl c.whl >out.txt 2>&1 || rc=$?
expect_eq "a byte changed at 700 MiB: exit" "$rc" 1
grep -q "wheel member pkg/big.bin: differs at byte $((700 * 1048576 + 7))" out.txt ||
    fail "the difference is not named at its byte: $(cat out.txt)"
ok "named: $(grep differs out.txt)"
# a shared library over the stream threshold whose build-ids differ: the note is found
# through the program headers of the first window (the section table is at the end)
printf 'const char pad[20 << 20] = {1};\nint f(void) { return pad[7]; }\n' >big.c
gcc -shared -fPIC -o libbig1.so big.c -Wl,--build-id=0x1111111111111111
gcc -shared -fPIC -o libbig2.so big.c -Wl,--build-id=0x2222222222222222
python3 - <<'PY'
import zipfile
for n in (1, 2):
    with zipfile.ZipFile("so%d.whl" % n, "w", zipfile.ZIP_DEFLATED) as z:
        z.write("libbig%d.so" % n, "pkg/libbig.so")
PY
cmp -s libbig1.so libbig2.so && fail "the two libraries are the same bytes"
shardcc compare so1.whl so2.whl >out.txt 2>&1 || fail "a large library whose build-ids differ: $(cat out.txt)"
ok "a 20 MiB library in a wheel, build-ids blanked while streaming: $(cat out.txt)"
echo "$CHECKS checks passed"
