/* artifact: writing and reading shard artifacts with libarchive (tar + zstd).
 * Owns the member-name rules and the extraction safety checks; knows nothing of cells or
 * shards (cmd_merge.c checks manifests against each other). */
#include "artifact.h"
#include "sha256.h"
#include "job.h"
#include "exit_status.h"
#include "path.h"
#include "platform.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (256u << 10)
#define MANIFEST_MAX (64u << 20)
#define MEMBER_MAX (8ull << 30)
/* Decompressed bytes may exceed the archive's size by this factor (plus a floor) before the
 * archive is taken for a decompression bomb. ccache entries are already compressed. */
#define BOMB_RATIO 64
#define BOMB_FLOOR (256ull << 20)

static int is_key_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}

static int is_hex_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* The last component of rel after its one-character directories (NULL when there are not
 * one to eight of them). */
static const char *entry_tail(const char *rel)
{
    const char *p = rel;
    int levels = 0;
    while (is_key_char(p[0]) && p[1] == '/') {
        p += 2;
        levels++;
    }
    return levels < 1 || levels > 8 ? NULL : p;
}

/* 1 when the name is a key alone (newer ccache), 0 when it ends in a kind letter (or is
 * neither: cache_entry_name_ok tells) */
static int bare_key(const char *tail, size_t n)
{
    if (n < 20 || n > 80)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_hex_char(tail[i]))
            return 0;
    return 1;
}

int cache_entry_name_ok(const char *rel)
{
    const char *p = entry_tail(rel);
    if (!p)
        return 0;
    size_t n = strlen(p);
    if (bare_key(p, n))
        return 1;
    if (n < 2 || n > 80 ||
        (p[n - 1] != CACHE_RESULT && p[n - 1] != CACHE_MANIFEST && p[n - 1] != CACHE_DEVICE))
        return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (!is_key_char(p[i]))
            return 0;
    return 1;
}

char cache_entry_kind(const char *rel, const char *path)
{
    const char *p = entry_tail(rel);
    size_t n = p ? strlen(p) : 0;
    if (!p || !n)
        return 0;
    if (!bare_key(p, n))
        return strchr("RMD", p[n - 1]) ? p[n - 1] : 0;
    FILE *f = path ? fopen(path, "rb") : NULL;
    unsigned char h[4];
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    if (got != sizeof h || h[0] != 0xcc || h[1] != 0xac)
        return 0;
    return h[3] == 0 ? CACHE_RESULT : h[3] == 1 ? CACHE_MANIFEST : 0;
}

int cache_entry_sha(const char *cache, const char *rel, char hex[65])
{
    struct strbuf p = STRBUF_INIT, data = STRBUF_INIT;
    sb_addf(&p, "%s/%s", cache, rel);
    int e = plat_read_file(sb_str(&p), &data);
    if (!e)
        sha256_hex_of(data.buf ? data.buf : "", data.len, hex);
    sb_release(&p);
    sb_release(&data);
    return e;
}

void cache_entry_key(const char *rel, struct strbuf *out)
{
    const char *p = entry_tail(rel);
    size_t n = strlen(rel), tail = p ? strlen(p) : 0;
    if (p && tail && !bare_key(p, tail))
        n--; /* the kind letter */
    for (size_t i = 0; i < n; i++)
        if (rel[i] != '/')
            sb_addc(out, rel[i]);
}

/* "cache/", "cache/x/", "cache/x/y/": the directories an archiver may list. */
static int dir_name_ok(const char *name)
{
    if (strncmp(name, "cache", 5) != 0)
        return 0;
    const char *p = name + 5;
    if (*p == '\0')
        return 1;
    for (int levels = 0; *p == '/'; levels++) {
        if (p[1] == '\0')
            return 1;
        if (levels >= 8 || !is_key_char(p[1]) || (p[2] != '/' && p[2] != '\0'))
            return 0;
        p += 2;
    }
    return *p == '\0';
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct cache_entry *)a)->rel, ((const struct cache_entry *)b)->rel);
}

