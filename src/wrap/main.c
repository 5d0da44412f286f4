/* shardcc-wrap: the compiler seat. Exec'd once per compiler call (as shardcc-nvcc,
 * shardcc-c++, shardcc-cc or, in a shadow CUDA_HOME, nvcc); reads its configuration from
 * the SHARDCC_* variables `shardcc env` sets, classifies the call, then stubs it, runs it
 * through ccache, or runs the real compiler directly; journals one record. libc only. */
#include "argv.h"
#include "ccache_log.h"
#include "classify.h"
#include "devcode.h"
#include "journal.h"
#include "ldseat.h"
#include "partition.h"
#include "path.h"
#include "pipeline.h"
#include "platform.h"
#include "stub.h"
#include "stub_coff.h"
#include "version.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 8
/* the largest SHARDCC_PLAN file the seat reads (a key and a shard a line: millions of TUs) */
#define PLAN_SEAT_MAX (64u << 20)

/* the C library the build linked the seat against (CMakeLists.txt: SHARDCC_SEAT_LIBC) */
#ifndef SHARDCC_SEAT_LIBC
#define SHARDCC_SEAT_LIBC "unknown"
#endif

struct wrap {
    enum seat seat;
    const char *prog; /* name for messages */
    struct wrap_config cfg;
    const char *realvar; /* the variable naming it */
    const char *real;    /* the real compiler */
    const char *journal; /* or NULL */
    int depth;
    struct strbuf plan; /* SHARDCC_PLAN's contents where not mapped (plat_map_file) */
    int link_probe;     /* the linker seat's output is a build system's probe */
};

static int fail(const struct wrap *w, int code, const char *fmt, ...) SHARDCC_PRINTF(3, 4);

/* Why a reproducible TU ran as nvcc whole instead of nvcc's plan (pipeline.h), for its
 * journal record; and the file in which ccache's child says so (PIPELINE_NOTE_ENV). */
static struct strbuf fallback_why = STRBUF_INIT;
static const char *pipeline_note;
/* In a shard, the device items of a TU ccache's child compiled whole, with their times
 * (the note's "item" lines): journaled as item lines, outcome "whole", for shardcc plan. */
static struct split_item *whole_items;
static size_t whole_n;

/* The note's "item<TAB>NAME<TAB>REAL<TAB>US" line into whole_items. */
static void note_item(const char *line, size_t len, int shard)
{
    char name[32], real[96];
    unsigned long long us;
    char *copy = xstrndup(line, len);
    /* REAL is empty for PTX only: "item\tcompute_90\t\t123" */
    int ok = sscanf(copy, "item\t%31[^\t]\t%95[^\t]\t%llu", name, real, &us) == 3;
    if (!ok && sscanf(copy, "item\t%31[^\t]\t\t%llu", name, &us) == 2) {
        real[0] = '\0';
        ok = 1;
    }
    free(copy);
    if (!ok || whole_n >= 64)
        return;
    whole_items = xrealloc(whole_items, (whole_n + 1) * sizeof *whole_items);
    struct split_item *r = &whole_items[whole_n++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->real, sizeof r->real, "%s", real);
    snprintf(r->outcome, sizeof r->outcome, "whole");
    r->owner = shard;
    r->us = us;
}

/* "link job" or "plain build": the job a refused link belongs to */
static const char *job_name(const struct wrap *w)
{
    return w->cfg.phase == PHASE_PLAIN ? "plain build" : "link job";
}

static int fail(const struct wrap *w, int code, const char *fmt, ...)
{
    struct strbuf m = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_addf(&m, "shardcc: %s seat: ", seat_name(w->seat));
    sb_vaddf(&m, fmt, ap);
    va_end(ap);
    sb_addc(&m, '\n');
    fputs(sb_str(&m), stderr);
    sb_release(&m);
    return code;
}

/* The seat a program name selects; *torch is set for nvcc-torch, the PYTORCH_NVCC seat. */
static int seat_from_name(const char *name, enum seat *seat, int *torch)
{
    if (strncmp(name, "shardcc-", 8) == 0)
        name += 8;
    *torch = strcmp(name, "nvcc-torch") == 0;
    if (strcmp(name, "nvcc") == 0 || *torch)
        *seat = SEAT_NVCC;
    else if (!strcmp(name, "c++") || !strcmp(name, "g++") || !strcmp(name, "clang++") ||
             !strcmp(name, "cxx"))
        *seat = SEAT_CXX;
    else if (!strcmp(name, "cc") || !strcmp(name, "gcc") || !strcmp(name, "clang"))
        *seat = SEAT_CC;
    else if (ldseat_name(name))
        *seat = SEAT_LD;
    else
        return -1;
    return 0;
}

/* JSON text of s (NULL: null) appended to out. */
static void json_str(struct strbuf *out, const char *s)
{
    if (!s) {
        sb_adds(out, "null");
        return;
    }
    sb_addc(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_addf(out, "\\%c", *p);
        else if (*p < 0x20)
            sb_addf(out, "\\u%04x", *p);
        else
            sb_addc(out, (char)*p);
    }
    sb_addc(out, '"');
}

/* A JSON array of v's strings appended to out. */
static void json_strv(struct strbuf *out, const struct strvec *v)
{
    sb_addc(out, '[');
    for (size_t k = 0; k < v->n; k++) {
        if (k)
            sb_addc(out, ',');
        json_str(out, v->v[k]);
    }
    sb_addc(out, ']');
}

/* shardcc-wrap --classify: what the seat would do with a call, as JSON on one line (the
 * fields of shardcc classify that the seat itself knows), for the systems where the CLI
 * is not built (Windows: e2e.windows_classify runs it under Wine). Reads no SHARDCC_*
 * variable: the shard, the root and the seat come from the options. */
static int classify_mode(int argc, char **argv)
{
    struct wrap_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.phase = PHASE_LINK;
    const char *root = ".", *seat_s = NULL;
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strncmp(argv[i], "--seat=", 7))
            seat_s = argv[i] + 7;
        else if (!strncmp(argv[i], "--root=", 7))
            root = argv[i] + 7;
        else if (!strncmp(argv[i], "--shard=", 8) &&
                 parse_shard_spec(argv[i] + 8, &cfg.shard, &cfg.count) == 0)
            cfg.phase = PHASE_SHARD;
        else {
            fprintf(stderr, "shardcc-wrap --classify: unknown or bad option \"%s\"\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "shardcc-wrap --classify: no compiler command after --\n");
        return EXIT_USAGE;
    }
    const char *compiler = argv[i + 1];
    enum seat seat = seat_of_compiler(compiler);
    int torch;
    if (seat_s && (seat_from_name(seat_s, &seat, &torch) != 0 || seat == SEAT_LD)) {
        fprintf(stderr, "shardcc-wrap --classify: --seat=\"%s\" is not nvcc, c++ or cc\n", seat_s);
        return EXIT_USAGE;
    }
    if (seat != SEAT_NVCC)
        cfg.msvc = msvc_dialect(compiler);
    cfg.coff_machine = msvc_machine(compiler);
    struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT, out = STRBUF_INIT;
    if (plat_realpath(root, &sb) != 0) {
        fprintf(stderr, "shardcc-wrap --classify: --root=\"%s\": %s\n", root, strerror(errno));
        return EXIT_USAGE;
    }
    cfg.root = sb_detach(&sb);
    plat_getcwd(&sb);
    cfg.cwd = sb_detach(&sb);
    struct call call;
    int rc = classify_call(seat, &cfg, argc - i - 2, argv + i + 2, &call, &err);
    if (rc) {
        fprintf(stderr, "shardcc-wrap --classify: %s\n", sb_str(&err));
        return rc;
    }
    sb_adds(&out, "{\"seat\":");
    json_str(&out, seat_name(seat));
    sb_adds(&out, ",\"kind\":");
    json_str(&out, kind_name(call.kind));
    sb_adds(&out, ",\"action\":");
    json_str(&out, action_name(call.action));
    sb_adds(&out, ",\"reason\":");
    json_str(&out, call.reason);
    sb_adds(&out, ",\"source\":");
    json_str(&out, call.source);
    sb_adds(&out, ",\"key\":");
    json_str(&out, call.key);
    sb_adds(&out, ",\"output\":");
    json_str(&out, call.output);
    sb_adds(&out, ",\"depfile\":");
    json_str(&out, call.depfile);
    sb_adds(&out, ",\"depfile_targets\":");
    json_strv(&out, &call.dep_targets);
    if (call.owner)
        sb_addf(&out, ",\"owner\":%d", call.owner);
    else
        sb_adds(&out, ",\"owner\":null");
    sb_adds(&out, ",\"stub\":");
    json_str(&out, call.coff_machine ? stub_coff_name(call.coff_machine) : NULL);
    sb_adds(&out, ",\"argv\":");
    json_strv(&out, &call.argv);
    sb_adds(&out, "}\n");
    fputs(sb_str(&out), stdout);
    call_release(&call);
    sb_release(&out);
    sb_release(&err);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
}

