#!/usr/bin/env bash
# The action's link step: merges the cell's shard artifacts and replays the build from them
# (shardcc link), then appends shardcc report's markdown to the step summary; with count 0
# it runs the build unsharded. Guard failures are ::error:: annotations (shardcc writes
# them under GITHUB_ACTIONS=true).
set -euo pipefail
: "${SHARDCC_IN_BUILD:?the build input is required in link mode}"
arts=${RUNNER_TEMP:-/tmp}/shardcc-artifacts
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
: "${SHARDCC_IN_COUNT:?the count step (count.sh) sets it}"
if [ "$SHARDCC_IN_COUNT" = 0 ]; then
    echo "::group::unsharded build of ${SHARDCC_IN_CELL}"
    rc=0
    sh -c "$SHARDCC_IN_BUILD" || rc=$?
    echo "::endgroup::"
    echo "### shardcc: cell \`${SHARDCC_IN_CELL}\` built unsharded (exit status $rc)" >>"$summary"
    [ "$rc" = 0 ] || echo "::error title=shardcc link::the unsharded build of ${SHARDCC_IN_CELL} failed (exit status $rc)"
    exit "$rc"
fi
opts=(--artifacts "$arts" --expect-shards "$SHARDCC_IN_COUNT" --min-hit-rate "$SHARDCC_IN_MIN_HIT_RATE")
[ -z "${SHARDCC_IN_REMOTE:-}" ] || opts+=(--cell "$SHARDCC_IN_CELL")
[ -z "${SHARDCC_IN_CUDA:-}" ] || opts+=(--cuda "$SHARDCC_IN_CUDA")
# shellcheck source=ci/github/job-options.sh
. "$(dirname "$0")/job-options.sh"
mkdir -p "$arts"
echo "::group::shardcc link ${SHARDCC_IN_CELL} (${SHARDCC_IN_COUNT} shards)"
rc=0
shardcc link "${opts[@]}" -- sh -c "$SHARDCC_IN_BUILD" || rc=$?
echo "::endgroup::"
if ls "$arts"/*.tar.zst >/dev/null 2>&1; then
    shardcc report --artifacts "$arts" --format markdown >>"$summary" ||
        echo "::warning::shardcc report failed: the step summary lacks the report"
else
    echo "### shardcc: cell \`${SHARDCC_IN_CELL}\`: no shard artifact arrived" >>"$summary"
fi
# the step's outputs: the link build's hit rate and TU compiles, from this run's summary
sum=.shardcc/link/summary.json
if [ -f "$sum" ]; then
    {
        sed -n 's/^ *"hit_rate": *\([0-9.eE+-]*\).*/hit-rate=\1/p' "$sum"
        sed -n 's/^ *"tus": *\([0-9]*\).*/tus=\1/p' "$sum"
    } >>"${GITHUB_OUTPUT:-/dev/null}"
fi
# shardcc link annotated the cause itself (::error title=shardcc link::...)
[ "$rc" = 0 ] || echo "shardcc link ${SHARDCC_IN_CELL} failed with exit status $rc (1 build, 2 usage, 3 guard, 4 artifact/I/O)"
exit "$rc"
