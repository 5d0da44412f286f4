# Trust of what comes from a remote storage and a seed (docs/security.md): hostile servers
# of the test's own (tests/e2e/hostile_server.py, on 127.0.0.1, stopping by themselves) and
# hostile seed directories. Each must end in a non-zero exit that names the cause, within
# the operation timeout + 1 s and with bounded memory, and print no secret:
#   - an HTTP server that floods header lines, one that sends chunks without end, one that
#     sends a body without a length until closed, one that announces 3 GiB: the link job
#     (operation-timeout=1000) exits 4, in at most 2 s, its peak memory at most 64 MiB
#     above an honest link job's;
#   - a Redis that echoes the password in its refusal: the password never printed;
#   - a Redis whose entry for one TU was overwritten after honest shards: link exit 3;
#   - URLs ccache would read differently ('@' or '/' in the password, CR/LF from a
#     variable): exit 2, the password not printed; 127.evil.example is not this machine;
#   - a seed directory holding a hard link to a file outside it, or a symbolic link out of
#     it: exit 4, nothing taken; a seed on another file system is copied, not linked.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src
for n in a b; do printf '__global__ void %s(float *x) { x[0] = 1; }\n' "$n" >"src/$n.cu"; done
printf '#!/bin/sh\nset -e\nfor n in a b; do "$CUDACXX" -c src/$n.cu -o $n.o; done\n' >build.sh
chmod +x build.sh
for i in 1 2; do
    shardcc shard --shard $i/2 --cell demo --artifact good/ -- ./build.sh 2>/dev/null || fail "shard $i/2"
done
# measure OUT CMD...: runs CMD (stdout and stderr into OUT), prints "STATUS SECONDS PEAK_KIB"
measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t = time.monotonic()
with open(out, "w") as f:
    rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
