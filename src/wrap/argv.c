/* argv: the canonical argument vector. Expands options files (nvcc: --options-file F,
 * --options-file=F, -optf F, comma-separated lists; gcc/clang: @F) in place and
 * recursively up to a depth limit, folds NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS in, and
 * respells the long depfile options ccache cannot cache. Shards and link job run this
 * same code, so their ccache keys match. */
#include "argv.h"
#include "path.h"
#include "platform.h"
#include "rsp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RSP_MAX_DEPTH 16
#define RSP_MAX_BYTES (64u << 20)
/* All options files of one call together (a file naming the next one ten times stays
 * within the depth limit and would expand without end): files read, and the bytes of the
 * arguments they hold. */
#define RSP_MAX_FILES 4096
#define RSP_MAX_TOTAL_BYTES (64u << 20)

struct canon {
    const struct opt_table *table;
    enum seat seat;
    const char *cwd;
    struct strvec *out;
    struct strbuf *err;
    size_t files, bytes; /* options files read so far, and their arguments' bytes */
    int msvc;            /* cl's options ('/' for '-') and @file syntax */
};

static int expand(struct canon *c, int argc, char *const *argv, int depth, const char *from);

int options_file_read(const char *cwd, const char *file, int depth, const char *from,
                      enum rsp_syntax syntax, struct strvec *args, struct strbuf *err)
{
    if (depth >= RSP_MAX_DEPTH) {
        sb_addf(err, "options file \"%s\" nests deeper than %d levels (does it include itself?)",
                file, RSP_MAX_DEPTH);
        return EXIT_USAGE;
    }
    struct strbuf abs = STRBUF_INIT, text = STRBUF_INIT;
    path_absolute(cwd, file, &abs);
    int e = plat_read_file_max(sb_str(&abs), RSP_MAX_BYTES, &text);
    if (e == EFBIG)
        sb_addf(err, "options file \"%s\" is larger than %u MiB", file, RSP_MAX_BYTES >> 20);
    else if (e)
        sb_addf(err, "cannot read options file \"%s\"%s%s: %s", file, from ? " named in " : "",
                from ? from : "", plat_strerror(e));
    else if (syntax == RSP_MSVC) { /* UTF-16 or UTF-8, with a byte order mark */
        struct strbuf u = STRBUF_INIT;
        rsp_msvc_text(text.buf ? text.buf : "", text.len, &u);
        rsp_split(sb_str(&u), strnlen(sb_str(&u), u.len), syntax, args);
        sb_release(&u);
    } else /* nvcc and gcc (libiberty's buildargv) both read the text up to a NUL byte
            * (measured with nvcc 13.0): the rest is not theirs, nor the seat's */
        rsp_split(sb_str(&text), strnlen(sb_str(&text), text.len), syntax, args);
    sb_release(&abs);
    sb_release(&text);
    return e ? EXIT_USAGE : EXIT_OK;
}

static int expand_file(struct canon *c, const char *file, int depth, const char *from)
{
    if (++c->files > RSP_MAX_FILES) {
        sb_addf(c->err,
                "options files expand without end: more than %d read for one call (the last "
                "one \"%s\"%s%s)",
                RSP_MAX_FILES, file, from ? ", named in " : "", from ? from : "");
        return EXIT_USAGE;
    }
    struct strvec args = STRVEC_INIT;
    enum rsp_syntax syntax = c->seat == SEAT_NVCC ? RSP_NVCC : c->msvc ? RSP_MSVC : RSP_GCC;
    int rc = options_file_read(c->cwd, file, depth, from, syntax, &args, c->err);
    for (size_t k = 0; !rc && k < args.n; k++)
        c->bytes += strlen(args.v[k]) + 1;
    if (!rc && c->bytes > RSP_MAX_TOTAL_BYTES) {
        sb_addf(c->err,
                "options files expand to more than %u MiB of arguments for one call (the last "
                "one read \"%s\")",
                RSP_MAX_TOTAL_BYTES >> 20, file);
        rc = EXIT_USAGE;
    }
    if (!rc)
        rc = expand(c, (int)args.n, sv_argv(&args), depth + 1, file);
    sv_clear(&args);
    return rc;
}

static int expand_list(struct canon *c, const char *list, int depth, const char *from)
{
    const char *s = list;
    for (;;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n) {
            char *one = xstrndup(s, n);
            int rc = expand_file(c, one, depth, from);
            free(one);
            if (rc)
                return rc;
        }
        if (!e)
            return EXIT_OK;
        s = e + 1;
    }
}

