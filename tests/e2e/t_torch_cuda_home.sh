# The torch lane on torch's non-ninja path (use_ninja=False: torch runs $CUDA_HOME/bin/nvcc
# itself and ignores PYTORCH_NVCC) with default options, N = 2: the shadow CUDA_HOME is the
# default where it is safe, so no flag is needed;
# the link job's wheel is the unsharded wheel and every TU is a cache hit, the .cpp ones
# through the default host seats (torch's setuptools backend runs them as CC). This path
# passes nvcc no depfile option at all: the third depfile form ("none").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/torchlane.sh"
export SHARDCC_EXAMPLE_NO_NINJA=1
torch_setup
torch_baseline
[ ! -e build/temp.*/build.ninja ] || fail "the non-ninja path wrote a build.ninja"
ok "torch took its non-ninja path"
[ -z "$(find build -name '*.d')" ] || fail "the non-ninja path wrote depfiles: $(find build -name '*.d')"
ok "no depfile written: nvcc ran without -MD/-MF (the \"none\" form)"
torch_pipeline cuda-home 2 $ALL_TUS ""
expect_eq "cuda-home: the shard's TUs came through \$CUDA_HOME/bin/nvcc" \
    "$(awk -F'\t' '$1 == "SCJ2" && $7 == "tu" && $4 == "nvcc"' .shardcc/shard-1-of-2/journal.tsv | wc -l)" "$CUDA_TUS"
summary