/* The name that picks the seat: argv[0]'s last component; on Windows also after a '\\',
 * without ".exe", in lower case (CreateProcess hands over the path as the caller spelled
 * it: Z:\\tools\\SHARDCC-NVCC.EXE). */
static const char *program_name(const char *argv0, char *buf, size_t cap)
{
#ifdef _WIN32
    const char *name = path_program_name(argv0, buf, cap);
    return name ? name : path_basename(argv0); /* too long for any seat's name */
#else
    (void)buf;
    (void)cap;
    return path_basename(argv0);
#endif
}

static const char *real_var(enum seat s)
{
    return s == SEAT_NVCC  ? "SHARDCC_REAL_NVCC"
           : s == SEAT_CXX ? "SHARDCC_REAL_CXX"
                           : "SHARDCC_REAL_CC";
}

/* The environment for a child: our variables' effects applied (NVCC_*_FLAGS removed
 * when they were folded into argv), the nesting depth raised, and the variable logvar
 * (CCACHE_LOGFILE or CCACHE_STATSLOG) pointed at logfile when one is given. */
enum { CHILD_DROP_NVCC_FLAGS = 1, CHILD_CCACHE = 2, CHILD_PIPELINE = 4 };

static char **child_env(const struct wrap *w, int flags, const char *logvar, const char *logfile)
{
    struct strvec env = STRVEC_INIT;
    const char *job_cache = getenv("SHARDCC_CCACHE_DIR");
    if (job_cache && !*job_cache)
        job_cache = NULL;
    for (char **e = plat_environ(); *e; e++) {
        if (strncmp(*e, "SHARDCC_DEPTH=", 14) == 0)
            continue;
        /* shardcc env disables the build's own ccache launchers; the seat's ccache runs,
         * in the job's cache whatever directory a launcher named */
        if ((flags & CHILD_CCACHE) && (strncmp(*e, "CCACHE_DISABLE=", 15) == 0 ||
                                       (job_cache && strncmp(*e, "CCACHE_DIR=", 11) == 0)))
            continue;
        if (logfile && strncmp(*e, logvar, strlen(logvar)) == 0 && (*e)[strlen(logvar)] == '=')
            continue;
        if ((flags & CHILD_DROP_NVCC_FLAGS) && (strncmp(*e, "NVCC_PREPEND_FLAGS=", 19) == 0 ||
                                                strncmp(*e, "NVCC_APPEND_FLAGS=", 18) == 0))
            continue;
        if (strncmp(*e, PIPELINE_ENV "=", strlen(PIPELINE_ENV) + 1) == 0 ||
            strncmp(*e, PIPELINE_NOTE_ENV "=", strlen(PIPELINE_NOTE_ENV) + 1) == 0 ||
            ((flags & CHILD_PIPELINE) && strncmp(*e, "CCACHE_COMPILERTYPE=", 20) == 0))
            continue;
        sv_push(&env, *e);
    }
    /* ccache types a compiler by the name it resolves symbolic links to: Debian's clang-cl
     * (a link to clang) would be clang, whose options /c and /Fo are not, and every call
     * would run uncached ("called for link"). The seat names the type it read from the
     * real compiler's own name, unless the build set one. */
    if ((flags & CHILD_CCACHE) && w->cfg.msvc && !getenv("CCACHE_COMPILERTYPE"))
        sv_push(&env, w->cfg.msvc == MSVC_CL ? "CCACHE_COMPILERTYPE=msvc"
                                             : "CCACHE_COMPILERTYPE=clang-cl");
    /* ccache runs this program as the compiler (pipeline.h), and must know it for nvcc */
    if (flags & CHILD_PIPELINE) {
        sv_push(&env, "CCACHE_COMPILERTYPE=nvcc");
        struct strbuf p = STRBUF_INIT;
        sb_addf(&p, "%s=%s", PIPELINE_ENV, w->real);
        sv_push_owned(&env, sb_detach(&p));
        if (pipeline_note) {
            sb_addf(&p, "%s=%s", PIPELINE_NOTE_ENV, pipeline_note);
            sv_push_owned(&env, sb_detach(&p));
        }
    }
    struct strbuf d = STRBUF_INIT;
    sb_addf(&d, "SHARDCC_DEPTH=%d", w->depth + 1);
    sv_push_owned(&env, sb_detach(&d));
    if ((flags & CHILD_CCACHE) && job_cache) {
        sb_addf(&d, "CCACHE_DIR=%s", job_cache);
        sv_push_owned(&env, sb_detach(&d));
    }
    if (logfile) {
        sb_addf(&d, "%s=%s", logvar, logfile);
        sv_push_owned(&env, sb_detach(&d));
    }
    return sv_argv(&env); /* lives until exit */
}

/* Checks that path is runnable and is not this wrapper. */
static int check_tool(const struct wrap *w, const char *var, const char *path)
{
    if (!plat_is_executable(path))
        return fail(w, EXIT_USAGE, "%s=\"%s\" is not an executable file", var, path);
    if (plat_is_self_exe(path))
        return fail(w, EXIT_USAGE,
                    "%s=\"%s\" is this wrapper itself; point it at the real tool "
                    "(eval \"$(shardcc env)\" sets it)",
                    var, path);
    return EXIT_OK;
}

/* The real tool (the PYTORCH_NVCC seat runs the nvcc torch would run, where shardcc env
 * names one) and the nesting depth the seat sets for the compilers it starts (0..99). */
static int config_tool(struct wrap *w)
{
    const char *depth = getenv("SHARDCC_DEPTH");
    w->depth = 0;
    if (depth) {
        size_t n = strspn(depth, "0123456789");
        if (n == 0 || n > 2 || depth[n])
            return fail(w, EXIT_USAGE,
                        "SHARDCC_DEPTH=\"%s\" is not a nesting depth (a number the seat sets for "
                        "the compilers it starts); unset it",
                        depth);
        w->depth = atoi(depth);
    }
    const char *t = w->realvar ? getenv(w->realvar) : NULL;
    if (!t || !*t)
        w->realvar = real_var(w->seat);
    w->real = getenv(w->realvar);
    if (!w->real || !*w->real)
        return fail(w, EXIT_USAGE, "%s is not set (run: eval \"$(shardcc env)\")", w->realvar);
    if (w->seat == SEAT_CXX || w->seat == SEAT_CC)
        w->cfg.msvc = msvc_dialect(w->real);
    w->cfg.coff_machine = msvc_machine(w->real);
    return EXIT_OK;
}

/* The project root (SHARDCC_ROOT, real) and the working directory. */
static int config_places(struct wrap *w)
{
    struct wrap_config *c = &w->cfg;
    const char *root = getenv("SHARDCC_ROOT");
    if (!root || !*root)
        return fail(w, EXIT_USAGE, "SHARDCC_ROOT is not set (run: eval \"$(shardcc env)\")");
    struct strbuf sb = STRBUF_INIT;
    if (plat_realpath(root, &sb) != 0)
        return fail(w, EXIT_USAGE, "SHARDCC_ROOT=\"%s\": %s", root, strerror(errno));
    if (!plat_is_dir(sb_str(&sb)))
        return fail(w, EXIT_USAGE, "SHARDCC_ROOT=\"%s\" is not a directory (the project root)",
                    root);
    c->root = sb_detach(&sb);
    if (plat_getcwd(&sb) != 0)
        return fail(w, EXIT_IO, "cannot read the working directory: %s", strerror(errno));
    c->cwd = sb_detach(&sb);
    return EXIT_OK;
}

/* The phase (SHARDCC_PHASE; a SHARDCC_SHARD alone means shard) and the shard. */
static int config_phase(struct wrap *w)
{
    struct wrap_config *c = &w->cfg;
    const char *phase = getenv("SHARDCC_PHASE");
    const char *shard = getenv("SHARDCC_SHARD");
    if (!phase || !*phase)
        phase = shard && *shard ? "shard" : "off";
    if (strcmp(phase, "shard") == 0) {
        c->phase = PHASE_SHARD;
        if (!shard || parse_shard_spec(shard, &c->shard, &c->count) != 0)
            return fail(w, EXIT_USAGE,
                        "SHARDCC_SHARD=\"%s\" is not a shard I/N with 1 <= I <= N (phase shard)",
                        shard ? shard : "");
    } else if (strcmp(phase, "link") == 0) {
        c->phase = PHASE_LINK;
    } else if (strcmp(phase, "plain") == 0) {
        c->phase = PHASE_PLAIN;
    } else if (strcmp(phase, "off") == 0) {
        c->phase = PHASE_OFF;
    } else {
        return fail(w, EXIT_USAGE, "SHARDCC_PHASE=\"%s\" is not one of shard, link, plain, off",
                    phase);
    }
    return EXIT_OK;
}

