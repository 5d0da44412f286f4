/* plan_costs: the compile times a plan is made from (docs/shardcc-plan.md, INPUTS): the
 * owned TUs and device items of shard artifacts' manifests, of journals, and cost tables;
 * the source files under a root (--sources); and the plan they give (plan_build), with
 * the TUs that cost more than a shard's share placed as their device items. shardcc plan
 * reads its inputs with it; shardcc local and report predict what a plan would do. */
#ifndef SHARDCC_PLAN_COSTS_H
#define SHARDCC_PLAN_COSTS_H

#include <jansson.h>
#include <stddef.h>

#include "plan.h"

struct measure {
    char *key;
    double *v; /* measurements, in input order */
    size_t n, alloc;
};

struct costs {
    struct measure *m;
    size_t n, alloc;
    json_t *index;   /* key -> position in m: linear in the keys, not quadratic */
    const char *cmd; /* for messages: "shardcc plan" */
};

/* With --per-cell: each cell's costs (cell id -> position in cc), beside the pooled ones. */
struct cell_costs {
    json_t *index;
    char **cell;
    struct costs *c;
    size_t n, alloc;
};

/* Adds a measurement of key (seconds < 0: the key is known, without a time). */
void plan_costs_add(struct costs *c, const char *key, double seconds);
/* The costs of cell in cc (made on first use). */
struct costs *plan_cell_costs(struct cell_costs *cc, const char *cell);
void plan_costs_release(struct costs *c);
/* An artifact's manifest: its owned TUs' and stored items' times (or, with sources, its
 * keys), into c and, with cc, its cell's costs. EXIT_OK, or a status with a message. */
int plan_costs_read_artifact(const char *path, struct costs *c, int sources, struct cell_costs *cc);
/* The same from a manifest already read (the caller's); path names it in messages. */
int plan_costs_read_manifest(json_t *m, const char *path, struct costs *c, int sources,
                             struct cell_costs *cc);
/* A journal (its compiled TUs and items) or a cost table. EXIT_OK or a status. */
int plan_costs_read_text(const char *path, struct costs *c, int sources);
/* One input of shardcc plan: a directory of artifacts, an artifact, a journal or a cost
 * table (cc: per cell, artifacts only). EXIT_OK, or a status with a message. */
int plan_costs_read_input(const char *in, struct costs *c, int sources, struct cell_costs *cc);
/* The source files under root/rel (.cu .cpp .cc .cxx .c, not in build directories), each
 * a key of cost 1. */
void plan_costs_walk_sources(const char *root, const char *rel, struct costs *c, int depth);
/* The plan of c over n shards (JSON text, allocated; plan_build), median of each key's
 * times (latest: the last one), with its makespans in ms. */
char *plan_costs_plan(const struct costs *c, int n, int sources, int latest,
                      struct plan_makespan *ms);

#endif
