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

struct cells {
    struct ydoc doc;
    struct platform *plat;
    size_t nplat;
    struct strlist dim[NDIMS]; /* n == 0: the grid has no such dimension */
    struct exclusion *ex;
    size_t nex;
};

struct package {
    struct ydoc doc;
    const char *name;
    long sharding;                     /* 0: off */
    struct strlist sharding_platforms; /* .at == NULL: every platform shards */
    double min_hit_rate;
    int host_seat;
    const char *plan;
    char *pin; /* the `pin:` globs joined by ':' (shardcc shard --pin), or NULL */
    struct strlist only_platforms, only[NDIMS]; /* narrowing; .at == NULL: all */
};

extern const char *const dim_names[NDIMS]; /* "python", "cuda", "torch" */

/* Loads and checks a cells file. Returns 0, 2 (configuration) or 4 (I/O), err set. */
int cells_load(const char *path, struct cells *c, struct strbuf *err);
void cells_release(struct cells *c);

/* Loads a package file; default_name (the directory's name) is used when it has no
 * `name`. Returns 0, 2 or 4, err set. */
int package_load(const char *path, const char *default_name, struct package *p, struct strbuf *err);
/* The package's narrowing must name values of the grid. Returns 0 or 2, err set. */
int package_check_against(const struct package *p, const struct cells *c, struct strbuf *err);
void package_release(struct package *p);

/* {"dispatches":[{"shards":[...],"links":[...]}, ...]}: every list at most max_jobs long,
 * a cell's shards and link in one dispatch. Returns 0 or 2 (a cell that cannot fit, or
 * two cells with one name), err set. */
int matrix_plan(struct package *const *pkgs, size_t npkgs, const struct cells *c, long max_jobs,
                json_t **out, struct strbuf *err);

#endif