/* A shard's plan (SHARDCC_PLAN, the seat's text shardcc shard wrote): mapped, and checked
 * against its first line's check and the shard count. */
static int config_plan(struct wrap *w)
{
    struct wrap_config *c = &w->cfg;
    const char *plan = getenv("SHARDCC_PLAN");
    if (c->phase != PHASE_SHARD || !plan || !*plan)
        return EXIT_OK;
    const char *text;
    size_t len;
    int e = plat_map_file(plan, PLAN_SEAT_MAX, &text, &len, &w->plan);
    if (e)
        return fail(w, EXIT_USAGE, "SHARDCC_PLAN=\"%s\": %s%s", plan, plat_strerror(e),
                    e == EFBIG ? " (a plan's seat text is at most 64 MiB)" : "");
    int n = plan_count(text);
    if (n != c->count)
        return fail(w, EXIT_USAGE,
                    n ? "SHARDCC_PLAN=\"%s\" is a plan for %d shards, this is shard %d/%d"
                      : "SHARDCC_PLAN=\"%s\" is not a plan (shardcc shard --plan writes it)",
                    plan, n, c->shard, c->count);
    size_t bad = plan_bad_line(text, len, n);
    if (bad == 1)
        return fail(w, EXIT_USAGE,
                    "SHARDCC_PLAN=\"%s\": the text does not match the check on its first "
                    "line (edited after shardcc wrote it? shardcc shard --plan writes it; "
                    "a plan written by hand has no check: \"shardcc-plan<TAB>%d\")",
                    plan, n);
    if (bad)
        return fail(w, EXIT_USAGE,
                    "SHARDCC_PLAN=\"%s\": line %zu is not KEY<TAB>SHARD with 1 <= SHARD <= "
                    "%d (a plan edited by hand? shardcc shard --plan writes it)",
                    plan, bad, n);
    c->plan = text;
    c->plan_len = len;
    return EXIT_OK;
}

/* The seat's configuration from the job's environment (shardcc env): the real tool, the
 * root, the phase and shard, the plan, nvcc's extra flags, the shadow toolkit, the pins, the
 * journal, the modes (seat_modes). EXIT_OK, or the failure reported. */
static int load_config(struct wrap *w)
{
    struct wrap_config *c = &w->cfg;
    int rc;
    if ((rc = config_tool(w)) != EXIT_OK || w->depth > 0) /* nested: only the real compiler */
        return rc;
    if ((rc = config_places(w)) != EXIT_OK || (rc = config_phase(w)) != EXIT_OK ||
        (rc = config_plan(w)) != EXIT_OK)
        return rc;
    if (w->seat == SEAT_NVCC) {
        c->prepend = getenv("NVCC_PREPEND_FLAGS");
        c->append = getenv("NVCC_APPEND_FLAGS");
    }
    const char *shadow = getenv("SHARDCC_CUDA_SHADOW"), *real = getenv("SHARDCC_CUDA_REAL");
    if (shadow && *shadow && (!real || !*real))
        return fail(w, EXIT_USAGE, "SHARDCC_CUDA_SHADOW is set but SHARDCC_CUDA_REAL is not");
    c->shadow = shadow && *shadow ? shadow : NULL;
    c->shadow_real = c->shadow ? real : NULL;
    const char *pins = getenv("SHARDCC_PIN");
    c->pins = pins && *pins ? pins : NULL;
    const char *j = getenv("SHARDCC_JOURNAL");
    w->journal = j && *j ? j : NULL;
    struct strbuf why = STRBUF_INIT; /* the seat exits soon: never released */
    if (seat_modes(w->seat, getenv("SHARDCC_HOST_SEAT"), getenv("SHARDCC_REPRODUCIBLE"), c, &why))
        return fail(w, EXIT_USAGE, "%s", sb_str(&why));
    return EXIT_OK;
}

static int run_child(const struct wrap *w, const char *tool, char **argv, int flags,
                     const char *logvar, const char *logfile)
{
    int st = plat_spawn_wait(tool, argv, child_env(w, flags, logvar, logfile));
    if (st < 0)
        return fail(w, EXIT_USAGE, "cannot run \"%s\": %s", tool, strerror(errno));
    return st;
}

/* argv onto v, the shadow CUDA_HOME's paths written as the real toolkit's */
static void push_unshadowed(const struct wrap *w, int argc, char **argv, struct strvec *v)
{
    for (int i = 0; i < argc; i++) {
        char *r = shadow_rewrite(&w->cfg, argv[i]);
        if (r)
            sv_push_owned(v, r);
        else
            sv_push(v, argv[i]);
    }
}

static int run_direct(const struct wrap *w, int argc, char **argv)
{
    struct strvec v = STRVEC_INIT;
    sv_push(&v, w->real);
    push_unshadowed(w, argc, argv, &v);
    return run_child(w, w->real, sv_argv(&v), 0, NULL, NULL);
}

/* A call run as the build gave it; an nvcc link (an executable, a shared library, -dlink)
 * under --reproducible as nvcc's own steps with the seat's temporary names
 * (pipeline_run_link), so that what nvcc links is the same bytes in every phase and run
 * (its device link's stub names a temporary, which -g puts in the debug information). */
static int run_as_given(const struct wrap *w, int argc, char **argv)
{
    if (!w->cfg.reproducible || w->seat != SEAT_NVCC || !pipeline_links(argc, argv))
        return run_direct(w, argc, argv);
    struct strvec v = STRVEC_INIT;
    push_unshadowed(w, argc, argv, &v);
    /* the steps are the children nvcc's would be (child_env) */
    unsetenv("SHARDCC_DEPTH");
    unsetenv(PIPELINE_ENV);
    unsetenv(PIPELINE_NOTE_ENV);
    struct strbuf why = STRBUF_INIT;
    int st = pipeline_run_link(w->real, (int)v.n, sv_argv(&v), &why);
    if (st == PIPELINE_FALLBACK)
        fprintf(stderr,
                "shardcc: nvcc seat: note: %s: the link runs as nvcc whole, with nvcc's own "
                "temporary names\n",
                sb_str(&why));
    sb_release(&why);
    sv_clear(&v);
    return st >= 0 ? st : run_direct(w, argc, argv);
}

/* Whether a TU is compiled through the pipeline (pipeline.h): --reproducible, and an nvcc
 * compile whose temporaries nvcc would name. */
static int uses_pipeline(const struct wrap *w, const struct call *call)
{
    return w->cfg.reproducible && w->seat == SEAT_NVCC && call->kind == KIND_TU &&
           pipeline_compiles((int)call->argv.n, call->argv.v);
}

static void enter_pipeline(const struct wrap *w);

/* A plain build through the seats (PHASE_PLAIN): a TU runs the real compiler with the
 * arguments the seat would give ccache (reproducible objects included); any other call
 * (a link, a preprocessor run) as the build gave it. */
static int run_plain(const struct wrap *w, const struct call *call, int argc, char **argv)
{
    if (call->kind != KIND_TU)
        return run_as_given(w, argc, argv);
    struct strvec v = STRVEC_INIT;
    sv_push(&v, w->real);
    sv_pushv(&v, call->argv.v, call->argv.n);
    if (uses_pipeline(w, call)) { /* as ccache would run it in the other phases */
        struct strbuf why = STRBUF_INIT;
        int n = (int)call->argv.n;
        char **a = call->argv.v;
        enter_pipeline(w);
        int st = pipeline_run(w->real, n, a, &why);
        if (st >= 0)
            return st;
        if (st == PIPELINE_FALLBACK) {
            pipeline_fallback(sb_str(&why), &v);
            sb_add_printable(&fallback_why, sb_str(&why));
        }
        sb_release(&why);
    }
    return run_child(w, w->real, sv_argv(&v), w->seat == SEAT_NVCC ? CHILD_DROP_NVCC_FLAGS : 0,
                     NULL, NULL);
}

/* Reads what ccache logged for this call into out (from the in-memory file mfd, or else
 * the file logfile, which is then removed) and hands the text on to the caller's own log
 * (the same variable) if one was set. */
static void collect_ccache_log(const char *logvar, int mfd, const char *logfile,
                               struct ccache_outcome *out)
{
    struct strbuf text = STRBUF_INIT;
    int e = mfd >= 0 ? plat_read_fd(mfd, &text) : plat_read_file(logfile, &text);
    if (e == 0) {
        ccache_log_parse(text.buf ? text.buf : "", text.len, out);
        const char *user = getenv(logvar);
        if (user && *user && text.len)
            plat_append_record(user, text.buf, text.len);
    } else {
        memset(out, 0, sizeof *out);
        strcpy(out->outcome, "unknown");
    }
    if (mfd >= 0)
        plat_close(mfd);
    else
        plat_unlink(logfile);
    sb_release(&text);
}

/* The value of nvcc's -ccbin / --compiler-bindir in the canonical argv (the last one
 * wins, as in nvcc), else NVCC_CCBIN; NULL when nvcc picks gcc and g++ from PATH. */
