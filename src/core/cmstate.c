/* cmstate: the CMake configure state a shard hands to the link job (cmstate.h). */
#include "cmstate.h"
#include "platform.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WALK_DEPTH 6
#define WALK_DIRS 20000
#define DIR_MAX 1024

/* CMakeFiles/<version>/: a version starts with a digit and holds [0-9A-Za-z.+-] */
static int version_ok(const char *v, size_t n)
{
    if (n == 0 || n > 64 || v[0] < '0' || v[0] > '9')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789.+-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", v[i]))
            return 0;
    return 1;
}

/* CMake<LANG>Compiler.cmake, LANG as CMake names languages (CXX, CUDA, ASM-ATT, ASM_NASM) */
static int compiler_file_ok(const char *f)
{
    size_t n = strlen(f);
    if (n <= 19 || strncmp(f, "CMake", 5) != 0 || strcmp(f + n - 14, "Compiler.cmake") != 0)
        return 0;
    for (size_t i = 5; i < n - 14; i++)
        if (!strchr("0123456789_-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", f[i]))
            return 0;
    return 1;
}

/* CMakeCache.txt, CMakeFiles/<version>/CMakeSystem.cmake, .../CMake<LANG>Compiler.cmake */
static int file_name_ok(const char *name)
{
    if (!strcmp(name, "CMakeCache.txt"))
        return 1;
    if (strncmp(name, "CMakeFiles/", 11) != 0)
        return 0;
    const char *v = name + 11, *slash = strchr(v, '/');
    if (!slash || !version_ok(v, (size_t)(slash - v)))
        return 0;
    return !strcmp(slash + 1, "CMakeSystem.cmake") || compiler_file_ok(slash + 1);
}

/* A root-relative directory: components not empty, not hidden (".", "..", ".git"), no
 * backslash or control character, not absolute. */
static int dir_ok(const char *d)
{
    size_t n = strlen(d);
    if (n == 0 || n > DIR_MAX || d[0] == '/' || d[n - 1] == '/')
        return 0;
    for (const char *p = d; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
            return 0;
        if ((p == d || p[-1] == '/') && (*p == '.' || *p == '/'))
            return 0;
    }
    return 1;
}

/* The value of "NAME:TYPE=value" in CMakeCache.txt's text, or 0. */
static int cache_value(const char *text, const char *name, struct strbuf *out)
{
    size_t n = strlen(name);
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        if (strncmp(l, name, n) != 0 || l[n] != ':')
            continue;
        const char *eq = strchr(l + n, '='), *end = strchr(l, '\n');
        if (!eq || (end && eq > end))
            continue;
        if (!end)
            end = eq + strlen(eq);
        sb_reset(out);
        sb_add(out, eq + 1, (size_t)(end - eq - 1));
        return 1;
    }
    return 0;
}

static int add_text(json_t *files, const char *name, const char *path, struct strvec *notes,
                    const char *rel)
{
    struct strbuf t = STRBUF_INIT;
    int e = plat_read_file_max(path, CMSTATE_MAX_FILE, &t);
    json_t *s = e || memchr(sb_str(&t), 0, t.len) ? NULL : json_stringn(sb_str(&t), t.len);
    if (!s) {
        struct strbuf m = STRBUF_INIT;
        sb_addf(&m, "%s/%s: %s", rel, name,
                e == EFBIG || e == E2BIG ? "larger than 4 MiB"
                : e                      ? plat_strerror(e)
                                         : "not UTF-8 text");
        sv_push(notes, sb_str(&m));
        sb_release(&m);
    } else {
        json_object_set_new(files, name, s);
    }
    sb_release(&t);
    return s ? 0 : -1;
}

