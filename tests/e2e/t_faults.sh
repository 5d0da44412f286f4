# Fault catalogue, artifacts (untrusted input): each case hands shardcc merge one artifact
# with one fault next to a good one and expects exit 4, a message naming the file and the
# reason, and no cache left behind (the merge stages beside the target and renames only
# when everything passed). Truncated, corrupt zstd, corrupt tar, empty, absolute path,
# symlink, hard link, device, a manifest that lies both ways, a manifest that is not
# first, a decompression bomb, and a CMake configure state naming a directory outside the
# root or a file that is not CMake's. (The ../ entry, duplicates, foreign cells and
# fingerprints and nondeterministic results are in t_guards.)
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src
cd proj
for k in add mul; do
    printf '__global__ void %s_k(float *x) { x[threadIdx.x] += 1; }\nvoid %s(float *x) { %s_k<<<1, 32>>>(x); }\n' $k $k $k >src/$k.cu
done
printf '#!/bin/sh\nset -e\nrm -rf build && mkdir build\nfor k in add mul; do "$CUDACXX" -O2 -gencode=arch=compute_90,code=sm_90 -c "$PWD/src/$k.cu" -o build/$k.o; done\n' >build.sh
chmod +x build.sh
mkdir ../art ../bad
for i in 1 2; do
    shardcc shard --shard $i/2 --cell f --artifact ../art -- ./build.sh 2>/dev/null || fail "shard $i/2"
done
A1=../art/shard-f-1-of-2.tar.zst
A2=../art/shard-f-2-of-2.tar.zst
ok "two good shards"

# craft NAME KIND: an artifact for shard 1 with the good manifest and members, plus a fault
craft() {
    python3 - "$A1" "../bad/$1" "$2" <<'PY'
import io, json, subprocess, sys, tarfile
src, dst, kind = sys.argv[1:4]
raw = subprocess.run(["zstd", "-dc", src], capture_output=True, check=True).stdout
good = tarfile.open(fileobj=io.BytesIO(raw))
members = [(m, good.extractfile(m).read() if m.isfile() else None) for m in good.getmembers()]
man = json.loads(members[0][1])
out = io.BytesIO()
t = tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT)
def add(name, data=b"", type_=tarfile.REGTYPE, link=""):
    i = tarfile.TarInfo(name); i.type = type_; i.linkname = link
    i.size = len(data) if type_ == tarfile.REGTYPE else 0
    t.addfile(i, io.BytesIO(data) if type_ == tarfile.REGTYPE else None)
body = members[1:]
if kind == "lies-missing":   # the manifest lists an entry the archive lacks
    man["entries"].append({"path": "cache/z/z/zzzzR", "size": 5})
if kind == "lies-extra":     # the archive holds an entry the manifest does not list
    body = body + [(tarfile.TarInfo("cache/y/y/yyyyR"), b"extra")]
if kind == "not-first":
    add("cache/a/a/first")
# a CMake configure state the link job would write outside the root, or as another file
if kind == "cmake-escape":
    man["cmake"] = [{"dir": "../../outside", "files": {"CMakeCache.txt": "x"}}]
if kind == "cmake-differs": # shard 2 recorded none: merge warns, the link job configures afresh
    man["cmake"] = [{"dir": "build", "files": {"CMakeCache.txt": "x"}}]
if kind == "cmake-name":
    man["cmake"] = [{"dir": "build", "files": {"CMakeCache.txt": "x", "CMakeFiles/3.25.1/evil.sh": "x"}}]
m = json.dumps(man).encode()
add("manifest.json", m)
for info, data in body:
    if data is not None:
        add(info.name, data)
if kind == "absolute":
    add("/tmp/shardcc-faults-escaped", b"x")
if kind == "symlink":
    add("cache/a/b/linkR", type_=tarfile.SYMTYPE, link="/etc/passwd")
if kind == "hardlink":
    add("cache/a/b/hardR", type_=tarfile.LNKTYPE, link=members[1][0].name)