static const char *ccbin_of(const struct call *call)
{
    const char *v = NULL;
    for (size_t i = 0; i < call->argv.n; i++) {
        const char *a = call->argv.v[i];
        const char *names[] = {"-ccbin", "--compiler-bindir"};
        for (size_t k = 0; k < 2; k++) {
            size_t n = strlen(names[k]);
            if (strncmp(a, names[k], n) != 0)
                continue;
            if (a[n] == '=')
                v = a + n + 1;
            else if (!a[n] && i + 1 < call->argv.n)
                v = call->argv.v[i + 1];
        }
    }
    if (!v) {
        const char *e = getenv("NVCC_CCBIN");
        v = e && *e ? e : NULL;
    }
    return v;
}

/* Whether the host compiler at path (resolved) is one the toolchain fingerprint covers
 * (SHARDCC_HOST_COVERED, real paths separated by ':', ';' on Windows, from shardcc env) or
 * a seat. */
static int host_covered(const char *resolved)
{
    if (strncmp(path_basename(resolved), "shardcc", 7) == 0)
        return 1;
    const char *list = getenv("SHARDCC_HOST_COVERED");
    size_t n = strlen(resolved);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, PLAT_PATHSEP);
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, resolved, n) == 0)
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* With compiler_check=string:<fingerprint>, ccache hashes nothing of the host compiler
 * that -ccbin names: the fingerprint stands for it. When -ccbin names a compiler the
 * fingerprint does not cover (another gcc than CXX/CC), the seat has ccache hash that
 * compiler's driver too (CCACHE_EXTRAFILES), so that a cache made with one host compiler
 * never answers for another. A directory stands for its gcc and g++, as in nvcc. */
static void cover_ccbin(const struct call *call)
{
    const char *ccbin = ccbin_of(call);
    if (!ccbin)
        return;
    struct strbuf extra = STRBUF_INIT, found = STRBUF_INIT, real = STRBUF_INIT;
    const char *old = getenv("CCACHE_EXTRAFILES");
    if (old && *old)
        sb_adds(&extra, old);
    size_t had = extra.len;
    const char *dir_progs[] = {"gcc", "g++"};
    int is_dir = plat_is_dir(ccbin);
    for (size_t i = 0; i < (is_dir ? 2u : 1u); i++) {
        sb_reset(&found);
        sb_reset(&real);
        if (is_dir)
            sb_addf(&found, "%s/%s", ccbin, dir_progs[i]);
        else if (plat_find_in_path(ccbin, &found) != 0)
            continue; /* nvcc will say what is wrong with it */
        if (plat_realpath(sb_str(&found), &real) != 0 || host_covered(sb_str(&real)))
            continue;
        if (extra.len)
            sb_addc(&extra, ':');
        sb_adds(&extra, sb_str(&real));
    }
    if (extra.len > had)
        setenv("CCACHE_EXTRAFILES", sb_str(&extra), 1);
    sb_release(&extra);
    sb_release(&found);
    sb_release(&real);
}

/* compiler_check=string:<fingerprint> digests the toolkit's files, not the path nvcc is
 * started by; nvcc derives its include paths from that path, and -lineinfo and -g objects
 * (and __FILE__ in the toolkit's headers) hold them. So the nvcc seat adds the real nvcc's
 * path, as spelled, to the string: two spellings of one toolkit get different keys, never
 * each other's objects. */
static void key_nvcc_spelling(const struct wrap *w)
{
    static int done; /* once: a split's store and then ccache both read it */
    const char *check = getenv("CCACHE_COMPILERCHECK");
    if (done || w->seat != SEAT_NVCC || !check || strncmp(check, "string:", 7) != 0)
        return;
    done = 1;
    struct strbuf sb = STRBUF_INIT;
    /* the pipeline's objects are not plain nvcc's bytes (pipeline.h): their own keys */
    sb_addf(&sb, "%s nvcc=%s%s", check, w->real, w->cfg.reproducible ? " pipeline=1" : "");
    setenv("CCACHE_COMPILERCHECK", sb_str(&sb), 1);
    sb_release(&sb);
}

/* A file a child writes for us: a file in memory named NAME (its fd returned, path
 * /dev/fd/N) where there is one, else TMPDIR/STEM-PID.SUFFIX (/tmp when TMPDIR is unset,
 * empty or not a directory), removed first, -1 returned. */
static int side_file(const char *name, const char *stem, const char *suffix, struct strbuf *path)
{
    int fd = plat_memfd(name);
    if (fd >= 0) {
        sb_addf(path, "/dev/fd/%d", fd);
        return fd;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || !plat_is_dir(tmp))
        tmp = "/tmp";
    sb_addf(path, "%s/%s-%ld.%s", tmp, stem, plat_pid(), suffix);
    plat_unlink(sb_str(path));
    return -1;
}

/* Runs the call through ccache. With a journal, ccache logs this call to a log of its own
 * (a file in memory where there is one, else a file in TMPDIR) so that the journal can
 * record the outcome and the result key. */
static int run_cached(const struct wrap *w, struct call *call, struct ccache_outcome *outcome)
{
    struct strbuf ccache = STRBUF_INIT;
    const char *cc = getenv("SHARDCC_CCACHE");
    if (cc && *cc) {
        sb_adds(&ccache, cc);
    } else if (plat_find_in_path("ccache", &ccache) != 0) {
        return fail(w, EXIT_USAGE, "ccache was not found on PATH and SHARDCC_CCACHE is not set");
    }
    int rc = check_tool(w, "SHARDCC_CCACHE", sb_str(&ccache));
    if (rc)
        return rc;
    if (w->seat == SEAT_NVCC) {
        cover_ccbin(call);
        key_nvcc_spelling(w);
    }
    int ccache_flags = CHILD_CCACHE | (w->seat == SEAT_NVCC ? CHILD_DROP_NVCC_FLAGS : 0);
    struct strvec v = STRVEC_INIT;
    sv_push(&v, sb_str(&ccache));
    struct strbuf self = STRBUF_INIT;
    if (uses_pipeline(w, call)) {
        /* ccache runs this program as the compiler, which runs nvcc's steps (pipeline.h) */
        if (plat_self_exe(&self) != 0)
            return fail(w, EXIT_USAGE, "cannot find this program's own file: %s",
                        plat_strerror(errno));
        sv_push(&v, sb_str(&self));
        ccache_flags |= CHILD_PIPELINE;
    } else {
        sv_push(&v, w->real);
    }
    sv_pushv(&v, call->argv.v, call->argv.n);
    if (!w->journal)
        return run_child(w, sb_str(&ccache), sv_argv(&v), ccache_flags, NULL, NULL);
    struct strbuf log = STRBUF_INIT;
    int mfd = side_file("shardcc-ccache-log", "shardcc-ccache", "log", &log);
    /* A shard's manifest names each TU's result key (merge names a nondeterministic TU by
     * it), and the link job checks that the result it hit is the one the TU's owner
     * recorded (trust.h): ccache's full log has it. Elsewhere only the outcome counts, and
     * the few lines of the stats log cost a cache hit less. */
    const char *logvar = w->cfg.phase == PHASE_SHARD || w->cfg.phase == PHASE_LINK
                             ? "CCACHE_LOGFILE"
                             : "CCACHE_STATSLOG";
    /* the pipeline, as ccache's child, says in a file of ours when it ran nvcc whole */
    struct strbuf note = STRBUF_INIT;
    int nfd = -1;
    if (ccache_flags & CHILD_PIPELINE) {
        nfd = side_file("shardcc-pipeline-note", "shardcc-pipeline", "note", &note);
        pipeline_note = sb_str(&note);
    }
    int st = run_child(w, sb_str(&ccache), sv_argv(&v), ccache_flags, logvar, sb_str(&log));
    collect_ccache_log(logvar, mfd, sb_str(&log), outcome);
    if (pipeline_note) {
        struct strbuf text = STRBUF_INIT;
        if ((nfd >= 0 ? plat_read_fd(nfd, &text) : plat_read_file(sb_str(&note), &text)) == 0) {
            for (const char *l = sb_str(&text); *l;) {
                const char *nl = strchr(l, '\n');
                size_t len = nl ? (size_t)(nl - l) : strlen(l);
                if (strncmp(l, "fallback\t", 9) == 0 && !fallback_why.len)
                    sb_add(&fallback_why, l + 9, len - 9);
                else if (strncmp(l, "item\t", 5) == 0 && w->cfg.phase == PHASE_SHARD)
                    note_item(l, len, w->cfg.shard);
                l += len + (nl != NULL);
            }
        }
        if (nfd < 0)
            plat_unlink(sb_str(&note));
        sb_release(&text);
        pipeline_note = NULL;
    }
    sb_release(&note);
    sb_release(&log);
    return st;
}

