# shardcc compare: "the same bytes" up to nvcc's temp names and the GNU build-id, for
# objects, shared and static libraries and wheels; a real difference is found and named.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir src
printf 'template <int N> __global__ void k(float *x) { x[threadIdx.x] *= N; }\nvoid launch(float *x) { k<3><<<1, 32>>>(x); }\n' >src/a.cu
printf '__global__ void kb(float *x) { x[0] = 2; }\nvoid launch_b(float *x) { kb<<<1, 1>>>(x); }\n' >src/b.cu
for r in 1 2; do
    mkdir r$r
    for s in a b; do nvcc -O2 -Xcompiler -fPIC -c src/$s.cu -o r$r/$s.o; done
    g++ -shared -o r$r/lib.so r$r/a.o r$r/b.o # with a GNU build-id
    ar rcs r$r/lib.a r$r/a.o r$r/b.o
done
cmp -s r1/a.o r2/a.o && fail "two nvcc runs gave identical objects: the test would prove nothing"
ok "two plain nvcc runs differ in raw bytes"
shardcc compare r1/a.o r2/a.o >out || fail "objects: $(cat out)"
{ grep -q "same: .* ([1-9][0-9]* temp names* masked)" out; } || fail "objects: $(cat out)"
ok "objects: $(cat out)"
shardcc compare r1/lib.so r2/lib.so >out || fail "shared libraries: $(cat out)"
ok "shared libraries with build-ids: $(cat out)"
shardcc compare r1/lib.a r2/lib.a >out || fail "static libraries: $(cat out)"
{ grep -q "members compared" out; } || fail "static libraries: $(cat out)"
ok "static libraries: $(cat out)"

# a real difference is a difference, named
nvcc -O0 -Xcompiler -fPIC -c src/a.cu -o a-O0.o
rc=0
shardcc compare r1/a.o a-O0.o >out || rc=$?
expect_eq "-O0 vs -O2: exit status" "$rc" "1"
grep -q "^different: .*: section \.[a-z_.]*, offset 0x" out || grep -q "^different: .*sizes differ" out ||
    fail "no location named: $(cat out)"
ok "$(cat out)"
mkdir alt && cp a-O0.o alt/a.o && ar rcs other.a alt/a.o r1/b.o
rc=0
shardcc compare r1/lib.a other.a >out || rc=$?
expect_eq "static libraries with a different member: exit status" "$rc" "1"
{ grep -q "archive member a.o: section" out; } || fail "the member is named: $(cat out)"
ok "the member is named: $(cat out)"

# wheels: member by member; RECORD hashes of members equal only up to masking are ignored
python3 - <<'PY'
import base64, hashlib, zipfile
def wheel(path, lib, extra=None):
    members = {"pkg/__init__.py": b"", "pkg/_ext.so": open(lib, "rb").read()}
    if extra:
        members.update(extra)
    record = ""
    for n, d in members.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()
        record += "%s,sha256=%s,%d\n" % (n, h, len(d))
    record += "pkg-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for n, d in members.items():
            z.writestr(n, d)
        z.writestr("pkg-1.0.dist-info/RECORD", record)
wheel("w1.whl", "r1/lib.so")
wheel("w2.whl", "r2/lib.so")
wheel("w3.whl", "r2/lib.so", {"pkg/extra.txt": b"x"})
PY
shardcc compare w1.whl w2.whl >out || fail "wheels: $(cat out)"
ok "wheels: $(cat out)"
rc=0
shardcc compare w1.whl w3.whl >out || rc=$?
expect_eq "a wheel with an extra member: exit status" "$rc" "1"
{ grep -q "pkg/extra.txt is only in B" out; } || fail "$(cat out)"
ok "$(cat out)"

# --exact: byte for byte. Two plain nvcc runs differ (their temp names), and the message
# names the section; nvcc's --objdir-as-tempdir (-objtemp) names its temporaries after the
# object instead, so two runs with the same -o are the same bytes (ccache's hit too)
rc=0
shardcc compare --exact r1/a.o r2/a.o >out || rc=$?
expect_eq "--exact, two plain nvcc runs: exit status" "$rc" "1"
{ grep -q "^different: .*: section \.strtab, offset 0x" out; } || fail "--exact: $(cat out)"
ok "--exact: $(cat out)"
for r in 1 2; do nvcc -objtemp -O2 -Xcompiler -fPIC -c src/a.cu -o ot.o && mv ot.o ot$r.o; done
shardcc compare --exact ot1.o ot2.o >out || fail "--exact, two nvcc -objtemp runs: $(cat out)"
{ grep -q "same: .* (byte for byte)" out; } || fail "--exact: $(cat out)"
ok "--exact, two nvcc -objtemp runs with the same -o: $(cat out)"
rc=0
shardcc compare --exact r1/lib.so r2/lib.so >out || rc=$?
expect_eq "--exact, shared libraries (build-ids not blanked): exit status" "$rc" "1"
rc=0
shardcc compare --exact w1.whl w2.whl >out || rc=$?
expect_eq "--exact, wheels (RECORD hashes not blanked): exit status" "$rc" "1"
shardcc compare --exact w1.whl w1.whl >out || fail "--exact, a wheel against itself: $(cat out)"
{ grep -q "same: .* (byte for byte, [0-9]* members compared)" out; } || fail "$(cat out)"
ok "--exact, a wheel against itself: $(cat out)"
expect_fail 2 'unknown option "--bogus"' shardcc compare --bogus r1/a.o r2/a.o

expect_fail 2 "expects two files" shardcc compare r1/a.o
expect_fail 4 "cannot read" shardcc compare r1/a.o /nonexistent/b.o
summary
