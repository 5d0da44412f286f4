#!/usr/bin/env bash
# windows_stub_cost: the Windows seat's cost per stubbed TU as a ratio to a no-op program,
# under Wine on this machine (docs/windows.md).
#
#   bench/windows_stub_cost.sh [--rounds R] [--calls K] [--out FILE]
#
# Cross-builds shardcc-wrap.exe with mingw-w64 (the project's CMake and
# cmake/mingw-w64-x86_64.cmake) and tests/tools/win_args.c as the no-op (it exits at once
# without WIN_ARGS_OUT), then bench/win_spawn_loop.exe times, side by side in one Wine
# process, K calls each of
#   stub: shardcc-cc.exe /nologo /c src/a.c /Foobj/a.obj for a shard that does not own
#         src/a.c (cl.exe the real compiler by name), its object deleted before each call
#   noop: win_args.exe with the same arguments: CreateProcess's floor under Wine
# in R rounds of alternating order. Reports the per-round medians, the stub/noop ratio of
# their medians and the median of the per-round ratios. Wine's process start-up is not
# Windows': the ratio says what the seat adds to a process start there, not what a Windows
# runner will measure (docs/windows.md). Writes bench/results/windows_stub_cost.txt (or
# --out FILE). Exit status: 0 (the number is the result), 1 if the setup fails, 2 on a usage
# error. Defaults: R=5, K=100.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
rounds=5
calls=100
out="$here/results/windows_stub_cost.txt"
usage() {
    sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
need_arg() { [ $# -ge 2 ] || { echo "windows_stub_cost: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
    --calls) need_arg "$@"; calls=$2; shift 2 ;;
    --out) need_arg "$@"; out=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "windows_stub_cost: unknown option $1" >&2; usage 2 ;;
    esac
done
for t in x86_64-w64-mingw32-gcc wine cmake ninja; do
    command -v "$t" >/dev/null || { echo "windows_stub_cost: $t is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
w=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-winbench.XXXXXX")
trap 'rm -rf "$w"' EXIT
export WINEPREFIX="$w/wine" WINEDEBUG=-all
cmake -S "$src" -B "$w/bw" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$src/cmake/mingw-w64-x86_64.cmake" >"$w/cfg.log" 2>&1 ||
    { echo "windows_stub_cost: configure failed: $(tail -3 "$w/cfg.log")" >&2; exit 1; }
cmake --build "$w/bw" >"$w/build.log" 2>&1 || { echo "windows_stub_cost: build failed" >&2; exit 1; }
x86_64-w64-mingw32-gcc -O2 -static "$src/tests/tools/win_args.c" -o "$w/win_args.exe" -lshell32
x86_64-w64-mingw32-gcc -O2 -static "$here/win_spawn_loop.c" -o "$w/loop.exe" -lshell32
wineboot -i >/dev/null 2>&1 || true
mkdir -p "$w/p/src" "$w/p/obj"
cp "$w/win_args.exe" "$w/p/cl.exe"
printf 'int fa(int x) { return x + 1; }\n' >"$w/p/src/a.c"
cd "$w/p"
# the shard that does not own src/a.c: try 1/2, and take 2/2 if 1/2 owns it
other=1
env SHARDCC_ROOT="$w/p" SHARDCC_PHASE=shard SHARDCC_SHARD=1/2 SHARDCC_REAL_CC="$w/p/cl.exe" \
    SHARDCC_JOURNAL="$w/probe.tsv" SHARDCC_CCACHE=/nonexistent \
    wine "$w/bw/shardcc-cc.exe" /nologo /c src/a.c /Foobj/a.obj </dev/null >/dev/null 2>&1 || true
awk -F'\t' '$1 == "SCJ2" && $8 == "stub"' "$w/probe.tsv" 2>/dev/null | grep -q . || other=2
wp() { winepath -w "$1" 2>/dev/null; }
seat=$(wp "$w/bw/shardcc-cc.exe")
noop=$(wp "$w/win_args.exe")
obj=$(wp "$w/p/obj/a.obj")
export SHARDCC_ROOT="$w/p" SHARDCC_PHASE=shard SHARDCC_SHARD="$other/2" SHARDCC_REAL_CC="$w/p/cl.exe" \
    SHARDCC_JOURNAL="$w/journal.tsv" SHARDCC_CCACHE=/nonexistent
args='/nologo /c src/a.c /Foobj/a.obj'
wine "$w/loop.exe" "$rounds" "$calls" "$obj" "\"$seat\" $args" "\"$noop\" $args" </dev/null >"$w/rounds.txt" 2>"$w/err.txt" ||
    { echo "windows_stub_cost: the loop failed: $(cat "$w/err.txt")" >&2; exit 1; }
stubs=$(awk -F'\t' '$1 == "SCJ2" && $8 == "stub"' "$w/journal.tsv" | wc -l)
[ "$stubs" -ge "$((rounds * calls))" ] || { echo "windows_stub_cost: $stubs stubs journaled, expected $((rounds * calls))" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
python3 - "$w/rounds.txt" "$rounds" "$calls" "$stubs" >"$out" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("round")]
a = [float(r[2]) for r in rows]
b = [float(r[3]) for r in rows]
ratios = [x / y for x, y in zip(a, b)]
print("windows_stub_cost: the Windows seat (mingw-w64 build) stubbing a TU, against a no-op .exe")
print("under Wine (%s rounds of %s calls each, alternating order; %s stubs journaled)" % (sys.argv[2], sys.argv[3], sys.argv[4]))
for i, (x, y) in enumerate(zip(a, b)):
    print("  round %d: stub %.0f us, noop %.0f us, ratio %.3f" % (i + 1, x, y, x / y))
print("median stub %.0f us, median noop %.0f us" % (statistics.median(a), statistics.median(b)))
print("stub/noop: %.3f (ratio of the medians), %.3f (median of the per-round ratios)"
      % (statistics.median(a) / statistics.median(b), statistics.median(ratios)))
print("Wine's process start is not Windows': this is what the seat adds to a process start")
print("under Wine on this machine, not a Windows runner's figure.")
PY
cat "$out"
