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

static int check_foreign_keys(const struct ydoc *d, const struct ynode *map,
                              const char *const *known, const char *what, int strict,
                              struct strbuf *err);

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

/* A name or a list of names (each once). */
static int get_one_or_names(const struct ydoc *d, const struct ynode *n, const char *key,
                            struct strlist *out, struct strbuf *err)
{
    if (n->kind != Y_SCALAR)
        return get_names(d, n, key, out, err);
    out->v = xmalloc(sizeof *out->v);
    out->n = 1;
    out->at = n;
    return get_value(d, n, key, &out->v[0], err);
}

static int platform_known(const struct cells *c, const char *name)
{
    for (size_t k = 0; k < c->nplat; k++)
        if (!strcmp(c->plat[k].name, name))
            return 1;
    return 0;
}

/* `combinations:` a list of {platform?, python, cuda, torch} whose values are a name or
 * a list; every entry names the same dimensions. c->dim[] becomes their union. */
static int load_combinations(struct cells *c, const struct ynode *list, struct strbuf *err)
{
    const struct ydoc *d = &c->doc;
    if (list->kind != Y_SEQ || list->n == 0)
        return yerr(d, list, err,
                    "key \"combinations\": expected a non-empty list of mappings such as "
                    "{cuda: \"13.0\", torch: \"2.10.0\", python: [\"3.12\", \"3.13\"]}");
    c->combo = calloc(list->n, sizeof *c->combo);
    size_t cap[NDIMS] = {0};
    for (size_t i = 0; i < list->n; i++) {
        const struct ynode *e = list->items[i];
        static const char *const ck[] = {"platform", "python", "cuda", "torch", NULL};
        int rc;
        if (e->kind != Y_MAP || e->n == 0)
            return yerr(d, e, err, "key \"combinations\": each entry is a non-empty mapping");
        if ((rc = check_foreign_keys(d, e, ck, "combinations", 1, err)))
            return rc;
        struct combo *cb = &c->combo[c->ncombo++];
        const struct ynode *pl = ymap_get(e, "platform");
        if (pl) {
            if ((rc = get_one_or_names(d, pl, "platform", &cb->platforms, err)))
                return rc;
            for (size_t k = 0; k < cb->platforms.n; k++)
                if (!platform_known(c, cb->platforms.v[k]))
                    return yerr(d, pl->kind == Y_SEQ ? pl->items[k] : pl, err,
                                "key \"platform\": \"%s\" is not one of the platforms",
                                cb->platforms.v[k]);
        }
        for (int k = 0; k < NDIMS; k++) {
            const struct ynode *n = ymap_get(e, dim_names[k]);
            int first_has = c->combo[0].dim[k].at != NULL;
            if (i > 0 && !n != !first_has)
                return yerr(d, n ? n : e, err,
                            "key \"combinations\": this entry %s %s, which the first %s (every "
                            "entry names the same dimensions)",
                            n ? "names" : "lacks", dim_names[k], n ? "does not" : "names");
            if (!n)
                continue;
            if ((rc = get_one_or_names(d, n, dim_names[k], &cb->dim[k], err)))
                return rc;
            for (size_t j = 0; j < cb->dim[k].n; j++) {
                if (in_list(&c->dim[k], cb->dim[k].v[j]))
                    continue;
                if (c->dim[k].n == cap[k])
                    c->dim[k].v =
                        xrealloc(c->dim[k].v, (cap[k] = cap[k] ? 2 * cap[k] : 8) * sizeof(char *));
                c->dim[k].v[c->dim[k].n++] = cb->dim[k].v[j];
                c->dim[k].at = list;
            }
        }
        if (!c->combo[0].dim[0].at && !c->combo[0].dim[1].at && !c->combo[0].dim[2].at)
            return yerr(d, e, err,
                        "key \"combinations\": an entry names none of python, cuda, torch");
    }
    return EXIT_OK;
}

