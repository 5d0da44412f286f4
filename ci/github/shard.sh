#!/usr/bin/env bash
# The action's shard step: runs the build as one shard (shardcc shard), writes the artifact
# into $RUNNER_TEMP/shardcc-out/ and names it for the upload step (GITHUB_OUTPUT).
set -euo pipefail
: "${SHARDCC_IN_BUILD:?the build input is required in shard mode}"
out=${RUNNER_TEMP:-/tmp}/shardcc-out
rm -rf "$out" && mkdir -p "$out"
opts=(--cell "$SHARDCC_IN_CELL" --shard "$SHARDCC_IN_SHARD" --artifact "$out/")
[ -z "${SHARDCC_IN_CUDA:-}" ] || opts+=(--cuda "$SHARDCC_IN_CUDA")
# shellcheck source=ci/github/job-options.sh
. "$(dirname "$0")/job-options.sh"
echo "::group::shardcc shard ${SHARDCC_IN_CELL} ${SHARDCC_IN_SHARD}"
rc=0
log=${RUNNER_TEMP:-/tmp}/shardcc-shard.log
shardcc shard "${opts[@]}" -- sh -c "$SHARDCC_IN_BUILD" 2> >(tee "$log" >&2) || rc=$?
echo "::endgroup::"
if [ "$rc" != 0 ]; then
    # shardcc shard annotated the cause itself (::error title=shardcc shard::...)
    echo "shardcc shard ${SHARDCC_IN_CELL} ${SHARDCC_IN_SHARD} failed with exit status $rc (1 build, 2 usage, 3 guard, 4 I/O)"
    exit "$rc"
fi
sed -n 's/^shardcc shard: shard [0-9]*\/[0-9]*: \([0-9]*\) TUs owned.*/tus=\1/p' "$log" >>"${GITHUB_OUTPUT:-/dev/null}"
{
    echo "### shardcc: cell \`${SHARDCC_IN_CELL}\`, shard ${SHARDCC_IN_SHARD}"
    echo
    echo '```'
    grep '^shardcc shard: shard [0-9]*/[0-9]*: ' "$log" || true
    echo '```'
} >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
art=$(find "$out" -maxdepth 1 -name 'shard-*.tar.zst' | head -1)
[ -n "$art" ] || { echo "::error::shardcc: no artifact in $out"; exit 4; }
name=$(basename "$art" .tar.zst)
{
    echo "artifact-name=$name"
    echo "artifact-path=$art"
} >>"${GITHUB_OUTPUT:-/dev/null}"
echo "shardcc: $name ($(du -h "$art" | cut -f1))"
