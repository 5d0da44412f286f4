/* shardcc shard: one shard job. Runs the build with the shard's environment, applies the
 * shard guard (the seat saw TU compiles; an owning shard cached results) and packs the
 * artifact: manifest.json + the cache's result and manifest entries. */
#include "args.h"
#include "artifact.h"
#include "cmstate.h"
#include "ci_index.h"
#include "cli.h"
#include "job.h"
#include "job_build.h"
#include "jobenv.h"
#include "journal.h"
#include "jrnl.h"
#include "path.h"
#include "platform.h"
#include "remote.h"
#include "seat.h"
#include "trust.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: shardcc shard --shard I/N|auto [--count N] --artifact PATH|--no-artifact\n"
    "                     [--cell ID] [--clean CMD] [--remote URL [--run-id ID]]\n"
    "                     [--root DIR] [--cache DIR] [--journal FILE] [--pin GLOB]...\n"
    "                     [--[no-]host-seat] [--[no-]cuda-home-seat] [--relocatable]\n"
    "                     [--[no-]reproducible] [--split-archs N] [--plan FILE]\n"
    "                     [--real-nvcc PATH] [--real-cxx PATH] [--real-cc PATH]\n"
    "                     [--ccache PATH] [--cuda X.Y] [--seed-from SRC]\n"
    "                     -- CMD...\n"
    "\n"
    "Runs CMD (the package's ordinary build) as shard I of N: the seats compile the TUs\n"
    "shard I owns through ccache and stub the others. Then checks the shard guard and writes\n"
    "the artifact shard-<cell>-<I>-of-<N>.tar.zst (manifest.json + the cache's entries).\n"
    "\n"
    "  --shard I/N      this job is shard I of N (1 <= I <= N)\n"
    "  --shard auto     take I and N from the CI engine: SHARDCC_SHARD_INDEX/_COUNT\n"
    "                   (1-based; set them from a GitHub matrix), GitLab's CI_NODE_INDEX/\n"
    "                   CI_NODE_TOTAL (1-based), Buildkite's BUILDKITE_PARALLEL_JOB/_COUNT,\n"
    "                   CircleCI's CIRCLE_NODE_INDEX/_TOTAL, a Kubernetes Indexed Job's\n"
    "                   JOB_COMPLETION_INDEX (0-based; N from --count); two engines' variables\n"
    "                   at once, or none, is an error\n"
    "  --count N        the number of shards, with --shard auto (required for Kubernetes;\n"
    "                   elsewhere it must agree with the engine's count)\n"
    "  --artifact PATH  the artifact file, or a directory to put it in\n"
    "  --no-artifact    write no artifact: the remote (--remote) is the only hand-off\n"
    "  --remote URL     ccache's remote storage as the hand-off (else SHARDCC_REMOTE), in\n"
    "                   ccache's syntax: redis://[[USER:]PASSWORD@]HOST[:PORT][/DB],\n"
    "                   redis+unix:SOCKET, http://[USER:PASSWORD@]HOST[:PORT]/PATH, with\n"
    "                   |read-only, |connect-timeout=MS, |operation-timeout=MS, |layout=...;\n"
    "                   ${NAME} is expanded (keep passwords there). ccache writes the owned\n"
    "                   TUs' entries there; then shardcc puts what is missing (the seat's\n"
    "                   store, entries a remote outage lost) and the manifest, and checks\n"
    "                   that each is there. A read-only remote only gives hits (a warm start)\n"
    "  --run-id ID      names this run's manifests in the remote (default: SHARDCC_RUN_ID,\n"
    "                   GITHUB_RUN_ID, CI_PIPELINE_ID, BUILDKITE_BUILD_ID, CIRCLE_WORKFLOW_ID)\n"
    "  --cell ID        the build this shard belongs to: package, platform, python, cuda...\n"
    "                   (letters, digits, . _ + -; default: default)\n"
    "  --clean CMD      a shell command run before the build to make the tree clean (e.g.\n"
    "                   'rm -rf build'): each job starts from a clean build tree\n"
    "  --root DIR       the project root (default: .)\n"
    "  --cache DIR      the ccache directory (default: a fresh ROOT/.shardcc/shard-I-of-N/cache)\n"
    "  --journal FILE   the seats' journal (default: ROOT/.shardcc/shard-I-of-N/journal.tsv)\n"
    "  --pin GLOB       compile the TUs whose key matches GLOB in every shard (repeatable;\n"
    "                   '*' matches '/' too): the sources of a tool the build runs\n"
    "  --plan FILE      a shard plan (shardcc plan): the seats give each key it names to\n"
    "                   its shard and hash the others\n" CLI_HELP_SEED CLI_HELP_SEATS CLI_HELP_TOOLS
    "\n"
    "Exit status: 0 ok (also for a shard that owned no TU: a warning and an artifact with no\n"
    "entries), 1 the build failed (no artifact), 2 usage, 3 guard failed (the seat saw no TU\n"
    "compile: the build bypassed it, or found its tree already built; or the shard owned TUs but "
    "cached no result), 4 I/O\n"
    "(also: the remote did not take the entries or the manifest; the artifact, if asked for,\n"
    "is written first).\n";

