/* plan_costs: the compile times a plan is made from, and the plan (plan_costs.h). */
#include "plan_costs.h"
#include "artifact.h"
#include "job.h"
#include "merge.h"
#include "journal.h"
#include "jrnl.h"
#include "path.h"
#include "platform.h"
#include "split.h"
#include "strbuf.h"
#include "strvec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The position of key in a table indexed by *index (made on first use); a key not there
 * yet gets position next, and *added is set. */
static size_t index_slot(json_t **index, const char *key, size_t next, int *added)
{
    if (!*index)
        *index = json_object();
    json_t *at = json_object_get(*index, key);
    *added = !at;
    if (at)
        return (size_t)json_integer_value(at);
    json_object_set_new(*index, key, json_integer((json_int_t)next));
    return next;
}

static struct measure *find_or_add(struct costs *c, const char *key)
{
    int added;
    size_t at = index_slot(&c->index, key, c->n, &added);
    if (!added)
        return &c->m[at];
    if (c->n == c->alloc)
        c->m = xrealloc(c->m, (c->alloc = c->alloc ? c->alloc * 2 : 64) * sizeof *c->m);
    struct measure *m = &c->m[c->n++];
    memset(m, 0, sizeof *m);
    m->key = xstrdup(key);
    return m;
}

void plan_costs_add(struct costs *c, const char *key, double seconds)
{
    struct measure *m = find_or_add(c, key);
    if (seconds < 0)
        return; /* a key seen without a timing (--sources) */
    if (m->n == m->alloc)
        m->v = xrealloc(m->v, (m->alloc = m->alloc ? m->alloc * 2 : 4) * sizeof *m->v);
    m->v[m->n++] = seconds;
}

static void add_cost_cb(void *c, const char *key, double seconds)
{
    plan_costs_add(c, key, seconds);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pick(const struct measure *m, int latest)
{
    if (!m->n)
        return 0;
    if (latest)
        return m->v[m->n - 1];
    double *s = xmalloc(m->n * sizeof *s);
    memcpy(s, m->v, m->n * sizeof *s);
    qsort(s, m->n, sizeof *s, cmp_double);
    double r = m->n % 2 ? s[m->n / 2] : (s[m->n / 2 - 1] + s[m->n / 2]) / 2;
    free(s);
    return r;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

struct costs *plan_cell_costs(struct cell_costs *cc, const char *cell)
{
    int added;
    size_t at = index_slot(&cc->index, cell, cc->n, &added);
    if (!added)
        return &cc->c[at];
    if (cc->n == cc->alloc) {
        cc->alloc = cc->alloc ? cc->alloc * 2 : 16;
        cc->c = xrealloc(cc->c, cc->alloc * sizeof *cc->c);
        cc->cell = xrealloc(cc->cell, cc->alloc * sizeof *cc->cell);
    }
    memset(&cc->c[cc->n], 0, sizeof *cc->c);
    cc->c[cc->n].cmd = "shardcc plan";
    cc->cell[cc->n] = xstrdup(cell);
    return &cc->c[cc->n++];
}

void plan_costs_release(struct costs *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->m[i].key);
        free(c->m[i].v);
    }
    free(c->m);
    json_decref(c->index);
}

int plan_costs_read_artifact(const char *path, struct costs *c, int sources, struct cell_costs *cc)
{
    json_t *m = NULL;
    struct strbuf err = STRBUF_INIT;
    int rc = artifact_read_manifest(path, &m, &err);
    if (rc) {
        report_error(c->cmd, "%s", sb_str(&err));
        sb_release(&err);
        return rc;
    }
    sb_release(&err);
    rc = plan_costs_read_manifest(m, path, c, sources, cc);
    json_decref(m);
    return rc;
}

