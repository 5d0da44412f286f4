/* split: the store's side of a split TU (split.h). */
#include "split.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode.h"
#include "partition.h"
#include "path.h"
#include "platform.h"
#include "sha256.h"

size_t split_real_count(const struct dr_split *split)
{
    size_t n = 0;
    for (size_t i = 0; i < split->n; i++) {
        const char *r = split->items[i].real;
        if (strcmp(split->items[i].name, "host") == 0 || !*r)
            continue;
        n++;
        for (; *r; r++)
            n += *r == ',';
    }
    return n;
}

size_t split_item_rank(const struct dr_split *split, size_t i)
{
    size_t rank = 0;
    for (size_t k = 0; k < split->n; k++)
        rank += strcmp(split->items[k].name, "host") != 0 &&
                strcmp(split->items[k].name, split->items[i].name) < 0;
    return rank;
}

int split_item_owner(const char *tu_key, size_t rank, int count)
{
    return (int)(((size_t)partition_owner(tu_key, count) - 1 + rank) % (size_t)count) + 1;
}

static int in_item(const struct dr_item *it, size_t step)
{
    for (size_t k = 0; k < it->n; k++)
        if (it->steps[k] == step)
            return 1;
    return 0;
}

/* The last step before `before` that writes file, or -1. */
static long writer_before(const struct dr_plan *plan, const char *file, size_t before)
{
    long w = -1;
    for (size_t i = 0; i < before; i++)
        if (plan->steps[i].tool != DR_RM && sv_has(&plan->steps[i].writes, file))
            w = (long)i;
    return w;
}

void split_item_exports(const struct dr_plan *plan, const struct dr_split *split, size_t i,
                        struct strvec *out)
{
    const struct dr_item *it = &split->items[i];
    for (size_t s = 0; s < plan->n; s++) {
        const struct dr_step *st = &plan->steps[s];
        if (st->tool == DR_RM || in_item(it, s))
            continue;
        for (size_t r = 0; r < st->reads.n; r++) {
            long w = writer_before(plan, st->reads.v[r], s);
            if (w >= 0 && in_item(it, (size_t)w) && !sv_has(out, st->reads.v[r]))
                sv_push(out, st->reads.v[r]);
        }
    }
}

/* The project root with a trailing slash when jobs may run at different paths
 * (--relocatable: CCACHE_BASEDIR is set), else "": ccache then hashes paths under it
 * relative to it, and so do item keys. */
static const char *relocatable_root(struct strbuf *buf)
{
    const char *base = getenv("CCACHE_BASEDIR");
    if (!base || !*base || plat_realpath(base, buf) != 0 || buf->len < 2)
        return "";
    sb_adds(buf, "/");
    return sb_str(buf);
}

/* s[0..n) with every occurrence of tmpdir written "<tmp>/" and of root "<root>/" */
static void hash_bytes(struct sha256 *h, const char *s, size_t n, const char *tmpdir,
                       const char *root)
{
    size_t tl = strlen(tmpdir), rl = strlen(root);
    const char *end = s + n;
    for (const char *p = s; p < end; p++) {
        size_t left = (size_t)(end - p);
        /* the root first: it may lie in the temporaries' directory (/tmp/ and /tmp/job/) */
        if (rl && left >= rl && *p == *root && !memcmp(p, root, rl)) {
            sha256_update(h, s, (size_t)(p - s));
            sha256_update_str(h, "<root>/");
            s = p + rl;
            p = s - 1;
        } else if (tl && left >= tl && *p == *tmpdir && !memcmp(p, tmpdir, tl)) {
            sha256_update(h, s, (size_t)(p - s));
            sha256_update_str(h, "<tmp>/");
            s = p + tl;
            p = s - 1;
        }
    }
    sha256_update(h, s, (size_t)(end - s));
}

static void hash_word(struct sha256 *h, const char *s, const char *tmpdir, const char *root)
{
    hash_bytes(h, s, strlen(s), tmpdir, root);
    sha256_update(h, "", 1); /* a NUL: words stay apart */
}

