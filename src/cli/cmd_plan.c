/* shardcc plan: assigns TU keys to shards from measured compile times (longest processing
 * time first) or, with no timings yet, by count (--sources), and predicts the makespans. */
#include "args.h"
#include "artifact.h"
#include "cli.h"
#include "job.h"
#include "journal.h"
#include "jrnl.h"
#include "merge.h"
#include "partition.h"
#include "path.h"
#include "plan.h"
#include "platform.h"
#include "split.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CMD "shardcc plan"

static const char usage[] =
    "usage: shardcc plan -n N [-o FILE] [--pick median|latest] [--per-cell] INPUT...\n"
    "       shardcc plan -n N [-o FILE] --sources [--root DIR] [INPUT...]\n"
    "\n"
    "Assigns the TUs of a build to N shards. From measured compile times: longest\n"
    "processing time first (the costliest TU to the least loaded shard; ties by key, then by\n"
    "the lower shard), then moves and swaps off the busiest shard while they lower it. A TU\n"
    "whose device items were measured (a split TU's, KEY#compute_90) is placed as its items\n"
    "when it costs more than a shard's share, and more such TUs while the makespan is over\n"
    "1.03 x the ideal. With --sources, when there are no timings yet: every source file\n"
    "under the root (and every key the inputs saw) counts 1, so the shards get equal\n"
    "counts and none is empty while there are at least N TUs.\n"
    "\n"
    "  INPUT           a shard artifact (*.tar.zst: its manifest's owned TUs and the split\n"
    "                  TUs' items it stored), a directory of them, a journal (journal.tsv:\n"
    "                  its cached TU records and item lines) or a cost table (lines\n"
    "                  KEY<TAB>SECONDS or KEY#ITEM<TAB>SECONDS; # comments). Pinned TUs and\n"
    "                  device-code outputs are left out: every shard makes them\n"
    "  -n N            the number of shards\n"
    "  -o FILE         write the plan there (atomically); default standard output\n"
    "  --pick P        a key measured several times: median (default) or latest (the last\n"
    "                  input that measured it)\n"
    "  --sources       count-balanced over the sources under --root (default .): .cu .cpp\n"
    "                  .cc .cxx .c files, not under .shardcc/, .git/ or build directories\n"
    "  --per-cell      a plan per cell, from artifacts only (their manifests name the cell):\n"
    "                  {\"format\": 1, \"cells\": {CELL: plan, ...}, \"default\": plan of\n"
    "                  every cell's times}; a job follows its cell's section, a cell it\n"
    "                  lacks the default\n"
    "\n"
    "The plan (JSON, the same bytes for the same input): format, n, assign (key -> shard),\n"
    "cost (key -> seconds), and the predicted makespans of the plan and of the hash\n"
    "partition against the ideal max(total / N, longest TU). Give it to every shard job\n"
    "(the plan option of shardcc shard and link); keys it lacks fall back to the hash\n"
    "partition.\n"
    "\n"
    "Exit status: 0 ok, 2 usage, 4 an unreadable input or output.\n";

struct measure {
    char *key;
    double *v; /* measurements, in input order */
    size_t n, alloc;
};

struct costs {
    struct measure *m;
    size_t n, alloc;
    json_t *index; /* key -> position in m: linear in the keys, not quadratic */
};

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

static void add_cost(struct costs *c, const char *key, double seconds)
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
    add_cost(c, key, seconds);
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

/* With --per-cell: each cell's costs (cell id -> position in cc), beside the pooled ones. */
struct cell_costs {
    json_t *index;
    char **cell;
    struct costs *c;
    size_t n, alloc;
};

static struct costs *cell_costs(struct cell_costs *cc, const char *cell)
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
    cc->cell[cc->n] = xstrdup(cell);
    return &cc->c[cc->n++];
}

static void costs_release(struct costs *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->m[i].key);
        free(c->m[i].v);
    }
    free(c->m);
    json_decref(c->index);
}

