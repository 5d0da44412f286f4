# One output path for untrusted text (docs/security.md, "Text from another job"): a cell name, a TU key, an argument or a
# summary's miss key from another job, holding a newline, a carriage return, a forged
# "::error::" workflow command and a terminal escape, reaches no message, report or
# markdown raw. Every command that reads them is run, and its whole output checked: no
# line but shardcc's own starts with "::", no ESC or CR byte, and the text shows as \xNN.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src
for n in a b c d; do printf '__global__ void %s(float *x) { x[0] = 1; }\n' "$n" >"src/$n.cu"; done
printf '#!/bin/sh\nset -e\nfor n in a b c d; do "$CUDACXX" -c src/$n.cu -o $n.o; done\n' >build.sh
chmod +x build.sh
for i in 1 2; do
    shardcc shard --shard $i/2 --cell demo --artifact good/ -- ./build.sh 2>/dev/null || fail "shard $i/2"
done
shardcc link --artifacts good --expect-shards 2 -- ./build.sh 2>/dev/null || fail "the link job"
hostile=$'x\n::error::forged\r\e[31mred'

# repack(IN, OUT, PYTHON): OUT is IN with its manifest changed by PYTHON (m is the manifest)
repack() {
    python3 - "$1" "$2" "$3" <<'PY'
import io, json, subprocess, sys, tarfile
src, dst, code = sys.argv[1:]
raw = subprocess.run(["zstd", "-dc", src], capture_output=True, check=True).stdout
tin = tarfile.open(fileobj=io.BytesIO(raw))
out = io.BytesIO()
tout = tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT)
for ti in tin.getmembers():
    data = tin.extractfile(ti).read() if ti.isfile() else None
    if ti.name == "manifest.json":
        m = json.loads(data)
        exec(code, {"m": m, "h": "x\n::error::forged\r\x1b[31mred"})
        data = json.dumps(m).encode()
        ti.size = len(data)
    tout.addfile(ti, io.BytesIO(data) if data is not None else None)
tout.close()
open(dst, "wb").write(subprocess.run(["zstd", "-q", "-c"], input=out.getvalue(), capture_output=True, check=True).stdout)
PY
}
s1=good/shard-demo-1-of-2.tar.zst
s2=good/shard-demo-2-of-2.tar.zst
mkdir -p cellart keyart argart
repack $s1 cellart/shard-demo-1-of-2.tar.zst 'm["cell"] = h'
cp $s2 cellart/
repack $s1 keyart/shard-demo-1-of-2.tar.zst 'm["tus"][0]["key"] = h'
cp $s2 keyart/
repack $s1 argart/shard-demo-1-of-2.tar.zst 'for t in m["tus"]: t["argv"] = [a + h for a in t.get("argv") or []]'
cp $s2 argart/

# clean(WHAT, FILE): no forged line, no ESC or CR byte, and the escaped text is there
clean() {
    if grep -q '^::error::forged' "$2" || grep -q $'\e' "$2" || grep -q $'\r' "$2"; then
        fail "$1: untrusted text printed raw: $(cat -A "$2" | head -20)"
    fi
    grep -qF 'x\x0a::error::forged\x0d\x1b[31mred' "$2" || fail "$1: the escaped text is not shown: $(cat -A "$2" | head -20)"
    ok "$1: printed as \\x0a, \\x0d, \\x1b"
}
run() { # run WHAT WANT_STATUS CMD...: stdout and stderr together into $T/out
    local what=$1 want=$2 rc=0
    shift 2
    "$@" >"$T/out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || fail "$what: exit $rc, expected $want: $(cat -A "$T/out" | head -20)"
}
for gh in false true; do
    export GITHUB_ACTIONS=$gh
    run "merge, a hostile cell (GITHUB_ACTIONS=$gh)" 4 shardcc merge --cache "m-$gh" cellart
    clean "merge, a hostile cell (GITHUB_ACTIONS=$gh)" "$T/out"
    run "link, a hostile cell" 4 shardcc link --artifacts cellart --expect-shards 2 -- ./build.sh
    clean "link, a hostile cell (GITHUB_ACTIONS=$gh)" "$T/out"
    run "report, a hostile cell" 0 shardcc report --artifacts cellart --format markdown
    clean "report --format markdown, a hostile cell (GITHUB_ACTIONS=$gh)" "$T/out"
    run "merge, a hostile TU key" 4 shardcc merge --cache "k-$gh" keyart
    clean "merge, a hostile TU key (GITHUB_ACTIONS=$gh)" "$T/out"
done
unset GITHUB_ACTIONS
# explain: an artifact whose recorded arguments carry the text; the link job's own journal
# records other arguments, so every TU is explained with the owner's arguments shown
printf '#!/bin/sh\nset -e\nfor n in a b c d; do "$CUDACXX" -lineinfo -c src/$n.cu -o $n.o; done\n' >build2.sh
chmod +x build2.sh
shardcc link --artifacts good --expect-shards 2 --min-hit-rate 0 -- ./build2.sh >/dev/null 2>&1 ||
    fail "the link job that misses"
run "explain, hostile arguments" 0 shardcc explain --artifacts argart
clean "explain, hostile arguments" "$T/out"
# a summary whose miss key carries it
python3 - .shardcc/link/summary.json "$T/sum.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["misses"] = [{"key": "x\n::error::forged\r\x1b[31mred", "reason": "miss"}]
s["hits"] = s["tus"] - 1
json.dump(s, open(sys.argv[2], "w"))
PY
for f in text markdown; do
    run "report --format $f, a hostile summary" 0 shardcc report --artifacts good --summary "$T/sum.json" --format $f
    clean "report --format $f, a hostile miss key" "$T/out"
done
echo "$CHECKS checks passed"
