/* shardcc classify: prints, as one JSON object, what the wrapper would do with a compiler
 * call. It runs the wrapper's own classify_call(), so the answer is the wrapper's. */
#include "args.h"
#include "classify.h"
#include "stub_coff.h"
#include "cli.h"
#include "toolchain.h"
#include "job.h"
#include "partition.h"
#include "path.h"
#include "pipeline.h"
#include "platform.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc classify"

static const char usage[] =
    "usage: shardcc classify [--shard I/N] [--root DIR] [--seat nvcc|c++|cc] -- COMPILER ARGS...\n"
    "\n"
    "Prints what the seat wrapper does with the call `COMPILER ARGS...` run from the current\n"
    "directory, as one JSON object:\n"
    "  seat     nvcc | c++ | cc\n"
    "  kind     tu | probe | info | other\n"
    "  action   cache (ccache + real compiler) | stub | direct (real compiler, no cache) |\n"
    "           pin (a pinned TU, SHARDCC_PIN: every shard) | device (device code only: -fatbin, "
    "-ptx,\n"
    "           -cubin, -optix-ir, -ltoir; every job, through the seat's store) |\n"
    "           split (with --shard: a reproducible TU whose device items shards own)\n"
    "  reason   why this kind\n"
    "  source, key, output, depfile, owner (null when not applicable)\n"
    "  depfile_targets, argv (canonical arguments, compiler excluded)\n"
    "  parts    a split TU's device items, [{\"item\": \"compute_90\", \"real\": \"sm_90\",\n"
    "           \"owner\": 2}, ...] (null when not split): with --shard, a reproducible TU\n"
    "           and an nvcc call, COMPILER is asked for its plan (nvcc -dryrun) as the seat\n"
    "           asks it, and SHARDCC_SPLIT_ARCHS and the plan SHARDCC_PLAN names (its seat\n"
    "           form, which shardcc env writes) decide as they do for the seat\n"
    "\n"
    "  --shard I/N   decide as shard I of N (default: the link phase, which never stubs)\n"
    "  --root DIR    the project root (default: $SHARDCC_ROOT, else .)\n"
    "  --seat S      the seat (default: nvcc when COMPILER's name contains \"nvcc\", cc for\n"
    "                cc/gcc/clang, else c++)\n"
    "NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS are folded in as the wrapper does, and\n"
    "SHARDCC_HOST_SEAT=torch (shardcc env's default) makes the c++ and cc seats run every\n"
    "call but a torch extension's TU directly. SHARDCC_REPRODUCIBLE is checked as the seats\n"
    "check it; it changes no argument (the seat runs such a TU as nvcc's steps). Outside a\n"
    "job's environment (no SHARDCC_PHASE) a TU is taken as reproducible as a shard takes it\n"
    "by default: where COMPILER's --help lists the option objdir-as-tempdir.\n"
    "\n"
    "Exit status: 0 ok, 2 usage error (bad option, unreadable options file), 4 standard\n"
    "output could not be written.\n";

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* "parts" (and action "split") for a TU the seat would split in this shard (pipeline.h);
 * null otherwise. An exit status. */