#define CMD "shardcc shard"

static size_t count_results(const struct cache_entry *e, size_t n)
{
    size_t results = 0;
    for (size_t k = 0; k < n; k++)
        results += e[k].kind == CACHE_RESULT || e[k].kind == CACHE_DEVICE;
    return results;
}

/* The owned TUs whose result ccache named but did not leave in the cache (a full disk, a
 * cache cleaned under the build): their keys, comma-separated, into names. The count. */
static size_t lost_results(const struct jrnl *j, const struct cache_entry *e, size_t n,
                           struct strbuf *names)
{
    char **have = xmalloc((n ? n : 1) * sizeof *have);
    size_t nh = 0;
    for (size_t k = 0; k < n; k++) {
        if (e[k].kind != CACHE_RESULT && e[k].kind != CACHE_DEVICE)
            continue;
        struct strbuf key = STRBUF_INIT;
        cache_entry_key(e[k].rel, &key);
        have[nh++] = sb_detach(&key);
    }
    qsort(have, nh, sizeof *have, cstr_cmp);
    size_t lost = 0;
    for (size_t k = 0; k < j->n; k++) {
        const struct jrec *r = &j->r[k];
        if (!jrec_is_tu(r) || !strcmp(r->action, "stub") || r->status != 0 || !r->result_key ||
            !r->outcome ||
            (strcmp(r->outcome, "miss") && strcmp(r->outcome, "hit") &&
             strcmp(r->outcome, "recache")))
            continue;
        const char *want = r->result_key;
        if (bsearch(&want, have, nh, sizeof *have, cstr_cmp))
            continue;
        if (lost++ < 10)
            sb_addf(names, "%s%s", lost > 1 ? ", " : "", r->key ? r->key : "?");
    }
    /* the device items of split TUs that this shard stored, or found stored */
    for (size_t k = 0; k < j->nitems; k++) {
        const struct jitem *it = &j->items[k];
        const struct jrec *r = &j->r[it->rec];
        if (!it->key || it->owner != r->shard ||
            (strcmp(it->outcome, "stored") && strcmp(it->outcome, "present")))
            continue;
        const char *want = it->key;
        if (bsearch(&want, have, nh, sizeof *have, cstr_cmp))
            continue;
        if (lost++ < 10)
            sb_addf(names, "%s%s#%s", lost > 1 ? ", " : "", r->key ? r->key : "?", it->name);
    }
    if (lost > 10)
        sb_addf(names, ", and %zu more", lost - 10);
    for (size_t k = 0; k < nh; k++)
        free(have[k]);
    free(have);
    return lost;
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static char *build_manifest(const char *cell, int i, int n, const struct jobenv *env,
                            int relocatable, const struct jrnl *j, const struct cache_entry *e,
                            size_t ne, double wall)
{
    json_t *tus = json_array(), *others = json_array(), *entries = json_array();
    for (size_t k = 0; k < j->n; k++) {
        const struct jrec *r = &j->r[k];
        if (jrec_is_tu(r)) {
            const char *decision = !strcmp(r->action, "stub")    ? "stubbed"
                                   : !strcmp(r->action, "split") ? "split"
                                                                 : "owned";
            json_t *t =
                json_pack("{s:s?, s:s, s:f, s:i, s:o, s:o}", "key", r->key, "decision", decision,
                          "seconds", (double)r->dur_us / 1e6, "status", r->status, "outcome",
                          str_or_null(r->outcome), "result", str_or_null(r->result_key));
            if (r->remote) /* a hit from the remote or the seed: a warm start */
                json_object_set_new(t, "warm", json_true());
            if (!strcmp(r->action, "pin")) /* compiled in every shard (--pin) */
                json_object_set_new(t, "pinned", json_true());
            if (!strcmp(r->action, "device")) /* device code only: made in every shard */
                json_object_set_new(t, "device", json_true());
            /* a split TU's device items: who owns each, and what this shard's cost */
            json_t *items = NULL;
            for (size_t q = 0; q < j->nitems; q++) {
                const struct jitem *it = &j->items[q];
                if (it->rec != k)
                    continue;
                if (!items)
                    items = json_array();
                json_array_append_new(
                    items, json_pack("{s:s, s:s, s:i, s:s, s:f, s:o, s:o}", "item", it->name,
                                     "real", it->real, "owner", it->owner, "outcome", it->outcome,
                                     "seconds", (double)it->us / 1e6, "key", str_or_null(it->key),
                                     "parts", str_or_null(it->parts)));
            }
            if (items)
                json_object_set_new(t, "items", items);
            /* what the owner ran: shardcc explain compares the link job's with it */
            const struct strvec *av =
                strcmp(r->action, "stub") && r->key ? jrnl_argv(j, r->key) : NULL;
            if (av) {
                json_t *arr = json_array();
                for (size_t q = 0; q < av->n; q++)
                    json_array_append_new(arr, json_string(av->v[q]));
                json_object_set_new(t, "argv", arr);
            }
            json_array_append_new(tus, t);
        } else if (!strcmp(r->kind, "other") && r->result_key) {
            json_array_append_new(
                others, json_pack("{s:o, s:o, s:s}", "output", str_or_null(r->output), "outcome",
                                  str_or_null(r->outcome), "result", r->result_key));
        }
    }
    for (size_t k = 0; k < ne; k++) {
        struct strbuf p = STRBUF_INIT;
        sb_addf(&p, "cache/%s", e[k].rel);
        json_t *ent =
            json_pack("{s:s, s:I, s:s}", "path", sb_str(&p), "size", (json_int_t)e[k].size, "kind",
                      e[k].kind == CACHE_MANIFEST ? "manifest"
                      : e[k].kind == CACHE_DEVICE ? "device"
                                                  : "result");
        /* what the link job compares when the bytes come from a remote, which keeps the
         * last writer's: shards whose results differ are found from their manifests */
        char hex[65];
        if (cache_entry_sha(env->cache, e[k].rel, hex) == 0)
            json_object_set_new(ent, "sha256", json_string(hex));
        json_array_append_new(entries, ent);
        sb_release(&p);
    }
    /* the farm's package (the farm workflow sets SHARDCC_CELL_PACKAGE): report groups by it */
    const char *pkg = getenv("SHARDCC_CELL_PACKAGE");
    json_t *m =
        json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:s, s:o, s:o, s:f, s:o, s:o, s:o}", "format",
                  ARTIFACT_FORMAT, "tool", "shardcc " SHARDCC_VERSION, "ccache",
                  env->ccache_version, "cell", cell, "shard", i, "count", n, "fingerprint",
                  env->fingerprint, "root", relocatable ? json_null() : json_string(env->root),
                  "plan", env->plan_digest ? json_string(env->plan_digest) : json_null(),
                  "wall_seconds", wall, "tus", tus, "others", others, "entries", entries);
    json_object_set_new(m, "package",
                        pkg && *pkg && cell_id_ok(pkg) ? json_string(pkg) : json_null());
    json_object_set_new(m, "reproducible", json_boolean(env->reproducible));
    json_object_set_new(m, "run", env->run_id ? json_string(env->run_id) : json_null());
    json_object_set_new(m, "remote", env->remote ? json_string(env->remote->display) : json_null());
    /* the CMake build directories' configure state, for the link job's configure (at the
     * same root only: the files hold absolute paths) */
    if (!relocatable) {
        struct strvec notes = STRVEC_INIT;
        json_t *cm = cmstate_collect(env->root, &notes);
        for (size_t k = 0; k < notes.n; k++)
            report_warning(CMD,
                           "the CMake build directory %s: not handed to the link job, which will "
                           "configure it afresh",
                           notes.v[k]);
        for (size_t k = 0; k < json_array_size(cm); k++)
            fprintf(stderr,
                    CMD ": shard %d/%d: the CMake configure state of %s/ is in the "
                        "manifest (the link job's configure skips compiler detection)\n",
                    i, n, json_string_value(json_object_get(json_array_get(cm, k), "dir")));
        json_object_set_new(m, "cmake", cm);
        sv_clear(&notes);
    }
    char *s = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(m);
    return s;
}

