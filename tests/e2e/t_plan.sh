# Shards that follow a plan (shardcc plan, shard --plan): every TU the plan names is owned
# by its shard and only there, a key it lacks falls back to the hash partition, the plan's
# digest is in the manifest, merge refuses artifacts of two plans and link refuses another
# plan than the shards'; the link job still hits 100 %. Real nvcc and ccache, 4 small TUs.
. "$(dirname "$0")/lib.sh"
cd "$T"
mkdir -p proj/src
cd proj
# the fourth TU, which the plan leaves out: a name the hash gives to shard 1
for x in scan sum max min abs neg exp2 log2; do
    o=$(shardcc classify --root . --shard 1/2 -- nvcc -c src/$x.cu -o $x.o | python3 -c 'import json,sys; print(json.load(sys.stdin)["owner"])')
    [ "$o" = 1 ] && break
done
[ "$o" = 1 ] || fail "no candidate name hashes to shard 1"
for k in add mul relu $x; do
    printf 'template <typename T> __global__ void %s_k(T *x) { x[threadIdx.x] += T(3); }\nvoid %s(float *x) { %s_k<<<1, 32>>>(x); }\n' $k $k $k >src/$k.cu
done
cat >build.sh <<'SH'
#!/bin/sh
set -e
rm -rf build && mkdir build
for f in src/*.cu; do
    "${CUDACXX:-nvcc}" -O2 -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC -c "$PWD/$f" -o "build/$(basename "$f" .cu).o"
done
g++ -shared -o build/libk.so build/*.o
SH
chmod +x build.sh
# a plan that names three keys (all on shard 2 of 2); src/$x.cu falls back to the hash
printf 'src/add.cu\t1\nsrc/mul.cu\t1\nsrc/relu.cu\t1\n' >costs.tsv
shardcc plan -n 2 costs.tsv -o plan.json 2>/dev/null
python3 - plan.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["assign"] = {"src/add.cu": 2, "src/mul.cu": 2, "src/relu.cu": 2}
json.dump(p, open(sys.argv[1], "w"))
PY
mkdir ../art
for i in 1 2; do
    shardcc shard --plan plan.json --shard $i/2 --cell plan --artifact ../art -- ./build.sh 2>"$T/s$i.err" ||
        fail "shard $i/2: $(cat "$T/s$i.err")"
done
owned() { awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "cache" {print $12}' ".shardcc/shard-$1-of-2/journal.tsv" | sort | tr '\n' ' '; }
expect_eq "shard 2 owns the plan's keys" "$(owned 2)" "src/add.cu src/mul.cu src/relu.cu "
expect_eq "shard 1 owns the key the plan lacks (the hash's choice)" "$(owned 1)" "src/$x.cu "
digest=$(tar --zstd -xOf ../art/shard-plan-1-of-2.tar.zst manifest.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["plan"])')
case "$digest" in plan1-????????????????????????????????) ok "the manifest carries the plan digest $digest" ;;
*) fail "manifest plan: $digest" ;; esac
expect_fail 2 "is a plan for 2 shards, this job is one of 3" \
    shardcc shard --plan plan.json --shard 1/3 --cell plan --artifact ../art -- ./build.sh
shardcc link --plan plan.json --artifacts ../art --expect-shards 2 -- ./build.sh 2>"$T/l.err" ||
    fail "link: $(cat "$T/l.err")"
grep -q "hit rate 100.0% (4/4 TUs), 0 stubs, 2/2 shards" "$T/l.err" || fail "link: $(tail -2 "$T/l.err")"
ok "link with the shards' plan: hit rate 100.0% (4/4 TUs)"
# (its summary, kept: the refused link jobs below remove it, as every link job does first)
cp .shardcc/link/summary.json "$T/good-summary.json"
# another plan: the link job refuses it; merge refuses artifacts of two plans
python3 - plan.json other.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["assign"]["src/add.cu"] = 1
json.dump(p, open(sys.argv[2], "w"))
PY
expect_fail 3 "this link job was given the plan" shardcc link --plan other.json --artifacts ../art --expect-shards 2 -- ./build.sh
mkdir ../art2
shardcc shard --plan other.json --shard 2/2 --cell plan --artifact ../art2 -- ./build.sh 2>/dev/null
expect_fail 3 "made with another plan than the others" \
    shardcc merge --cache ../m1 ../art/shard-plan-1-of-2.tar.zst ../art2/shard-plan-2-of-2.tar.zst
# the plan's predictions next to the measured seconds: report and local
shardcc report --artifacts ../art --plan plan.json >"$T/rep.out" || fail "report --plan"
grep -q "planned s" "$T/rep.out" || fail "report: no planned column: $(cat "$T/rep.out")"
ok "shardcc report --plan: a planned column"
# a summary with wrong types is refused, not printed as "every guard passed" with inf% and
# (null)
for bad in '"hit_rate": "high"' '"tus": -1' '"misses": [{"key": 7}]' '"wall_seconds": 1e308' \
    '"hits": 99' '"cell": null'; do
    python3 - "$T/good-summary.json" "$T/bad-summary.json" "$bad" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.update(json.loads("{" + sys.argv[3] + "}"))
json.dump(s, open(sys.argv[2], "w"))
PY
    expect_fail 4 "cannot read the link summary \"$T/bad-summary.json\"" \
        shardcc report --artifacts ../art --summary "$T/bad-summary.json"
done
shardcc local -n 2 --plan plan.json --clean 'rm -rf build' -- ./build.sh >"$T/local.out" 2>"$T/local.err" ||
    fail "local --plan: $(cat "$T/local.err")"
grep -q "planned s" "$T/local.out" && grep -q "hit rate 100.0% (4/4 TUs)" "$T/local.out" ||
    fail "local --plan: $(cat "$T/local.out")"
ok "shardcc local --plan: the plan's shards, a planned column, hit rate 100.0%"

# Compile times that are not a number of seconds from 0 to 10^6 are refused, not summed,
# so that the sums over any number of TUs stay finite (docs/shardcc-plan.md)
for bad in inf 1e308 nan -1 1000001; do
    printf 'src/add.cu\t%s\nsrc/mul.cu\t2\n' "$bad" >"$T/bad.tsv"
    expect_fail 2 "expected KEY<TAB>SECONDS (a number from 0 to 1000000)" shardcc plan -n 2 "$T/bad.tsv"
done
# A cost table's line is whole or refused, at its line number: a NUL byte ended the line
# unseen (the key was taken with the rest dropped), a line over 4095 bytes was read as two
# lines (the error named the wrong text), a key with a control character was taken
printf 'src/add.cu\t3\0junk\nsrc/mul.cu\t2\n' >"$T/nul.tsv"
expect_fail 2 "nul.tsv:1: a NUL byte" shardcc plan -n 2 "$T/nul.tsv"
{ printf 'src/mul.cu\t2\n'; head -c 5000 /dev/zero | tr '\0' k; printf '\t1\n'; } >"$T/long.tsv"
expect_fail 2 "long.tsv:2: a line over 4096 bytes" shardcc plan -n 2 "$T/long.tsv"
printf 'src/mul.cu\t2\r\nsrc/a\033[2Jb.cu\t1\r\n' >"$T/ctl.tsv"
expect_fail 2 'ctl.tsv:2: the key holds a control character: "src/a\x1b[2Jb.cu"' shardcc plan -n 2 "$T/ctl.tsv"
ok "cost tables: NUL bytes, overlong lines and control characters refused at FILE:LINE"
mkdir -p "$T/hostile" "$T/hostile-art"
tar --zstd -xf ../art/shard-plan-1-of-2.tar.zst -C "$T/hostile"
python3 - "$T/hostile/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for t in m["tus"]:
    if t["decision"] == "owned":
        t["seconds"] = 1e308
json.dump(m, open(sys.argv[1], "w"))
PY
(cd "$T/hostile" && tar --zstd -cf "$T/hostile-art/shard-plan-1-of-2.tar.zst" manifest.json cache)
expect_fail 4 "the manifest gives a TU the compile time 1e+308, not a number of seconds from 0 to 1000000" \
    shardcc plan -n 2 "$T/hostile-art/shard-plan-1-of-2.tar.zst"
# A pinned TU (and a device-code output) is made in every shard: the plan leaves it out, or
# its cost would weigh on the one shard the plan gave it to
mkdir -p "$T/pinned" "$T/pinned-art"
tar --zstd -xf ../art/shard-plan-1-of-2.tar.zst -C "$T/pinned"
python3 - "$T/pinned/manifest.json" >"$T/pinned.key" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
owned = [t for t in m["tus"] if t["decision"] == "owned"]
owned[0]["pinned"] = True
owned[0]["seconds"] = 500.0
if len(owned) > 1:
    owned[1]["device"] = True
    owned[1]["seconds"] = 400.0
json.dump(m, open(sys.argv[1], "w"))
print(owned[0]["key"])
PY
(cd "$T/pinned" && tar --zstd -cf "$T/pinned-art/shard-plan-1-of-2.tar.zst" manifest.json cache)
cp ../art/shard-plan-2-of-2.tar.zst "$T/pinned-art/"
shardcc plan -n 2 "$T/pinned-art" >"$T/pinned.plan" || fail "plan over a pinned TU"
python3 - "$T/pinned.plan" "$(cat "$T/pinned.key")" <<'PY' || fail "the plan placed a pinned or device TU: $(cat "$T/pinned.plan")"
import json, sys
p = json.load(open(sys.argv[1]))
assert sys.argv[2] not in p["assign"], "pinned key assigned"
assert all(c < 400 for c in p["cost"].values()), "a pinned or device cost counted"
PY
ok "plan: pinned TUs and device-code outputs are left out of the plan"
summary

# A plan per cell (a farm learns its costs per cell): shardcc plan --per-cell over
# two cells' artifacts gives each cell its own section and a default of both; a job follows
# its cell's section (--cell), a cell the plan lacks the default, and the seat's plan text
# holds that section only (the seat reads it on every call)
mkdir -p "$T/cellB" "$T/farm-art"
cp ../art/shard-plan-*-of-2.tar.zst "$T/farm-art/"
for i in 1 2; do
    rm -rf "$T/cellB"/* && tar --zstd -xf "../art/shard-plan-$i-of-2.tar.zst" -C "$T/cellB"
    python3 - "$T/cellB/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["cell"] = "B"
for t in m["tus"]:  # in cell B, mul.cu is the costly TU
    if t["decision"] == "owned":
        t["seconds"] = 40.0 if t["key"] == "src/mul.cu" else 1.0
json.dump(m, open(sys.argv[1], "w"))
PY
    (cd "$T/cellB" && tar --zstd -cf "$T/farm-art/shard-B-$i-of-2.tar.zst" manifest.json cache)
done
shardcc plan -n 2 --per-cell -o farm.json "$T/farm-art" 2>"$T/pc.err" || fail "plan --per-cell: $(cat "$T/pc.err")"
grep -q "a plan per cell for 2 cells, and a default of their 4 TUs" "$T/pc.err" || fail "plan --per-cell: $(cat "$T/pc.err")"
python3 - farm.json <<'PY' || fail "farm.json: not a plan per cell of cells B and plan with a default"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["format"] == 1 and sorted(p["cells"]) == ["B", "plan"] and p["default"]["n"] == 2
assert p["cells"]["B"]["cost"]["src/mul.cu"] == 40.0, p["cells"]["B"]["cost"]
# mul.cu alone on one shard in B, where it costs 40 s
b = p["cells"]["B"]["assign"]
assert [k for k in b if b[k] == b["src/mul.cu"]] == ["src/mul.cu"], b
PY
ok "plan --per-cell: sections for cells B and plan, and a default"
seat_plan() { # seat_plan CELL: the seat's plan text shardcc env gives shard 1/2 of CELL
    (eval "$(shardcc env --shard 1/2 --cell "$1" --plan farm.json)" && cat "$SHARDCC_PLAN")
}
PYTHONPATH="$SHARDCC_SRC/tests/plan" python3 - farm.json B "$(seat_plan B)" <<'PY' || fail "env --cell B: the seat's plan is not B's section"
import json, sys
from xxh64 import seat_text
p = json.load(open(sys.argv[1]))
want = seat_text(2, p["cells"][sys.argv[2]]["assign"])
assert sys.argv[3] + "\n" == want, (sys.argv[3], want)
PY
ok "env --cell B --plan farm.json: the seat's plan text is cell B's section only"
# (a default unlike any cell's, to see which section a job gets)
python3 - farm.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["default"]["assign"] = {k: 2 for k in p["default"]["assign"]}
json.dump(p, open(sys.argv[1], "w"), sort_keys=True)
PY
PYTHONPATH="$SHARDCC_SRC/tests/plan" python3 - farm.json "$(seat_plan nosuchcell)" <<'PY' || fail "a cell the plan lacks: not the default section"
import json, sys
from xxh64 import seat_text
p = json.load(open(sys.argv[1]))
want = seat_text(2, p["default"]["assign"])
assert sys.argv[2] + "\n" == want
PY
ok "a cell the plan lacks follows its default section"
# shards and link of cell B with the farm plan: the link job picks B's section from the
# shards' manifests, and the digests agree
rm -rf ../artB && mkdir ../artB
for i in 1 2; do
    SHARDCC_CELL_PACKAGE=pkgB shardcc shard --plan farm.json --shard $i/2 --cell B --artifact ../artB -- ./build.sh 2>"$T/b$i.err" ||
        fail "shard $i/2 of B: $(cat "$T/b$i.err")"
done
expect_eq "cell B's shard that owns mul.cu owns it alone" \
    "$(owned "$(python3 -c 'import json; print(json.load(open("farm.json"))["cells"]["B"]["assign"]["src/mul.cu"])')")" "src/mul.cu "
shardcc link --plan farm.json --artifacts ../artB --expect-shards 2 -- ./build.sh 2>"$T/lb.err" ||
    fail "link of B with farm.json: $(cat "$T/lb.err")"
grep -q "hit rate 100.0% (4/4 TUs), 0 stubs, 2/2 shards" "$T/lb.err" || fail "link B: $(tail -2 "$T/lb.err")"
ok "shards and link of cell B with the plan per cell: hit rate 100.0%"
shardcc report --artifacts ../artB --plan farm.json >"$T/repB.out" || fail "report --plan farm.json"
grep -q "planned s" "$T/repB.out" || fail "report B: $(cat "$T/repB.out")"
ok "report --plan farm.json: cell B's planned seconds"
expect_fail 2 "--per-cell takes artifacts (their manifests name the cell), not" shardcc plan -n 2 --per-cell costs.tsv
python3 -c 'import json; json.dump({"format": 1, "cells": {"A": {}}}, open("nodefault.json", "w"))'
expect_fail 2 "a plan per cell without a section for cell B and without a default" \
    shardcc env --shard 1/2 --cell B --plan nodefault.json
# a farm's run: report over several cells' artifacts gives a table per package (the
# manifests' package, from SHARDCC_CELL_PACKAGE) and the slowest cells; a cell with a
# missing shard is marked
mkdir -p "$T/run" && cp ../art/shard-plan-1-of-2.tar.zst ../artB/*.tar.zst "$T/run/"
shardcc report --artifacts "$T/run" >"$T/farm.out" 2>"$T/farm.err" || fail "report over a farm's run: $(cat "$T/farm.err")"
grep -q "^farm: 2 cells of 2 packages (3 artifacts)" "$T/farm.out" &&
    grep -q "^package pkgB: 1 cells, 2 shard artifacts" "$T/farm.out" &&
    grep -q "^package (no package): 1 cells, 1 shard artifacts" "$T/farm.out" &&
    grep -Eq "^  plan +1/2 .*\(incomplete\)" "$T/farm.out" &&
    grep -Eq "^   1\. +[0-9.]+ s  (B|plan) \(shard [12]/2\)" "$T/farm.out" ||
    fail "report over a farm's run: $(cat "$T/farm.out")"
ok "report over two cells' artifacts: a table per package, the incomplete cell marked, the slowest cells"
shardcc report --artifacts "$T/run" --format markdown >"$T/farm.md" || fail "report --format markdown over a farm's run"
grep -q "^#### package \`pkgB\`: 1 cells" "$T/farm.md" || fail "farm markdown: $(cat "$T/farm.md")"
ok "report --format markdown over a farm's run: a table per package"
expect_fail 2 "the artifacts are of several cells (a farm's run): --summary and --plan are one cell's" \
    shardcc report --artifacts "$T/run" --plan farm.json
