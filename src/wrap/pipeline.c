/* pipeline: an nvcc compile run as nvcc's own steps with the seat's names (pipeline.h). */
#include "pipeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode.h"
#include "dryrun.h"
#include "options.h"
#include "partition.h"
#include "path.h"
#include "platform.h"
#include "sha256.h"
#include "strvec.h"

#define TMPXFT "tmpxft_"
#define TMPXFT_LEN 24 /* tmpxft_XXXXXXXX_XXXXXXXX */

/* What the call asks beside the compile: its depfile options, taken out of the plan. */
struct depopts {
    const char *gen;      /* "-MD" or "-MMD", or NULL */
    const char *file;     /* -MF */
    struct strvec target; /* "-MT" t / "-MQ" t pairs, as gcc takes them */
    int phony;            /* -MP */
    const char *output;   /* -o */
    long threads;         /* --threads N (0: one per processor), 1 when not given */
};

static int fail(struct strbuf *why, const char *fmt, ...) SHARDCC_PRINTF(2, 3);
static int fail(struct strbuf *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(why, fmt, ap);
    va_end(ap);
    return -1;
}

/* The arguments of the plan (args less the depfile options, kept in d); -1 with why for a
 * call the pipeline does not take. */
static int plan_args(int argc, char **argv, struct strvec *out, struct depopts *d,
                     struct strbuf *why)
{
    int compile = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        const struct opt *o = arg[0] == '-' ? opt_match(&nvcc_options, arg, &value) : NULL;
        if (!o) {
            sv_push(out, arg);
            continue;
        }
        int has_next = opt_takes_next(o, value) && i + 1 < argc;
        if (has_next)
            value = argv[i + 1];
        const char *name = o->rewrite ? o->rewrite : o->name;
        if (o->flags & (OPT_INFO | OPT_NONTU | OPT_DLINK))
            return fail(why, "%s is not a compile to an object", arg);
        if (!strcmp(name, "--objdir-as-tempdir") || !strcmp(name, "-objtemp"))
            return fail(why, "%s names the temporaries already", arg);
        if (o->flags & OPT_COMPILE)
            compile = 1;
        if (o->flags & OPT_OUTPUT)
            d->output = value;
        if ((!strcmp(o->name, "--threads") || !strcmp(o->name, "-t")) && value)
            d->threads = strtol(value, NULL, 10);
        if (o->flags & (OPT_DEPGEN | OPT_DEPFILE | OPT_DEPTARGET | OPT_DEPQUOTE) ||
            !strcmp(name, "-MP") || !strcmp(name, "--generate-dependency-targets")) {
            if (o->flags & OPT_DEPGEN)
                d->gen = strcmp(name, "-MMD") == 0 ? "-MMD" : "-MD";
            else if (o->flags & OPT_DEPFILE)
                d->file = value;
            else if (o->flags & (OPT_DEPTARGET | OPT_DEPQUOTE)) {
                sv_push(&d->target, o->flags & OPT_DEPQUOTE ? "-MQ" : "-MT");
                sv_push(&d->target, value);
            } else
                d->phony = 1;
            i += has_next;
            continue;
        }
        sv_push(out, arg);
        if (has_next)
            sv_push(out, argv[++i]);
    }
    if (!compile)
        return fail(why, "the call does not compile (no -c, -dc or -dw)");
    if (!d->output)
        return fail(why, "the call names no output (-o)");
    if (d->gen && !d->file)
        return fail(why, "%s without -MF", d->gen);
    return 0;
}

