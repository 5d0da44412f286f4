/* jrnl: the CLI's reader of the seats' journal (docs/journal.md) and the counts the guards
 * and reports take from it. The writer is src/wrap/journal.c. */
#ifndef SHARDCC_JRNL_H
#define SHARDCC_JRNL_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"

struct jrec {
    uint64_t wall_us, dur_us;
    long pid;
    char seat[8], phase[8], kind[8], action[16];
    int shard, count, status, owner;
    char *key, *output, *outcome, *result_key; /* NULL when "-" */
    int remote; /* a hit from ccache's remote storage (an SCP1 remote line) */
};

/* A cached TU's canonical arguments (an SCA1 line, after its record). */
struct jargv {
    char *key;
    struct strvec argv;
};

/* A split TU's device item (an SCP1 item line, after its record). */
struct jitem {
    size_t rec;                        /* the index of its TU's record */
    char *name, *real, *outcome, *key; /* key NULL when "-" */
    char *parts;                       /* what its key covers, "A.T.M" (split.h), or NULL */
    int owner;
    uint64_t us;
};

struct jrnl {
    struct jrec *r;
    size_t n;
    struct jargv *a;
    size_t na;
    size_t skipped;     /* lines that were not well-formed records */
    size_t fallbacks;   /* SCP1 lines: reproducible TUs that ran as nvcc whole */
    char *fallback_key; /* the first one's key and why, or NULL */
    char *fallback_why;
    struct jitem *items; /* split TUs' device items */
    size_t nitems;
};

/* Loads path (a missing file is an empty journal). 0 or an errno. */
int jrnl_load(const char *path, struct jrnl *j);
void jrnl_release(struct jrnl *j);
/* Warns (report_warning, as cmd) of the journal's SCP1 lines, if any: reproducible TUs
 * that ran as nvcc whole. */
void jrnl_warn_fallbacks(const struct jrnl *j, const char *cmd);
/* The arguments the journal recorded last for key, or NULL. */
const struct strvec *jrnl_argv(const struct jrnl *j, const char *key);

struct jstats {
    size_t tu;          /* TU compiles seen (cached or stubbed) */
    size_t cached;      /* TU compiles run through ccache (owned, or any in the link phase), and
                           split TUs a shard owned items of, or the link job assembled */
    size_t stubbed;     /* TU compiles written as stubs */
    size_t hits;        /* cached TU compiles that were cache hits, and split TUs the link job
                           assembled with every item from the store */
    size_t remote_hits; /* of the hits, those ccache took from its remote storage */
    size_t failed;      /* cached TU compiles that exited non-zero */
    size_t probes, others, infos;
    size_t pinned;               /* cached TU compiles that were pinned (every shard) */
    size_t device;               /* device-code-only outputs (-fatbin, -ptx...; every job) */
    size_t split;                /* split TUs (their device items owned by shards) */
    size_t links;                /* the linker seat's calls */
    size_t placeholders, hollow; /* executables written as placeholders; libraries and
                                    relocatable objects linked with stub inputs */
    size_t refused;              /* links the link job refused (stub inputs) */
    size_t host;                 /* host TUs the default host seat left to the real compiler */
    double cached_seconds;       /* wall time of the cached TU compiles */
};

void jrnl_stats(const struct jrnl *j, struct jstats *s);

/* Warns (as cmd) of CUDA sources outside the root that the build compiled: the nvcc seats'
 * probes of a source outside the root (its absolute path in the key field) whose object
 * the build keeps (a relative path, or one under the root: not a check's in a temporary
 * directory of its own). They are compiled in every job, as the
 * real nvcc compiles them (not reproducibly), so the link job's objects of them differ
 * from the unsharded build's. Returns how many distinct sources. */
size_t jrnl_warn_outside_root(const struct jrnl *j, const char *cmd, const char *root);

/* Where a build's wall time went, from its journal (each record spans its duration up to
 * its time): configure is the start up to the first TU compile (or link, without one: the
 * build system's own work and its compiler probes); compiles the time covered by at least one TU
 * compile (cache hits, in the link job); links the time covered by links (the linker seat's, and
 * nvcc's device links and other calls) and no compile; other the rest (the build system,
 * custom commands, packaging). In seconds; they add up to the wall time. */
struct jtime {
    double wall, configure, compiles, links, other;
};
void jrnl_time(const struct jrnl *j, uint64_t start_wall_us, uint64_t end_wall_us, struct jtime *t);
/* "configure C s, compiles H s, links L s, other O s" */
void jtime_format(const struct jtime *t, struct strbuf *out);
/* The "time" object of the link job's summary.json (shardcc link); 0 when it has one. */
struct json_t;
int jtime_of_summary(const struct json_t *sum, struct jtime *t);
/* Why sum (a JSON object) is not a summary.json that shardcc link writes (the member and
 * what it should be), or NULL. */
const char *summary_invalid(const struct json_t *sum);
int jrec_is_tu(const struct jrec *r);

#endif
