/* jrnl: parsing journal lines (15 tab-separated fields, escaped text) and counting. */
#include "jrnl.h"
#include "job.h"
#include "journal.h"
#include "platform.h"
#include "strbuf.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define NFIELDS 15

/* An argument: "" stays empty. */
static char *unescape_arg(const char *s, size_t n)
{
    struct strbuf b = STRBUF_INIT;
    sb_add(&b, "", 0);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            char c = s[++i];
            sb_addc(&b, c == 't' ? '\t' : c == 'n' ? '\n' : c);
        } else {
            sb_addc(&b, s[i]);
        }
    }
    return sb_detach(&b);
}

/* A field: "-" is absent (NULL). */
static char *unescape(const char *s, size_t n)
{
    return n == 1 && s[0] == '-' ? NULL : unescape_arg(s, n);
}

static void copy_small(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* A field of decimal digits only, 1 to 19 of them, at most max. 0, or -1. */
static int field_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0 || n > 19)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_line(const char *line, size_t len, struct jrec *r)
{
    const char *f[NFIELDS];
    size_t fl[NFIELDS];
    size_t k = 0;
    const char *s = line, *end = line + len;
    while (k < NFIELDS) {
        const char *t = memchr(s, '\t', (size_t)(end - s));
        const char *e = t ? t : end;
        f[k] = s;
        fl[k] = (size_t)(e - s);
        k++;
        if (!t)
            break;
        s = t + 1;
    }
    if (k != NFIELDS || fl[0] != 4 || memcmp(f[0], JOURNAL_MAGIC, 4) != 0 ||
        memchr(f[NFIELDS - 1], '\t', fl[NFIELDS - 1]))
        return -1;
    memset(r, 0, sizeof *r);
    /* the numbers strictly (docs/journal.md: plain decimal): a line with another is not a
     * record, and is skipped like any other malformed line */
    uint64_t pid, shard, count, status, owner = 0;
    const char *slash = memchr(f[5], '/', fl[5]);
    if (field_u64(f[1], fl[1], UINT64_MAX / 2, &r->wall_us) ||
        field_u64(f[2], fl[2], INT32_MAX, &pid) || !slash ||
        field_u64(f[5], (size_t)(slash - f[5]), 100000, &shard) ||
        field_u64(slash + 1, fl[5] - (size_t)(slash - f[5]) - 1, 100000, &count) || shard > count ||
        field_u64(f[8], fl[8], 255, &status) ||
        field_u64(f[9], fl[9], UINT64_MAX / 2, &r->dur_us) ||
        !((fl[10] == 1 && f[10][0] == '-') || !field_u64(f[10], fl[10], 100000, &owner)))
        return -1;
    r->pid = (long)pid;
    r->shard = (int)shard;
    r->count = (int)count;
    r->status = (int)status;
    r->owner = (int)owner;
    copy_small(r->seat, sizeof r->seat, f[3], fl[3]);
    copy_small(r->phase, sizeof r->phase, f[4], fl[4]);
    copy_small(r->kind, sizeof r->kind, f[6], fl[6]);
    copy_small(r->action, sizeof r->action, f[7], fl[7]);
    r->key = unescape(f[11], fl[11]);
    r->output = unescape(f[12], fl[12]);
    r->outcome = unescape(f[13], fl[13]);
    r->result_key = unescape(f[14], fl[14]);
    return 0;
}

/* key TAB arg TAB arg ... */
static void parse_argv(const char *s, size_t len, struct jrnl *j)
{
    const char *end = s + len, *t = memchr(s, '\t', len);
    const char *kend = t ? t : end;
    if (j->na % 64 == 0)
        j->a = xrealloc(j->a, (j->na + 64) * sizeof *j->a);
    struct jargv *a = &j->a[j->na++];
    memset(a, 0, sizeof *a);
    a->key = unescape(s, (size_t)(kend - s));
    while (t) {
        s = t + 1;
        t = memchr(s, '\t', (size_t)(end - s));
        const char *e = t ? t : end;
        sv_push_owned(&a->argv, unescape_arg(s, (size_t)(e - s)));
    }
}

/* "KEY<TAB>item<TAB>NAME<TAB>REAL<TAB>OWNER<TAB>OUTCOME<TAB>US<TAB>ITEMKEY[<TAB>PARTS]" after
 * its record (journal.h); fields from the one after "item" */