static int walk(const char *root, const char *rel, int depth, struct cache_entry **out, size_t *n,
                size_t *alloc, struct strbuf *err)
{
    struct strbuf dir = STRBUF_INIT;
    sb_addf(&dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(sb_str(&dir));
    if (!d) {
        sb_addf(err, "cannot read cache directory \"%s\": %s", sb_str(&dir), strerror(errno));
        sb_release(&dir);
        return EXIT_IO;
    }
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        struct strbuf r = STRBUF_INIT, full = STRBUF_INIT;
        sb_addf(&r, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        sb_addf(&full, "%s/%s", root, sb_str(&r));
        struct stat st;
        if (lstat(sb_str(&full), &st) == 0) {
            if (S_ISDIR(st.st_mode) && depth < 8 && strlen(de->d_name) == 1) {
                rc = walk(root, sb_str(&r), depth + 1, out, n, alloc, err);
            } else if (S_ISREG(st.st_mode) && cache_entry_name_ok(sb_str(&r))) {
                char kind = cache_entry_kind(sb_str(&r), sb_str(&full));
                if (kind) { /* a bare key whose header is not ccache's is not an entry */
                    if (*n == *alloc) {
                        *alloc = *alloc ? *alloc * 2 : 256;
                        *out = xrealloc(*out, *alloc * sizeof **out);
                    }
                    (*out)[*n].rel = sb_detach(&r);
                    (*out)[*n].size = (uint64_t)st.st_size;
                    (*out)[*n].kind = kind;
                    (*n)++;
                }
            }
        }
        sb_release(&r);
        sb_release(&full);
    }
    closedir(d);
    sb_release(&dir);
    return rc;
}

int cache_list(const char *dir, struct cache_entry **out, size_t *n, struct strbuf *err)
{
    size_t alloc = 0;
    *out = NULL;
    *n = 0;
    int rc = walk(dir, "", 0, out, n, &alloc, err);
    if (rc) {
        cache_list_release(*out, *n);
        *out = NULL;
        *n = 0;
        return rc;
    }
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_entry);
    return 0;
}

void cache_list_release(struct cache_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(e[i].rel);
    free(e);
}

static struct archive_entry *file_entry(const char *name, uint64_t size)
{
    struct archive_entry *ae = archive_entry_new();
    archive_entry_set_pathname(ae, name);
    archive_entry_set_size(ae, (la_int64_t)size);
    archive_entry_set_filetype(ae, AE_IFREG);
    archive_entry_set_perm(ae, 0644);
    archive_entry_set_mtime(ae, 0, 0); /* content, not time: artifacts are reproducible */
    return ae;
}

/* libarchive's message with the system's reason when it has one ("Write error: No space
 * left on device"); valid until the next call. */
static const char *arch_err(struct archive *a)
{
    static char buf[512];
    const char *m = archive_error_string(a);
    int e = archive_errno(a);
    if (!m)
        m = "unknown libarchive error";
    if (e > 0 && !strstr(m, plat_strerror(e)))
        snprintf(buf, sizeof buf, "%s: %s", m, plat_strerror(e));
    else
        snprintf(buf, sizeof buf, "%s", m);
    return buf;
}