static int split_parts(enum seat seat, const struct wrap_config *cfg, const struct call *call,
                       const char *compiler, json_t *o)
{
    json_object_set_new(o, "parts", json_null());
    if (seat != SEAT_NVCC || cfg->phase != PHASE_SHARD || !cfg->reproducible ||
        call->kind != KIND_TU || (call->action != ACTION_CACHE && call->action != ACTION_STUB) ||
        !call->key || !pipeline_compiles((int)call->argv.n, call->argv.v))
        return EXIT_OK;
    int archs;
    if (split_archs_from_env(&archs) != 0) {
        report_error(CMD, "%s=\"%s\" is not a number of architectures 0..1000", SPLIT_ARCHS_ENV,
                     getenv(SPLIT_ARCHS_ENV));
        return EXIT_USAGE;
    }
    struct strbuf nvcc = STRBUF_INIT, plan = STRBUF_INIT, why = STRBUF_INIT;
    const char *plan_path = getenv("SHARDCC_PLAN");
    int e = plan_path && *plan_path ? plat_read_file(plan_path, &plan) : 0;
    if (e) {
        report_error(CMD, "cannot read the plan SHARDCC_PLAN=\"%s\": %s", plan_path,
                     plat_strerror(e));
        return EXIT_USAGE;
    }
    if (plat_find_in_path(compiler, &nvcc) != 0) {
        report_error(CMD,
                     "%s: not found, so its plan (nvcc -dryrun) cannot tell "
                     "whether the TU is split",
                     compiler);
        sb_release(&plan);
        return EXIT_USAGE;
    }
    struct pipeline_opts po;
    memset(&po, 0, sizeof po);
    po.mode = PIPELINE_DECIDE;
    po.key = call->key;
    po.shard = cfg->shard;
    po.count = cfg->count;
    po.plan = plan.len ? sb_str(&plan) : NULL;
    po.plan_len = plan.len;
    po.min_archs = archs;
    unsetenv("NVCC_PREPEND_FLAGS"); /* folded into the arguments already */
    unsetenv("NVCC_APPEND_FLAGS");
    if (pipeline_run_opts(sb_str(&nvcc), (int)call->argv.n, call->argv.v, &po, &why) == 0 &&
        po.split) {
        json_t *parts = json_array();
        for (size_t i = 0; i < po.n; i++)
            json_array_append_new(parts,
                                  json_pack("{s:s, s:s, s:i}", "item", po.items[i].name, "real",
                                            po.items[i].real, "owner", po.items[i].owner));
        json_object_set_new(o, "parts", parts);
        json_object_set_new(o, "action", json_string(action_name(ACTION_SPLIT)));
    }
    free(po.items);
    sb_release(&nvcc);
    sb_release(&plan);
    sb_release(&why);
    return EXIT_OK;
}