/* A device-code-only output (devcode.h) through the seat's store in the job's ccache
 * directory: the dependency run (nvcc -M) names the files the key covers; a stored entry
 * is copied to the output (and the depfile written from the dependency run), else nvcc
 * makes it and the entry is stored. outcome: "hit", "miss", or why it was not cached
 * ("dependency_error": nvcc -M failed, so the real call runs to show nvcc's message). */
/* A device-code output's key in the store: from the manifest the store keeps for the call
 * (every file as it recorded them: no nvcc -M needed), else from nvcc -M's dependencies, the
 * manifest then written for the next job (the shards write the same bytes). key and deps
 * filled, *entry its path; 0, or nonzero when there is no key (an errno when a file could
 * not be read, named in a warning). */
static int devcode_find_key(const struct wrap *w, const struct call *call, const char *cache,
                            const struct strvec *key_args, const struct strvec *dep_args,
                            const char *depout, char key[65], struct strvec *deps,
                            struct strbuf *entry)
{
    struct strbuf text = STRBUF_INIT, err = STRBUF_INIT, mentry = STRBUF_INIT;
    const char *fp = getenv("CCACHE_COMPILERCHECK"), *extra = getenv("CCACHE_EXTRAFILES");
    char mkey[65];
    devcode_manifest_key(&w->cfg, fp, extra, key_args, mkey);
    devcode_entry_path(cache, mkey, &mentry);
    devcode_store_seed(mkey, sb_str(&mentry));
    int e = 0;
    int from_manifest = plat_read_file_max(sb_str(&mentry), 1u << 24, &text) == 0 &&
                        devcode_manifest_match(&w->cfg, sb_str(&text), key, deps) == 0;
    if (from_manifest) {
        devcode_entry_path(cache, key, entry);
        devcode_store_seed(key, sb_str(entry));
        from_manifest = plat_file_exists(sb_str(entry));
        if (!from_manifest)
            sv_clear(deps);
    }
    if (!from_manifest) {
        sb_reset(&text);
        int st = run_child(w, w->real, dep_args->v, CHILD_DROP_NVCC_FLAGS, NULL, NULL);
        e = st ? -1 : plat_read_file_max(depout, DEVCODE_FILE_MAX, &text);
        plat_unlink(depout);
        if (!e && devcode_parse_deps(sb_str(&text), deps) != 0)
            e = -1;
        if (!e)
            e = devcode_key(&w->cfg, fp, extra, key_args, deps, key, &err);
        sb_reset(&text);
        if (!e && devcode_manifest_text(&w->cfg, key, deps, &text) == 0)
            devcode_store_put(sb_str(&mentry), text.buf, text.len);
    }
    if (e > 0 && err.len)
        fprintf(stderr,
                "shardcc: nvcc seat: warning: %s: cannot read %s for the key of \"%s\": %s\n",
                call->key, sb_str(&err), call->output, plat_strerror(e));
    sb_release(&text);
    sb_release(&err);
    sb_release(&mentry);
    return e;
}

/* A hit: the stored output (text) written where the call writes it, and its depfile. */
static int devcode_write_hit(const struct wrap *w, const struct call *call,
                             const struct strvec *deps, struct strbuf *text)
{
    int e = plat_write_atomic(call->output, text->buf ? text->buf : "", text->len);
    if (e)
        return fail(w, EXIT_IO, "cannot write \"%s\": %s", call->output, plat_strerror(e));
    if (!call->depfile)
        return EXIT_OK;
    sb_reset(text);
    devcode_depfile(&call->dep_targets, deps, text);
    e = plat_write_atomic(call->depfile, text->buf, text->len);
    if (e)
        return fail(w, EXIT_IO, "cannot write \"%s\": %s", call->depfile, plat_strerror(e));
    return EXIT_OK;
}

/* A miss: the call run, its output stored under entry (one too large is made, not
 * stored: the link job makes it again). */
static int devcode_run_store(const struct wrap *w, const struct call *call, char **argv,
                             const char *entry, struct ccache_outcome *outcome)
{
    strcpy(outcome->outcome, "miss");
    int st = run_child(w, w->real, argv, CHILD_DROP_NVCC_FLAGS, NULL, NULL);
    if (st)
        return st;
    struct strbuf text = STRBUF_INIT;
    int e = plat_read_file_max(call->output, DEVCODE_FILE_MAX, &text);
    if (e == EFBIG) {
        strcpy(outcome->outcome, "output_too_large");
        outcome->result_key[0] = '\0';
        e = 0;
    } else if (!e) {
        e = devcode_store_put(entry, text.buf, text.len);
    }
    if (e)
        st = fail(w, EXIT_IO, "cannot store \"%s\" as \"%s\": %s", call->output, entry,
                  plat_strerror(e));
    sb_release(&text);
    return st;
}

static int run_devcode(const struct wrap *w, struct call *call, struct ccache_outcome *outcome)
{
    const char *cache = devcode_store_dir();
    if (!cache)
        return fail(w, EXIT_USAGE,
                    "neither SHARDCC_CCACHE_DIR nor CCACHE_DIR is set: the store of "
                    "device-code outputs has no directory (run: eval \"$(shardcc env)\")");
    struct strvec key_args = STRVEC_INIT, dep_args = STRVEC_INIT, deps = STRVEC_INIT,
                  v = STRVEC_INIT;
    struct strbuf text = STRBUF_INIT, entry = STRBUF_INIT, depout = STRBUF_INIT;
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || !plat_is_dir(tmp))
        tmp = "/tmp";
    sb_addf(&depout, "%s/shardcc-devcode-%ld.d", tmp, plat_pid());
    sv_push(&dep_args, w->real);
    key_nvcc_spelling(w);
    devcode_args(&w->cfg, &call->argv, &key_args, &dep_args, sb_str(&depout));
    sv_push(&v, w->real);
    sv_pushv(&v, call->argv.v, call->argv.n);
    char key[65] = "";
    int st;
    if (devcode_find_key(w, call, cache, &key_args, &dep_args, sb_str(&depout), key, &deps,
                         &entry) != 0) {
        /* no key: the call as it is, uncached */
        strcpy(outcome->outcome, "dependency_error");
        st = run_child(w, w->real, sv_argv(&v), CHILD_DROP_NVCC_FLAGS, NULL, NULL);
    } else {
        memcpy(outcome->result_key, key, sizeof key);
        sb_reset(&entry);
        devcode_entry_path(cache, key, &entry);
        devcode_store_seed(key, sb_str(&entry)); /* a warm start's entry, if the store lacks it */
        if (plat_read_file_max(sb_str(&entry), DEVCODE_FILE_MAX, &text) == 0) {
            strcpy(outcome->outcome, "hit");
            st = devcode_write_hit(w, call, &deps, &text);
        } else {
            st = devcode_run_store(w, call, sv_argv(&v), sb_str(&entry), outcome);
        }
    }
    sv_clear(&v);
    sv_clear(&key_args);
    sv_clear(&dep_args);
    sv_clear(&deps);
    sb_release(&text);
    sb_release(&entry);
    sb_release(&depout);
    return st;
}

/* Before the seat runs nvcc's plan itself (not as ccache's child, whose environment
 * child_env makes): NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS are in the arguments already
 * (nvcc -dryrun would add them twice), and the steps' compilers are one level deeper (a
 * -ccbin that is a host seat passes them on). */
static void enter_pipeline(const struct wrap *w)
{
    char depth[16];
    unsetenv("NVCC_PREPEND_FLAGS");
    unsetenv("NVCC_APPEND_FLAGS");
    snprintf(depth, sizeof depth, "%d", w->depth + 1);
    setenv("SHARDCC_DEPTH", depth, 1);
}

/* Whether the call's architecture options could name min real architectures or more: a
 * count that never falls short (each option and each comma of its value counts one; "all",
 * "all-major" and "native" count as many), so that nvcc -dryrun runs only where it may tell
 * a split. */
static int may_split(const struct call *call, int min)
{
    static const char *const arch_opts[] = {"--generate-code", "-gencode",   "--gpu-architecture",
                                            "-arch",           "--gpu-code", "-code"};
    int n = 0;
    for (size_t i = 0; i < call->argv.n; i++) {
        const char *value = NULL;
        const char *arg = call->argv.v[i];
        const struct opt *o = arg[0] == '-' ? opt_match(&nvcc_options, arg, &value) : NULL;
        if (!o)
            continue;
        if (opt_takes_next(o, value) && i + 1 < call->argv.n)
            value = call->argv.v[++i];
        const char *name = o->rewrite ? o->rewrite : o->name;
        int is_arch = 0;
        for (size_t k = 0; k < sizeof arch_opts / sizeof *arch_opts; k++)
            is_arch |= strcmp(name, arch_opts[k]) == 0 || strcmp(o->name, arch_opts[k]) == 0;
        if (!is_arch || !value)
            continue;
        if (strstr(value, "all") || strstr(value, "native"))
            return 1;
        n++;
        for (const char *c = value; *c; c++)
            n += *c == ',';
    }
    return n >= min;
}