int artifact_write(const char *path, const char *manifest, const char *cache_dir,
                   const struct cache_entry *e, size_t n, struct strbuf *err)
{
    struct strbuf tmp = STRBUF_INIT;
    int out, ce = plat_create_temp(path, 0, &tmp, &out);
    if (ce) {
        sb_addf(err, "cannot create \"%s\": %s", sb_str(&tmp), plat_strerror(ce));
        sb_release(&tmp);
        return EXIT_IO;
    }
    struct archive *a = archive_write_new();
    int rc = 0;
    if (archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
        archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_open_fd(a, out) != ARCHIVE_OK) {
        sb_addf(err, "cannot create \"%s\": %s", sb_str(&tmp), arch_err(a));
        archive_write_free(a);
        close(out);
        plat_unlink(sb_str(&tmp));
        sb_release(&tmp);
        return EXIT_IO;
    }
    struct archive_entry *ae = file_entry("manifest.json", strlen(manifest));
    if (archive_write_header(a, ae) != ARCHIVE_OK ||
        archive_write_data(a, manifest, strlen(manifest)) < 0) {
        sb_addf(err, "cannot write \"%s\": %s", sb_str(&tmp), arch_err(a));
        rc = EXIT_IO;
    }
    archive_entry_free(ae);
    char *buf = xmalloc(CHUNK);
    for (size_t i = 0; i < n && !rc; i++) {
        struct strbuf src = STRBUF_INIT, name = STRBUF_INIT;
        sb_addf(&src, "%s/%s", cache_dir, e[i].rel);
        sb_addf(&name, "cache/%s", e[i].rel);
        int fd = open(sb_str(&src), O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) {
            sb_addf(err, "cannot read cache entry \"%s\": %s", sb_str(&src), strerror(errno));
            rc = EXIT_IO;
        } else {
            ae = file_entry(sb_str(&name), (uint64_t)st.st_size);
            if (archive_write_header(a, ae) != ARCHIVE_OK) {
                sb_addf(err, "cannot write \"%s\": %s", sb_str(&tmp), arch_err(a));
                rc = EXIT_IO;
            }
            uint64_t left = (uint64_t)st.st_size;
            while (!rc && left) {
                ssize_t r = read(fd, buf, left < CHUNK ? left : CHUNK);
                if (r <= 0) {
                    sb_addf(err, "cannot read cache entry \"%s\": %s", sb_str(&src),
                            r < 0 ? strerror(errno) : "it shrank while being packed");
                    rc = EXIT_IO;
                } else if (archive_write_data(a, buf, (size_t)r) < 0) {
                    sb_addf(err, "cannot write \"%s\": %s", sb_str(&tmp), arch_err(a));
                    rc = EXIT_IO;
                } else {
                    left -= (uint64_t)r;
                }
            }
            archive_entry_free(ae);
        }
        if (fd >= 0)
            close(fd);
        sb_release(&src);
        sb_release(&name);
    }
    free(buf);
    if (archive_write_close(a) != ARCHIVE_OK && !rc) {
        sb_addf(err, "cannot write \"%s\": %s", sb_str(&tmp), arch_err(a));
        rc = EXIT_IO;
    }
    archive_write_free(a);
    if (close(out) != 0 && !rc) {
        sb_addf(err, "cannot write \"%s\": %s", sb_str(&tmp), strerror(errno));
        rc = EXIT_IO;
    }
    if (!rc && rename(sb_str(&tmp), path) != 0) {
        sb_addf(err, "cannot rename \"%s\" to \"%s\": %s", sb_str(&tmp), path, strerror(errno));
        rc = EXIT_IO;
    }
    if (rc)
        plat_unlink(sb_str(&tmp));
    sb_release(&tmp);
    return rc;
}

static struct archive *open_reader(const char *path, struct strbuf *err)
{
    /* a FIFO or a device is refused before libarchive opens it (it would block or read
     * without end) */
    int fd, e = plat_open_regular(path, &fd);
    if (e) {
        sb_addf(err, "%s: cannot open: %s", path, plat_strerror(e));
        return NULL;
    }
    plat_close(fd);
    struct archive *a = archive_read_new();
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, path, CHUNK) != ARCHIVE_OK) {
        sb_addf(err, "%s: cannot open: %s", path, archive_error_string(a));
        archive_read_free(a);
        return NULL;
    }
    return a;
}

