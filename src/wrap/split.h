/* split: one TU's device work spread across shards (docs/design.md, "Split TUs and device
 * items"). libc only (seat code).
 *
 * A TU compiled through the pipeline (pipeline.h) is nvcc's plan of steps, and its work
 * items (dryrun.h): one per virtual architecture (device-cpp, cicc, every ptxas reading its
 * PTX) and the host side (preprocessor, cudafe++, fatbinary, the host compile). A split TU
 * has its device items owned by shards, as TUs are: each owning shard runs the host side's
 * front (preprocessor and cudafe++: the module id the items read) and its items, and keeps
 * what each item hands on (the images fatbinary reads, and the host stub one cicc writes) in
 * the seat's store; the link job runs the front again, takes every item from the store, and
 * runs fatbinary and the host compile: the object is the unsplit one's, byte for byte.
 *
 * The store is the one of device-code outputs (devcode.h): <cache>/<k0>/<k1>/<k2..63>D in the
 * job's ccache directory, so that items travel in the artifacts and merge checks them as it
 * checks every entry. An item's entry ("SCI1" blob) holds its exported files by name:
 *
 *   shardcc-item-1\n   then, a file:   NAME\nSIZE\nBYTES
 *
 * Its key (SHA-256) covers: a tag, the toolchain fingerprint (CCACHE_COMPILERCHECK) and the
 * host compilers ccache would hash (CCACHE_EXTRAFILES), every argument of the item's steps
 * (the temporaries' directory written "<tmp>/", and with --relocatable the root
 * "<root>/"; not the files --threads redirects their output to, which nvcc names anew in
 * every run), and the contents of the files its steps read that its device-cpp wrote (the
 * preprocessed source, per architecture; with --relocatable the root in its line markers
 * written "<root>/", as ccache hashes them under CCACHE_BASEDIR) or that the host side
 * wrote (the module id): the same in every job that compiles the same source with the same
 * arguments at the same path, or at any path with --relocatable (where the seat also gives
 * cudafe++ and cicc the source's path below the root, so that the module id and the
 * names of static entities they hash it into are the same at every root: pipeline.h).
 *
 * A split TU's marker (an entry too, keyed by the fingerprint, the TU's key and its
 * temporaries' name, which is a hash of its output) tells the link job's seat that shards
 * split it: "shardcc-split-1\n" and its items' names, one a line. */
#ifndef SHARDCC_SPLIT_H
#define SHARDCC_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "dryrun.h"
#include "strbuf.h"
#include "strvec.h"

#define SPLIT_ITEM_TAG "shardcc-item-1"
#define SPLIT_MARK_TAG "shardcc-split-1"
/* shardcc env --split-archs N: a TU with at least N real architectures is split when no plan
 * says otherwise (0: never); unset, SPLIT_ARCHS_DEFAULT */
#define SPLIT_ARCHS_ENV "SHARDCC_SPLIT_ARCHS"
#define SPLIT_ARCHS_DEFAULT 0
/* the separator of a plan key naming an item of a TU: "src/k.cu#compute_90" */
#define SPLIT_ITEM_SEP '#'

/* The length of an item's parts, "A.T.M" (split_item_key_parts) */
#define SPLIT_PARTS_LEN 26

/* What became of one device item of a split TU in this job. */
struct split_item {
    char name[32];    /* "compute_90" */
    char real[96];    /* its real architectures, "sm_90,sm_90a" ("" for PTX only) */
    int owner;        /* the shard that owns it (0 in the link job) */
    char outcome[12]; /* shard: "stored", "present" (in the store already), "other" (another
                         shard's); link: "hit" (from the store), "miss" (compiled here);
                         "failed" */
    uint64_t us;      /* its steps' wall time in this job (0 when not run) */
    char key[65];     /* its store key, "" when not computed */
    char parts[SPLIT_PARTS_LEN + 1]; /* what the key covers (split_item_key_parts), or "" */
};

/* An item's owner without a plan: round robin over the count shards from the TU key's own
 * (partition.h), in the order of the items' names (strcmp), so that a TU's items spread
 * evenly. rank: the item's place in that order (split_item_rank: device item i of split). */
int split_item_owner(const char *tu_key, size_t rank, int count);
size_t split_item_rank(const struct dr_split *split, size_t i);

/* The number of real architectures (ptxas targets) of a split's device items. */
size_t split_real_count(const struct dr_split *split);

/* Files of device item i that steps of other items read: what its entry must hold. */
void split_item_exports(const struct dr_plan *plan, const struct dr_split *split, size_t i,
                        struct strvec *out);

/* The key of device item i (above). tmpdir is the temporaries' directory with its trailing
 * slash ("" for the working directory). 0, or an errno with the file in err. */
int split_item_key(const struct dr_plan *plan, const struct dr_split *split, size_t i,
                   const char *tmpdir, char key[65], struct strbuf *err);
/* The same, and what the key covers in three digests of 8 hex digits, "A.T.M": the
 * toolchain and the steps' arguments (A), the preprocessed text (T), the files the host
 * side wrote, the module id (M): what explain compares when an item missed. */
int split_item_key_parts(const struct dr_plan *plan, const struct dr_split *split, size_t i,
                         const char *tmpdir, char key[65], char parts[SPLIT_PARTS_LEN + 1],
                         struct strbuf *err);

/* The entry of the files (read from their paths) into blob; 0 or an errno with the file in
 * err. */
int split_pack(const struct strvec *files, struct strbuf *blob, struct strbuf *err);
/* Writes every file of files from blob (by base name): 0, or -1 with why in err when the
 * blob is not an item entry or lacks one of them (nothing is then to be trusted), or an
 * errno when a file cannot be written. */
int split_unpack(const char *blob, size_t len, const struct strvec *files, struct strbuf *err);

/* The marker's key of a TU: its key and its temporaries' name (tmpxft_<h1>_<h2>). */
void split_marker_key(const char *tu_key, const char *temp_name, char key[65]);

/* A value of SHARDCC_SPLIT_ARCHS (NULL or empty: SPLIT_ARCHS_DEFAULT) into *archs; -1 when
 * it is not a number 0..1000. split_archs_from_env: the environment's. */
int split_archs_parse(const char *value, int *archs);
int split_archs_from_env(int *archs);

#endif
