/* ydoc: YAML files as position-carrying trees (see ydoc.h). */
#include "ydoc.h"
#include "platform.h"
#include "exit_status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YDOC_MAX_DEPTH 64
#define YDOC_MAX_NODES 2000000 /* aliases can multiply a small file; stop a "billion laughs" */
#define YDOC_MAX_BYTES (64u << 20)

struct conv {
    yaml_document_t *doc;
    size_t nodes;
    int too_deep, too_big;
    const yaml_node_t *bad_merge; /* a "<<" whose value is not a mapping or list of them */
};

static void free_node(struct ynode *n);
static struct ynode *convert(struct conv *c, yaml_node_t *yn, int depth);

/* A YAML merge key: "<<" written plain (libyaml leaves merges to the application). */
static int is_merge_key(const yaml_node_t *k)
{
    return k && k->type == YAML_SCALAR_NODE && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           k->data.scalar.length == 2 && !memcmp(k->data.scalar.value, "<<", 2);
}

static int has_key(const struct ynode *map, const char *key)
{
    for (size_t i = 0; i < map->n; i++)
        if (map->keys[i]->kind == Y_SCALAR && !strcmp(map->keys[i]->text, key))
            return 1;
    return 0;
}

/* Adds to map the pairs of the mapping src whose keys map does not have yet: the keys
 * written in a mapping win over merged ones, and an earlier merged mapping over a later
 * one. The pairs keep the positions where src wrote them. */
static void merge_from(struct conv *c, struct ynode *map, yaml_node_t *src, int depth)
{
    if (src->type != YAML_MAPPING_NODE) {
        if (!c->bad_merge)
            c->bad_merge = src;
        return;
    }
    struct ynode *m = convert(c, src, depth + 1);
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        if (m->keys[i]->kind != Y_SCALAR || has_key(map, m->keys[i]->text))
            continue;
        map->keys = xrealloc(map->keys, (map->n + 1) * sizeof *map->keys);
        map->items = xrealloc(map->items, (map->n + 1) * sizeof *map->items);
        map->keys[map->n] = m->keys[i];
        map->items[map->n] = m->items[i];
        map->n++;
        m->keys[i] = m->items[i] = NULL;
    }
    free_node(m);
}

static struct ynode *convert(struct conv *c, yaml_node_t *yn, int depth)
{
    if (c->too_deep || c->too_big) /* the tree is dropped: stop (a recursive alias fans out) */
        return NULL;
    if (depth > YDOC_MAX_DEPTH) {
        c->too_deep = 1;
        return NULL;
    }
    if (++c->nodes > YDOC_MAX_NODES) {
        c->too_big = 1;
        return NULL;
    }
    struct ynode *n = xmalloc(sizeof *n);
    memset(n, 0, sizeof *n);
    n->line = (int)yn->start_mark.line + 1;
    n->col = (int)yn->start_mark.column + 1;
    if (yn->type == YAML_SCALAR_NODE) {
        n->kind = Y_SCALAR;
        n->text = xstrndup((const char *)yn->data.scalar.value, yn->data.scalar.length);
        n->plain = yn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    } else if (yn->type == YAML_SEQUENCE_NODE) {
        n->kind = Y_SEQ;
        size_t cnt = (size_t)(yn->data.sequence.items.top - yn->data.sequence.items.start);
        n->items = xmalloc((cnt ? cnt : 1) * sizeof *n->items);
        for (size_t i = 0; i < cnt; i++) {
            yaml_node_t *it = yaml_document_get_node(c->doc, yn->data.sequence.items.start[i]);
            n->items[n->n] = it ? convert(c, it, depth + 1) : NULL;
            if (!n->items[n->n])
                break;
            n->n++;
        }
    } else {
        n->kind = Y_MAP;
        size_t cnt = (size_t)(yn->data.mapping.pairs.top - yn->data.mapping.pairs.start);
        n->items = xmalloc((cnt ? cnt : 1) * sizeof *n->items);
        n->keys = xmalloc((cnt ? cnt : 1) * sizeof *n->keys);
        for (size_t i = 0; i < cnt; i++) {
            yaml_node_pair_t *p = &yn->data.mapping.pairs.start[i];
            yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
            yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
            if (is_merge_key(k))
                continue; /* below, once every key written here is in */
            struct ynode *kn = k ? convert(c, k, depth + 1) : NULL;
            struct ynode *vn = kn && v ? convert(c, v, depth + 1) : NULL;
            if (!kn || !vn) {
                free_node(kn);
                break;
            }
            n->keys[n->n] = kn;
            n->items[n->n] = vn;
            n->n++;
        }
        /* "<<: *defaults" or "<<: [*a, *b]" */
        for (size_t i = 0; i < cnt && !c->too_deep && !c->too_big; i++) {
            yaml_node_pair_t *p = &yn->data.mapping.pairs.start[i];
            yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
            if (!is_merge_key(yaml_document_get_node(c->doc, p->key)) || !v)
                continue;
            if (v->type == YAML_SEQUENCE_NODE) {
                for (yaml_node_item_t *it = v->data.sequence.items.start;
                     it < v->data.sequence.items.top; it++) {
                    yaml_node_t *m = yaml_document_get_node(c->doc, *it);
                    if (m)
                        merge_from(c, n, m, depth + 1);
                }
            } else {
                merge_from(c, n, v, depth);
            }
        }
    }
    return n;
}

