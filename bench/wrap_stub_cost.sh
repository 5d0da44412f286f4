#!/usr/bin/env bash
# wrap_stub_cost: the wrapper's cost per *stubbed* TU as a ratio to the exec floor.
#
#   bench/wrap_stub_cost.sh [--build DIR] [--rounds R] [--calls K] [--out FILE]
#
# Times, side by side in one run, K spawns each of
#   stub: shardcc-nvcc <torch-like argv>, a TU shard 1/2 does not own, so a stub is
#         written; a.o and a.o.d are removed before each call (untimed), as in a clean
#         CI shard (this is the number the goal is about)
#   true: /bin/true <the same argv>, the exec floor (fork/exec, ld.so, libc start-up)
#   ow:   the stubbed call again, over the previous call's outputs (a rebuild; context)
# in R rounds whose order reverses each round. Reports the median per-call time of each,
# the stub/true ratio of the medians and the median of the per-round ratios; the goal is
# a ratio <= 1.20. Writes bench/results/wrap_stub_cost.txt (or --out FILE). Exit status:
# 0 whether or not the goal is met (the number is the result), 1 if the setup is wrong
# (the call is not a stub, a call fails), 2 on a usage error. Defaults: R=10, K=500,
# --build is the build/ next to bench/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build"
rounds=10
calls=500
out="$here/results/wrap_stub_cost.txt"
goal=1.20

usage() {
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}
need_arg() { [ $# -ge 2 ] || { echo "wrap_stub_cost: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case "$1" in
    --build) need_arg "$@"; build=$2; shift 2 ;;
    --rounds) need_arg "$@"; rounds=$2; shift 2 ;;
    --calls) need_arg "$@"; calls=$2; shift 2 ;;
    --out) need_arg "$@"; out=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    *) echo "wrap_stub_cost: unknown option $1" >&2; usage 2 ;;
    esac
done
case "$rounds$calls" in *[!0-9]*) echo "wrap_stub_cost: --rounds and --calls take positive integers" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] && [ "$calls" -ge 1 ] || { echo "wrap_stub_cost: --rounds and --calls must be >= 1" >&2; exit 2; }

[ -d "$build" ] || { echo "wrap_stub_cost: no build directory $build" >&2; exit 2; }
build=$(cd "$build" && pwd)
for f in shardcc shardcc-nvcc; do
    [ -x "$build/$f" ] || { echo "wrap_stub_cost: $build/$f is missing (build first: cmake --build $build)" >&2; exit 2; }
