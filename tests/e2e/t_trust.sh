# Trust (docs/security.md, "What the link job uses"): a hostile shard artifact cannot put
# other bytes into the link job's products with every guard green. Each case starts from
# the honest artifacts of a 4-TU project in 2 shards and forges one, as a compromised shard
# job would (tests/e2e/forge.py: the manifest's entry list made again to match, so that
# only shardcc's own checks stand in the way):
#   - a result shipped under a TU another shard owns, claimed "pinned": the merge's guard 5
#     (exit 3: one shard's claim makes nothing pinned), and with --allow-nondeterministic
#     guard 6 after the build (exit 3, naming the TU and its owner); both once exit 0;
#   - a split marker and items for TUs the owners compiled whole: link exit 3 for each TU;
#   - with a plan the link job lacks, a second shard recording another's TU as its own:
#     exit 3, both named;
#   - a member whose bytes are not the manifest's (fix = False): merge exit 4;
#   - a "plan" or an item key of another shape (a forged ::error:: line): exit 4;
#   - symbolic links planted for the artifact's temporary name: nothing written through them.
#   - a pinned TU's copy with other bytes from a shard that does not own it: the owner's
#     copy is taken from its artifact before the build.
# And the honest cases around them pass: plain, split (every item checked) and pinned.
. "$(dirname "$0")/lib.sh"
cd "$T"
FORGE="python3 $SHARDCC_SRC/tests/e2e/forge.py"
mkdir -p src
for n in a b c d; do printf '__global__ void %s(float *x) { x[0] = %d; }\n' "$n" "$RANDOM" >"src/$n.cu"; done
cat >build.sh <<'SH'
#!/bin/sh
set -e
for n in a b c d; do
    "$CUDACXX" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c src/$n.cu -o $n.o
done
"$CUDACXX" -fatbin -gencode arch=compute_90,code=sm_90 src/a.cu -o a.fatbin # device code: every shard
SH
chmod +x build.sh
shards() { # shards DIR [OPTION...]: the two honest shards into DIR
    local dir=$1 i
    shift
    for i in 1 2; do
        shardcc shard --shard $i/2 --cell demo "$@" --artifact "$dir/" -- ./build.sh 2>"$T/shard.err" ||
            fail "shard $i/2 $*: $(cat "$T/shard.err")"
    done
}
link_ok() { # link_ok WHAT DIR: the link job passes and checked every TU
    shardcc link --artifacts "$2" --expect-shards 2 -- ./build.sh 2>"$T/link.err" ||
        fail "$1: the link job failed: $(cat "$T/link.err")"
    grep -q "5 TUs (.*) checked against their owners' records" "$T/link.err" ||
        fail "$1: no trust line: $(cat "$T/link.err")"
    ok "$1: the link job passes, $(grep -o '5 TUs ([0-9]* split items)' "$T/link.err") checked"
}
shards good
link_ok "honest shards" good
cp a.fatbin a-honest.fatbin
S1=shard-demo-1-of-2.tar.zst
S2=shard-demo-2-of-2.tar.zst

# 1. a result under a TU shard 2 owns, with shard 1's bytes, claimed pinned
mkdir pin
$FORGE good/$S1 pin/$S1 '
m2, _ = other("good/shard-demo-2-of-2.tar.zst")
victim = next(t for t in m2["tus"] if t["decision"] == "owned")
mine = next(t for t in m["tus"] if t["decision"] == "owned")
def path(mm, key):
    return next(e["path"] for e in mm["entries"] if e["path"][6:].replace("/", "")[:-1] == key)
members[path(m2, victim["result"])] = members[path(m, mine["result"])]
m["tus"].append({"key": victim["key"], "decision": "owned", "pinned": True,
                 "result": victim["result"], "seconds": 0.1, "status": 0, "outcome": "miss"})