static void free_node(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        free_node(n->items[i]);
        if (n->keys)
            free_node(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    free(n->text);
    free(n);
}

int yerr(const struct ydoc *d, const struct ynode *n, struct strbuf *err, const char *fmt, ...)
{
    va_list ap;
    sb_reset(err);
    if (n)
        sb_addf(err, "%s:%d:%d: ", d->file, n->line, n->col);
    else
        sb_addf(err, "%s: ", d->file);
    va_start(ap, fmt);
    sb_vaddf(err, fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

/* Two equal keys in one mapping: YAML forbids it and libyaml does not check. Each mapping
 * of the file is checked once, on libyaml's nodes in the order they start (the order of the
 * tree's pre-order walk), not once per alias that copies it: a small file whose aliases
 * repeat a mapping of many keys thousands of times costs no more than the file itself. The
 * first duplicate, or NULL; *line and *col are 1-based. */
static const yaml_node_t *duplicate_key(yaml_document_t *doc, int *line, int *col)
{
    for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
        if (n->type != YAML_MAPPING_NODE)
            continue;
        yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
        size_t cnt = (size_t)(n->data.mapping.pairs.top - pairs);
        for (size_t i = 1; i < cnt; i++) {
            yaml_node_t *ki = yaml_document_get_node(doc, pairs[i].key);
            if (!ki || ki->type != YAML_SCALAR_NODE)
                continue;
            for (size_t k = 0; k < i; k++) {
                yaml_node_t *kk = yaml_document_get_node(doc, pairs[k].key);
                if (kk && kk->type == YAML_SCALAR_NODE &&
                    kk->data.scalar.length == ki->data.scalar.length &&
                    !memcmp(kk->data.scalar.value, ki->data.scalar.value, ki->data.scalar.length)) {
                    *line = (int)ki->start_mark.line + 1;
                    *col = (int)ki->start_mark.column + 1;
                    return ki;
                }
            }
        }
    }
    return NULL;
}

/* The nesting depth first, event by event, stopping at the limit: libyaml's composer is
 * quadratic in the depth of flow collections ([[[[...), so a deep file is refused before it
 * is composed, in time linear in what was read. 0, or the error (reported into err). */
static int check_depth(const struct strbuf *text, struct ydoc *d, struct strbuf *err)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)(text->buf ? text->buf : ""),
                                 text->len);
    int depth = 0, done = 0, deep = 0;
    while (!done && !deep) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break; /* the loader reports the syntax error */
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
            if (++depth > YDOC_MAX_DEPTH) {
                struct ynode at = {.line = (int)ev.start_mark.line + 1,
                                   .col = (int)ev.start_mark.column + 1};
                deep = yerr(d, &at, err, "nested deeper than %d levels", YDOC_MAX_DEPTH);
            }
        } else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
            depth--;
        } else if (ev.type == YAML_STREAM_END_EVENT) {
            done = 1;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return deep;
}

