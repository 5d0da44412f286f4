# The hand-off through ccache's remote storage (shardcc --remote), warm starts (--seed-from)
# and the remote's faults, against real servers the suite starts on free ports: Debian's
# redis-server (with and without a password) and nginx with its WebDAV module taking PUT
# (the server ccache's wiki names for its http backend; Debian's nginx-light has the module).
# A project of three one-architecture TUs, a TU for four real architectures (split, with
# SHARDCC_SPLIT_ARCHS=4, into device items the shards own: the seat's store) and a -fatbin output (the store too).
# - shardcc local -n 3 --remote redis:// and http://: the shards run with --no-artifact, the
#   link job's products are the unsharded build's byte for byte, every ccache hit of the link
#   job is journaled as from the remote, the split TU is assembled from items fetched from it;
# - credentials: a ${VAR} password works and is never printed, a literal one is masked in
#   every message and manifest and warned about;
# - faults: a bad URL (exit 2); the remote down before the shards (exit 4, the artifact
#   still written); down during a shard and back before it ends (the shard puts what ccache
#   lost: 100 % hits); down at the link job (the artifacts are the fallback, else exit 4);
#   entries evicted between shard and link (listed misses, exit 3; the artifact as fallback:
#   100 %); a slow remote (the operation timeout, exit 4); another run's manifests (never
#   counted); results two shards' manifests give different digests for (exit 3); a read-only
#   remote (nothing written);
# - warm starts: one TU changed after a run: with the same remote, and with --seed-from the
#   run's artifacts, the shards compile exactly that TU.
. "$(dirname "$0")/lib.sh"
# the four-architecture TU is split by count (the default splits only what a plan says)
export SHARDCC_SPLIT_ARCHS=4
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
    fail "redis-server and redis-cli are not installed (scripts/install-deps.sh installs them)"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || fail "nginx is not installed (scripts/install-deps.sh installs nginx-light)"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_port() { # wait_port PORT: until something listens there
    local k
    for k in $(seq 1 100); do
        python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "nothing listens on port $1"
}
PIDS=()
start_redis() { # start_redis PORT [PASSWORD]
    redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
        --dir "$T" ${2:+--requirepass "$2"} >"$T/redis-$1.log" 2>&1 &
    PIDS+=($!)
    echo $! >"$T/redis-$1.pid"
    wait_port "$1"
}
stop_redis() { # stop_redis PORT
    kill "$(cat "$T/redis-$1.pid")" 2>/dev/null || true
    wait "$(cat "$T/redis-$1.pid")" 2>/dev/null || true
}
rcli() { # rcli PORT ARGS...: redis-cli against the suite's server
    local p=$1
    shift
    redis-cli -p "$p" --no-auth-warning "$@"
}
start_nginx() { # start_nginx PORT
    mkdir -p "$T/www/cache" "$T/nginx-tmp"
    cat >"$T/nginx.conf" <<NG
user $(id -un);
daemon off;
pid $T/nginx.pid;
error_log $T/nginx-error.log;
events {}
http {
  access_log $T/nginx-access.log;
  client_body_temp_path $T/nginx-tmp;
  proxy_temp_path $T/nginx-tmp;
  fastcgi_temp_path $T/nginx-tmp;
  uwsgi_temp_path $T/nginx-tmp;
  scgi_temp_path $T/nginx-tmp;
  server {
    listen 127.0.0.1:$1;
    root $T/www;
    client_max_body_size 0;
    location / { dav_methods PUT DELETE; create_full_put_path on; }
  }
}
NG
    "$NGINX" -c "$T/nginx.conf" -e "$T/nginx-error.log" 2>"$T/nginx.err" &
    PIDS+=($!)
    wait_port "$1"
}
trap 'rc=$?; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null;
      if [ "$rc" != 0 ] && [ "${SHARDCC_KEEP:-0}" = 1 ]; then echo "kept: $T" >&2; else rm -rf "$T"; fi' EXIT

