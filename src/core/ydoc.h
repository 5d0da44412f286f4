/* ydoc: a YAML file (read with libyaml) as a tree of nodes that remember where they were
 * written, so every configuration error can name FILE:LINE:COLUMN. Only what package and
 * cells files need: block or flow mappings, sequences and scalars; anchors are resolved by
 * libyaml; merge keys ("<<: *defaults", "<<: [*a, *b]") are applied here (libyaml leaves
 * them to the application): a key written in the mapping wins over a merged one, an earlier
 * merged mapping over a later one, and merged pairs keep the position where they were
 * written. A mapping with a key twice is an error. Scalars keep their text as written
 * ("3.10" stays "3.10"); the typed readers below interpret it. */
#ifndef SHARDCC_YDOC_H
#define SHARDCC_YDOC_H

#include <stddef.h>

#include "strbuf.h"

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
    enum ykind kind;
    int line, col;        /* 1-based, where the node starts */
    char *text;           /* Y_SCALAR: the value */
    int plain;            /* Y_SCALAR: written without quotes */
    size_t n;             /* Y_SEQ: items; Y_MAP: pairs */
    struct ynode **items; /* Y_SEQ: items; Y_MAP: values */
    struct ynode **keys;  /* Y_MAP: keys (scalars) */
};

struct ydoc {
    char *file;
    struct ynode *root; /* NULL for an empty file */
};

/* Loads path. 0, or 2 (syntax; err holds "FILE:L:C: ...") or 4 (unreadable file). */
int ydoc_load(const char *path, struct ydoc *d, struct strbuf *err);
void ydoc_release(struct ydoc *d);

/* "FILE:L:C: " + the message, into err. Returns 2 (the usage/config exit status). */
int yerr(const struct ydoc *d, const struct ynode *n, struct strbuf *err, const char *fmt, ...)
    SHARDCC_PRINTF(4, 5);

/* The value of key in a mapping, or NULL. */
const struct ynode *ymap_get(const struct ynode *map, const char *key);
/* Every key of map must be one of the NULL-terminated known names; else an error naming
 * the first unknown key and the known ones. Returns 0 or 2. */
int ymap_check_keys(const struct ydoc *d, const struct ynode *map, const char *const *known,
                    const char *what, struct strbuf *err);

/* Typed readers: 0, or 2 with "FILE:L:C: key "KEY": expected ..., got ..." in err. */
int yget_string(const struct ydoc *d, const struct ynode *n, const char *key, const char **out,
                struct strbuf *err);
int yget_int(const struct ydoc *d, const struct ynode *n, const char *key, long min, long max,
             long *out, struct strbuf *err);
/* A plain scalar that is one of words (NULL-terminated): *out is its index; else the
 * error says want. */
int yget_word(const struct ydoc *d, const struct ynode *n, const char *key,
              const char *const *words, const char *want, int *out, struct strbuf *err);
int yget_number(const struct ydoc *d, const struct ynode *n, const char *key, double min,
                double max, double *out, struct strbuf *err);
/* A sequence of scalars (a single scalar is not accepted). The strings stay in the doc. */
int yget_string_list(const struct ydoc *d, const struct ynode *n, const char *key,
                     const char ***out, size_t *count, struct strbuf *err);

#endif