int plan_costs_read_manifest(json_t *m, const char *path, struct costs *c, int sources,
                             struct cell_costs *cc)
{
    size_t i;
    json_t *t;
    struct costs *mine = NULL;
    if (cc) {
        const char *cell = json_string_value(json_object_get(m, "cell"));
        if (!cell) {
            report_error(c->cmd, "%s: the manifest names no cell (--per-cell)", path);
            return EXIT_IO;
        }
        mine = plan_cell_costs(cc, cell);
    }
    json_array_foreach(json_object_get(m, "tus"), i, t)
    {
        const char *key = json_string_value(json_object_get(t, "key"));
        const char *d = json_string_value(json_object_get(t, "decision"));
        if (!key)
            continue;
        /* pinned TUs and device-code outputs are made in every shard, whatever the plan
         * says: placing their cost on one shard would unbalance the rest */
        if (json_is_true(json_object_get(t, "pinned")) ||
            json_is_true(json_object_get(t, "device")))
            continue;
        double s = json_number_value(json_object_get(t, "seconds"));
        int owned_ok =
            d && !strcmp(d, "owned") && json_integer_value(json_object_get(t, "status")) == 0;
        /* the device items this shard compiled: a split TU's (stored), or those of a TU it
         * compiled whole, timed in that compile (whole), which a plan may split */
        if ((d && !strcmp(d, "split")) || owned_ok) {
            size_t q;
            json_t *it;
            json_int_t shard = json_integer_value(json_object_get(m, "shard"));
            json_array_foreach(json_object_get(t, "items"), q, it)
            {
                const char *name = json_string_value(json_object_get(it, "item"));
                const char *out = json_string_value(json_object_get(it, "outcome"));
                double is = json_number_value(json_object_get(it, "seconds"));
                if (sources || !name || !out || strcmp(out, owned_ok ? "whole" : "stored") ||
                    json_integer_value(json_object_get(it, "owner")) != shard)
                    continue;
                if (!plan_seconds_ok(is)) {
                    report_error(c->cmd,
                                 "%s: the manifest gives an item the compile time %g, not a "
                                 "number of seconds from 0 to %.0f (a damaged artifact?)",
                                 path, is, PLAN_SECONDS_MAX);
                    return EXIT_IO;
                }
                struct strbuf ik = STRBUF_INIT;
                sb_addf(&ik, "%s%c%s", key, SPLIT_ITEM_SEP, name);
                plan_costs_add(c, sb_str(&ik), is);
                if (mine)
                    plan_costs_add(mine, sb_str(&ik), is);
                sb_release(&ik);
            }
        }
        if (owned_ok) {
            if (!plan_seconds_ok(s)) {
                report_error(c->cmd,
                             "%s: the manifest gives a TU the compile time %g, not a number "
                             "of seconds from 0 to %.0f (a damaged artifact?)",
                             path, s, PLAN_SECONDS_MAX);
                return EXIT_IO;
            }
            plan_costs_add(c, key, s);
            if (mine)
                plan_costs_add(mine, key, s);
        } else if (sources)
            plan_costs_add(c, key, -1);
    }
    return EXIT_OK;
}

/* The length of key's TU part: up to its SPLIT_ITEM_SEP ("src/k.cu#compute_90": an item of
 * a split TU), or the whole key. */
static size_t tu_part(const char *key)
{
    const char *h = strchr(key, SPLIT_ITEM_SEP);
    return h ? (size_t)(h - key) : strlen(key);
}

/* Measured costs arranged by TU: each TU's cost (its own measurement, else the sum of its
 * items'), and the TUs whose device items (KEY#ITEM) were measured, costliest first. */
/* A TU whose device items were measured, and its cost. */
struct cand {
    const char *tu;
    double cost;
};

struct tu_costs {
    json_t *sum;       /* TU -> the sum of its items' costs */
    double *cost;      /* by position in c->m: a TU's cost (unused for items) */
    struct cand *cand; /* TUs with items, costliest first (ties by name) */
    size_t ncand;
    double total;
};

static int by_cost_desc(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    return x->cost > y->cost ? -1 : x->cost < y->cost ? 1 : strcmp(x->tu, y->tu);
}

static void tu_costs_make(const struct costs *c, int sources, int latest, struct tu_costs *t)
{
    memset(t, 0, sizeof *t);
    t->sum = json_object();
    t->cost = xmalloc((c->n ? c->n : 1) * sizeof *t->cost);
    for (size_t i = 0; i < c->n && !sources; i++) {
        const char *key = c->m[i].key;
        size_t tl = tu_part(key);
        if (!key[tl])
            continue;
        char *tu = xstrndup(key, tl);
        json_t *v = json_object_get(t->sum, tu);
        json_object_set_new(t->sum, tu,
                            json_real((v ? json_real_value(v) : 0) + pick(&c->m[i], latest)));
        free(tu);
    }
    for (size_t i = 0; i < c->n; i++) {
        const char *key = c->m[i].key;
        if (key[tu_part(key)])
            continue;
        json_t *v = json_object_get(t->sum, key);
        t->cost[i] = sources     ? 1.0
                     : c->m[i].n ? pick(&c->m[i], latest)
                     : v         ? json_real_value(v)
                                 : 0;
        t->total += t->cost[i];
    }
    size_t n = json_object_size(t->sum);
    t->cand = xmalloc((n ? n : 1) * sizeof *t->cand);
    const char *tu;
    json_t *v;
    json_object_foreach(t->sum, tu, v)
    {
        json_t *at = json_object_get(c->index, tu);
        struct cand *k = &t->cand[t->ncand++];
        k->tu = tu;
        k->cost = at && c->m[json_integer_value(at)].n ? pick(&c->m[json_integer_value(at)], latest)
                                                       : json_real_value(v);
        if (!at)
            t->total += k->cost; /* a TU known from its items alone */
    }
    qsort(t->cand, t->ncand, sizeof *t->cand, by_cost_desc);
}