RP=$(free_port)
start_redis "$RP"
AP=$(free_port)
export SHARDCC_TEST_PW="pw-$$-secret"
start_redis "$AP" "$SHARDCC_TEST_PW"
HP=$(free_port)
start_nginx "$HP"
REDIS="redis://127.0.0.1:$RP"
HTTP="http://127.0.0.1:$HP/cache"

# ---- the client alone (tests/tools/remote_tool): objects in, out, absent, on each server ----
RT="${SHARDCC_TEST_TOOLS:?SHARDCC_TEST_TOOLS must name the directory of the test tools}/remote_tool"
head -c 3000000 /dev/urandom >"$T/big.bin"
: >"$T/empty.bin"
for url in "$REDIS" "redis://\${SHARDCC_TEST_PW}@127.0.0.1:$AP/3" "$HTTP" "$HTTP|layout=flat"; do
    "$RT" "$url" put shardcc/t/big "$T/big.bin" || fail "$url: put"
    expect_eq "$url: the size of what was put" "$("$RT" "$url" stat shardcc/t/big)" "3000000"
    "$RT" "$url" get shardcc/t/big "$T/back.bin" || fail "$url: get"
    cmp -s "$T/big.bin" "$T/back.bin" || fail "$url: 3 MB came back changed"
    rc=0
    "$RT" "$url" get shardcc/t/absent "$T/back.bin" || rc=$?
    expect_eq "$url: an absent object" "$rc" "1"
    "$RT" "$url" put 0ba1r9f1mtd9qn0vljsl4r7fmbbvc8spm "$T/empty.bin" || fail "$url: put a ccache name"
done
expect_eq "ccache's names: redis" "$(rcli "$RP" exists ccache:0ba1r9f1mtd9qn0vljsl4r7fmbbvc8spm)" "1"
[ -f "$T/www/cache/0b/a1r9f1mtd9qn0vljsl4r7fmbbvc8spm" ] && [ -f "$T/www/cache/0ba1r9f1mtd9qn0vljsl4r7fmbbvc8spm" ] ||
    fail "ccache's http layouts (subdirs, flat): $(find "$T/www" -type f)"
ok "ccache's names and layouts, as ccache 4.7.5 writes them"
rcli "$RP" flushall >/dev/null

