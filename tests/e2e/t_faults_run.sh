# Fault catalogue, the running job: each case injects one fault into a shard or link job and
# expects the documented exit status, a message naming what failed and why, and nothing
# lost or half-written. A cache cleaned under the build, a build killed by a signal, the
# job itself stopped mid-build (CI cancelling it), two merges into one cache at once, a
# stub target that cannot be created, a 1 MB argv and a 1 MB response file.
# (Full and read-only file systems: t_faults_disk. Artifacts: t_faults. The wrapper's
# configuration: t_wrapper_errors.)
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p src art
for i in 1 2 3 4 5 6; do printf 'int f%d(void) { return %d; }\n' "$i" "$i" >src/t$i.c; done
cat >build.sh <<'SH'
#!/bin/sh
set -e
rm -rf b && mkdir b
for i in 1 2 3 4 5 6; do $CC -O1 -c src/t$i.c -o b/t$i.o; done
SH
chmod +x build.sh
no_leftovers() { # no_leftovers WHAT DIR: no artifact and no temporary file in DIR
    local left
    left=$(find "$2" -mindepth 1 | head -5)
    [ -z "$left" ] || fail "$1: left behind in $2: $left"
    ok "$1: nothing written to $2"
}

# --- a cache cleaned under the build: the owned TUs whose results vanished are named ---
cat >clean-build.sh <<'SH'
#!/bin/sh
set -e
./build.sh
find "$CCACHE_DIR" -name '*R' | sort | head -1 | xargs rm -f
SH
chmod +x clean-build.sh
expect_fail 3 "of the 6 TUs it owned have no result in its cache" \
    shardcc shard --host-seat --shard 1/1 --artifact art/ -- ./clean-build.sh
grep -Eq 'src/t[1-6]\.c' "$T/.err" || fail "the lost TU is not named: $(cat "$T/.err")"
ok "the TU whose result vanished is named"
no_leftovers "lost results" art

# --- the build killed by a signal ---
expect_fail 1 "the build failed (killed by signal 9, Killed); no artifact written" \
    shardcc shard --host-seat --shard 1/2 --artifact art/ -- sh -c './build.sh && kill -KILL $$'
no_leftovers "build killed" art

# --- the job stopped mid-build (a CI runner cancelling it sends SIGTERM or SIGINT): the
# signal reaches the whole build, nothing is left running, no artifact is written ---
# (the build's long step is a copy of sleep under $T: pgrep finds it and nothing else)
cp "$(command -v sleep)" "$T/build-step"
for sig in TERM INT; do
    rm -f "$T/started"
    shardcc shard --host-seat --shard 1/2 --artifact art/ -- \
        sh -c "./build.sh && touch '$T/started' && '$T/build-step' 300 && touch '$T/finished'" 2>"$T/stop.err" &
    job=$!
    for _ in $(seq 1 100); do [ -e "$T/started" ] && break; sleep 0.1; done
    [ -e "$T/started" ] || fail "the build did not start: $(cat "$T/stop.err")"
    kill -$sig $job
    rc=0
    wait $job || rc=$?
    expect_eq "SIG$sig: exit status" "$rc" 1
    grep -q "shardcc received signal [0-9]*, .*, and passed it on to the build" "$T/stop.err" ||
        fail "SIG$sig: $(cat "$T/stop.err")"
    ok "SIG$sig: the message says the job was stopped"
    sleep 0.5
    if pgrep -f "$T/build-step" >/dev/null; then
        pkill -f "$T/build-step"
        fail "SIG$sig: the build's long step was left running"
    fi
    ok "SIG$sig: no process of the build left running"
    [ ! -e "$T/finished" ] || fail "SIG$sig: the build went on"
    no_leftovers "SIG$sig" art
done
# the shard runs again cleanly after being stopped
shardcc shard --host-seat --shard 1/2 --artifact art/ -- ./build.sh 2>"$T/s.err" || fail "$(cat "$T/s.err")"
shardcc shard --host-seat --shard 2/2 --artifact art/ -- ./build.sh 2>"$T/s.err" || fail "$(cat "$T/s.err")"
ok "the stopped shard ran again"

# --- two merges into the same cache at once: one wins, the other says so; the cache is whole ---
for round in 1 2 3; do
    rm -rf lc
    (rc=0 && shardcc merge --cache lc art >"$T/m1.out" 2>&1 || rc=$? && echo $rc >"$T/m1.rc") &
    (rc=0 && shardcc merge --cache lc art >"$T/m2.out" 2>&1 || rc=$? && echo $rc >"$T/m2.rc") &
    wait
    rcs="$(cat "$T/m1.rc") $(cat "$T/m2.rc")"
    case "$rcs" in
    "0 0" | "0 2" | "2 0") ;;
    *) fail "round $round: merges exited $rcs: $(cat "$T/m1.out" "$T/m2.out")" ;;
    esac
    if [ "$rcs" != "0 0" ]; then
        grep -Eqh "was filled by another merge while this one ran|exists and is not empty" \
            "$T/m1.out" "$T/m2.out" ||
            fail "round $round: $(cat "$T/m1.out" "$T/m2.out")"
    fi
    expect_eq "round $round: merged entries" "$(find lc -type f | wc -l)" \
        "$(for a in art/*.tar.zst; do tar -tf "$a"; done | grep -c '^cache/.*[RM]$')"
    [ -z "$(ls -d lc.merging.* 2>/dev/null)" ] || fail "round $round: staging left behind"