int artifact_read_manifest(const char *path, json_t **manifest, struct strbuf *err)
{
    *manifest = NULL;
    struct archive *a = open_reader(path, err);
    if (!a)
        return EXIT_IO;
    struct archive_entry *ae;
    int rc = EXIT_IO;
    int r = archive_read_next_header(a, &ae);
    if (r != ARCHIVE_OK) {
        sb_addf(err, "%s: not a readable artifact: %s", path,
                r == ARCHIVE_EOF ? "it is empty" : archive_error_string(a));
    } else if (strcmp(archive_entry_pathname(ae), "manifest.json") != 0 ||
               archive_entry_filetype(ae) != AE_IFREG) {
        sb_addf(err, "%s: the first member is \"%s\", not the file manifest.json", path,
                archive_entry_pathname(ae));
    } else if (archive_entry_size(ae) < 0 || archive_entry_size(ae) > (la_int64_t)MANIFEST_MAX) {
        sb_addf(err, "%s: manifest.json is larger than %u MiB", path, MANIFEST_MAX >> 20);
    } else {
        size_t size = (size_t)archive_entry_size(ae);
        char *buf = xmalloc(size + 1);
        la_ssize_t got = archive_read_data(a, buf, size);
        if (got != (la_ssize_t)size) {
            sb_addf(err, "%s: manifest.json is truncated: %s", path,
                    got < 0 ? archive_error_string(a) : "short read");
        } else {
            json_error_t je;
            *manifest = json_loadb(buf, size, 0, &je);
            if (!*manifest || !json_is_object(*manifest)) {
                sb_addf(err, "%s: manifest.json is not a JSON object: %s (line %d)", path,
                        *manifest ? "wrong type" : je.text, je.line);
                json_decref(*manifest);
                *manifest = NULL;
            } else {
                rc = 0;
            }
        }
        free(buf);
    }
    archive_read_free(a);
    return rc;
}