cd "$T"
mkdir -p proj/src
cd proj
for k in a b c; do
    printf '__global__ void %s_k(float *x) { x[threadIdx.x] += %d.0f; }\nvoid %s(float *x) { %s_k<<<1, 32>>>(x); }\n' \
        $k ${#k} $k $k >src/$k.cu
done
printf '__global__ void heavy_k(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] = x[i] * x[i] + 1.0f; }\nvoid heavy(float *x) { heavy_k<<<1, 32>>>(x, 32); }\n' >src/heavy.cu
printf 'extern "C" __global__ void kern(float *x) { x[threadIdx.x] *= 2.0f; }\n' >src/kern.cu
cat >build.sh <<'SH'
#!/bin/sh
# the package's ordinary build; SHARDCC_TEST_MIDHOOK runs once, after the first TU
set -e
rm -rf build && mkdir build
for k in a b c; do
    "$CUDACXX" -O2 -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC -c "$PWD/src/$k.cu" -o build/$k.o
    if [ -n "${SHARDCC_TEST_MIDHOOK:-}" ]; then sh -c "$SHARDCC_TEST_MIDHOOK"; SHARDCC_TEST_MIDHOOK=; fi
done
"$CUDACXX" -O2 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_86,code=sm_86 \
    -gencode=arch=compute_89,code=sm_89 -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC \
    -c "$PWD/src/heavy.cu" -o build/heavy.o
"$CUDACXX" -fatbin -gencode=arch=compute_90,code=sm_90 "$PWD/src/kern.cu" -o build/kern.fatbin
SH
chmod +x build.sh

# the link job's journal: TU records run through ccache, and those of them journaled as hits
# from the remote (an SCP1 remote line after the record)
link_counts() {
    local j=.shardcc/link/journal.tsv
    echo "$(journal_count $j tu cache 0) $(awk -F'\t' '$1 == "SCP1" && $3 == "remote"' $j | wc -l)"
}

# ---- the hand-off through each server, shards without artifacts ----
for url in "$REDIS" "$HTTP"; do
    shardcc local -n 3 --remote "$url" --clean 'rm -rf build' --compare build -- ./build.sh \
        >"$T/local.out" 2>"$T/local.err" || fail "local --remote $url: $(tail -20 "$T/local.err")"
    grep -q "4 products, byte for byte" "$T/local.out" "$T/local.err" ||
        fail "$url: the products differ: $(cat "$T/local.out")"
    ok "$url: shardcc local -n 3 --remote: the link job's products are the unsharded build's"
    expect_eq "$url: the shards wrote no artifact" "$(ls .shardcc/local/artifacts | wc -l)" "0"
    grep -q "hit rate 100.0% (5/5 TUs, 1 of them device-code outputs, 3 from the remote)" .shardcc/local/logs/link.log ||
        fail "$url: $(tail -5 .shardcc/local/logs/link.log)"
    expect_eq "$url: every ccache hit of the link job came from the remote" "$(link_counts)" "3 3"
    expect_eq "$url: the split TU assembled from the store" \
        "$(journal_count .shardcc/link/journal.tsv tu split 0)" "1"
    grep -Eq "3 shards from the remote .*, [1-9][0-9]* of the seat's store fetched" .shardcc/local/logs/link.log ||
        fail "$url: no store entries fetched: $(grep remote .shardcc/local/logs/link.log)"
    ok "$url: the seat's store entries (items, markers, the fatbin) fetched from the remote"
done
expect_eq "redis: the 3 manifests of the run" \
    "$(rcli "$RP" --scan --pattern 'shardcc:run:*.json' | wc -l)" "3"
expect_eq "http: the 3 manifests of the run" "$(find "$T/www/cache/shardcc/run" -name '*.json' | wc -l)" "3"
# what every shard makes (the -fatbin output): each shard's own copy under its own name
expect_eq "redis: each shard's own copy of the device-code output" \
    "$(rcli "$RP" --scan --pattern 'shardcc:run:*:shard-*-of-3:*' | wc -l)" "3"
expect_eq "http: each shard's own copy of the device-code output" \
    "$(find "$T/www/cache/shardcc/run" -path '*/shard-*-of-3/*' -type f | wc -l)" "3"

# ---- credentials ----
shardcc local -n 2 --remote "redis://\${SHARDCC_TEST_PW}@127.0.0.1:$AP" --clean 'rm -rf build' -- ./build.sh \
    >"$T/local.out" 2>"$T/local.err" || fail "a \${VAR} password: $(tail -20 "$T/local.err")"
grep -q "hit rate 100.0%" .shardcc/local/logs/link.log || fail "$(tail -3 .shardcc/local/logs/link.log)"
ok "a password as \${SHARDCC_TEST_PW}: the hand-off works"
manifests() { # the run's manifests in the password-protected server
    rcli "$AP" -a "$SHARDCC_TEST_PW" --scan --pattern 'shardcc:run:*' |
        while read -r k; do rcli "$AP" -a "$SHARDCC_TEST_PW" get "$k"; done
}
! grep -rqF "$SHARDCC_TEST_PW" .shardcc/local/logs "$T/local.out" "$T/local.err" || fail "the password was printed"
manifests >"$T/manifests.txt"
! grep -qF "$SHARDCC_TEST_PW" "$T/manifests.txt" || fail "the password is in a manifest"
ok "the password is in no message and no manifest"
rcli "$AP" -a "$SHARDCC_TEST_PW" flushall >/dev/null
shardcc local -n 2 --remote "redis://:$SHARDCC_TEST_PW@127.0.0.1:$AP" --clean 'rm -rf build' -- ./build.sh \
    >"$T/local.out" 2>"$T/local.err" || fail "a literal password: $(tail -20 "$T/local.err")"
grep -q "hit rate 100.0% (5/5 TUs, 1 of them device-code outputs, 3 from the remote)" .shardcc/local/logs/link.log ||
    fail "redis://:PASSWORD@ (ccache 4.7.5 sends no AUTH for it): $(tail -3 .shardcc/local/logs/link.log)"
ok "redis://:PASSWORD@HOST works (ccache gets redis://PASSWORD@HOST)"
grep -q "the password is written in the URL" .shardcc/local/logs/shard-1-of-2.log || fail "no warning"
! grep -rqF "$SHARDCC_TEST_PW" .shardcc/local/logs "$T/local.out" "$T/local.err" || fail "a literal password printed"
manifests >"$T/manifests.txt"
! grep -qF "$SHARDCC_TEST_PW" "$T/manifests.txt" || fail "a literal password in a manifest"
grep -qF '"remote": "redis://:********@127.0.0.1' "$T/manifests.txt" || fail "the manifest's remote is not masked"
ok "a literal password: warned about, masked in messages and manifests"
expect_fail 4 "refused the credentials" shardcc shard --shard 1/1 --no-artifact --run-id r \
    --remote "redis://wrong@127.0.0.1:$AP" -- ./build.sh
! grep -q wrong "$T/.err" || fail "the wrong password was printed: $(cat "$T/.err")"
ok "a wrong password: exit 4, and not printed"

# ---- shardcc env: what ccache gets ----
envvar() { # envvar VAR ARGS...: the value shardcc env --format json sets VAR to
    local var=$1
    shift
    shardcc env --format json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["set"][sys.argv[1]])' "$var"
}
expect_eq "env --shard: ccache's remote, \${NAME} left for ccache to expand" \
    "$(envvar CCACHE_REMOTE_STORAGE --shard 1/2 --remote "redis://\${SHARDCC_TEST_PW}@127.0.0.1:$AP")" \
    "redis://\${SHARDCC_TEST_PW}@127.0.0.1:$AP"