/* A preprocessed text: with root, the paths of its line markers (# N "PATH"...) are
 * hashed relative to it, as ccache hashes them under CCACHE_BASEDIR; the rest (a __FILE__
 * expansion in the code) as it is. */
static void hash_preprocessed(struct sha256 *h, const char *t, size_t n, const char *root)
{
    if (!*root) {
        sha256_update(h, t, n);
        return;
    }
    const char *end = t + n;
    while (t < end) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        const char *e = nl ? nl + 1 : end;
        if (e - t > 3 && t[0] == '#' && t[1] == ' ' && t[2] >= '0' && t[2] <= '9')
            hash_bytes(h, t, (size_t)(e - t), "", root);
        else
            sha256_update(h, t, (size_t)(e - t));
        t = e;
    }
}

int split_item_key(const struct dr_plan *plan, const struct dr_split *split, size_t i,
                   const char *tmpdir, char key[65], struct strbuf *err)
{
    return split_item_key_parts(plan, split, i, tmpdir, key, NULL, err);
}

int split_item_key_parts(const struct dr_plan *plan, const struct dr_split *split, size_t i,
                         const char *tmpdir, char key[65], char parts[SPLIT_PARTS_LEN + 1],
                         struct strbuf *err)
{
    const struct dr_item *it = &split->items[i];
    const char *fp = getenv("CCACHE_COMPILERCHECK"), *extra = getenv("CCACHE_EXTRAFILES");
    struct strbuf rootbuf = STRBUF_INIT;
    const char *root = relocatable_root(&rootbuf);
    /* the key, and apart what it covers: the toolchain and the arguments (0), the
     * preprocessed text (1), the host side's files, the module id (2) */
    struct sha256 h, part[3];
    sha256_init(&h);
    for (size_t q = 0; q < 3; q++)
        sha256_init(&part[q]);
    sha256_update(&h, SPLIT_ITEM_TAG, sizeof SPLIT_ITEM_TAG);
    hash_word(&h, fp ? fp : "", "", "");
    hash_word(&h, extra ? extra : "", "", root);
    hash_word(&part[0], fp ? fp : "", "", "");
    hash_word(&part[0], extra ? extra : "", "", root);
    struct strbuf text = STRBUF_INIT;
    int e = 0;
    for (size_t k = 0; k < it->n && !e; k++) {
        const struct dr_step *st = &plan->steps[it->steps[k]];
        hash_word(&h, dr_tool_name(st->tool), "", "");
        hash_word(&part[0], dr_tool_name(st->tool), "", "");
        for (size_t a = 0; a < st->argv.n; a++) {
            hash_word(&h, st->argv.v[a], tmpdir, root);
            hash_word(&part[0], st->argv.v[a], tmpdir, root);
        }
        /* not its redirections (--threads): nvcc names those after an address of its own,
         * different in every run, and they only catch what the step prints */
        for (size_t r = 0; r < st->reads.n && !e; r++) {
            long w = writer_before(plan, st->reads.v[r], it->steps[k]);
            if (w < 0 || (in_item(it, (size_t)w) && plan->steps[w].tool != DR_DEVICE_CPP))
                continue; /* the source (its preprocessed text counts), or made in the item */
            sb_reset(&text);
            e = plat_read_file_max(st->reads.v[r], DEVCODE_FILE_MAX, &text);
            if (e) {
                sb_adds(err, st->reads.v[r]);
                break;
            }
            char size[32];
            snprintf(size, sizeof size, "%zu", text.len);
            hash_word(&h, st->reads.v[r], tmpdir, root);
            hash_word(&h, size, "", "");
            int pre = plan->steps[w].tool == DR_DEVICE_CPP;
            struct sha256 *p = &part[pre ? 1 : 2];
            hash_word(p, size, "", "");
            if (pre) {
                hash_preprocessed(&h, text.buf ? text.buf : "", text.len, root);
                hash_preprocessed(p, text.buf ? text.buf : "", text.len, root);
            } else {
                sha256_update(&h, text.buf ? text.buf : "", text.len);
                sha256_update(p, text.buf ? text.buf : "", text.len);
            }
        }
    }
    sb_release(&text);
    sb_release(&rootbuf);
    unsigned char d[32];
    sha256_final(&h, d);
    sha256_hex(d, key);
    if (parts) {
        char hex[65];
        parts[0] = '\0';
        for (size_t q = 0; q < 3; q++) {
            sha256_final(&part[q], d);
            sha256_hex(d, hex);
            snprintf(parts + strlen(parts), SPLIT_PARTS_LEN + 1 - strlen(parts), "%s%.8s",
                     q ? "." : "", hex);
        }
    }
    return e;
}

