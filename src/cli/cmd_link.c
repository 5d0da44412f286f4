/* shardcc link: the link job. Merges the shards' artifacts into a fresh cache, runs the
 * plain full build in the link phase and applies the link guards: every TU compile a cache
 * hit (hit rate >= the threshold, uncacheable and failed calls counted as misses), at least
 * one TU compile seen, no stub written. */
#include "args.h"
#include "artifact.h"
#include "cli.h"
#include "cmstate.h"
#include "explain.h"
#include "job.h"
#include "job_build.h"
#include "jobenv.h"
#include "jrnl.h"
#include "merge.h"
#include "trust.h"
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc link"

static const char usage[] =
    "usage: shardcc link --artifacts DIR|FILE... --expect-shards N [--min-hit-rate R]\n"
    "                    [--remote URL [--run-id ID] [--cell ID]] [--clean CMD]\n"
    "                    [--cache DIR] [--root DIR] [--journal FILE] [--plan FILE]\n"
    "                    [--[no-]host-seat] [--[no-]cuda-home-seat] [--relocatable]\n"
    "                    [--[no-]reproducible] [--split-archs N] [--real-nvcc PATH]\n"
    "                    [--real-cxx PATH] [--real-cc PATH] [--ccache PATH] [--cuda X.Y]\n"
    "                    [--allow-partial] [--allow-nondeterministic] [--seed-from SRC]\n"
    "                    [--fresh-configure] -- CMD...\n"
    "\n"
    "Merges the artifacts of shards 1..N (as shardcc merge), then runs CMD (the package's\n"
    "ordinary full build) in the link phase, where every TU compile should be a cache hit\n"
    "and nothing is stubbed, and checks:\n"
    "  - the toolchain fingerprint and the root are the shards' (or all jobs ran with\n"
    "    --relocatable): else no entry could hit;\n"
    "  - hit rate = cache hits / TU compiles the seats saw >= R (default 0.90); uncacheable\n"
    "    and failed compiles count as misses; every miss is listed by key;\n"
    "  - at least one TU compile was seen (else the build bypassed the seat);\n"
    "  - no stub was written (a shard variable leaked into the link job).\n"
    "Ends with one line: hit rate 100.0% (24/24 TUs), 0 stubs, 3/3 shards\n"
    "(with --remote: \"(24/24 TUs, 24 from the remote)\": the hits ccache took from there)\n"
    "\n"
    "  --artifacts P...       artifact files or directories (values up to the next option);\n"
    "                         not needed with --remote\n"
    "  --expect-shards N      the number of shards of the cell\n"
    "  --remote URL           the shards' remote storage (shardcc shard --remote; else\n"
    "                         SHARDCC_REMOTE): a shard whose manifest it holds for this run is\n"
    "                         taken from there, its artifact only when the remote lost entries;\n"
    "                         ccache reads it read-only. Results that two shards' manifests\n"
    "                         give different digests for are nondeterministic, as in merge\n"
    "  --run-id ID            the run whose shards to take (default: as shardcc shard)\n"
    "  --cell ID              the cell whose shards to take from the remote (default: default)\n"
    "  --min-hit-rate R       the threshold, 0..1 (default 0.90)\n"
    "  --cache DIR            the merged cache (default: a fresh ROOT/.shardcc/link/cache)\n"
    "  --journal FILE         the seats' journal (default: ROOT/.shardcc/link/journal.tsv)\n"
    "  --plan FILE            the shards' plan: refuse artifacts made with another one\n"
    "  --root DIR             the project root: the shards' (default: .)\n"
    "  --clean CMD            a shell command run first, before the merge, to make the tree\n"
    "                         clean (e.g. 'rm -rf build'): the job starts from a clean tree\n"
    "  --fresh-configure      do not write the shards' CMake configure state into the build\n"
    "                         directories before CMD (see CONFIGURE STATE in shardcc-link(1)):\n"
    "                         CMake then identifies the compilers again, as in a plain "
    "build\n" CLI_HELP_SEED CLI_HELP_SEATS CLI_HELP_TOOLS
    "  --allow-partial, --allow-nondeterministic\n"
    "                   as for shardcc merge\n"
    "\n"
    "Exit status: 0 ok, 1 the build failed, 2 usage, 3 a guard failed, 4 artifact or I/O.\n";