static int is_hex8(const char *s)
{
    for (int i = 0; i < 8; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* Writes every tmpxft_<pid>_<counter> of text as name (all must be one name). */
static int rename_temps(char *text, const char *name, struct strbuf *why)
{
    char first[TMPXFT_LEN + 1] = "";
    int n = 0;
    for (char *p = strstr(text, TMPXFT); p; p = strstr(p + 1, TMPXFT)) {
        if (!is_hex8(p + 7) || p[15] != '_' || !is_hex8(p + 16))
            continue;
        if (!first[0])
            memcpy(first, p, TMPXFT_LEN);
        else if (memcmp(first, p, TMPXFT_LEN) != 0)
            return fail(why, "the plan names its temporaries %.*s and %s", TMPXFT_LEN, p, first);
        memcpy(p, name, TMPXFT_LEN);
        n++;
    }
    if (n == 0) {
        fail(why, "the plan names no temporary tmpxft_<pid>_<counter>");
        return PIPELINE_AS_IS;
    }
    return 0;
}

/* A name from the output's path (the split marker's, split.h): below the project root
 * (SHARDCC_ROOT) where it is there, so that it does not depend on where the project is;
 * else absolute. */
static void output_name(const char *output, char name[TMPXFT_LEN + 1])
{
    struct strbuf cwd = STRBUF_INIT, abs = STRBUF_INIT, root = STRBUF_INIT;
    if (plat_getcwd(&cwd) != 0)
        sb_adds(&cwd, "/");
    path_absolute(sb_str(&cwd), output, &abs);
    const char *r = getenv("SHARDCC_ROOT"), *below = NULL;
    if (r && *r && plat_realpath(r, &root) == 0)
        below = path_under(sb_str(&root), sb_str(&abs));
    struct sha256 s;
    unsigned char d[32];
    char hex[65];
    sha256_init(&s);
    sha256_update_str(&s, "shardcc-pipeline-1");
    sha256_update_str(&s, below ? "root" : "abs");
    sha256_update_str(&s, below ? below : sb_str(&abs));
    sha256_final(&s, d);
    sha256_hex(d, hex);
    snprintf(name, TMPXFT_LEN + 1, "%s%.8s_%.8s", TMPXFT, hex, hex + 8);
    sb_release(&cwd);
    sb_release(&abs);
    sb_release(&root);
}

/* text with the root (a path with its trailing slash) written "<root>/" */
static void add_rooted(struct strbuf *out, const char *text, const struct strbuf *root)
{
    for (const char *p = text; *p;) {
        if (root->len && !strncmp(p, root->buf, root->len)) {
            sb_adds(out, "<root>/");
            p += root->len;
        } else {
            sb_add(out, p++, 1);
        }
    }
}

/* A path of an argument as one spelling: an existing file or directory as its real path,
 * under the root as "<root>/..." (ccache under CCACHE_BASEDIR gives nvcc relative paths
 * where the plain phase gives the build's absolute ones); else as written. */
static void add_path(struct strbuf *out, const char *path, const struct strbuf *root)
{
    struct strbuf real = STRBUF_INIT;
    add_rooted(out, plat_realpath(path, &real) == 0 ? sb_str(&real) : path, root);
    sb_release(&real);
}

/* tmpxft_<h1>_<h2> from what ccache's key covers: the call's arguments less its output
 * (-o FILE; the depfile options are out already), each path in one spelling (add_path),
 * sorted. Two calls that differ only in their output are one ccache entry, so they must
 * make the same bytes: the temporaries' names, which reach the object, cannot come from
 * the output's path. The same at any root (jobs with --relocatable), and whether ccache
 * ran the call (relative paths under its base directory) or the plain phase did. */
static void call_temp_name(const struct strvec *args, const char *output, char name[TMPXFT_LEN + 1])
{
    static const char *const joined[] = {"--include-path=",
                                         "--library-path=",
                                         "--system-include=",
                                         "--pre-include=",
                                         "-isystem",
                                         "-iquote",
                                         "-idirafter",
                                         "-include",
                                         "-I",
                                         "-L"};
    struct strbuf root = STRBUF_INIT, a = STRBUF_INIT;
    const char *r = getenv("SHARDCC_ROOT");
    if (r && *r && plat_realpath(r, &root) == 0 && root.len > 1)
        sb_adds(&root, "/");
    else
        sb_reset(&root);
    struct strvec canon = STRVEC_INIT;
    for (size_t i = 0; i < args->n; i++) {
        const char *arg = args->v[i];
        if (output && (!strcmp(arg, "-o") || !strcmp(arg, "--output-file")) && i + 1 < args->n &&
            !strcmp(args->v[i + 1], output)) {
            i++;
            continue;
        }
        if (output && (!strncmp(arg, "-o", 2) || !strncmp(arg, "--output-file=", 14)) &&
            !strcmp(arg + (arg[1] == 'o' ? 2 : 14), output))
            continue;
        sb_reset(&a);
        size_t k = 0, pl = 0;
        for (; k < sizeof joined / sizeof joined[0]; k++)
            if (!strncmp(arg, joined[k], pl = strlen(joined[k])) && arg[pl])
                break;
        if (k < sizeof joined / sizeof joined[0]) {
            sb_add(&a, arg, pl);
            add_path(&a, arg + pl, &root);
        } else if (arg[0] != '-') {
            add_path(&a, arg, &root);
        } else {
            add_rooted(&a, arg, &root);
        }
        sv_push(&canon, sb_str(&a));
    }
    if (canon.n)
        qsort(canon.v, canon.n, sizeof *canon.v, cstr_cmp);
    struct sha256 s;
    unsigned char d[32];
    char hex[65];
    sha256_init(&s);
    sha256_update_str(&s, "shardcc-pipeline-2");
    for (size_t i = 0; i < canon.n; i++)
        sha256_update(&s, canon.v[i], strlen(canon.v[i]) + 1); /* with its NUL: a separator */
    sha256_final(&s, d);
    sha256_hex(d, hex);
    snprintf(name, TMPXFT_LEN + 1, "%s%.8s_%.8s", TMPXFT, hex, hex + 8);
    sv_clear(&canon);
    sb_release(&root);
    sb_release(&a);
}

/* Gives the depfile options to the host preprocessor step. */
static int add_depfile(struct dr_plan *plan, const struct depopts *d, struct strbuf *why)
{
    if (!d->gen)
        return 0;
    for (size_t i = 0; i < plan->n; i++) {
        struct dr_step *st = &plan->steps[i];
        if (st->tool != DR_HOST_CPP)
            continue;
        sv_push(&st->argv, d->gen);
        sv_push(&st->argv, "-MF");
        sv_push(&st->argv, d->file);
        if (d->target.n == 0) {
            sv_push(&st->argv, "-MT");
            sv_push(&st->argv, d->output);
        }
        sv_pushv(&st->argv, d->target.v, d->target.n);
        if (d->phony)
            sv_push(&st->argv, "-MP");
        return 0;
    }
    return fail(why, "%s, and the plan has no host preprocessor step to write it", d->gen);
}

/* Removes every file of the plan named after name, and the redirections' files. */
static void remove_temps(const struct dr_plan *plan, const char *name)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct dr_step *st = &plan->steps[i];
        const struct strvec *lists[2] = {&st->writes, &st->reads};
        for (int l = 0; l < 2; l++)
            for (size_t k = 0; k < lists[l]->n; k++)
                if (strstr(lists[l]->v[k], name))
                    plat_unlink(lists[l]->v[k]);
        if (st->stdout_path)
            plat_unlink(st->stdout_path);
        if (st->stderr_path)
            plat_unlink(st->stderr_path);
    }
}

static void copy_out(const char *path, FILE *to)
{
    struct strbuf sb = STRBUF_INIT;
    if (path && plat_read_file(path, &sb) == 0 && sb.len) {
        fwrite(sb.buf, 1, sb.len, to);
        fflush(to);
    }
    sb_release(&sb);
}

/* Runs one step: 0, or its exit status (a message when it could not be started). */
/* The salt of the module ids this call's steps write: the call's temporary name. */
static char module_salt[TMPXFT_LEN + 1];

static int is_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return n > 0;
}

/* A module id of cudafe++'s: _<h1: 8 hex>_<L>_<file name, L characters> then either
 * _<h2: 8 hex>_<its process id> (a TU with no external entity: template instantiations
 * only, static kernels only) or _<an external entity's mangled name>. h1 and h2 hash the
 * source's directory. *h2 is the offset of h2 (0 for the second form); 0 when id is not
 * such an id, else 1. */
