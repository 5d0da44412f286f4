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
 * the build the owner's copy is put in the merged cache (trust_pinned_owners); only when
 * the owner's manifest came from a remote storage (which keeps one copy, the last
 * writer's) may it be any shard's copy whose manifest records the same TU, key and bytes. */
#ifndef SHARDCC_TRUST_H
#define SHARDCC_TRUST_H

#include "jrnl.h"

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
    const char *cache; /* the merged cache directory: ccache's entries and the seat's store */
};

struct trust_out {
    size_t checked;    /* TUs whose result or items were checked */
    size_t items;      /* split items among them */
    size_t unverified; /* hits not checked: an entry not in the local cache to hash (read
                        * from a remote), or no result key in ccache's log */
    size_t refused;    /* TUs that failed the check (each named by report_error) */
};

/* Before the build: every pinned TU's result in the merged cache made the copy of its owner
 * (from the owner's artifact) where another shard's was kept. *replaced counts them.
 * EXIT_OK, or EXIT_IO when an artifact cannot be read. */
int trust_pinned_owners(const struct trust_in *in, size_t *replaced);

/* Checks the link job's journal j against the manifests. Returns EXIT_OK, or EXIT_GUARD
 * when any TU failed (each named, with its owner and what differed). */
int trust_check(const struct trust_in *in, const struct jrnl *j, struct trust_out *out);

#endif
