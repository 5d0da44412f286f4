/* merge: the checks and the union of shard artifacts (see merge.h). */
#include "merge.h"
#include "cmstate.h"
#include "artifact.h"
#include "devcode.h"
#include "exit_status.h"
#include "jobenv.h"
#include "path.h"
#include "platform.h"
#include "sha256.h"
#include "strvec.h"

#include <dirent.h>
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
    int remote;   /* the manifest came from the remote (path is its display name) */
    int fallback; /* an artifact for a shard the remote holds: extracted only if needed */
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

static int check_manifest(const char *cmd, struct art *a);

/* Whether s is n characters from set (n 0: one or more). */
static int all_of(const char *s, size_t n, const char *set)
{
    size_t len = s ? strlen(s) : 0;
    return len && (!n || len == n) && strspn(s, set) == len;
}

#define HEX "0123456789abcdef"
#define WORD "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

/* The first string under v (a member's name included) with a control character, and where
 * (into at); the owner's recorded arguments ("argv") are left out: they are the build's
 * own, printed through sb_add_printable when shown; and so is the CMake configure state
 * ("cmake"), which cmstate_check reads. */
static const char *control_text(json_t *v, const char *name, struct strbuf *at)
{
    if (json_is_string(v)) {
        for (const char *p = json_string_value(v); *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                sb_adds(at, name);
                return json_string_value(v);
            }
        return NULL;
    }
    const char *k, *bad;
    json_t *x;
    size_t i;
    if (json_is_object(v))
        json_object_foreach(v, k, x)
        {
            if (!strcmp(k, "argv") || !strcmp(k, "cmake"))
                continue; /* the CMake state's files are text of many lines: cmstate_check */
            for (const char *p = k; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                    sb_adds(at, name);
                    return k;
                }
            if ((bad = control_text(x, k, at)))
                return bad;
        }
    if (json_is_array(v))
        json_array_foreach(v, i, x) if ((bad = control_text(x, name, at))) return bad;
    return NULL;
}

/* The shapes of what a manifest names and a message or a report prints: the plan's
 * digest, the toolchain's fingerprint, ccache's version, result and item keys, items'
 * owners. A field of another shape is named into why. */
static int manifest_shapes(json_t *m, int count, struct strbuf *why)
{
    const char *plan = json_string_value(json_object_get(m, "plan"));
    const char *fp = json_string_value(json_object_get(m, "fingerprint"));
    const char *ccv = json_string_value(json_object_get(m, "ccache"));
    const char *tool = json_string_value(json_object_get(m, "tool"));
    if (!json_is_null(json_object_get(m, "plan")) && json_object_get(m, "plan") &&
        !(plan && !strncmp(plan, "plan1-", 6) && all_of(plan + 6, 32, HEX))) {
        sb_adds(why, "\"plan\" is not a plan's digest (plan1- and 32 hex digits)");
        return 1;
    }
    if (!all_of(fp, 0, WORD "-") || strlen(fp) > 100) {
        sb_adds(why, "\"fingerprint\" is not a toolchain fingerprint (letters, digits, -)");
        return 1;
    }
    if ((ccv && !all_of(ccv, 0, "0123456789.")) || !tool || strncmp(tool, "shardcc ", 8) ||
        !all_of(tool + 8, 0, WORD ".+-")) {
        sb_adds(why, "\"tool\" or \"ccache\" is not a version");
        return 1;
    }
    const char *lists[] = {"tus", "others"};
    for (size_t l = 0; l < 2; l++) {
        size_t x, y;
        json_t *t, *it;
        json_array_foreach(json_object_get(m, lists[l]), x, t)
        {
            json_t *r = json_object_get(t, "result");
            if (r && !json_is_null(r) && !all_of(json_string_value(r), 0, HEX "ghijklmnopqrstuv")) {
                sb_addf(why, "%s[%zu].result is not a ccache key", lists[l], x);
                return 1;
            }
            json_array_foreach(json_object_get(t, "items"), y, it)
            {
                json_t *k = json_object_get(it, "key"), *parts = json_object_get(it, "parts"),
                       *owner = json_object_get(it, "owner");
                const char *ps = json_string_value(parts);
                if ((k && !json_is_null(k) && !all_of(json_string_value(k), 64, HEX)) ||
                    (parts && !json_is_null(parts) &&
                     !(all_of(ps, 26, HEX ".") && ps[8] == '.' && ps[17] == '.')) ||
                    !json_is_integer(owner) || json_integer_value(owner) < 1 ||
                    json_integer_value(owner) > count) {
                    sb_addf(why,
                            "tus[%zu].items[%zu] has no item key (64 hex digits), parts "
                            "(A.T.M) or owner (1..%d)",
                            x, y, count);
                    return 1;
                }
            }
        }
    }
    return 0;
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
    return check_manifest(cmd, a);
}

