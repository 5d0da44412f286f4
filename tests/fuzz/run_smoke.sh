#!/usr/bin/env bash
# run_smoke: one fuzz.<name> test. Fuzzes a copy of the seed corpus for a while and fails on
# any crash, leak, timeout, out-of-memory or sanitizer report (libFuzzer exits non-zero).
#
#   tests/fuzz/run_smoke.sh FUZZER SEED_DIR WORK_DIR [SECONDS]   (default 30 s)
#
# WORK_DIR is emptied and receives the corpus copy (corpus/, grown by the run), TMPDIR
# (tmp/, where the target makes its temporary directory), the inputs that failed
# (crashes/) and libFuzzer's output (fuzz.log). For the artifact target, raw artifact seeds
# (plain tar and tar.zst, good and faulty, as tests/e2e/t_faults.sh makes them) are made
# here with Python's tarfile and zstd ($PYTHON, $ZSTD; default python3, zstd), rather
# than checked in as binaries. Prints libFuzzer's last status line and its final
# "Done N runs in S second(s)"; on failure, the end of its output.
set -euo pipefail

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
fuzzer=$1
seeds=$2
work=$3
seconds=${4:-30}
case "$seconds" in '' | *[!0-9]*) echo "run_smoke: SECONDS must be a number, not \"$seconds\"" >&2; exit 2 ;; esac
[ -x "$fuzzer" ] || { echo "run_smoke: $fuzzer is not an executable" >&2; exit 2; }
[ -d "$seeds" ] || { echo "run_smoke: no seed directory $seeds" >&2; exit 2; }
name=$(basename "$fuzzer")

rm -rf "$work"
mkdir -p "$work/corpus" "$work/tmp" "$work/crashes"
cp "$seeds"/* "$work/corpus/"

# artifact_seeds DIR: tar members for the fixed cache the harness also uses (c1/)
artifact_seeds() {
    "${PYTHON:-python3}" - "$1" "${ZSTD:-zstd}" <<'PY'
import io, json, subprocess, sys, tarfile
out, zstd = sys.argv[1:3]
members = [("cache/a/b/c0ffee00M", b"manifest one"), ("cache/a/b/c0ffee00R", b"result one"),
           ("cache/d/e/d00dR", b"d00d")]
def manifest(entries):
    return json.dumps({"format": 2, "tool": "shardcc 0.1.0", "ccache": "4.7.5", "cell": "f",
                       "shard": 1, "count": 1, "fingerprint": "shardcc1-0123", "root": None,
                       "plan": None, "tus": [{"key": "src/a.cu", "result": "abc0ffee00"}],
                       "others": [], "entries": [{"path": p, "size": len(d)} for p, d in entries]},
                      separators=(",", ":")).encode()
def tar(kind, fmt=tarfile.PAX_FORMAT):
    body = list(members)
    if kind == "lies-extra":
        listed, body = members, members + [("cache/y/y/yyyyR", b"extra")]
    else:
        listed = members
    b = io.BytesIO()
    t = tarfile.open(fileobj=b, mode="w", format=fmt)
    def add(name, data=b"", type_=tarfile.REGTYPE, link=""):
        i = tarfile.TarInfo(name)
        i.type, i.linkname, i.mtime = type_, link, 0
        i.size = len(data) if type_ == tarfile.REGTYPE else 0
        t.addfile(i, io.BytesIO(data) if type_ == tarfile.REGTYPE else None)
    if kind == "not-first":
        add("cache/a/a/firstR", b"x")
    if kind != "no-manifest":
        add("manifest.json", b"[]" if kind == "manifest-array" else manifest(listed))
    if kind == "dirs":
        for d in ("cache", "cache/a", "cache/a/b", "cache/d", "cache/d/e"):
            add(d, type_=tarfile.DIRTYPE)
    for p, d in body:
        add(p, d)
    extra = {"absolute": ("/tmp/shardcc-fuzz-escaped", b"x"), "dotdot": ("cache/../../escapedR", b"x"),
             "dup": members[0], "badname": ("cache/a/b/NOT-AN-ENTRY", b"x"),
             "longname": ("cache/" + "a/" * 8 + "k" * 78 + "R", b"long"), "unicode": ("cache/a/b/\u00e9R", b"x")}
    if kind in extra:
        add(*extra[kind])
    if kind == "symlink":
        add("cache/a/b/linkR", type_=tarfile.SYMTYPE, link="/etc/passwd")
    if kind == "hardlink":
        add("cache/a/b/hardR", type_=tarfile.LNKTYPE, link=members[1][0])
    if kind == "device":
        add("cache/a/b/devR", type_=tarfile.CHRTYPE)
    if kind == "fifo":
        add("cache/a/b/fifoR", type_=tarfile.FIFOTYPE)
    end = t.offset
    t.close()
    # the data and two zero blocks, without tarfile's padding to 10240 bytes
    return b.getvalue()[:end] + bytes(1024)
kinds = ["good", "dirs", "lies-extra", "not-first", "no-manifest", "manifest-array", "absolute", "dotdot",
         "dup", "badname", "longname", "unicode", "symlink", "hardlink", "device", "fifo"]
for k in kinds:
    open("%s/raw-%s.tar" % (out, k), "wb").write(tar(k))
open("%s/raw-gnu.tar" % out, "wb").write(tar("longname", tarfile.GNU_FORMAT))
open("%s/raw-ustar.tar" % out, "wb").write(tar("good", tarfile.USTAR_FORMAT))
good = tar("good")
open("%s/raw-truncated.tar" % out, "wb").write(good[:len(good) // 2])
for k in ("good", "dirs"):
    subprocess.run([zstd, "-q", "-19", "-f", "-o", "%s/raw-%s.tar.zst" % (out, k)], input=tar(k), check=True)
PY
}
if [ "$name" = fuzz_artifact ]; then
    artifact_seeds "$work/corpus"
fi

export TMPDIR="$work/tmp"
echo "run_smoke: $name for ${seconds}s on $(find "$work/corpus" -type f | wc -l) seeds"
set +e
# -close_fd_mask=3: the code's own messages (every refused input prints one) are dropped;
# libFuzzer and the sanitizers report on a copy of stderr.
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -close_fd_mask=3 -artifact_prefix="$work/crashes/" "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
set -e

status=$(grep -E '^#[0-9]+[[:space:]]' "$work/fuzz.log" | tail -n 1 || true)
done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$work/fuzz.log" | tail -n 1 || true)
[ -n "$status" ] && echo "$status"
if [ "$rc" -ne 0 ] || [ -z "$done_line" ] || grep -qE '^(==[0-9]+==ERROR|SUMMARY: )' "$work/fuzz.log"; then
    echo "run_smoke: $name FAILED (exit status $rc); the end of $work/fuzz.log:"
    tail -n 80 "$work/fuzz.log"
    find "$work/crashes" -type f -printf 'failing input: %p (%s bytes)\n'
    exit $((rc ? rc : 1))
fi
grep -E '^stat::' "$work/fuzz.log" || true
echo "$done_line"
