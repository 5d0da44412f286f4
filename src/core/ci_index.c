/* ci_index: `--shard auto`, the shard index and count from the CI engine's variables. */
#include "ci_index.h"
#include "job.h"
#include "exit_status.h"

#include <stdlib.h>
#include <string.h>

static const struct engine {
    const char *name, *index, *total;
    int base; /* 0 or 1: the first shard's index */
} engines[] = {
    {"explicit (the workflow's matrix values)", "SHARDCC_SHARD_INDEX", "SHARDCC_SHARD_COUNT", 1},
    {"GitLab CI parallel:", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1},
    {"Buildkite parallelism", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0},
    {"CircleCI parallelism", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0},
    {"a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", NULL, 0},
};

/* A decimal number 0..100000, digits only; -1 when it is anything else. */
static long number(const char *s)
{
    if (!s || !*s || strlen(s) > 6)
        return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    long v = strtol(s, NULL, 10);
    return v <= 100000 ? v : -1;
}

int ci_shard_auto(int count_opt, int *shard, int *count, struct strbuf *err)
{
    const struct engine *found = NULL;
    sb_reset(err);
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        const char *v = getenv(engines[i].index);
        if (!v || !*v)
            continue;
        if (found) {
            sb_addf(err,
                    "--shard auto is ambiguous: both %s (%s) and %s (%s) are set; pass "
                    "--shard I/N",
                    found->index, found->name, engines[i].index, engines[i].name);
            return EXIT_USAGE;
        }
        found = &engines[i];
    }
    if (!found) {
        if (in_github_actions())
            sb_adds(err, "--shard auto: GitHub Actions has no shard index of its own; set "
                         "SHARDCC_SHARD_INDEX and SHARDCC_SHARD_COUNT from the matrix (1-based), "
                         "or pass --shard ${{ matrix.shard }}/${{ matrix.count }}");
        else
            sb_adds(err, "--shard auto: no CI engine's shard index is set (looked at "
                         "SHARDCC_SHARD_INDEX, CI_NODE_INDEX, BUILDKITE_PARALLEL_JOB, "
                         "CIRCLE_NODE_INDEX, JOB_COMPLETION_INDEX); pass --shard I/N");
        return EXIT_USAGE;
    }
    const char *is = getenv(found->index);
    const char *ts = found->total ? getenv(found->total) : NULL;
    long idx = number(is), total;
    if (idx < 0) {
        sb_addf(err, "--shard auto: %s=\"%s\" is not a number", found->index, is);
        return EXIT_USAGE;
    }
    if (found->total) {
        total = number(ts);
        if (!ts || !*ts) {
            sb_addf(err, "--shard auto: %s is set but %s is not", found->index, found->total);
            return EXIT_USAGE;
        }
        if (total < 1) {
            sb_addf(err, "--shard auto: %s=\"%s\" is not a positive number", found->total, ts);
            return EXIT_USAGE;
        }
        if (count_opt && count_opt != total) {
            sb_addf(err, "--shard auto: --count %d disagrees with %s=%ld", count_opt, found->total,
                    total);
            return EXIT_USAGE;
        }
    } else {
        if (!count_opt) {
            sb_addf(err, "--shard auto: %s (%s) carries no count; pass --count N", found->index,
                    found->name);
            return EXIT_USAGE;
        }
        total = count_opt;
    }
    long first = found->base, last = total - 1 + found->base;
    if (idx < first || idx > last) {
        sb_addf(err, "--shard auto: %s=%ld is outside %ld..%ld (%s counts from %d)", found->index,
                idx, first, last, found->name, found->base);
        return EXIT_USAGE;
    }
    *shard = (int)(idx - found->base + 1);
    *count = (int)total;
    sb_addf(err, "shard %d/%d from %s=%s (%s)", *shard, *count, found->index, is, found->name);
    return EXIT_OK;
}
