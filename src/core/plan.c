/* plan: building, checking and digesting shard plans (see plan.h). */
#include "plan.h"
#include "exit_status.h"
#include "job.h"
#include "partition.h"
#include "split.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static int by_cost_then_key(const void *a, const void *b)
{
    const struct plan_item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return strcmp(x->key, y->key);
}

static double ms(double s)
{
    return round(s * 1000.0) / 1000.0;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const struct plan_item *const *)a)->key,
                  (*(const struct plan_item *const *)b)->key);
}

/* The loads the seats give the items without a plan: a TU by the hash partition of its key,
 * a split TU's items (KEY#ITEM) round robin from the TU's shard in their names' order
 * (split.h). Keys sharing a "KEY#" prefix are contiguous in key order. */
static void hash_loads(const struct plan_item *s, size_t nitems, int n, double *hload)
{
    const struct plan_item **items = xmalloc((nitems ? nitems : 1) * sizeof *items);
    size_t k = 0;
    for (size_t i = 0; i < nitems; i++) {
        if (strchr(s[i].key, SPLIT_ITEM_SEP))
            items[k++] = &s[i];
        else
            hload[partition_owner(s[i].key, n)] += s[i].cost;
    }
    qsort(items, k, sizeof *items, by_key);
    for (size_t i = 0, rank = 0; i < k; i++) {
        const char *h = strchr(items[i]->key, SPLIT_ITEM_SEP);
        size_t tl = (size_t)(h - items[i]->key);
        if (i > 0 && (strncmp(items[i - 1]->key, items[i]->key, tl + 1) || !tl))
            rank = 0;
        else if (i > 0)
            rank++;
        char *tu = xstrndup(items[i]->key, tl);
        hload[split_item_owner(tu, rank, n)] += items[i]->cost;
        free(tu);
    }
    free(items);
}

/* After longest-first: while a move of one item off the busiest shard, or a swap of one of
 * its items with a cheaper one of another shard, lowers the busier of the two shards below
 * the busiest's load, the best such change (ties: the first item, then the lower shard).
 * Each change lowers the busiest shard's load, or the number of shards at it. */
static void refine(const struct plan_item *s, size_t nitems, int n, int *where, double *load,
                   size_t *count)
{
    for (int round = 0; round < PLAN_REFINE_ROUNDS; round++) {
        int top = 1;
        for (int k = 2; k <= n; k++)
            if (load[k] > load[top])
                top = k;
        double best = load[top];
        size_t ba = 0, bb = 0;
        int bk = 0; /* 0: nothing better */
        for (size_t a = 0; a < nitems; a++) {
            if (where[a] != top)
                continue;
            for (int k = 1; k <= n; k++) { /* a move */
                double m = load[k] + s[a].cost, rest = load[top] - s[a].cost;
                if (k != top && (m > rest ? m : rest) < best - 1e-9) {
                    best = m > rest ? m : rest;
                    ba = a;
                    bb = nitems;
                    bk = k;
                }
            }
            for (size_t b = 0; b < nitems; b++) { /* a swap */
                int k = where[b];
                if (k == top || s[b].cost >= s[a].cost)
                    continue;
                double d = s[a].cost - s[b].cost, x = load[top] - d, y = load[k] + d;
                if ((x > y ? x : y) < best - 1e-9) {
                    best = x > y ? x : y;
                    ba = a;
                    bb = b;
                    bk = k;
                }
            }
        }
        if (!bk)
            return;
        load[top] -= s[ba].cost;
        load[bk] += s[ba].cost;
        where[ba] = bk;
        if (bb < nitems) {
            load[bk] -= s[bb].cost;
            load[top] += s[bb].cost;
            where[bb] = top;
        } else {
            count[top]--;
            count[bk]++;
        }
    }
}

