#!/usr/bin/env bash
# wrap_stub_cost: the wrapper's cost per *stubbed* TU as a ratio to the exec floor.
#
#   bench/wrap_stub_cost.sh [--build DIR] [--rounds R] [--calls K] [--out FILE]
#
# Times, side by side in the same run, K spawns of
#   stub:  shardcc-nvcc <torch-like argv>   (a TU this shard does not own: a stub is written)
#   true:  /bin/true    <the same argv>     (the exec floor: fork/exec/ld.so/libc, nothing else)
# in R interleaved rounds (the order alternates each round), on a shared, noisy machine.
# Reports the median per-call time of each, the ratio of the medians and the median of the
# per-round ratios; the goal is a ratio <= 1.20. Writes the result to
# bench/results/wrap_stub_cost.txt (or --out). Exits 0 whether or not the goal is met (the
# number is the result); exits 1 when the setup is wrong (the call is not a stub, a call
# fails) and 2 on a usage error.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build"
rounds=10
calls=500
out="$here/results/wrap_stub_cost.txt"
goal=1.20

usage() {
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
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

build=$(cd "$build" && pwd) || { echo "wrap_stub_cost: no build directory $build" >&2; exit 2; }
for f in shardcc shardcc-nvcc; do
    [ -x "$build/$f" ] || { echo "wrap_stub_cost: $build/$f is missing (build first: cmake --build $build)" >&2; exit 2; }
done
floor=/bin/true
[ -x "$floor" ] || { echo "wrap_stub_cost: $floor is missing" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wrap_stub_cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The timing driver, built fresh so that the bench needs nothing but a C compiler.
cc -O2 -Wall -Wextra -Werror -o "$tmp/spawn_loop" "$here/spawn_loop.c"

# A project root with one CUDA source. src/a.cu is owned by shard 2 of 2
# (XXH64("src/a.cu") mod 2 + 1 = 2), so shard 1/2 stubs it; it is never compiled.
root="$tmp/root"
mkdir -p "$root/src" "$root/include" "$root/build"
printf '__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n' >"$root/src/a.cu"
eval "$("$build/shardcc" env --root "$root" --shard 1/2)"
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
stub_cmd=("$build/shardcc-nvcc" "${args[@]}")
true_cmd=("$floor" "${args[@]}")

# Journal records: SCJ1 wall pid seat phase I/N kind action status dur_us owner key output.
count_stubs() { awk -F'\t' '$1 == "SCJ1" && $7 == "tu" && $8 == "stub" && $9 == 0 && $12 == "src/a.cu" {n++} END {print n + 0}' "$SHARDCC_JOURNAL"; }
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

# Warm-up (page cache, dentries, the CPU's frequency), not recorded.
"$tmp/spawn_loop" 100 "${stub_cmd[@]}" >/dev/null
"$tmp/spawn_loop" 100 "${true_cmd[@]}" >/dev/null

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

rows=()
stub_ns=()
true_ns=()
ratios=()
journal_us=()
for ((r = 1; r <= rounds; r++)); do
    : >"$SHARDCC_JOURNAL" # a real shard keeps it; here it is truncated so it stays small
    if ((r % 2)); then order="stub,true"; else order="true,stub"; fi
    for which in ${order//,/ }; do
        if [ "$which" = stub ]; then
            s=$("$tmp/spawn_loop" "$calls" "${stub_cmd[@]}")
        else
            t=$("$tmp/spawn_loop" "$calls" "${true_cmd[@]}")
        fi
    done
    n=$(count_stubs)
    if [ "$n" != "$calls" ] || [ "$(count_all)" != "$calls" ]; then
        echo "wrap_stub_cost: round $r: the journal holds $n stub records of $(count_all), expected $calls" >&2
        exit 1
    fi
    # The wrapper's own view: median of the durations it journals (main() to the journal).
    j=$(awk -F'\t' '{print $10}' "$SHARDCC_JOURNAL" | median)
    ratio=$(awk -v s="$s" -v t="$t" 'BEGIN {printf "%.3f", s / t}')
    stub_ns+=("$s")
    true_ns+=("$t")
    ratios+=("$ratio")
    journal_us+=("$j")
    rows+=("$(printf '%5d  %-9s  %10.1f  %10.1f  %6s  %12s' "$r" "$order" "$(awk -v v="$s" 'BEGIN {print v / 1000}')" \
        "$(awk -v v="$t" 'BEGIN {print v / 1000}')" "$ratio" "$j")")
done

med_stub=$(printf '%s\n' "${stub_ns[@]}" | median)
med_true=$(printf '%s\n' "${true_ns[@]}" | median)
med_ratio=$(printf '%s\n' "${ratios[@]}" | median)
med_journal=$(printf '%s\n' "${journal_us[@]}" | median)
ratio_of_medians=$(awk -v s="$med_stub" -v t="$med_true" 'BEGIN {printf "%.2f", s / t}')
med_ratio=$(awk -v v="$med_ratio" 'BEGIN {printf "%.2f", v}')
min_ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)
max_ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
extra_us=$(awk -v s="$med_stub" -v t="$med_true" 'BEGIN {printf "%.1f", (s - t) / 1000}')
if awk -v a="$ratio_of_medians" -v b="$med_ratio" -v g="$goal" 'BEGIN {exit !(a <= g && b <= g)}'; then
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
    echo "wrapper:        $build/shardcc-nvcc -> shardcc-wrap ($(stat -c %s "$build/shardcc-wrap") bytes)"
    echo "filesystem:     $(stat -f -c %T "$root") (the stub, its depfile and the journal are written there)"
    echo "parameters:     rounds=$rounds calls/round=$calls (+100 warm-up calls each), order alternates"
    echo "argv (${#args[@]} args): ${args[*]}"
    echo
    echo "round  order       stub us/call  true us/call   ratio  journal dur_us (median)"
    printf '%s\n' "${rows[@]}"
    echo
    printf 'median stub:   %8.1f us/call\n' "$(awk -v v="$med_stub" 'BEGIN {print v / 1000}')"
    printf 'median true:   %8.1f us/call\n' "$(awk -v v="$med_true" 'BEGIN {print v / 1000}')"
    echo "extra:         $extra_us us/call over the exec floor"
    echo "wrapper's own: $med_journal us median of journaled dur_us (main() to the journal write)"
    echo "per-round ratio: median $med_ratio (min $min_ratio, max $max_ratio)"
    echo "stub/true ratio: $ratio_of_medians (goal <= $goal) - $verdict"
}
mkdir -p "$(dirname "$out")"
report | tee "$out"
if [ "$verdict" != "goal met" ]; then
    echo "wrap_stub_cost: goal missed: ratio $ratio_of_medians of medians, $med_ratio per round (goal <= $goal)" >&2
fi
exit 0
