/* remote: ccache's remote storage as the shards' hand-off (shardcc --remote URL): the URL in
 * ccache's own syntax, and a small client for the two servers ccache 4.7 speaks to, Redis
 * (RESP over TCP or a Unix socket) and HTTP (GET/PUT/HEAD, as ccache's http backend). The
 * names of ccache's entries are ccache's own, so that ccache finds what the shards put
 * there; shardcc's own objects (manifests, the seat's store) live beside them under
 * "shardcc/". Plain text only: ccache 4.7 speaks neither TLS to Redis nor HTTPS. */
#ifndef SHARDCC_REMOTE_H
#define SHARDCC_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum remote_kind { REMOTE_HTTP, REMOTE_REDIS };

struct remote {
    enum remote_kind kind;
    char *ccache;  /* the URL for ccache (CCACHE_REMOTE_STORAGE): as given, ${VAR} unexpanded */
    char *display; /* as given, a literal password masked: what messages and manifests show */
    char *host, *port, *unix_path;
    char *path;            /* HTTP: the base path, no trailing '/' ("" for the root) */
    char *user, *password; /* expanded; NULL when absent */
    int db;                /* Redis database number */
    int read_only;         /* the read-only attribute: nothing is written */
    int flat;              /* HTTP layout=flat (default subdirs) */
    int connect_ms, op_ms; /* connect-timeout, operation-timeout (ccache's defaults 100, 10000) */
    int literal_password;  /* the password is written in the URL, not a ${VAR} reference */
    int loopback;          /* the server is this machine (localhost, 127.x, ::1, a socket) */
    int fd;                /* the open connection, or -1 */
    struct strbuf in;      /* bytes read and not yet used */
    size_t inpos;
    uint64_t bytes_in, bytes_out; /* payload moved, for the reports */
    uint64_t max_object;          /* the most bytes one answer may carry now (0: 2 GiB) */
    int over_max;                 /* the last answer was over it */
};

/* Parses spec (one URL of ccache's remote_storage syntax, with its |attributes), expanding
 * $VAR and ${VAR} as ccache does. 0, or -1 with the reason in err (which never holds the
 * password); r then holds nothing to release. Connects nothing. */
int remote_parse(const char *spec, struct remote *r, struct strbuf *err);
void remote_release(struct remote *r);

/* A name in the remote: a ccache entry's digest ("f534obs558...", what ccache names it by)
 * or shardcc's own object ("shardcc/d/<sha256>", "shardcc/run/..."). */
/* The name of the cache entry rel ("f/5/34obs...R", "0/b/a1r9...M", "a/b/<62 hex>D"), or
 * -1 when rel is no entry name. */
int remote_entry_name(const char *rel, struct strbuf *out);
/* The name of a shard's manifest in the remote: shardcc/run/RUN/CELL/shard-I-of-N.json. */
void remote_manifest_name(const char *run, const char *cell, int i, int n, struct strbuf *out);
/* The name of shard I of N's own copy of the cache entry rel, for what every shard makes
 * (a pinned TU's result, a device-code output): shardcc/run/RUN/CELL/shard-I-of-N/ and rel
 * without its '/'. -1 when rel is no entry name. The remote keeps one copy under the
 * entry's own name (the last writer's); the link job takes the owner's from here. */
int remote_copy_name(const char *run, const char *cell, int i, int n, const char *rel,
                     struct strbuf *out);
/* A run id fit for a name: letters, digits, '.', '_', '+', '-', 1 to 128 of them. */
int remote_run_id_ok(const char *run);

/* 1 and the bytes in out when name is there, 0 when it is not, -1 with err on failure. */
int remote_get(struct remote *r, const char *name, struct strbuf *out, struct strbuf *err);
/* remote_get, refusing an answer over max bytes before it is read whole: -2 then (the
 * connection is dropped), -1 for the other failures. */
int remote_get_max(struct remote *r, const char *name, uint64_t max, struct strbuf *out,
                   struct strbuf *err);
/* 1 and its size when name is there, 0 when not, -1 with err. */
int remote_stat(struct remote *r, const char *name, uint64_t *size, struct strbuf *err);
/* 0 stored, -1 with err. */
int remote_put(struct remote *r, const char *name, const void *data, size_t len,
               struct strbuf *err);

#endif