static int read_artifact(const char *path, struct costs *c, int sources, struct cell_costs *cc)
{
    json_t *m = NULL;
    struct strbuf err = STRBUF_INIT;
    int rc = artifact_read_manifest(path, &m, &err);
    if (rc) {
        report_error(CMD, "%s", sb_str(&err));
        sb_release(&err);
        return rc;
    }
    sb_release(&err);
    size_t i;
    json_t *t;
    struct costs *mine = NULL;
    if (cc) {
        const char *cell = json_string_value(json_object_get(m, "cell"));
        if (!cell) {
            report_error(CMD, "%s: the manifest names no cell (--per-cell)", path);
            json_decref(m);
            return EXIT_IO;
        }
        mine = cell_costs(cc, cell);
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
                    report_error(CMD,
                                 "%s: the manifest gives an item the compile time %g, not a "
                                 "number of seconds from 0 to %.0f (a damaged artifact?)",
                                 path, is, PLAN_SECONDS_MAX);
                    json_decref(m);
                    return EXIT_IO;
                }
                struct strbuf ik = STRBUF_INIT;
                sb_addf(&ik, "%s%c%s", key, SPLIT_ITEM_SEP, name);
                add_cost(c, sb_str(&ik), is);
                if (mine)
                    add_cost(mine, sb_str(&ik), is);
                sb_release(&ik);
            }
        }
        if (owned_ok) {
            if (!plan_seconds_ok(s)) {
                report_error(CMD,
                             "%s: the manifest gives a TU the compile time %g, not a number "
                             "of seconds from 0 to %.0f (a damaged artifact?)",
                             path, s, PLAN_SECONDS_MAX);
                json_decref(m);
                return EXIT_IO;
            }
            add_cost(c, key, s);
            if (mine)
                add_cost(mine, key, s);
        } else if (sources)
            add_cost(c, key, -1);
    }
    json_decref(m);
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
static char *plan_of(const struct costs *c, int n, int sources, int latest,
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

static int read_text(const char *path, struct costs *c, int sources)
{
    int fd, e = plat_open_regular(path, &fd); /* never a FIFO or a device */
    FILE *f = e ? NULL : fdopen(fd, "r");
    if (!f) {
        if (!e) {
            e = errno;
            plat_close(fd);
        }
        report_error(CMD, "cannot read \"%s\": %s", path, plat_strerror(e));
        return EXIT_IO;
    }
    char line[4096];
    int journal = fgets(line, sizeof line, f) && !strncmp(line, JOURNAL_MAGIC "\t", 5);
    if (journal) {
        fclose(f);
        struct jrnl j;
        int e = jrnl_load(path, &j);
        if (e) {
            report_error(CMD, "cannot read the journal \"%s\": %s", path, plat_strerror(e));
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
                    report_error(CMD,
                                 "%s: a record gives a TU the compile time %g, not a number "
                                 "of seconds from 0 to %.0f (a damaged journal?)",
                                 path, s, PLAN_SECONDS_MAX);
                    jrnl_release(&j);
                    return EXIT_IO;
                }
                add_cost(c, r->key, s);
            } else if (sources)
                add_cost(c, r->key, -1);
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
                report_error(CMD,
                             "%s: an item line gives %s#%s the compile time %g, not a number "
                             "of seconds from 0 to %.0f (a damaged journal?)",
                             path, r->key, it->name, (double)it->us / 1e6, PLAN_SECONDS_MAX);
                jrnl_release(&j);
                return EXIT_IO;
            }
            struct strbuf ik = STRBUF_INIT;
            sb_addf(&ik, "%s%c%s", r->key, SPLIT_ITEM_SEP, it->name);
            add_cost(c, sb_str(&ik), (double)it->us / 1e6);
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
        report_error(CMD, "%s", sb_str(&err));
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

static void walk_sources(const char *root, const char *rel, struct costs *c, int depth)
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
                walk_sources(root, sb_str(&r), c, depth + 1);
            else if (S_ISREG(st.st_mode) && is_source(names.v[i]))
                add_cost(c, sb_str(&r), -1);
        }
        sb_release(&p);
        sb_release(&r);
    }
    sv_clear(&names);
    sb_release(&dir);
}

