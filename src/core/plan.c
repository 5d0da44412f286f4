/* plan: building, checking and digesting shard plans (see plan.h). */
#include "plan.h"
#include "exit_status.h"
#include "job.h"
#include "partition.h"
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
    for (size_t i = 0; i < nitems; i++) {
        int best = 1;
        for (int k = 2; k <= n; k++)
            if (load[k] < load[best])
                best = k;
        load[best] += s[i].cost;
        count[best]++;
        hload[partition_owner(s[i].key, n)] += s[i].cost;
        total += s[i].cost;
        if (s[i].cost > longest)
            longest = s[i].cost;
        json_object_set_new(assign, s[i].key, json_integer(best));
        json_object_set_new(cost, s[i].key, json_real(ms(s[i].cost)));
    }
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

int plan_load(const char *path, int count, struct strbuf *seat_text, struct strbuf *digest,
              struct strbuf *err)
{
    json_error_t je;
    json_t *doc = json_file_load(path, JSON_FILE_MAX, &je);
    sb_reset(err);
    if (!doc) {
        if (je.line < 0 || strstr(je.text, "unable to open"))
            sb_addf(err, "cannot read the plan \"%s\": %s", path, je.text);
        else
            sb_addf(err, "%s:%d:%d: not a plan (JSON): %s", path, je.line, je.column, je.text);
        return je.line < 0 || strstr(je.text, "unable to open") ? EXIT_IO : EXIT_USAGE;
    }
    json_t *fmt = json_object_get(doc, "format"), *nj = json_object_get(doc, "n"),
           *assign = json_object_get(doc, "assign");
    int rc = EXIT_OK;
    if (!json_is_integer(fmt) || json_integer_value(fmt) != PLAN_FORMAT || !json_is_integer(nj) ||
        !json_is_object(assign)) {
        sb_addf(err, "%s: not a plan of format %d (needs format, n and assign)", path, PLAN_FORMAT);
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
        sb_reset(seat_text);
        sb_addf(seat_text, "shardcc-plan\t%ld\n", n);
        for (i = 0; i < nk; i++)
            sb_addf(seat_text, "%s\t%lld\n", keys[i],
                    (long long)json_integer_value(json_object_get(assign, keys[i])));
        XXH128_hash_t h = XXH3_128bits(seat_text->buf, seat_text->len);
        sb_reset(digest);
        sb_addf(digest, "plan1-%016llx%016llx", (unsigned long long)h.high64,
                (unsigned long long)h.low64);
    }
    free(keys);
    json_decref(doc);
    return rc;
}

int plan_seconds_ok(double s)
{
    return s >= 0 && s <= PLAN_SECONDS_MAX; /* false for NaN and the infinities */
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