static void tu_costs_release(struct tu_costs *t)
{
    json_decref(t->sum);
    free(t->cost);
    free(t->cand);
}

/* What the plan places: every TU whole, but for the TUs in split, their measured items
 * (each to a shard of its own). A TU known from its items alone and not split is placed
 * whole at their sum (its key in names). With --sources every key counts 1, no items. */
static struct plan_item *plan_entries(const struct costs *c, const struct tu_costs *t,
                                      json_t *split, int sources, int latest, struct strvec *names,
                                      size_t *count)
{
    struct plan_item *items = xmalloc((c->n ? c->n : 1) * sizeof *items);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const char *key = c->m[i].key;
        size_t tl = tu_part(key);
        if (!key[tl]) { /* a TU: whole unless its items are placed */
            if (!json_object_get(split, key)) {
                items[k].key = key;
                items[k++].cost = t->cost[i];
            }
            continue;
        }
        if (sources)
            continue;
        char *tu = xstrndup(key, tl);
        int placed = json_object_get(split, tu) != NULL;
        free(tu);
        if (placed) {
            items[k].key = key;
            items[k++].cost = pick(&c->m[i], latest);
        }
    }
    for (size_t i = 0; i < t->ncand; i++)
        if (!json_object_get(c->index, t->cand[i].tu) && !json_object_get(split, t->cand[i].tu)) {
            sv_push(names, t->cand[i].tu);
            items[k].key = names->v[names->n - 1];
            items[k++].cost = t->cand[i].cost;
        }
    *count = k;
    return items;
}

/* The plan of one set of costs, as JSON text (see plan_build). A TU whose device items were
 * measured (a split TU's: KEY#ITEM) is placed as its items when it costs more than one
 * shard's share (the total over n); and while the plan's makespan is more than
 * PLAN_SPLIT_GOAL times the ideal, more of those TUs, the costliest first (1, 2, 4... more
 * at a time), until it is not or every one is split. */
#define PLAN_SPLIT_GOAL 1.03
char *plan_costs_plan(const struct costs *c, int n, int sources, int latest,
                      struct plan_makespan *ms)
{
    struct tu_costs t;
    tu_costs_make(c, sources, latest, &t);
    json_t *split = json_object();
    double share = t.total / (n > 0 ? n : 1);
    size_t next = 0;
    while (next < t.ncand && t.cand[next].cost > share)
        json_object_set_new(split, t.cand[next++].tu, json_true());
    char *text = NULL;
    for (size_t step = 1;; step *= 2) {
        size_t k;
        struct strvec names = STRVEC_INIT;
        struct plan_item *items = plan_entries(c, &t, split, sources, latest, &names, &k);
        free(text);
        text = plan_build(items, k, n, sources ? "sources" : "lpt", ms);
        free(items);
        sv_clear(&names);
        if (sources || next >= t.ncand || ms->plan <= PLAN_SPLIT_GOAL * ms->ideal)
            break;
        for (size_t q = 0; q < step && next < t.ncand; q++)
            json_object_set_new(split, t.cand[next++].tu, json_true());
    }
    json_decref(split);
    tu_costs_release(&t);
    return text;
}

