/* classify: one pass over the canonical argv against the seat's option table, then the
 * decision of docs/design.md ("What the seat does with one call"): info, probe, TU (owned
 * or stubbed) or other. Pure: reads the file system only to resolve the source path. */
#include "classify.h"
#include "argv.h"
#include "devcode.h"
#include "partition.h"
#include "path.h"
#include "stub_coff.h"
#include "platform.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *kind_name(enum call_kind k)
{
    static const char *const n[] = {"tu", "probe", "info", "other", "link", "host"};
    return n[k];
}

const char *action_name(enum call_action a)
{
    static const char *const n[] = {"cache",  "stub",        "direct",  "pin",    "link",
                                    "hollow", "placeholder", "refused", "device", "split"};
    return n[a];
}

/* Inputs that are linked, not compiled. */
static int is_link_input(const char *path)
{
    static const char *const ext[] = {"o", "obj", "a", "lib", "so", "dylib", "dll", "res", "lo"};
    const char *e = path_extension(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (strcmp(e, ext[i]) == 0)
            return 1;
    return strstr(path_basename(path), ".so.") != NULL;
}

/* Paths that build systems use for compiler probes: CMake's compiler identification and
 * try_compile (CMakeFiles/<ver>/CompilerIdCUDA, CMakeFiles/CMakeScratch/TryCompile-*,
 * CMakeFiles/CMakeTmp, cmTC_* targets), meson's meson-private, autoconf's conftest. */
const char *probe_path_reason(const struct wrap_config *cfg, const char *arg)
{
    struct strbuf abs = STRBUF_INIT;
    path_absolute(cfg->cwd, arg, &abs);
    const char *p = path_under(cfg->root, sb_str(&abs)); /* the root's own name never counts */
    if (!p)
        p = sb_str(&abs);
    const char *why = NULL;
    if (path_has_component(p, "CMakeScratch", 0) || path_has_component(p, "CMakeTmp", 0) ||
        path_has_component(p, "CompilerId", 1) || path_has_component(p, "cmTC_", 1) ||
        path_has_component(p, "TryCompile-", 1))
        why = "CMake compiler probe path";
    else if (path_has_component(p, "meson-private", 0))
        why = "meson probe path";
    else if (strncmp(path_basename(p), "conftest", 8) == 0)
        why = "autoconf probe path";
    sb_release(&abs);
    return why;
}

/* The key of source: resolved, relative to root. NULL when outside the root. */
static char *source_key(const struct wrap_config *cfg, const char *source)
{
    struct strbuf lex = STRBUF_INIT, real = STRBUF_INIT;
    path_absolute(cfg->cwd, source, &lex);
    const char *rel = NULL;
    if (plat_realpath(sb_str(&lex), &real) == 0)
        rel = path_under(cfg->root, sb_str(&real));
    if (!rel) /* missing, or a symlink inside the root pointing out of it */
        rel = path_under(cfg->root, sb_str(&lex));
    char *key = rel && *rel ? xstrdup(rel) : NULL;
    sb_release(&lex);
    sb_release(&real);
    return key;
}

/* Whether key matches one of the ':'-separated globs of pins ('*' matches '/' too). */
static int key_pinned(const char *pins, const char *key)
{
    char pat[4096];
    for (const char *p = pins; p && *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (path_glob(pat, key))
                return 1;
        }
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* make-quoting of a depfile target, as gcc does for -MQ and for the default target. */
static char *make_quote(const char *s)
{
    struct strbuf q = STRBUF_INIT;
    for (const char *p = s; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            for (const char *b = p; b > s && b[-1] == '\\'; b--)
                sb_addc(&q, '\\');
            sb_addc(&q, '\\');
        } else if (*p == '$') {
            sb_addc(&q, '$');
        } else if (*p == '#') {
            sb_addc(&q, '\\');
        }
        sb_addc(&q, *p);
    }
    return sb_detach(&q);
}

static char *default_depfile(const char *output)
{
    const char *base = path_basename(output);
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - output) : strlen(output);
    struct strbuf d = STRBUF_INIT;
    sb_add(&d, output, n);
    sb_adds(&d, ".d");
    return sb_detach(&d);
}