static void parse_item(const char *s, size_t len, struct jrnl *j)
{
    const char *f[7] = {0}, *end = s + len;
    size_t fl[7] = {0}, k = 0;
    for (; k < 7; k++) {
        const char *t = memchr(s, '\t', (size_t)(end - s));
        f[k] = s;
        fl[k] = (size_t)((t ? t : end) - s);
        if (!t)
            break;
        s = t + 1;
    }
    uint64_t owner, us;
    if ((k != 5 && k != 6) || j->n == 0 || (k == 6 && memchr(f[6], '\t', fl[6])) ||
        field_u64(f[2], fl[2], 100000, &owner) || field_u64(f[4], fl[4], UINT64_MAX / 2, &us)) {
        j->skipped++;
        return;
    }
    if (j->nitems % 64 == 0)
        j->items = xrealloc(j->items, (j->nitems + 64) * sizeof *j->items);
    struct jitem *it = &j->items[j->nitems++];
    it->rec = j->n - 1;
    it->name = unescape(f[0], fl[0]);
    it->real = unescape(f[1], fl[1]);
    it->owner = (int)owner;
    it->outcome = unescape(f[3], fl[3]);
    it->us = us;
    it->key = unescape(f[5], fl[5]);
    it->parts = k == 6 ? unescape(f[6], fl[6]) : NULL;
}

/* "KEY<TAB>fallback<TAB>WHY" or a split TU's item line (journal.h) */
static void parse_pipe(const char *s, size_t len, struct jrnl *j)
{
    const char *end = s + len, *t1 = memchr(s, '\t', len);
    const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(end - t1 - 1)) : NULL;
    if (!t2) {
        j->skipped++;
        return;
    }
    if (t2 - t1 - 1 == 4 && !memcmp(t1 + 1, "item", 4)) {
        parse_item(t2 + 1, (size_t)(end - t2 - 1), j);
        return;
    }
    if (t2 - t1 - 1 == 6 && !memcmp(t1 + 1, "remote", 6)) {
        /* "KEY<TAB>remote<TAB>hit": the record before it was a hit from the remote */
        struct jrec *r = j->n ? &j->r[j->n - 1] : NULL;
        char *key = unescape(s, (size_t)(t1 - s));
        if (r && r->key && key && !strcmp(key, r->key))
            r->remote = 1;
        else
            j->skipped++;
        free(key);
        return;
    }
    if (t2 - t1 - 1 != 8 || memcmp(t1 + 1, "fallback", 8)) {
        j->skipped++; /* a kind of line this reader does not know */
        return;
    }
    if (j->fallbacks++ == 0) {
        j->fallback_key = unescape(s, (size_t)(t1 - s));
        j->fallback_why = unescape(t2 + 1, (size_t)(end - t2 - 1));
    }
}

void jrnl_warn_fallbacks(const struct jrnl *j, const char *cmd)
{
    if (j->fallbacks)
        report_warning(cmd,
                       "%zu TU compile%s ran as nvcc whole, with --objdir-as-tempdir, not as "
                       "nvcc's plan (reproducible, but not a plain nvcc's bytes up to temp "
                       "names), the first %s: %s",
                       j->fallbacks, j->fallbacks == 1 ? "" : "s", j->fallback_key,
                       j->fallback_why);
}

const struct strvec *jrnl_argv(const struct jrnl *j, const char *key)
{
    for (size_t i = j->na; i-- > 0;)
        if (j->a[i].key && !strcmp(j->a[i].key, key))
            return &j->a[i].argv;
    return NULL;
}

int jrnl_load(const char *path, struct jrnl *j)
{
    memset(j, 0, sizeof *j);
    struct strbuf text = STRBUF_INIT;
    if (!plat_file_exists(path))
        return 0;
    int e = plat_read_file(path, &text);
    if (e) {
        sb_release(&text);
        return e;
    }
    size_t alloc = 0;
    const char *s = sb_str(&text), *end = s + text.len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) { /* an unterminated last line is a torn write */
            j->skipped++;
            break;
        }
        if (j->n == alloc) {
            alloc = alloc ? alloc * 2 : 256;
            j->r = xrealloc(j->r, alloc * sizeof *j->r);
        }
        if ((size_t)(nl - s) > 5 && !memcmp(s, JOURNAL_ARGV_MAGIC "\t", 5)) {
            parse_argv(s + 5, (size_t)(nl - s) - 5, j);
        } else if ((size_t)(nl - s) > 5 && !memcmp(s, JOURNAL_PIPE_MAGIC "\t", 5)) {
            parse_pipe(s + 5, (size_t)(nl - s) - 5, j);
        } else if (parse_line(s, (size_t)(nl - s), &j->r[j->n]) == 0)
            j->n++;
        else if (nl > s)
            j->skipped++;
        s = nl + 1;
    }
    sb_release(&text);
    return 0;
}

