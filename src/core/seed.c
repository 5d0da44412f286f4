/* seed: an earlier run's cache as a warm start (see seed.h). */
#include "seed.h"
#include "artifact.h"
#include "job.h"
#include "path.h"
#include "platform.h"
#include "strvec.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int seed_is_url(const char *src)
{
    return !strncmp(src, "redis://", 8) || !strncmp(src, "redis+unix:", 11) ||
           !strncmp(src, "http://", 7) || !strncmp(src, "https://", 8) ||
           !strncmp(src, "rediss://", 9);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Entry from of the seed whose real root is root, as to: a hard link, else a streamed copy
 * (another file system). Only a regular file with one link, inside the root, is taken: a
 * hard link to a file elsewhere, or a symbolic link out of the root, would put a file the
 * seed does not hold into the shard's cache and artifact. 0, or an errno with *why set for a
 * refusal. */
static int take_entry(const char *root, const char *from, const char *to, const char **why)
{
    *why = NULL;
    int fd;
    unsigned long links;
    int e = plat_open_lone(from, &fd, &links);
    if (e == ELOOP)
        return *why = "a symbolic link", EPERM;
    if (e == PLAT_ENOTREG)
        return *why = "not a regular file", EPERM;
    if (e)
        return e;
    struct strbuf real = STRBUF_INIT;
    if (links != 1)
        *why = "a file with more than one hard link (one may be outside the seed)", e = EPERM;
    else if ((e = plat_realpath(from, &real)) == 0 &&
             !(strncmp(sb_str(&real), root, strlen(root)) == 0 &&
               strchr("/\\", sb_str(&real)[strlen(root)]) && sb_str(&real)[strlen(root)]))
        *why = "outside the seed (through a symbolic link)", e = EPERM;
    sb_release(&real);
    if (!e) {
        char *dir = xstrndup(to, (size_t)(path_basename(to) - to));
        e = plat_mkdir_p(dir);
        free(dir);
    }
    if (!e && link(from, to) != 0 && errno != EEXIST)
        e = plat_copy_fd(fd, to);
    plat_close(fd);
    return e;
}

static int extract_into(const char *art, const char *x, const char *cmd)
{
    struct extract_stats st;
    struct strbuf err = STRBUF_INIT;
    int rc = artifact_extract(art, x, &st, &err);
    if (rc)
        report_error(cmd, "--seed-from: %s", sb_str(&err));
    json_decref(st.differing);
    json_decref(st.members);
    json_decref(st.digests);
    sb_release(&err);
    return rc;
}

/* The seed's artifacts: src itself, or a directory's *.tar.zst (none: src is a cache
 * directory). EXIT_USAGE when src is none of those, EXIT_IO when it cannot be read. */
static int seed_artifacts(const char *src, struct strvec *arts, const char *cmd)
{
    int e = 0;
    if (plat_is_dir(src)) {
        struct strvec names = STRVEC_INIT;
        struct strbuf p = STRBUF_INIT;
        e = plat_list_dir(src, &names);
        for (size_t k = 0; !e && k < names.n; k++)
            if (names.v[k][0] != '.' && ends_with(names.v[k], ".tar.zst")) {
                sb_reset(&p);
                sb_addf(&p, "%s/%s", src, names.v[k]);
                sv_push(arts, sb_str(&p));
            }
        sv_clear(&names);
        sb_release(&p);
    } else if (plat_file_exists(src) && ends_with(src, ".tar.zst")) {
        sv_push(arts, src);
    } else {
        report_error(cmd,
                     "--seed-from \"%s\": not an artifact (*.tar.zst), a directory (of artifacts, "
                     "or a ccache directory) or a remote storage URL",
                     src);
        return EXIT_USAGE;
    }
    if (e) {
        report_error(cmd, "--seed-from: cannot read \"%s\": %s", src, plat_strerror(e));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* The artifacts extracted into DIR/extracted (x: that directory, or src when there are
 * none: a cache directory). */
static int seed_extract(const char *src, const char *dir, const struct strvec *arts,
                        struct strbuf *x, const char *cmd)
{
    if (!arts->n) {
        sb_adds(x, src);
        return EXIT_OK;
    }
    sb_addf(x, "%s/extracted", dir);
    int e = plat_mkdir_p(sb_str(x)), rc = EXIT_OK;
    for (size_t k = 0; !e && !rc && k < arts->n; k++)
        rc = extract_into(arts->v[k], sb_str(x), cmd);
    if (e) {
        report_error(cmd, "--seed-from: cannot create \"%s\": %s", sb_str(x), plat_strerror(e));
        rc = EXIT_IO;
    }
    return rc;
}

/* Every entry under x laid out where ccache's file storage (DIR/ccache: the digest, the
 * path without '/' and the type letter, as <first 2>/<rest>) and the seat's store
 * (DIR/store) read it; only regular files with one link inside x are taken (take_entry). */
static int seed_lay_out(const char *x, const char *dir, size_t *entries, const char *cmd)
{
    struct cache_entry *ents = NULL;
    size_t n = 0;
    struct strbuf err = STRBUF_INIT, real_root = STRBUF_INIT, p = STRBUF_INIT, q = STRBUF_INIT;
    int e, rc = EXIT_OK;
    if ((e = plat_realpath(x, &real_root)) != 0) {
        report_error(cmd, "--seed-from: cannot read \"%s\": %s", x, plat_strerror(e));
        rc = EXIT_IO;
    } else if (cache_list(x, &ents, &n, &err) != 0) {
        report_error(cmd, "--seed-from: %s", sb_str(&err));
        rc = EXIT_IO;
    }
    for (size_t k = 0; !rc && k < n; k++) {
        const char *rel = ents[k].rel;
        sb_reset(&p);
        sb_reset(&q);
        sb_addf(&p, "%s/%s", x, rel);
        if (ents[k].kind == CACHE_DEVICE) {
            sb_addf(&q, "%s/store/%s", dir, rel);
        } else {
            struct strbuf d = STRBUF_INIT;
            cache_entry_key(rel, &d);
            sb_addf(&q, "%s/ccache/%.2s/%s", dir, sb_str(&d), sb_str(&d) + 2);
            sb_release(&d);
        }
        const char *why;
        e = take_entry(sb_str(&real_root), sb_str(&p), sb_str(&q), &why);
        if (why) {
            report_error(cmd, "--seed-from: \"%s\" is %s: not taken into the warm start",
                         sb_str(&p), why);
            rc = EXIT_IO;
        } else if (e) {
            report_error(cmd, "--seed-from: cannot lay out \"%s\": %s", sb_str(&q),
                         plat_strerror(e));
            rc = EXIT_IO;
        }
        (*entries)++;
    }
    cache_list_release(ents, n);
    sb_release(&err);
    sb_release(&real_root);
    sb_release(&p);
    sb_release(&q);
    return rc;
}

int seed_prepare(const char *src, const char *dir, size_t *entries, const char *cmd)
{
    *entries = 0;
    if (strpbrk(dir, " \t\n")) {
        report_error(cmd,
                     "--seed-from: the seed's directory \"%s\" holds white space, which "
                     "ccache's remote_storage list cannot carry",
                     dir);
        return EXIT_USAGE;
    }
    int e = plat_rmtree(dir);
    if (!e)
        e = plat_mkdir_p(dir);
    if (e) {
        report_error(cmd, "--seed-from: cannot create \"%s\": %s", dir, plat_strerror(e));
        return EXIT_IO;
    }
    struct strvec arts = STRVEC_INIT;
    struct strbuf x = STRBUF_INIT;
    int rc = seed_artifacts(src, &arts, cmd);
    if (!rc)
        rc = seed_extract(src, dir, &arts, &x, cmd);
    if (!rc)
        rc = seed_lay_out(sb_str(&x), dir, entries, cmd);
    sv_clear(&arts);
    sb_release(&x);
    return rc;
}
