/* fuzz_artifact: the shard artifact reader (artifact.c) and the merge (merge.c), as
 * `shardcc merge` runs them. Two kinds of input, told apart by the first byte that is not
 * white space:
 *
 * '{': one or two manifests (JSON), separated by a NUL byte. Each is packed by
 *      artifact_write() with a fixed cache directory (c1/ for the first, c2/ for the
 *      second: the same result entry with other bytes, so two manifests that agree reach
 *      the nondeterminism guard). The first must read back (artifact_read_manifest) as the
 *      JSON it is, when it is a JSON object. Then merge_run() on the artifacts.
 * else: the bytes of an artifact file (.tar.zst; a plain tar is read as well).
 *      artifact_read_manifest(), then artifact_extract() twice into one directory (the
 *      second finds every entry present: identical bytes, never "differing"), the
 *      extracted tree checked against the members the reader reported, then merge_run().
 *
 * merge_run() gets --allow-partial, so that one shard of N passes the identity guard and
 * goes on to extraction and the manifest-against-archive check. Everything is written
 * under the process's temporary directory and removed before the next input. */
#include "artifact.h"
#include "classify.h"
#include "fuzz_support.h"
#include "merge.h"
#include "platform.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* artifact.c's MANIFEST_MAX, the largest manifest read; artifacts are bounded by
 * libFuzzer's -max_len. */
#define INPUT_MAX (64u << 20)

struct fixed_cache {
    char *dir;
    struct cache_entry *e;
    size_t n;
};
static struct fixed_cache c1, c2;

static void put(const char *name, const char *text)
{
    fuzz_write(name, text, strlen(text));
}

static void list_fixed(struct fixed_cache *c, const char *rel)
{
    struct strbuf err = STRBUF_INIT;
    c->dir = fuzz_path(rel);
    if (cache_list(c->dir, &c->e, &c->n, &err) != 0 || c->n == 0)
        fuzz_fail("cache_list(%s): %s", c->dir, sb_str(&err));
    sb_release(&err);
}

static void release_fixed(void)
{
    cache_list_release(c1.e, c1.n);
    cache_list_release(c2.e, c2.n);
    free(c1.dir);
    free(c2.dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* the seeds' manifests (tests/fuzz/corpus/artifact/, *.json) list exactly these */
    put("c1/a/b/c0ffee00R", "result one");
    put("c1/a/b/c0ffee00M", "manifest one");
    put("c1/d/e/d00dR", "d00d");
    put("c2/a/b/c0ffee00R", "result two!");
    put("c2/a/b/c0ffee00M", "manifest two");
    put("c2/f/f/ffR", "ff");
    list_fixed(&c1, "c1");
    list_fixed(&c2, "c2");
    atexit(release_fixed);
    return 0;
}

/* Counts the regular files under dir; fails on anything else but directories. */
static size_t count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        fuzz_fail("cannot list \"%s\"", dir);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct strbuf p = STRBUF_INIT;
        sb_addf(&p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(sb_str(&p), &st) != 0)
            fuzz_fail("cannot stat \"%s\"", sb_str(&p));
        if (S_ISDIR(st.st_mode))
            n += count_files(sb_str(&p));
        else if (S_ISREG(st.st_mode))
            n++;
        else
            fuzz_fail("extraction made \"%s\", not a file or directory", sb_str(&p));
        sb_release(&p);
    }
    closedir(d);
    return n;
}

/* Every member the reader reported is a file of that size, and nothing else was made. */
static void check_extracted(const char *dir, json_t *members)
{
    struct cache_entry *e;
    size_t n;
    struct strbuf err = STRBUF_INIT;
    if (cache_list(dir, &e, &n, &err) != 0)
        fuzz_fail("cache_list after extraction: %s", sb_str(&err));
    if (n != json_object_size(members) || count_files(dir) != n)
        fuzz_fail("extracted %zu cache entries (%zu files), the archive has %zu", n,
                  count_files(dir), json_object_size(members));
    for (size_t i = 0; i < n; i++) {
        json_t *size = json_object_get(members, e[i].rel);
        if (!size || (uint64_t)json_integer_value(size) != e[i].size)
            fuzz_fail("extracted \"%s\" (%llu bytes) is not a member of that size", e[i].rel,
                      (unsigned long long)e[i].size);
    }
    cache_list_release(e, n);
    sb_release(&err);
}

/* Nothing was written beside the extraction directory (an entry that escaped it). */
static void check_tmpdir(void)
{
    static const char *const known[] = {"c1", "c2", "in.tar.zst", "x", NULL};
    struct strvec names = STRVEC_INIT;
    if (plat_list_dir(fuzz_tmpdir(), &names) != 0)
        fuzz_fail("cannot list \"%s\"", fuzz_tmpdir());
    for (size_t i = 0; i < names.n; i++) {
        size_t k = 0;
        while (known[k] && strcmp(known[k], names.v[i]))
            k++;
        if (!known[k])
            fuzz_fail("extraction made \"%s\" in %s", names.v[i], fuzz_tmpdir());
    }
    sv_clear(&names);
}