/* Writes the shards' CMake configure state (when they agreed on one, merge_run) into the
 * build directories this job has not configured yet, so that CMD's configure skips the
 * compiler identification and ABI probes (cmstate.h). A directory that cannot take it is
 * configured afresh, as in a plain build: a note, not an error. */
static void restore_configure(const char *root, const json_t *cmake, int fresh)
{
    if (!cmake)
        return;
    if (fresh) {
        fprintf(stderr, CMD ": --fresh-configure: the shards' CMake configure state is not "
                            "used\n");
        return;
    }
    struct strvec done = STRVEC_INIT, notes = STRVEC_INIT;
    cmstate_restore(root, cmake, &done, &notes);
    for (size_t k = 0; k < done.n; k++)
        fprintf(stderr,
                CMD ": %s/: the shards' CMake configure state written (its configure skips "
                    "compiler detection; --fresh-configure to not)\n",
                done.v[k]);
    for (size_t k = 0; k < notes.n; k++)
        fprintf(stderr, CMD ": the shards' CMake configure state not written: %s\n", notes.v[k]);
    sv_clear(&done);
    sv_clear(&notes);
}

/* What guard 6 (trust.h) reads: the shards' manifests (the artifacts', then the remote's)
 * and the plan the seats used. */
struct owners {
    struct shard_manifests sm;
    struct strbuf plan;
    struct trust_in in;
};

static void owners_release(struct owners *w)
{
    shard_manifests_release(&w->sm);
    sb_release(&w->plan);
}

/* Loads them (after jobenv_apply: SHARDCC_PLAN). An exit status. */
static int owners_load(struct merge_opts *mo, const struct jobenv *env, int count, struct owners *w)
{
    memset(w, 0, sizeof *w);
    int rc = shard_manifests_load(mo, &w->sm);
    if (rc)
        return rc;
    const char *pf = getenv("SHARDCC_PLAN");
    int e = pf && *pf ? plat_read_file(pf, &w->plan) : 0;
    if (e) {
        report_error(CMD, "cannot read the plan \"%s\": %s", pf, plat_strerror(e));
        return EXIT_IO;
    }
    w->in =
        (struct trust_in){.cmd = CMD,
                          .m = w->sm.m,
                          .nm = w->sm.n,
                          .files = w->sm.files,
                          .nart = w->sm.nfiles,
                          .count = count,
                          .planned = w->sm.n && json_is_string(json_object_get(w->sm.m[0], "plan")),
                          .plan = pf && *pf ? sb_str(&w->plan) : NULL,
                          .plan_len = w->plan.len,
                          .cache = env->cache,
                          .remote = mo->remote,
                          .run = mo->run,
                          .cell = mo->cell_name};
    return EXIT_OK;
}

/* One link job, from its options to its summary; link_release frees what it holds
 * whichever phase it stopped in. */
struct link {
    struct jobenv_opts o;
    struct merge_opts mo;
    const char *expect, *rate_s, *cell, *clean;
    int fresh;
    double min_rate;
    char **build;
    struct remote *remote; /* what --remote and the run id gave */
    char *run;
    struct strbuf summary; /* ROOT/.shardcc/link/summary.json, what shardcc report reads */
    struct strbuf dcache, djournal;
    struct merge_result mr;
    struct jobenv env;
    int have_env;
    struct owners own;
    struct job_build b;
    int have_build;
};

static void link_release(struct link *l)
{
    free(l->mo.inputs);
    if (l->remote)
        remote_release(l->remote);
    free(l->remote);
    free(l->run);
    sb_release(&l->summary);
    sb_release(&l->dcache);
    sb_release(&l->djournal);
    merge_result_release(&l->mr);
    if (l->have_env)
        jobenv_release(&l->env);
    owners_release(&l->own);
    if (l->have_build)
        jrnl_release(&l->b.j);
}

