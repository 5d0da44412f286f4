#!/usr/bin/env bash
# plan_stub_cost: what a farm's plan costs the seat on every stubbed call.
#
#   bench/plan_stub_cost.sh [--build DIR] [--rounds R] [--calls K] [--cells C] [--tus T]
#                           [--out FILE]
#
# A plan per cell of C cells x T TUs (shardcc plan --per-cell's form; defaults 200 x 100)
# is given to `shardcc env --shard 1/2 --cell CELL --plan FILE`, which writes the seat's
# plan text of that cell's section only. The seat (shardcc-nvcc) then stubs a TU the
# plan gives to shard 2, whose key sorts last (the seat's lookup reads every line before
# it). Timed side by side, call by call (spawn_loop's interleaved mode: A B B A ...), in
# R rounds of K calls each:
#   cell: SHARDCC_PLAN = the cell's section (what a job of the farm runs with)
#   none: SHARDCC_PLAN empty (no plan: the hash partition)
#   flat: SHARDCC_PLAN = every cell's lines in one text (C x T lines: what the seat would
#         read if the file were not split by cell; context, not the goal)
# Reports the median per-call times, the median of the per-pair ratios per round and over
# the rounds; the goal is cell/none <= 1.05. Writes bench/results/plan_stub_cost.txt (or
# --out FILE). Exit status: 0 whether or not the goal is met, 1 if the setup is wrong (a
# call is not a stub, the seat did not follow the plan), 2 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build"
rounds=10
calls=300
cells=200
tus=100
out="$here/results/plan_stub_cost.txt"
goal=1.05

usage() {
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
need_arg() { [ $# -ge 2 ] || { echo "plan_stub_cost: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --build) need_arg "$@"; build=$2; shift 2 ;;
    --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
    --calls) need_arg "$@"; calls=$2; shift 2 ;;
    --cells) need_arg "$@"; cells=$2; shift 2 ;;
    --tus) need_arg "$@"; tus=$2; shift 2 ;;
    --out) need_arg "$@"; out=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "plan_stub_cost: unknown option $1" >&2; usage 2 ;;
    esac
done
case "$rounds$calls$cells$tus" in *[!0-9]*) echo "plan_stub_cost: --rounds, --calls, --cells and --tus take positive integers" >&2; exit 2 ;; esac
for v in "$rounds" "$calls" "$cells" "$tus"; do
    [ "$v" -ge 1 ] || { echo "plan_stub_cost: --rounds, --calls, --cells and --tus must be >= 1" >&2; exit 2; }
done
[ -d "$build" ] || { echo "plan_stub_cost: no build directory $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
for f in shardcc shardcc-wrap; do
    [ -x "$build/$f" ] || { echo "plan_stub_cost: $build/$f is missing (build first: cmake --build $build)" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/plan_stub_cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cp "$build/shardcc" "$build/shardcc-wrap" "$tmp/bin/"
cp -R "$build/ld-seat" "$tmp/bin/" # the linker seat, which shardcc env requires
ln -s shardcc-wrap "$tmp/bin/shardcc-nvcc"
cc -O2 -Wall -Wextra -Werror -o "$tmp/spawn_loop" "$here/spawn_loop.c"

# The project: one CUDA source, zz/b.cu (a key that sorts after every other key of the
# plan); the plan gives it to shard 2 in every cell, so shard 1/2 stubs it.
root="$tmp/root"
mkdir -p "$root/zz" "$root/build"
printf '__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n' >"$root/zz/b.cu"
python3 - "$tmp/farm.json" "$tmp/flat.tsv" "$cells" "$tus" <<'PY'
import json, sys
path, flat, ncells, ntus = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# flash-attention-like keys: one per (head dim, dtype, direction, split)
keys = ["csrc/flash_attn/src/flash_%s_hdim%d_%s_%s_sm80.cu" % (d, h, t, s)
        for d in ("fwd", "bwd", "fwd_split") for h in (32, 64, 96, 128, 160, 192, 224, 256)
        for t in ("fp16", "bf16") for s in ("causal", "noncausal", "alibi")][:ntus - 1]
while len(keys) < ntus - 1:
    keys.append("csrc/extra/k%05d.cu" % len(keys))
def section(c):
    assign = {k: 1 + (hash((k, c)) % 2) for k in keys}
    assign["zz/b.cu"] = 2
    return {"format": 1, "method": "lpt", "n": 2, "assign": assign,
            "cost": {k: 1.0 for k in assign}, "makespan": {"plan": 1, "hash": 1, "ideal": 1},
            "shards": [{"shard": 1, "tus": 0, "seconds": 0}, {"shard": 2, "tus": 0, "seconds": 0}]}
cells = {"pkg-linux-x86_64-py3.%d-cu12.%d-torch2.%d.0" % (10 + i % 5, i // 5 % 10, i // 50): None
         for i in range(ncells)}
cells = {c: section(c) for c in cells}
json.dump({"format": 1, "cells": cells, "default": section("default")}, open(path, "w"), sort_keys=True)
# every cell's lines in one seat text (keys made distinct per cell), zz/b.cu last
with open(flat, "w") as f:
    f.write("shardcc-plan\t2\n")
    lines = sorted("%s/%s\t%d\n" % (c, k, v) for c, s in cells.items() for k, v in s["assign"].items()
                   if k != "zz/b.cu")
    f.write("".join(lines) + "zz/b.cu\t2\n")
PY
cell=$(python3 -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))["cells"])[-1])' "$tmp/farm.json")
eval "$("$tmp/bin/shardcc" env --root "$root" --shard 1/2 --cell "$cell" --plan "$tmp/farm.json")"
[ -n "${SHARDCC_PLAN:-}" ] && [ -f "$SHARDCC_PLAN" ] || { echo "plan_stub_cost: shardcc env set no SHARDCC_PLAN" >&2; exit 1; }
cell_plan=$SHARDCC_PLAN
cell_lines=$(wc -l <"$cell_plan")
flat_lines=$(wc -l <"$tmp/flat.tsv")
[ "$cell_lines" = $((tus + 1)) ] || { echo "plan_stub_cost: the cell's seat text has $cell_lines lines, not $((tus + 1))" >&2; exit 1; }
cd "$root/build"
args=(-MD -MF a.o.d -I"$root/include" -O3 -gencode=arch=compute_90,code=sm_90 -c ../zz/b.cu -o a.o)
seat=("$tmp/bin/shardcc-nvcc" "${args[@]}")