/* Whether the plan names items of key ("KEY#compute_90"). */
static int plan_splits(const struct wrap *w, const char *key)
{
    if (!w->cfg.plan)
        return 0;
    size_t kl = strlen(key);
    for (const char *p = strstr(w->cfg.plan, key); p; p = strstr(p + 1, key))
        if (p > w->cfg.plan && p[-1] == '\n' && p[kl] == SPLIT_ITEM_SEP)
            return 1;
    return 0;
}

/* A TU whose device items shards own (split.h; pipeline.h): in a shard, one that the plan or
 * SHARDCC_SPLIT_ARCHS splits runs its items there and is written as a stub; in the link job,
 * one whose marker the shards left is assembled from the store. 1 when the call was handled
 * so (status set), 0 when it goes the usual way. */
static int split_call(struct wrap *w, struct call *call, struct pipeline_opts *po,
                      struct ccache_outcome *outcome, int *status)
{
    if ((w->cfg.phase != PHASE_SHARD && w->cfg.phase != PHASE_LINK) ||
        (call->action != ACTION_CACHE && call->action != ACTION_STUB) || !call->key ||
        !call->output || !uses_pipeline(w, call))
        return 0;
    const char *store = devcode_store_dir();
    int archs;
    if (!store)
        return 0;
    if (split_archs_from_env(&archs) != 0) {
        *status = fail(w, EXIT_USAGE, "%s=\"%s\" is not a number of architectures 0..1000",
                       SPLIT_ARCHS_ENV, getenv(SPLIT_ARCHS_ENV));
        return 1;
    }
    po->key = call->key;
    po->store = store;
    if (w->cfg.phase == PHASE_LINK) {
        struct strbuf marker = STRBUF_INIT;
        key_nvcc_spelling(w);
        int marked = pipeline_split_marked(store, call->key, call->output, &marker);
        sb_release(&marker);
        if (!marked)
            return 0;
        po->mode = PIPELINE_ASSEMBLE;
    } else {
        if (!plan_splits(w, call->key) && (archs == 0 || !may_split(call, archs)))
            return 0;
        key_nvcc_spelling(w);
        po->mode = PIPELINE_ITEMS;
        po->shard = w->cfg.shard;
        po->count = w->cfg.count;
        po->plan = w->cfg.plan;
        po->plan_len = w->cfg.plan_len;
        po->min_archs = archs;
    }
    enter_pipeline(w);
    struct strbuf why = STRBUF_INIT, err = STRBUF_INIT;
    int rc = pipeline_run_opts(w->real, (int)call->argv.n, call->argv.v, po, &why);
    sb_release(&why);
    if (rc < 0)
        return 0; /* not split, or not run: the usual way says why */
    call->action = ACTION_SPLIT;
    *status = rc;
    if (w->cfg.phase == PHASE_LINK) {
        size_t hits = 0;
        for (size_t i = 0; i < po->n; i++)
            hits += strcmp(po->items[i].outcome, "hit") == 0;
        snprintf(outcome->outcome, sizeof outcome->outcome, "%s",
                 rc                       ? "error"
                 : po->n && hits == po->n ? "assembled"
                                          : "miss");
        return 1;
    }
    size_t mine = 0, kept = 0;
    for (size_t i = 0; i < po->n; i++) {
        mine += po->items[i].owner == w->cfg.shard;
        kept += !strcmp(po->items[i].outcome, "stored") || !strcmp(po->items[i].outcome, "present");
    }
    call->owner = mine ? w->cfg.shard : po->n ? po->items[0].owner : 0;
    snprintf(outcome->outcome, sizeof outcome->outcome, "%s", mine ? "stored" : "other");
    if (rc)
        return 1;
    int e = kept ? pipeline_split_mark(store, call->key, call->output, po, &err) : 0;
    if (e) {
        *status = fail(w, EXIT_IO, "%s: cannot write the split marker \"%s\": %s", call->key,
                       sb_str(&err), plat_strerror(e));
    } else {
        *status = stub_write(call, &err);
        if (*status)
            fail(w, *status, "%s", sb_str(&err));
    }
    sb_release(&err);
    return 1;
}

/* A compiler launcher of the build's own between the build and the seat (CMake's
 * CMAKE_<LANG>_COMPILER_LAUNCHER, a ccache masquerade directory): ccache passes every call
 * on (shardcc env sets CCACHE_DISABLE=1) and is then no longer the seat's parent. One that
 * still is, or sccache (which has no such switch), would keep a shard's stubs in a cache of
 * its own and hand them to the link job without the seat seeing the call: refused. */
static int check_launcher(const struct wrap *w)
{
    if (w->cfg.phase == PHASE_OFF)
        return EXIT_OK;
    struct strbuf parent = STRBUF_INIT;
    if (plat_parent_exe(&parent) != 0)
        return EXIT_OK; /* no /proc: nothing to tell */
    const char *b = path_basename(sb_str(&parent));
    int launcher = !strncmp(b, "sccache", 7) || !strcmp(b, "ccache");
    int rc = EXIT_OK;
    if (launcher)
        rc = fail(w, EXIT_USAGE,
                  "the build runs this seat through %s, a compiler launcher of its own "
                  "(CMAKE_<LANG>_COMPILER_LAUNCHER, RULE_LAUNCH_COMPILE, a masquerade "
                  "directory): its cache would keep this shard's stub objects and hand them "
                  "to the link job. Remove the launcher from the build's configuration for "
                  "sharded builds (shardcc caches every compile itself)%s",
                  sb_str(&parent),
                  strcmp(b, "ccache") ? ""
                                      : "; CCACHE_DISABLE=1, which shardcc env sets, "
                                        "was not honoured");
    sb_release(&parent);
    return rc;
}

/* A journal record of this seat's call with what every record holds: when, which process,
 * seat, phase and shard, what kind of call, what was done, its status and duration since
 * t0; the caller fills in the rest. */
static struct journal_rec seat_rec(const struct wrap *w, enum call_kind kind,
                                   enum call_action action, int status, uint64_t t0)
{
    struct journal_rec r = {.wall_us = plat_wall_us(),
                            .pid = plat_pid(),
                            .seat = w->seat,
                            .phase = w->cfg.phase,
                            .shard = w->cfg.shard,
                            .count = w->cfg.count,
                            .kind = kind,
                            .action = action,
                            .status = status,
                            .dur_us = plat_monotonic_us() - t0};
    return r;
}

/* Appends r to the journal path through fd (from plat_open_append) and closes fd. A failed
 * write is reported, and a call that succeeded then exits 4. Returns the exit status. */
static int journal_finish(const struct wrap *w, int fd, const char *path,
                          const struct journal_rec *r, int status)
{
    int e = journal_append(fd, r);
    int ce = plat_close(fd);
    if (!e)
        e = ce;
    if (!e)
        return status;
    fail(w, EXIT_IO, "cannot append to the journal \"%s\": %s", path, plat_strerror(e));
    return status == EXIT_OK ? EXIT_IO : status;
}

/* Opens the journal for appending, creating its directory when it is missing (shardcc env
 * prints the environment without creating anything; the first seat call makes it). */
static int open_journal(const char *path, int *fd)
{
    int e = plat_open_append(path, fd);
    const char *slash = strrchr(path, '/');
    if (e != ENOENT || !slash || slash == path)
        return e;
    char *dir = xstrndup(path, (size_t)(slash - path));
    e = plat_mkdir_p(dir);
    free(dir);
    return e ? e : plat_open_append(path, fd);
}

/* Appends a link's record to the journal: through fd when the caller opened it already
 * (the compiler seats open it before the call), else SHARDCC_JOURNAL's, if there is one. */
static int journal_link(const struct wrap *w, int fd, const char *hollow, const char *output,
                        enum call_action action, int status, uint64_t t0)
{
    const char *path = w->journal ? w->journal : getenv("SHARDCC_JOURNAL");
    if (!path || !*path)
        return status;
    if (fd < 0) {
        int e = open_journal(path, &fd);
        if (e) {
            fail(w, EXIT_IO, "cannot append to the journal \"%s\": %s", path, plat_strerror(e));
            return status == EXIT_OK ? EXIT_IO : status;
        }
    }
    struct journal_rec r = seat_rec(w, w->link_probe ? KIND_PROBE : KIND_LINK, action, status, t0);
    r.key = hollow;
    r.output = output;
    return journal_finish(w, fd, path, &r, status);
}

enum placeholder { PH_STUB, PH_MARKER, PH_SCRIPT };

/* Writes what a shard leaves for a link it cannot make: a stub object for nvcc's device
 * link (-dlink: the host link that reads it is a placeholder too), the marker object for a
 * shared library (links that read it see it as hollow), a placeholder script for a
 * program. Returns an exit status. */