static int parse_module_id(const char *id, size_t n, size_t *h2)
{
    *h2 = 0;
    if (n < 11 || id[0] != '_' || !is_hex8(id + 1) || id[9] != '_')
        return 0;
    char *end;
    unsigned long len = strtoul(id + 10, &end, 10);
    size_t at = (size_t)(end - id);
    if (end == id + 10 || *end != '_' || len > n || at + 1 + len + 1 > n)
        return 0;
    const char *p = id + at + 1 + len; /* _<hex8>_<pid>, or _<mangled name> */
    if (p[0] != '_')
        return 0;
    if ((size_t)(p - id) + 10 < n && is_hex8(p + 1) && p[9] == '_' &&
        is_digits(p + 10, n - (size_t)(p + 10 - id)))
        *h2 = (size_t)(p + 1 - id);
    return 1;
}

/* The seat's module id for cudafe++'s id[0..n) into to (1), or 0 to keep it: the process
 * id of the first form becomes a five-digit number from the call's temporary name (the
 * salt) and the id's part before it; with relocatable (jobs at different roots) its h2,
 * which hashes the preprocessed text's absolute paths, becomes hex digits of the salt.
 * (cicc reads such an id from the module id file: it cannot make up the process id.) */
static int module_id_rewrite(const char *id, size_t n, int relocatable, struct strbuf *to)
{
    size_t h2;
    if (!parse_module_id(id, n, &h2) || !h2)
        return 0;
    struct sha256 s;
    unsigned char d[32];
    char hex[65];
    sha256_init(&s);
    sha256_update_str(&s, "shardcc-module-id-1");
    sha256_update_str(&s, module_salt);
    sha256_update(&s, id, relocatable ? h2 : h2 + 8);
    sha256_final(&s, d);
    sha256_hex(d, hex);
    unsigned long v = ((unsigned long)d[0] << 16 | (unsigned long)d[1] << 8 | d[2]) % 90000;
    sb_add(to, id, h2);
    sb_add(to, relocatable ? hex + 8 : id + h2, 8);
    sb_addf(to, "_%lu", 10000 + v);
    return 1;
}

/* The temporaries belong to the job: nvcc names them in TMPDIR, which the seat sets to
 * ROOT/.shardcc/tmp for nvcc's plan and steps. Every job of a cell has the same path there
 * (objects built with -g name a temporary with its directory), and jobs that share /tmp
 * (several shards of one project side by side in their own mount namespaces, on a
 * self-hosted runner) do not share a directory, so they never wait on each other's locks. */
static void job_tmpdir(void)
{
    const char *r = getenv("SHARDCC_ROOT");
    if (!r || !*r)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "%s/.shardcc/tmp", r);
    if (plat_mkdir_p(sb_str(&t)) == 0)
        setenv("TMPDIR", sb_str(&t), 1);
    sb_release(&t);
}

/* With --relocatable (CCACHE_BASEDIR, jobs at different roots): cudafe++ and cicc hash
 * their --orig_src_path_name into the module id and into the names of a TU's static and
 * anonymous entities (__nv_static_<N>__<hash>_...), each on its own side, so the hashes
 * differ from root to root, and a split TU's device items from one root would not match
 * its host side at another. The seat gives both the source's path below the root instead,
 * the same at every root. */
static void relative_orig_paths(struct dr_plan *plan)
{
    const char *base = getenv("CCACHE_BASEDIR");
    struct strbuf root = STRBUF_INIT, real = STRBUF_INIT;
    if (!base || !*base || plat_realpath(base, &root) != 0) {
        sb_release(&root);
        return;
    }
    for (size_t i = 0; i < plan->n; i++) {
        struct dr_step *st = &plan->steps[i];
        if (st->tool != DR_CUDAFE && st->tool != DR_CICC)
            continue;
        for (size_t k = 0; k + 1 < st->argv.n; k++) {
            if (strcmp(st->argv.v[k], "--orig_src_path_name") != 0)
                continue;
            sb_reset(&real);
            const char *below = plat_realpath(st->argv.v[k + 1], &real) == 0
                                    ? path_under(sb_str(&root), sb_str(&real))
                                    : NULL;
            if (below && *below) {
                char *rel = xstrdup(below);
                free(st->argv.v[k + 1]);
                st->argv.v[k + 1] = rel;
            }
        }
    }
    sb_release(&root);
    sb_release(&real);
}

/* The first n-byte needle in hay (memmem, which not every C library has). */
static const char *find_bytes(const char *hay, size_t len, const char *needle, size_t n)
{
    for (const char *p = hay; n && (size_t)(hay + len - p) >= n;) {
        p = memchr(p, needle[0], (size_t)(hay + len - p) - n + 1);
        if (!p)
            return NULL;
        if (memcmp(p, needle, n) == 0)
            return p;
        p++;
    }
    return NULL;
}

/* Replaces every from with to in the file at path (a temporary of the plan). */
static int replace_in_file(const char *path, const char *from, const char *to)
{
    struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
    int e = plat_read_file_max(path, (size_t)1 << 30, &text);
    if (e) {
        sb_release(&text);
        return e == ENOENT ? 0 : e; /* a file the step did not write */
    }
    size_t nf = strlen(from), hits = 0;
    const char *p = text.buf, *end = text.buf + text.len;
    while (p < end) {
        const char *q = find_bytes(p, (size_t)(end - p), from, nf);
        if (!q) {
            sb_add(&out, p, (size_t)(end - p));
            break;
        }
        sb_add(&out, p, (size_t)(q - p));
        sb_adds(&out, to);
        p = q + nf;
        hits++;
    }
    if (hits)
        e = plat_write_atomic(path, out.buf ? out.buf : "", out.len);
    sb_release(&text);
    sb_release(&out);
    return e;
}

/* After a step that wrote the module id (--gen_module_id_file): the seat's id
 * (module_id_rewrite) in the module id file and in every other file the step wrote
 * (cudafe++'s .cudafe1.cpp names its anonymous namespace after the id, its stub defines
 * it), before any step reads them. The id is then the same in every run and every job, as
 * the temporaries' names are. */