/* Compares the rest of the member with the file at dest; 1 when equal. */
static int same_bytes(struct archive *a, const char *dest, uint64_t size, char *buf, char *buf2,
                      struct sha256 *h, int *io_error)
{
    int fd = open(dest, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *io_error = errno;
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int same = (uint64_t)st.st_size == size;
    for (;;) {
        la_ssize_t r = archive_read_data(a, buf, CHUNK);
        if (r < 0) {
            *io_error = -1;
            same = 0;
            break;
        }
        if (r == 0)
            break;
        sha256_update(h, buf, (size_t)r);
        if (same) {
            ssize_t got = read(fd, buf2, (size_t)r);
            if (got != r || memcmp(buf, buf2, (size_t)r) != 0)
                same = 0;
        }
    }
    close(fd);
    return same;
}

static void add_digest(struct extract_stats *st, const char *rel, struct sha256 *h)
{
    unsigned char d[32];
    char hex[65];
    sha256_final(h, d);
    sha256_hex(d, hex);
    json_object_set_new(st->digests, rel, json_string(hex));
}

int artifact_extract(const char *path, const char *dir, struct extract_stats *st,
                     struct strbuf *err)
{
    memset(st, 0, sizeof *st);
    st->differing = json_array();
    st->members = json_object();
    st->digests = json_object();
    struct stat ast;
    if (stat(path, &ast) != 0) {
        sb_addf(err, "%s: %s", path, strerror(errno));
        return EXIT_IO;
    }
    uint64_t budget = (uint64_t)ast.st_size * BOMB_RATIO + BOMB_FLOOR, total = 0;
    struct archive *a = open_reader(path, err);
    if (!a)
        return EXIT_IO;
    char *buf = xmalloc(CHUNK), *buf2 = xmalloc(CHUNK);
    int rc = 0, first = 1;
    struct archive_entry *ae;
    for (;;) {
        int r = archive_read_next_header(a, &ae);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) {
            sb_addf(err, "%s: corrupt archive: %s", path, archive_error_string(a));
            rc = EXIT_IO;
            break;
        }
        const char *name = archive_entry_pathname(ae);
        name = name ? name : "";
        if (first) {
            first = 0;
            if (strcmp(name, "manifest.json") == 0 && archive_entry_filetype(ae) == AE_IFREG)
                continue; /* read by artifact_read_manifest */
        }
        if (archive_entry_filetype(ae) == AE_IFDIR && dir_name_ok(name)) {
            archive_read_data_skip(a); /* tar's own directory entries: nothing to do */
            continue;
        }
        if (archive_entry_filetype(ae) != AE_IFREG || archive_entry_hardlink(ae) ||
            archive_entry_symlink(ae)) {
            sb_addf(err, "%s: entry \"%s\" is not a regular file (links and devices are refused)",
                    path, name);
            rc = EXIT_IO;
            break;
        }
        if (strncmp(name, "cache/", 6) != 0 || !cache_entry_name_ok(name + 6)) {
            int escapes = name[0] == '/' || strstr(name, "..") != NULL;
            sb_addf(err, "%s: entry \"%s\" %s", path, name,
                    escapes ? "escapes the cache directory"
                            : "is not a ccache result or manifest entry under cache/");
            rc = EXIT_IO;
            break;
        }
        la_int64_t size = archive_entry_size(ae);
        if (size < 0 || (uint64_t)size > MEMBER_MAX) {
            sb_addf(err, "%s: entry \"%s\" declares an impossible size", path, name);
            rc = EXIT_IO;
            break;
        }
        const char *rel = name + 6;
        if (json_object_get(st->members, rel)) {
            sb_addf(err, "%s: entry \"%s\" appears twice", path, name);
            rc = EXIT_IO;
            break;
        }
        json_object_set_new(st->members, rel, json_integer(size));
        total += (uint64_t)size;
        if (total > budget) {
            sb_addf(err, "%s: decompresses to more than %dx its size (a decompression bomb?)", path,
                    BOMB_RATIO);
            rc = EXIT_IO;
            break;
        }
        struct strbuf dest = STRBUF_INIT;
        sb_addf(&dest, "%s/%s", dir, rel);
        /* every member's SHA-256, to be checked against the manifest's (merge) */
        struct sha256 h;
        sha256_init(&h);
        if (plat_file_exists(sb_str(&dest))) {
            if (cache_entry_kind(rel, sb_str(&dest)) == CACHE_MANIFEST) {
                st->kept++; /* direct-mode manifests may differ in stat data: keep one */
                la_ssize_t n;
                while ((n = archive_read_data(a, buf, CHUNK)) > 0)
                    sha256_update(&h, buf, (size_t)n);
                if (n < 0) {
                    sb_addf(err, "%s: corrupt entry \"%s\": %s", path, name,
                            archive_error_string(a));
                    rc = EXIT_IO;
                }
            } else {
                int ioe = 0;
                int same = same_bytes(a, sb_str(&dest), (uint64_t)size, buf, buf2, &h, &ioe);
                if (ioe) {
                    sb_addf(err, "%s: cannot compare entry \"%s\": %s", path, name,
                            ioe > 0 ? strerror(ioe) : archive_error_string(a));
                    rc = EXIT_IO;
                } else if (same) {
                    st->same++;
                } else {
                    json_array_append_new(st->differing, json_string(rel));
                }
            }
            sb_release(&dest);
            if (rc)
                break;
            add_digest(st, rel, &h);
            continue;
        }
        char *parent =
            xstrndup(sb_str(&dest), (size_t)(path_basename(sb_str(&dest)) - sb_str(&dest)));
        int e = plat_mkdir_p(parent);
        free(parent);
        int fd =
            e ? -1
              : open(sb_str(&dest), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            sb_addf(err, "cannot create \"%s\": %s", sb_str(&dest), strerror(e ? e : errno));
            sb_release(&dest);
            rc = EXIT_IO;
            break;
        }
        uint64_t got = 0;
        for (;;) {
            la_ssize_t n = archive_read_data(a, buf, CHUNK);
            if (n < 0) {
                sb_addf(err, "%s: corrupt entry \"%s\": %s", path, name, archive_error_string(a));
                rc = EXIT_IO;
                break;
            }
            if (n == 0)
                break;
            got += (uint64_t)n;
            sha256_update(&h, buf, (size_t)n);
            const char *p = buf;
            size_t left = (size_t)n;
            while (left) {
                ssize_t w = write(fd, p, left);
                if (w < 0) {
                    if (errno == EINTR)
                        continue;
                    sb_addf(err, "cannot write \"%s\": %s", sb_str(&dest), strerror(errno));
                    rc = EXIT_IO;
                    break;
                }
                p += w;
                left -= (size_t)w;
            }
            if (rc)
                break;
        }
        if (close(fd) != 0 && !rc) {
            sb_addf(err, "cannot write \"%s\": %s", sb_str(&dest), strerror(errno));
            rc = EXIT_IO;
        }
        if (!rc && got != (uint64_t)size) {
            sb_addf(err, "%s: entry \"%s\" is truncated", path, name);
            rc = EXIT_IO;
        }
        sb_release(&dest);
        if (rc)
            break;
        add_digest(st, rel, &h);
        st->added++;
    }
    free(buf);
    free(buf2);
    archive_read_free(a);
    return rc;
}

