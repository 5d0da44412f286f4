/* pipeline: an nvcc compile run as nvcc's own steps with the seat's names (pipeline.h). */
#include "pipeline.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dryrun.h"
#include "options.h"
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

static int fail(struct strbuf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
        int has_next = o->flags & OPT_ARG && !value && !(o->flags & OPT_EQ_ONLY) && i + 1 < argc;
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

/* tmpxft_<h1>_<h2> from the output's path: below the project root (SHARDCC_ROOT) where it
 * is there, so that the names do not depend on where the project is; else absolute. The
 * same in every phase whatever order ccache gives the arguments in, and two calls at once
 * share it only when they write the same file. */
static void temp_name(const char *output, char name[TMPXFT_LEN + 1])
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

/* Runs the steps, one after the other in the plan's order; under --threads N the device
 * items (dryrun.h) run N at once, between the host steps they need (the preprocessor and
 * cudafe++, which writes the module id) and the host steps that need them. */
static int run_steps(const struct dr_plan *plan, long threads)
{
    struct strvec saved = STRVEC_INIT;
    plat_env_save(&saved);
    for (size_t i = 0; i < plan->env.n; i++) {
        const char *e = plan->env.v[i], *eq = strchr(e, '=');
        if (eq[1] && !strpbrk(eq + 1, " \t\"'\\$")) {
            char *name = xstrndup(e, (size_t)(eq - e));
            setenv(name, eq + 1, 1);
            free(name);
        }
    }
    struct dr_split split = {0};
    struct strbuf ignore = STRBUF_INIT;
    size_t devices = 0;
    /* the items are independent when the module id comes from the host side */
    if (threads != 1 && dr_split_plan(plan, &split, &ignore) == 0 && split.module_id_from &&
        strcmp(split.module_id_from, "host") == 0)
        for (size_t i = 0; i < split.n; i++)
            devices += strcmp(split.items[i].name, "host") != 0;
    sb_release(&ignore);
    int status = 0;
    if (devices < 2) {
        for (size_t i = 0; i < plan->n && status == 0; i++)
            if (plan->steps[i].tool != DR_RM) /* the temporaries go at the end, all of them */
                status = run_step(&plan->steps[i]);
    } else {
        /* host steps before the first cicc (preprocessor, cudafe++), the device items, the
         * rest of the host steps (fatbinary, the host compile) */
        const struct dr_item *host =
            strcmp(split.items[split.n - 1].name, "host") == 0 ? &split.items[split.n - 1] : NULL;
        size_t first_cicc = plan->n;
        for (size_t i = 0; i < plan->n && first_cicc == plan->n; i++)
            if (plan->steps[i].tool == DR_CICC)
                first_cicc = i;
        for (size_t k = 0; host && k < host->n && status == 0; k++)
            if (host->steps[k] < first_cicc)
                status = run_step(&plan->steps[host->steps[k]]);
        if (status == 0) {
            long max = threads > 0 ? threads : plat_processors();
            struct schedule s = {plan, &split};
            status = plat_run_parallel(devices, (size_t)max, run_item, &s);
            if (status < 0) {
                fprintf(stderr, "shardcc: nvcc seat: cannot start the device steps: %s\n",
                        strerror(errno));
                status = 1;
            }
        }
        for (size_t k = 0; host && k < host->n && status == 0; k++)
            if (host->steps[k] > first_cicc)
                status = run_step(&plan->steps[host->steps[k]]);
    }
    dr_split_clear(&split);
    plat_env_restore(&saved);
    sv_clear(&saved);
    return status;
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

int pipeline_run(const char *nvcc, int argc, char **argv, struct strbuf *why)
{
    struct strvec args = STRVEC_INIT, dry = STRVEC_INIT;
    struct depopts d = {NULL, NULL, STRVEC_INIT, 0, NULL, 1};
    struct strbuf text = STRBUF_INIT, lock = STRBUF_INIT;
    struct dr_plan plan = {0};
    int rc = PIPELINE_FALLBACK, lock_fd = -1, e = 0;
    char name[TMPXFT_LEN + 1];
    if (plan_args(argc, argv, &args, &d, why) != 0)
        goto out;
    temp_name(d.output, name);
    /* nvcc's plan, on its stderr */
    sv_push(&dry, nvcc);
    sv_push(&dry, "-dryrun");
    sv_pushv(&dry, args.v, args.n);
    int st = plat_run_capture_fd(sv_argv(&dry), 2, &text);
    if (st != 0) {
        fail(why, "nvcc -dryrun exited %d", st);
        goto out;
    }
    e = rename_temps(text.buf, name, why);
    if (e != 0) {
        rc = e;
        goto out;
    }
    if (dr_parse(sb_str(&text), &plan, why) != 0 || add_depfile(&plan, &d, why) != 0)
        goto out;
    if (temp_dir(&plan, name, &lock) != 0) {
        fail(why, "no step of the plan writes a temporary");
        goto out;
    }
    sb_addf(&lock, "%s.lock", name);
    e = plat_lock(sb_str(&lock), &lock_fd);
    if (e) {
        fail(why, "cannot lock %s: %s", sb_str(&lock), plat_strerror(e));
        goto out;
    }
    rc = run_steps(&plan, d.threads);
    remove_temps(&plan, name);
    plat_unlock_remove(sb_str(&lock), lock_fd);
out:
    dr_plan_clear(&plan);
    sv_clear(&args);
    sv_clear(&dry);
    sv_clear(&d.target);
    sb_release(&text);
    sb_release(&lock);
    return rc;
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
        if (o->flags & OPT_ARG && !value && !(o->flags & OPT_EQ_ONLY) && i + 1 < argc)
            i++;
    }
    return compile;
}

int pipeline_main(const char *nvcc, int argc, char **argv)
{
    struct strbuf why = STRBUF_INIT;
    int rc = pipeline_run(nvcc, argc, argv, &why);
    if (rc >= 0)
        return rc;
    /* not run here: nvcc whole, reproducible by its own option when it compiles */
    struct strvec v = STRVEC_INIT;
    sv_push(&v, nvcc);
    for (int i = 0; i < argc; i++)
        sv_push(&v, argv[i]);
    if (rc == PIPELINE_FALLBACK && pipeline_compiles(argc, argv)) {
        fprintf(stderr, "shardcc: nvcc seat: note: %s: nvcc runs whole, with --objdir-as-tempdir\n",
                sb_str(&why));
        sv_push(&v, "--objdir-as-tempdir");
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