/* cl's object for source: /Fo's file, a name in /Fo's directory (a value ending in a
 * separator), or the source's name with .obj in the working directory. */
static void msvc_output(const char *source, char **output)
{
    const char *o = *output;
    size_t n = o ? strlen(o) : 0;
    if (o && n && o[n - 1] != '/' && o[n - 1] != '\\')
        return;
    const char *base = path_basename_any(source);
    const char *dot = strrchr(base, '.');
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, o ? o : "", n);
    sb_add(&sb, base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
    sb_adds(&sb, ".obj");
    free(*output);
    *output = sb_detach(&sb);
}

/* CMake writes cl and clang-cl compiles as "... -c -- SOURCE"; ccache (4.7.5, issue
 * ccache#1149) finds no input file after "--" and runs every such call uncached. Where no
 * file after it starts with '/' or '-' (on Windows none does: C:\src\a.c), "--" changes
 * nothing for the compiler and is dropped; a file that does (clang-cl on Linux,
 * /home/src/a.c) keeps it, and ccache's "no input file" reaches the guard. */
static void drop_dashdash(struct strvec *v)
{
    size_t k = 0;
    while (k < v->n && strcmp(v->v[k], "--"))
        k++;
    if (k == v->n)
        return;
    for (size_t i = k + 1; i < v->n; i++)
        if (v->v[i][0] == '/' || v->v[i][0] == '-')
            return;
    free(v->v[k]);
    memmove(&v->v[k], &v->v[k + 1], (v->n - k) * sizeof *v->v); /* the NULL after them too */
    v->n--;
}

/* Whether file's extension gives cl the language lang ('c' or 'p', as /Tc and /Tp do). */
static int ext_means(const char *file, char lang)
{
    static const char *const cxx[] = {"cpp", "cxx", "cc", "c++"};
    const char *e = path_extension(file);
    if (lang == 'c')
        return !strcmp(e, "c") || !strcmp(e, "C");
    for (size_t i = 0; i < sizeof cxx / sizeof *cxx; i++)
        if (strlen(e) == strlen(cxx[i]) && !path_ncasecmp(e, cxx[i], strlen(e)))
            return 1;
    return 0;
}

/* setuptools' MSVC compiler names every source with /Tc<file> or /Tp<file>
 * (_distutils/_msvccompiler.py), which ccache 4.7.5 cannot cache (no input file; apart,
 * /Tp <file>, its preprocessor call takes the next option for the file). Where the file's
 * extension already says that language to cl, and the file does not start with '/' or '-',
 * the option says nothing more: the file is named alone. */
static void plain_sources(const struct opt_table *t, struct strvec *v)
{
    for (size_t i = 0; i < v->n; i++) {
        const char *a = v->v[i], *value = NULL;
        if (!strcmp(a, "--"))
            return;
        const struct opt *o = (a[0] == '/' || a[0] == '-') && a[1] ? cl_match(t, a, &value) : NULL;
        if (!o)
            continue;
        if ((o->flags & OPT_SOURCE) && value && *value && value[0] != '/' && value[0] != '-' &&
            ext_means(value, o->name[2])) {
            char *plain = xstrdup(value);
            free(v->v[i]);
            v->v[i] = plain;
        } else if (opt_takes_next(o, value)) {
            i++;
        }
    }
}

/* A call with one source: a TU (with reason) keyed by its source, or a probe when the
 * source lies outside the root. */
static void tu_or_probe(const struct wrap_config *cfg, struct call *call, const char *reason)
{
    call->key = source_key(cfg, call->source);
    call->kind = call->key ? KIND_TU : KIND_PROBE;
    call->outside_root = !call->key;
    call->reason = call->key ? reason : "source outside the project root";
}