int cmd_plan(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *n_s = NULL, *out = NULL, *pick_s = "median", *root = ".";
    int sources = 0, per_cell = 0;
    struct strvec inputs = STRVEC_INIT;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            sv_clear(&inputs);
            return EXIT_OK;
        }
        if (args_value(&a, "-n", &n_s) || args_value(&a, "-o", &out) ||
            args_value(&a, "--pick", &pick_s) || args_value(&a, "--root", &root) ||
            (args_flag(&a, "--sources") && (sources = 1)) ||
            (args_flag(&a, "--per-cell") && (per_cell = 1)))
            continue;
        if (argv[a.i][0] != '-' || !strcmp(argv[a.i], "-")) {
            sv_push(&inputs, argv[a.i++]);
            continue;
        }
        if (!a.error)
            args_unknown(&a);
    }
    int n = n_s ? parse_count(n_s) : 0, latest = !strcmp(pick_s, "latest");
    int rc = EXIT_USAGE;
    if (a.error) {
        /* reported */
    } else if (n < 1) {
        report_error(CMD, "-n N is required, 1 <= N <= 100000 (see --help)");
    } else if (!latest && strcmp(pick_s, "median")) {
        report_error(CMD, "--pick is median or latest, not \"%s\"", pick_s);
    } else if (!inputs.n && !sources) {
        report_error(CMD, "no input: give artifacts, journals or cost tables, or --sources");
    } else if (per_cell && sources) {
        report_error(CMD, "--per-cell plans from measured times: not with --sources");
    } else {
        rc = EXIT_OK;
    }
    struct costs c = {0};
    struct cell_costs cc = {0};
    for (size_t i = 0; i < inputs.n && !rc; i++) {
        const char *in = inputs.v[i];
        if (plat_is_dir(in)) { /* its artifacts, as merge lists them */
            struct merge_opts mo = {0};
            char *one[] = {(char *)in}, **files = NULL;
            size_t nf = 0;
            mo.inputs = one;
            mo.ninputs = 1;
            mo.cmd = CMD;
            rc = merge_expand_inputs(&mo, &files, &nf);
            for (size_t k = 0; k < nf; k++) {
                if (!rc)
                    rc = read_artifact(files[k], &c, sources, per_cell ? &cc : NULL);
                free(files[k]);
            }
            free(files);
        } else if (ends_with(in, ".tar.zst")) {
            rc = read_artifact(in, &c, sources, per_cell ? &cc : NULL);
        } else if (per_cell) {
            report_error(
                CMD, "--per-cell takes artifacts (their manifests name the cell), not \"%s\"", in);
            rc = EXIT_USAGE;
        } else {
            rc = read_text(in, &c, sources);
        }
    }
    if (!rc && sources) {
        if (!plat_is_dir(root)) {
            report_error(CMD, "--root \"%s\" is not a directory", root);
            rc = EXIT_USAGE;
        } else {
            walk_sources(root, "", &c, 0);
        }
    }
    if (!rc && c.n == 0) {
        report_error(CMD, "the inputs name no TU (no owned TU with a compile time)");
        rc = EXIT_USAGE;
    }
    char *text = NULL;
    struct plan_makespan ms;
    if (!rc)
        text = plan_of(&c, n, sources, latest, &ms);
    if (!rc && per_cell) { /* {"format":1,"cells":{...},"default":...}, keys sorted */
        json_t *doc = json_object(), *cells = json_object();
        json_object_set_new(doc, "format", json_integer(PLAN_FORMAT));
        json_object_set_new(doc, "default", json_loads(text, 0, NULL));
        for (size_t i = 0; i < cc.n; i++) {
            struct plan_makespan cms;
            char *one = plan_of(&cc.c[i], n, 0, latest, &cms);
            json_object_set_new(cells, cc.cell[i], json_loads(one, 0, NULL));
            free(one);
        }
        json_object_set_new(doc, "cells", cells);
        free(text);
        text = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(12));
        json_decref(doc);
        size_t len = strlen(text);
        text = xrealloc(text, len + 2);
        memcpy(text + len, "\n", 2);
    }
    if (!rc) {
        if (out) {
            int e = plat_write_atomic(out, text, strlen(text));
            if (e) {
                report_error(CMD, "cannot write \"%s\": %s", out, plat_strerror(e));
                rc = EXIT_IO;
            }
        } else if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
            report_error(CMD, "cannot write the plan: %s", strerror(errno));
            rc = EXIT_IO;
        }
    }
    if (!rc && per_cell)
        fprintf(stderr, CMD ": a plan per cell for %zu cells, and a default of their %zu TUs\n",
                cc.n, c.n);
    if (!rc)
        fprintf(stderr,
                CMD ": %s%zu TUs over %d shards (%s): makespan %.1f s, hash partition %.1f s, "
                    "ideal %.1f s\n",
                per_cell ? "the default: " : "", c.n, n,
                sources ? "count-balanced" : "longest first", ms.plan, ms.hash, ms.ideal);
    free(text);
    costs_release(&c);
    for (size_t i = 0; i < cc.n; i++) {
        costs_release(&cc.c[i]);
        free(cc.cell[i]);
    }
    free(cc.c);
    free(cc.cell);
    json_decref(cc.index);
    sv_clear(&inputs);
    return rc;
}