static int fix_module_id(const struct dr_step *st)
{
    const char *mod = NULL;
    int gen = 0;
    for (size_t i = 0; i < st->argv.n; i++) {
        if (!strcmp(st->argv.v[i], "--gen_module_id_file"))
            gen = 1;
        else if (!strcmp(st->argv.v[i], "--module_id_file_name") && i + 1 < st->argv.n)
            mod = st->argv.v[i + 1];
    }
    if (!gen || !mod)
        return 0;
    const char *base = getenv("CCACHE_BASEDIR");
    struct strbuf id = STRBUF_INIT, to = STRBUF_INIT;
    int e = plat_read_file_max(mod, 4096, &id);
    if (!e && module_id_rewrite(id.buf, id.len, base && *base, &to)) {
        for (size_t i = 0; i < st->writes.n && !e; i++)
            e = replace_in_file(st->writes.v[i], sb_str(&id), sb_str(&to));
        if (e)
            fprintf(stderr, "shardcc: nvcc seat: cannot rewrite the module id %s: %s\n",
                    sb_str(&id), strerror(e));
    }
    sb_release(&id);
    sb_release(&to);
    return e ? 1 : 0;
}

static int run_step(const struct dr_step *st)
{
    struct strbuf path = STRBUF_INIT;
    int status;
    if (plat_find_in_path(st->argv.v[0], &path) != 0) {
        fprintf(stderr, "shardcc: nvcc seat: %s (%s, line %u of nvcc's plan) was not found\n",
                st->argv.v[0], dr_tool_name(st->tool), st->line);
        status = 1;
    } else {
        fflush(stdout);
        fflush(stderr);
        status = plat_spawn_wait_redirect(sb_str(&path), st->argv.v, plat_environ(),
                                          st->stdout_path, st->stderr_path);
        if (status < 0) {
            fprintf(stderr, "shardcc: nvcc seat: cannot run %s: %s\n", sb_str(&path),
                    strerror(errno));
            status = 1;
        }
        copy_out(st->stdout_path, stdout);
        copy_out(st->stderr_path, stderr);
        if (status == 0)
            status = fix_module_id(st);
    }
    sb_release(&path);
    return status;
}

/* What the device items' children need. */
struct schedule {
    const struct dr_plan *plan;
    const struct dr_split *split;
};

/* Runs the steps of device item i, in order (a child of plat_run_parallel). */
static int run_item(void *ctx, size_t i)
{
    const struct schedule *s = ctx;
    const struct dr_item *it = &s->split->items[i];
    for (size_t k = 0; k < it->n; k++) {
        int st = run_step(&s->plan->steps[it->steps[k]]);
        if (st)
            return st;
    }
    return 0;
}

/* The steps around n device items: the host item's steps before the first cicc (the
 * preprocessor, cudafe++, which writes the module id), the items through fn, threads at
 * once (0: one per processor), then when back is set the host steps after it (fatbinary,
 * the host compile). host may be NULL (no host step). The first failing status. */
static int run_around_items(const struct dr_plan *plan, const struct dr_item *host, size_t n,
                            long threads, int (*fn)(void *ctx, size_t i), void *ctx, int back)
{
    size_t first_cicc = plan->n;
    for (size_t i = 0; i < plan->n && first_cicc == plan->n; i++)
        if (plan->steps[i].tool == DR_CICC)
            first_cicc = i;
    int status = 0;
    for (size_t k = 0; host && k < host->n && status == 0; k++)
        if (host->steps[k] < first_cicc)
            status = run_step(&plan->steps[host->steps[k]]);
    if (status == 0 && n) {
        long max = threads > 0 ? threads : plat_processors();
        status = plat_run_parallel(n, (size_t)max, fn, ctx);
        if (status < 0) {
            fprintf(stderr, "shardcc: nvcc seat: cannot start the device steps: %s\n",
                    strerror(errno));
            status = 1;
        }
    }
    for (size_t k = 0; back && host && k < host->n && status == 0; k++)
        if (host->steps[k] > first_cicc)
            status = run_step(&plan->steps[host->steps[k]]);
    return status;
}

/* Runs the steps, one after the other in the plan's order; under --threads N the device
 * items (dryrun.h) run N at once, between the host steps they need (the preprocessor and
 * cudafe++, which writes the module id) and the host steps that need them. */
/* o->items: the split's device items (not "host"), named, in plan order. */
static void device_items(const struct dr_split *split, struct pipeline_opts *o)
{
    o->items = xmalloc((split->n ? split->n : 1) * sizeof *o->items);
    memset(o->items, 0, (split->n ? split->n : 1) * sizeof *o->items);
    o->n = 0;
    for (size_t i = 0; i < split->n; i++)
        if (strcmp(split->items[i].name, "host") != 0) {
            struct split_item *r = &o->items[o->n++];
            snprintf(r->name, sizeof r->name, "%s", split->items[i].name);
            snprintf(r->real, sizeof r->real, "%s", split->items[i].real);
        }
}

/* The device items of a whole compile, each with the wall time its steps took (step_us, by
 * step), into o->items with outcome "whole": what shardcc plan takes as the items' costs,
 * so that a plan can split a TU that no shard has split yet. */
static void whole_items(const struct dr_split *split, const uint64_t *step_us,
                        struct pipeline_opts *o)
{
    device_items(split, o);
    for (size_t i = 0, q = 0; i < split->n; i++) {
        const struct dr_item *it = &split->items[i];
        if (strcmp(it->name, "host") == 0)
            continue;
        struct split_item *r = &o->items[q++];
        snprintf(r->outcome, sizeof r->outcome, "whole");
        for (size_t k = 0; k < it->n; k++)
            r->us += step_us[it->steps[k]];
    }
}

