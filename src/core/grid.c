/* grid: cells files, package files and the dispatch plan (see grid.h). */
#include "grid.h"
#include "exit_status.h"
#include "job.h"
#include "strvec.h"

#include <stdlib.h>
#include <string.h>

const char *const dim_names[NDIMS] = {"python", "cuda", "torch"};
/* how a dimension's value is spelled in a cell id: py3.11, cu13.0, torch2.10.0 */
static const char *const dim_prefix[NDIMS] = {"py", "cu", "torch"};

/* Values that go into cell ids and artifact names: letters, digits, '.', '_', '+'. No
 * '-' (it separates the parts of a cell id) and no leading '.'. */
static int value_ok(const char *s)
{
    if (!*s || *s == '.')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '+'))
            return 0;
    return 1;
}

static int get_value(const struct ydoc *d, const struct ynode *n, const char *key, const char **out,
                     struct strbuf *err)
{
    int rc = yget_string(d, n, key, out, err);
    if (!rc && !value_ok(*out))
        rc = yerr(d, n, err,
                  "key \"%s\": \"%s\" is not a name (letters, digits, '.', '_', '+'; it goes "
                  "into cell ids and artifact names)",
                  key, *out);
    return rc;
}

/* A list of names, each once. */
static int get_names(const struct ydoc *d, const struct ynode *n, const char *key,
                     struct strlist *out, struct strbuf *err)
{
    int rc = yget_string_list(d, n, key, &out->v, &out->n, err);
    if (rc)
        return rc;
    out->at = n;
    for (size_t i = 0; i < out->n && !rc; i++) {
        if (!value_ok(out->v[i]))
            rc = get_value(d, n->items[i], key, &out->v[i], err);
        for (size_t k = 0; k < i && !rc; k++)
            if (!strcmp(out->v[k], out->v[i]))
                rc =
                    yerr(d, n->items[i], err, "key \"%s\": \"%s\" is listed twice", key, out->v[i]);
    }
    if (!rc && out->n == 0)
        rc = yerr(d, n, err, "key \"%s\": the list is empty", key);
    return rc;
}

static int in_list(const struct strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s))
            return 1;
    return 0;
}

static int load_root_map(const char *path, struct ydoc *d, const char *what, struct strbuf *err)
{
    int rc = ydoc_load(path, d, err);
    if (rc)
        return rc;
    if (!d->root || d->root->kind != Y_MAP)
        return yerr(d, d->root, err, "a %s must be a mapping of keys to values", what);
    return EXIT_OK;
}