/* What every manifest must hold, wherever it came from. */
static int check_manifest(const char *cmd, struct art *a)
{
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
    struct strbuf at = STRBUF_INIT;
    const char *bad = control_text(a->m, "manifest", &at);
    if (bad) {
        report_error(cmd, "%s: the manifest's %s \"%s\" holds a control character", a->path,
                     sb_str(&at), bad);
        sb_release(&at);
        return EXIT_IO;
    }
    sb_release(&at);
    /* the CMake configure state the link job may write into the tree (cmstate.h) */
    json_t *cm = json_object_get(a->m, "cmake");
    struct strbuf why = STRBUF_INIT;
    if (cm && cmstate_check(cm, &why) != 0) {
        report_error(cmd, "%s: the manifest's CMake configure state (\"cmake\"): %s", a->path,
                     sb_str(&why));
        sb_release(&why);
        return EXIT_IO;
    }
    sb_release(&why);
    a->shard = (int)json_integer_value(s);
    a->count = (int)json_integer_value(c);
    if (a->count < 1 || a->count > 100000 || a->shard < 1 || a->shard > a->count) {
        report_error(cmd, "%s: manifest says shard %d of %d", a->path, a->shard, a->count);
        return EXIT_IO;
    }
    if (manifest_shapes(a->m, a->count, &why)) {
        report_error(cmd, "%s: the manifest's %s", a->path, sb_str(&why));
        sb_release(&why);
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

/* The CMake configure state every shard recorded alike (a new reference), or NULL: some
 * shard recorded none, or two differ (a warning names where). */
static json_t *agreed_cmake(const struct merge_opts *o, const struct art *arts, size_t n)
{
    json_t *first = n ? json_object_get(arts[0].m, "cmake") : NULL;
    if (!first || !json_array_size(first))
        return NULL;
    for (size_t i = 1; i < n; i++) {
        json_t *other = json_object_get(arts[i].m, "cmake");
        if (!other)
            return NULL;
        if (!json_equal(first, other)) {
            struct strbuf d = STRBUF_INIT;
            cmstate_diff(first, other, &d);
            report_warning(o->cmd,
                           "the shards' CMake configure states differ (%s: shard %d's against "
                           "shard %d's): the link job configures afresh",
                           sb_str(&d), arts[0].shard, arts[i].shard);
            sb_release(&d);
            return NULL;
        }
    }
    return json_incref(first);
}

/* Whether the staged entry rel is a manifest of the seat's store (devcode.h), which,
 * like ccache's direct-mode manifests, two shards may write differently (the first kept). */
static int is_devcode_manifest(const char *staging, const char *rel)
{
    struct strbuf p = STRBUF_INIT, head = STRBUF_INIT;
    sb_addf(&p, "%s/%s", staging, rel);
    size_t n = strlen(DEVCODE_MANIFEST_TAG);
    int yes = rel[strlen(rel) - 1] == 'D' && plat_read_file_max(sb_str(&p), 1u << 24, &head) == 0 &&
              head.len >= n && memcmp(head.buf, DEVCODE_MANIFEST_TAG, n) == 0;
    sb_release(&p);
    sb_release(&head);
    return yes;
}

/* The TU (or output) whose result key names the cache entry rel, from all manifests, and
 * whether it is pinned (or device code): only when every manifest that records the key
 * says so, for a TU (so one shard's claim never excuses its copy differing from an honest
 * shard's; guard 6 checks the bytes the link job took). */
static const char *tu_of_entry(const struct art *arts, size_t n, const char *rel, int *pinned)
{
    *pinned = 0;
    struct strbuf kb = STRBUF_INIT;
    cache_entry_key(rel, &kb);
    char key[128];
    snprintf(key, sizeof key, "%s", sb_str(&kb));
    sb_release(&kb);
    const char *tu = NULL;
    int records = 0, pins = 0;
    for (size_t i = 0; i < n; i++) {
        const char *lists[] = {"tus", "others"};
        for (size_t l = 0; l < 2; l++) {
            size_t x;
            json_t *t;
            json_array_foreach(json_object_get(arts[i].m, lists[l]), x, t)
            {
                const char *r = json_string_value(json_object_get(t, "result"));
                if (!r || strcmp(r, key))
                    continue;
                const char *name = json_string_value(json_object_get(t, l ? "output" : "key"));
                records++;
                pins += !l && (json_is_true(json_object_get(t, "pinned")) ||
                               json_is_true(json_object_get(t, "device")));
                if (name && !tu)
                    tu = name;
            }
        }
    }
    *pinned = records && pins == records;
    return tu;
}

static int by_shard(const void *a, const void *b)
{
    const struct art *x = a, *y = b;
    return (x->shard > y->shard) - (x->shard < y->shard);
}

static int is_hex64(const char *s)
{
    if (!s || strlen(s) != 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

/* The manifest's entry list must be exactly what the archive holds: each member with the
 * size and the SHA-256 the manifest gives it. */
static int check_entries(const char *cmd, const struct art *a, json_t *members, json_t *digests)
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
        const char *sha = json_string_value(json_object_get(e, "sha256"));
        const char *real = json_string_value(json_object_get(digests, p + 6));
        if (!is_hex64(sha) || !real || strcmp(sha, real)) {
            report_error(cmd,
                         "%s: the archive's \"%s\" is not the bytes the manifest lists (%s): "
                         "changed after the shard packed it",
                         a->path, p, is_hex64(sha) ? "another SHA-256" : "no SHA-256");
            return EXIT_IO;
        }
        json_t *kind = json_object_get(e, "kind"); /* absent in artifacts of older shards */
        const char *ks = json_string_value(kind);
        if (kind &&
            (!ks || (strcmp(ks, "result") && strcmp(ks, "manifest") && strcmp(ks, "device")))) {
            report_error(
                cmd, "%s: the manifest gives \"%s\" a kind that is not result, manifest or device",
                a->path, p);
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
    if (n == 0)
        return EXIT_GUARD;
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
            report_error(o->cmd,
                         "%s: made at %s%s%s, the others at %s%s%s: ccache keys hold the "
                         "build's absolute paths, so one job's entries cannot hit in another "
                         "at another path; %s",
                         a->path, a->root ? "\"" : "",
                         a->root ? a->root : "any root (--relocatable)", a->root ? "\"" : "",
                         ref->root ? "\"" : "", ref->root ? ref->root : "any root (--relocatable)",
                         ref->root ? "\"" : "", MERGE_ROOT_REMEDY);
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

/* The manifests the remote holds for this run's shards 1..expect, appended to *arts; an
 * artifact given for such a shard becomes a fallback. Returns an exit status; a remote that
 * cannot be read is an error only when no artifact was given (else a warning, and *gone). */
static int load_remote(const struct merge_opts *o, struct art **arts, size_t *n, int *gone)
{
    struct strbuf name = STRBUF_INIT, body = STRBUF_INIT, err = STRBUF_INIT;
    size_t given = *n;
    int rc = EXIT_OK;
    *gone = 0;
    for (int s = 1; s <= o->expect && !rc; s++) {
        sb_reset(&name);
        remote_manifest_name(o->run, o->cell_name, s, o->expect, &name);
        int g = remote_get_max(o->remote, sb_str(&name), JSON_FILE_MAX, &body, &err);
        if (g < 0) {
            if (given) {
                report_warning(o->cmd,
                               "cannot read the shards' manifests from the remote (%s): the "
                               "artifacts given are the hand-off",
                               sb_str(&err));
                *gone = 1;
            } else {
                report_error(o->cmd, "cannot read shard %d's manifest from the remote: %s", s,
                             sb_str(&err));
                rc = EXIT_IO;
            }
            break;
        }
        if (g == 0)
            continue;
        json_error_t je;
        json_t *m = body.len <= JSON_FILE_MAX ? json_loadb(body.buf, body.len, 0, &je) : NULL;
        struct strbuf label = STRBUF_INIT;
        sb_addf(&label, "%s (in %s)", sb_str(&name), o->remote->display);
        *arts = xrealloc(*arts, (*n + 1) * sizeof **arts);
        struct art *a = &(*arts)[(*n)++];
        memset(a, 0, sizeof *a);
        a->path = sb_detach(&label);
        a->m = m;
        a->remote = 1;
        if (!m) {
            report_error(o->cmd, "%s: not a manifest (%s)", a->path,
                         body.len > JSON_FILE_MAX ? "over 64 MiB" : je.text);
            rc = EXIT_IO;
            break;
        }
        rc = check_manifest(o->cmd, a);
        const char *run = json_string_value(json_object_get(m, "run"));
        if (!rc && (!run || strcmp(run, o->run) || a->shard != s || a->count != o->expect ||
                    strcmp(a->cell, o->cell_name))) {
            report_error(o->cmd, "%s: the manifest is of run %s, shard %d/%d of cell %s", a->path,
                         run ? run : "(none)", a->shard, a->count, a->cell);
            rc = EXIT_IO;
        }
        for (size_t i = 0; i < given && !rc; i++)
            if ((*arts)[i].shard == s)
                (*arts)[i].fallback = 1;
    }
    sb_release(&name);
    sb_release(&body);
    sb_release(&err);
    return rc;
}

/* One entry of a remote shard's manifest to check or fetch. */
struct fetch_item {
    const char *rel, *sha;
    uint64_t size;
    size_t art; /* its shard's index in arts */
};

struct fetch_ctx {
    struct remote *remote;
    const struct fetch_item *it;
    size_t n, workers;
    const char *staging, *outdir;
};

/* Worker w of the fetch (a child process, with a connection of its own): items w, w +
 * workers, ... A ccache entry need only be there: another shard's copy of a pinned TU's may
 * be (ccache checks an entry's own checksum, and a bad one is a miss the guard counts). A
 * store entry (D; ccache never reads those) is fetched into staging when its SHA-256 is the
 * manifest's. Writes its findings to outdir/w: "f BYTES" for an entry fetched, "m ART REL WHY"
 * for one the remote lacks, "e WHY" for a failure (exit 4). */
static int fetch_worker(void *vctx, size_t w)
{
    const struct fetch_ctx *c = vctx;
    struct remote *r = c->remote;
    r->fd = -1; /* the parent's connection stays the parent's */
    sb_reset(&r->in);
    r->inpos = 0;
    struct strbuf name = STRBUF_INIT, body = STRBUF_INIT, err = STRBUF_INIT, p = STRBUF_INIT,
                  log = STRBUF_INIT;
    int rc = 0;
    for (size_t i = w; i < c->n && !rc; i += c->workers) {
        const struct fetch_item *it = &c->it[i];
        size_t len = strlen(it->rel);
        sb_reset(&name);
        remote_entry_name(it->rel, &name);
        uint64_t got = 0;
        int g;
        const char *why = "not there";
        if (it->rel[len - 1] == 'D') {
            g = remote_get_max(r, sb_str(&name), it->size ? it->size : 1, &body, &err);
            got = body.len;
            if (g == -2 || (g == 1 && got != it->size)) {
                g = 0;
                why = "there with another size";
            } else if (g == 1) {
                char hex[65];
                sha256_hex_of(body.buf ? body.buf : "", body.len, hex);
                if (strcmp(hex, it->sha)) {
                    g = 0;
                    why = "there with other bytes";
                } else {
                    sb_reset(&p);
                    sb_addf(&p, "%s/%s", c->staging, it->rel);
                    /* the seat's own store writer: its directory made, then an atomic write */
                    int we = devcode_store_put(sb_str(&p), body.buf, body.len);
                    if (we) {
                        sb_addf(&log, "e cannot write \"%s\": %s\n", sb_str(&p), plat_strerror(we));
                        rc = EXIT_IO;
                        break;
                    }
                    sb_addf(&log, "f %llu\n", (unsigned long long)body.len);
                }
            }
        } else {
            g = remote_stat(r, sb_str(&name), &got, &err);
        }
        if (g < 0) {
            sb_addf(&log, "e %s\n", sb_str(&err));
            rc = EXIT_IO;
        } else if (g == 0) {
            sb_addf(&log, "m %zu %s (%s)\n", it->art, it->rel, why);
        }
    }
    sb_reset(&p);
    sb_addf(&p, "%s/%zu", c->outdir, w);
    if (plat_write_atomic(sb_str(&p), log.buf ? log.buf : "", log.len))
        rc = EXIT_IO;
    sb_release(&name);
    sb_release(&body);
    sb_release(&err);
    sb_release(&p);
    sb_release(&log);
    return rc;
}

/* The remote's shards among arts[0..n): each entry of their manifests checked to be in the
 * remote, the store entries fetched into staging, by up to 4 workers at once (one per
 * processor), each with its own connection. missing[a] counts the entries shard a lacks,
 * first[a] names the first. Returns an exit status (a manifest that names no entry with a
 * size and SHA-256, or a remote that fails: EXIT_IO). */
static int fetch_remote_entries(const struct merge_opts *o, const struct art *arts, size_t n,
                                const char *staging, size_t *missing, struct strbuf *first,
                                struct merge_result *res)
{
    struct fetch_item *it = NULL;
    size_t nit = 0;
    for (size_t a = 0; a < n; a++) {
        if (!arts[a].remote)
            continue;
        size_t x;
        json_t *e;
        json_array_foreach(json_object_get(arts[a].m, "entries"), x, e)
        {
            const char *path = json_string_value(json_object_get(e, "path"));
            const char *sha = json_string_value(json_object_get(e, "sha256"));
            json_t *size = json_object_get(e, "size");
            const char *rel = path && !strncmp(path, "cache/", 6) ? path + 6 : NULL;
            if (!rel || !cache_entry_name_ok(rel) || !json_is_integer(size) ||
                json_integer_value(size) < 0 || !is_hex64(sha)) {
                report_error(o->cmd,
                             "%s: the manifest lists \"%s\" without a cache entry name, "
                             "size and sha256",
                             arts[a].path, path ? path : "?");
                free(it);
                return EXIT_IO;
            }
            it = xrealloc(it, (nit + 1) * sizeof *it);
            it[nit++] = (struct fetch_item){rel, sha, (uint64_t)json_integer_value(size), a};
        }
    }
    res->remote_entries = nit;
    if (!nit) {
        free(it);
        return EXIT_OK;
    }
    struct strbuf outdir = STRBUF_INIT, p = STRBUF_INIT, text = STRBUF_INIT;
    sb_addf(&outdir, "%s.fetch", staging);
    int rc = EXIT_OK, e = plat_rmtree(sb_str(&outdir));
    if (!e)
        e = plat_mkdir_p(sb_str(&outdir));
    if (e) {
        report_error(o->cmd, "cannot create \"%s\": %s", sb_str(&outdir), plat_strerror(e));
        rc = EXIT_IO;
    }
    size_t workers = (size_t)plat_processors();
    workers = workers > 4 ? 4 : workers;
    workers = workers > nit ? nit : workers;
    struct fetch_ctx c = {o->remote, it, nit, workers, staging, sb_str(&outdir)};
    if (!rc && plat_run_parallel(workers, workers, fetch_worker, &c) < 0) {
        report_error(o->cmd, "cannot start the remote's fetch: %s", plat_strerror(errno));
        rc = EXIT_IO;
    }
    for (size_t w = 0; w < workers && !rc; w++) {
        sb_reset(&p);
        sb_reset(&text);
        sb_addf(&p, "%s/%zu", sb_str(&outdir), w);
        e = plat_read_file(sb_str(&p), &text);
        if (e) {
            report_error(o->cmd, "the remote's fetch left no findings in \"%s\": %s", sb_str(&p),
                         plat_strerror(e));
            rc = EXIT_IO;
            break;
        }
        for (char *l = text.buf; l && *l && !rc;) {
            char *nl = strchr(l, '\n');
            if (nl)
                *nl = '\0';
            if (l[0] == 'f') {
                res->remote_fetched++;
                o->remote->bytes_in += strtoull(l + 2, NULL, 10);
            } else if (l[0] == 'm') {
                char *end;
                size_t a = (size_t)strtoull(l + 2, &end, 10);
                if (a < n && missing[a]++ == 0)
                    sb_adds(&first[a], end + 1);
            } else if (l[0] == 'e') {
                report_error(o->cmd, "%s", l + 2);
                rc = EXIT_IO;
            }
            l = nl ? nl + 1 : NULL;
        }
    }
    plat_rmtree(sb_str(&outdir));
    sb_release(&outdir);
    sb_release(&p);
    sb_release(&text);
    free(it);
    return rc;
}

/* Results that two shards' manifests give different digests for, where one came from the
 * remote (which keeps the last writer: the bytes cannot be compared there); artifact pairs
 * are compared byte for byte as they are extracted. Appends {"rel", "art"} to diff. */
static void digest_collisions(const struct art *arts, size_t n, json_t *diff)
{
    json_t *seen = json_object(); /* rel -> [sha256, index] */
    for (size_t i = 0; i < n; i++) {
        size_t x;
        json_t *e;
        json_array_foreach(json_object_get(arts[i].m, "entries"), x, e)
        {
            const char *path = json_string_value(json_object_get(e, "path"));
            const char *sha = json_string_value(json_object_get(e, "sha256"));
            const char *kind = json_string_value(json_object_get(e, "kind"));
            size_t len = path ? strlen(path) : 0;
            if (!sha || len < 8)
                continue;
            /* manifests differ by design: the manifest's kind, else (older shards) the
             * name's letter */
            if (kind ? !strcmp(kind, "manifest")
                     : cache_entry_kind(path + (strncmp(path, "cache/", 6) ? 0 : 6), NULL) ==
                           CACHE_MANIFEST)
                continue;
            json_t *prev = json_object_get(seen, path);
            if (!prev) {
                json_object_set_new(seen, path, json_pack("[s, I]", sha, (json_int_t)i));
                continue;
            }
            size_t j = (size_t)json_integer_value(json_array_get(prev, 1));
            if ((arts[i].remote || arts[j].remote) &&
                strcmp(sha, json_string_value(json_array_get(prev, 0))))
                json_array_append_new(
                    diff, json_pack("{s:s, s:s}", "rel", path + 6, "art", arts[i].path));
        }
    }
    json_decref(seen);
}

void merge_remote_manifests(const struct merge_opts *o, json_t ***m, size_t *n)
{
    struct strbuf name = STRBUF_INIT, body = STRBUF_INIT, err = STRBUF_INIT;
    for (int s = 1; o->remote && s <= o->expect; s++) {
        int have = 0;
        for (size_t i = 0; i < *n && !have; i++)
            have = json_integer_value(json_object_get((*m)[i], "shard")) == s;
        sb_reset(&name);
        remote_manifest_name(o->run, o->cell_name, s, o->expect, &name);
        if (have || remote_get_max(o->remote, sb_str(&name), JSON_FILE_MAX, &body, &err) != 1 ||
            body.len > JSON_FILE_MAX)
            continue;
        json_t *j = json_loadb(body.buf, body.len, 0, NULL);
        if (!json_is_object(j)) {
            json_decref(j);
            continue;
        }
        *m = xrealloc(*m, (*n + 1) * sizeof **m);
        (*m)[(*n)++] = j;
    }
    sb_release(&name);
    sb_release(&body);
    sb_release(&err);
}

int shard_manifests_load(const struct merge_opts *o, struct shard_manifests *sm)
{
    memset(sm, 0, sizeof *sm);
    int rc = merge_expand_inputs(o, &sm->files, &sm->nfiles);
    if (!rc && sm->nfiles)
        rc = artifact_read_manifests(sm->files, sm->nfiles, &sm->m, o->cmd);
    if (rc)
        return rc;
    sm->n = sm->nfiles;
    merge_remote_manifests(o, &sm->m, &sm->n);
    return EXIT_OK;
}

void shard_manifests_release(struct shard_manifests *sm)
{
    for (size_t i = 0; sm->m && i < sm->n; i++)
        json_decref(sm->m[i]);
    free(sm->m);
    for (size_t i = 0; i < sm->nfiles; i++)
        free(sm->files[i]);
    free(sm->files);
    memset(sm, 0, sizeof *sm);
}

void merge_result_release(struct merge_result *r)
{
    free(r->root);
    free(r->plan);
    json_decref(r->cmake);
    r->root = r->plan = NULL;
    r->cmake = NULL;
}

/* One merge's work: the artifacts (the remote's shards first, then the fallbacks), the
 * staging directory, the entries whose copies differ. */
struct merging {
    const struct merge_opts *o;
    struct merge_result *res;
    struct art *arts;
    size_t n, nuse;        /* all of them; those used (the rest: fallbacks) */
    const struct art *ref; /* the shard whose identity the others match */
    struct strbuf staging;
    json_t *diff; /* {rel, art} of each entry whose copies differ */
};

/* What the final rename needs, checked before the work: a name, not a symbolic link, and
 * no directory with something in it. */
static int merge_check_target(const struct merge_opts *o)
{
    if (!*o->cache) {
        report_error(o->cmd, "the cache directory is \"\": name the directory to merge into");
        return EXIT_USAGE;
    }
    if (plat_kind_of(o->cache) == PLAT_SYMLINK) {
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
    return EXIT_OK;
}

/* The artifacts' manifests and the remote's, the remote's shards' artifacts put last (the
 * fallbacks), guard 2 (one build, every shard once), shard order. */
static int merge_load(struct merging *g)
{
    const struct merge_opts *o = g->o;
    char **files;
    int rc = merge_expand_inputs(o, &files, &g->n);
    if (rc)
        return rc;
    if (g->n == 0 && !o->remote) {
        report_error(o->cmd, "no artifacts found (looked for *.tar.zst in the inputs)");
        free(files);
        return EXIT_GUARD;
    }
    g->arts = calloc(g->n ? g->n : 1, sizeof *g->arts);
    for (size_t i = 0; i < g->n; i++)
        g->arts[i].path = files[i]; /* all of them: the loop below may stop early */
    free(files);
    for (size_t i = 0; i < g->n && !rc; i++)
        rc = load_manifest(o->cmd, &g->arts[i]);
    int gone = 0;
    if (!rc && o->remote)
        rc = load_remote(o, &g->arts, &g->n, &gone);
    if (!rc && g->n == 0) {
        report_error(o->cmd,
                     "no artifacts given, and the remote %s holds no manifest of run %s for "
                     "cell %s (shards of %d): did the shards run with this --remote, --run-id "
                     "and --cell?",
                     o->remote->display, o->run, o->cell_name, o->expect);
        rc = EXIT_GUARD;
    }
    struct art *arts = g->arts;
    for (size_t i = 0; i < g->n; i++)
        if (!arts[i].fallback) {
            struct art t = arts[i];
            memmove(&arts[g->nuse + 1], &arts[g->nuse], (i - g->nuse) * sizeof *arts);
            arts[g->nuse++] = t;
        }
    if (!rc)
        rc = guard_identity(o, arts, g->nuse, &g->ref);
    if (!rc) /* the first extracted copy of an entry is kept: shard 1's */
        qsort(arts, g->nuse, sizeof *arts, by_shard);
    return rc;
}

/* The staging directory, beside the cache (renamed into place at the end). */
static int merge_stage(struct merging *g)
{
    sb_addf(&g->staging, "%s.merging.%ld", g->o->cache, plat_pid());
    int e = plat_rmtree(sb_str(&g->staging));
    if (!e)
        e = plat_mkdir_p(sb_str(&g->staging));
    if (e) {
        report_error(g->o->cmd, "cannot create \"%s\": %s", sb_str(&g->staging), plat_strerror(e));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* The remote's shards: their entries there (a D entry fetched); where the remote lacks
 * some, the shard's artifact when given (then extracted), else a warning. */
static int merge_remote_shards(struct merging *g)
{
    const struct merge_opts *o = g->o;
    struct art *arts = g->arts;
    size_t nuse = g->nuse, n = g->n;
    size_t *missing = calloc(nuse ? nuse : 1, sizeof *missing);
    struct strbuf *first = calloc(nuse ? nuse : 1, sizeof *first);
    int rc = fetch_remote_entries(o, arts, nuse, sb_str(&g->staging), missing, first, g->res);
    for (size_t i = 0; i < nuse && !rc; i++) {
        if (!arts[i].remote)
            continue;
        g->res->remote_shards++;
        size_t fb = n;
        for (size_t k = nuse; k < n; k++)
            if (arts[k].shard == arts[i].shard)
                fb = k;
        if (missing[i] && fb < n) {
            report_warning(o->cmd,
                           "the remote lacks %zu of shard %d's entries (first: %s): its "
                           "artifact %s is used instead",
                           missing[i], arts[i].shard, sb_str(&first[i]), arts[fb].path);
            arts[fb].fallback = 0; /* extracted below */
        } else if (missing[i]) {
            g->res->remote_missing += missing[i];
            report_warning(o->cmd,
                           "the remote lacks %zu of shard %d's entries (first: %s): evicted, "
                           "or lost since the shard ran? The link job will miss their TUs "
                           "(give the shards' artifacts too, --artifacts, to fall back on them)",
                           missing[i], arts[i].shard, sb_str(&first[i]));
        }
    }
    for (size_t i = 0; i < nuse; i++)
        sb_release(&first[i]);
    free(first);
    free(missing);
    return rc;
}

/* Every artifact (not the remote's shards, not unused fallbacks) into the staging
 * directory, each member checked against its manifest; entries whose copies differ are
 * noted in g->diff. */
static int merge_extract(struct merging *g)
{
    const struct merge_opts *o = g->o;
    struct strbuf err = STRBUF_INIT;
    int rc = EXIT_OK;
    for (size_t i = 0; i < g->n && !rc; i++) {
        struct art *a = &g->arts[i];
        if (a->remote || a->fallback)
            continue;
        struct extract_stats st;
        rc = artifact_extract(a->path, sb_str(&g->staging), &st, &err);
        if (rc)
            report_error(o->cmd, "%s", sb_str(&err));
        else
            rc = check_entries(o->cmd, a, st.members, st.digests);
        g->res->added += st.added;
        g->res->same += st.same;
        g->res->kept += st.kept;
        size_t k;
        json_t *d;
        json_array_foreach(st.differing, k, d)
            json_array_append_new(g->diff, json_pack("{s:O, s:s}", "rel", d, "art", a->path));
        json_decref(st.differing);
        json_decref(st.members);
        json_decref(st.digests);
    }
    sb_release(&err);
    return rc;
}

/* Guard 5 over the entries whose copies differ: the seat's manifests (one is kept) and
 * pinned TUs' results (every shard compiled them) are excused; any other is nondeterministic
 * codegen (exit 3, unless allowed). */
static int merge_guard_copies(struct merging *g)
{
    const struct merge_opts *o = g->o;
    struct merge_result *res = g->res;
    if (!json_array_size(g->diff))
        return EXIT_OK;
    size_t k;
    json_t *d;
    json_array_foreach(g->diff, k, d)
    {
        const char *rel = json_string_value(json_object_get(d, "rel"));
        if (is_devcode_manifest(sb_str(&g->staging), rel)) {
            res->kept++; /* the seat's manifests, as ccache's: one is kept */
            continue;
        }
        int pinned;
        const char *tu = tu_of_entry(g->arts, g->n, rel, &pinned);
        if (pinned) {
            /* every shard compiled it: its copies differ in the time ccache made them
             * (in the entry's header) and nvcc's temporary names */
            res->pinned_copies++;
            continue;
        }
        res->differing++;
        (o->allow_nondeterministic ? report_warning : report_error)(
            o->cmd,
            "nondeterministic codegen: %s: its result (cache entry %s) in %s differs "
            "from another shard's",
            tu ? tu : "(no TU recorded for it)", rel, json_string_value(json_object_get(d, "art")));
    }
    if (res->pinned_copies)
        fprintf(stderr,
                "%s: %zu results of pinned TUs differ between shards (every shard compiled "
                "them; ccache's entries hold the time they were written): the merged cache "
                "holds shard %d's; the link job takes each one's owner's copy\n",
                o->cmd, res->pinned_copies, g->n ? g->arts[0].shard : 1);
    return res->differing && !o->allow_nondeterministic ? EXIT_GUARD : EXIT_OK;
}

/* The staging directory renamed into place (an empty directory there is replaced). */
static int merge_finish(struct merging *g)
{
    const struct merge_opts *o = g->o;
    int e = plat_is_dir(o->cache) ? (rmdir(o->cache) == 0 ? 0 : errno) : 0;
    if (!e)
        e = plat_rename(sb_str(&g->staging), o->cache);
    if (e == ENOTEMPTY || e == EEXIST) {
        /* another merge into the same directory finished first: its cache is whole */
        report_error(o->cmd,
                     "the cache directory \"%s\" was filled by another merge while this "
                     "one ran (that merge's cache is left as it is): give each merge a "
                     "directory of its own",
                     o->cache);
        return EXIT_USAGE;
    }
    if (e) {
        report_error(o->cmd, "cannot move the merged cache into \"%s\": %s", o->cache,
                     plat_strerror(e));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* What the caller learns of the shards: their identity (the reference shard's), how many
 * were used, and the CMake state they agree on. */
static void merge_describe(const struct merging *g, int ok)
{
    struct merge_result *res = g->res;
    if (ok)
        res->cmake = agreed_cmake(g->o, g->arts, g->nuse);
    const struct art *ref = g->ref;
    if (ref) {
        res->count = ref->count;
        snprintf(res->cell, sizeof res->cell, "%s", ref->cell);
        snprintf(res->fingerprint, sizeof res->fingerprint, "%s", ref->fp);
        res->root = ref->root ? xstrdup(ref->root) : NULL;
        res->reproducible = ref->reproducible;
        res->plan = json_is_string(ref->plan) ? xstrdup(json_string_value(ref->plan)) : NULL;
    }
    res->present = (int)g->nuse;
}

int merge_run(const struct merge_opts *o, struct merge_result *res)
{
    memset(res, 0, sizeof *res);
    int rc = merge_check_target(o);
    if (rc)
        return rc;
    struct merging g = {.o = o, .res = res, .staging = STRBUF_INIT, .diff = json_array()};
    if ((rc = merge_load(&g)) == EXIT_OK && (rc = merge_stage(&g)) == EXIT_OK &&
        (rc = merge_remote_shards(&g)) == EXIT_OK) {
        digest_collisions(g.arts, g.nuse, g.diff);
        if ((rc = merge_extract(&g)) == EXIT_OK && (rc = merge_guard_copies(&g)) == EXIT_OK)
            rc = merge_finish(&g);
    }
    if (rc && g.staging.len)
        plat_rmtree(sb_str(&g.staging));
    merge_describe(&g, rc == EXIT_OK);
    json_decref(g.diff);
    for (size_t i = 0; i < g.n; i++) {
        json_decref(g.arts[i].m);
        free(g.arts[i].path);
    }
    free(g.arts);
    sb_release(&g.staging);
    return rc;
}
