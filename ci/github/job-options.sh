# shellcheck shell=bash
# Sourced by shard.sh and link.sh: the options both jobs take from the action's inputs,
# appended to the array opts (host-seat must be torch, true or false; reproducible auto, true or
# false; plan and pin may be empty).
case "${SHARDCC_IN_HOST_SEAT:-torch}" in
true) opts+=(--host-seat) ;;
false) opts+=(--no-host-seat) ;;
torch) ;;
*) echo "::error::shardcc: host-seat is torch, true or false, not \"$SHARDCC_IN_HOST_SEAT\""; exit 2 ;;
esac
case "${SHARDCC_IN_REPRODUCIBLE:-auto}" in
true) opts+=(--reproducible) ;;
false) opts+=(--no-reproducible) ;;
auto) ;;
*) echo "::error::shardcc: reproducible is auto, true or false, not \"$SHARDCC_IN_REPRODUCIBLE\""; exit 2 ;;
esac
[ -z "${SHARDCC_IN_PLAN:-}" ] || opts+=(--plan "$SHARDCC_IN_PLAN")
# remote: ccache's remote storage, a hand-off besides the artifacts (the link job names the
# cell, whose shards it takes from there)
[ -z "${SHARDCC_IN_REMOTE:-}" ] || opts+=(--remote "$SHARDCC_IN_REMOTE")
# seed-from: a warm start from an earlier run's cache
[ -z "${SHARDCC_IN_SEED_FROM:-}" ] || opts+=(--seed-from "$SHARDCC_IN_SEED_FROM")
# pin: globs of TU keys compiled in every shard, separated by ':' or newlines
if [ -n "${SHARDCC_IN_PIN:-}" ]; then
    while IFS= read -r glob; do
        [ -z "$glob" ] || opts+=(--pin "$glob")
    done < <(printf '%s\n' "$SHARDCC_IN_PIN" | tr ':' '\n')
fi