int cells_load(const char *path, struct cells *c, struct strbuf *err)
{
    memset(c, 0, sizeof *c);
    int rc = load_root_map(path, &c->doc, "cells file", err);
    if (rc)
        return rc;
    const struct ydoc *d = &c->doc;
    static const char *const known[] = {"platforms", "python", "cuda", "torch", "exclude", NULL};
    rc = ymap_check_keys(d, d->root, known, "cells file", err);
    if (rc)
        return rc;
    const struct ynode *pl = ymap_get(d->root, "platforms");
    if (!pl)
        return yerr(d, d->root, err, "key \"platforms\" is required");
    if (pl->kind != Y_SEQ || pl->n == 0)
        return yerr(d, pl, err, "key \"platforms\": expected a non-empty list of {name, arch}");
    c->plat = calloc(pl->n, sizeof *c->plat);
    for (size_t i = 0; i < pl->n; i++) {
        const struct ynode *e = pl->items[i];
        static const char *const pk[] = {"name", "arch", NULL};
        if (e->kind != Y_MAP)
            return yerr(d, e, err, "key \"platforms\": each entry is a mapping {name, arch}");
        if ((rc = ymap_check_keys(d, e, pk, "platforms", err)))
            return rc;
        const struct ynode *nm = ymap_get(e, "name"), *ar = ymap_get(e, "arch");
        if (!nm || !ar)
            return yerr(d, e, err, "key \"platforms\": an entry lacks \"%s\"",
                        nm ? "arch" : "name");
        struct platform *p = &c->plat[c->nplat];
        if ((rc = get_value(d, nm, "name", &p->name, err)) ||
            (rc = get_value(d, ar, "arch", &p->arch, err)))
            return rc;
        for (size_t k = 0; k < c->nplat; k++)
            if (!strcmp(c->plat[k].name, p->name))
                return yerr(d, nm, err, "key \"platforms\": \"%s\" is listed twice", p->name);
        c->nplat++;
    }
    for (int k = 0; k < NDIMS; k++) {
        const struct ynode *n = ymap_get(d->root, dim_names[k]);
        if (n && (rc = get_names(d, n, dim_names[k], &c->dim[k], err)))
            return rc;
    }
    const struct ynode *ex = ymap_get(d->root, "exclude");
    if (ex) {
        if (ex->kind != Y_SEQ)
            return yerr(d, ex, err, "key \"exclude\": expected a list of mappings");
        c->ex = calloc(ex->n ? ex->n : 1, sizeof *c->ex);
        for (size_t i = 0; i < ex->n; i++) {
            const struct ynode *e = ex->items[i];
            static const char *const xk[] = {"platform", "arch", "python", "cuda", "torch", NULL};
            if (e->kind != Y_MAP || e->n == 0)
                return yerr(d, e, err, "key \"exclude\": each entry is a non-empty mapping");
            if ((rc = ymap_check_keys(d, e, xk, "exclude", err)))
                return rc;
            struct exclusion *x = &c->ex[c->nex++];
            for (size_t j = 0; j < e->n; j++) {
                const char *key = e->keys[j]->text, *v;
                if ((rc = yget_string(d, e->items[j], key, &v, err)))
                    return rc;
                int found = 0;
                if (!strcmp(key, "platform") || !strcmp(key, "arch")) {
                    for (size_t p = 0; p < c->nplat; p++)
                        found |= !strcmp(key[0] == 'p' ? c->plat[p].name : c->plat[p].arch, v);
                    *(key[0] == 'p' ? &x->platform : &x->arch) = v;
                } else {
                    for (int k = 0; k < NDIMS; k++)
                        if (!strcmp(key, dim_names[k])) {
                            found = in_list(&c->dim[k], v);
                            x->dim[k] = v;
                        }
                }
                if (!found)
                    return yerr(d, e->items[j], err,
                                "key \"exclude\": %s \"%s\" is not in the grid (a typo would "
                                "exclude nothing)",
                                key, v);
            }
        }
    }
    return EXIT_OK;
}

void cells_release(struct cells *c)
{
    for (int k = 0; k < NDIMS; k++)
        free(c->dim[k].v);
    free(c->plat);
    free(c->ex);
    ydoc_release(&c->doc);
    memset(c, 0, sizeof *c);
}

/* `pin:` a list of globs of TU keys, each compiled in every shard (shardcc shard --pin). */
static int get_pins(const struct ydoc *d, const struct ynode *n, struct package *p,
                    struct strbuf *err)
{
    const char **v;
    size_t count;
    int rc = yget_string_list(d, n, "pin", &v, &count, err);
    if (rc)
        return rc;
    struct strbuf joined = STRBUF_INIT;
    for (size_t i = 0; i < count && !rc; i++) {
        if (!*v[i] || strchr(v[i], ':') || strchr(v[i], '\n'))
            rc = yerr(d, n->items[i], err,
                      "key \"pin\": \"%s\" is not a glob of TU keys (not empty, no ':')", v[i]);
        sb_addf(&joined, "%s%s", i ? ":" : "", v[i]);
    }
    free(v);
    if (!rc && count)
        p->pin = sb_detach(&joined);
    sb_release(&joined);
    return rc;
}