/* The document's tree into d->root, refused for a merge key that takes no mapping, aliases
 * that expand too deep or too far, and a key twice in one mapping. */
static int convert_document(yaml_document_t *doc, struct ydoc *d, struct strbuf *err)
{
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root)
        return EXIT_OK;
    struct conv c = {doc, 0, 0, 0, NULL};
    d->root = convert(&c, root, 0);
    int rc = EXIT_OK;
    if (c.bad_merge && !c.too_deep && !c.too_big) {
        struct ynode at = {.line = (int)c.bad_merge->start_mark.line + 1,
                           .col = (int)c.bad_merge->start_mark.column + 1};
        rc = yerr(d, &at, err,
                  "a merge key \"<<\" takes a mapping or a list of mappings (an alias "
                  "such as *defaults), not %s",
                  c.bad_merge->type == YAML_SCALAR_NODE ? "a scalar" : "a list");
    } else if (c.too_deep || c.too_big) {
        rc = yerr(d, NULL, err, "%s",
                  c.too_deep ? "nested deeper than 64 levels (a recursive alias?)"
                             : "more than 2000000 nodes once aliases are expanded");
    } else {
        struct ynode at = {0};
        const yaml_node_t *dup = duplicate_key(doc, &at.line, &at.col);
        if (dup)
            rc = yerr(d, &at, err, "key \"%.*s\" appears twice in one mapping",
                      (int)dup->data.scalar.length, (const char *)dup->data.scalar.value);
    }
    if (rc && (c.bad_merge || c.too_deep || c.too_big)) {
        free_node(d->root);
        d->root = NULL;
    }
    return rc;
}

/* One document per file: a second one would be ignored without a word. */
static int check_no_second(yaml_parser_t *p, struct ydoc *d, struct strbuf *err)
{
    yaml_document_t next;
    if (!yaml_parser_load(p, &next)) {
        struct ynode at = {.line = (int)p->problem_mark.line + 1,
                           .col = (int)p->problem_mark.column + 1};
        return yerr(d, &at, err, "YAML syntax error: %s", p->problem ? p->problem : "unknown");
    }
    yaml_node_t *second = yaml_document_get_root_node(&next);
    int rc = EXIT_OK;
    if (second) {
        struct ynode at = {.line = (int)second->start_mark.line + 1,
                           .col = (int)second->start_mark.column + 1};
        rc = yerr(d, &at, err,
                  "a second YAML document: a file holds one (the rest would be ignored)");
    }
    yaml_document_delete(&next);
    return rc;
}

int ydoc_load(const char *path, struct ydoc *d, struct strbuf *err)
{
    memset(d, 0, sizeof *d);
    d->file = xstrdup(path);
    struct strbuf text = STRBUF_INIT; /* a regular file only, at most YDOC_MAX_BYTES */
    int e = plat_read_file_max(path, YDOC_MAX_BYTES, &text);
    if (e) {
        sb_reset(err);
        sb_addf(err, "cannot read \"%s\": %s", path,
                e == EFBIG ? "larger than 64 MiB" : plat_strerror(e));
        sb_release(&text);
        return EXIT_IO;
    }
    int rc = check_depth(&text, d, err);
    if (rc) {
        sb_release(&text);
        return rc;
    }
    yaml_parser_t p;
    yaml_document_t doc;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)(text.buf ? text.buf : ""), text.len);
    if (!yaml_parser_load(&p, &doc)) {
        struct ynode at = {.line = (int)p.problem_mark.line + 1,
                           .col = (int)p.problem_mark.column + 1};
        rc = yerr(d, &at, err, "YAML syntax error: %s%s%s", p.problem ? p.problem : "unknown",
                  p.context ? " " : "", p.context ? p.context : "");
    } else {
        int has_root = yaml_document_get_root_node(&doc) != NULL;
        rc = convert_document(&doc, d, err);
        yaml_document_delete(&doc);
        if (!rc && has_root && (rc = check_no_second(&p, d, err)) != EXIT_OK) {
            free_node(d->root);
            d->root = NULL;
        }
    }
    yaml_parser_delete(&p);
    sb_release(&text);
    return rc;
}