done
ok "concurrent merges: exit $rcs, the cache whole, no staging left"
# two link jobs with one cache at once: one merges and builds (every TU a hit), the other
# stops before its build with status 2, whichever check it meets
rm -rf lc
for k in 1 2; do
    (rc=0 && shardcc link --host-seat --cache lc --artifacts art --expect-shards 2 -- ./build.sh \
        >"$T/l$k.out" 2>&1 || rc=$? && echo $rc >"$T/l$k.rc") &
done
wait
rcs="$(cat "$T/l1.rc") $(cat "$T/l2.rc")"
[ "$rcs" = "0 2" ] || [ "$rcs" = "2 0" ] || fail "link jobs exited $rcs: $(cat "$T/l1.out" "$T/l2.out")"
grep -q "hit rate 100.0% (6/6 TUs), 0 stubs, 2/2 shards" "$T/l1.out" "$T/l2.out" ||
    fail "$(cat "$T/l1.out" "$T/l2.out")"
grep -Eq "was filled by another merge while this one ran|exists and is not empty" "$T/l1.out" "$T/l2.out" ||
    fail "$(cat "$T/l1.out" "$T/l2.out")"
ok "concurrent link jobs: exit $rcs; the winner hit 6/6 TUs, the other said why it stopped"

# --- a stub target whose directory cannot be created: the wrapper names it (status 4) ---
eval "$(shardcc env --root "$T" --shard 1/6 --host-seat --journal "$T/j.tsv")"
: >not-a-dir
stubbed=
for i in 1 2 3 4 5 6; do
    case "$(shardcc classify --root "$T" --shard 1/6 -- cc -c src/t$i.c -o t.o)" in
    *'"action":"stub"'*) stubbed=src/t$i.c && break ;;
    esac
done
[ -n "$stubbed" ] || fail "no TU is stubbed by shard 1/6"
expect_fail 4 "cannot write stub object \"not-a-dir/x.o\"" shardcc-cc -c "$stubbed" -o not-a-dir/x.o

# --- a 1 MB argv: shardcc adds no failure of its own. The stub is written and journaled
# whole; an owned call ends as the compiler itself does (gcc's limit is its
# COLLECT_GCC_OPTIONS, 128 KiB); a 100 KB argv compiles to the plain compile's bytes ---
pad=$(head -c 1000 /dev/zero | tr '\0' a)
seq -f "-DSHARDCC_FILL_%04g=$pad" 0 999 >big.rsp # 1 MB
mapfile -t big <big.rsp
printf '#define S(x) #x\n#define X(x) S(x)\nint big(void) { return sizeof(X(SHARDCC_FILL_0099)); }\n' >src/big.c
case "$(shardcc classify --root "$T" --shard 1/2 -- cc -c src/big.c -o big.o)" in
*'"action":"cache"'*) own=1 ;;
*) own=2 ;;
esac
other=$((3 - own))
rm -f "$T/j.tsv"
eval "$(shardcc env --root "$T" --shard $other/2 --host-seat --journal "$T/j.tsv")"
shardcc-cc "${big[@]}" -c src/big.c -o big-stub.o || fail "1 MB argv: the stub call failed"
file big-stub.o | grep "ELF 64-bit LSB relocatable" >/dev/null || fail "1 MB argv: no stub object"
shardcc-cc @big.rsp -c src/big.c -o big-stub2.o || fail "1 MB response file: the stub call failed"
expect_eq "1 MB argv: stub records" "$(journal_count "$T/j.tsv" tu stub 0)" 2
rm -f "$T/j.tsv"
eval "$(shardcc env --root "$T" --shard $own/2 --host-seat --journal "$T/j.tsv")"
plain=0
gcc "${big[@]}" -c src/big.c -o plain.o 2>/dev/null || plain=$?
rc=0
shardcc-cc "${big[@]}" -c src/big.c -o big.o 2>"$T/big.err" || rc=$?
expect_eq "1 MB argv, owned: the compiler's own status" "$rc" "$plain"
awk -F'\t' '$1 == "SCA1" {print NF}' "$T/j.tsv" >"$T/nf"
expect_eq "1 MB argv: the argument record is whole (SCA1, key, 1000 -D, 4 more)" "$(cat "$T/nf")" 1006
expect_eq "1 MB argv: well-formed records" "$(awk -F'\t' '$1 == "SCJ2" && NF == 15' "$T/j.tsv" | wc -l)" 1
rc=0
shardcc-cc @big.rsp -c src/big.c -o big.o 2>"$T/big.err" || rc=$?
expect_eq "1 MB response file, owned: the compiler's own status" "$rc" "$plain"
head -100 big.rsp >mid.rsp # 100 KB
gcc @mid.rsp -c src/big.c -o plain.o || fail "gcc cannot compile with a 100 KB argv"
shardcc-cc @mid.rsp -c src/big.c -o big.o || fail "100 KB response file through the seat"
cmp -s big.o plain.o || fail "100 KB response file: the object differs from the plain compile's"
ok "100 KB response file: owned, cached, the plain compile's bytes"
summary