char *plan_build(const struct plan_item *items, size_t nitems, int n, const char *method,
                 struct plan_makespan *out)
{
    struct plan_item *s = xmalloc((nitems ? nitems : 1) * sizeof *s);
    memcpy(s, items, nitems * sizeof *s);
    qsort(s, nitems, sizeof *s, by_cost_then_key);
    double *load = calloc((size_t)n + 1, sizeof *load),
           *hload = calloc((size_t)n + 1, sizeof *hload);
    size_t *count = calloc((size_t)n + 1, sizeof *count);
    json_t *assign = json_object(), *cost = json_object();
    double total = 0, longest = 0;
    int *where = xmalloc((nitems ? nitems : 1) * sizeof *where);
    for (size_t i = 0; i < nitems; i++) {
        int best = 1;
        for (int k = 2; k <= n; k++)
            if (load[k] < load[best])
                best = k;
        load[best] += s[i].cost;
        count[best]++;
        where[i] = best;
        total += s[i].cost;
        if (s[i].cost > longest)
            longest = s[i].cost;
    }
    hash_loads(s, nitems, n, hload);
    if (!strcmp(method, "lpt") && nitems <= PLAN_REFINE_MAX)
        refine(s, nitems, n, where, load, count);
    for (size_t i = 0; i < nitems; i++) {
        json_object_set_new(assign, s[i].key, json_integer(where[i]));
        json_object_set_new(cost, s[i].key, json_real(ms(s[i].cost)));
    }
    free(where);
    double mk = 0, hmk = 0, ideal = n ? total / n : 0;
    if (longest > ideal)
        ideal = longest;
    json_t *shards = json_array();
    for (int k = 1; k <= n; k++) {
        if (load[k] > mk)
            mk = load[k];
        if (hload[k] > hmk)
            hmk = hload[k];
        json_array_append_new(shards, json_pack("{s:i, s:I, s:f}", "shard", k, "tus",
                                                (json_int_t)count[k], "seconds", ms(load[k])));
    }
    if (out)
        *out = (struct plan_makespan){ms(mk), ms(hmk), ms(ideal)};
    json_t *doc =
        json_pack("{s:i, s:s, s:i, s:o, s:o, s:{s:f, s:f, s:f}, s:o}", "format", PLAN_FORMAT,
                  "method", method, "n", n, "assign", assign, "cost", cost, "makespan", "plan",
                  ms(mk), "hash", ms(hmk), "ideal", ms(ideal), "shards", shards);
    char *text = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(12));
    json_decref(doc);
    free(s);
    free(load);
    free(hload);
    free(count);
    struct strbuf sb = STRBUF_INIT;
    sb_adds(&sb, text);
    sb_addc(&sb, '\n');
    free(text);
    return sb_detach(&sb);
}

json_t *plan_section(json_t *doc, const char *cell, const char **which)
{
    json_t *cells = json_object_get(doc, "cells");
    if (!json_is_object(cells)) {
        if (which)
            *which = NULL;
        return doc; /* one plan for every cell */
    }
    json_t *sec = cell ? json_object_get(cells, cell) : NULL;
    if (which)
        *which = sec ? cell : "default";
    return sec ? sec : json_object_get(doc, "default");
}

int plan_load(const char *path, int count, const char *cell, struct strbuf *seat_text,
              struct strbuf *digest, struct strbuf *err)
{
    json_error_t je;
    json_t *file = json_file_load(path, JSON_FILE_MAX, &je);
    sb_reset(err);
    if (!file) {
        if (je.line < 0 || strstr(je.text, "unable to open"))
            sb_addf(err, "cannot read the plan \"%s\": %s", path, je.text);
        else
            sb_addf(err, "%s:%d:%d: not a plan (JSON): %s", path, je.line, je.column, je.text);
        return je.line < 0 || strstr(je.text, "unable to open") ? EXIT_IO : EXIT_USAGE;
    }
    const char *which;
    json_t *doc = plan_section(file, cell, &which);
    if (!json_is_object(doc)) {
        sb_addf(err,
                "%s: a plan per cell without a section for cell %s and without a default "
                "(shardcc plan --per-cell writes both)",
                path, cell ? cell : "(none)");
        json_decref(file);
        return EXIT_USAGE;
    }
    json_t *fmt = json_object_get(doc, "format"), *nj = json_object_get(doc, "n"),
           *assign = json_object_get(doc, "assign");
    int rc = EXIT_OK;
    if (!json_is_integer(fmt) || json_integer_value(fmt) != PLAN_FORMAT || !json_is_integer(nj) ||
        !json_is_object(assign)) {
        sb_addf(err, "%s%s%s: not a plan of format %d (needs format, n and assign)", path,
                which ? ", section " : "", which ? which : "", PLAN_FORMAT);
        rc = EXIT_USAGE;
    }
    long n = rc ? 0 : (long)json_integer_value(nj);
    if (!rc && (n < 1 || n > 100000)) {
        sb_addf(err, "%s: n is %ld, not 1..100000", path, n);
        rc = EXIT_USAGE;
    }
    if (!rc && count && n != count) {
        sb_addf(err, "%s is a plan for %ld shards, this job is one of %d", path, n, count);
        rc = EXIT_USAGE;
    }
    size_t nk = rc ? 0 : json_object_size(assign), i = 0;
    const char **keys = xmalloc((nk ? nk : 1) * sizeof *keys);
    const char *k;
    json_t *v;
    if (!rc)
        json_object_foreach(assign, k, v)
        {
            long s = json_is_integer(v) ? (long)json_integer_value(v) : 0;
            if (s < 1 || s > n || strpbrk(k, "\t\n\r") || !*k) {
                sb_addf(err, "%s: assign[\"%s\"] is not a shard 1..%ld of a plain key", path, k, n);
                rc = EXIT_USAGE;
                break;
            }
            keys[i++] = k;
        }
    if (!rc) {
        qsort(keys, nk, sizeof *keys, cstr_cmp);
        struct strbuf body = STRBUF_INIT;
        for (i = 0; i < nk; i++)
            sb_addf(&body, "%s\t%lld\n", keys[i],
                    (long long)json_integer_value(json_object_get(assign, keys[i])));
        char check[17];
        plan_check_text(sb_str(&body), body.len, check);
        sb_reset(seat_text);
        sb_addf(seat_text, "shardcc-plan\t%ld\t%s\n", n, check);
        sb_add(seat_text, sb_str(&body), body.len);
        sb_release(&body);
        XXH128_hash_t h = XXH3_128bits(seat_text->buf, seat_text->len);
        sb_reset(digest);
        sb_addf(digest, "plan1-%016llx%016llx", (unsigned long long)h.high64,
                (unsigned long long)h.low64);
    }
    free(keys);
    json_decref(file);
    return rc;
}