/* One build directory's files, or NULL (the reason on notes). */
static json_t *collect_dir(const char *root, const char *rel, struct strvec *notes)
{
    struct strbuf p = STRBUF_INIT, v = STRBUF_INIT, why = STRBUF_INIT, want = STRBUF_INIT;
    json_t *files = json_object();
    sb_addf(&p, "%s/%s/CMakeCache.txt", root, rel);
    if (add_text(files, "CMakeCache.txt", sb_str(&p), notes, rel)) {
        json_decref(files);
        sb_release(&p);
        return NULL;
    }
    const char *cache = json_string_value(json_object_get(files, "CMakeCache.txt"));
    /* made here: a build directory copied from elsewhere names its first place */
    sb_reset(&p);
    sb_addf(&p, "%s/%s", root, rel);
    if (!cache_value(cache, "CMAKE_CACHEFILE_DIR", &v) || strcmp(sb_str(&v), sb_str(&p)) != 0)
        sb_addf(&why, "its CMakeCache.txt was made at \"%s\", not here", sb_str(&v));
    /* the one CMakeFiles/<version>/ of the cache's CMake */
    if (!why.len) {
        const char *parts[] = {"CMAKE_CACHE_MAJOR_VERSION", "CMAKE_CACHE_MINOR_VERSION",
                               "CMAKE_CACHE_PATCH_VERSION"};
        for (size_t i = 0; i < 3; i++) {
            if (!cache_value(cache, parts[i], &v))
                break;
            sb_addf(&want, "%s%s", i ? "." : "", sb_str(&v));
        }
        struct strvec names = STRVEC_INIT;
        sb_addf(&p, "/CMakeFiles");
        plat_list_dir(sb_str(&p), &names);
        const char *ver = NULL;
        int found = 0;
        for (size_t i = 0; i < names.n; i++) {
            size_t n = strlen(names.v[i]), w = want.len;
            if (!version_ok(names.v[i], n) || strncmp(names.v[i], sb_str(&want), w) != 0 ||
                (names.v[i][w] && names.v[i][w] != '-'))
                continue;
            ver = names.v[i];
            found++;
        }
        if (found != 1)
            sb_addf(&why, "%s CMakeFiles/%s*/ directories", found ? "several" : "no",
                    want.len ? sb_str(&want) : "<version>");
        struct strvec in = STRVEC_INIT;
        if (!why.len) {
            sb_addf(&p, "/%s", ver);
            plat_list_dir(sb_str(&p), &in);
        }
        for (size_t i = 0; i < in.n && !why.len; i++) {
            if (strcmp(in.v[i], "CMakeSystem.cmake") != 0 && !compiler_file_ok(in.v[i]))
                continue;
            struct strbuf name = STRBUF_INIT, path = STRBUF_INIT;
            sb_addf(&name, "CMakeFiles/%s/%s", ver, in.v[i]);
            sb_addf(&path, "%s/%s", sb_str(&p), in.v[i]);
            if (json_object_size(files) >= CMSTATE_MAX_FILES)
                sb_addf(&why, "more than %d files", CMSTATE_MAX_FILES);
            else if (plat_kind_of(sb_str(&path)) != PLAT_FILE ||
                     add_text(files, sb_str(&name), sb_str(&path), notes, rel))
                sb_adds(&why, "a file it needs cannot be read");
            sb_release(&name);
            sb_release(&path);
        }
        if (!why.len) {
            struct strbuf sys = STRBUF_INIT;
            sb_addf(&sys, "CMakeFiles/%s/CMakeSystem.cmake", ver);
            if (!json_object_get(files, sb_str(&sys)))
                sb_addf(&why, "no %s", sb_str(&sys));
            sb_release(&sys);
        }
        sv_clear(&in);
        sv_clear(&names);
    }
    if (why.len) {
        struct strbuf m = STRBUF_INIT;
        sb_addf(&m, "%s: %s", rel, sb_str(&why));
        sv_push(notes, sb_str(&m));
        sb_release(&m);
        json_decref(files);
        files = NULL;
    }
    sb_release(&p);
    sb_release(&v);
    sb_release(&why);
    sb_release(&want);
    return files;
}

