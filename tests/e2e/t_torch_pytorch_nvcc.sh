# The torch lane through PYTORCH_NVCC + ninja (torch 2.11's writer: -MD -MF), N in {1, 3},
# and through the long depfile forms older torch releases write (--generate-dependencies-
# with-compile --dependency-output), N = 2: the link job's wheel is the unsharded wheel (up
# to nvcc's temp names) and every TU, the .cpp ones included (the default host seats), is a
# cache hit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/torchlane.sh"
# CUDA_HOME spells the toolkit through a link, PATH's nvcc by its own path: torch runs
# $CUDA_HOME/bin/nvcc, and with -lineinfo (the example's) the objects hold the include paths
# nvcc derives from that spelling, so the PYTORCH_NVCC seat must run the same one
mkdir "$T/alias" && ln -s "$(cuda_root)" "$T/alias/cuda"
export CUDA_HOME="$T/alias/cuda"
unset CUDA_PATH
torch_setup
torch_baseline
grep -q -- '-MD -MF $out.d' build/temp.*/build.ninja || fail "torch's ninja rule is not -MD -MF"
ok "torch's ninja rule passes -MD -MF"
torch_pipeline ninja-n1 1 $ALL_TUS ""
torch_pipeline ninja-n3 3 $ALL_TUS ""
grep -qx "nvcc = $(cd "$SHARDCC_BIN" && pwd -P)/shardcc-nvcc-torch" build/temp.*/build.ninja ||
    fail "build.ninja's nvcc is not the torch seat: $(grep '^nvcc = ' build/temp.*/build.ninja)"
ok "build.ninja runs PYTORCH_NVCC, the torch seat"
# torch releases that wrote the long forms: a PYTORCH_NVCC that respells -MD -MF the old way
cat >"$T/longform-nvcc" <<SH
#!/bin/bash
args=()
while [ \$# -gt 0 ]; do
    case "\$1" in
    -MD) args+=(--generate-dependencies-with-compile) ;;
    -MF) args+=(--dependency-output "\$2"); shift ;;
    *) args+=("\$1") ;;
    esac
    shift
done
printf '%s\\n' "\${args[*]}" >>"$T/longform.args"
exec "$SHARDCC_BIN/shardcc-nvcc-torch" "\${args[@]}"
SH
chmod +x "$T/longform-nvcc"
cat >"$T/build-longform.sh" <<SH
#!/bin/sh
export PYTORCH_NVCC="$T/longform-nvcc"
$WHEEL
SH
WHEEL="sh $T/build-longform.sh" torch_pipeline longform 2 $ALL_TUS ""
expect_eq "long forms: nvcc calls that passed --generate-dependencies-with-compile --dependency-output" \
    "$(grep -c -- '--generate-dependencies-with-compile .*--dependency-output' "$T/longform.args")" "$((CUDA_TUS * 3))"
summary