int plan_seconds_ok(double s)
{
    return s >= 0 && s <= PLAN_SECONDS_MAX; /* false for NaN and the infinities */
}

/* One line of f into line (without its newline): 1, 0 at the end of the file, -1 for a
 * read error, -2 for a line over PLAN_COST_LINE_MAX bytes, -3 for a NUL byte in it. The
 * rest of a refused line is not read. */
static int cost_line(FILE *f, char *line)
{
    size_t n = 0;
    int ch;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (ch == '\0')
            return -3;
        if (n == PLAN_COST_LINE_MAX)
            return -2;
        line[n++] = (char)ch;
    }
    line[n] = '\0';
    if (ch == EOF && ferror(f))
        return -1;
    if (ch == EOF && n == 0)
        return 0;
    if (n && line[n - 1] == '\r')
        line[n - 1] = '\0';
    return 1;
}

static int has_control(const char *s, const char *end)
{
    for (; s < end; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

int plan_read_costs(FILE *f, const char *path,
                    void (*add)(void *ctx, const char *key, double seconds), void *ctx,
                    struct strbuf *err)
{
    char *line = xmalloc(PLAN_COST_LINE_MAX + 1);
    unsigned long lineno = 0;
    int rc = EXIT_OK, r;
    while (!rc && (r = cost_line(f, line)) != 0) {
        lineno++;
        if (r == -1) {
            sb_addf(err, "%s:%lu: %s", path, lineno, strerror(errno));
            rc = EXIT_IO;
        } else if (r == -2) {
            sb_addf(err, "%s:%lu: a line over %d bytes (a cost table's line is KEY<TAB>SECONDS)",
                    path, lineno, PLAN_COST_LINE_MAX);
            rc = EXIT_USAGE;
        } else if (r == -3) {
            sb_addf(err, "%s:%lu: a NUL byte (a cost table is text: KEY<TAB>SECONDS lines)", path,
                    lineno);
            rc = EXIT_USAGE;
        } else if (line[0] && line[0] != '#') {
            char *tab = strchr(line, '\t'), *end = NULL;
            double s = tab ? strtod(tab + 1, &end) : -1;
            if (!tab || tab == line || end == tab + 1 || *end || !plan_seconds_ok(s)) {
                sb_addf(err, "%s:%lu: expected KEY<TAB>SECONDS (a number from 0 to %.0f), got \"",
                        path, lineno, PLAN_SECONDS_MAX);
                sb_add_printable(err, line);
                sb_adds(err, "\"");
                rc = EXIT_USAGE;
            } else {
                *tab = '\0';
                if (!has_control(line, tab)) {
                    add(ctx, line, s);
                    continue;
                }
                sb_addf(err, "%s:%lu: the key holds a control character: \"", path, lineno);
                sb_add_printable(err, line);
                sb_adds(err, "\" (a TU key is a path relative to the root)");
                rc = EXIT_USAGE;
            }
        }
    }
    free(line);
    return rc;
}

/* The plan's predicted seconds for a shard, or -1. */
double plan_shard_seconds(json_t *plan, int shard)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(plan, "shards"), i, s)
    {
        if (json_integer_value(json_object_get(s, "shard")) == shard)
            return json_number_value(json_object_get(s, "seconds"));
    }
    return -1;
}