int package_load(const char *path, const char *default_name, struct package *p, struct strbuf *err)
{
    memset(p, 0, sizeof *p);
    p->min_hit_rate = 0.90;
    int rc = load_root_map(path, &p->doc, "package file", err);
    if (rc)
        return rc;
    const struct ydoc *d = &p->doc;
    static const char *const known[] = {"name",         "sharding",  "sharding_platforms",
                                        "min_hit_rate", "host_seat", "plan",
                                        "pin",          "platforms", "python",
                                        "cuda",         "torch",     NULL};
    if ((rc = ymap_check_keys(d, d->root, known, "package", err)))
        return rc;
    const struct ynode *n;
    if ((n = ymap_get(d->root, "name"))) {
        if ((rc = yget_string(d, n, "name", &p->name, err)))
            return rc;
        if (!cell_id_ok(p->name))
            return yerr(d, n, err,
                        "key \"name\": \"%s\" is not a package name (letters, digits, . _ + -; "
                        "not starting with '.' or '-')",
                        p->name);
    } else if (default_name && cell_id_ok(default_name)) {
        p->name = default_name;
    } else {
        return yerr(d, d->root, err, "key \"name\" is required%s",
                    default_name ? " (the directory's name is not a package name)" : "");
    }
    if ((n = ymap_get(d->root, "sharding")) &&
        (rc = yget_int(d, n, "sharding", 0, 100000, &p->sharding, err)))
        return rc;
    if ((n = ymap_get(d->root, "sharding_platforms")) &&
        (rc = get_names(d, n, "sharding_platforms", &p->sharding_platforms, err)))
        return rc;
    if ((n = ymap_get(d->root, "min_hit_rate")) &&
        (rc = yget_number(d, n, "min_hit_rate", 0, 1, &p->min_hit_rate, err)))
        return rc;
    if ((n = ymap_get(d->root, "host_seat")) &&
        (rc = yget_bool(d, n, "host_seat", &p->host_seat, err)))
        return rc;
    if ((n = ymap_get(d->root, "plan")) && (rc = yget_string(d, n, "plan", &p->plan, err)))
        return rc;
    if ((n = ymap_get(d->root, "pin")) && (rc = get_pins(d, n, p, err)))
        return rc;
    if ((n = ymap_get(d->root, "platforms")) &&
        (rc = get_names(d, n, "platforms", &p->only_platforms, err)))
        return rc;
    for (int k = 0; k < NDIMS; k++)
        if ((n = ymap_get(d->root, dim_names[k])) &&
            (rc = get_names(d, n, dim_names[k], &p->only[k], err)))
            return rc;
    return EXIT_OK;
}

/* Every name of a package's list must be one of the grid's. */
static int check_subset(const struct package *p, const struct strlist *l, const char *key,
                        const struct cells *c, int dim, struct strbuf *err)
{
    if (!l->at)
        return EXIT_OK; /* the package does not narrow this dimension */
    for (size_t i = 0; i < l->n; i++) {
        int found = 0;
        if (dim < 0) {
            for (size_t k = 0; k < c->nplat; k++)
                found |= !strcmp(c->plat[k].name, l->v[i]);
        } else {
            found = in_list(&c->dim[dim], l->v[i]);
        }
        if (!found)
            return yerr(&p->doc, l->at->items[i], err,
                        "key \"%s\": \"%s\" is not in the cells file %s", key, l->v[i],
                        c->doc.file);
    }
    return EXIT_OK;
}

int package_check_against(const struct package *p, const struct cells *c, struct strbuf *err)
{
    int rc = check_subset(p, &p->sharding_platforms, "sharding_platforms", c, -1, err);
    if (!rc)
        rc = check_subset(p, &p->only_platforms, "platforms", c, -1, err);
    for (int k = 0; k < NDIMS && !rc; k++) {
        if (p->only[k].at && !c->dim[k].n)
            return yerr(&p->doc, p->only[k].at, err, "key \"%s\": the cells file %s has no %s",
                        dim_names[k], c->doc.file, dim_names[k]);
        rc = check_subset(p, &p->only[k], dim_names[k], c, k, err);
    }
    return rc;
}

void package_release(struct package *p)
{
    free(p->pin);
    free(p->sharding_platforms.v);
    free(p->only_platforms.v);
    for (int k = 0; k < NDIMS; k++)
        free(p->only[k].v);
    ydoc_release(&p->doc);
    memset(p, 0, sizeof *p);
}

static int excluded(const struct cells *c, const struct platform *pl, const char *const *v)
{
    for (size_t i = 0; i < c->nex; i++) {
        const struct exclusion *x = &c->ex[i];
        int match = (!x->platform || !strcmp(x->platform, pl->name)) &&
                    (!x->arch || !strcmp(x->arch, pl->arch));
        for (int k = 0; k < NDIMS && match; k++)
            match = !x->dim[k] || (v[k] && !strcmp(x->dim[k], v[k]));
        if (match)
            return 1;
    }
    return 0;
}