done
floor=/bin/true
[ -x "$floor" ] || { echo "wrap_stub_cost: $floor is missing" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wrap_stub_cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A snapshot of the binaries, so that a rebuild of the build directory while the bench runs
# cannot mix two wrappers into one result.
mkdir "$tmp/bin"
cp "$build/shardcc" "$build/shardcc-wrap" "$tmp/bin/"
cp -R "$build/ld-seat" "$tmp/bin/" # the linker seat, which shardcc env requires
ln -s shardcc-wrap "$tmp/bin/shardcc-nvcc"
wrap_sum=$(sha256sum "$tmp/bin/shardcc-wrap" | cut -c1-16)

# The timing driver, built fresh so that the bench needs nothing but a C compiler.
cc -O2 -Wall -Wextra -Werror -o "$tmp/spawn_loop" "$here/spawn_loop.c"

# A project root with one CUDA source. src/a.cu is owned by shard 2 of 2
# (XXH64("src/a.cu") mod 2 + 1 = 2), so shard 1/2 stubs it; it is never compiled.
root="$tmp/root"
mkdir -p "$root/src" "$root/include" "$root/build"
printf '__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n' >"$root/src/a.cu"
eval "$("$tmp/bin/shardcc" env --root "$root" --shard 1/2)"
[ -n "${SHARDCC_JOURNAL:-}" ] || { echo "wrap_stub_cost: shardcc env set no SHARDCC_JOURNAL" >&2; exit 1; }
cd "$root/build"

# A torch.utils.cpp_extension-like nvcc call (its ninja writer's shape:
# $nvcc -MD -MF $out.d $cuda_cflags -c $in -o $out $cuda_post_cflags), 27 arguments.
args=(-MD -MF a.o.d
    -DTORCH_API_INCLUDE_EXTENSION_H -I"$root/include" -I/usr/local/cuda/include
    -I/usr/include/python3.12
    -c ../src/a.cu -o a.o
    -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__
    -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__
    --expt-relaxed-constexpr --compiler-options "'-fPIC'" -O3
    -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90
    -DTORCH_EXTENSION_NAME=ext -D_GLIBCXX_USE_CXX11_ABI=1
    -ccbin /usr/bin/gcc -std=c++17)
stub_cmd=("$tmp/bin/shardcc-nvcc" "${args[@]}")
true_cmd=("$floor" "${args[@]}")

# Journal records: SCJ2 wall pid seat phase I/N kind action status dur_us owner key output outcome result-key.
count_stubs() { awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $8 == "stub" && $9 == 0 && $12 == "src/a.cu" {n++} END {print n + 0}' "$SHARDCC_JOURNAL"; }
count_all() { awk 'END {print NR}' "$SHARDCC_JOURNAL"; }

# Check once, before any timing, that the call really is a stub: a bench that silently
# measures the wrong thing (a ccache run, an error exit) is a defect.
: >"$SHARDCC_JOURNAL"
rm -f a.o a.o.d
if ! "${stub_cmd[@]}"; then
    echo "wrap_stub_cost: the stubbed call failed" >&2
    exit 1
fi
elf_type=$(readelf -h a.o 2>/dev/null | awk -F: '/Type:/ {gsub(/^ +/, "", $2); print $2}')
if [ "$elf_type" != "REL (Relocatable file)" ]; then
    echo "wrap_stub_cost: a.o is not a stub (readelf -h Type: \"$elf_type\")" >&2
    exit 1
fi
if [ "$(count_stubs)" != 1 ] || [ "$(count_all)" != 1 ]; then
    echo "wrap_stub_cost: the journal did not record exactly one \"stub\" call:" >&2
    cat "$SHARDCC_JOURNAL" >&2
    exit 1
fi
if [ "$(cat a.o.d)" != "a.o:" ]; then
    echo "wrap_stub_cost: the stub depfile is not \"a.o:\"" >&2
    exit 1
fi

# Warm-up (page cache, dentries, CPU frequency), not recorded.
"$tmp/spawn_loop" -u a.o -u a.o.d 100 "${stub_cmd[@]}" >/dev/null
"$tmp/spawn_loop" 100 "${stub_cmd[@]}" >/dev/null
"$tmp/spawn_loop" -u a.o -u a.o.d 100 "${true_cmd[@]}" >/dev/null

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
us() { awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# Three series per round, each K calls:
#   stub: the stubbed call with a.o and a.o.d removed before each call (untimed), as in a
#         clean CI shard, where every output is new (the headline, against the goal);
#   true: /bin/true (the same removals, which find nothing);
#   ow:   the stubbed call with the previous call's a.o and a.o.d still there, so each
#         rename(2) replaces a file (an incremental rebuild; context, not the goal).
# The order reverses every round, so stub and true take turns going first.
rows=()
s_ns=()
t_ns=()
o_ns=()
ratios=()
ow_ratios=()
js_us=()
jo_us=()
for ((r = 1; r <= rounds; r++)); do
    : >"$SHARDCC_JOURNAL" # a real shard keeps it; here it is emptied each round to stay small
    if ((r % 2)); then order="stub true ow"; else order="ow true stub"; fi
    for which in $order; do
        case "$which" in
        stub) s=$("$tmp/spawn_loop" -u a.o -u a.o.d "$calls" "${stub_cmd[@]}") ;;
        true) t=$("$tmp/spawn_loop" -u a.o -u a.o.d "$calls" "${true_cmd[@]}") ;;
        ow) o=$("$tmp/spawn_loop" "$calls" "${stub_cmd[@]}") ;;
        esac
    done
    n=$(count_stubs)
    if [ "$n" != $((2 * calls)) ] || [ "$(count_all)" != $((2 * calls)) ]; then
        echo "wrap_stub_cost: round $r: the journal holds $n stub records of $(count_all), expected $((2 * calls))" >&2
        exit 1
    fi
    # The wrapper's own view: the durations it journals (main() to the journal write). The
    # first K records are the first of stub/ow to run this round, the next K the other's.
    j1=$(awk -F'\t' -v k="$calls" 'NR <= k {print $10}' "$SHARDCC_JOURNAL" | median)
    j2=$(awk -F'\t' -v k="$calls" 'NR > k {print $10}' "$SHARDCC_JOURNAL" | median)
    if [ "${order%% *}" = stub ]; then js=$j1 jo=$j2; else js=$j2 jo=$j1; fi
    s_ns+=("$s")
    t_ns+=("$t")
    o_ns+=("$o")
    ratios+=("$(div "$s" "$t")")
    ow_ratios+=("$(div "$o" "$t")")
    js_us+=("$js")
    jo_us+=("$jo")
    rows+=("$(printf '%5d  %-13s %9s %9s %9s   %6s %6s   %7.0f %7.0f' "$r" "${order// /,}" "$(us "$s")" \
        "$(us "$t")" "$(us "$o")" "$(div "$s" "$t")" "$(div "$o" "$t")" "$js" "$jo")")
done

med_s=$(printf '%s\n' "${s_ns[@]}" | median)
med_t=$(printf '%s\n' "${t_ns[@]}" | median)
med_o=$(printf '%s\n' "${o_ns[@]}" | median)
med_js=$(printf '%s\n' "${js_us[@]}" | median)
med_jo=$(printf '%s\n' "${jo_us[@]}" | median)
ratio=$(awk -v a="$med_s" -v b="$med_t" 'BEGIN {printf "%.2f", a / b}')
ow_ratio=$(awk -v a="$med_o" -v b="$med_t" 'BEGIN {printf "%.2f", a / b}')
round_ratio=$(printf '%s\n' "${ratios[@]}" | median | awk '{printf "%.2f", $1}')
round_ow_ratio=$(printf '%s\n' "${ow_ratios[@]}" | median | awk '{printf "%.2f", $1}')
min_ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)
max_ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
if awk -v a="$ratio" -v b="$round_ratio" -v g="$goal" 'BEGIN {exit !(a <= g && b <= g)}'; then
    verdict="goal met"