static int run_steps(const struct dr_plan *plan, long threads, struct pipeline_opts *o)
{
    struct dr_split split = {0};
    struct strbuf ignore = STRBUF_INIT;
    size_t devices = 0;
    /* the items are independent when the module id comes from the host side */
    int items_ok = dr_split_plan(plan, &split, &ignore) == 0 && split.module_id_from &&
                   strcmp(split.module_id_from, "host") == 0;
    if (items_ok)
        for (size_t i = 0; i < split.n; i++)
            devices += strcmp(split.items[i].name, "host") != 0;
    sb_release(&ignore);
    int status = 0;
    if (devices < 2 || threads == 1) {
        uint64_t *step_us = xmalloc((plan->n ? plan->n : 1) * sizeof *step_us);
        memset(step_us, 0, (plan->n ? plan->n : 1) * sizeof *step_us);
        for (size_t i = 0; i < plan->n && status == 0; i++)
            if (plan->steps[i].tool != DR_RM) { /* the temporaries go at the end, all of them */
                uint64_t t0 = plat_monotonic_us();
                status = run_step(&plan->steps[i]);
                step_us[i] = plat_monotonic_us() - t0;
            }
        if (status == 0 && o && o->mode == PIPELINE_WHOLE && devices >= 2)
            whole_items(&split, step_us, o);
        free(step_us);
    } else {
        const struct dr_item *host =
            strcmp(split.items[split.n - 1].name, "host") == 0 ? &split.items[split.n - 1] : NULL;
        struct schedule s = {plan, &split};
        status = run_around_items(plan, host, devices, threads, run_item, &s, 1);
    }
    dr_split_clear(&split);
    return status;
}

/* Sets the plan's environment lines (PATH with the toolkit's directories, CICC_PATH,
 * NVVMIR_LIBRARY_DIR, ...) for its steps; the old environment into saved. */
static void plan_env(const struct dr_plan *plan, struct strvec *saved)
{
    plat_env_save(saved);
    for (size_t i = 0; i < plan->env.n; i++) {
        const char *e = plan->env.v[i], *eq = strchr(e, '=');
        if (eq[1] && !strpbrk(eq + 1, " \t\"'\\$")) {
            char *name = xstrndup(e, (size_t)(eq - e));
            setenv(name, eq + 1, 1);
            free(name);
        }
    }
}

/* The directory the plan's temporaries are in (where its first one is written), with a
 * trailing slash, or "" for the working directory; -1 when no step writes one. */
static int temp_dir(const struct dr_plan *plan, const char *name, struct strbuf *out)
{
    for (size_t i = 0; i < plan->n; i++)
        for (size_t k = 0; k < plan->steps[i].writes.n; k++) {
            const char *w = plan->steps[i].writes.v[k];
            if (strstr(w, name)) {
                const char *slash = strrchr(w, '/');
                if (slash)
                    sb_add(out, w, (size_t)(slash - w + 1));
                return 0;
            }
        }
    return -1;
}

/* The seat's shard and item numbers of a split (pipeline_opts): whether the plan names the
 * TU whole (no split), its items (a split, and their owners), or neither. */
static int plan_names(const struct pipeline_opts *o, const char *name)
{
    if (!o->plan || !o->key)
        return 0;
    struct strbuf k = STRBUF_INIT;
    sb_adds(&k, o->key);
    if (name)
        sb_addf(&k, "%c%s", SPLIT_ITEM_SEP, name);
    int owner = plan_owner(o->plan, o->plan_len, sb_str(&k));
    sb_release(&k);
    return owner;
}

/* Whether the TU is split, and its device items' owners into o->items. */
static int decide_split(struct pipeline_opts *o, const struct dr_split *split)
{
    size_t devices = 0, named = 0;
    for (size_t i = 0; i < split->n; i++)
        if (strcmp(split->items[i].name, "host") != 0) {
            devices++;
            named += plan_names(o, split->items[i].name) != 0;
        }
    if (o->mode != PIPELINE_ASSEMBLE) { /* the link job follows the shards' marker */
        if (devices < 2 || plan_names(o, NULL))
            return 0; /* one item, or the plan keeps the TU whole */
        if (!named && (o->min_archs <= 0 || split_real_count(split) < (size_t)o->min_archs))
            return 0;
    }
    device_items(split, o);
    for (size_t i = 0, q = 0; i < split->n && o->mode != PIPELINE_ASSEMBLE; i++) {
        const struct dr_item *it = &split->items[i];
        if (strcmp(it->name, "host") == 0)
            continue;
        struct split_item *r = &o->items[q++];
        r->owner = plan_names(o, it->name);
        if (!r->owner) /* round robin from the TU's own shard, in the items' name order */
            r->owner = split_item_owner(o->key ? o->key : "", split_item_rank(split, i),
                                        o->count > 0 ? o->count : 1);
        snprintf(r->outcome, sizeof r->outcome, "%s", r->owner == o->shard ? "" : "other");
    }
    return 1;
}

/* What one device item's child needs. */
struct item_job {
    const struct dr_plan *plan;
    const struct dr_split *split;
    struct pipeline_opts *o;
    const char *tmpdir, *name;
    size_t *index; /* the split's index of each of o->items */
};

/* The file where the child of item i leaves its result ("outcome key us"). */
static void result_path(const struct item_job *j, size_t i, struct strbuf *out)
{
    sb_reset(out);
    sb_addf(out, "%s%s.item%zu", j->tmpdir, j->name, i);
}

/* A device item of a split TU (a child of plat_run_parallel): its preprocessor step, its key,
 * then in a shard its cicc and ptxas and the store's entry (unless there already), in the link
 * job the entry's files (or, missing, its cicc and ptxas). */
