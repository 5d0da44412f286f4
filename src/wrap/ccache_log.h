/* ccache_log: what one ccache call did, read from the log file the wrapper asks ccache to
 * write for that call (CCACHE_LOGFILE): the outcome (hit, miss, or the counter that made
 * the call uncacheable) and the result key, which names the cache entry it used. */
#ifndef SHARDCC_CCACHE_LOG_H
#define SHARDCC_CCACHE_LOG_H

#include <stddef.h>

struct ccache_outcome {
    char outcome[48]; /* "hit", "miss", an uncacheable counter ("preprocessor_error"), "unknown" */
    char result_key[72]; /* ccache's result key, or "" */
};

void ccache_log_parse(const char *text, size_t len, struct ccache_outcome *out);

#endif
