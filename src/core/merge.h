/* merge: unions shard artifacts into one ccache directory after checking that they are
 * exactly shards 1..N of one cell (guard 2) and that colliding results are identical
 * (guard 5). The union is built beside the target and renamed into place at the end, so a
 * failed merge never leaves a cache that looks whole. Used by `merge` and `link`. */
#ifndef SHARDCC_MERGE_H
#define SHARDCC_MERGE_H

/* What to do when jobs ran at different paths (merge and the link job say the same) */
#define MERGE_ROOT_REMEDY                                                                          \
    "run every job at one path (GitHub Actions' $GITHUB_WORKSPACE is the same in every job; "      \
    "a Makefile's build with -ccbin $(CXX) also holds the path shardcc is installed at), or "      \
    "pass --relocatable to every job"

#include <jansson.h>
#include <stddef.h>

#include "remote.h"

struct merge_opts {
    const char *cache; /* target: must not exist, or be an empty directory */
    char **inputs;     /* artifact files, or directories holding *.tar.zst */
    size_t ninputs;
    int expect;        /* N the caller expects, 0 for "as the manifests say" */
    int allow_partial; /* missing shards: warn instead of failing */
    int allow_nondeterministic;
    const char *cmd; /* for messages */
    /* the remote (shardcc link --remote): a shard whose manifest it holds under run and
     * cell comes from there (ccache reads its entries on demand; the seat's store entries are
     * fetched here), the artifact given for it only when the remote lost entries */
    struct remote *remote;
    const char *run, *cell_name;
};

struct merge_result {
    int count, present;
    char cell[256];
    char fingerprint[128];
    char *root;       /* the shards' root, NULL for --relocatable shards; free() it */
    char *plan;       /* the shards' plan digest, NULL for none; free() it */
    int reproducible; /* the shards ran with --reproducible */
    size_t added, same, kept, differing;
    size_t pinned_copies; /* results of pinned TUs that differ between shards (kept: shard 1's) */
    int remote_shards;    /* shards taken from the remote */
    size_t remote_entries, remote_missing; /* their entries, and those the remote lacks */
    size_t remote_fetched;                 /* the seat's store entries fetched from it */
    json_t *cmake; /* the CMake configure state all shards recorded alike, or NULL (cmstate.h);
                    * json_decref() it */
};

/* The artifact files the inputs name (a directory: its *.tar.zst files, sorted), each
 * allocated, in an allocated array. Returns an exit status; messages are printed. */
int merge_expand_inputs(const struct merge_opts *o, char ***out, size_t *n);

/* Returns an exit status; messages are printed. Whatever it returns, r is the caller's to
 * release (merge_result_release). */
int merge_run(const struct merge_opts *o, struct merge_result *r);
/* Frees what r holds (its root, plan and CMake state); r may be all zeros. */
void merge_result_release(struct merge_result *r);

/* Appends to *m (*n of them) the manifests o->remote holds of this run's shards that *m
 * lacks (by their "shard"), for shardcc explain's comparisons. Best effort: a manifest that
 * cannot be read or parsed is left out. */
void merge_remote_manifests(const struct merge_opts *o, json_t ***m, size_t *n);

/* The shards' manifests a command reads: the artifacts' the inputs name (files[i] holds
 * m[i] for i < nfiles), then, with o->remote, the remote's of the shards no artifact gave
 * (merge_remote_manifests). */
struct shard_manifests {
    char **files;
    size_t nfiles;
    json_t **m;
    size_t n;
};

/* Returns an exit status (messages printed); *sm is the caller's to release either way. */
int shard_manifests_load(const struct merge_opts *o, struct shard_manifests *sm);
void shard_manifests_release(struct shard_manifests *sm);

#endif