json_t *cmstate_collect(const char *root, struct strvec *notes)
{
    json_t *out = json_array();
    struct strvec queue = STRVEC_INIT;
    struct strbuf full = STRBUF_INIT, probe = STRBUF_INIT;
    sv_push(&queue, "");
    for (size_t q = 0; q < queue.n && q < WALK_DIRS; q++) {
        const char *rel = queue.v[q];
        sb_reset(&full);
        sb_addf(&full, "%s%s%s", root, *rel ? "/" : "", rel);
        if (*rel) {
            sb_reset(&probe);
            sb_addf(&probe, "%s/CMakeCache.txt", sb_str(&full));
            int cache = plat_kind_of(sb_str(&probe)) == PLAT_FILE;
            sb_reset(&probe);
            sb_addf(&probe, "%s/CMakeFiles", sb_str(&full));
            if (cache && plat_kind_of(sb_str(&probe)) == PLAT_DIR) {
                json_t *files = dir_ok(rel) ? collect_dir(root, rel, notes) : NULL;
                if (files && json_array_size(out) < CMSTATE_MAX_DIRS)
                    json_array_append_new(out, json_pack("{s:s, s:o}", "dir", rel, "files", files));
                else
                    json_decref(files);
                continue; /* not inside a build directory */
            }
        }
        size_t depth = 0;
        for (const char *p = rel; *p; p++)
            depth += *p == '/';
        if (*rel && depth + 1 >= WALK_DEPTH)
            continue;
        struct strvec names = STRVEC_INIT;
        plat_list_dir(sb_str(&full), &names);
        for (size_t i = 0; i < names.n; i++) {
            if (names.v[i][0] == '.')
                continue;
            sb_reset(&probe);
            sb_addf(&probe, "%s/%s", sb_str(&full), names.v[i]);
            if (plat_kind_of(sb_str(&probe)) != PLAT_DIR)
                continue;
            sb_reset(&probe);
            sb_addf(&probe, "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
            sv_push(&queue, sb_str(&probe));
            rel = queue.v[q]; /* the push may have moved the vector */
        }
        sv_clear(&names);
    }
    sv_clear(&queue);
    sb_release(&full);
    sb_release(&probe);
    return out;
}

int cmstate_check(const json_t *v, struct strbuf *err)
{
    if (!json_is_array(v) || json_array_size(v) > CMSTATE_MAX_DIRS) {
        sb_addf(err, "not an array of at most %d build directories", CMSTATE_MAX_DIRS);
        return -1;
    }
    size_t i;
    json_t *d;
    json_array_foreach(v, i, d)
    {
        const char *dir = json_string_value(json_object_get(d, "dir"));
        json_t *files = json_object_get(d, "files");
        if (!dir || !dir_ok(dir)) {
            sb_addf(err, "build directory %zu is not a relative path inside the root", i + 1);
            return -1;
        }
        for (size_t k = 0; k < i; k++)
            if (!strcmp(dir, json_string_value(json_object_get(json_array_get(v, k), "dir")))) {
                sb_addf(err, "\"%s\" appears twice", dir);
                return -1;
            }
        if (!json_is_object(files) || json_object_size(files) > CMSTATE_MAX_FILES ||
            !json_is_string(json_object_get(files, "CMakeCache.txt"))) {
            sb_addf(err, "\"%s\": no CMakeCache.txt, or more than %d files", dir,
                    CMSTATE_MAX_FILES);
            return -1;
        }
        const char *name;
        json_t *t;
        json_object_foreach((json_t *)files, name, t)
        {
            if (!file_name_ok(name)) {
                sb_addf(err, "\"%s\": \"%s\" is not a file of CMake's configure state", dir, name);
                return -1;
            }
            if (!json_is_string(t) || json_string_length(t) > CMSTATE_MAX_FILE) {
                sb_addf(err, "\"%s/%s\" is not text of at most 4 MiB", dir, name);
                return -1;
            }
        }
    }
    return 0;
}

void cmstate_diff(const json_t *a, const json_t *b, struct strbuf *out)
{
    sb_reset(out);
    if (json_array_size(a) != json_array_size(b)) {
        sb_addf(out, "%zu build directories against %zu", json_array_size(a), json_array_size(b));
        return;
    }
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *da = json_array_get(a, i), *db = json_array_get(b, i);
        const char *dir = json_string_value(json_object_get(da, "dir"));
        if (strcmp(dir, json_string_value(json_object_get(db, "dir"))) != 0) {
            sb_addf(out, "build directory \"%s\" against \"%s\"", dir,
                    json_string_value(json_object_get(db, "dir")));
            return;
        }
        json_t *fa = json_object_get(da, "files"), *fb = json_object_get(db, "files");
        const char *name;
        json_t *t;
        json_object_foreach(fa, name, t) if (!json_equal(t, json_object_get(fb, name)))
        {
            sb_addf(out, "%s/%s", dir, name);
            return;
        }
        json_object_foreach(fb, name, t) if (!json_object_get(fa, name))
        {
            sb_addf(out, "%s/%s", dir, name);
            return;
        }
    }
}