/* Whether argv defines TORCH_EXTENSION_NAME, as torch's BuildExtension does for every TU of
 * an extension, on either of its backends (-DTORCH_EXTENSION_NAME=x or -D
 * TORCH_EXTENSION_NAME=x). */
static int torch_extension_tu(const struct strvec *argv)
{
    static const char name[] = "TORCH_EXTENSION_NAME";
    for (size_t i = 0; i < argv->n; i++) {
        const char *a = argv->v[i];
        if (!strcmp(a, "-D") && i + 1 < argv->n)
            a = argv->v[++i];
        else if (!strncmp(a, "-D", 2))
            a += 2;
        else
            continue;
        if (!strncmp(a, name, sizeof name - 1) &&
            (a[sizeof name - 1] == '=' || !a[sizeof name - 1]))
            return 1;
    }
    return 0;
}

int classify_call(enum seat seat, const struct wrap_config *cfg, int argc, char *const *argv,
                  struct call *call, struct strbuf *err)
{
    memset(call, 0, sizeof *call);
    call->seat = seat;
    int rc = canon_argv(seat, cfg, argc, argv, &call->argv, err);
    if (rc)
        return rc;

    const struct opt_table *t = call_table(seat, cfg);
    int msvc = seat != SEAT_NVCC && cfg->msvc;
    if (msvc) {
        drop_dashdash(&call->argv);
        plain_sources(t, &call->argv);
    }
    int info = 0, compile = 0, nontu = 0, depgen = 0, n_sources = 0, n_linked = 0, dlink = 0;
    int devcode = 0, other_mode = 0; /* device-code-only modes, other non-TU modes */
    const char *first_source = NULL, *probe = NULL, *depfile = NULL, *nontu_opt = NULL;
    struct strvec targets = STRVEC_INIT;
    char **a = sv_argv(&call->argv);
    size_t n = call->argv.n;
    const char *target = NULL;   /* clang-cl's --target */
    int pdb = 0;                 /* cl's /Zi or /ZI */
    int by_option = 0;           /* cl's source named by /Tc or /Tp */
    int pch_create = 0;          /* cl's /Yc: a precompiled header other TUs read */
    int operands = 0;            /* after cl's "--" */
    size_t out_index = SIZE_MAX; /* cl: the argument holding the output's value */
    size_t out_prefix = 0;       /* ... the option's part of it ("/Fo" glued on; else 0) */
    for (size_t i = 0; i < n; i++) {
        const char *arg = a[i], *value = NULL, *operand = NULL;
        const struct opt *o = NULL;
        if (msvc && !operands && !strcmp(arg, "--")) {
            operands = 1; /* cl and clang-cl: what follows is files (CMake: -c -- src.c) */
            continue;
        }
        if (operands)
            operand = arg;
        else if (arg[0] == '-' && arg[1])
            o = msvc ? cl_match(t, arg, &value) : opt_match(t, arg, &value);
        else if (msvc && arg[0] == '/' && arg[1]) {
            o = cl_match(t, arg, &value);
            if (!o && strchr(arg + 1, '/'))
                operand = arg; /* a path, not an option: clang-cl takes /src/a.c as a file */
        } else
            operand = arg;
        if (o && opt_takes_next(o, value) && i + 1 < n)
            value = a[++i];
        if (o && (o->flags & OPT_SOURCE)) {
            operand = value; /* cl's /Tc<file>, /Tp<file> */
            by_option = 1;
        }
        if (operand) {
            if (is_link_input(operand)) {
                n_linked++;
                sv_push(&call->inputs, operand);
            } else if (n_sources++ == 0)
                first_source = operand;
            if (!probe)
                probe = probe_path_reason(cfg, operand);
        }
        if (!o || (o->flags & OPT_SOURCE))
            continue;
        if (msvc && (!strcmp(o->name, "--target") || !strcmp(o->name, "-target")))
            target = value;
        if (msvc && (!strcmp(o->name, "-Zi") || !strcmp(o->name, "-ZI")))
            pdb = 1;
        if (msvc && !strcmp(o->name, "-Yc"))
            pch_create = 1;
        if (o->flags & OPT_INFO)
            info = 1;
        if (o->flags & OPT_COMPILE)
            compile = 1;
        if (o->flags & OPT_NONTU) {
            nontu = 1;
            nontu_opt = msvc ? arg : o->name; /* cl's spelling: /EP, /link */
            if (seat == SEAT_NVCC && devcode_option(o->name))
                devcode = 1;
            else
                other_mode = 1;
        }
        if (o->flags & OPT_DEPGEN)
            depgen = 1;
        if (o->flags & OPT_DLINK)
            dlink = 1;
        if (!strcmp(o->name, "--shared") || !strcmp(arg, "-shared"))
            call->shared = 1;
        if (o->flags & OPT_OUTPUT && value) {
            free(call->output);
            call->output = xstrdup(value);
            out_index = i; /* the value's argument: a[i], or the one after the option */
            out_prefix = value >= a[i] && value <= a[i] + strlen(a[i]) ? (size_t)(value - a[i]) : 0;
            if (!probe)
                probe = probe_path_reason(cfg, value);
        }
        if (o->flags & OPT_DEPFILE)
            depfile = value;
        if (o->flags & OPT_DEPTARGET && value)
            sv_push_owned(&targets, o->flags & OPT_DEPQUOTE ? make_quote(value) : xstrdup(value));
        if (msvc && !strcmp(o->name, "-link"))
            break; /* what follows is the linker's */
    }
    if (msvc) {
        call->coff_machine =
            !target ? (cfg->coff_machine ? cfg->coff_machine : COFF_MACHINE_AMD64)
            : !strncmp(target, "aarch64", 7) || !strncmp(target, "arm64", 5) ? COFF_MACHINE_ARM64
            : !strncmp(target, "i686", 4) || !strncmp(target, "i386", 4)     ? COFF_MACHINE_I386
                                                                             : COFF_MACHINE_AMD64;
        if (compile && n_sources == 1) {
            size_t n0 = call->output ? strlen(call->output) : 0;
            int dir = n0 && (call->output[n0 - 1] == '/' || call->output[n0 - 1] == '\\');
            msvc_output(first_source, &call->output);
            /* /Fo<dir>/: ccache 4.7.5 joins the directory and the name with a backslash
             * (build/obj/\a.obj on Linux); the object's full name means the same to cl */
            if (dir && out_index < call->argv.n) {
                struct strbuf r = STRBUF_INIT;
                sb_add(&r, a[out_index], out_prefix); /* "/Fo", when glued on */
                sb_adds(&r, call->output);
                free(call->argv.v[out_index]);
                call->argv.v[out_index] = sb_detach(&r);
            }
        }
    }

#ifdef _WIN32
    if (!call->coff_machine) /* nvcc's objects on Windows: COFF for the host's machine */
        call->coff_machine = cfg->coff_machine ? cfg->coff_machine : COFF_MACHINE_AMD64;
#endif
    /* CMake's "assembly source" rule (Windows-MSVC.cmake: /FoNUL /FAs /Fa<file>): no object */
    int discarded = msvc && call->output && !path_ncasecmp(call->output, "NUL", 4);
    if (first_source)
        call->source = xstrdup(first_source);
    if (info || n == 0) {
        call->kind = KIND_INFO;
        call->reason = n ? "informational option" : "no arguments";
    } else if (probe) {
        call->kind = KIND_PROBE;
        call->reason = probe;
    } else if (first_source && strcmp(first_source, "-") == 0) {
        call->kind = KIND_OTHER;
        call->reason = "source read from standard input";
    } else if (discarded) {
        call->kind = KIND_OTHER;
        call->reason = "no object kept (/FoNUL: an assembly listing)";
    } else if (!compile || nontu || n_sources != 1 || n_linked || !call->output) {
        call->kind = KIND_OTHER;
        call->reason = nontu ? nontu_opt
                       : !compile
                           ? (msvc ? "no compile-only phase (/c)" : "no compile-only phase (-c)")
                       : n_sources != 1 ? (n_sources ? "several sources" : "no source")
                       : n_linked       ? "object or library inputs"
                                        : "no output (-o)";
    } else if (pch_create) {
        tu_or_probe(cfg, call,
                    "one source, compile-only, one output; it creates a precompiled header "
                    "(/Yc) that other TUs read (/Yu): compiled in every shard");
    } else {
        tu_or_probe(cfg, call,
                    pdb ? "one source, compile-only, one output; /Zi (a PDB shared between "
                          "objects) cannot be cached by ccache: the link job compiles it again "
                          "(/Z7 keeps the debug information in the object)"
                    : by_option
                        ? "one source, compile-only, one output; a source named by /Tc or /Tp "
                          "cannot be cached by ccache 4.7 (joined it finds no input file, "
                          "apart it takes the next option for the file): the link job compiles "
                          "it again"
                        : "one source, compile-only, one output");
    }