int plan_costs_read_text(const char *path, struct costs *c, int sources)
{
    int fd, e = plat_open_regular(path, &fd); /* never a FIFO or a device */
    FILE *f = e ? NULL : fdopen(fd, "r");
    if (!f) {
        if (!e) {
            e = errno;
            plat_close(fd);
        }
        report_error(c->cmd, "cannot read \"%s\": %s", path, plat_strerror(e));
        return EXIT_IO;
    }
    char line[4096];
    int journal = fgets(line, sizeof line, f) && !strncmp(line, JOURNAL_MAGIC "\t", 5);
    if (journal) {
        fclose(f);
        struct jrnl j;
        int e = jrnl_load(path, &j);
        if (e) {
            report_error(c->cmd, "cannot read the journal \"%s\": %s", path, plat_strerror(e));
            return EXIT_IO;
        }
        for (size_t k = 0; k < j.n; k++) {
            const struct jrec *r = &j.r[k];
            if (!jrec_is_tu(r) || !r->key || !strcmp(r->action, "pin") ||
                !strcmp(r->action, "device")) /* made in every shard: not the plan's */
                continue;
            double s = (double)r->dur_us / 1e6;
            if (!strcmp(r->action, "cache") && r->status == 0 &&
                (!r->outcome || strcmp(r->outcome, "hit"))) { /* a compile, not a replay */
                if (!plan_seconds_ok(s)) {
                    report_error(c->cmd,
                                 "%s: a record gives a TU the compile time %g, not a number "
                                 "of seconds from 0 to %.0f (a damaged journal?)",
                                 path, s, PLAN_SECONDS_MAX);
                    jrnl_release(&j);
                    return EXIT_IO;
                }
                plan_costs_add(c, r->key, s);
            } else if (sources)
                plan_costs_add(c, r->key, -1);
        }
        /* device items: a split TU's, compiled in a shard (stored) or in the link job (miss),
         * and a whole compile's (whole: measured in the TU's compile) */
        for (size_t k = 0; k < j.nitems && !sources; k++) {
            const struct jitem *it = &j.items[k];
            const struct jrec *r = &j.r[it->rec];
            if (!r->key || (strcmp(it->outcome, "stored") && strcmp(it->outcome, "miss") &&
                            strcmp(it->outcome, "whole")))
                continue;
            if (!plan_seconds_ok((double)it->us / 1e6)) {
                report_error(c->cmd,
                             "%s: an item line gives %s#%s the compile time %g, not a number "
                             "of seconds from 0 to %.0f (a damaged journal?)",
                             path, r->key, it->name, (double)it->us / 1e6, PLAN_SECONDS_MAX);
                jrnl_release(&j);
                return EXIT_IO;
            }
            struct strbuf ik = STRBUF_INIT;
            sb_addf(&ik, "%s%c%s", r->key, SPLIT_ITEM_SEP, it->name);
            plan_costs_add(c, sb_str(&ik), (double)it->us / 1e6);
            sb_release(&ik);
        }
        jrnl_release(&j);
        return EXIT_OK;
    }
    /* a cost table */
    rewind(f);
    struct strbuf err = STRBUF_INIT;
    int rc = plan_read_costs(f, path, add_cost_cb, c, &err);
    if (rc)
        report_error(c->cmd, "%s", sb_str(&err));
    sb_release(&err);
    fclose(f);
    return rc;
}

static int is_source(const char *name)
{
    static const char *const ext[] = {".cu", ".cpp", ".cc", ".cxx", ".c"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (ends_with(name, ext[i]))
            return 1;
    return 0;
}

static int skip_dir(const char *name)
{
    return name[0] == '.' || !strcmp(name, "build") || !strncmp(name, "build-", 6) ||
           !strcmp(name, "dist") || !strcmp(name, "__pycache__") || ends_with(name, ".egg-info");
}

void plan_costs_walk_sources(const char *root, const char *rel, struct costs *c, int depth)
{
    struct strbuf dir = STRBUF_INIT;
    sb_addf(&dir, "%s%s%s", root, *rel ? "/" : "", rel);
    struct strvec names = STRVEC_INIT;
    if (depth < 32)
        plat_list_dir(sb_str(&dir), &names); /* an unreadable directory holds no sources */
    for (size_t i = 0; i < names.n; i++) {
        struct strbuf p = STRBUF_INIT, r = STRBUF_INIT;
        sb_addf(&r, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
        sb_addf(&p, "%s/%s", root, sb_str(&r));
        struct stat st;
        if (lstat(sb_str(&p), &st) == 0) {
            if (S_ISDIR(st.st_mode) && !skip_dir(names.v[i]))
                plan_costs_walk_sources(root, sb_str(&r), c, depth + 1);
            else if (S_ISREG(st.st_mode) && is_source(names.v[i]))
                plan_costs_add(c, sb_str(&r), -1);
        }
        sb_release(&p);
        sb_release(&r);
    }
    sv_clear(&names);
    sb_release(&dir);
}

int plan_costs_read_input(const char *in, struct costs *c, int sources, struct cell_costs *cc)
{
    int rc = EXIT_OK;
    if (plat_is_dir(in)) { /* its artifacts, as merge lists them */
        struct merge_opts mo = {0};
        char *one[] = {(char *)in}, **files = NULL;
        size_t nf = 0;
        mo.inputs = one;
        mo.ninputs = 1;
        mo.cmd = c->cmd;
        rc = merge_expand_inputs(&mo, &files, &nf);
        for (size_t k = 0; k < nf; k++) {
            if (!rc)
                rc = plan_costs_read_artifact(files[k], c, sources, cc);
            free(files[k]);
        }
        free(files);
    } else if (ends_with(in, ".tar.zst")) {
        rc = plan_costs_read_artifact(in, c, sources, cc);
    } else if (cc) {
        report_error(c->cmd,
                     "--per-cell takes artifacts (their manifests name the cell), not \"%s\"", in);
        rc = EXIT_USAGE;
    } else {
        rc = plan_costs_read_text(in, c, sources);
    }
    return rc;
}
