/* artifact: a shard's product on disk: `shard-<cell>-<i>-of-<N>.tar.zst` holding
 * manifest.json (first) and cache/<a>/<b>/<key>{R,M} (ccache's result and direct-mode
 * manifest entries, nothing else). Written atomically; read as untrusted input: every
 * member name, type and size is checked before a byte reaches the disk. */
#ifndef SHARDCC_ARTIFACT_H
#define SHARDCC_ARTIFACT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define ARTIFACT_FORMAT 2

struct cache_entry {
    char *rel; /* "8/9/d36m...R" or "b/a/11b7...fd4", relative to the cache directory */
    uint64_t size;
    char kind; /* CACHE_RESULT, CACHE_MANIFEST or CACHE_DEVICE */
};

#define CACHE_RESULT 'R'   /* ccache's result: the objects of one compile */
#define CACHE_MANIFEST 'M' /* ccache's direct-mode manifest */
#define CACHE_DEVICE 'D'   /* the seat's device-code store (devcode.h) */

/* The result, manifest and device-code entries under a ccache directory, sorted by path.
 * 0, or EXIT_IO with a message. */
int cache_list(const char *dir, struct cache_entry **out, size_t *n, struct strbuf *err);
void cache_list_release(struct cache_entry *e, size_t n);
/* True when rel is a well-formed cache entry name: one to eight one-character directories,
 * then either a key and its kind letter ("x/y/<key>R", M, D: ccache up to 4.9 and the
 * seat's store), or a key of 20 to 80 lowercase hex digits alone (newer ccache, which
 * keeps the kind in the entry's header). */
int cache_entry_name_ok(const char *rel);
/* The kind of the entry rel: its letter, or for a name without one the type in the header
 * of the file at path (ccache's: the bytes cc ac, a version, 0 result or 1 manifest);
 * 0 when it has no letter and path is NULL, unreadable or not a ccache entry. */
char cache_entry_kind(const char *rel, const char *path);
/* The key the entry rel stores: rel without its '/'s and its kind letter (the result key
 * ccache logs, and the name its remote storage uses). */
void cache_entry_key(const char *rel, struct strbuf *out);
/* The SHA-256 (64 hex digits) of the cache directory's entry rel into hex: 0, or an errno
 * (ENOENT: not there). */
int cache_entry_sha(const char *cache, const char *rel, char hex[65]);

/* Writes manifest and the entries of cache_dir to path (temporary file + rename).
 * 0, or EXIT_IO with a message. */
int artifact_write(const char *path, const char *manifest, const char *cache_dir,
                   const struct cache_entry *e, size_t n, struct strbuf *err);
/* Reads the manifest (the first member). 0, or EXIT_IO with a message. */
int artifact_read_manifest(const char *path, json_t **manifest, struct strbuf *err);
/* Reads the manifests of n artifact files into an allocated array (json_decref each, free
 * the array). Returns an exit status; messages are printed, prefixed with cmd. */
int artifact_read_manifests(char **files, size_t n, json_t ***out, const char *cmd);
/* The artifact's member cache/REL written to dest (replacing it, through a temporary file
 * beside it). EXIT_OK, or EXIT_IO with the reason in err. */
int artifact_extract_member(const char *path, const char *rel, const char *dest,
                            struct strbuf *err);

struct extract_stats {
    size_t added;      /* entries written */
    size_t same;       /* result entries already present with the same bytes */
    size_t kept;       /* manifest entries already present (first one kept) */
    json_t *differing; /* result entries already present with other bytes (rel paths) */
    json_t *members;   /* rel -> size of every cache member read */
    json_t *digests;   /* rel -> SHA-256 (64 hex digits) of every cache member read */
};

/* Extracts the cache entries of path into dir (which must exist). 0, or EXIT_IO. */
int artifact_extract(const char *path, const char *dir, struct extract_stats *st,
                     struct strbuf *err);

#endif