/* After a failed build: the executables this shard wrote as placeholders, one of which the
 * build may have run (a generator, a test), and the remedy. */
/* The outputs of links of the journal's whose action is action ("placeholder", "hollow"),
 * but relocatable objects (.o): how many, and the first five's names into names. */
static size_t link_outputs(const struct jrnl *j, const char *action, struct strbuf *names)
{
    size_t n = 0;
    for (size_t k = 0; k < j->n; k++) {
        const struct jrec *r = &j->r[k];
        if (strcmp(r->kind, "link") || strcmp(r->action, action) || !r->output || r->status)
            continue;
        size_t len = strlen(r->output); /* libraries: not the device-link objects in them */
        if (len > 2 && !strcmp(r->output + len - 2, ".o"))
            continue;
        if (n++ < 5)
            sb_addf(names, "%s%s", n > 1 ? ", " : "", r->output);
    }
    if (n > 5)
        sb_adds(names, ", ...");
    return n;
}

/* After a failed build: what of this shard's outputs was made from stubs, which a step that
 * ran or read it (a generator, a test, an nm check of a library) met instead of code. */
static void hint_placeholders(const char *journal)
{
    struct jrnl j;
    if (jrnl_load(journal, &j) != 0)
        return;
    struct strbuf names = STRBUF_INIT;
    size_t n = link_outputs(&j, "placeholder", &names);
    if (n)
        report_warning(CMD,
                       "%zu executable%s of this shard %s, linked from stub objects "
                       "(%s): if the build ran one (a generator, a test), its message above "
                       "names it; pin the sources it is built from (--pin GLOB) so that every "
                       "shard compiles them",
                       n, n == 1 ? "" : "s", n == 1 ? "is a placeholder" : "are placeholders",
                       sb_str(&names));
    sb_reset(&names);
    n = link_outputs(&j, "hollow", &names);
    if (n)
        report_warning(CMD,
                       "%zu librar%s of this shard %s linked from stub objects, so %s no code "
                       "of the TUs other shards own (%s): if a step of the build read one (a "
                       "symbol check with nm, a test that loads it), it met that; pin the "
                       "sources %s built from (--pin GLOB) so that every shard compiles them",
                       n, n == 1 ? "y" : "ies", n == 1 ? "was" : "were",
                       n == 1 ? "it holds" : "they hold", sb_str(&names),
                       n == 1 ? "it is" : "they are");
    sb_release(&names);
    jrnl_release(&j);
}