static int run_split_item(void *ctx, size_t i)
{
    const struct item_job *j = ctx;
    struct split_item *r = &j->o->items[i];
    const struct dr_item *it = &j->split->items[j->index[i]];
    uint64_t t0 = plat_monotonic_us();
    struct strbuf err = STRBUF_INIT, entry = STRBUF_INIT, blob = STRBUF_INIT;
    struct strvec exports = STRVEC_INIT;
    const char *outcome = "failed";
    int st = 0;
    size_t k = 0;
    for (; k < it->n && j->plan->steps[it->steps[k]].tool == DR_DEVICE_CPP && !st; k++)
        st = run_step(&j->plan->steps[it->steps[k]]);
    if (st)
        goto out;
    int e = split_item_key_parts(j->plan, j->split, j->index[i], j->tmpdir, r->key, r->parts, &err);
    if (e) {
        fprintf(stderr, "shardcc: nvcc seat: cannot read %s for the key of item %s: %s\n",
                sb_str(&err), r->name, plat_strerror(e));
        st = 1;
        goto out;
    }
    devcode_entry_path(j->o->store, r->key, &entry);
    devcode_store_seed(r->key, sb_str(&entry)); /* a warm start's item, if the store lacks it */
    split_item_exports(j->plan, j->split, j->index[i], &exports);
    if (j->o->mode == PIPELINE_ITEMS && plat_file_exists(sb_str(&entry))) {
        outcome = "present";
        goto out;
    }
    if (j->o->mode == PIPELINE_ASSEMBLE &&
        plat_read_file_max(sb_str(&entry), DEVCODE_FILE_MAX, &blob) == 0) {
        e = split_unpack(blob.buf, blob.len, &exports, &err);
        if (e == 0) {
            outcome = "hit";
            goto out;
        }
        fprintf(stderr,
                "shardcc: nvcc seat: item %s of %s: the store's entry %s: %s%s%s; "
                "compiling it here\n",
                sb_str(&entry), r->name, j->o->key ? j->o->key : "?", sb_str(&err),
                e > 0 ? ": " : "", e > 0 ? plat_strerror(e) : "");
        sb_reset(&err);
    }
    for (; k < it->n && !st; k++)
        st = run_step(&j->plan->steps[it->steps[k]]);
    if (st)
        goto out;
    if (j->o->mode == PIPELINE_ASSEMBLE) {
        outcome = "miss";
        goto out;
    }
    sb_reset(&blob);
    e = split_pack(&exports, &blob, &err);
    if (!e)
        e = devcode_store_put(sb_str(&entry), blob.buf, blob.len);
    if (e) {
        fprintf(stderr, "shardcc: nvcc seat: cannot store item %s of %s as \"%s\": %s%s%s\n",
                r->name, j->o->key ? j->o->key : "?", sb_str(&entry), sb_str(&err),
                err.len ? ": " : "", plat_strerror(e));
        st = 4; /* EXIT_IO */
    } else {
        outcome = "stored";
    }
out:;
    struct strbuf res = STRBUF_INIT, path = STRBUF_INIT;
    result_path(j, i, &path);
    sb_addf(&res, "%s %s %llu %s\n", outcome, r->key[0] ? r->key : "-",
            (unsigned long long)(plat_monotonic_us() - t0), r->parts[0] ? r->parts : "-");
    plat_write_atomic(sb_str(&path), res.buf, res.len);
    sb_release(&res);
    sb_release(&path);
    sb_release(&err);
    sb_release(&entry);
    sb_release(&blob);
    sv_clear(&exports);
    return st;
}

/* Reads back what item i's child left (its result file, then removed). */
static void item_result(const struct item_job *j, size_t i)
{
    struct split_item *r = &j->o->items[i];
    struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
    result_path(j, i, &path);
    char outcome[16] = "", key[65] = "", parts[SPLIT_PARTS_LEN + 1] = "";
    unsigned long long us = 0;
    if (plat_read_file(sb_str(&path), &text) == 0 &&
        sscanf(sb_str(&text), "%15s %64s %llu %26s", outcome, key, &us, parts) >= 3) {
        snprintf(r->outcome, sizeof r->outcome, "%s", outcome);
        if (strcmp(key, "-") != 0)
            memcpy(r->key, key, sizeof key);
        if (parts[0] && strcmp(parts, "-") != 0)
            memcpy(r->parts, parts, sizeof parts);
        r->us = us;
    } else {
        snprintf(r->outcome, sizeof r->outcome, "failed");
    }
    plat_unlink(sb_str(&path));
    sb_release(&path);
    sb_release(&text);
}

/* Child k of plat_run_parallel runs item mine[k]. */
struct pick {
    const struct item_job *j;
    const size_t *mine;
};

static int run_picked(void *ctx, size_t k)
{
    const struct pick *p = ctx;
    return run_split_item((void *)p->j, p->mine[k]);
}

/* A split TU's steps: the host side's front (preprocessor, cudafe++), the device items this
 * job runs (a shard: the ones it owns; the link job: every one, from the store where it can),
 * N at once under --threads N, then in the link job the rest of the host side. */
static int run_split(const struct dr_plan *plan, const struct dr_split *split,
                     struct pipeline_opts *o, long threads, const char *tmpdir, const char *name)
{
    size_t *index = xmalloc((o->n ? o->n : 1) * sizeof *index), *mine = NULL, nmine = 0;
    for (size_t i = 0, d = 0; i < split->n; i++)
        if (strcmp(split->items[i].name, "host") != 0)
            index[d++] = i;
    mine = xmalloc((o->n ? o->n : 1) * sizeof *mine);
    for (size_t i = 0; i < o->n; i++)
        if (o->mode == PIPELINE_ASSEMBLE || o->items[i].owner == o->shard)
            mine[nmine++] = i;
    struct item_job j = {plan, split, o, tmpdir, name, index};
    struct pick pick = {&j, mine};
    int status = run_around_items(plan, &split->items[split->n - 1], nmine, threads, run_picked,
                                  &pick, o->mode == PIPELINE_ASSEMBLE);
    for (size_t k = 0; k < nmine; k++)
        item_result(&j, mine[k]);
    free(index);
    free(mine);
    return status;
}

/* nvcc's plan of the call nvcc ARGS (output: its -o), read from nvcc -dryrun, with every
 * temporary named name (call_temp_name; the module ids' salt too) in the job's temporary
 * directory. 0, or PIPELINE_FALLBACK or PIPELINE_AS_IS with why. */
