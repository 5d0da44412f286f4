/* jobenv: the environment of one job (a shard I of N, or the link job): the seats, the
 * real tools, the journal and the ccache settings of docs/design.md ("The job's environment")
 * with the toolchain fingerprint. `shardcc env` prints it; `shard`, `link` and `local` apply
 * it in-process. */
#ifndef SHARDCC_JOBENV_H
#define SHARDCC_JOBENV_H

#include <jansson.h>

#include "args.h"
#include "job.h"
#include "remote.h"
#include "toolchain.h"

struct jobenv_opts {
    int shard, count;            /* 0, 0 for the link job */
    const char *root;            /* default "." */
    const char *cache, *journal; /* NULL: the job's defaults */
    int host_seat;           /* the host seats in CXX/CC: 1 for every host TU (--host-seat), 0 for
                                torch extensions' TUs only (the default), -1 off (--no-host-seat) */
    int cuda_home_seat;      /* a shadow CUDA_HOME whose bin/nvcc is the seat: 1 on
                                (--cuda-home-seat), -1 off (--no-cuda-home-seat), 0 where it is
                                safe (cuda_home_auto) */
    int relocatable;         /* CCACHE_BASEDIR=root: jobs may run at different paths */
    int reproducible;        /* SHARDCC_REPRODUCIBLE=1: the nvcc seats run nvcc's plan with their
                                own temporary names: 1 on (--reproducible), -1 off
                                (--no-reproducible), 0 where every nvcc of the job has
                                --objdir-as-tempdir, the fallback (the default) */
    const char *plan;        /* a plan file (shardcc plan), or NULL */
    const char *split_archs; /* --split-archs N (SHARDCC_SPLIT_ARCHS, split.h), or NULL */
    const char *cell;        /* the cell: picks its section of a plan per cell (NULL: default) */
    struct strbuf pins;      /* --pin globs joined by ':' (SHARDCC_PIN), empty for none */
    const char *real_nvcc, *real_cxx, *real_cc, *ccache;
    const char *cuda;   /* the cell's CUDA release (--cuda, else SHARDCC_CELL_CUDA), or NULL */
    int plain;          /* shardcc env --plain: SHARDCC_PHASE=plain (count must be 0) */
    int print_only;     /* shardcc env: create no cache or journal directory (ccache and the
                           seat make them when the build runs) */
    int cuda_checked;   /* jobenv_check_cuda has passed: jobenv_build need not run nvcc again */
    const char *remote; /* --remote URL (else SHARDCC_REMOTE): ccache's remote storage as the
                           hand-off (remote.h), or NULL */
    const char *run_id; /* --run-id ID: names this run's manifests in the remote */
    int remote_checked; /* jobenv_remote has run (and warned): jobenv_build stays quiet */
    const char *seed;   /* --seed-from ARTIFACT|DIR|URL: a warm start (seed.h), or NULL */
};

struct jobenv {
    json_t *set;   /* name -> value, in a stable order */
    json_t *unset; /* names to remove */
    char *root, *cache, *journal, *fingerprint;
    char *cuda_home;       /* the shadow CUDA_HOME, or NULL */
    char *cuda_real;       /* the real toolkit root it shadows, or NULL */
    char *plan_digest;     /* "plan1-..." when a plan was given, else NULL */
    char *ccache_version;  /* "4.7.5" (checked against SHARDCC_CCACHE_MIN) */
    char *ld_seat;         /* the directory of the linker seat's names (ld, ld.gold, ...) */
    int reproducible;      /* the nvcc seats run nvcc's plan (jobenv_opts.reproducible
                              resolved) */
    int split_archs;       /* SHARDCC_SPLIT_ARCHS: split TUs with this many real
                              architectures or more (0: none) */
    struct remote *remote; /* the remote storage (--remote), or NULL */
    char *run_id;          /* this run's id for the remote (jobenv_run_id), or NULL */
    char *seed_storage;    /* the seed as one of ccache's remote storages (read-only), or NULL */
    char *seed_store;      /* the seed's store entries for the seat (SHARDCC_SEED_STORE) */
    char *seed_display;    /* the seed as messages show it (a URL's literal password masked) */
    size_t seed_entries;   /* entries laid out from a seed artifact or directory */
    struct toolchain tc;
};

/* Consumes one of the options every job command shares (--root, --cache, --journal,
 * --host-seat, --cuda-home-seat, --relocatable, --plan, --pin, --split-archs, --real-nvcc,
 * --real-cxx,
 * --real-cc, --ccache, --cuda). 1 when consumed; a bad value sets a->error with a message. */
int jobenv_arg(struct args *a, struct jobenv_opts *o);
/* Resolves the project root root (NULL: ".") into out, canonical and absolute. EXIT_OK, or
 * EXIT_USAGE with a message prefixed with cmd (missing, or not a directory). */
int jobenv_root(const char *root, struct strbuf *out, const char *cmd);
/* Fills in the job's own defaults where o has none: a fresh (emptied) cache and a journal
 * in ROOT/.shardcc/STATE/. The strings live in the two buffers. Returns an exit status. */
int jobenv_state_defaults(struct jobenv_opts *o, const char *state, struct strbuf *cache,
                          struct strbuf *journal, const char *cmd);
/* The cell's CUDA check alone (for a command that does other work before jobenv_build,
 * so that a wrong toolkit is refused first). Returns an exit status. */
int jobenv_check_cuda(struct jobenv_opts *o, const char *cmd);
/* Resolves paths and tools, checks the toolkit against the cell's CUDA (--cuda, else a
 * non-empty SHARDCC_CELL_CUDA: EXIT_USAGE naming both when nvcc reports another release),
 * computes the fingerprint, creates the cache and journal
 * directories. Returns an exit status; messages are prefixed with cmd. */
int jobenv_build(const struct jobenv_opts *o, struct jobenv *env, const char *cmd);
/* The run id that names a run's manifests in the remote: --run-id, else SHARDCC_RUN_ID,
 * else the CI engine's id of the whole run (GitHub's GITHUB_RUN_ID without the attempt, so
 * that a re-run of failed shards finds the others; GitLab's CI_PIPELINE_ID; Buildkite's
 * BUILDKITE_BUILD_ID; CircleCI's CIRCLE_WORKFLOW_ID). NULL when there is none. Allocated. */
char *jobenv_run_id(const char *given);
/* --remote (else SHARDCC_REMOTE) parsed into *remote (NULL when none; free with
 * remote_release and free), with the warnings its credentials call for, and the run id
 * (jobenv_run_id) into *run_id. Returns an exit status (a bad URL or run id: EXIT_USAGE). */
int jobenv_remote(const struct jobenv_opts *o, struct remote **remote, char **run_id,
                  const char *cmd);
/* Sets and unsets the variables in this process (for the builds it starts). */
void jobenv_apply(const struct jobenv *env);
void jobenv_release(struct jobenv *env);

#endif
