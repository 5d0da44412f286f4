/* plan: a shard plan (docs/shardcc-plan.md): which shard owns which TU key, from measured
 * costs (longest processing time first) or by count. shardcc plan writes it; shardcc shard
 * and env --plan turn it into the file the seat reads (SHARDCC_PLAN) and its digest, which
 * goes into the artifact's manifest. */
#ifndef SHARDCC_PLAN_H
#define SHARDCC_PLAN_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"

#define PLAN_FORMAT 1
/* the most items plan_build refines after longest-first (its search is quadratic) */
#define PLAN_REFINE_MAX 4000
/* and the most changes it makes */
#define PLAN_REFINE_ROUNDS 256

struct plan_item {
    const char *key;
    double cost; /* seconds (1 each for a count-balanced plan) */
};

/* The predicted makespans (seconds): the plan's, the hash partition's, the ideal. */
struct plan_makespan {
    double plan, hash, ideal;
};

/* Longest processing time first over n shards: items by cost, descending, ties by key;
 * each to the least loaded shard, ties to the lower shard; then ("lpt", up to
 * PLAN_REFINE_MAX items) moves and swaps of single items off the busiest shard while they
 * lower it (at most PLAN_REFINE_ROUNDS of them). Returns the plan's JSON text
 * (allocated; the same bytes for the same items in any order) and, when ms is not NULL,
 * the makespans it records. method: "lpt"|"sources". */
char *plan_build(const struct plan_item *items, size_t nitems, int n, const char *method,
                 struct plan_makespan *ms);

/* A plan file holds one plan, or a plan per cell (shardcc plan --per-cell):
 *   {"format": 1, "cells": {"CELL": PLAN, ...}, "default": PLAN}
 * The plan for cell: the file itself when it has no "cells", else cell's section, else
 * "default" (NULL when there is none). *which (when not NULL) is set to NULL, cell or
 * "default". Borrowed from doc. */
json_t *plan_section(json_t *doc, const char *cell, const char **which);

/* Reads and checks a plan file for a job of count shards (0: any) of cell (NULL: none; a
 * plan per cell then gives its default). On success returns 0 and fills seat_text (the
 * seat's form: "shardcc-plan<TAB>N" then KEY<TAB>SHARD lines, sorted: the cell's section
 * only) and digest ("plan1-" + 32 hex digits of XXH3-128 over seat_text); else 2 or 4 with
 * the reason in err. */
int plan_load(const char *path, int count, const char *cell, struct strbuf *seat_text,
              struct strbuf *digest, struct strbuf *err);

/* The predicted seconds of a shard in a plan document (its "shards" list), or -1. */
double plan_shard_seconds(json_t *plan, int shard);

/* The longest compile time a plan takes from its inputs (cost tables, manifests and
 * journals, some of them untrusted): 10^6 s, so that sums over any number of keys stay
 * finite. */
#define PLAN_SECONDS_MAX 1e6
/* Whether s is a compile time a plan takes: finite, from 0 to PLAN_SECONDS_MAX. */
int plan_seconds_ok(double s);

/* The longest line of a cost table, in bytes without its newline (a key is a path). */
#define PLAN_COST_LINE_MAX 4096

/* Reads a cost table (docs/shardcc-plan.md) from f: KEY<TAB>SECONDS lines, with blank
 * lines and "#" comments skipped and a "\r\n" end taken as "\n". For each line calls
 * add(ctx, key, seconds): key is non-empty and holds no control character; seconds passes
 * plan_seconds_ok(). Returns 0; or 2 (a line that is not one: no tab, an empty key, a key
 * with a control character, not a number, a number out of range, a NUL byte, over
 * PLAN_COST_LINE_MAX bytes) or 4 (a read error) with "PATH:LINE: why" in err, after the lines
 * before it were added. */
int plan_read_costs(FILE *f, const char *path,
                    void (*add)(void *ctx, const char *key, double seconds), void *ctx,
                    struct strbuf *err);

#endif