/* The options and the build command. EXIT_OK, CLI_HELP_SHOWN, or an exit status (reported). */
static int link_parse(struct link *l, int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    l->mo.cmd = CMD;
    l->mo.inputs = calloc((size_t)argc, sizeof *l->mo.inputs);
    l->rate_s = "0.90";
    l->cell = "default";
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return CLI_HELP_SHOWN;
        }
        if (args_flag(&a, "--"))
            break;
        if (args_values(&a, "--artifacts", l->mo.inputs, &l->mo.ninputs))
            continue;
        if (args_value(&a, "--expect-shards", &l->expect) ||
            args_value(&a, "--min-hit-rate", &l->rate_s) || args_value(&a, "--cell", &l->cell) ||
            args_value(&a, "--clean", &l->clean) ||
            (args_flag(&a, "--allow-partial") && (l->mo.allow_partial = 1)) ||
            (args_flag(&a, "--allow-nondeterministic") && (l->mo.allow_nondeterministic = 1)) ||
            (args_flag(&a, "--fresh-configure") && (l->fresh = 1)) || jobenv_arg(&a, &l->o))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    char *end;
    l->min_rate = strtod(l->rate_s, &end);
    if (end == l->rate_s || l->min_rate != l->min_rate) /* empty, or NaN */
        end = (char *)"x";
    if (!a.error && jobenv_remote(&l->o, &l->remote, &l->run, CMD) == EXIT_OK)
        l->o.remote_checked = 1;
    else
        a.error = 1;
    if (a.error)
        return EXIT_USAGE; /* reported */
    if (!l->mo.ninputs && !l->remote) {
        report_error(CMD, "--artifacts is required (or --remote; see --help)");
    } else if (!l->mo.ninputs && !l->run) {
        report_error(CMD, "--remote without --artifacts needs the run id that names the "
                          "shards' manifests: --run-id ID, or SHARDCC_RUN_ID (CI engines' own "
                          "run ids are taken)");
    } else if (!cell_id_ok(l->cell)) {
        report_error(CMD, "--cell \"%s\" is not a cell id (letters, digits, . _ + -)", l->cell);
    } else if (!l->expect || (l->mo.expect = parse_count(l->expect)) < 1) {
        report_error(CMD, "--expect-shards N is required, N >= 1");
    } else if (*end || l->min_rate < 0 || l->min_rate > 1) {
        report_error(CMD, "--min-hit-rate \"%s\" is not a number between 0 and 1", l->rate_s);
    } else if (a.i >= argc) {
        report_error(CMD, "no build command after -- (see --help)");
    } else {
        l->build = argv + a.i;
        return jobenv_check_cuda(&l->o, CMD); /* a wrong toolkit, before the merge */
    }
    return EXIT_USAGE;
}

/* Before the merge: the --clean command, the earlier summary removed (whatever fails below,
 * shardcc report then says the link job has not finished, not an older result), and the
 * job's state directory. */
static int link_prepare(struct link *l)
{
    int rc;
    if (l->clean && (rc = run_clean_command(CMD, l->clean)) != EXIT_OK)
        return rc;
    if ((rc = jobenv_root(l->o.root, &l->summary, CMD)) != EXIT_OK)
        return rc;
    sb_adds(&l->summary, "/.shardcc/link/summary.json");
    int e = plat_unlink(sb_str(&l->summary));
    if (e) {
        report_error(CMD, "cannot remove the earlier summary \"%s\": %s", sb_str(&l->summary),
                     strerror(e));
        return EXIT_IO;
    }
    return jobenv_state_defaults(&l->o, "link", &l->dcache, &l->djournal, CMD);
}

/* The shards' artifacts (or the remote's manifests) merged into the job's cache. */
static int link_merge(struct link *l)
{
    l->mo.cache = l->o.cache;
    if (l->remote && l->run) {
        l->mo.remote = l->remote;
        l->mo.run = l->run;
        l->mo.cell_name = l->cell;
    } else if (l->remote) {
        report_warning(CMD, "no run id: the shards' manifests are taken from the artifacts; the "
                            "remote serves ccache's reads only");
    }
    int rc = merge_run(&l->mo, &l->mr);
    if (rc)
        return rc;
    const struct merge_result *mr = &l->mr;
    fprintf(stderr, CMD ": merged %d/%d shards of cell %s: %zu cache entries\n", mr->present,
            mr->count, mr->cell, mr->added);
    if (mr->remote_shards && l->remote)
        fprintf(stderr,
                CMD ": %d shard%s from the remote %s (run %s): %zu entries there%s, %zu of the "
                    "seat's store fetched (%.1f MB)\n",
                mr->remote_shards, mr->remote_shards == 1 ? "" : "s", l->remote->display, l->run,
                mr->remote_entries - mr->remote_missing,
                mr->remote_missing ? " (some missing)" : "", mr->remote_fetched,
                (double)l->remote->bytes_in / 1e6);
    return EXIT_OK;
}