expect_eq "env (the link job): read-only" "$(envvar CCACHE_REMOTE_STORAGE --remote "$HTTP")" "$HTTP|read-only"
expect_eq "env without --remote: none, whatever the caller's environment names" \
    "$(CCACHE_REMOTE_STORAGE="$REDIS" envvar CCACHE_REMOTE_STORAGE --shard 1/2)" ""
expect_eq "env: SHARDCC_REMOTE stands for --remote" \
    "$(SHARDCC_REMOTE="$REDIS" envvar CCACHE_REMOTE_STORAGE --shard 1/2)" "$REDIS"
expect_eq "env --seed-from URL: one more read-only remote, after the remote" \
    "$(envvar CCACHE_REMOTE_STORAGE --shard 1/2 --remote "$REDIS" --seed-from "$HTTP")" "$REDIS $HTTP|read-only"

# ---- bad URLs ----
expect_fail 2 "not a remote storage URL" shardcc shard --shard 1/1 --no-artifact --remote ftp://h/x -- ./build.sh
expect_fail 2 "neither HTTPS nor TLS" shardcc link --expect-shards 1 --remote https://h/x --run-id r -- ./build.sh
expect_fail 2 "is not one shardcc knows" shardcc shard --shard 1/1 --artifact "$T" --remote "$REDIS|shards=x" -- ./build.sh
expect_fail 2 "SHARDCC_NO_SUCH_VAR it names is not set" shardcc shard --shard 1/1 --artifact "$T" \
    --remote "redis://\${SHARDCC_NO_SUCH_VAR}@h" -- ./build.sh