int cells_load(const char *path, struct cells *c, struct strbuf *err)
{
    memset(c, 0, sizeof *c);
    int rc = load_root_map(path, &c->doc, "cells file", err);
    if (rc)
        return rc;
    const struct ydoc *d = &c->doc;
    static const char *const known[] = {"platforms", "python",       "cuda", "torch",
                                        "exclude",   "combinations", NULL};
    rc = check_foreign_keys(d, d->root, known, "cells file", 1, err);
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
    const struct ynode *combos = ymap_get(d->root, "combinations");
    for (int k = 0; k < NDIMS; k++) {
        const struct ynode *n = ymap_get(d->root, dim_names[k]);
        if (n && combos)
            return yerr(d, n, err,
                        "key \"%s\": a cells file gives either the lists python, cuda and "
                        "torch (their product) or \"combinations\", not both",
                        dim_names[k]);
        if (n && (rc = get_names(d, n, dim_names[k], &c->dim[k], err)))
            return rc;
    }
    if (combos && (rc = load_combinations(c, combos, err)))
        return rc;
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
    for (size_t i = 0; i < c->ncombo; i++) {
        for (int k = 0; k < NDIMS; k++)
            free(c->combo[i].dim[k].v);
        free(c->combo[i].platforms.v);
    }
    free(c->combo);
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

/* Every key shardcc reads in a package file. */
static const char *const package_keys[] = {"name",         "sharding",  "sharding_platforms",
                                           "min_hit_rate", "host_seat", "reproducible",
                                           "plan",         "pin",       "remote",
                                           "axes",         "platforms", "python",
                                           "cuda",         "torch",     NULL};
/* shardcc's own words: a farm's key near one of them is a typo, not a key of the farm's.
 * Generic words (name, python, platforms, ...) are left out: a farm uses them too. */
static const char *const distinctive_keys[] = {"sharding",
                                               "sharding_platforms",
                                               "min_hit_rate",
                                               "host_seat",
                                               "reproducible",
                                               "axes",
                                               "pin",
                                               "shardcc",
                                               NULL};

/* The optimal string alignment distance (edits: insert, delete, substitute, swap two
 * neighbours), or max + 1 when it is more than max. */
static size_t edit_distance(const char *a, const char *b, size_t max)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > max || la > 64 || lb > 64)
        return max + 1;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb] > max ? max + 1 : d[la][lb];
}

/* The key of words that key is a near miss of, or NULL: the same word in another case or
 * with '-' for '_' (or no separator), one edit from a word of fewer than 10 letters, two
 * from a longer one; a word of 4 letters or fewer only by an 's' more or less ("pins")
 * or "axis", so that "pip" or "path" never trip. */
static const char *grid_near_miss(const char *key, const char *const *words)
{
    char norm[72], bare[72];
    size_t n = 0, b = 0;
    for (const char *k = key; *k && n < sizeof norm - 1; k++) {
        char ch = *k >= 'A' && *k <= 'Z' ? (char)(*k - 'A' + 'a') : *k == '-' ? '_' : *k;
        norm[n++] = ch;
        if (ch != '_')
            bare[b++] = ch;
    }
    norm[n] = bare[b] = '\0';
    if (key[n])
        return NULL; /* longer than any word */
    for (size_t i = 0; words[i]; i++) {
        const char *w = words[i];
        size_t lw = strlen(w);
        char wbare[72];
        size_t wb = 0;
        for (const char *c = w; *c && wb < sizeof wbare - 1; c++)
            if (*c != '_')
                wbare[wb++] = *c;
        wbare[wb] = '\0';
        if (!strcmp(norm, w) || !strcmp(bare, wbare)) {
            if (strcmp(key, w))
                return w;
            continue; /* the word itself */
        }
        if (lw <= 4) {
            if ((n == lw + 1 && norm[lw] == 's' && !strncmp(norm, w, lw)) ||
                (lw == n + 1 && w[n] == 's' && !strncmp(norm, w, n)) ||
                (!strcmp(w, "axes") && !strcmp(norm, "axis")))
                return w;
            continue;
        }
        if (edit_distance(norm, w, lw < 10 ? 1 : 2) <= (lw < 10 ? 1u : 2u))
            return w;
    }
    return NULL;
}

/* "unknown key" with a did-you-mean, or a foreign key let through: the keys of map that are
 * not in known. In strict mode (or inside the `shardcc:` mapping, shardcc's own) every
 * such key is an error; else only a near miss of shardcc's distinctive keys. */