open("victim", "w").write(victim["key"])
'
cp good/$S2 pin/
victim=$(cat victim)
# the merge: one shard's claim does not make a TU pinned (shard 2 says owned)
expect_fail 3 "nondeterministic codegen: $victim" shardcc link --artifacts pin --expect-shards 2 -- ./build.sh
# and where the merge lets the difference pass, guard 6 stops it after the build
expect_fail 3 "$victim: the link job's cache hit" \
    shardcc link --artifacts pin --expect-shards 2 --allow-nondeterministic -- ./build.sh
grep -q "is not what its owner, shard 2 of 2, made" "$T/.err" || fail "pinned claim: the owner not named: $(cat "$T/.err")"
ok "a result claimed pinned under shard 2's TU $victim: refused, the owner named"

# 2. a split marker and items for every TU, the owners having compiled them whole
shards split --split-archs 2
link_ok "honest split shards" split
mkdir mark
$FORGE good/$S1 mark/$S1 '
for p in ("split/shard-demo-1-of-2.tar.zst", "split/shard-demo-2-of-2.tar.zst"):
    members.update({n: d for n, d in other(p)[1].items() if n.endswith("D")})
'
cp good/$S2 mark/
expect_fail 3 "the link job assembled it from split items, but shard 2 of 2 compiled it whole" \
    shardcc link --artifacts mark --expect-shards 2 -- ./build.sh
expect_eq "split marker: every TU refused" "$(grep -c 'assembled it from split items' "$T/.err")" 4

# 2b. a device-code output (every shard makes a.fatbin; shard 2 owns src/a.cu) with other
#     bytes in shard 1's artifact: the merge excuses copies of what every shard makes, the
#     link job puts the owner's in the cache, and the fatbin is the honest one
mkdir devbad
$FORGE good/$S1 devbad/$S1 '
t = next(t for t in m["tus"] if t.get("device"))
name = next(e["path"] for e in m["entries"] if e["path"][6:].replace("/", "")[:-1] == t["result"])
members[name] = members[name][:-1] + bytes([members[name][-1] ^ 1])
'
cp good/$S2 devbad/
link_ok "a device-code output with other bytes from a shard that does not own it" devbad
grep -q "taken from" "$T/link.err" || fail "the owner's copy not taken: $(cat "$T/link.err")"
cmp -s a.fatbin a-honest.fatbin || fail "a.fatbin is not the owner's"
ok "a.fatbin is the owner's, not shard 1's bytes"

# 2c. shards made with a plan (which the link job is not given): shard 1 also records a TU
#     the plan gives shard 2 as its own, with other bytes: two claimants, refused
printf 'src/a.cu\t4\nsrc/b.cu\t3\nsrc/c.cu\t2\nsrc/d.cu\t1\n' >costs.tsv
shardcc plan -n 2 costs.tsv -o plan.json 2>/dev/null || fail "shardcc plan"
shards planned --plan plan.json
link_ok "honest shards with a plan (the link job without it)" planned
mkdir claim
$FORGE planned/$S1 claim/$S1 '
m2, mem2 = other("planned/shard-demo-2-of-2.tar.zst")
victim = next(t for t in m2["tus"] if t["decision"] == "owned" and not t.get("device"))
mine = next(t for t in m["tus"] if t["decision"] == "owned" and not t.get("device"))
def path(mm, key):
    return next(e["path"] for e in mm["entries"] if e["path"][6:].replace("/", "")[:-1] == key)
members[path(m2, victim["result"])] = members[path(m, mine["result"])]
m["tus"] = [t for t in m["tus"] if t["key"] != victim["key"] or t.get("device")]
m["tus"].append(dict(victim))
open("victim", "w").write(victim["key"])
'
cp planned/$S2 claim/
victim=$(cat victim)
expect_fail 3 "$victim: shards" shardcc link --artifacts claim --expect-shards 2 --allow-nondeterministic -- ./build.sh
grep -q "both record it as their own" "$T/.err" || fail "two claimants not named: $(cat "$T/.err")"
ok "a TU the plan gives shard 2, claimed by shard 1 too: refused"