void jrnl_release(struct jrnl *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free(j->r[i].key);
        free(j->r[i].output);
        free(j->r[i].outcome);
        free(j->r[i].result_key);
    }
    free(j->r);
    for (size_t i = 0; i < j->na; i++) {
        free(j->a[i].key);
        sv_clear(&j->a[i].argv);
    }
    free(j->a);
    free(j->fallback_key);
    free(j->fallback_why);
    for (size_t i = 0; i < j->nitems; i++) {
        free(j->items[i].name);
        free(j->items[i].real);
        free(j->items[i].outcome);
        free(j->items[i].key);
        free(j->items[i].parts);
    }
    free(j->items);
    memset(j, 0, sizeof *j);
}

int jrec_is_tu(const struct jrec *r)
{
    return strcmp(r->kind, "tu") == 0;
}

void jrnl_stats(const struct jrnl *j, struct jstats *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < j->n; i++) {
        const struct jrec *r = &j->r[i];
        if (!strcmp(r->kind, "probe")) {
            s->probes++;
        } else if (!strcmp(r->kind, "info")) {
            s->infos++;
        } else if (!strcmp(r->kind, "other")) {
            s->others++;
        } else if (!strcmp(r->kind, "host")) {
            s->host++;
        } else if (!strcmp(r->kind, "link")) {
            s->links++;
            s->placeholders += !strcmp(r->action, "placeholder");
            s->hollow += !strcmp(r->action, "hollow");
            s->refused += !strcmp(r->action, "refused");
        } else if (jrec_is_tu(r)) {
            s->tu++;
            s->split += !strcmp(r->action, "split");
            if (!strcmp(r->action, "stub") ||
                (!strcmp(r->action, "split") && !strcmp(r->phase, "shard") &&
                 r->owner != r->shard)) { /* a split TU this shard owned no item of */
                s->stubbed++;
            } else {
                s->cached++;
                s->pinned += !strcmp(r->action, "pin");
                s->device += !strcmp(r->action, "device");
                s->cached_seconds += (double)r->dur_us / 1e6;
                if (r->status != 0)
                    s->failed++;
                else if (r->outcome &&
                         (!strcmp(r->outcome, "hit") || !strcmp(r->outcome, "assembled"))) {
                    s->hits++;
                    s->remote_hits += r->remote;
                }
            }
        }
    }
}

struct span {
    uint64_t a, b;
};

static int span_cmp(const void *x, const void *y)
{
    const struct span *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* The length of the union of spans[0..n) within [lo, hi); sorts spans. */
static uint64_t union_len(struct span *sp, size_t n, uint64_t lo, uint64_t hi)
{
    qsort(sp, n, sizeof *sp, span_cmp);
    uint64_t total = 0, cur_a = 0, cur_b = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = sp[i].a < lo ? lo : sp[i].a, b = sp[i].b > hi ? hi : sp[i].b;
        if (b <= a)
            continue;
        if (open && a <= cur_b) {
            if (b > cur_b)
                cur_b = b;
            continue;
        }
        if (open)
            total += cur_b - cur_a;
        cur_a = a;
        cur_b = b;
        open = 1;
    }
    return total + (open ? cur_b - cur_a : 0);
}

void jrnl_time(const struct jrnl *j, uint64_t start_wall_us, uint64_t end_wall_us, struct jtime *t)
{
    memset(t, 0, sizeof *t);
    if (end_wall_us <= start_wall_us)
        return;
    t->wall = (double)(end_wall_us - start_wall_us) / 1e6;
    struct span *tu = xmalloc((j->n + 1) * sizeof *tu), *all = xmalloc((j->n + 1) * sizeof *all);
    size_t ntu = 0, nall = 0;
    uint64_t first = end_wall_us, first_link = end_wall_us;
    for (size_t i = 0; i < j->n; i++) {
        const struct jrec *r = &j->r[i];
        int is_tu = jrec_is_tu(r), is_link = !strcmp(r->kind, "link") || !strcmp(r->kind, "other");
        if (!is_tu && !is_link)
            continue;
        struct span s = {r->wall_us > r->dur_us ? r->wall_us - r->dur_us : 0, r->wall_us};
        all[nall++] = s;
        if (is_tu) {
            tu[ntu++] = s;
            if (s.a < first)
                first = s.a;
        } else if (s.a < first_link) {
            first_link = s.a;
        }
    }
    /* the build proper starts with its first compile (a configure step calls the compiler
     * too: its identification is an "other" call) */
    if (!ntu)
        first = first_link;
    if (first < start_wall_us)
        first = start_wall_us;
    uint64_t conf = first - start_wall_us;
    uint64_t comp = union_len(tu, ntu, first, end_wall_us);
    uint64_t both = union_len(all, nall, first, end_wall_us);
    t->configure = (double)conf / 1e6;
    t->compiles = (double)comp / 1e6;
    t->links = (double)(both - comp) / 1e6;
    t->other = t->wall - t->configure - t->compiles - t->links;
    if (t->other < 0)
        t->other = 0;
    free(tu);
    free(all);
}