static void stats_release(struct extract_stats *st)
{
    json_decref(st->differing);
    json_decref(st->members);
    json_decref(st->digests);
}

static void merge(char **files, size_t n)
{
    char *cache = fuzz_path("cache");
    struct merge_opts o;
    memset(&o, 0, sizeof o);
    o.cache = cache;
    o.inputs = files;
    o.ninputs = n;
    o.allow_partial = 1;
    o.cmd = "fuzz merge";
    struct merge_result r;
    int rc = merge_run(&o, &r);
    if (rc != EXIT_OK && rc != EXIT_GUARD && rc != EXIT_IO)
        fuzz_fail("merge_run returned %d", rc);
    if (rc == EXIT_OK && !plat_is_dir(cache))
        fuzz_fail("merge_run succeeded without making the cache");
    if (rc != EXIT_OK && plat_file_exists(cache))
        fuzz_fail("merge_run failed (%d) and left a cache", rc);
    struct strbuf staging = STRBUF_INIT;
    sb_addf(&staging, "%s.merging.%ld", cache, plat_pid());
    if (plat_file_exists(sb_str(&staging)))
        fuzz_fail("merge_run left its staging directory");
    sb_release(&staging);
    free(r.root);
    free(r.plan);
    json_decref(r.cmake);
    free(cache);
    fuzz_remove("cache");
}

static void archive_input(const uint8_t *data, size_t size)
{
    fuzz_write("in.tar.zst", data, size);
    char *path = fuzz_path("in.tar.zst"), *x = fuzz_path("x");
    struct strbuf err = STRBUF_INIT;

    json_t *m;
    int rc = artifact_read_manifest(path, &m, &err);
    if (rc == 0 ? !json_is_object(m) : (m != NULL || !err.len))
        fuzz_fail("artifact_read_manifest returned %d, %s, \"%s\"", rc, m ? "a manifest" : "none",
                  sb_str(&err));
    json_decref(m);

    if (plat_mkdir_p(x) != 0)
        fuzz_fail("cannot create \"%s\"", x);
    struct extract_stats st1, st2;
    sb_reset(&err);
    int rc1 = artifact_extract(path, x, &st1, &err);
    if (rc1 == 0)
        check_extracted(x, st1.members);
    sb_reset(&err);
    int rc2 = artifact_extract(path, x, &st2, &err);
    if (rc1 == 0 && rc2 == 0) {
        size_t members = json_object_size(st1.members);
        if (st2.added || json_array_size(st2.differing) || st2.same + st2.kept != members ||
            !json_equal(st1.members, st2.members))
            fuzz_fail("the second extraction of one archive: %zu added, %zu differing, %zu same, "
                      "%zu kept of %zu members",
                      st2.added, json_array_size(st2.differing), st2.same, st2.kept, members);
    }
    stats_release(&st1);
    stats_release(&st2);
    check_tmpdir();
    fuzz_remove("x");

    merge(&path, 1);
    fuzz_remove("in.tar.zst");
    sb_release(&err);
    free(path);
    free(x);
}

static void manifest_input(const char *text, size_t size)
{
    const char *second = memchr(text, '\0', size) ? text + strlen(text) + 1 : NULL;
    char *files[2] = {fuzz_path("m1.tar.zst"), second ? fuzz_path("m2.tar.zst") : NULL};
    struct strbuf err = STRBUF_INIT;
    if (artifact_write(files[0], text, c1.dir, c1.e, c1.n, &err) != 0 ||
        (second && artifact_write(files[1], second, c2.dir, c2.e, c2.n, &err) != 0))
        fuzz_fail("artifact_write: %s", sb_str(&err));

    json_error_t je;
    json_t *want = json_loads(text, 0, &je), *got;
    int rc = artifact_read_manifest(files[0], &got, &err);
    if (json_is_object(want) ? rc != 0 || !json_equal(want, got) : rc == 0)
        fuzz_fail("the manifest written is %s, read back %s",
                  json_is_object(want) ? "an object" : "no object",
                  rc ? "not at all" : "as another");
    json_decref(want);
    json_decref(got);

    merge(files, second ? 2 : 1);
    fuzz_remove("m1.tar.zst");
    fuzz_remove("m2.tar.zst");
    free(files[0]);
    free(files[1]);
    sb_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    size_t i = 0;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    if (i < size && data[i] == '{') {
        char *text = fuzz_cstr(data, size);
        manifest_input(text, size);
        free(text);
    } else {
        archive_input(data, size);
    }
    return 0;
}
