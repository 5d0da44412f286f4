/* seed: a warm start (--seed-from): an earlier run's cache laid out where this job's ccache
 * and seat read it without copying it into the job's own cache (whose every entry the shard's
 * artifact carries): its ccache entries as ccache's file storage (a read-only remote storage:
 * only what a TU hits is copied into the job's cache), the seat's store entries as a second
 * store the seat falls back on (SHARDCC_SEED_STORE). */
#ifndef SHARDCC_SEED_H
#define SHARDCC_SEED_H

#include <stddef.h>

#include "strbuf.h"

/* Whether src is a remote storage URL (redis://, redis+unix:, http://) rather than a path. */
int seed_is_url(const char *src);
/* Lays out src (an artifact, a directory of artifacts, or a ccache directory such as the
 * link job's merged cache) under dir: dir/ccache (ccache's file storage layout, <2>/<rest>)
 * and dir/store (the seat's D entries, in the cache's own layout). dir is emptied first.
 * *entries counts the entries laid out. Returns an exit status; messages are printed
 * (prefixed with cmd). */
int seed_prepare(const char *src, const char *dir, size_t *entries, const char *cmd);

#endif