void jtime_format(const struct jtime *t, struct strbuf *out)
{
    sb_addf(out, "configure %.1f s, compiles %.1f s, links %.1f s, other %.1f s", t->configure,
            t->compiles, t->links, t->other);
}

int jtime_of_summary(const struct json_t *sum, struct jtime *t)
{
    memset(t, 0, sizeof *t);
    json_t *o = json_object_get(sum, "time");
    if (!json_is_object(o))
        return -1;
    t->wall = json_number_value(json_object_get(sum, "wall_seconds"));
    t->configure = json_number_value(json_object_get(o, "configure"));
    t->compiles = json_number_value(json_object_get(o, "compiles"));
    t->links = json_number_value(json_object_get(o, "links"));
    t->other = json_number_value(json_object_get(o, "other"));
    /* another job's file: seconds from 0 to 10^7 each, or no time at all */
    const double parts[] = {t->wall, t->configure, t->compiles, t->links, t->other};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!(parts[i] >= 0 && parts[i] <= 1e7)) {
            memset(t, 0, sizeof *t);
            return -1;
        }
    return 0;
}

/* Why sum is not a summary.json that shardcc link writes (the member and what it should
 * be), or NULL: report prints nothing it has not checked (a hand-made or damaged summary
 * printed "every guard passed" with inf% and (null) before). */
const char *summary_invalid(const json_t *sum)
{
    static const char *const counts[] = {"present", "count", "tus", "hits", "stubs", "status"};
    if (!json_is_string(json_object_get(sum, "cell")))
        return "\"cell\" is not a string";
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        json_t *v = json_object_get(sum, counts[i]);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100000000)
            return "a count (present, count, tus, hits, stubs, status) is not a whole number "
                   "from 0 to 10^8";
    }
    json_t *dev = json_object_get(sum, "device");
    if (dev && (!json_is_integer(dev) || json_integer_value(dev) < 0 ||
                json_integer_value(dev) > json_integer_value(json_object_get(sum, "tus"))))
        return "\"device\" is not a whole number from 0 to \"tus\"";
    if (json_integer_value(json_object_get(sum, "hits")) >
        json_integer_value(json_object_get(sum, "tus")))
        return "\"hits\" exceeds \"tus\"";
    const char *rates[] = {"hit_rate", "min_hit_rate"};
    for (size_t i = 0; i < 2; i++) {
        double r = json_number_value(json_object_get(sum, rates[i]));
        if (!json_is_number(json_object_get(sum, rates[i])) || !(r >= 0 && r <= 1))
            return "a rate (hit_rate, min_hit_rate) is not a number from 0 to 1";
    }
    double w = json_number_value(json_object_get(sum, "wall_seconds"));
    if (!json_is_number(json_object_get(sum, "wall_seconds")) || !(w >= 0 && w <= 1e7))
        return "\"wall_seconds\" is not a number of seconds from 0 to 10^7";
    const json_t *misses = json_object_get(sum, "misses");
    if (!json_is_array(misses))
        return "\"misses\" is not an array";
    size_t i;
    json_t *x;
    json_array_foreach(misses, i, x)
    {
        if (!json_is_string(json_object_get(x, "key")) ||
            !json_is_string(json_object_get(x, "reason")))
            return "a miss lacks a string \"key\" or \"reason\"";
    }
    return NULL;
}

size_t jrnl_warn_outside_root(const struct jrnl *j, const char *cmd, const char *root)
{
    struct strvec seen = STRVEC_INIT;
    size_t rl = strlen(root);
    for (size_t i = 0; i < j->n; i++) {
        const struct jrec *r = &j->r[i];
        if (strcmp(r->kind, "probe") != 0 || strncmp(r->seat, "nvcc", 4) != 0 || !r->key ||
            r->key[0] != '/' || !r->output || sv_has(&seen, r->key))
            continue;
        /* a product of the build: its object in the build's tree (a relative path, or one
         * under the root), not a check's in a temporary directory of its own */
        if (r->output[0] == '/' && (strncmp(r->output, root, rl) != 0 || r->output[rl] != '/'))
            continue;
        sv_push(&seen, r->key);
    }
    if (seen.n)
        report_warning(cmd,
                       "%zu CUDA source%s outside the root \"%s\" %s compiled as nvcc's own, in "
                       "every job and not reproducibly (e.g. \"%s\"): %s objects will differ "
                       "from the unsharded build's. Give --root a directory that holds %s (the "
                       "same in every job)",
                       seen.n, seen.n == 1 ? "" : "s", root, seen.n == 1 ? "was" : "were",
                       seen.v[0], seen.n == 1 ? "its" : "their", seen.n == 1 ? "it" : "them");
    size_t n = seen.n;
    sv_clear(&seen);
    return n;
}