static int check_foreign_keys(const struct ydoc *d, const struct ynode *map,
                              const char *const *known, const char *what, int strict,
                              struct strbuf *err)
{
    for (size_t i = 0; i < map->n; i++) {
        const struct ynode *k = map->keys[i];
        if (k->kind != Y_SCALAR)
            return yerr(d, k, err, "%s: a key must be a plain name", what);
        size_t j = 0;
        while (known[j] && strcmp(known[j], k->text))
            j++;
        if (known[j])
            continue;
        const char *near = grid_near_miss(k->text, strict ? known : distinctive_keys);
        if (!near && strict)
            near = grid_near_miss(k->text, distinctive_keys);
        if (near)
            return yerr(d, k, err, "%s: unknown key \"%s\": did you mean \"%s\"?%s", what, k->text,
                        near,
                        strict ? ""
                               : " (a farm's own keys are ignored, but not one this near "
                                 "a key of shardcc's)");
        if (strict) /* the first unknown key, this one: its error lists the known keys */
            return ymap_check_keys(d, map, known, what, err);
    }
    return EXIT_OK;
}

/* `axes: [platform, python, cuda]`: the dimensions a package varies over. */
static int get_axes(const struct ydoc *d, const struct ynode *n, struct package *p,
                    struct strbuf *err)
{
    const char **v;
    size_t count;
    int rc = yget_string_list(d, n, "axes", &v, &count, err);
    if (rc)
        return rc;
    p->axes = 0;
    p->axes_at = n;
    for (size_t i = 0; i < count && !rc; i++) {
        int k = 0;
        while (k < NDIMS && strcmp(dim_names[k], v[i]))
            k++;
        if (k < NDIMS && (p->axes & (1u << k)))
            rc = yerr(d, n->items[i], err, "key \"axes\": \"%s\" is listed twice", v[i]);
        else if (k < NDIMS)
            p->axes |= 1u << k;
        else if (strcmp(v[i], "platform"))
            rc = yerr(d, n->items[i], err,
                      "key \"axes\": \"%s\" is not an axis (platform, python, cuda, torch)", v[i]);
    }
    free(v);
    return rc;
}

/* The value of key: in the `shardcc:` mapping when there is one, else at the top. */
static const struct ynode *pkg_get(const struct ynode *root, const struct ynode *own,
                                   const char *key)
{
    return ymap_get(own ? own : root, key);
}

/* A generic key's error at the top of a farm's file may be the farm's key: say where
 * shardcc's own go. */
static int hint_own(int rc, const struct ynode *own, struct strbuf *err)
{
    if (rc == EXIT_USAGE && !own)
        sb_adds(err, " (if this key is the farm's own, put shardcc's keys under a \"shardcc:\" "
                     "mapping: then shardcc reads only that and \"sharding\")");
    return rc;
}