else
    verdict="GOAL MISSED"
fi

nvcc_version=$("$SHARDCC_REAL_NVCC" --version 2>/dev/null | awk '/release/ {print; exit}' || true)
ccache_version=$("$SHARDCC_CCACHE" --version 2>/dev/null | head -1 || true)
report() {
    echo "# wrap_stub_cost: the wrapper's cost per stubbed TU vs the exec floor (/bin/true)"
    echo "date:           $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "machine:        $(uname -m), $(nproc) CPUs, $(uname -sr)"
    echo "load average:   $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') (at the end)"
    echo "commit:         $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$here/.." diff --quiet HEAD -- src 2>/dev/null || echo ' (src/ modified)')"
    echo "nvcc:           ${nvcc_version:-?} ($SHARDCC_REAL_NVCC; never run by a stubbed call)"
    echo "ccache:         ${ccache_version:-?} ($SHARDCC_CCACHE; never run by a stubbed call)"
    echo "wrapper:        $build/shardcc-wrap, run from a copy as shardcc-nvcc ($(stat -c %s "$tmp/bin/shardcc-wrap") bytes, sha256 $wrap_sum..., $(file -b "$tmp/bin/shardcc-wrap" 2>/dev/null | grep -o 'dynamically linked\|statically linked\|static-pie linked' || echo '?'), $("$tmp/bin/shardcc-wrap" --version 2>/dev/null | grep -o 'libc: [a-z]*' || echo 'libc: ?'))"
    echo "filesystem:     $(df -PT "$root" 2>/dev/null | awk 'NR == 2 {print $2}') at $(df -P "$root" 2>/dev/null | awk 'NR == 2 {print $6}') (stub, depfile and journal are written there; TMPDIR picks it)"
    echo "parameters:     rounds=$rounds, calls=$calls per series per round (+100 warm-up calls each), order reverses each round"
    echo "argv (${#args[@]} args): ${args[*]}"
    echo
    echo "            stub = stubbed call, outputs absent (clean build); true = /bin/true, same argv;"
    echo "            ow = stubbed call over the previous call's outputs (rebuild); us per call"
    echo "            own = the wrapper's journaled dur_us (main() to its journal write), median"
    echo "round  order              stub      true        ow   stub/true ow/true  own:stub     ow"
    printf '%s\n' "${rows[@]}"
    echo
    echo "median stub:     $(us "$med_s") us/call  ($(awk -v a="$med_s" -v b="$med_t" 'BEGIN {printf "%+.1f", (a - b) / 1000}') us vs the floor)"
    echo "median true:     $(us "$med_t") us/call"
    echo "median ow:       $(us "$med_o") us/call  ($(awk -v a="$med_o" -v b="$med_t" 'BEGIN {printf "%+.1f", (a - b) / 1000}') us vs the floor); ow/true ratio $ow_ratio, per round $round_ow_ratio"
    echo "wrapper's own:   $med_js us (stub), $med_jo us (ow): journaled dur_us, main() to the journal write"
    echo "per-round stub/true ratio: median $round_ratio (min $min_ratio, max $max_ratio)"
    echo "stub/true ratio: $ratio (goal <= $goal) - $verdict"
}
mkdir -p "$(dirname "$out")"
report | tee "$out"
if [ "$verdict" != "goal met" ]; then
    echo "wrap_stub_cost: goal missed: stub/true ratio $ratio of medians, $round_ratio per round (goal <= $goal)" >&2
fi
exit 0
