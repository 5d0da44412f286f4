# The torch lane with the host seat on (--host-seat: CXX/CC are shardcc-c++/shardcc-cc), N = 2:
# the .cpp TUs are partitioned and cached too, so the link job compiles nothing: every one of
# the 10 TUs is a cache hit, the wheel is the unsharded wheel, and the sharded wheel's
# kernels pass against plain torch. The host TUs are compiled with -g and use __FILE__
# (TORCH_CHECK): the wheels only match because CCACHE_BASEDIR is off by default, so the
# compiler sees the unsharded build's absolute paths.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/torchlane.sh"
torch_setup
torch_baseline
torch_pipeline host-seat 2 $((CUDA_TUS + 2)) "--host-seat"
j=.shardcc/link/journal.tsv
expect_eq "host seat: the link job's host TUs" "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $4 != "nvcc"' "$j" | wc -l)" "2"
expect_eq "host seat: TU compiles in the link job that were not hits" \
    "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $14 != "hit"' "$j" | wc -l)" "0"
torch_check_cpu
summary