void ydoc_release(struct ydoc *d)
{
    free_node(d->root);
    free(d->file);
    memset(d, 0, sizeof *d);
}

const struct ynode *ymap_get(const struct ynode *map, const char *key)
{
    if (!map || map->kind != Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (map->keys[i]->kind == Y_SCALAR && !strcmp(map->keys[i]->text, key))
            return map->items[i];
    return NULL;
}

int ymap_check_keys(const struct ydoc *d, const struct ynode *map, const char *const *known,
                    const char *what, struct strbuf *err)
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
        struct strbuf names = STRBUF_INIT;
        for (j = 0; known[j]; j++)
            sb_addf(&names, "%s%s", j ? ", " : "", known[j]);
        yerr(d, k, err, "%s: unknown key \"%s\" (known: %s)", what, k->text, sb_str(&names));
        sb_release(&names);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static const char *ynode_kind_name(const struct ynode *n)
{
    return n->kind == Y_MAP ? "a mapping" : n->kind == Y_SEQ ? "a list" : "a scalar";
}

static int got(const struct ydoc *d, const struct ynode *n, const char *key, const char *want,
               struct strbuf *err)
{
    if (n->kind == Y_SCALAR)
        return yerr(d, n, err, "key \"%s\": expected %s, got \"%s\"", key, want, n->text);
    return yerr(d, n, err, "key \"%s\": expected %s, got %s", key, want, ynode_kind_name(n));
}

int yget_string(const struct ydoc *d, const struct ynode *n, const char *key, const char **out,
                struct strbuf *err)
{
    if (n->kind != Y_SCALAR ||
        (n->plain && (!strcmp(n->text, "~") || !strcmp(n->text, "null") || !*n->text)))
        return got(d, n, key, "a string", err);
    *out = n->text;
    return EXIT_OK;
}

int yget_int(const struct ydoc *d, const struct ynode *n, const char *key, long min, long max,
             long *out, struct strbuf *err)
{
    char want[96];
    snprintf(want, sizeof want, "an integer from %ld to %ld", min, max);
    if (n->kind != Y_SCALAR || !n->plain || !*n->text)
        return got(d, n, key, want, err);
    char *end;
    errno = 0;
    long v = strtol(n->text, &end, 10);
    if (*end || errno || v < min || v > max || n->text[0] == '+' || n->text[0] == ' ')
        return got(d, n, key, want, err);
    *out = v;
    return EXIT_OK;
}

int yget_word(const struct ydoc *d, const struct ynode *n, const char *key,
              const char *const *words, const char *want, int *out, struct strbuf *err)
{
    for (int i = 0; n->kind == Y_SCALAR && n->plain && words[i]; i++)
        if (!strcmp(n->text, words[i])) {
            *out = i;
            return EXIT_OK;
        }
    return got(d, n, key, want, err);
}

int yget_number(const struct ydoc *d, const struct ynode *n, const char *key, double min,
                double max, double *out, struct strbuf *err)
{
    char want[96];
    snprintf(want, sizeof want, "a number from %g to %g", min, max);
    if (n->kind != Y_SCALAR || !n->plain || !*n->text)
        return got(d, n, key, want, err);
    char *end;
    double v = strtod(n->text, &end);
    if (*end || !(v >= min && v <= max))
        return got(d, n, key, want, err);
    *out = v;
    return EXIT_OK;
}

int yget_string_list(const struct ydoc *d, const struct ynode *n, const char *key,
                     const char ***out, size_t *count, struct strbuf *err)
{
    if (n->kind != Y_SEQ)
        return got(d, n, key, "a list", err);
    const char **v = xmalloc((n->n ? n->n : 1) * sizeof *v);
    for (size_t i = 0; i < n->n; i++) {
        int rc = yget_string(d, n->items[i], key, &v[i], err);
        if (rc) {
            free(v);
            return rc;
        }
    }
    *out = v;
    *count = n->n;
    return EXIT_OK;
}