print(rc, "%.2f" % (time.monotonic() - t), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
read -r rc secs base_kib < <(measure "$T/honest.out" shardcc link --artifacts good --expect-shards 2 -- ./build.sh)
expect_eq "the honest link job" "$rc" 0
echo "the honest link job: peak $base_kib KiB"

server() { # server MODE: starts one, sets PORT
    rm -f "$T/port"
    python3 "$SHARDCC_SRC/tests/e2e/hostile_server.py" "$1" "$T/port" 20 &
    for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
    PORT=$(cat "$T/port")
}
for mode in http-flood http-chunked http-close http-length; do
    server $mode
    read -r rc secs kib < <(measure "$T/$mode.out" shardcc link \
        --remote "http://127.0.0.1:$PORT/c|operation-timeout=1000" --run-id r1 --cell demo \
        --expect-shards 2 -- ./build.sh)
    expect_eq "$mode: the link job's status" "$rc" 4
    grep -q "cannot read shard 1's manifest from the remote" "$T/$mode.out" ||
        fail "$mode: the cause not named: $(cat "$T/$mode.out")"
    python3 -c "import sys; sys.exit(not float('$secs') <= 2.0)" ||
        fail "$mode: took $secs s with a 1 s operation timeout"
    [ $((kib - base_kib)) -le 65536 ] || fail "$mode: peak $kib KiB, $((kib - base_kib)) KiB above the honest job's"
    ok "$mode: exit 4 in $secs s, peak $kib KiB ($((kib - base_kib)) KiB above the honest job): $(grep -o 'remote: .*' "$T/$mode.out" | head -1)"
    kill %% 2>/dev/null || true
    wait 2>/dev/null || true
done

PW='s3cret-Pw-91'
server redis-echo
export HOSTILE_PW=$PW
for url in "redis://:$PW@127.0.0.1:$PORT" "redis://:\${HOSTILE_PW}@127.0.0.1:$PORT"; do
    rc=0
    shardcc link --remote "$url" --run-id r1 --cell demo --expect-shards 2 -- ./build.sh >"$T/echo.out" 2>&1 || rc=$?
    expect_eq "a Redis that echoes the password: status" "$rc" 4
    ! grep -q "$PW" "$T/echo.out" || fail "the password was printed: $(cat "$T/echo.out")"
    grep -q "refused the credentials" "$T/echo.out" || fail "no refusal named: $(cat "$T/echo.out")"
    ok "a Redis that echoes the password ($url): refused, the password not printed"
done
kill %% 2>/dev/null || true
wait 2>/dev/null || true

# a remote storage poisoned after honest shards: shard 2's TU's result overwritten there
# with another TU's (the link job reads ccache's results from the remote, artifacts given
# too): guard 6 names the TU
RP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$RP" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$T/redis.pid" --logfile "$T/redis.log" --dir "$T" >/dev/null
for _ in $(seq 50); do redis-cli -p "$RP" ping >/dev/null 2>&1 && break; sleep 0.1; done
for i in 1 2; do
    shardcc shard --shard $i/2 --cell demo --remote "redis://127.0.0.1:$RP" --run-id p1 --artifact pois/ \
        -- ./build.sh 2>/dev/null || fail "shard $i/2 to the remote"
done
read -r victim vres dres < <(python3 - <<'PY'
import json, subprocess
def man(i):
    return json.loads(subprocess.run(["tar", "--zstd", "-xOf", f"pois/shard-demo-{i}-of-2.tar.zst",
                                      "manifest.json"], capture_output=True, check=True).stdout)
owned = [t for i in (1, 2) for t in man(i)["tus"] if t["decision"] == "owned" and t["result"]]
print(owned[0]["key"], owned[0]["result"], owned[1]["result"])
PY
)
redis-cli -p "$RP" copy "ccache:$dres" "ccache:$vres" replace >/dev/null
rm -rf .shardcc/link
expect_fail 3 "$victim: the link job's cache hit (result $vres) is not what its owner" \
    shardcc link --remote "redis://127.0.0.1:$RP" --run-id p1 --cell demo --artifacts pois --expect-shards 2 -- ./build.sh

# what every shard makes, through the remote alone: the remote keeps one copy of a pinned
# TU's result (the last writer's). Shard 1, which does not own src/a.cu (shard 2 does),
# overwrites it there with other bytes and records them as its copy: the link job takes the
# owner's own copy (shardcc/run/RUN/CELL/shard-2-of-2/...), and exits 4 naming it when it
# is gone. Before, a remote's copy passed when any shard recorded its bytes.
REMOTE="redis://127.0.0.1:$RP"
for i in 2 1; do
    shardcc shard --shard $i/2 --cell demo --pin src/a.cu --remote "$REMOTE" --run-id p2 --no-artifact \
        -- ./build.sh 2>/dev/null || fail "pinned shard $i/2 to the remote"
done
LINK_P2=(shardcc link --remote "$REMOTE" --run-id p2 --cell demo --expect-shards 2 -- ./build.sh)
rm -rf .shardcc/link
"${LINK_P2[@]}" 2>"$T/p2.err" || fail "the honest pinned link job through the remote: $(cat "$T/p2.err")"
cp a.o a-owner.o
ok "the honest pinned shards through the remote alone link"
read -r ares bres arel own1 < <(python3 - "$RP" <<'PY'
import json, subprocess, sys
def man(i):
    out = subprocess.run(["redis-cli", "-p", sys.argv[1], "--raw", "get",
                          f"shardcc:run:p2:demo:shard-{i}-of-2.json"], capture_output=True, check=True)
    return json.loads(out.stdout)
m1 = man(1)
a = next(t for t in m1["tus"] if t["key"] == "src/a.cu")
b = next(t for t in m1["tus"] + man(2)["tus"] if t["key"] == "src/b.cu" and t["result"])
def rel(m, key):
    return next(e["path"][6:] for e in m["entries"]
                if e["path"][6:].replace("/", "")[:-1] == key)
r = rel(m1, a["result"])
print(a["result"], b["result"], r, "shardcc:run:p2:demo:shard-1-of-2:" + r.replace("/", ""))
PY
)
[ -n "$own1" ] || fail "no pinned result in shard 1's manifest"
# shard 1's hostile copy: src/b.cu's result bytes, in the remote's one copy and its own,
# recorded in its manifest (the entry list made to match, as a competent attacker would)
redis-cli -p "$RP" copy "ccache:$bres" "ccache:$ares" replace >/dev/null
redis-cli -p "$RP" copy "ccache:$bres" "$own1" replace >/dev/null
python3 - "$RP" "$arel" <<'PY'
import hashlib, json, subprocess, sys
port, rel = sys.argv[1:]
cli = ["redis-cli", "-p", port, "--raw"]
name = "shardcc:run:p2:demo:shard-1-of-2.json"
m = json.loads(subprocess.run(cli + ["get", name], capture_output=True, check=True).stdout)
data = subprocess.run(cli + ["get", "shardcc:run:p2:demo:shard-1-of-2:" + rel.replace("/", "")],
                      capture_output=True, check=True).stdout[:-1]  # --raw adds a newline
for e in m["entries"]:
    if e["path"] == "cache/" + rel:
        e["sha256"], e["size"] = hashlib.sha256(data).hexdigest(), len(data)
subprocess.run(cli + ["-x", "set", name], input=json.dumps(m).encode(), check=True,
               capture_output=True)
PY
rm -rf .shardcc/link
"${LINK_P2[@]}" 2>"$T/p2.err" || fail "the link job with shard 1's hostile copy in the remote: $(cat "$T/p2.err")"
grep -q "1 result of what every shard makes (pinned TUs, device code) taken from its owner" "$T/p2.err" ||
    fail "the owner's copy was not taken: $(cat "$T/p2.err")"
cmp -s a.o a-owner.o || fail "the pinned TU's object is not its owner's: shard 1's bytes were linked"
ok "a pinned TU's one copy in the remote overwritten by a shard that does not own it: the owner's own copy is linked"
redis-cli -p "$RP" --scan --pattern 'shardcc:run:p2:demo:shard-2-of-2:*' | xargs redis-cli -p "$RP" del >/dev/null
rm -rf .shardcc/link
expect_fail 4 "shard 2 of 2's own copy of the cache entry $arel" "${LINK_P2[@]}"
grep -q "it is not there" "$T/.err" || fail "the missing copy not said: $(cat "$T/.err")"
kill "$(cat "$T/redis.pid")"

# URLs ccache would read another way
for url in "http://u:p@ss@127.0.0.1:1/c" "http://u:pa/ss@127.0.0.1:1/c" "redis://:a@b@127.0.0.1:1"; do
    rc=0
    shardcc env --shard 1/2 --remote "$url" --run-id r1 >"$T/url.out" 2>&1 || rc=$?
    expect_eq "\"$url\": status" "$rc" 2
    ! grep -qE 'p@ss|pa/ss|a@b' "$T/url.out" || fail "the password was printed: $(cat "$T/url.out")"
    grep -q "ccache would read another host" "$T/url.out" || fail "no reason: $(cat "$T/url.out")"
    ok "\"$url\": refused (exit 2), the password not printed"
done
export CRLF=$'x\r\nHost: evil'
expect_fail 2 "a control character in the URL" shardcc env --shard 1/2 --remote 'http://127.0.0.1:1/${CRLF}' --run-id r1
export EVILPW=pw
shardcc env --shard 1/2 --remote 'http://u:${EVILPW}@127.evil.example/c' --run-id r1 >/dev/null 2>"$T/evil.err" || true
grep -q "travel in clear text to 127.evil.example" "$T/evil.err" || fail "127.evil.example taken for this machine: $(cat "$T/evil.err")"
ok "127.evil.example is another host (the clear-text warning)"

# seeds
mkdir -p seed outside
for a in good/*.tar.zst; do tar --zstd -xf "$a" -C seed; done
entry=$(cd seed && find cache -type f -name '*R' | head -1)
echo "not a cache entry" >outside/secret
cp -a seed seed-hard && ln -f outside/secret "seed-hard/$entry"
rm -f seed-hard/manifest.json
expect_fail 4 "is a file with more than one hard link" \
    shardcc shard --shard 1/2 --cell demo --seed-from seed-hard/cache --artifact hard/ -- ./build.sh
cp -a seed seed-sym && ln -sf "$T/outside/secret" "seed-sym/$entry"
rm -f seed-sym/manifest.json
rc=0
shardcc shard --shard 1/2 --cell demo --seed-from seed-sym/cache --artifact sym/ -- ./build.sh >"$T/sym.out" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then # a listing that passes over links takes nothing of it
    ! tar --zstd -xOf sym/shard-demo-1-of-2.tar.zst 2>/dev/null | grep -q "not a cache entry" ||
        fail "the file outside the seed was packed"
    ok "a symbolic link out of the seed: passed over, nothing of it packed"
else
    expect_eq "a symbolic link out of the seed: status" "$rc" 4
    ok "a symbolic link out of the seed: refused: $(grep -o 'seed-from: .*' "$T/sym.out" | head -1)"
fi
if [ -d /dev/shm ] && [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$T")" ]; then
    S=$(mktemp -d /dev/shm/shardcc-seed.XXXXXX)
    cp -a seed/cache "$S/"
    shardcc shard --shard 1/2 --cell demo --seed-from "$S/cache" --artifact shm/ -- ./build.sh 2>"$T/shm.err" ||
        { rm -rf "$S"; fail "a seed on another file system: $(cat "$T/shm.err")"; }
    rm -rf "$S"
    grep -q "a warm start from" "$T/shm.err" || fail "no warm start: $(cat "$T/shm.err")"
    ok "a seed on another file system (/dev/shm): copied, $(grep -o -m1 '[0-9][0-9]* entries' "$T/shm.err" | head -1)"
fi
echo "t_trust_remote: $CHECKS checks"