static int write_placeholder(const struct wrap *w, const char *output, enum placeholder kind,
                             const char *hollow)
{
    struct strbuf text = STRBUF_INIT;
    unsigned char obj[LDSEAT_MARKER_MAX];
    int e;
    if (kind == PH_STUB) {
        e = plat_write_atomic(output, obj, stub_object(obj));
    } else if (kind == PH_MARKER) {
        e = plat_write_atomic(output, obj, ldseat_marker_object(obj));
    } else {
        ldseat_placeholder(output, w->cfg.shard, w->cfg.count, hollow, &text);
        e = plat_write_atomic_mode(output, text.buf, text.len, 1);
    }
    sb_release(&text);
    if (e)
        return fail(w, EXIT_IO, "cannot write the placeholder \"%s\": %s", output,
                    plat_strerror(e));
    return EXIT_OK;
}

/* nvcc as a link driver (-dlink, or linking a program or shared library) over stub
 * inputs: nvlink cannot resolve device code that other shards compile. In a shard the
 * output is a placeholder; in the link job it is refused. 1 when the call was handled
 * (*status set), 0 when it links for real. */
static int nvcc_hollow_link(const struct wrap *w, const struct call *call, int journal_fd,
                            uint64_t t0, int *status)
{
    if (call->link == CALL_LINK_NONE || w->cfg.phase == PHASE_OFF)
        return 0;
    int is_stub = 0;
    const char *hollow = ldseat_first_hollow(w->cfg.cwd, &call->inputs, &is_stub);
    if (!hollow)
        return 0;
    if (w->cfg.phase == PHASE_LINK || w->cfg.phase == PHASE_PLAIN) {
        fail(w, EXIT_GUARD,
             "the %s's link of \"%s\" reads \"%s\", %s: an output of a shard reached "
             "the %s (a shard's build tree, or SHARDCC_SHARD, leaked into it)",
             job_name(w), call->output, hollow,
             is_stub ? "a stub object" : "linked in a shard from stub objects", job_name(w));
        *status = journal_link(w, journal_fd, hollow, call->output, ACTION_REFUSED, EXIT_GUARD, t0);
        return 1;
    }
    enum placeholder kind = call->link == CALL_LINK_DEVICE ? PH_STUB
                            : call->shared                 ? PH_MARKER
                                                           : PH_SCRIPT;
    int st = write_placeholder(w, call->output, kind, hollow);
    *status = journal_link(w, journal_fd, hollow, call->output,
                           kind == PH_SCRIPT ? ACTION_PLACEHOLDER : ACTION_HOLLOW, st, t0);
    return 1;
}

/* The linker seat (ldseat.h). The real linker is the next program of the same name on
 * PATH. Outside a shard or link job it is the real linker, unchanged. In a shard, a link
 * with stub inputs writes a placeholder (an executable) or links with unresolved symbols
 * allowed (a shared library, a relocatable object); in the link job, stub inputs fail. */
static int ld_main(struct wrap *w, const char *name, int argc, char **argv, uint64_t t0)
{
    struct strbuf real = STRBUF_INIT;
    if (plat_find_in_path_other(name, &real) != 0)
        return fail(w, EXIT_USAGE, "no linker \"%s\" on PATH but this seat", name);
    w->real = sb_detach(&real);
    const char *phase = getenv("SHARDCC_PHASE");
    if (phase && !strcmp(phase, "shard")) {
        const char *spec = getenv("SHARDCC_SHARD");
        if (!spec || parse_shard_spec(spec, &w->cfg.shard, &w->cfg.count) != 0)
            return fail(w, EXIT_USAGE, "SHARDCC_SHARD=\"%s\" is not a shard I/N (phase shard)",
                        spec ? spec : "");
        w->cfg.phase = PHASE_SHARD;
    } else if (phase && !strcmp(phase, "link")) {
        w->cfg.phase = PHASE_LINK;
    } else if (phase && !strcmp(phase, "plain")) {
        w->cfg.phase = PHASE_PLAIN; /* refuses stub inputs as the link job does */
    } else {
        struct strvec v = STRVEC_INIT;
        sv_push(&v, w->real);
        sv_pushv(&v, argv, (size_t)argc);
        plat_exec(w->real, sv_argv(&v), plat_environ());
        return fail(w, EXIT_USAGE, "cannot run \"%s\": %s", w->real, strerror(errno));
    }
    struct strbuf cwd = STRBUF_INIT, err = STRBUF_INIT;
    if (plat_getcwd(&cwd) != 0)
        return fail(w, EXIT_IO, "cannot read the working directory: %s", strerror(errno));
    struct link_call lc;
    int rc = ldseat_inspect(sb_str(&cwd), argc, argv, &lc, &err);
    if (rc)
        return fail(w, rc, "%s", sb_str(&err));
    /* a build system's probe (CMake's try_compile) is journaled as one */
    const char *root = getenv("SHARDCC_ROOT");
    struct strbuf rroot = STRBUF_INIT;
    if (root && *root && plat_realpath(root, &rroot) == 0) {
        w->cfg.root = sb_detach(&rroot);
        w->cfg.cwd = xstrdup(sb_str(&cwd));
        w->link_probe = probe_path_reason(&w->cfg, lc.output) != NULL;
    }
    struct strvec v = STRVEC_INIT;
    sv_push(&v, w->real);
    sv_pushv(&v, lc.argv.v, lc.argv.n);
    if (!lc.hollow)
        return journal_link(w, -1, lc.hollow, lc.output, ACTION_LINK,
                            run_child(w, w->real, sv_argv(&v), 0, NULL, NULL), t0);
    if (w->cfg.phase != PHASE_SHARD) {
        fail(w, EXIT_GUARD,
             "%s: the %s's link of \"%s\" reads \"%s\", %s: an output of a shard "
             "reached the %s (a shard's build tree, or SHARDCC_SHARD, leaked into it)",
             name, job_name(w), lc.output, lc.hollow,
             lc.hollow_is_stub ? "a stub object" : "linked in a shard from stub objects",
             job_name(w));
        return journal_link(w, -1, lc.hollow, lc.output, ACTION_REFUSED, EXIT_GUARD, t0);
    }
    if (lc.mode == LINK_EXE)
        return journal_link(w, -1, lc.hollow, lc.output, ACTION_PLACEHOLDER,
                            write_placeholder(w, lc.output, PH_SCRIPT, lc.hollow), t0);
    unsigned char marker[LDSEAT_MARKER_MAX];
    size_t mlen = ldseat_marker_object(marker);
    struct strbuf mpath = STRBUF_INIT;
    path_absolute(sb_str(&cwd), lc.output, &mpath);
    sb_addf(&mpath, ".shardcc-marker-%ld.o", plat_pid());
    int e = plat_write_atomic(sb_str(&mpath), marker, mlen);
    if (e)
        return fail(w, EXIT_IO, "cannot write \"%s\": %s", sb_str(&mpath), plat_strerror(e));
    ldseat_hollow_args(sb_str(&mpath), &v);
    if (lc.mode == LINK_SHARED)
        ldseat_hidden_defsyms(sb_str(&cwd), &lc, &v);
    int st = run_child(w, w->real, sv_argv(&v), 0, NULL, NULL);
    plat_unlink(sb_str(&mpath));
    if (st != 0) {
        struct strbuf which = STRBUF_INIT;
        for (size_t i = 0; i < lc.stubs.n && i < 3; i++)
            sb_addf(&which, "%s\"%s\"", i ? ", " : "", lc.stubs.v[i]);
        if (lc.stubs.n > 3)
            sb_addf(&which, " and %zu more", lc.stubs.n - 3);
        fprintf(stderr,
                "shardcc: %s: shard %d/%d: this link of \"%s\" failed where shardcc linked it "
                "from stub inputs (%s: TUs of other shards, or outputs linked from them), with "
                "unresolved symbols allowed: a shard's hollow link, not the project's own "
                "failure. Pin the sources of those inputs (shardcc shard --pin GLOB) so that "
                "every shard compiles them\n",
                name, w->cfg.shard, w->cfg.count, lc.output, sb_str(&which));
        sb_release(&which);
    }
    return journal_link(w, -1, lc.hollow, lc.output, ACTION_HOLLOW, st, t0);
}

#define SEAT_GO (-1) /* seat_select: a seat was chosen, the call goes on */

/* Which seat this process is, from the name it was run by (shardcc-nvcc, ..., the shadow
 * toolkit's nvcc), or as shardcc-wrap from --seat=; shardcc-wrap's own modes (--version,
 * --help, --classify, ccache's compiler of a reproducible TU) are answered here. SEAT_GO with
 * w->seat, *first (the first compiler argument) and *torch set, else the exit status. */