/* Puts rel's bytes (at cache/rel) under name and checks that they are there. An exit status,
 * the failure named. */
static int put_checked(struct remote *r, const char *cache, const char *rel, const char *name,
                       int i, int count)
{
    struct strbuf p = STRBUF_INIT, data = STRBUF_INIT, err = STRBUF_INIT;
    uint64_t size = 0;
    int rc = EXIT_OK;
    sb_addf(&p, "%s/%s", cache, rel);
    int fe = plat_read_file(sb_str(&p), &data);
    if (fe) {
        report_error(CMD, "cannot read \"%s\": %s", sb_str(&p), plat_strerror(fe));
        rc = EXIT_IO;
    } else if (remote_put(r, name, data.buf ? data.buf : "", data.len, &err) ||
               remote_stat(r, name, &size, &err) != 1 || size != data.len) {
        report_error(CMD,
                     "shard %d/%d: the remote did not take the cache entry %s (as %s): %s; the "
                     "link job would miss it",
                     i, count, rel, name, err.len ? sb_str(&err) : "it is not there after the PUT");
        rc = EXIT_IO;
    }
    sb_release(&p);
    sb_release(&data);
    sb_release(&err);
    return rc;
}

/* Puts this shard's own copy of what every shard makes (pinned TUs' results, device-code
 * outputs: the remote keeps one copy under the entry's name, the last writer's) under a
 * name of its own, where the link job takes the owner's (trust.h). */
static int publish_own_copies(struct remote *r, const char *cache, const char *manifest,
                              const char *run, const char *cell, int i, int count)
{
    json_t *m = json_loads(manifest, 0, NULL);
    const char **rels = NULL;
    size_t n = m ? trust_own_copies(m, &rels) : 0;
    struct strbuf name = STRBUF_INIT;
    int rc = EXIT_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        sb_reset(&name);
        if (remote_copy_name(run, cell, i, count, rels[k], &name) == 0)
            rc = put_checked(r, cache, rels[k], sb_str(&name), i, count);
    }
    free(rels);
    json_decref(m);
    sb_release(&name);
    return rc;
}

/* Puts what the remote lacks of the shard's entries (ccache put its own during the build,
 * unless the remote was down), this shard's own copies of what every shard makes, then the
 * manifest, and checks each is there: ccache takes a remote that fails for a miss and
 * carries on, so its silence proves nothing. */
static int publish_remote(struct remote *r, const char *cache, const struct cache_entry *e,
                          size_t n, const char *manifest_name, const char *manifest,
                          const char *run, const char *cell, int i, int count)
{
    struct strbuf name = STRBUF_INIT, err = STRBUF_INIT, data = STRBUF_INIT;
    size_t put = 0, there = 0;
    uint64_t t0 = plat_monotonic_us();
    int rc = EXIT_OK;
    for (size_t k = 0; k < n && !rc; k++) {
        sb_reset(&name);
        if (remote_entry_name(e[k].rel, &name) != 0)
            continue;
        uint64_t size = 0;
        int st = remote_stat(r, sb_str(&name), &size, &err);
        if (st == 1 && size == e[k].size) {
            there++;
            continue;
        }
        if (st < 0) {
            report_error(CMD,
                         "shard %d/%d: the remote did not take the cache entry %s: %s; the link "
                         "job would miss it",
                         i, count, e[k].rel, sb_str(&err));
            rc = EXIT_IO;
            break;
        }
        rc = put_checked(r, cache, e[k].rel, sb_str(&name), i, count);
        put += !rc;
    }
    if (!rc)
        rc = publish_own_copies(r, cache, manifest, run, cell, i, count);
    if (!rc) {
        size_t len = strlen(manifest);
        if (remote_put(r, manifest_name, manifest, len, &err) ||
            remote_get(r, manifest_name, &data, &err) != 1 || data.len != len ||
            memcmp(data.buf, manifest, len)) {
            report_error(CMD, "shard %d/%d: the remote did not take the manifest %s: %s", i, count,
                         manifest_name,
                         err.len ? sb_str(&err) : "another one is there after the PUT");
            rc = EXIT_IO;
        }
    }
    if (!rc)
        fprintf(stderr,
                CMD ": shard %d/%d: %zu cache entries in the remote %s (%zu there already, %zu "
                    "put now; %.1f MB sent, %.1f s), manifest %s\n",
                i, count, there + put, r->display, there, put, (double)r->bytes_out / 1e6,
                (double)(plat_monotonic_us() - t0) / 1e6, manifest_name);
    sb_release(&name);
    sb_release(&err);
    sb_release(&data);
    return rc;
}