int package_load(const char *path, const char *default_name, int strict, struct package *p,
                 struct strbuf *err)
{
    memset(p, 0, sizeof *p);
    p->min_hit_rate = 0.90;
    p->axes = (1u << NDIMS) - 1;
    int rc = load_root_map(path, &p->doc, "package file", err);
    if (rc)
        return rc;
    const struct ydoc *d = &p->doc;
    const struct ynode *root = d->root, *own = ymap_get(root, "shardcc"), *n;
    if (own) {
        static const char *const top[] = {"sharding", "shardcc", NULL};
        if (own->kind != Y_MAP)
            return yerr(d, own, err,
                        "key \"shardcc\": expected a mapping of shardcc's package keys, got %s",
                        own->kind == Y_SEQ ? "a list" : "a scalar");
        if ((rc = check_foreign_keys(d, root, top, "package", strict, err)) ||
            (rc = check_foreign_keys(d, own, package_keys, "key \"shardcc\"", 1, err)))
            return rc;
        const struct ynode *a = ymap_get(root, "sharding"), *b = ymap_get(own, "sharding");
        if (a && b)
            return yerr(d, b, err,
                        "key \"sharding\": given both at the top (line %d) and under "
                        "\"shardcc\"",
                        a->line);
    } else {
        static const char *const known_strict[] = {"name",
                                                   "sharding",
                                                   "sharding_platforms",
                                                   "min_hit_rate",
                                                   "host_seat",
                                                   "reproducible",
                                                   "plan",
                                                   "pin",
                                                   "remote",
                                                   "axes",
                                                   "platforms",
                                                   "python",
                                                   "cuda",
                                                   "torch",
                                                   "shardcc",
                                                   NULL};
        if ((rc = check_foreign_keys(d, root, strict ? known_strict : package_keys, "package",
                                     strict, err)))
            return rc;
    }
    if ((n = pkg_get(root, own, "name"))) {
        if ((rc = hint_own(yget_string(d, n, "name", &p->name, err), own, err)))
            return rc;
        if (!cell_id_ok(p->name))
            return hint_own(yerr(d, n, err,
                                 "key \"name\": \"%s\" is not a package name (letters, digits, "
                                 ". _ + -; not starting with '.' or '-')",
                                 p->name),
                            own, err);
    } else if (default_name && cell_id_ok(default_name)) {
        p->name = default_name;
    } else {
        return yerr(d, d->root, err, "key \"name\" is required%s",
                    default_name ? " (the directory's name is not a package name)" : "");
    }
    if ((n = ymap_get(root, "sharding")) || (own && (n = ymap_get(own, "sharding"))))
        if ((rc = yget_int(d, n, "sharding", 0, 100000, &p->sharding, err)))
            return rc;
    if ((n = pkg_get(root, own, "sharding_platforms")) &&
        (rc = get_names(d, n, "sharding_platforms", &p->sharding_platforms, err)))
        return rc;
    if ((n = pkg_get(root, own, "min_hit_rate")) &&
        (rc = yget_number(d, n, "min_hit_rate", 0, 1, &p->min_hit_rate, err)))
        return rc;
    if ((n = pkg_get(root, own, "host_seat"))) {
        static const char *const words[] = {"false", "torch", "true", NULL};
        if ((rc = yget_word(d, n, "host_seat", words, "true, false or torch", &p->host_seat, err)))
            return rc;
        p->host_seat--; /* -1 false, 0 torch, 1 true */
    }
    if ((n = pkg_get(root, own, "reproducible"))) {
        static const char *const words[] = {"false", "auto", "true", NULL};
        if ((rc = yget_word(d, n, "reproducible", words, "true, false or auto", &p->reproducible,
                            err)))
            return rc;
        p->reproducible--; /* -1 false, 0 auto, 1 true */
    }
    if ((n = pkg_get(root, own, "plan")) &&
        (rc = hint_own(yget_string(d, n, "plan", &p->plan, err), own, err)))
        return rc;
    if ((n = pkg_get(root, own, "pin")) && (rc = get_pins(d, n, p, err)))
        return rc;
    if ((n = pkg_get(root, own, "remote")) &&
        (rc = hint_own(yget_string(d, n, "remote", &p->remote, err), own, err)))
        return rc;
    if ((n = pkg_get(root, own, "axes")) && (rc = get_axes(d, n, p, err)))
        return rc;
    if ((n = pkg_get(root, own, "platforms")) &&
        (rc = hint_own(get_names(d, n, "platforms", &p->only_platforms, err), own, err)))
        return rc;
    for (int k = 0; k < NDIMS; k++)
        if ((n = pkg_get(root, own, dim_names[k])) &&
            (rc = hint_own(get_names(d, n, dim_names[k], &p->only[k], err), own, err)))
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
        if (p->axes_at && (p->axes & (1u << k)) && !c->dim[k].n)
            return yerr(&p->doc, p->axes_at, err, "key \"axes\": the cells file %s has no %s",
                        c->doc.file, dim_names[k]);
        if (p->only[k].at && !(p->axes & (1u << k)))
            return yerr(&p->doc, p->only[k].at, err,
                        "key \"%s\": the package's axes leave %s out, so it cannot narrow it",
                        dim_names[k], dim_names[k]);
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

/* reproducible in a matrix entry: true, false, or "auto" (the default) */
static json_t *reproducible_json(int reproducible)
{
    return reproducible ? json_boolean(reproducible > 0) : json_string("auto");
}

/* host_seat in a matrix entry: true, false, or "torch" (the default), as the YAML says it
 * and the action's host-seat input takes it */
static json_t *host_seat_json(int host_seat)
{
    return host_seat ? json_boolean(host_seat > 0) : json_string("torch");
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
    size_t shard_bytes, link_bytes; /* the current dispatch's lists as compact JSON */
};

/* The compact JSON of one entry, in bytes, with the comma that joins it to the list. */
static size_t entry_bytes(const json_t *e)
{
    return json_dumpb(e, NULL, 0, MATRIX_JSON_FLAGS) + 1;
}

static void new_dispatch(struct planner *pl)
{
    pl->shard_bytes = pl->link_bytes = 1; /* "[]" less the first entry's comma */
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
    json_t *common =
        json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "package", p->name, "cell", id, "platform",
                  plat->name, "arch", plat->arch, "python", str_or_null_json(v[DIM_PYTHON]), "cuda",
                  str_or_null_json(v[DIM_CUDA]), "torch", str_or_null_json(v[DIM_TORCH]));
    json_t *shard_list = json_array();
    size_t sbytes = 0;
    for (long i = 1; i <= n; i++) {
        json_t *s = json_deep_copy(common);
        struct strbuf art = STRBUF_INIT;
        sb_addf(&art, "shard-%s-%ld-of-%ld", id, i, n);
        json_object_set_new(s, "shard", json_integer(i));
        json_object_set_new(s, "count", json_integer(n));
        json_object_set_new(s, "artifact", json_string(sb_str(&art)));
        json_object_set_new(s, "host_seat", host_seat_json(p->host_seat));
        json_object_set_new(s, "reproducible", reproducible_json(p->reproducible));
        json_object_set_new(s, "plan", str_or_null_json(p->plan));
        json_object_set_new(s, "pin", json_string(p->pin ? p->pin : ""));
        json_object_set_new(s, "remote", json_string(p->remote ? p->remote : ""));
        sbytes += entry_bytes(s);
        json_array_append_new(shard_list, s);
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
    json_object_set_new(l, "host_seat", host_seat_json(p->host_seat));
    json_object_set_new(l, "reproducible", reproducible_json(p->reproducible));
    json_object_set_new(l, "plan", str_or_null_json(p->plan));
    json_object_set_new(l, "remote", json_string(p->remote ? p->remote : ""));
    size_t lbytes = entry_bytes(l);
    if (sbytes + 1 > MATRIX_MAX_OUTPUT_BYTES) {
        sb_reset(err);
        sb_addf(err,
                "%s: cell %s's %ld shard entries take %zu bytes of JSON, more than a job "
                "output may hold (%d bytes; GitHub: 1 MB): lower \"sharding\" or shorten "
                "\"pin\" and \"plan\"",
                p->doc.file, id, n, sbytes + 1, MATRIX_MAX_OUTPUT_BYTES);
        json_decref(shard_list);
        json_decref(l);
        sb_release(&cell);
        return EXIT_USAGE;
    }
    if (!pl->cur_shards || json_array_size(pl->cur_shards) + (size_t)n > (size_t)pl->max_jobs ||
        json_array_size(pl->cur_links) + 1 > (size_t)pl->max_jobs ||
        pl->shard_bytes + sbytes > MATRIX_MAX_OUTPUT_BYTES ||
        pl->link_bytes + lbytes > MATRIX_MAX_OUTPUT_BYTES)
        new_dispatch(pl);
    json_array_extend(pl->cur_shards, shard_list);
    json_decref(shard_list);
    pl->shard_bytes += sbytes;
    pl->link_bytes += lbytes;
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

/* One package on one platform: every point of the grid it keeps becomes a cell once. */
struct pkg_walk {
    struct planner *pl;
    const struct package *p;
    const struct cells *c;
    const struct platform *plat;
    json_t *mine; /* the points made into cells: overlapping combinations, and points
                     that project onto one cell of a package with fewer axes */
    struct strbuf *err;
};

static int visit(struct pkg_walk *w, const char *const *v)
{
    const struct package *p = w->p;
    for (int k = 0; k < NDIMS; k++)
        if (v[k] && p->only[k].at && !in_list(&p->only[k], v[k]))
            return EXIT_OK;
    if (excluded(w->c, w->plat, v))
        return EXIT_OK;
    const char *pv[NDIMS];
    struct strbuf key = STRBUF_INIT;
    for (int k = 0; k < NDIMS; k++) {
        pv[k] = p->axes & (1u << k) ? v[k] : NULL;
        sb_addf(&key, "%s\x1f", pv[k] ? pv[k] : "");
    }
    int rc = EXIT_OK;
    if (!json_object_get(w->mine, sb_str(&key))) {
        json_object_set_new(w->mine, sb_str(&key), json_true());
        rc = add_cell(w->pl, p, w->plat, pv, w->err);
    }
    sb_release(&key);
    return rc;
}

/* The points of a product of lists (an empty list: the grid has no such dimension). */
static size_t product_size(const struct strlist *lists)
{
    size_t total = 1;
    for (int k = 0; k < NDIMS; k++) {
        size_t len = lists[k].n ? lists[k].n : 1;
        total = total > (size_t)MATRIX_MAX_CELLS * 1000 ? total : total * len;
    }
    return total;
}

static int walk_product(struct pkg_walk *w, const struct strlist *lists)
{
    size_t total = product_size(lists);
    int rc = EXIT_OK;
    for (size_t t = 0; t < total && !rc; t++) {
        size_t r = t;
        const char *v[NDIMS];
        for (int k = NDIMS - 1; k >= 0; k--) {
            size_t len = lists[k].n ? lists[k].n : 1;
            v[k] = lists[k].n ? lists[k].v[r % len] : NULL;
            r /= len;
        }
        rc = visit(w, v);
    }
    return rc;
}

/* The combinations that apply on a platform. */
static int combo_applies(const struct combo *cb, const struct platform *plat)
{
    return !cb->platforms.at || in_list(&cb->platforms, plat->name);
}

int matrix_plan(struct package *const *pkgs, size_t npkgs, const struct cells *c, long max_jobs,
                json_t **out, struct strbuf *err)
{
    struct planner pl = {json_array(), NULL, NULL, max_jobs, json_object(), 0, 0, 0};
    int rc = EXIT_OK;
    /* the points on each platform before any cell is made: the excludes may thin them,
     * but a grid this large is not a farm (and would take minutes to walk) */
    for (size_t f = 0; f < c->nplat && !rc; f++) {
        size_t total = 0;
        if (!c->combo)
            total = product_size(c->dim);
        for (size_t i = 0; c->combo && i < c->ncombo; i++)
            if (combo_applies(&c->combo[i], &c->plat[f]))
                total += product_size(c->combo[i].dim);
        if (total > (size_t)MATRIX_MAX_CELLS * 1000) {
            sb_reset(err);
            sb_addf(err,
                    "the cells file's grid on platform %s is %s of more than %d combinations "
                    "(python %zu x cuda %zu x torch %zu values): a farm that large is a mistake "
                    "(list the combinations, or split the grid)",
                    c->plat[f].name, c->combo ? "a union of products" : "a product",
                    MATRIX_MAX_CELLS * 1000, c->dim[0].n, c->dim[1].n, c->dim[2].n);
            rc = EXIT_USAGE;
        }
    }
    for (size_t pi = 0; pi < npkgs && !rc; pi++) {
        const struct package *p = pkgs[pi];
        for (size_t f = 0; f < c->nplat && !rc; f++) {
            const struct platform *plat = &c->plat[f];
            if (p->only_platforms.at && !in_list(&p->only_platforms, plat->name))
                continue;
            struct pkg_walk w = {&pl, p, c, plat, json_object(), err};
            if (!c->combo)
                rc = walk_product(&w, c->dim);
            for (size_t i = 0; c->combo && i < c->ncombo && !rc; i++)
                if (combo_applies(&c->combo[i], plat))
                    rc = walk_product(&w, c->combo[i].dim);
            json_decref(w.mine);
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