/* This job's environment, and the guards that it is the shards': the toolchain, the root
 * (ccache's keys hold the build's absolute paths without --relocatable), reproducible
 * objects (in every CUDA TU's key: " pipeline=1" in ccache's compiler check) and the plan
 * (merge made the shards agree). Then the shards' CMake configure state is written. */
static int link_environment(struct link *l)
{
    const struct merge_result *mr = &l->mr;
    l->o.cell = mr->cell; /* a plan per cell: this cell's section */
    int rc = jobenv_build(&l->o, &l->env, CMD);
    if (rc)
        return rc;
    l->have_env = 1;
    const struct jobenv *env = &l->env;
    if (strcmp(env->fingerprint, mr->fingerprint) != 0) {
        report_error(CMD,
                     "this job's toolchain fingerprint %s differs from the shards' %s: the "
                     "link job would miss every TU (another nvcc, cicc, ptxas or host compiler?)",
                     env->fingerprint, mr->fingerprint);
        return EXIT_GUARD;
    }
    if (!mr->root != !!l->o.relocatable || (mr->root && strcmp(mr->root, env->root) != 0)) {
        if (!mr->root)
            report_error(CMD, "the shards ran with --relocatable and this link job without it: "
                              "pass --relocatable to every job or to none");
        else if (l->o.relocatable)
            report_error(CMD, "this link job runs with --relocatable and the shards ran without "
                              "it: pass --relocatable to every job or to none");
        else
            report_error(CMD,
                         "the shards ran at \"%s\" and this link job at \"%s\": ccache keys "
                         "hold the build's absolute paths, so the link job would miss every "
                         "TU; %s",
                         mr->root, env->root, MERGE_ROOT_REMEDY);
        return EXIT_GUARD;
    }
    if (mr->reproducible != env->reproducible) {
        report_error(CMD,
                     "%s: the link job would miss every TU; pass --reproducible to every job "
                     "or to none",
                     mr->reproducible ? "the shards ran with --reproducible and this link job "
                                        "without it"
                                      : "this link job runs with --reproducible and the shards "
                                        "ran without it");
        return EXIT_GUARD;
    }
    if (l->o.plan && (!mr->plan || strcmp(mr->plan, env->plan_digest) != 0)) {
        report_error(CMD,
                     "the shards were made with %s%s, this link job was given the plan %s "
                     "(\"%s\"): they did not split the build the way it expects",
                     mr->plan ? "the plan " : "no plan", mr->plan ? mr->plan : "", env->plan_digest,
                     l->o.plan);
        return EXIT_GUARD;
    }
    if (mr->plan)
        fprintf(stderr, CMD ": the shards were made with the plan %s\n", mr->plan);
    restore_configure(env->root, mr->cmake, l->fresh);
    return EXIT_OK;
}

/* The build's inputs: the old journal removed, the seats' variables set, guard 6's records
 * loaded and each pinned TU's result made its owner's copy (trust.h). */
static int link_inputs(struct link *l)
{
    int e = plat_unlink(l->env.journal);
    if (e) {
        report_error(CMD, "cannot remove the old journal \"%s\": %s", l->env.journal,
                     plat_strerror(e));
        return EXIT_IO;
    }
    jobenv_apply(&l->env);
    size_t pins = 0;
    int rc = owners_load(&l->mo, &l->env, l->mr.count, &l->own);
    if (rc || (rc = trust_pinned_owners(&l->own.in, &pins)) != EXIT_OK)
        return rc;
    if (pins)
        fprintf(stderr,
                CMD ": %zu result%s of what every shard makes (pinned TUs, device code) taken "
                    "from %s owner (its artifact, or its own copy in the remote)\n",
                pins, pins == 1 ? "" : "s", pins == 1 ? "its" : "their");
    return EXIT_OK;
}