static int call_plan(const char *nvcc, const struct strvec *args, const char *output,
                     char name[TMPXFT_LEN + 1], struct dr_plan *plan, struct strbuf *why)
{
    call_temp_name(args, output, name);
    memcpy(module_salt, name, sizeof module_salt);
    job_tmpdir();
    struct strvec dry = STRVEC_INIT;
    struct strbuf text = STRBUF_INIT;
    sv_push(&dry, nvcc);
    sv_push(&dry, "-dryrun");
    sv_pushv(&dry, args->v, args->n);
    int e = plat_run_capture_fd(sv_argv(&dry), 2, &text); /* the plan is on its stderr */
    if (e != 0)
        e = fail(why, "nvcc -dryrun exited %d", e);
    else if ((e = rename_temps(text.buf, name, why)) == 0 &&
             dr_parse(sb_str(&text), plan, why) != 0)
        e = PIPELINE_FALLBACK;
    sv_clear(&dry);
    sb_release(&text);
    return e;
}

int pipeline_run_opts(const char *nvcc, int argc, char **argv, struct pipeline_opts *o,
                      struct strbuf *why)
{
    struct strvec args = STRVEC_INIT;
    struct depopts d = {NULL, NULL, STRVEC_INIT, 0, NULL, 1};
    struct strbuf lock = STRBUF_INIT;
    struct dr_plan plan = {0};
    struct dr_split split = {0};
    int rc = PIPELINE_FALLBACK, lock_fd = -1, e = 0, split_ok = 0;
    char name[TMPXFT_LEN + 1];
    if (plan_args(argc, argv, &args, &d, why) != 0)
        goto out;
    e = call_plan(nvcc, &args, d.output, name, &plan, why);
    if (e != 0) {
        rc = e;
        goto out;
    }
    relative_orig_paths(&plan);
    if (o->mode != PIPELINE_WHOLE) {
        struct strbuf ignore = STRBUF_INIT;
        split_ok = dr_split_plan(&plan, &split, &ignore) == 0 && split.n > 1 &&
                   split.module_id_from && strcmp(split.module_id_from, "host") == 0 &&
                   strcmp(split.items[split.n - 1].name, "host") == 0;
        sb_release(&ignore);
        if (o->mode != PIPELINE_ASSEMBLE && (!split_ok || !decide_split(o, &split))) {
            rc = PIPELINE_UNSPLIT;
            goto out;
        }
        if (o->mode == PIPELINE_ASSEMBLE && split_ok)
            decide_split(o, &split);
        o->split = split_ok;
        if (o->mode == PIPELINE_DECIDE) {
            rc = 0;
            goto out;
        }
        if (o->mode == PIPELINE_ITEMS) {
            size_t mine = 0;
            for (size_t i = 0; i < o->n; i++)
                mine += o->items[i].owner == o->shard;
            if (!mine) {
                rc = 0;
                goto out;
            }
        }
    }
    /* a shard's split TU writes no object, so no depfile either (the stub's is empty) */
    if (o->mode != PIPELINE_ITEMS && add_depfile(&plan, &d, why) != 0)
        goto out;
    if (temp_dir(&plan, name, &lock) != 0) {
        fail(why, "no step of the plan writes a temporary");
        goto out;
    }
    struct strbuf tmpdir = STRBUF_INIT;
    sb_adds(&tmpdir, sb_str(&lock));
    sb_addf(&lock, "%s.lock", name);
    e = plat_lock_patient(sb_str(&lock), &lock_fd, 10, "shardcc: nvcc seat",
                          "a compile with the same arguments (its temporaries' names) runs "
                          "in this job's temporary directory");
    if (e) {
        fail(why, "cannot lock %s: %s", sb_str(&lock), plat_strerror(e));
        sb_release(&tmpdir);
        goto out;
    }
    struct strvec saved = STRVEC_INIT;
    plan_env(&plan, &saved);
    if (o->mode == PIPELINE_WHOLE || (o->mode == PIPELINE_ASSEMBLE && !split_ok))
        rc = run_steps(&plan, d.threads, o);
    else
        rc = run_split(&plan, &split, o, d.threads, sb_str(&tmpdir), name);
    plat_env_restore(&saved);
    sv_clear(&saved);
    remove_temps(&plan, name);
    plat_unlock_remove(sb_str(&lock), lock_fd);
    sb_release(&tmpdir);
out:
    dr_split_clear(&split);
    dr_plan_clear(&plan);
    sv_clear(&args);
    sv_clear(&d.target);
    sb_release(&lock);
    return rc;
}

int pipeline_run(const char *nvcc, int argc, char **argv, struct strbuf *why)
{
    struct pipeline_opts o;
    memset(&o, 0, sizeof o);
    o.mode = PIPELINE_WHOLE;
    int rc = pipeline_run_opts(nvcc, argc, argv, &o, why);
    free(o.items);
    return rc;
}