if kind == "device":
    add("cache/a/b/devR", type_=tarfile.CHRTYPE)
if kind == "bomb":            # 300 MiB of zeros: zstd makes it a few kB
    i = tarfile.TarInfo("cache/b/o/mbR"); i.size = 300 << 20
    class Zeros(io.RawIOBase):
        def __init__(self, n): self.n = n
        def readable(self): return True
        def readinto(self, b):
            k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
    t.addfile(i, io.BufferedReader(Zeros(i.size)))
t.close()
subprocess.run(["zstd", "-q", "-19", "-f", "-o", dst], input=out.getvalue(), check=True)
PY
}

n=0
expect_io() { # expect_io FILE TEXT: merge fails with 4, names FILE and TEXT, leaves no cache
    n=$((n + 1))
    expect_fail 4 "$2" shardcc merge --cache "../m$n" "$1" "$A2"
    grep -qF -- "$1" "$T/.err" || fail "the message does not name $1: $(cat "$T/.err")"
    [ ! -e "../m$n" ] && [ -z "$(ls -d ../m$n.* 2>/dev/null)" ] || fail "a cache or staging directory was left: $(ls -d ../m$n*)"
    ok "nothing left behind"
}

size=$(stat -c %s "$A1")
head -c $((size / 2)) "$A1" >../bad/truncated.tar.zst
expect_io ../bad/truncated.tar.zst "cannot open: Truncated zstd input"
head -c 4096 /dev/urandom >../bad/garbage.tar.zst
expect_io ../bad/garbage.tar.zst "cannot open: Unrecognized archive format"
head -c 4096 /dev/urandom | zstd -q >../bad/badtar.tar.zst
expect_io ../bad/badtar.tar.zst "cannot open: Unrecognized archive format"
: >../bad/empty.tar.zst
expect_io ../bad/empty.tar.zst "cannot open: Unrecognized archive format"
for kind in absolute symlink hardlink device lies-missing lies-extra not-first bomb cmake-escape \
    cmake-name cmake-differs; do
    craft "$kind.tar.zst" "$kind"
done
expect_io ../bad/absolute.tar.zst 'entry "/tmp/shardcc-faults-escaped"'
[ ! -e /tmp/shardcc-faults-escaped ] || fail "an absolute entry was written"
expect_io ../bad/symlink.tar.zst "is not a regular file (links and devices are refused)"
expect_io ../bad/hardlink.tar.zst "is not a regular file (links and devices are refused)"
expect_io ../bad/device.tar.zst "is not a regular file (links and devices are refused)"
expect_io ../bad/lies-missing.tar.zst 'the manifest lists "cache/z/z/zzzzR"'
expect_io ../bad/lies-extra.tar.zst "the archive holds"
expect_io ../bad/not-first.tar.zst 'the first member is "cache/a/a/first", not the file manifest.json'
expect_io ../bad/bomb.tar.zst "a decompression bomb"
expect_io ../bad/cmake-escape.tar.zst 'CMake configure state ("cmake"): build directory 1 is not a relative path inside the root'
expect_io ../bad/cmake-name.tar.zst '"CMakeFiles/3.25.1/evil.sh" is not a file of CMake'"'"'s configure state'

shardcc merge --cache ../m-differs ../bad/cmake-differs.tar.zst "$A2" >"$T/out" 2>&1 ||
    fail "configure states that differ failed the merge: $(cat "$T/out")"
grep -qF "the shards' CMake configure states differ (1 build directories against 0: shard 1's against shard 2's): the link job configures afresh" "$T/out" ||
    fail "no warning for configure states that differ: $(cat "$T/out")"
ok "configure states that differ: a warning, and the merge goes on"
# the link job stops at the same checks, before its build
expect_fail 4 "Truncated zstd input" shardcc link --artifacts ../bad/truncated.tar.zst "$A2" --expect-shards 2 -- ./build.sh
[ ! -e .shardcc/link/journal.tsv ] || fail "the link job ran its build after a bad artifact"
ok "the link job refuses before building"
summary