# Before any timing: each way is a stub of zz/b.cu, owned by shard 2 (the plan's choice,
# and also the hash's: XXH64 gives it to shard 2 of 2, so that "none" stubs it too).
for way in cell none flat; do
    case $way in cell) p=$cell_plan ;; none) p= ;; flat) p=$tmp/flat.tsv ;; esac
    : >"$SHARDCC_JOURNAL"
    rm -f a.o a.o.d
    SHARDCC_PLAN=$p "${seat[@]}" || { echo "plan_stub_cost: the $way call failed" >&2; exit 1; }
    rec=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" {print $8, $11, $12}' "$SHARDCC_JOURNAL")
    [ "$rec" = "stub 2 zz/b.cu" ] || { echo "plan_stub_cost: the $way call recorded \"$rec\", not \"stub 2 zz/b.cu\"" >&2; exit 1; }
done
"$tmp/spawn_loop" -u a.o -u a.o.d 100 SHARDCC_PLAN="$cell_plan" "${seat[@]}" ::: SHARDCC_PLAN= "${seat[@]}" >/dev/null

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
us() { awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }
rows=()
cr=()
fr=()
cn=()
nn=()
fn=()
for ((r = 1; r <= rounds; r++)); do
    : >"$SHARDCC_JOURNAL"
    # cell against none, then flat against none: each pair's calls interleaved
    read -r c n1 ratio_c < <("$tmp/spawn_loop" -u a.o -u a.o.d "$calls" SHARDCC_PLAN="$cell_plan" "${seat[@]}" ::: SHARDCC_PLAN= "${seat[@]}")
    read -r f n2 ratio_f < <("$tmp/spawn_loop" -u a.o -u a.o.d "$calls" SHARDCC_PLAN="$tmp/flat.tsv" "${seat[@]}" ::: SHARDCC_PLAN= "${seat[@]}")
    stubs=$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "stub" && $11 == 2 {n++} END {print n + 0}' "$SHARDCC_JOURNAL")
    [ "$stubs" = $((4 * calls)) ] || { echo "plan_stub_cost: round $r: $stubs stub records, expected $((4 * calls))" >&2; exit 1; }
    cr+=("$ratio_c")
    fr+=("$ratio_f")
    cn+=("$c")
    nn+=("$n1" "$n2")
    fn+=("$f")
    rows+=("$(printf '%5d   %9s %9s %9s    %7.4f %8.4f' "$r" "$(us "$c")" "$(us "$n1")" "$(us "$f")" "$ratio_c" "$ratio_f")")
done
med_c=$(printf '%s\n' "${cn[@]}" | median)
med_n=$(printf '%s\n' "${nn[@]}" | median)
med_f=$(printf '%s\n' "${fn[@]}" | median)
ratio=$(printf '%s\n' "${cr[@]}" | median | awk '{printf "%.3f", $1}')
fratio=$(printf '%s\n' "${fr[@]}" | median | awk '{printf "%.3f", $1}')
if awk -v a="$ratio" -v g="$goal" 'BEGIN {exit !(a <= g)}'; then verdict="goal met"; else verdict="GOAL MISSED"; fi
report() {
    echo "# plan_stub_cost: the seat's cost per stubbed call under a farm's plan per cell vs no plan"
    echo "date:           $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "machine:        $(uname -m), $(nproc) CPUs, $(uname -sr)"
    echo "load average:   $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') (at the end)"
    echo "commit:         $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$here/.." diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"
    echo "wrapper:        $build/shardcc-wrap ($("$tmp/bin/shardcc-wrap" --version 2>/dev/null | grep -o 'libc: [a-z]*' || echo 'libc: ?'))"
    echo "plan:           a plan per cell, $cells cells x $tus TUs ($(stat -c %s "$tmp/farm.json") bytes of JSON); the job's cell $cell"
    echo "seat texts:     cell = its section, $cell_lines lines ($(stat -c %s "$cell_plan") bytes); flat = every cell's lines, $flat_lines lines ($(stat -c %s "$tmp/flat.tsv") bytes)"
    echo "parameters:     rounds=$rounds, calls=$calls per pair per round, interleaved call by call (A B B A ...)"
    echo "argv:           shardcc-nvcc ${args[*]}"
    echo
    echo "            us per call (medians); ratios: median over the round's adjacent pairs"
    echo "round        cell      none      flat    cell/none flat/none"
    printf '%s\n' "${rows[@]}"
    echo
    echo "median:  cell $(us "$med_c") us, none $(us "$med_n") us, flat $(us "$med_f") us per call"
    echo "flat/none (context: a seat text of every cell): $fratio"
    echo "cell/none: $ratio (goal <= $goal) - $verdict"
}
mkdir -p "$(dirname "$out")"
report | tee "$out"
exit 0