/* No component of root/rel (below root) is a symbolic link. */
static int no_links(const char *root, const char *rel)
{
    struct strbuf p = STRBUF_INIT;
    sb_adds(&p, root);
    int ok = 1;
    for (const char *c = rel; ok && *c;) {
        const char *end = strchr(c, '/');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        sb_addf(&p, "/%.*s", (int)n, c);
        enum plat_kind k = plat_kind_of(sb_str(&p));
        if (k != PLAT_ABSENT && k != PLAT_DIR)
            ok = 0;
        c += n + (end ? 1 : 0);
    }
    sb_release(&p);
    return ok;
}

static void note(struct strvec *notes, const char *dir, const char *why)
{
    struct strbuf m = STRBUF_INIT;
    sb_addf(&m, "%s: %s", dir, why);
    sv_push(notes, sb_str(&m));
    sb_release(&m);
}

int cmstate_restore(const char *root, const json_t *v, struct strvec *done, struct strvec *notes)
{
    size_t i;
    json_t *d;
    int rc = 0;
    json_array_foreach(v, i, d)
    {
        const char *dir = json_string_value(json_object_get(d, "dir"));
        json_t *files = json_object_get(d, "files");
        struct strbuf target = STRBUF_INIT, p = STRBUF_INIT, made = STRBUF_INIT;
        sb_addf(&target, "%s/%s", root, dir);
        sb_addf(&p, "%s/CMakeCache.txt", sb_str(&target));
        int configured = plat_file_exists(sb_str(&p));
        sb_reset(&p);
        sb_addf(&p, "%s/CMakeFiles", sb_str(&target));
        configured |= plat_file_exists(sb_str(&p));
        if (!no_links(root, dir)) {
            note(notes, dir, "a part of its path is a symbolic link or a file");
        } else if (configured) {
            note(notes, dir, "already configured here (its CMakeCache.txt or CMakeFiles/)");
        } else if (!cache_value(json_string_value(json_object_get(files, "CMakeCache.txt")),
                                "CMAKE_CACHEFILE_DIR", &made) ||
                   strcmp(sb_str(&made), sb_str(&target)) != 0) {
            note(notes, dir, "the shards' CMakeCache.txt was made at another path");
        } else {
            int existed = plat_is_dir(sb_str(&target)), e = 0;
            const char *name;
            json_t *t;
            json_object_foreach(files, name, t)
            {
                if (e)
                    break;
                sb_reset(&p);
                sb_addf(&p, "%s/%s", sb_str(&target), name);
                char *slash = strrchr(p.buf, '/');
                *slash = '\0';
                e = plat_mkdir_p(sb_str(&p));
                *slash = '/';
                if (!e)
                    e = plat_write_atomic(sb_str(&p), json_string_value(t), json_string_length(t));
            }
            if (e) {
                struct strbuf m = STRBUF_INIT;
                sb_addf(&m, "cannot write %s: %s", sb_str(&p), plat_strerror(e));
                note(notes, dir, sb_str(&m));
                sb_release(&m);
                sb_reset(&p);
                sb_addf(&p, "%s/CMakeFiles", sb_str(&target));
                plat_rmtree(sb_str(&p));
                sb_reset(&p);
                sb_addf(&p, "%s/CMakeCache.txt", sb_str(&target));
                plat_unlink(sb_str(&p));
                if (!existed)
                    plat_rmtree(sb_str(&target));
                rc = e;
            } else {
                sv_push(done, dir);
            }
        }
        sb_release(&target);
        sb_release(&p);
        sb_release(&made);
    }
    return rc;
}