static json_t *str_or_null_json(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* A plan's size: a 10 KB cells file can describe 10^8 cells (a product of long lists), and
 * the plan of them would not fit in memory; such a grid is an error that says so. */
#define MATRIX_MAX_CELLS 100000
#define MATRIX_MAX_SHARD_JOBS 1000000

struct planner {
    json_t *dispatches, *cur_shards, *cur_links;
    long max_jobs;
    json_t *seen; /* cell id -> true */
    size_t shard_jobs;
};

static void new_dispatch(struct planner *pl)
{
    pl->cur_shards = json_array();
    pl->cur_links = json_array();
    json_array_append_new(
        pl->dispatches, json_pack("{s:o, s:o}", "shards", pl->cur_shards, "links", pl->cur_links));
}

static int add_cell(struct planner *pl, const struct package *p, const struct platform *plat,
                    const char *const *v, struct strbuf *err)
{
    struct strbuf cell = STRBUF_INIT;
    sb_addf(&cell, "%s-%s-%s", p->name, plat->name, plat->arch);
    for (int k = 0; k < NDIMS; k++)
        if (v[k])
            sb_addf(&cell, "-%s%s", dim_prefix[k], v[k]);
    const char *id = sb_str(&cell);
    if (json_object_get(pl->seen, id)) {
        sb_reset(err);
        sb_addf(err, "%s: two cells are named \"%s\" (is the package listed twice?)", p->doc.file,
                id);
        sb_release(&cell);
        return EXIT_USAGE;
    }
    json_object_set_new(pl->seen, id, json_true());
    int shards = p->sharding > 0 &&
                 (!p->sharding_platforms.at || in_list(&p->sharding_platforms, plat->name));
    long n = shards ? p->sharding : 0;
    pl->shard_jobs += (size_t)n;
    if (json_object_size(pl->seen) > MATRIX_MAX_CELLS || pl->shard_jobs > MATRIX_MAX_SHARD_JOBS) {
        sb_reset(err);
        sb_addf(err,
                "%s: the plan has more than %d cells or %d shard jobs (at cell %s): a farm "
                "that large is a mistake in the cells file (a product of long lists?) or "
                "needs splitting into several plans",
                p->doc.file, MATRIX_MAX_CELLS, MATRIX_MAX_SHARD_JOBS, id);
        sb_release(&cell);
        return EXIT_USAGE;
    }
    if (n > pl->max_jobs) {
        sb_reset(err);
        sb_addf(err,
                "%s: cell %s has %ld shards, more than --max-jobs %ld allows in one "
                "dispatch (lower \"sharding\" or raise --max-jobs)",
                p->doc.file, id, n, pl->max_jobs);
        sb_release(&cell);
        return EXIT_USAGE;
    }
    if (!pl->cur_shards || json_array_size(pl->cur_shards) + (size_t)n > (size_t)pl->max_jobs ||
        json_array_size(pl->cur_links) + 1 > (size_t)pl->max_jobs)
        new_dispatch(pl);
    json_t *common =
        json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "package", p->name, "cell", id, "platform",
                  plat->name, "arch", plat->arch, "python", str_or_null_json(v[DIM_PYTHON]), "cuda",
                  str_or_null_json(v[DIM_CUDA]), "torch", str_or_null_json(v[DIM_TORCH]));
    for (long i = 1; i <= n; i++) {
        json_t *s = json_deep_copy(common);
        struct strbuf art = STRBUF_INIT;
        sb_addf(&art, "shard-%s-%ld-of-%ld", id, i, n);
        json_object_set_new(s, "shard", json_integer(i));
        json_object_set_new(s, "count", json_integer(n));
        json_object_set_new(s, "artifact", json_string(sb_str(&art)));
        json_object_set_new(s, "host_seat", json_boolean(p->host_seat));
        json_object_set_new(s, "plan", str_or_null_json(p->plan));
        json_object_set_new(s, "pin", json_string(p->pin ? p->pin : ""));
        json_array_append_new(pl->cur_shards, s);
        sb_release(&art);
    }
    json_t *l = common;
    json_object_set_new(l, "count", json_integer(n));
    if (n) {
        struct strbuf art = STRBUF_INIT;
        sb_addf(&art, "shard-%s-*-of-%ld", id, n);
        json_object_set_new(l, "artifacts", json_string(sb_str(&art)));
        sb_release(&art);
    } else {
        json_object_set_new(l, "artifacts", json_null());
    }
    json_object_set_new(l, "min_hit_rate", json_real(p->min_hit_rate));
    json_object_set_new(l, "host_seat", json_boolean(p->host_seat));
    json_object_set_new(l, "plan", str_or_null_json(p->plan));
    json_array_append_new(pl->cur_links, l);
    sb_release(&cell);
    return EXIT_OK;
}