# 3. a member with other bytes than the manifest's (the same size)
mkdir tamper
$FORGE good/$S2 tamper/$S2 '
name = next(n for n in sorted(members) if n.endswith("R"))
d = bytearray(members[name]); d[-1] ^= 1; members[name] = bytes(d)
fix = False
'
cp good/$S1 tamper/
expect_fail 4 "is not the bytes the manifest lists (another SHA-256): changed after the shard packed it" \
    shardcc merge --cache tamper-cache tamper
[ ! -e tamper-cache ] || fail "a refused merge left a cache"

# 4. text of another shape: the plan, an item key (a workflow command in each)
mkdir planart itemart
$FORGE good/$S1 planart/$S1 'm["plan"] = "x\n::error::forged"'
cp good/$S2 planart/
expect_fail 4 'the manifest'"'"'s plan "x\x0a::error::forged" holds a control character' \
    shardcc link --artifacts planart --expect-shards 2 -- ./build.sh
$FORGE good/$S1 planart/$S1 'm["plan"] = "::error::forged"'
expect_fail 4 '"plan" is not a plan'"'"'s digest' shardcc link --artifacts planart --expect-shards 2 -- ./build.sh
$FORGE split/$S1 itemart/$S1 '
t = next(t for t in m["tus"] if t.get("items"))
t["items"][0]["key"] = "::error::forged"
'
cp split/$S2 itemart/
expect_fail 4 "has no item key (64 hex digits)" shardcc link --artifacts itemart --expect-shards 2 -- ./build.sh
! grep -q '^::error::forged' "$T/.err" || fail "a forged workflow command reached the log"
ok "no forged line in the output"

# 5. pinned for real: every shard compiles src/a.cu, the copies differ in ccache's time
#    stamps; the link job takes its owner's copy. Then shard 1 ships other bytes as its copy
#    (shard 2 owns src/a.cu): the owner's copy is still the one used
shards pinned --pin src/a.cu
link_ok "honest pinned shards" pinned
grep -q "1 result of what every shard makes (pinned TUs, device code) taken from its owner (its artifact" "$T/link.err" ||
    fail "the owner's copy of the pinned TU not taken: $(cat "$T/link.err")"
ok "the pinned TU's result is its owner's copy"
cp a.o a-honest.o
mkdir pinbad
$FORGE pinned/$S1 pinbad/$S1 '
t = next(t for t in m["tus"] if t["key"] == "src/a.cu")
other = next(x for x in m["tus"] if x["key"] != "src/a.cu" and x["decision"] == "owned")
def path(key):
    return next(e["path"] for e in m["entries"] if e["path"][6:].replace("/", "")[:-1] == key)
members[path(t["result"])] = members[path(other["result"])]
'
cp pinned/$S2 pinbad/
link_ok "a pinned TU's copy with other bytes from a shard that does not own it" pinbad
cmp -s a.o a-honest.o || fail "the pinned TU's object is not the owner's"
ok "the pinned TU's object is the owner's, not shard 1's bytes"

# 6. links planted for the artifact's temporary names (PATH.shardcc-tmp.PID of the next
#    processes): the artifact is written beside them, never through them
mkdir planted outside
base=$(sh -c 'echo $$') # the last process's number: the shard's come next
for p in $(seq $((base + 1)) $((base + 400))); do
    ln -s "$T/outside/o$p" "planted/$S1.shardcc-tmp.$p"
done
shardcc shard --shard 1/2 --cell demo --artifact planted/ -- ./build.sh 2>/dev/null || fail "shard with planted links"
expect_eq "planted links: files written through them" "$(ls outside | wc -l)" 0
[ -f planted/$S1 ] && [ ! -L planted/$S1 ] || fail "the artifact is not a regular file"
ok "the artifact is a regular file, the planted links untouched"
echo "t_trust: $CHECKS checks"