static int expand(struct canon *c, int argc, char *const *argv, int depth, const char *from)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (c->msvc && !strcmp(a, "--")) { /* cl: files only from here on */
            for (; i < argc; i++)
                sv_push(c->out, argv[i]);
            break;
        }
        if (c->seat != SEAT_NVCC && a[0] == '@' && a[1]) {
            struct strbuf abs = STRBUF_INIT;
            path_absolute(c->cwd, a + 1, &abs);
            int exists = plat_file_exists(sb_str(&abs));
            sb_release(&abs);
            if (exists) { /* gcc takes a missing @file literally */
                int rc = expand_file(c, a + 1, depth, from);
                if (rc)
                    return rc;
                continue;
            }
        }
        if ((a[0] != '-' && !(c->msvc && a[0] == '/')) || !a[1]) {
            sv_push(c->out, a);
            continue;
        }
        const char *inl;
        const struct opt *o = c->msvc ? cl_match(c->table, a, &inl) : opt_match(c->table, a, &inl);
        if (!o) {
            sv_push(c->out, a);
            continue;
        }
        const char *value = inl;
        int takes_next = opt_takes_next(o, inl);
        if (takes_next) {
            if (i + 1 >= argc) {
                sb_addf(c->err, "option \"%s\" expects a value%s%s", a,
                        from ? " in options file " : "", from ? from : "");
                return EXIT_USAGE;
            }
            value = argv[++i];
        }
        if (o->flags & OPT_OPTFILE) {
            if (!value) {
                sb_addf(c->err, "option \"%s\" expects a value%s%s", a,
                        from ? " in options file " : "", from ? from : "");
                return EXIT_USAGE;
            }
            int rc = expand_list(c, value, depth, from);
            if (rc)
                return rc;
            continue;
        }
        if (o->rewrite) {
            sv_push(c->out, o->rewrite);
            if (value)
                sv_push(c->out, value);
            continue;
        }
        sv_push(c->out, a);
        if (takes_next)
            sv_push(c->out, value);
    }
    return EXIT_OK;
}

char *shadow_rewrite(const struct wrap_config *cfg, const char *arg)
{
    if (!cfg->shadow || !*cfg->shadow || !cfg->shadow_real)
        return NULL;
    size_t n = strlen(cfg->shadow);
    const char *p = strstr(arg, cfg->shadow);
    if (!p)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    const char *from = arg;
    int changed = 0;
    for (; p; p = strstr(p, cfg->shadow)) {
        char next = p[n];
        if (next == '/' || next == ':' || next == ',' || next == '\0') {
            sb_add(&sb, from, (size_t)(p - from));
            sb_adds(&sb, cfg->shadow_real);
            from = p + n;
            changed = 1;
            p += n;
        } else {
            p++;
        }
    }
    if (!changed) {
        sb_release(&sb);
        return NULL;
    }
    sb_adds(&sb, from);
    return sb_detach(&sb);
}

static void shadow_rewrite_all(const struct wrap_config *cfg, struct strvec *v)
{
    for (size_t i = 0; i < v->n; i++) {
        char *r = shadow_rewrite(cfg, v->v[i]);
        if (r) {
            free(v->v[i]);
            v->v[i] = r;
        }
    }
}

int canon_argv(enum seat seat, const struct wrap_config *cfg, int argc, char *const *argv,
               struct strvec *out, struct strbuf *err)
{
    struct canon c = {call_table(seat, cfg), seat, cfg->cwd, out, err, 0, 0, cfg->msvc != 0};
    int rc;
    if (seat == SEAT_NVCC && cfg->prepend && *cfg->prepend) {
        struct strvec pre = STRVEC_INIT;
        rsp_split(cfg->prepend, strlen(cfg->prepend), RSP_NVCC, &pre);
        rc = expand(&c, (int)pre.n, sv_argv(&pre), 0, "NVCC_PREPEND_FLAGS");
        sv_clear(&pre);
        if (rc)
            return rc;
    }
    rc = expand(&c, argc, argv, 0, NULL);
    if (rc)
        return rc;
    if (seat == SEAT_NVCC && cfg->append && *cfg->append) {
        struct strvec app = STRVEC_INIT;
        rsp_split(cfg->append, strlen(cfg->append), RSP_NVCC, &app);
        rc = expand(&c, (int)app.n, sv_argv(&app), 0, "NVCC_APPEND_FLAGS");
        sv_clear(&app);
    }
    if (!rc)
        shadow_rewrite_all(cfg, out);
    return rc;
}