expect_fail 2 "needs --remote" shardcc shard --shard 1/1 --no-artifact -- ./build.sh
expect_fail 2 "needs a run id" env -u GITHUB_RUN_ID -u SHARDCC_RUN_ID shardcc shard --shard 1/1 --no-artifact --remote "$REDIS" -- ./build.sh
expect_fail 2 "nothing would reach the link job" shardcc shard --shard 1/1 --no-artifact --run-id r --remote "$REDIS|read-only" -- ./build.sh

# ---- the remote down before the shards ----
DEAD=$(free_port)
mkdir -p "$T/arts-dead"
expect_fail 4 "Connection refused" shardcc shard --shard 1/1 --artifact "$T/arts-dead" --run-id dead \
    --remote "redis://127.0.0.1:$DEAD" -- ./build.sh
grep -q "did not take the cache entry" "$T/.err" || fail "$(cat "$T/.err")"
expect_eq "the remote down: the artifact is still written" "$(ls "$T/arts-dead" | wc -l)" "1"

# ---- down during a shard, back before it ends: the shard puts what ccache lost ----
rcli "$RP" flushall >/dev/null
rm -rf .shardcc build
SHARDCC_TEST_MIDHOOK="kill $(cat "$T/redis-$RP.pid")" \
    shardcc shard --shard 1/1 --no-artifact --run-id mid --remote "$REDIS" -- \
    sh -c "./build.sh && redis-server --port $RP --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile $T/redis-$RP.pid --logfile $T/redis-$RP.log --dir $T && sleep 0.3" \
    2>"$T/mid.err" || fail "a remote down mid-shard and back: $(cat "$T/mid.err")"
PIDS+=("$(cat "$T/redis-$RP.pid")")
grep -Eq "there already, [1-9][0-9]* put now" "$T/mid.err" || fail "nothing put again: $(cat "$T/mid.err")"
ok "the remote down during the shard: the shard put again what ccache could not"
rm -rf build
shardcc link --expect-shards 1 --cell default --run-id mid --remote "$REDIS" -- ./build.sh 2>"$T/l.err" ||
    fail "link after the outage: $(cat "$T/l.err")"
grep -q "hit rate 100.0% (5/5 TUs, 1 of them device-code outputs, 3 from the remote)" "$T/l.err" || fail "$(tail -3 "$T/l.err")"
ok "and the link job has every hit from the remote"
# down during the shard and still down at its end: exit 4
SHARDCC_TEST_MIDHOOK="kill $(cat "$T/redis-$RP.pid")" expect_fail 4 "did not take" \
    shardcc shard --shard 1/1 --no-artifact --run-id mid2 --remote "$REDIS" -- ./build.sh
start_redis "$RP"

# ---- shards with both an artifact and the remote; faults at the link job ----
two_shards() { # two_shards RUN: shards 1/2 and 2/2 into $T/arts-RUN and the remote
    rm -rf "$T/arts-$1"
    mkdir -p "$T/arts-$1"
    for i in 1 2; do
        rm -rf build
        shardcc shard --shard $i/2 --artifact "$T/arts-$1" --run-id "$1" --remote "$REDIS" -- ./build.sh 2>"$T/s.err" ||
            fail "shard $i/2 of $1: $(cat "$T/s.err")"
    done
    rm -rf build
}
two_shards both
stop_redis "$RP"
shardcc link --expect-shards 2 --artifacts "$T/arts-both" --run-id both --remote "$REDIS" -- ./build.sh 2>"$T/l.err" ||
    fail "link, the remote down, artifacts given: $(cat "$T/l.err")"
grep -q "the artifacts given are the hand-off" "$T/l.err" || fail "$(cat "$T/l.err")"
grep -q "hit rate 100.0% (5/5 TUs, 1 of them device-code outputs, 0 from the remote)" "$T/l.err" || fail "$(tail -3 "$T/l.err")"
ok "the remote down at the link job: the artifacts are the fallback, 100 % hits"
expect_fail 4 "cannot read shard 1's manifest from the remote" shardcc link --expect-shards 2 \
    --run-id both --remote "$REDIS" -- ./build.sh