int split_pack(const struct strvec *files, struct strbuf *blob, struct strbuf *err)
{
    struct strbuf text = STRBUF_INIT;
    sb_adds(blob, SPLIT_ITEM_TAG "\n");
    int e = 0;
    for (size_t i = 0; i < files->n && !e; i++) {
        sb_reset(&text);
        e = plat_read_file_max(files->v[i], DEVCODE_FILE_MAX, &text);
        if (e) {
            sb_adds(err, files->v[i]);
            break;
        }
        sb_addf(blob, "%s\n%zu\n", path_basename(files->v[i]), text.len);
        sb_add(blob, text.buf ? text.buf : "", text.len);
    }
    sb_release(&text);
    return e;
}

int split_unpack(const char *blob, size_t len, const struct strvec *files, struct strbuf *err)
{
    const char *p = blob, *end = blob + len;
    size_t tl = strlen(SPLIT_ITEM_TAG "\n");
    if (len < tl || memcmp(p, SPLIT_ITEM_TAG "\n", tl) != 0) {
        sb_adds(err, "not an item entry (" SPLIT_ITEM_TAG ")");
        return -1;
    }
    p += tl;
    /* every file the item must hand on, found by base name */
    const char **at = calloc(files->n ? files->n : 1, sizeof *at);
    size_t *size = calloc(files->n ? files->n : 1, sizeof *size);
    int rc = 0;
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *nl2 = nl ? memchr(nl + 1, '\n', (size_t)(end - nl - 1)) : NULL;
        char *stop = NULL;
        unsigned long long n = nl2 ? strtoull(nl + 1, &stop, 10) : 0;
        if (!nl2 || stop != nl2 || n > (unsigned long long)(end - nl2 - 1)) {
            sb_adds(err, "a truncated item entry");
            rc = -1;
            break;
        }
        for (size_t i = 0; i < files->n; i++) {
            const char *b = path_basename(files->v[i]);
            if (strlen(b) == (size_t)(nl - p) && memcmp(b, p, (size_t)(nl - p)) == 0) {
                at[i] = nl2 + 1;
                size[i] = (size_t)n;
            }
        }
        p = nl2 + 1 + n;
    }
    for (size_t i = 0; i < files->n && rc == 0; i++)
        if (!at[i]) {
            sb_addf(err, "the item entry lacks %s", path_basename(files->v[i]));
            rc = -1;
        }
    for (size_t i = 0; i < files->n && rc == 0; i++) {
        rc = plat_write_atomic(files->v[i], at[i], size[i]);
        if (rc)
            sb_adds(err, files->v[i]);
    }
    free(at);
    free(size);
    return rc;
}

void split_marker_key(const char *tu_key, const char *temp_name, char key[65])
{
    const char *fp = getenv("CCACHE_COMPILERCHECK");
    struct sha256 h;
    unsigned char d[32];
    sha256_init(&h);
    sha256_update(&h, SPLIT_MARK_TAG, sizeof SPLIT_MARK_TAG);
    hash_word(&h, fp ? fp : "", "", "");
    hash_word(&h, tu_key ? tu_key : "", "", "");
    hash_word(&h, temp_name, "", "");
    sha256_final(&h, d);
    sha256_hex(d, key);
}

int split_archs_parse(const char *v, int *archs)
{
    *archs = SPLIT_ARCHS_DEFAULT;
    if (!v || !*v)
        return 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 0 || n > 1000)
        return -1;
    *archs = (int)n;
    return 0;
}

int split_archs_from_env(int *archs)
{
    return split_archs_parse(getenv(SPLIT_ARCHS_ENV), archs);
}
