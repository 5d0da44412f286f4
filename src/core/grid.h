/* grid: the build grid (a cells file), the packages that opt into sharding (package.yml)
 * and the plan that turns them into CI dispatches of shard and link jobs (shardcc matrix).
 * Every configuration error names FILE:LINE:COLUMN and the key (exit status 2). */
#ifndef SHARDCC_GRID_H
#define SHARDCC_GRID_H

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"
#include "ydoc.h"

/* The grid's dimensions after the platform: python, cuda, torch. */
enum { DIM_PYTHON, DIM_CUDA, DIM_TORCH, NDIMS };

struct strlist {
    const char **v; /* strings owned by the ydoc they came from */
    size_t n;
    const struct ynode *at; /* where the list was written, NULL when absent */
};

struct platform {
    const char *name, *arch;
};

/* One exclusion: NULL fields match anything. */
struct exclusion {
    const char *platform, *arch, *dim[NDIMS];
};

/* One entry of `combinations:`: the product of its lists, on some platforms. */
struct combo {
    struct strlist dim[NDIMS]; /* the values of each dimension the grid has */
    struct strlist platforms;  /* .at == NULL: every platform */
};

struct cells {
    struct ydoc doc;
    struct platform *plat;
    size_t nplat;
    /* n == 0: the grid has no such dimension. With combinations, the union of their
     * values in the order first written. */
    struct strlist dim[NDIMS];
    struct combo *combo; /* `combinations:` (a sparse grid), or NULL (the product) */
    size_t ncombo;
    struct exclusion *ex;
    size_t nex;
};

struct package {
    struct ydoc doc;
    const char *name;
    long sharding;                     /* 0: off */
    struct strlist sharding_platforms; /* .at == NULL: every platform shards */
    double min_hit_rate;
    int host_seat;    /* `host_seat:` true 1, torch 0 (the default), false -1 */
    int reproducible; /* `reproducible:` true 1, false -1, auto 0 (the default) */
    const char *plan;
    char *pin;          /* the `pin:` globs joined by ':' (shardcc shard --pin), or NULL */
    const char *remote; /* `remote:` ccache's remote storage URL (shardcc --remote), or NULL */
    struct strlist only_platforms, only[NDIMS]; /* narrowing; .at == NULL: all */
    unsigned axes;               /* bit k: the package varies over dimension k (`axes:`) */
    const struct ynode *axes_at; /* where `axes` was written, or NULL (every axis) */
};

extern const char *const dim_names[NDIMS]; /* "python", "cuda", "torch" */

/* Loads and checks a cells file. Returns 0, 2 (configuration) or 4 (I/O), err set. */
int cells_load(const char *path, struct cells *c, struct strbuf *err);
void cells_release(struct cells *c);

/* Loads a package file; default_name (the directory's name) is used when it has no
 * `name`. A farm's own keys are ignored unless strict, except a near miss of one of
 * shardcc's distinctive keys (an error with a did-you-mean); with a `shardcc:` mapping
 * only that and the top-level `sharding` are read. Returns 0, 2 or 4, err set. */
int package_load(const char *path, const char *default_name, int strict, struct package *p,
                 struct strbuf *err);
/* The package's narrowing must name values of the grid. Returns 0 or 2, err set. */
int package_check_against(const struct package *p, const struct cells *c, struct strbuf *err);
void package_release(struct package *p);

/* The most bytes of one dispatch's list as compact JSON: a CI job output carries it, and
 * GitHub's hold at most 1 MB (read as 10^6 bytes, below 2^20, for what a consumer's own
 * serialisation may add). */
#define MATRIX_MAX_OUTPUT_BYTES 1000000
/* How a dispatch's entries are written (and measured against that limit): compact, in
 * order, and numbers as a person writes them (0.9, not 0.90000000000000002) */
#define MATRIX_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* {"dispatches":[{"shards":[...],"links":[...]}, ...]}: every list at most max_jobs long
 * and MATRIX_MAX_OUTPUT_BYTES of compact JSON, a cell's shards and link in one dispatch. Returns 0
 * or 2 (a cell that cannot fit, or two cells with one name), err set. */
int matrix_plan(struct package *const *pkgs, size_t npkgs, const struct cells *c, long max_jobs,
                json_t **out, struct strbuf *err);

#endif