start_redis "$RP"
two_shards evict
# entries evicted between the shards and the link job
# (a result entry: without a direct-mode manifest ccache still hits in preprocessor mode)
rcli "$RP" get shardcc:run:evict:default:shard-1-of-2.json >"$T/m1.json"
victim=$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
p = next(e["path"] for e in m["entries"] if e["path"].endswith("R"))
print("ccache:" + p[len("cache/"):-1].replace("/", ""))' "$T/m1.json")
expect_eq "an entry evicted" "$(rcli "$RP" del "$victim")" "1"
expect_fail 3 "below the minimum" shardcc link --expect-shards 2 --run-id evict --remote "$REDIS" -- ./build.sh
grep -q "the remote lacks 1 of shard" "$T/.err" || fail "no eviction warning: $(cat "$T/.err")"
grep -q "  miss: src/" "$T/.err" || fail "the misses are not listed: $(cat "$T/.err")"
grep -q "^explain: src/.*owner, shard [12]/2" "$T/.err" || fail "the misses are not explained: $(cat "$T/.err")"
ok "entries evicted: named before the build, the missed TUs listed and explained from the remote's manifests"
rm -rf build
shardcc link --expect-shards 2 --artifacts "$T/arts-evict" --run-id evict --remote "$REDIS" -- ./build.sh 2>"$T/l.err" ||
    fail "link, evicted, artifacts given: $(cat "$T/l.err")"
grep -q "is used instead" "$T/l.err" && grep -q "hit rate 100.0%" "$T/l.err" || fail "$(cat "$T/l.err")"
ok "entries evicted, the artifacts given: the shard's artifact is used, 100 % hits"
rm -rf build

# ---- a slow remote: each answer held back 1.5 s by a proxy; an operation timeout of 0.5 s ----
SP=$(free_port)
python3 - "$SP" "$RP" >"$T/proxy.log" 2>&1 <<'PY' &
import socket, sys, threading, time
lp, rp = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", lp)); srv.listen(16)
def pipe(a, b, delay):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            time.sleep(delay); b.sendall(d)
    except OSError: pass
    finally:
        for s in (a, b):
            try: s.close()
            except OSError: pass
while True:
    c, _ = srv.accept(); u = socket.create_connection(("127.0.0.1", rp))
    threading.Thread(target=pipe, args=(c, u, 0), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, 1.5), daemon=True).start()
PY
PIDS+=($!)
wait_port "$SP"
expect_fail 4 "operation timeout" shardcc link --expect-shards 2 --run-id evict \
    --remote "redis://127.0.0.1:$SP|operation-timeout=500" -- ./build.sh

# ---- another run's manifests never count ----
expect_fail 3 "holds no manifest of run other-run" shardcc link --expect-shards 2 --run-id other-run --remote "$REDIS" -- ./build.sh
# run "evict" has shards 1 and 2 of 2 there; run "late" only its shard 1: run evict's shard 2
# is not taken for it
shardcc shard --shard 1/2 --no-artifact --run-id late --remote "$REDIS" -- ./build.sh 2>"$T/s.err" ||
    fail "$(cat "$T/s.err")"
rm -rf build
expect_fail 3 "shard 2 of 2 missing" shardcc link --expect-shards 2 --run-id late --remote "$REDIS" -- ./build.sh

# ---- results two shards' manifests give different digests for ----
two_shards nd
k1=$(rcli "$RP" --scan --pattern 'shardcc:run:nd:default:shard-1-of-2.json')
k2=$(rcli "$RP" --scan --pattern 'shardcc:run:nd:default:shard-2-of-2.json')
rcli "$RP" get "$k1" >"$T/m1.json"
rcli "$RP" get "$k2" >"$T/m2.json"
python3 - "$T/m1.json" "$T/m2.json" <<'PY'
import json, sys
m1, m2 = (json.load(open(p)) for p in sys.argv[1:])
e = next(e for e in m1["entries"] if e["path"].endswith("R"))
m2["entries"].append(dict(e, sha256="0" * 64))
json.dump(m2, open(sys.argv[2], "w"))
PY
rcli "$RP" -x set "$k2" <"$T/m2.json" >/dev/null
expect_fail 3 "nondeterministic codegen" shardcc link --expect-shards 2 --run-id nd --remote "$REDIS" -- ./build.sh
rm -rf build