    /* device code only, in a job: never stubbed, made through the seat's store */
    if (call->kind == KIND_OTHER && devcode && !other_mode && !compile && n_sources == 1 &&
        !n_linked && call->output && strcmp(first_source, "-") != 0 && cfg->phase != PHASE_OFF)
        tu_or_probe(cfg, call, "device code only: made in every job through the seat's store");

    if (call->kind == KIND_OTHER && seat == SEAT_NVCC && call->output && n_linked) {
        if (dlink)
            call->link = CALL_LINK_DEVICE;
        else if (!compile && !nontu)
            call->link = CALL_LINK_FULL;
    }

    switch (call->kind) {
    case KIND_INFO:
    case KIND_PROBE:
        call->action = ACTION_DIRECT;
        break;
    case KIND_OTHER:
    case KIND_LINK:
    case KIND_HOST:
        call->action = ACTION_CACHE;
        break;
    case KIND_TU:
        if (depgen) {
            call->depfile = depfile ? xstrdup(depfile) : default_depfile(call->output);
            if (targets.n == 0)
                sv_push_owned(&targets, make_quote(call->output));
            call->dep_targets = targets;
            targets = (struct strvec)STRVEC_INIT;
        }
        if (devcode) {
            call->owner = cfg->shard; /* every job makes it (0 in the link job) */
            call->action = ACTION_DEVICE;
        } else if (cfg->phase == PHASE_SHARD && cfg->count > 0 &&
                   (pch_create || key_pinned(cfg->pins, call->key))) {
            call->owner = cfg->shard; /* pinned: every shard compiles it */
            call->action = ACTION_PIN;
        } else if (cfg->phase == PHASE_SHARD && cfg->count > 0) {
            call->owner = cfg->plan ? plan_owner(cfg->plan, cfg->plan_len, call->key) : 0;
            if (call->owner > cfg->count) /* a plan.tsv edited by hand: never nobody's TU */
                call->owner = 0;
            if (!call->owner)
                call->owner = partition_owner(call->key, cfg->count);
            call->action = call->owner == cfg->shard ? ACTION_CACHE : ACTION_STUB;
        } else {
            call->action = ACTION_CACHE;
        }
        break;
    }
    if (cfg->torch_only && seat != SEAT_NVCC &&
        (call->kind == KIND_TU || call->kind == KIND_OTHER) &&
        !(call->kind == KIND_TU && torch_extension_tu(&call->argv))) {
        call->action = ACTION_DIRECT;
        call->owner = 0;
        call->host_pass = 1;
        call->reason = "not a torch extension's TU (no -DTORCH_EXTENSION_NAME=): the host seat "
                       "runs the real compiler (SHARDCC_HOST_SEAT=torch; --host-seat shards "
                       "every host TU)";
    }
    sv_clear(&targets);
    return EXIT_OK;
}

void call_release(struct call *call)
{
    sv_clear(&call->argv);
    sv_clear(&call->inputs);
    sv_clear(&call->dep_targets);
    free(call->source);
    free(call->key);
    free(call->output);
    free(call->depfile);
    memset(call, 0, sizeof *call);
}