/* The package's build in the link phase, and its journal. */
static int link_build(struct link *l)
{
    struct strbuf msg = STRBUF_INIT;
    int rc = job_run_build(CMD, "running the build in the link phase", "link job", l->build,
                           l->env.journal, &l->b, &msg);
    if (rc == EXIT_USAGE)
        report_error(CMD, "%s", sb_str(&msg));
    else if (rc == EXIT_BUILD)
        report_error(CMD, "the build failed (%s)", sb_str(&msg));
    l->have_build = rc == EXIT_OK;
    sb_release(&msg);
    return rc;
}

/* Prints each TU the build did not take from the shards, with why, and lists them in
 * misses (for the summary). */
static void link_misses(const struct jrnl *j, json_t *misses)
{
    for (size_t k = 0; k < j->n; k++) {
        const struct jrec *r = &j->r[k];
        if (!jrec_is_tu(r) || !strcmp(r->action, "stub") ||
            (r->status == 0 && r->outcome &&
             (!strcmp(r->outcome, "hit") || !strcmp(r->outcome, "assembled"))))
            continue;
        struct strbuf why = STRBUF_INIT;
        sb_adds(&why, r->status ? "failed" : r->outcome ? r->outcome : "no ccache outcome");
        /* a split TU: the device items the store did not have, and their owners */
        for (size_t q = 0, n = 0; q < j->nitems; q++) {
            const struct jitem *it = &j->items[q];
            if (it->rec == k && strcmp(it->outcome, "hit") != 0)
                sb_addf(&why, "%s%s", n++ ? ", " : ": items not in the shards' store: ", it->name);
        }
        fprintf(stderr, "  miss: %s (%s)\n", r->key ? r->key : "?", sb_str(&why));
        json_array_append_new(
            misses, json_pack("{s:s, s:s}", "key", r->key ? r->key : "?", "reason", sb_str(&why)));
        sb_release(&why);
    }
}

/* The hit rate line, and the host TUs compiled here. */
static void link_report_rate(const struct link *l, const struct jstats *s, double rate)
{
    /* device-code-only outputs (-fatbin, -ptx...) come from the seat's store, not ccache */
    char dev[128] = "";
    if (s->device)
        snprintf(dev, sizeof dev, ", %zu of them device-code outputs", s->device);
    if (l->remote)
        snprintf(dev + strlen(dev), sizeof dev - strlen(dev), ", %zu from the remote",
                 s->remote_hits);
    fprintf(stderr, "hit rate %.1f%% (%zu/%zu TUs%s), %zu stub%s, %d/%d shards\n", rate * 100.0,
            s->hits, s->tu, dev, s->stubbed, s->stubbed == 1 ? "" : "s", l->mr.present,
            l->mr.count);
    if (s->host)
        fprintf(stderr,
                CMD ": and %zu host TU%s compiled here as in every job (the default host seat "
                    "shards only torch extensions' host TUs; --host-seat shards every host TU)\n",
                s->host, s->host == 1 ? "" : "s");
}

/* The link guards over the build's journal: no stub (a shard's variable leaked in), each TU
 * its owner's (guard 6), at least one TU seen, the hit rate at least the minimum. */
static int link_guards(struct link *l, const struct jstats *s, double rate)
{
    int rc = EXIT_OK;
    if (s->stubbed) {
        report_error(CMD,
                     "%zu TU compile%s stubbed in the link job (%s): a shard variable "
                     "(SHARDCC_PHASE/SHARDCC_SHARD) leaked into it",
                     s->stubbed, s->stubbed == 1 ? " was" : "s were",
                     "the stubs are empty objects: the artifact would lack their code");
        rc = EXIT_GUARD;
    }
    struct trust_out tr;
    if (trust_check(&l->own.in, &l->b.j, &tr) != EXIT_OK)
        rc = EXIT_GUARD;
    else if (tr.checked || tr.unverified)
        fprintf(stderr,
                CMD ": %zu TU%s (%zu split items) checked against their owners' records%s\n",
                tr.checked, tr.checked == 1 ? "" : "s", tr.items,
                tr.unverified ? " (and some hits not: read from a remote and not kept here, or "
                                "without a result key in ccache's log)"
                              : "");
    size_t misses = s->cached - s->hits;
    if (s->tu == 0) {
        struct strbuf why = STRBUF_INIT;
        explain_no_tu(l->env.root, (long long)l->b.w0, &why);
        report_error(CMD,
                     "the seats saw no TU compile in the link job, so nothing came from the "
                     "shards: %s",
                     sb_str(&why));
        sb_release(&why);
        rc = EXIT_GUARD;
    } else if (rate + 1e-12 < l->min_rate) {
        report_error(CMD,
                     "hit rate %.1f%% is below the minimum %.1f%%: %zu TU%s missed the "
                     "cache (listed above)",
                     rate * 100.0, l->min_rate * 100.0, misses, misses == 1 ? "" : "s");
        rc = EXIT_GUARD;
        /* why: what each missed TU's owner ran against what this job ran (the manifests
         * guard 6 read) */
        fflush(stdout);
        explain_misses(l->own.sm.m, l->own.sm.n, &l->b.j, stderr);
    }
    return rc;
}