/* The seat --seat names, or the compiler's (cc: its path or name). 0, or EXIT_USAGE. */
static int classify_seat(const char *seat_s, const char *cc, enum seat *seat)
{
    if (!seat_s)
        *seat = seat_of_compiler(cc);
    else if (!strcmp(seat_s, "nvcc"))
        *seat = SEAT_NVCC;
    else if (!strcmp(seat_s, "c++"))
        *seat = SEAT_CXX;
    else if (!strcmp(seat_s, "cc"))
        *seat = SEAT_CC;
    else {
        report_error(CMD, "--seat \"%s\" is not nvcc, c++ or cc", seat_s);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The seat's configuration as a job's would be: the phase (a shard's with --shard), the
 * seat (*seatp), the root and the directory, the compiler's dialect, nvcc's extra flags, and the
 * modes (reproducible: in a job's environment, shardcc env having set SHARDCC_PHASE, the job's
 * choice; outside one, as a shard decides by default: where the nvcc named has
 * --objdir-as-tempdir). cfg->root and cfg->cwd are the caller's to free. */
static int classify_config(const char *shard, const char *root, const char *seat_s, const char *cc,
                           enum seat *seatp, struct wrap_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    if (shard && parse_shard_spec(shard, &cfg->shard, &cfg->count) != 0) {
        report_error(CMD, "--shard \"%s\" is not I/N with 1 <= I <= N", shard);
        return EXIT_USAGE;
    }
    cfg->phase = shard ? PHASE_SHARD : PHASE_LINK;
    if (classify_seat(seat_s, cc, seatp) != EXIT_OK)
        return EXIT_USAGE;
    enum seat seat = *seatp;
    struct strbuf sb = STRBUF_INIT;
    if (plat_realpath(root && *root ? root : ".", &sb) != 0) {
        report_error(CMD, "--root \"%s\": %s", root ? root : ".", strerror(errno));
        return EXIT_USAGE;
    }
    cfg->root = sb_detach(&sb);
    plat_getcwd(&sb);
    cfg->cwd = sb_detach(&sb);
    if (seat != SEAT_NVCC)
        cfg->msvc = msvc_dialect(cc); /* the seat reads it from its real compiler */
    cfg->coff_machine = msvc_machine(cc);
    if (seat == SEAT_NVCC) {
        cfg->prepend = getenv("NVCC_PREPEND_FLAGS");
        cfg->append = getenv("NVCC_APPEND_FLAGS");
    }
    const char *repro = getenv("SHARDCC_REPRODUCIBLE");
    struct strbuf found = STRBUF_INIT;
    if (!repro && !getenv("SHARDCC_PHASE") && seat == SEAT_NVCC &&
        plat_find_in_path(cc, &found) == 0 &&
        nvcc_has_option(sb_str(&found), "--objdir-as-tempdir"))
        repro = "1";
    sb_release(&found);
    struct strbuf why = STRBUF_INIT;
    int rc = EXIT_OK;
    if (seat_modes(seat, getenv("SHARDCC_HOST_SEAT"), repro, cfg, &why)) {
        report_error(CMD, "%s", sb_str(&why));
        rc = EXIT_USAGE;
    }
    sb_release(&why);
    return rc;
}

/* What the seat decided for the call, as one JSON object. */
static json_t *classify_json(enum seat seat, const struct call *call)
{
    json_t *o = json_object();
    json_object_set_new(o, "seat", json_string(seat_name(seat)));
    json_object_set_new(o, "kind", json_string(kind_name(call->kind)));
    json_object_set_new(o, "action", json_string(action_name(call->action)));
    json_object_set_new(o, "reason", json_string(call->reason));
    json_object_set_new(o, "source", str_or_null(call->source));
    json_object_set_new(o, "key", str_or_null(call->key));
    json_object_set_new(o, "output", str_or_null(call->output));
    json_object_set_new(o, "depfile", str_or_null(call->depfile));
    json_t *t = json_array();
    for (size_t i = 0; i < call->dep_targets.n; i++)
        json_array_append_new(t, json_string(call->dep_targets.v[i]));
    json_object_set_new(o, "depfile_targets", t);
    json_object_set_new(o, "owner", call->owner ? json_integer(call->owner) : json_null());
    if (call->coff_machine) /* the stub's format: COFF for cl and clang-cl */
        json_object_set_new(o, "stub", json_string(stub_coff_name(call->coff_machine)));
    json_t *v = json_array();
    for (size_t i = 0; i < call->argv.n; i++)
        json_array_append_new(v, json_string(call->argv.v[i]));
    json_object_set_new(o, "argv", v);
    return o;
}

int cmd_classify(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *shard = NULL, *root = getenv("SHARDCC_ROOT"), *seat_s = NULL;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (args_flag(&a, "--"))
            break;
        if (args_value(&a, "--shard", &shard) || args_value(&a, "--root", &root) ||
            args_value(&a, "--seat", &seat_s))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    if (a.i >= argc) {
        report_error(CMD, "no compiler command after -- (see --help)");
        return EXIT_USAGE;
    }
    const char *cc = argv[a.i];
    enum seat seat;
    struct wrap_config cfg;
    int rc = classify_config(shard, root, seat_s, cc, &seat, &cfg);
    if (rc) {
        free(cfg.root);
        free(cfg.cwd);
        return rc;
    }
    struct call call;
    struct strbuf err = STRBUF_INIT;
    rc = classify_call(seat, &cfg, argc - a.i - 1, argv + a.i + 1, &call, &err);
    if (rc) {
        report_error(CMD, "%s", sb_str(&err));
    } else {
        json_t *o = classify_json(seat, &call);
        rc = split_parts(seat, &cfg, &call, cc, o);
        if (!rc) {
            char *text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
            puts(text);
            free(text);
        }
        json_decref(o);
        call_release(&call);
    }
    sb_release(&err);
    free(cfg.root);
    free(cfg.cwd);
    return rc; /* main() flushes standard output and reports a failure */
}
