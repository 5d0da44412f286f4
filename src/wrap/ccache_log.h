/* ccache_log: what one ccache call did, read from the file the wrapper asks ccache to write
 * for that call: its log (CCACHE_LOGFILE; the outcome and the result key, which names the
 * cache entry it used) or its stats log (CCACHE_STATSLOG; the outcome only). The outcome is
 * hit, miss, or the counter that made the call uncacheable. */
#ifndef SHARDCC_CCACHE_LOG_H
#define SHARDCC_CCACHE_LOG_H

#include <stddef.h>

struct ccache_outcome {
    char outcome[48]; /* "hit", "miss", an uncacheable counter ("preprocessor_error"), "unknown" */
    char result_key[72]; /* ccache's result key, or "" */
    int remote;          /* a hit that came from ccache's remote storage (remote_storage_hit) */
};

void ccache_log_parse(const char *text, size_t len, struct ccache_outcome *out);

#endif
