/* merge: the checks and the union of shard artifacts (see merge.h). */
#include "merge.h"
#include "artifact.h"
#include "exit_status.h"
#include "jobenv.h"
#include "path.h"
#include "platform.h"
#include "strvec.h"

#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct art {
    char *path;
    json_t *m;
    const char *cell, *fp, *tool;
    const char *root; /* NULL: made with --relocatable */
    int reproducible; /* made with --reproducible (absent in older manifests: no) */
    json_t *plan;
    int shard, count;
};

/* Files named by the inputs: a directory contributes its *.tar.zst files, sorted. */
int merge_expand_inputs(const struct merge_opts *o, char ***out, size_t *n)
{
    size_t alloc = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < o->ninputs; i++) {
        const char *in = o->inputs[i];
        if (!plat_is_dir(in)) {
            if (!plat_file_exists(in)) {
                report_error(o->cmd, "artifact \"%s\" does not exist", in);
                return EXIT_IO;
            }
            if (*n == alloc)
                *out = xrealloc(*out, (alloc = alloc ? alloc * 2 : 16) * sizeof **out);
            (*out)[(*n)++] = xstrdup(in);
            continue;
        }
        struct strvec names = STRVEC_INIT;
        int e = plat_list_dir(in, &names);
        if (e) {
            report_error(o->cmd, "cannot read \"%s\": %s", in, plat_strerror(e));
            return EXIT_IO;
        }
        for (size_t k = 0; k < names.n; k++) {
            const char *name = names.v[k];
            size_t len = strlen(name);
            if (name[0] == '.' || len < 8 || strcmp(name + len - 8, ".tar.zst"))
                continue;
            if (*n == alloc)
                *out = xrealloc(*out, (alloc = alloc ? alloc * 2 : 16) * sizeof **out);
            struct strbuf p = STRBUF_INIT;
            sb_addf(&p, "%s/%s", in, name);
            (*out)[(*n)++] = sb_detach(&p);
        }
        sv_clear(&names);
    }
    return EXIT_OK;
}

