# torchlane.sh: the torch lane on examples/torch-ext (sourced by t_torch_*.sh after lib.sh).
# A real torch from PyPI, the machine's nvcc, `python3 -m pip wheel . --no-build-isolation`.
EX="$SHARDCC_SRC/examples/torch-ext"
export TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=${MAX_JOBS:-$(nproc)} PIP_DISABLE_PIP_VERSION_CHECK=1
WHEEL='rm -rf build dist *.egg-info && python3 -m pip wheel . --no-build-isolation --no-deps -q -w dist'
CUDA_TUS=8
# its two .cpp TUs: sharded by the default host seats (torch extensions' TUs define
# TORCH_EXTENSION_NAME), compiled in every job with --no-host-seat
HOST_TUS=2
ALL_TUS=$((CUDA_TUS + HOST_TUS))

torch_setup() {
    python3 -c 'import torch' 2>/dev/null || fail "torch is not installed (scripts/install-deps.sh installs it)"
    cd "$T"
    cp -r "$EX" proj
    cd proj
}

# The unsharded wheel: ../plain.whl
torch_baseline() { # torch_baseline [ENV=VALUE...]
    env "$@" sh -c "$WHEEL" >"$T/baseline.log" 2>&1 || fail "unsharded build: $(tail -20 "$T/baseline.log")"
    cp dist/*.whl ../plain.whl
    ok "unsharded wheel $(basename dist/*.whl)"
}

# torch_pipeline NAME N TUS "SHARD-OPTIONS" [ENV=VALUE...]: N shards, the link job, checks
torch_pipeline() {
    local name=$1 n=$2 tus=$3 opts=$4 i
    shift 4
    rm -rf "../art-$name" && mkdir "../art-$name"
    local owned=0
    for i in $(seq 1 "$n"); do
        env "$@" shardcc shard $opts --shard "$i/$n" --cell "torch-$name" --artifact "../art-$name" \
            -- sh -c "$WHEEL" >"$T/shard.log" 2>&1 || fail "$name: shard $i/$n: $(tail -20 "$T/shard.log")"
        local j=.shardcc/shard-$i-of-$n/journal.tsv
        expect_eq "$name: shard $i/$n: TUs the seats saw" "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu"' "$j" | wc -l)" "$tus"
        owned=$((owned + $(journal_count "$j" tu cache 0)))
    done
    expect_eq "$name: every TU owned by exactly one shard" "$owned" "$tus"
    env "$@" shardcc link $opts --artifacts "../art-$name" --expect-shards "$n" -- sh -c "$WHEEL" \
        >"$T/link.log" 2>&1 || fail "$name: link: $(tail -20 "$T/link.log")"
    grep -qx "hit rate 100.0% ($tus/$tus TUs), 0 stubs, $n/$n shards" "$T/link.log" ||
        fail "$name: link summary: $(grep 'hit rate' "$T/link.log")"
    ok "$name: link: hit rate 100.0% ($tus/$tus TUs), 0 stubs, $n/$n shards"
    shardcc compare dist/*.whl ../plain.whl >"$T/cmp.out" || fail "$name: $(cat "$T/cmp.out")"
    ok "$name: $(cat "$T/cmp.out")"
}

# The link job's wheel, installed, against plain torch on the CPU (the GPU check is
# scripts/gpu-torch-check.sh).
torch_check_cpu() {
    rm -rf "$T/site"
    python3 -m pip install -q --no-deps --no-index --target "$T/site" dist/*.whl >/dev/null ||
        fail "cannot install the link job's wheel"
    (cd "$T" && PYTHONPATH="$T/site" python3 "$EX/tests/test_kernels.py" --device cpu) >"$T/kern.out" 2>&1 ||
        fail "the sharded wheel's kernels: $(cat "$T/kern.out")"
    ok "the sharded wheel's kernels: $(tail -1 "$T/kern.out")"
}
