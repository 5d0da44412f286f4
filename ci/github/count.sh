#!/usr/bin/env bash
# The action's link mode: the cell's shard count, from one place. The count input (the shard
# matrix's, e.g. a shard job's output strategy.job-total), else SHARDCC_SHARD_COUNT (the
# farm workflow's matrix entry); neither is an error, never an unsharded build by omission:
# 0 builds unsharded, and only when given.
set -euo pipefail
count=${SHARDCC_IN_COUNT:-}
from="the count input"
if [ -z "$count" ]; then
    count=${SHARDCC_SHARD_COUNT:-}
    from=SHARDCC_SHARD_COUNT
fi
if [ -z "$count" ]; then
    echo "::error title=shardcc link::the link step has no shard count: give the count input the shard matrix's count (a shard job's output from strategy.job-total, or the farm plan's matrix entry), or count: 0 to build unsharded on purpose"
    exit 2
fi
case "$count" in
*[!0-9]* | 0?*)
    echo "::error title=shardcc link::$from is a number of shards (0 for an unsharded build), not \"${count//[^0-9A-Za-z._-]/?}\""
    exit 2
    ;;
esac
echo "count=$count" >>"${GITHUB_OUTPUT:-/dev/null}"
echo "shardcc: $count shards ($from)"