int artifact_extract_member(const char *path, const char *rel, const char *dest, struct strbuf *err)
{
    struct archive *a = open_reader(path, err);
    if (!a)
        return EXIT_IO;
    struct strbuf name = STRBUF_INIT, tmp = STRBUF_INIT;
    sb_addf(&name, "cache/%s", rel);
    int rc = -1;
    struct archive_entry *ae;
    while (rc < 0) {
        int r = archive_read_next_header(a, &ae);
        if (r == ARCHIVE_EOF) {
            sb_addf(err, "%s: holds no \"%s\"", path, sb_str(&name));
            rc = EXIT_IO;
        } else if (r != ARCHIVE_OK) {
            sb_addf(err, "%s: corrupt archive: %s", path, archive_error_string(a));
            rc = EXIT_IO;
        } else if (archive_entry_filetype(ae) == AE_IFREG && archive_entry_pathname(ae) &&
                   !strcmp(archive_entry_pathname(ae), sb_str(&name))) {
            int out, e = plat_create_temp(dest, 0, &tmp, &out);
            if (e) {
                sb_addf(err, "cannot create \"%s\": %s", sb_str(&tmp), plat_strerror(e));
                rc = EXIT_IO;
                break;
            }
            rc = archive_read_data_into_fd(a, out) == ARCHIVE_OK ? EXIT_OK : EXIT_IO;
            if (rc)
                sb_addf(err, "%s: corrupt entry \"%s\": %s", path, sb_str(&name),
                        archive_error_string(a));
            if (close(out) != 0 && !rc) {
                sb_addf(err, "cannot write \"%s\": %s", sb_str(&tmp), strerror(errno));
                rc = EXIT_IO;
            }
            if (!rc && (e = plat_rename(sb_str(&tmp), dest)) != 0) {
                sb_addf(err, "cannot rename \"%s\" to \"%s\": %s", sb_str(&tmp), dest,
                        plat_strerror(e));
                rc = EXIT_IO;
            }
            if (rc)
                plat_unlink(sb_str(&tmp));
        }
    }
    archive_read_free(a);
    sb_release(&name);
    sb_release(&tmp);
    return rc;
}

int artifact_read_manifests(char **files, size_t n, json_t ***out, const char *cmd)
{
    *out = calloc(n ? n : 1, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        struct strbuf err = STRBUF_INIT;
        int rc = artifact_read_manifest(files[i], &(*out)[i], &err);
        if (rc) {
            report_error(cmd, "%s", sb_str(&err));
            sb_release(&err);
            for (size_t k = 0; k < i; k++)
                json_decref((*out)[k]);
            free(*out);
            *out = NULL;
            return rc;
        }
        sb_release(&err);
    }
    return EXIT_OK;
}
