# The torch lane with the host seats off (--no-host-seat: CXX/CC left as they are), N = 2:
# only the 8 CUDA TUs are partitioned and cached; the 2 .cpp TUs are compiled in every job
# and never reach a journal, and the wheel is still the unsharded wheel. (By default the
# host seats shard them too: t_torch_pytorch_nvcc, t_torch_cuda_home. Those host TUs are
# compiled with -g and use __FILE__ (TORCH_CHECK): the wheels only match because
# CCACHE_BASEDIR is off by default, so the compiler sees the unsharded build's paths.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/torchlane.sh"
torch_setup
torch_baseline
torch_pipeline no-host-seat 2 $CUDA_TUS "--no-host-seat"
j=.shardcc/link/journal.tsv
expect_eq "no host seat: the link job's journal records of the host compilers" \
    "$(awk -F'\t' '$1 == "SCJ2" && ($4 == "c++" || $4 == "cc")' "$j" | wc -l)" "0"
expect_eq "no host seat: TU compiles in the link job that were not hits" \
    "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $14 != "hit"' "$j" | wc -l)" "0"
torch_check_cpu
summary