int pipeline_split_marked(const char *store, const char *tu_key, const char *output,
                          struct strbuf *marker)
{
    char name[TMPXFT_LEN + 1], key[65];
    output_name(output, name);
    split_marker_key(tu_key, name, key);
    devcode_entry_path(store, key, marker);
    return plat_file_exists(sb_str(marker));
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int pipeline_split_mark(const char *store, const char *tu_key, const char *output,
                        const struct pipeline_opts *o, struct strbuf *err)
{
    struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
    pipeline_split_marked(store, tu_key, output, &path);
    sb_adds(&text, SPLIT_MARK_TAG "\n");
    /* in name order: nvcc --threads N -dryrun lists a TU's device items in a different order
     * from run to run, and every owner of an item writes this marker (the link job's merge
     * compares the copies byte for byte) */
    const char **names = xmalloc((o->n ? o->n : 1) * sizeof *names);
    for (size_t i = 0; i < o->n; i++)
        names[i] = o->items[i].name;
    qsort(names, o->n, sizeof *names, cmp_name);
    for (size_t i = 0; i < o->n; i++)
        sb_addf(&text, "%s\n", names[i]);
    free(names);
    int e = devcode_store_put(sb_str(&path), text.buf, text.len);
    if (e)
        sb_adds(err, sb_str(&path));
    sb_release(&path);
    sb_release(&text);
    return e;
}

int pipeline_compiles(int argc, char **argv)
{
    int compile = 0;
    for (int i = 0; i < argc; i++) {
        const char *value = NULL;
        const struct opt *o = argv[i][0] == '-' ? opt_match(&nvcc_options, argv[i], &value) : NULL;
        if (!o)
            continue;
        if (o->flags & (OPT_INFO | OPT_NONTU | OPT_DLINK))
            return 0;
        if (!strcmp(o->name, "--objdir-as-tempdir") || !strcmp(o->name, "-objtemp"))
            return 0; /* named already */
        compile |= (o->flags & OPT_COMPILE) != 0;
        if (opt_takes_next(o, value) && i + 1 < argc)
            i++;
    }
    return compile;
}

int pipeline_links(int argc, char **argv)
{
    int inputs = 0;
    for (int i = 0; i < argc; i++) {
        const char *value = NULL, *a = argv[i];
        if (a[0] != '-') {
            size_t n = strlen(a);
            if (n > 2 && (!strcmp(a + n - 2, ".o") || !strcmp(a + n - 2, ".a")))
                inputs++;
            else if (!(n > 3 && !strcmp(a + n - 3, ".so")))
                return 0; /* a source (compile and link in one call), or something else */
            continue;
        }
        const struct opt *o = opt_match(&nvcc_options, a, &value);
        if (!o)
            continue;
        if (o->flags & (OPT_INFO | OPT_COMPILE))
            return 0;
        if ((o->flags & OPT_NONTU) && !(o->flags & OPT_DLINK) && strcmp(o->name, "--link") &&
            strcmp(o->name, "-link"))
            return 0; /* -lib (ar: no temporaries), -E, -ptx, -run... */
        if (!strcmp(o->name, "--objdir-as-tempdir") || !strcmp(o->name, "-objtemp"))
            return 0;
        if (opt_takes_next(o, value) && i + 1 < argc)
            i++; /* its value (the output, a library directory) is no input */
    }
    return inputs > 0;
}

int pipeline_run_link(const char *nvcc, int argc, char **argv, struct strbuf *why)
{
    struct strvec args = STRVEC_INIT;
    struct strbuf lock = STRBUF_INIT, tmpdir = STRBUF_INIT;
    struct dr_plan plan = {0};
    int rc = PIPELINE_FALLBACK, lock_fd = -1;
    const char *output = "a.out";
    for (int i = 0; i < argc && argv[i]; i++) {
        const char *value = NULL;
        const struct opt *o = argv[i][0] == '-' ? opt_match(&nvcc_options, argv[i], &value) : NULL;
        if (o && (o->flags & OPT_OUTPUT)) {
            if (opt_takes_next(o, value) && i + 1 < argc)
                value = argv[i + 1];
            if (value)
                output = value;
        }
        sv_push(&args, argv[i]);
    }
    char name[TMPXFT_LEN + 1];
    int e = call_plan(nvcc, &args, output, name, &plan, why);
    if (e != 0) {
        rc = e;
        goto out;
    }
    if (temp_dir(&plan, name, &tmpdir) != 0) {
        fail(why, "no step of the plan writes a temporary");
        goto out;
    }
    sb_addf(&lock, "%s%s.lock", sb_str(&tmpdir), name);
    e = plat_lock_patient(sb_str(&lock), &lock_fd, 10, "shardcc: nvcc seat",
                          "a link with the same arguments runs in this job's temporary directory");
    if (e) {
        fail(why, "cannot lock %s: %s", sb_str(&lock), plat_strerror(e));
        goto out;
    }
    struct strvec saved = STRVEC_INIT;
    plan_env(&plan, &saved);
    rc = run_steps(&plan, 1, NULL);
    plat_env_restore(&saved);
    sv_clear(&saved);
    remove_temps(&plan, name);
    plat_unlock_remove(sb_str(&lock), lock_fd);
out:
    dr_plan_clear(&plan);
    sv_clear(&args);
    sb_release(&lock);
    sb_release(&tmpdir);
    return rc;
}

void pipeline_fallback(const char *why, struct strvec *argv)
{
    fprintf(stderr, "shardcc: nvcc seat: note: %s: nvcc runs whole, with --objdir-as-tempdir\n",
            why);
    sv_push(argv, "--objdir-as-tempdir");
}

int pipeline_main(const char *nvcc, int argc, char **argv)
{
    struct strbuf why = STRBUF_INIT;
    struct pipeline_opts o;
    memset(&o, 0, sizeof o);
    o.mode = PIPELINE_WHOLE;
    int rc = pipeline_run_opts(nvcc, argc, argv, &o, &why);
    /* the device items' times, for the seat that ran ccache (its journal's item lines) */
    const char *note = getenv(PIPELINE_NOTE_ENV);
    if (rc == 0 && o.n && note && *note) {
        struct strbuf line = STRBUF_INIT;
        for (size_t i = 0; i < o.n; i++)
            sb_addf(&line, "item\t%s\t%s\t%" PRIu64 "\n", o.items[i].name, o.items[i].real,
                    o.items[i].us);
        plat_append_record(note, line.buf, line.len);
        sb_release(&line);
    }
    free(o.items);
    if (rc >= 0)
        return rc;
    /* not run here: nvcc whole, reproducible by its own option when it compiles */
    struct strvec v = STRVEC_INIT;
    sv_push(&v, nvcc);
    for (int i = 0; i < argc; i++)
        sv_push(&v, argv[i]);
    if (rc == PIPELINE_FALLBACK && pipeline_compiles(argc, argv)) {
        pipeline_fallback(sb_str(&why), &v);
        const char *note = getenv(PIPELINE_NOTE_ENV);
        if (note && *note) {
            struct strbuf line = STRBUF_INIT;
            sb_adds(&line, "fallback\t");
            sb_add_printable(&line, sb_str(&why));
            sb_addc(&line, '\n');
            plat_append_record(note, line.buf, line.len);
            sb_release(&line);
        }
    }
    unsetenv(PIPELINE_NOTE_ENV);
    plat_exec(nvcc, sv_argv(&v), plat_environ());
    fprintf(stderr, "shardcc: nvcc seat: cannot run %s: %s\n", nvcc, strerror(errno));
    return 1;
}