/* The artifact's final path from --artifact: a directory (or a path ending in '/', made
 * here) gets the canonical name. Returns an exit status. */
static int artifact_path(const char *artifact, const char *canonical, struct strbuf *apath)
{
    size_t alen = strlen(artifact);
    if (plat_is_dir(artifact) || (alen && artifact[alen - 1] == '/'))
        sb_addf(apath, "%s%s%s", artifact, artifact[alen - 1] == '/' ? "" : "/", canonical);
    else
        sb_adds(apath, artifact);
    /* fail now, not after an hour of building: the artifact's directory must exist */
    char *dir = xstrndup(sb_str(apath), (size_t)(path_basename(sb_str(apath)) - sb_str(apath)));
    int ok =
        !*dir || plat_is_dir(dir) || (alen && artifact[alen - 1] == '/' && plat_mkdir_p(dir) == 0);
    if (!ok) {
        report_error(CMD, "the artifact's directory \"%s\" does not exist", dir);
        free(dir);
        return EXIT_USAGE;
    }
    free(dir);
    if (path_basename(sb_str(apath))[0] == '.' || !path_basename(sb_str(apath))[0]) {
        report_error(CMD, "artifact name \"%s\" starts with '.' (CI uploaders drop hidden files)",
                     sb_str(apath));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* One shard job, from its options to its artifact; shard_release frees what it holds
 * whichever phase it stopped in. */
struct shard {
    struct jobenv_opts o;
    const char *shard, *artifact, *cell, *count_s, *clean;
    int no_artifact;
    char **build;
    struct strbuf apath, dcache, djournal;
    struct jobenv env;
    int have_env;
    struct job_build b;
    int have_build;
    struct jstats s;
    struct cache_entry *ents;
    size_t nents;
};

static void shard_release(struct shard *sh)
{
    sb_release(&sh->apath);
    sb_release(&sh->dcache);
    sb_release(&sh->djournal);
    if (sh->have_env)
        jobenv_release(&sh->env);
    if (sh->have_build)
        jrnl_release(&sh->b.j);
    cache_list_release(sh->ents, sh->nents);
}

/* The options: which shard of how many (--shard auto asks the CI engine), where the
 * entries go, the build command. EXIT_OK, CLI_HELP_SHOWN, or an exit status (reported). */
static int shard_parse(struct shard *sh, int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    struct jobenv_opts *o = &sh->o;
    sh->cell = "default";
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return CLI_HELP_SHOWN;
        }
        if (args_flag(&a, "--"))
            break;
        if (args_value(&a, "--shard", &sh->shard) || args_value(&a, "--artifact", &sh->artifact) ||
            args_value(&a, "--cell", &sh->cell) || args_value(&a, "--count", &sh->count_s) ||
            args_value(&a, "--clean", &sh->clean) ||
            (args_flag(&a, "--no-artifact") && (sh->no_artifact = 1)) || jobenv_arg(&a, o))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    int count_opt = sh->count_s ? parse_count(sh->count_s) : 0;
    if (sh->count_s && count_opt < 1) {
        report_error(CMD, "--count \"%s\" is not a number from 1 to 100000", sh->count_s);
        return EXIT_USAGE;
    }
    if (sh->shard && !strcmp(sh->shard, "auto")) {
        struct strbuf msg = STRBUF_INIT;
        int rc = ci_shard_auto(count_opt, &o->shard, &o->count, &msg);
        if (rc) /* the error, or where the numbers came from */
            report_error(CMD, "%s", sb_str(&msg));
        else
            fprintf(stderr, CMD ": %s\n", sb_str(&msg));
        sb_release(&msg);
        if (rc)
            return rc;
    } else if (sh->count_s) {
        report_error(CMD, "--count goes with --shard auto; --shard I/N names the count");
        return EXIT_USAGE;
    } else if (!sh->shard || parse_shard_spec(sh->shard, &o->shard, &o->count) != 0) {
        report_error(CMD, "--shard I/N is required, with 1 <= I <= N (got \"%s\")",
                     sh->shard ? sh->shard : "");
        return EXIT_USAGE;
    }
    const char *remote_url = o->remote ? o->remote : getenv("SHARDCC_REMOTE");
    if (sh->no_artifact && sh->artifact) {
        report_error(CMD, "--artifact and --no-artifact: give one");
    } else if (sh->no_artifact && (!remote_url || !*remote_url)) {
        report_error(CMD, "--no-artifact needs --remote URL (or SHARDCC_REMOTE): the shard's "
                          "entries must reach the link job some way");
    } else if (!sh->artifact && !sh->no_artifact) {
        report_error(CMD, "--artifact PATH is required (or --no-artifact with --remote; see "
                          "--help)");
    } else if (!cell_id_ok(sh->cell)) {
        report_error(CMD,
                     "--cell \"%s\": use letters, digits, '.', '_', '+', '-' (not "
                     "first '.' or '-')",
                     sh->cell);
    } else if (a.i >= argc) {
        report_error(CMD, "no build command after -- (see --help)");
    } else {
        sh->build = argv + a.i;
        return EXIT_OK;
    }
    return EXIT_USAGE;
}

/* Before the build: the --clean command (first of all: it may remove the state directory
 * under the root too), the artifact's path (a directory gets the canonical name), a fresh
 * cache and journal in a state directory of this shard's own, the job's environment. */
static int shard_prepare(struct shard *sh)
{
    const struct jobenv_opts *o = &sh->o;
    int rc;
    if (sh->clean && (rc = run_clean_command(CMD, sh->clean)) != EXIT_OK)
        return rc;
    struct strbuf name = STRBUF_INIT, state = STRBUF_INIT;
    sb_addf(&name, "shard-%s-%d-of-%d.tar.zst", sh->cell, o->shard, o->count);
    sb_addf(&state, "shard-%d-of-%d", o->shard, o->count);
    rc = sh->artifact ? artifact_path(sh->artifact, sb_str(&name), &sh->apath) : EXIT_OK;
    if (!rc)
        rc = jobenv_state_defaults(&sh->o, sb_str(&state), &sh->dcache, &sh->djournal, CMD);
    sb_release(&name);
    sb_release(&state);
    if (rc)
        return rc;
    sh->o.cell = sh->cell; /* a plan per cell: this cell's section */
    if ((rc = jobenv_build(&sh->o, &sh->env, CMD)) != EXIT_OK)
        return rc;
    sh->have_env = 1;
    const struct jobenv *env = &sh->env;
    if (env->remote && env->remote->read_only && sh->no_artifact) {
        report_error(CMD,
                     "--no-artifact with a read-only remote (%s): nothing would reach the "
                     "link job",
                     env->remote->display);
        return EXIT_USAGE;
    }
    if (env->remote && !env->remote->read_only && !env->run_id) {
        report_error(CMD, "--remote needs a run id to name this run's manifests: --run-id ID, or "
                          "SHARDCC_RUN_ID (under GitHub Actions, GitLab, Buildkite and CircleCI "
                          "the run's own id is taken)");
        return EXIT_USAGE;
    }
    int e = plat_unlink(env->journal);
    if (e) {
        report_error(CMD, "cannot remove the old journal \"%s\": %s", env->journal,
                     plat_strerror(e));
        return EXIT_IO;
    }
    struct cache_entry *ents = NULL;
    size_t nents = 0;
    struct strbuf err = STRBUF_INIT;
    if (cache_list(env->cache, &ents, &nents, &err) == 0 && nents)
        report_warning(CMD,
                       "the cache \"%s\" already holds %zu entries: the artifact will carry "
                       "them too",
                       env->cache, nents);
    cache_list_release(ents, nents);
    sb_release(&err);
    return EXIT_OK;
}

/* The package's build with the seats' variables, and its journal. */
static int shard_build(struct shard *sh)
{
    jobenv_apply(&sh->env);
    struct strbuf msg = STRBUF_INIT, announce = STRBUF_INIT, what = STRBUF_INIT;
    sb_addf(&announce, "shard %d/%d of cell %s: running the build", sh->o.shard, sh->o.count,
            sh->cell);
    sb_addf(&what, "shard %d/%d", sh->o.shard, sh->o.count);
    int rc = job_run_build(CMD, sb_str(&announce), sb_str(&what), sh->build, sh->env.journal,
                           &sh->b, &msg);
    if (rc == EXIT_USAGE)
        report_error(CMD, "shard %d/%d: %s", sh->o.shard, sh->o.count, sb_str(&msg));
    else if (rc == EXIT_BUILD)
        report_error(CMD, "shard %d/%d: the build failed (%s); no artifact written", sh->o.shard,
                     sh->o.count, sb_str(&msg));
    if (rc == EXIT_BUILD)
        hint_placeholders(sh->env.journal);
    sh->have_build = rc == EXIT_OK;
    sb_release(&announce);
    sb_release(&what);
    sb_release(&msg);
    return rc;
}

/* The shard guard over the journal: the seats saw a TU compile (else why not: host TUs
 * left to the real compiler, a tree already built, a compiler named by its path). */
static int shard_guard_tus(const struct shard *sh)
{
    const struct jstats *s = &sh->s;
    int i = sh->o.shard, n = sh->o.count;
    if (s->tu == 0 && s->host > 0) {
        report_error(CMD,
                     "shard %d/%d: the build compiled no CUDA TU, and the host seats saw %zu host "
                     "TU%s and left %s to the real compiler: the default host seat shards only "
                     "torch extensions' host TUs (SHARDCC_HOST_SEAT=torch), so this shard had "
                     "nothing to shard. --host-seat shards every host TU",
                     i, n, s->host, s->host == 1 ? "" : "s", s->host == 1 ? "it" : "them");
        return EXIT_GUARD;
    }
    if (s->tu == 0) {
        struct strbuf why = STRBUF_INIT;
        explain_no_tu(sh->env.root, (long long)sh->b.w0, &why);
        report_error(CMD,
                     "shard %d/%d: the seat saw no TU compile (%zu probe, %zu other calls seen): "
                     "%sA build that compiles must take its compilers from CUDACXX, "
                     "PYTORCH_NVCC or $CUDA_HOME/bin/nvcc, and for host TUs (--host-seat) from "
                     "CC and CXX: a Makefile, CMake cache or toolchain file that names nvcc, "
                     "cl.exe or clang-cl by its path goes around them (a fresh build directory, "
                     "or CMAKE_<LANG>_COMPILER set to the seat)",
                     i, n, s->probes, s->others, sb_str(&why));
        sb_release(&why);
        return EXIT_GUARD;
    }
    return EXIT_OK;
}

/* The shard guard over the cache: every TU the shard owned has its result there. Then the
 * TUs the link job will compile again are named. */
static int shard_guard_results(struct shard *sh)
{
    const struct jstats *s = &sh->s;
    const struct jrnl *j = &sh->b.j;
    const char *cache = sh->env.cache;
    struct strbuf err = STRBUF_INIT;
    if (cache_list(cache, &sh->ents, &sh->nents, &err) != 0) {
        report_error(CMD, "%s", sb_str(&err));
        sb_release(&err);
        return EXIT_IO;
    }
    struct strbuf lost = STRBUF_INIT;
    size_t nlost = 0, results = count_results(sh->ents, sh->nents);
    if (s->cached > 0)
        nlost = lost_results(j, sh->ents, sh->nents, &lost);
    int rc = EXIT_OK;
    if (s->cached > 0 && (results == 0 || nlost > 0)) {
        unsigned long long avail = 0;
        struct strbuf why = STRBUF_INIT;
        if (plat_free_bytes(cache, &avail) == 0 && avail < (1ull << 20))
            sb_addf(&why, "; the file system holding it has %llu bytes free", avail);
        if (results == 0)
            report_error(CMD,
                         "shard %d/%d: owned %zu TUs but its cache \"%s\" holds no result: "
                         "ccache cached nothing%s (see the outcomes in %s)",
                         sh->o.shard, sh->o.count, s->cached, cache, sb_str(&why), sh->env.journal);
        else
            report_error(CMD,
                         "shard %d/%d: %zu of the %zu TUs it owned have no result in its cache "
                         "\"%s\"%s: %s",
                         sh->o.shard, sh->o.count, nlost, s->cached, cache, sb_str(&why),
                         sb_str(&lost));
        sb_release(&why);
        rc = EXIT_GUARD;
    }
    sb_release(&lost);
    sb_release(&err);
    if (rc)
        return rc;
    for (size_t k = 0; k < j->n; k++) {
        const struct jrec *r = &j->r[k];
        /* a split TU's outcome says whether this shard stored items of it: the link job
         * assembles it from the items, not from a ccache result */
        if (jrec_is_tu(r) && strcmp(r->action, "stub") && strcmp(r->action, "split") &&
            r->outcome && strcmp(r->outcome, "hit") && strcmp(r->outcome, "miss") &&
            strcmp(r->outcome, "recache"))
            report_warning(CMD, "%s was not cacheable (%s): the link job will compile it again",
                           r->key ? r->key : "?", r->outcome);
    }
    if (s->cached == 0)
        report_warning(CMD, "shard %d/%d saw %zu TUs but owned none: an artifact with no entries",
                       sh->o.shard, sh->o.count, s->tu);
    return EXIT_OK;
}

/* The manifest, then the artifact and the remote's entries and manifest. */
static int shard_publish(struct shard *sh)
{
    const struct jobenv *env = &sh->env;
    const struct jobenv_opts *o = &sh->o;
    struct strbuf err = STRBUF_INIT;
    char *manifest = build_manifest(sh->cell, o->shard, o->count, env, o->relocatable, &sh->b.j,
                                    sh->ents, sh->nents, sh->b.wall);
    int rc = sh->artifact ? artifact_write(sb_str(&sh->apath), manifest, env->cache, sh->ents,
                                           sh->nents, &err)
                          : EXIT_OK;
    if (rc)
        report_error(CMD, "%s", sb_str(&err));
    sb_release(&err);
    if (!rc && sh->s.remote_hits)
        fprintf(stderr,
                CMD ": shard %d/%d: %zu of the TUs it owned were hits from %s%s%s (a warm start)\n",
                o->shard, o->count, sh->s.remote_hits,
                env->remote && o->seed ? "the remote or the seed "
                : env->remote          ? "the remote "
                                       : "the seed ",
                env->remote         ? env->remote->display
                : env->seed_display ? env->seed_display
                                    : "",
                "");
    if (!rc && env->remote && !env->remote->read_only) {
        struct strbuf mname = STRBUF_INIT;
        remote_manifest_name(env->run_id, sh->cell, o->shard, o->count, &mname);
        rc = publish_remote(env->remote, env->cache, sh->ents, sh->nents, sb_str(&mname), manifest,
                            env->run_id, sh->cell, o->shard, o->count);
        sb_release(&mname);
    }
    free(manifest);
    return rc;
}

/* What the shard did, in two lines: TUs owned (split TUs: the device items it owns, not the
 * TUs), stubbed, entries, and what every shard makes and the links. */
static void shard_summary(const struct shard *sh)
{
    const struct jrnl *j = &sh->b.j;
    const struct jstats *s = &sh->s;
    int i = sh->o.shard, n = sh->o.count;
    size_t split_here = 0, items_here = 0;
    for (size_t k = 0; k < j->n; k++)
        split_here += !strcmp(j->r[k].action, "split") && j->r[k].outcome &&
                      !strcmp(j->r[k].outcome, "stored");
    for (size_t k = 0; k < j->nitems; k++)
        items_here +=
            j->items[k].owner == i && j->items[k].outcome &&
            (!strcmp(j->items[k].outcome, "stored") || !strcmp(j->items[k].outcome, "present"));
    struct strbuf split_note = STRBUF_INIT;
    if (split_here)
        sb_addf(&split_note, " and %zu device item%s of %zu split TU%s", items_here,
                items_here == 1 ? "" : "s", split_here, split_here == 1 ? "" : "s");
    fprintf(stderr,
            CMD ": shard %d/%d: %zu TUs owned%s (%.1f s of compiles), %zu stubbed, %zu cache "
                "entries -> %s\n",
            i, n, s->cached - split_here, sb_str(&split_note), s->cached_seconds, s->stubbed,
            sh->nents, sh->artifact ? sb_str(&sh->apath) : sh->env.remote->display);
    sb_release(&split_note);
    if (s->pinned || s->device || s->links)
        fprintf(stderr,
                CMD ": shard %d/%d: %zu pinned TUs and %zu device-code outputs (made in every "
                    "shard); %zu links: %zu executables written as placeholders, %zu libraries "
                    "linked with stub inputs, %zu real\n",
                i, n, s->pinned, s->device, s->links, s->placeholders, s->hollow,
                s->links - s->placeholders - s->hollow - s->refused);
}

/* After the build: the journal read, the shard guard, the artifact, the summary. */
static int shard_check(struct shard *sh)
{
    const struct jrnl *j = &sh->b.j;
    jrnl_stats(j, &sh->s);
    jrnl_warn_fallbacks(j, CMD);
    jrnl_warn_outside_root(j, CMD, sh->env.root);
    if (j->skipped)
        report_warning(CMD,
                       "%zu lines of the journal \"%s\" are not %s records (torn, or "
                       "written by another shardcc-wrap version on the seat?)",
                       j->skipped, sh->env.journal, JOURNAL_MAGIC);
    int rc;
    if ((rc = shard_guard_tus(sh)) != EXIT_OK || (rc = shard_guard_results(sh)) != EXIT_OK ||
        (rc = shard_publish(sh)) != EXIT_OK)
        return rc;
    shard_summary(sh);
    return EXIT_OK;
}

/* The phases of shardcc-shard(1): prepare, build through the seats, guard, publish. */
int cmd_shard(int argc, char **argv)
{
    struct shard sh;
    memset(&sh, 0, sizeof sh);
    int rc = shard_parse(&sh, argc, argv);
    if (rc == CLI_HELP_SHOWN)
        rc = EXIT_OK;
    else if (rc == EXIT_OK && (rc = shard_prepare(&sh)) == EXIT_OK &&
             (rc = shard_build(&sh)) == EXIT_OK)
        rc = shard_check(&sh);
    shard_release(&sh);
    return rc;
}
