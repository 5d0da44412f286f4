/* ci_index: `shardcc shard --shard auto` takes the shard index and count from the CI
 * engine: SHARDCC_SHARD_INDEX/SHARDCC_SHARD_COUNT (1-based; what the GitHub workflow sets
 * from its matrix values), GitLab's CI_NODE_INDEX/CI_NODE_TOTAL (1-based), Buildkite's
 * BUILDKITE_PARALLEL_JOB/_COUNT (0-based), CircleCI's CIRCLE_NODE_INDEX/_TOTAL (0-based),
 * a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (0-based, the count from --count). */
#ifndef SHARDCC_CI_INDEX_H
#define SHARDCC_CI_INDEX_H

#include "strbuf.h"

/* count_opt: --count N, or 0. On success returns 0 with the 1-based shard and the count,
 * and err holds a line saying where they came from; else 2 with the reason in err (none
 * set, two engines set, a count missing or disagreeing, an index out of range). */
int ci_shard_auto(int count_opt, int *shard, int *count, struct strbuf *err);

#endif
