#!/usr/bin/env bash
# The reusable workflow's plan step: shardcc matrix over the packages and the cells file,
# then the shard and link lists of one dispatch as job outputs (GITHUB_OUTPUT).
set -euo pipefail
: "${SHARDCC_IN_PACKAGES:?}" "${SHARDCC_IN_CELLS:?}"
dispatch=${SHARDCC_IN_DISPATCH:-0}
plan=${RUNNER_TEMP:-/tmp}/shardcc-plan.json
# shellcheck disable=SC2086 # the packages input is a space-separated list of paths
shardcc matrix --packages $SHARDCC_IN_PACKAGES --cells "$SHARDCC_IN_CELLS" >"$plan"
python3 - "$plan" "$dispatch" <<'PY' >>"${GITHUB_OUTPUT:-/dev/null}"
import json, sys
plan, k = json.load(open(sys.argv[1])), int(sys.argv[2])
ds = plan["dispatches"]
if not 0 <= k < max(len(ds), 1):
    print("::error::shardcc: dispatch %d does not exist: the plan has %d (0..%d)" % (k, len(ds), len(ds) - 1),
          file=sys.stderr)
    sys.exit(2)
d = ds[k] if ds else {"shards": [], "links": []}
print("shards=" + json.dumps(d["shards"], separators=(",", ":")))
print("links=" + json.dumps(d["links"], separators=(",", ":")))
print("dispatches=%d" % len(ds))
PY
echo "shardcc: dispatch $dispatch of $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["dispatches"]))' "$plan")"