/* Writes the summary shardcc report reads; a failure to is a warning. */
static void link_write_summary(const struct link *l, const struct jstats *s, double rate,
                               const struct jtime *jt, json_t *misses, int status)
{
    json_t *sum = json_pack("{s:s, s:i, s:i, s:f, s:f, s:f, s:I, s:I, s:I, s:O, s:i}", "cell",
                            l->mr.cell, "present", l->mr.present, "count", l->mr.count,
                            "wall_seconds", l->b.wall, "hit_rate", rate, "min_hit_rate",
                            l->min_rate, "tus", (json_int_t)s->tu, "hits", (json_int_t)s->hits,
                            "stubs", (json_int_t)s->stubbed, "misses", misses, "status", status);
    json_object_set_new(sum, "device", json_integer((json_int_t)s->device));
    json_object_set_new(sum, "remote_hits",
                        l->remote ? json_integer((json_int_t)s->remote_hits) : json_null());
    char *ci_run = ci_run_id();
    json_object_set_new(sum, "run", ci_run ? json_string(ci_run) : json_null());
    free(ci_run);
    json_object_set_new(sum, "time",
                        json_pack("{s:f, s:f, s:f, s:f}", "configure", jt->configure, "compiles",
                                  jt->compiles, "links", jt->links, "other", jt->other));
    char *text = json_dumps(sum, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    int e = plat_write_atomic(sb_str(&l->summary), text, strlen(text));
    if (e)
        report_warning(CMD, "cannot write \"%s\": %s", sb_str(&l->summary), plat_strerror(e));
    free(text);
    json_decref(sum);
}

/* After the build: what it took from the shards, the guards, the summary. */
static int link_check(struct link *l)
{
    const struct jrnl *j = &l->b.j;
    struct jstats s;
    jrnl_stats(j, &s);
    jrnl_warn_fallbacks(j, CMD);
    jrnl_warn_outside_root(j, CMD, l->env.root);
    json_t *misses = json_array();
    link_misses(j, misses);
    struct jtime jt;
    jrnl_time(j, l->b.w0, l->b.w0 + (uint64_t)(l->b.wall * 1e6), &jt);
    struct strbuf tl = STRBUF_INIT;
    jtime_format(&jt, &tl);
    fprintf(stderr, CMD ": the build took %.1f s: %s (%zu links)\n", jt.wall, sb_str(&tl), s.links);
    sb_release(&tl);
    double rate = s.tu ? (double)s.hits / (double)s.tu : 0.0;
    link_report_rate(l, &s, rate);
    int rc = link_guards(l, &s, rate);
    link_write_summary(l, &s, rate, &jt, misses, rc);
    json_decref(misses);
    return rc;
}

/* The phases of shardcc-link(1): merge, check the job against the shards, build, guards. */
int cmd_link(int argc, char **argv)
{
    struct link l;
    memset(&l, 0, sizeof l);
    int rc = link_parse(&l, argc, argv);
    if (rc == CLI_HELP_SHOWN)
        rc = EXIT_OK;
    else if (rc == EXIT_OK && (rc = link_prepare(&l)) == EXIT_OK &&
             (rc = link_merge(&l)) == EXIT_OK && (rc = link_environment(&l)) == EXIT_OK &&
             (rc = link_inputs(&l)) == EXIT_OK && (rc = link_build(&l)) == EXIT_OK)
        rc = link_check(&l);
    link_release(&l);
    return rc;
}