/* A link job downloads "shard-CELL-*-of-N": no cell id may be another's followed by '-'. */
static int check_globs(json_t *seen, struct strbuf *err)
{
    size_t n = json_object_size(seen), i = 0;
    const char **ids = malloc((n ? n : 1) * sizeof *ids);
    const char *k;
    json_t *v;
    json_object_foreach(seen, k, v) ids[i++] = k;
    qsort(ids, n, sizeof *ids, cstr_cmp);
    int rc = EXIT_OK;
    for (i = 0; i + 1 < n && !rc; i++) {
        size_t len = strlen(ids[i]);
        if (!strncmp(ids[i], ids[i + 1], len) && ids[i + 1][len] == '-') {
            sb_reset(err);
            sb_addf(err,
                    "cells \"%s\" and \"%s\": the first's artifact pattern would match "
                    "the second's artifacts (rename a package)",
                    ids[i], ids[i + 1]);
            rc = EXIT_USAGE;
        }
    }
    free(ids);
    return rc;
}

int matrix_plan(struct package *const *pkgs, size_t npkgs, const struct cells *c, long max_jobs,
                json_t **out, struct strbuf *err)
{
    struct planner pl = {json_array(), NULL, NULL, max_jobs, json_object(), 0};
    int rc = EXIT_OK;
    for (size_t pi = 0; pi < npkgs && !rc; pi++) {
        const struct package *p = pkgs[pi];
        for (size_t f = 0; f < c->nplat && !rc; f++) {
            const struct platform *plat = &c->plat[f];
            if (p->only_platforms.at && !in_list(&p->only_platforms, plat->name))
                continue;
            /* the product of the dimensions present; an absent one contributes one NULL */
            size_t len[NDIMS], idx[NDIMS] = {0}, total = 1;
            for (int k = 0; k < NDIMS; k++) {
                len[k] = c->dim[k].n ? c->dim[k].n : 1;
                total = total > (size_t)MATRIX_MAX_CELLS * 1000 ? total : total * len[k];
            }
            /* the product before any cell is made: the excludes may thin it, but a
             * product this large is not a farm (and would take minutes to walk) */
            if (total > (size_t)MATRIX_MAX_CELLS * 1000) {
                sb_reset(err);
                sb_addf(err,
                        "the cells file's grid on platform %s is a product of more than %d "
                        "combinations (python %zu x cuda %zu x torch %zu): a farm that large "
                        "is a mistake (use a list of combinations, or split the grid)",
                        plat->name, MATRIX_MAX_CELLS * 1000, len[0], len[1], len[2]);
                rc = EXIT_USAGE;
                break;
            }
            for (size_t t = 0; t < total && !rc; t++) {
                size_t r = t;
                const char *v[NDIMS];
                int keep = 1;
                for (int k = NDIMS - 1; k >= 0; k--) {
                    idx[k] = r % len[k];
                    r /= len[k];
                }
                for (int k = 0; k < NDIMS; k++) {
                    v[k] = c->dim[k].n ? c->dim[k].v[idx[k]] : NULL;
                    if (v[k] && p->only[k].at && !in_list(&p->only[k], v[k]))
                        keep = 0;
                }
                if (keep && !excluded(c, plat, v))
                    rc = add_cell(&pl, p, plat, v, err);
            }
        }
    }
    if (!rc)
        rc = check_globs(pl.seen, err);
    json_decref(pl.seen);
    if (rc) {
        json_decref(pl.dispatches);
        return rc;
    }
    *out = json_pack("{s:o}", "dispatches", pl.dispatches);
    return EXIT_OK;
}