static int load_manifest(const char *cmd, struct art *a)
{
    struct strbuf err = STRBUF_INIT;
    int rc = artifact_read_manifest(a->path, &a->m, &err);
    if (rc) {
        report_error(cmd, "%s", sb_str(&err));
        sb_release(&err);
        return rc;
    }
    json_t *fmt = json_object_get(a->m, "format");
    a->cell = json_string_value(json_object_get(a->m, "cell"));
    a->fp = json_string_value(json_object_get(a->m, "fingerprint"));
    a->tool = json_string_value(json_object_get(a->m, "tool"));
    a->plan = json_object_get(a->m, "plan");
    json_t *root = json_object_get(a->m, "root");
    a->root = json_string_value(root);
    a->reproducible = json_is_true(json_object_get(a->m, "reproducible"));
    json_t *s = json_object_get(a->m, "shard"), *c = json_object_get(a->m, "count");
    if (!json_is_integer(fmt) || json_integer_value(fmt) != ARTIFACT_FORMAT) {
        report_error(cmd, "%s: manifest format %s is not %d (made by another shardcc?)", a->path,
                     json_is_integer(fmt) ? "other" : "missing", ARTIFACT_FORMAT);
        return EXIT_IO;
    }
    if (!a->cell || !a->fp || !a->tool || !json_is_integer(s) || !json_is_integer(c) ||
        !(json_is_string(root) || json_is_null(root)) ||
        !json_is_array(json_object_get(a->m, "entries")) ||
        !json_is_array(json_object_get(a->m, "tus"))) {
        report_error(cmd,
                     "%s: manifest.json lacks cell, shard, count, fingerprint, root, tool, tus "
                     "or entries",
                     a->path);
        return EXIT_IO;
    }
    /* what a manifest names goes into messages and reports: a cell id's characters only,
     * and keys and outputs without control characters (report_error prints the refused
     * text printable) */
    if (!cell_id_ok(a->cell)) {
        report_error(cmd,
                     "%s: the manifest's cell \"%s\" is not a cell id (letters, digits, . _ + -)",
                     a->path, a->cell);
        return EXIT_IO;
    }
    const char *lists[] = {"tus", "others"}, *fields[] = {"key", "output"};
    for (size_t l = 0; l < 2; l++) {
        size_t x;
        json_t *t;
        json_array_foreach(json_object_get(a->m, lists[l]), x, t)
        {
            const char *name = json_string_value(json_object_get(t, fields[l]));
            for (const char *p = name; p && *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                    report_error(cmd, "%s: the manifest names a TU \"%s\" with a control character",
                                 a->path, name);
                    return EXIT_IO;
                }
        }
    }
    a->shard = (int)json_integer_value(s);
    a->count = (int)json_integer_value(c);
    if (a->count < 1 || a->count > 100000 || a->shard < 1 || a->shard > a->count) {
        report_error(cmd, "%s: manifest says shard %d of %d", a->path, a->shard, a->count);
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* Plans are equal when both are absent or null, or equal JSON. */
static int same_plan(json_t *a, json_t *b)
{
    int an = !a || json_is_null(a), bn = !b || json_is_null(b);
    return an || bn ? an == bn : json_equal(a, b);
}

static int same_root(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

static int same_identity(const struct art *a, const struct art *b)
{
    return !strcmp(a->cell, b->cell) && !strcmp(a->fp, b->fp) && !strcmp(a->tool, b->tool) &&
           a->count == b->count && same_plan(a->plan, b->plan) && same_root(a->root, b->root);
}

/* The TU (or output) whose result key names the cache entry rel, from all manifests. */
static const char *tu_of_entry(const struct art *arts, size_t n, const char *rel, int *pinned)
{
    *pinned = 0;
    char key[128];
    size_t k = 0;
    for (const char *p = rel; *p && k + 1 < sizeof key; p++)
        if (*p != '/')
            key[k++] = *p;
    if (k)
        k--; /* the trailing R */
    key[k] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *lists[] = {"tus", "others"};
        for (size_t l = 0; l < 2; l++) {
            size_t x;
            json_t *t;
            json_array_foreach(json_object_get(arts[i].m, lists[l]), x, t)
            {
                const char *r = json_string_value(json_object_get(t, "result"));
                if (r && !strcmp(r, key)) {
                    const char *name = json_string_value(json_object_get(t, l ? "output" : "key"));
                    *pinned = json_is_true(json_object_get(t, "pinned")) ||
                              json_is_true(json_object_get(t, "device"));
                    if (name)
                        return name;
                }
            }
        }
    }
    return NULL;
}

static int by_shard(const void *a, const void *b)
{
    const struct art *x = a, *y = b;
    return (x->shard > y->shard) - (x->shard < y->shard);
}

/* The manifest's entry list must be exactly what the archive holds. */
static int check_entries(const char *cmd, const struct art *a, json_t *members)
{
    size_t i;
    json_t *e;
    size_t listed = 0;
    json_array_foreach(json_object_get(a->m, "entries"), i, e)
    {
        const char *p = json_string_value(json_object_get(e, "path"));
        json_t *size = json_object_get(e, "size");
        json_t *got = p && !strncmp(p, "cache/", 6) ? json_object_get(members, p + 6) : NULL;
        if (!got || !json_is_integer(size) || json_integer_value(got) != json_integer_value(size)) {
            report_error(cmd, "%s: the manifest lists \"%s\" (%s), which the archive %s", a->path,
                         p ? p : "?", json_is_integer(size) ? "with a size" : "without a size",
                         got ? "holds with another size" : "does not hold");
            return EXIT_IO;
        }
        listed++;
    }
    if (listed != json_object_size(members)) {
        report_error(cmd, "%s: the archive holds %zu cache entries, the manifest lists %zu",
                     a->path, json_object_size(members), listed);
        return EXIT_IO;
    }
    return EXIT_OK;
}

static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    int empty = 1;
    while (empty && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

static int guard_identity(const struct merge_opts *o, struct art *arts, size_t n,
                          const struct art **ref_out)
{
    /* The reference is the identity most artifacts share; the others are foreign. */
    const struct art *ref = n ? &arts[0] : NULL;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        size_t votes = 0;
        for (size_t k = 0; k < n; k++)
            votes += same_identity(&arts[i], &arts[k]);
        if (votes > best) {
            best = votes;
            ref = &arts[i];
        }
    }
    *ref_out = ref;
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const struct art *a = &arts[i];
        if (!strcmp(a->cell, ref->cell) && a->count == ref->count && strcmp(a->fp, ref->fp)) {
            report_error(o->cmd,
                         "%s: foreign fingerprint %s (the others: %s): built with "
                         "another toolchain",
                         a->path, a->fp, ref->fp);
            bad = 1;
        } else if (strcmp(a->cell, ref->cell)) {
            report_error(o->cmd, "%s: foreign cell \"%s\" (the others: \"%s\")", a->path, a->cell,
                         ref->cell);
            bad = 1;
        } else if (a->count != ref->count) {
            report_error(o->cmd, "%s: shard %d of %d, the others are of %d", a->path, a->shard,
                         a->count, ref->count);
            bad = 1;
        } else if (strcmp(a->tool, ref->tool)) {
            report_error(o->cmd, "%s: made by %s, the others by %s", a->path, a->tool, ref->tool);
            bad = 1;
        } else if (!same_plan(a->plan, ref->plan)) {
            report_error(o->cmd, "%s: made with another plan than the others", a->path);
            bad = 1;
        } else if (a->reproducible != ref->reproducible) {
            report_error(o->cmd,
                         "%s: made %sreproducible, the others %sreproducible (give every job the "
                         "same --reproducible or --no-reproducible)",
                         a->path, a->reproducible ? "" : "not ", ref->reproducible ? "" : "not ");
            bad = 1;
        } else if (!same_root(a->root, ref->root)) {
            report_error(o->cmd, "%s: made at %s%s%s, the others at %s%s%s", a->path,
                         a->root ? "\"" : "", a->root ? a->root : "any root (--relocatable)",
                         a->root ? "\"" : "", ref->root ? "\"" : "",
                         ref->root ? ref->root : "any root (--relocatable)", ref->root ? "\"" : "");
            bad = 1;
        }
    }
    if (o->expect && ref->count != o->expect) {
        report_error(o->cmd, "the artifacts are shards of %d, %d were expected", ref->count,
                     o->expect);
        bad = 1;
    }
    if (bad)
        return EXIT_GUARD;
    int *seen = calloc((size_t)ref->count + 1, sizeof *seen);
    for (size_t i = 0; i < n; i++) {
        if (seen[arts[i].shard]) {
            report_error(o->cmd, "%s: duplicate: shard %d/%d is also %s", arts[i].path,
                         arts[i].shard, ref->count, arts[seen[arts[i].shard] - 1].path);
            bad = 1;
        }
        seen[arts[i].shard] = (int)i + 1;
    }
    struct strbuf missing = STRBUF_INIT;
    int nmissing = 0;
    for (int s = 1; s <= ref->count; s++)
        if (!seen[s]) {
            sb_addf(&missing, "%s%d", nmissing ? ", " : "", s);
            nmissing++;
        }
    free(seen);
    if (bad) {
        sb_release(&missing);
        return EXIT_GUARD;
    }
    if (nmissing) {
        if (o->allow_partial)
            report_warning(o->cmd, "cell %s: shard%s %s of %d missing (--allow-partial)", ref->cell,
                           nmissing > 1 ? "s" : "", sb_str(&missing), ref->count);
        else
            report_error(o->cmd, "cell %s: shard%s %s of %d missing", ref->cell,
                         nmissing > 1 ? "s" : "", sb_str(&missing), ref->count);
    }
    sb_release(&missing);
    return nmissing && !o->allow_partial ? EXIT_GUARD : EXIT_OK;
}

int merge_run(const struct merge_opts *o, struct merge_result *res)
{
    memset(res, 0, sizeof *res);
    /* what the final rename needs, checked before the work: a name, not a symbolic link */
    struct stat lst;
    if (!*o->cache) {
        report_error(o->cmd, "the cache directory is \"\": name the directory to merge into");
        return EXIT_USAGE;
    }
    if (lstat(o->cache, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        report_error(o->cmd,
                     "the cache directory \"%s\" is a symbolic link: name a new directory "
                     "(the merged cache is renamed into place)",
                     o->cache);
        return EXIT_USAGE;
    }
    if (plat_file_exists(o->cache) && !(plat_is_dir(o->cache) && dir_is_empty(o->cache))) {
        report_error(o->cmd,
                     "the cache directory \"%s\" exists and is not empty: merge into a "
                     "new one",
                     o->cache);
        return EXIT_USAGE;
    }
    char **files;
    size_t n;
    int rc = merge_expand_inputs(o, &files, &n);
    if (rc)
        return rc;
    if (n == 0) {
        report_error(o->cmd, "no artifacts found (looked for *.tar.zst in the inputs)");
        free(files);
        return EXIT_GUARD;
    }
    struct art *arts = calloc(n, sizeof *arts);
    for (size_t i = 0; i < n; i++)
        arts[i].path = files[i]; /* all of them: the loop below may stop early */
    for (size_t i = 0; i < n && !rc; i++)
        rc = load_manifest(o->cmd, &arts[i]);
    const struct art *ref = NULL;
    if (!rc)
        rc = guard_identity(o, arts, n, &ref);
    if (!rc) /* the first extracted copy of an entry is kept: shard 1's */
        qsort(arts, n, sizeof *arts, by_shard);

    struct strbuf staging = STRBUF_INIT, err = STRBUF_INIT;
    sb_addf(&staging, "%s.merging.%ld", o->cache, plat_pid());
    if (!rc) {
        int e = plat_rmtree(sb_str(&staging));
        if (!e)
            e = plat_mkdir_p(sb_str(&staging));
        if (e) {
            report_error(o->cmd, "cannot create \"%s\": %s", sb_str(&staging), plat_strerror(e));
            rc = EXIT_IO;
        }
    }
    json_t *diff = json_array();
    for (size_t i = 0; i < n && !rc; i++) {
        struct extract_stats st;
        rc = artifact_extract(arts[i].path, sb_str(&staging), &st, &err);
        if (rc)
            report_error(o->cmd, "%s", sb_str(&err));
        else
            rc = check_entries(o->cmd, &arts[i], st.members);
        res->added += st.added;
        res->same += st.same;
        res->kept += st.kept;
        size_t k;
        json_t *d;
        json_array_foreach(st.differing, k, d)
            json_array_append_new(diff, json_pack("{s:O, s:s}", "rel", d, "art", arts[i].path));
        json_decref(st.differing);
        json_decref(st.members);
    }
    if (!rc && json_array_size(diff)) {
        size_t k;
        json_t *d;
        json_array_foreach(diff, k, d)
        {
            const char *rel = json_string_value(json_object_get(d, "rel"));
            int pinned;
            const char *tu = tu_of_entry(arts, n, rel, &pinned);
            if (pinned) {
                /* every shard compiled it: its copies differ in nvcc's temporary names */
                res->pinned_copies++;
                continue;
            }
            res->differing++;
            (o->allow_nondeterministic ? report_warning : report_error)(
                o->cmd,
                "nondeterministic codegen: %s: its result (cache entry %s) in %s differs "
                "from another shard's",
                tu ? tu : "(no TU recorded for it)", rel,
                json_string_value(json_object_get(d, "art")));
        }
        if (res->differing && !o->allow_nondeterministic)
            rc = EXIT_GUARD;
        if (res->pinned_copies)
            fprintf(stderr,
                    "%s: %zu results of pinned TUs differ between shards (every shard compiled "
                    "them; nvcc's temporary names differ): the link job gets shard %d's\n",
                    o->cmd, res->pinned_copies, n ? arts[0].shard : 1);
    }
    json_decref(diff);
    if (!rc) {
        int e = plat_is_dir(o->cache) ? (rmdir(o->cache) == 0 ? 0 : errno) : 0;
        if (!e)
            e = plat_rename(sb_str(&staging), o->cache);
        if (e == ENOTEMPTY || e == EEXIST) {
            /* another merge into the same directory finished first: its cache is whole */
            report_error(o->cmd,
                         "the cache directory \"%s\" was filled by another merge while this "
                         "one ran (that merge's cache is left as it is): give each merge a "
                         "directory of its own",
                         o->cache);
            rc = EXIT_USAGE;
        } else if (e) {
            report_error(o->cmd, "cannot move the merged cache into \"%s\": %s", o->cache,
                         plat_strerror(e));
            rc = EXIT_IO;
        }
    }
    if (rc)
        plat_rmtree(sb_str(&staging));
    if (ref) {
        res->count = ref->count;
        snprintf(res->cell, sizeof res->cell, "%s", ref->cell);
        snprintf(res->fingerprint, sizeof res->fingerprint, "%s", ref->fp);
        res->root = ref->root ? xstrdup(ref->root) : NULL;
        res->reproducible = ref->reproducible;
        res->plan = json_is_string(ref->plan) ? xstrdup(json_string_value(ref->plan)) : NULL;
    }
    res->present = (int)n;
    for (size_t i = 0; i < n; i++) {
        json_decref(arts[i].m);
        free(arts[i].path);
    }
    free(arts);
    free(files);
    sb_release(&staging);
    sb_release(&err);
    return rc;
}