static int seat_select(int argc, char **argv, const char *name, struct wrap *w, int *first,
                       int *torch)
{
    *first = 1;
    *torch = 0;
    const char *pipeline_nvcc = getenv(PIPELINE_ENV);
    if (pipeline_nvcc && *pipeline_nvcc && strcmp(name, "shardcc-wrap") == 0) {
        /* ccache runs us as the compiler of a reproducible TU (pipeline.h) */
        char *nvcc = xstrdup(pipeline_nvcc);
        unsetenv(PIPELINE_ENV);
        return pipeline_main(nvcc, argc - 1, argv + 1);
    }
    if (strcmp(name, "shardcc-wrap") != 0) {
        if (seat_from_name(name, &w->seat, torch) != 0) {
            fprintf(stderr,
                    "shardcc: cannot tell the seat from the program name \"%s\" "
                    "(expected shardcc-nvcc, shardcc-nvcc-torch, shardcc-c++, shardcc-cc)\n",
                    name);
            return EXIT_USAGE;
        }
        /* a program named plain "nvcc" is the shadow CUDA_HOME's bin/nvcc: what torch runs
         * as $CUDA_HOME/bin/nvcc, so it runs the nvcc torch would run */
        if (!strcmp(name, "nvcc"))
            *torch = 1;
        return SEAT_GO;
    }
    static const char usage[] =
        "usage: shardcc-wrap --seat=nvcc|nvcc-torch|c++|cc|ld COMPILER-ARGS...\n"
        "       shardcc-wrap --classify [--seat=SEAT] [--shard I/N] [--root DIR] -- "
        "COMPILER ARGS...\n"
        "       shardcc-wrap --version | --help\n";
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("shardcc-wrap %s (libc: %s)\n", SHARDCC_VERSION, SHARDCC_SEAT_LIBC);
        return EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        printf("%s\nThe compiler seat, run once per compiler call. It is normally reached by\n"
               "the names linked to it: shardcc-nvcc (CUDACXX), shardcc-nvcc-torch\n"
               "(PYTORCH_NVCC), shardcc-c++ (CXX) and shardcc-cc (CC), with the variables\n"
               "that eval \"$(shardcc env)\" sets; the name picks the seat. It stubs the\n"
               "TUs another shard owns, runs the rest through ccache and journals each\n"
               "call. See shardcc-wrap(1): docs/shardcc-wrap.md.\n",
               usage);
        return EXIT_OK;
    }
    if (argc >= 2 && strcmp(argv[1], "--classify") == 0)
        return classify_mode(argc - 2, argv + 2);
    if (argc < 2 || strncmp(argv[1], "--seat=", 7) != 0 ||
        seat_from_name(argv[1] + 7, &w->seat, torch) != 0) {
        fprintf(stderr,
                "%s  (normally reached as shardcc-nvcc, shardcc-nvcc-torch, shardcc-c++ or "
                "shardcc-cc)\n",
                usage);
        return EXIT_USAGE;
    }
    *first = 2;
    return SEAT_GO;
}

/* The default host seat's call that is not a torch extension's TU: the real compiler's, as
 * if CXX/CC were not a seat (a launcher of the build's may run it: CCACHE_DISABLE=1 keeps a
 * ccache out of the way); a TU is journaled (kind host, action direct). */
static int seat_host_pass(struct wrap *w, const struct call *call, int nargs, char **args,
                          uint64_t t0)
{
    int hfd = -1;
    if (call->kind != KIND_TU || !w->journal || open_journal(w->journal, &hfd) != 0)
        return run_direct(w, nargs, args);
    int st = run_direct(w, nargs, args);
    struct journal_rec r = seat_rec(w, KIND_HOST, ACTION_DIRECT, st, t0);
    r.key = call->key;
    r.output = call->output;
    return journal_finish(w, hfd, w->journal, &r, st);
}

/* What the seat does with the call: split it into device items, write a stub, run it as
 * given, run its device code through the store, or through ccache (the plain phase: the
 * real compiler with the seat's changes). Its exit status. */
static int seat_run(struct wrap *w, struct call *call, int nargs, char **args,
                    struct pipeline_opts *po, struct ccache_outcome *outcome)
{
    int status;
    struct strbuf err = STRBUF_INIT;
    if (split_call(w, call, po, outcome, &status)) {
        call->action = ACTION_SPLIT;
        return status;
    }
    switch (call->action) {
    case ACTION_STUB:
        status = stub_write(call, &err);
        if (status)
            fail(w, status, "%s", sb_str(&err));
        break;
    case ACTION_DIRECT:
        status = run_as_given(w, nargs, args);
        break;
    case ACTION_DEVICE:
        status = w->cfg.phase == PHASE_PLAIN ? run_plain(w, call, nargs, args)
                                             : run_devcode(w, call, outcome);
        break;
    case ACTION_CACHE:
    default:
        if (call->kind != KIND_TU && w->seat == SEAT_NVCC && w->cfg.reproducible &&
            pipeline_links(nargs, args))
            status = run_as_given(w, nargs, args); /* ccache: "called for link" */
        else
            status = w->cfg.phase == PHASE_PLAIN ? run_plain(w, call, nargs, args)
                                                 : run_cached(w, call, outcome);
        break;
    }
    sb_release(&err);
    return status;
}

/* The call's journal record; status is returned, or the journal's failure. */
static int seat_journal(struct wrap *w, const struct call *call, int journal_fd, int status,
                        uint64_t t0, const struct ccache_outcome *outcome,
                        const struct pipeline_opts *po)
{
    /* a probe of a source outside the root: its path in the key field, so that the jobs
     * can name it (it is compiled in every job, not as a TU) */
    struct strbuf outside = STRBUF_INIT;
    if (call->outside_root && call->source)
        path_absolute(w->cfg.cwd ? w->cfg.cwd : ".", call->source, &outside);
    int whole =
        call->kind == KIND_TU && (call->action == ACTION_CACHE || call->action == ACTION_PIN ||
                                  call->action == ACTION_DEVICE || call->action == ACTION_SPLIT);
    struct journal_rec r = seat_rec(w, call->kind, call->action, status, t0);
    r.owner = call->owner;
    r.key = call->key ? call->key : (outside.len ? sb_str(&outside) : NULL);
    r.output = call->output;
    r.outcome = outcome->outcome[0] ? outcome->outcome : NULL;
    r.result_key = outcome->result_key[0] ? outcome->result_key : NULL;
    r.argv = whole ? &call->argv : NULL;
    r.fallback = fallback_why.len ? sb_str(&fallback_why) : NULL;
    r.items = po->n ? po->items : whole_items;
    r.nitems = po->n ? po->n : whole_n;
    r.remote = outcome->remote;
    return journal_finish(w, journal_fd, w->journal, &r, status);
}

/* The seat: which one this is, its configuration from the job's environment, the call
 * classified, then done (shardcc-wrap(1)) and journaled. */
int main(int argc, char **argv)
{
    uint64_t t0 = plat_monotonic_us();
    plat_main_args(&argc, &argv);
    struct wrap w;
    memset(&w, 0, sizeof w);
    char name_buf[256];
    const char *name = program_name(argv[0], name_buf, sizeof name_buf);
    int first, torch;
    int rc = seat_select(argc, argv, name, &w, &first, &torch);
    if (rc != SEAT_GO)
        return rc;
    w.realvar = torch ? "SHARDCC_REAL_NVCC_TORCH" : NULL;
    int nargs = argc - first;
    char **args = argv + first;
    if (w.seat == SEAT_LD)
        return ld_main(&w, first == 2 ? argv[1] + 7 : name, nargs, args, t0);
    if ((rc = load_config(&w)) != EXIT_OK || (rc = check_tool(&w, w.realvar, w.real)) != EXIT_OK)
        return rc;
    if (w.depth > 0) {
        /* A compiler we started calls a seat again (nvcc -ccbin shardcc-c++): be transparent. */
        if (w.depth >= MAX_DEPTH)
            return fail(&w, EXIT_USAGE,
                        "the wrapper called itself %d levels deep; is %s a "
                        "script that calls the seat again?",
                        w.depth, w.realvar);
        return run_direct(&w, nargs, args);
    }
    struct call call;
    struct strbuf err = STRBUF_INIT;
    rc = classify_call(w.seat, &w.cfg, nargs, args, &call, &err);
    if (rc)
        return fail(&w, rc, "%s", sb_str(&err));
    if (call.host_pass)
        return seat_host_pass(&w, &call, nargs, args, t0);
    if ((rc = check_launcher(&w)) != EXIT_OK)
        return rc;
    int journal_fd = -1;
    if (w.journal) { /* opened before the compile: fail before it, not after it */
        int e = open_journal(w.journal, &journal_fd);
        if (e)
            return fail(&w, EXIT_IO, "cannot append to the journal \"%s\": %s", w.journal,
                        plat_strerror(e));
    }
    int status;
    if (nvcc_hollow_link(&w, &call, journal_fd, t0, &status))
        return status;
    struct ccache_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    struct pipeline_opts po;
    memset(&po, 0, sizeof po);
    status = seat_run(&w, &call, nargs, args, &po, &outcome);
    if (w.journal)
        status = seat_journal(&w, &call, journal_fd, status, t0, &outcome, &po);
    return status;
}
