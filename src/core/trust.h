/* trust: the link job's check that what its build took from the shards came from the shard
 * that owns it, as that shard recorded it (docs/security.md, "What the link job uses").
 *
 * A TU belongs to one shard, which the seats chose by the plan or the partition
 * (partition.h) and which records it as owned in its manifest, with its ccache result key
 * and every cache entry's SHA-256; a split TU's device items each to one shard, on whose
 * owner every shard's manifest agrees. Without a plan the owner is the partition's; with
 * one (which the link job may lack) it is the one shard that records the TU as owned (two
 * are refused). After the link job's build,
 * for every TU its journal records as a cache hit or as assembled from items:
 *   - the owner's manifest records the TU with that result key (a split: no shard compiled
 *     it whole, and each item's owner recorded it under the key the link job looked up);
 *   - the bytes in the merged cache under that key are the ones the owner's manifest gives
 *     its SHA-256 for.
 * Another shard's marker, items, results or claims ("pinned") never stand in for the
 * owner's. A pinned TU or a device-code output (every shard made it, the owner's manifest
 * says so) has copies that may differ (a pinned TU's in the time ccache wrote them): before
 * the build the owner's copy is put in the merged cache (trust_pinned_owners): from the
 * owner's artifact, or where its manifest came from a remote storage (which keeps one copy
 * under the entry's name, the last writer's) from the copy the owner put there under a
 * name of its own (remote_copy_name). */
#ifndef SHARDCC_TRUST_H
#define SHARDCC_TRUST_H

#include "jrnl.h"
#include "remote.h"

#include <jansson.h>
#include <stddef.h>

struct trust_in {
    const char *cmd; /* for messages */
    json_t **m;      /* the shards' manifests: the artifacts' first, then the remote's */
    size_t nm;
    char **files; /* the artifacts of m[0..nart) */
    size_t nart;
    int count;        /* the shards' N */
    int planned;      /* the shards were made with a plan (their manifests' "plan") */
    const char *plan; /* the seat's plan text (SHARDCC_PLAN), or NULL */
    size_t plan_len;
    const char *cache;      /* the merged cache directory: ccache's entries and the seat's store */
    struct remote *remote;  /* the remote the manifests after the artifacts' came from */
    const char *run, *cell; /* the run and cell they were read under */
};

struct trust_out {
    size_t checked;    /* TUs whose result or items were checked */
    size_t items;      /* split items among them */
    size_t unverified; /* hits not checked: an entry not in the local cache to hash (read
                        * from a remote), or no result key in ccache's log */
    size_t refused;    /* TUs that failed the check (each named by report_error) */
};

/* Before the build: every pinned TU's result in the merged cache made the copy of its owner
 * (from the owner's artifact, or its own copy in the remote) where another shard's was
 * kept. *replaced counts them. EXIT_OK, or EXIT_IO when an artifact cannot be read or the
 * owner's copy is not in the remote with the SHA-256 its manifest records. */
int trust_pinned_owners(const struct trust_in *in, size_t *replaced);

/* The cache entries (paths under the cache, pointing into m) of what every shard makes that
 * the manifest m records (pinned TUs' results, device-code outputs), into *rels (the
 * caller frees the array): a shard puts its own copy of each in a remote storage under
 * remote_copy_name. */
size_t trust_own_copies(json_t *m, const char ***rels);

/* Checks the link job's journal j against the manifests. Returns EXIT_OK, or EXIT_GUARD
 * when any TU failed (each named, with its owner and what differed). */
int trust_check(const struct trust_in *in, const struct jrnl *j, struct trust_out *out);

#endif
