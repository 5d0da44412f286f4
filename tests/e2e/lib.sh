# lib.sh: shared helpers for the end-to-end suites (sourced). Each suite runs against the
# real nvcc, ccache, gcc, CMake and Ninja of the machine, in a fresh temporary directory.
set -euo pipefail

: "${SHARDCC_BIN:?SHARDCC_BIN must name the directory holding shardcc and its seats}"
: "${SHARDCC_SRC:?SHARDCC_SRC must name the source tree}"
export PATH="$SHARDCC_BIN:$PATH"
# A clean slate: nothing from the caller's shell may steer the seats.
unset SHARDCC_ROOT SHARDCC_PHASE SHARDCC_SHARD SHARDCC_JOURNAL SHARDCC_DEPTH NVCC_PREPEND_FLAGS \
      NVCC_APPEND_FLAGS CUDACXX PYTORCH_NVCC SHARDCC_REAL_NVCC SHARDCC_REAL_NVCC_TORCH CCACHE_DIR || true

T=$(mktemp -d "${TMPDIR:-/tmp}/shardcc-e2e.XXXXXX")
# SHARDCC_KEEP=1 keeps the directory of a failed suite for a post-mortem.
trap 'rc=$?; if [ "$rc" != 0 ] && [ "${SHARDCC_KEEP:-0}" = 1 ]; then echo "kept: $T" >&2; else rm -rf "$T"; fi' EXIT
CHECKS=0

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

ok() { # counted in a file, so that checks made in subshells count too
    echo >>"$T/.checks"
    CHECKS=$(wc -l <"$T/.checks")
    echo "ok $CHECKS - $*"
}

expect_eq() { # expect_eq WHAT GOT WANT
    [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
    ok "$1 = $3"
}

# Runs a command that must fail with a given status and a message containing a text.
expect_fail() { # expect_fail STATUS TEXT CMD...
    local want=$1 text=$2
    shift 2
    local rc=0
    "$@" >"$T/.out" 2>"$T/.err" || rc=$?
    [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want; stderr: $(cat "$T/.err")"
    grep -qF -- "$text" "$T/.err" || fail "'$*' stderr lacks '$text': $(cat "$T/.err")"
    ok "exit $want, '$text': $*"
}

# A copy of a binary file with nvcc's per-run temporary names masked (docs/shardcc-compare.md).
mask_tmpxft() { # mask_tmpxft IN OUT
    perl -0777 -pe 's/tmpxft_[0-9a-f]{8}_[0-9a-f]{8}/tmpxft_XXXXXXXX_XXXXXXXX/g' <"$1" >"$2"
}

same_masked() { # same_masked WHAT A B
    mask_tmpxft "$2" "$T/.a"
    mask_tmpxft "$3" "$T/.b"
    cmp -s "$T/.a" "$T/.b" || fail "$1: $2 and $3 differ beyond nvcc's temp names"
    ok "$1: same up to nvcc's temp names"
}

# Number of journal records whose fields match: journal_count FILE kind action [status]
journal_count() {
    awk -F'\t' -v k="$2" -v a="$3" -v s="${4:-}" \
        '$1 == "SCJ2" && $7 == k && $8 == a && (s == "" || $9 == s) {n++} END {print n + 0}' "$1"
}

# ccache's counters for the calls logged in a stats log: statslog_count FILE COUNTER
statslog_count() {
    grep -cx "$2" "$1" || true
}

# The real CUDA toolkit's root, symbolic links resolved: the directory above the one nvcc
# runs from (the _HERE_ of `nvcc -dryrun`), so that an nvcc on PATH that is a script
# exec'ing the real one (/usr/local/bin/nvcc on CI images) still leads to the toolkit.
cuda_root() {
    local here
    here=$(nvcc -dryrun -c /nonexistent/shardcc-probe.cu 2>&1 | sed -n 's/^#\$ _HERE_=//p' | head -1)
    [ -n "$here" ] && [ -d "$here" ] || fail "nvcc -dryrun names no _HERE_ directory"
    (cd "$here/.." && pwd -P)
}

summary() {
    CHECKS=$(cat "$T/.checks" 2>/dev/null | wc -l)
    echo "# $CHECKS checks passed"
}
