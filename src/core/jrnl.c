/* jrnl: parsing journal lines (15 tab-separated fields, escaped text) and counting. */
#include "jrnl.h"
#include "journal.h"
#include "platform.h"
#include "strbuf.h"

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
    char num[32];
    copy_small(num, sizeof num, f[1], fl[1]);
    r->wall_us = strtoull(num, NULL, 10);
    copy_small(num, sizeof num, f[2], fl[2]);
    r->pid = strtol(num, NULL, 10);
    copy_small(r->seat, sizeof r->seat, f[3], fl[3]);
    copy_small(r->phase, sizeof r->phase, f[4], fl[4]);
    copy_small(num, sizeof num, f[5], fl[5]);
    char *slash = strchr(num, '/');
    r->shard = atoi(num);
    r->count = slash ? atoi(slash + 1) : 0;
    copy_small(r->kind, sizeof r->kind, f[6], fl[6]);
    copy_small(r->action, sizeof r->action, f[7], fl[7]);
    copy_small(num, sizeof num, f[8], fl[8]);
    r->status = atoi(num);
    copy_small(num, sizeof num, f[9], fl[9]);
    r->dur_us = strtoull(num, NULL, 10);
    copy_small(num, sizeof num, f[10], fl[10]);
    r->owner = num[0] == '-' ? 0 : atoi(num);
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
        } else if (!strcmp(r->kind, "link")) {
            s->links++;
            s->placeholders += !strcmp(r->action, "placeholder");
            s->hollow += !strcmp(r->action, "hollow");
            s->refused += !strcmp(r->action, "refused");
        } else if (jrec_is_tu(r)) {
            s->tu++;
            if (!strcmp(r->action, "stub")) {
                s->stubbed++;
            } else {
                s->cached++;
                s->pinned += !strcmp(r->action, "pin");
                s->cached_seconds += (double)r->dur_us / 1e6;
                if (r->status != 0)
                    s->failed++;
                else if (r->outcome && !strcmp(r->outcome, "hit"))
                    s->hits++;
            }
        }
    }
}