# ---- a read-only remote: hits only, nothing written ----
before=$(rcli "$RP" dbsize)
mkdir -p "$T/arts-ro"
printf '\nvoid extra_ro() {}\n' >>src/a.cu
shardcc shard --shard 1/1 --artifact "$T/arts-ro" --remote "$REDIS|read-only" -- ./build.sh 2>"$T/ro.err" ||
    fail "a read-only remote: $(cat "$T/ro.err")"
expect_eq "a read-only remote: nothing written" "$(rcli "$RP" dbsize)" "$before"
grep -q "were hits from the remote" "$T/ro.err" || fail "no hit from the read-only remote: $(cat "$T/ro.err")"
ok "a read-only remote: the unchanged TUs were hits from it"

# ---- warm starts: one TU changed since the last run ----
misses_in_shards() { # TU compiles that missed (or ran items) in the shards of the last local run
    cat .shardcc/shard-*-of-3/journal.tsv | awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $14 == "miss"' | wc -l
}
rm -rf .shardcc build
shardcc local -n 3 --remote "$REDIS" --no-baseline --clean 'rm -rf build' -- ./build.sh >/dev/null 2>"$T/w.err" ||
    fail "warm 1: $(tail "$T/w.err")"
printf '\nvoid extra_b() {}\n' >>src/b.cu
shardcc local -n 3 --remote "$REDIS" --no-baseline --clean 'rm -rf build' -- ./build.sh >/dev/null 2>"$T/w.err" ||
    fail "warm 2: $(tail "$T/w.err")"
expect_eq "a warm start from the remote: the ccache TUs the shards compiled" \
    "$(cat .shardcc/shard-*-of-3/journal.tsv | awk -F'\t' '$1 == "SCJ2" && $8 == "cache" && $14 == "miss" {print $12}')" "src/b.cu"
grep -q "hit rate 100.0%" .shardcc/local/logs/link.log || fail "$(tail -3 .shardcc/local/logs/link.log)"
# from the artifacts of a run: the seat's store comes along (the split TU's items, the fatbin)
shardcc local -n 3 --no-baseline --clean 'rm -rf build' -- ./build.sh >/dev/null 2>"$T/w.err" || fail "$(tail "$T/w.err")"
rm -rf "$T/seed" && cp -r .shardcc/local/artifacts "$T/seed"
printf '\nvoid extra_c() {}\n' >>src/c.cu
shardcc local -n 3 --seed-from "$T/seed" --clean 'rm -rf build' --compare build -- ./build.sh >"$T/w.out" 2>"$T/w.err" ||
    fail "warm from artifacts: $(tail "$T/w.err")"
grep -q "products, byte for byte" "$T/w.out" "$T/w.err" || fail "warm: the products differ"
expect_eq "a warm start from the artifacts: the TUs the shards compiled" "$(misses_in_shards)" "1"
expect_eq "and it is the changed one" \
    "$(cat .shardcc/shard-*-of-3/journal.tsv | awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $14 == "miss" {print $12}')" "src/c.cu"
expect_eq "no split item compiled again" \
    "$(cat .shardcc/shard-*-of-3/journal.tsv | awk -F'\t' '$1 == "SCP1" && $3 == "item" && $7 == "stored"' | wc -l)" "0"
shardcc report --artifacts .shardcc/local/artifacts >"$T/report.out" 2>&1 || fail "report: $(cat "$T/report.out")"
grep -q "were hits from the remote or the seed (a warm start)" "$T/report.out" || fail "$(cat "$T/report.out")"
ok "shardcc report shows the warm hits apart from the compiles"
summary
