/* dryrun: nvcc -dryrun's text as steps and work items (dryrun.h has the table). */
#include "dryrun.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *base;
    enum dr_tool tool;
} tools[] = {
    {"cudafe++", DR_CUDAFE},     {"cicc", DR_CICC},     {"ptxas", DR_PTXAS},
    {"fatbinary", DR_FATBINARY}, {"nvlink", DR_NVLINK}, {"rm", DR_RM},
};

const char *dr_tool_name(enum dr_tool tool)
{
    switch (tool) {
    case DR_HOST_CPP:
        return "host-cpp";
    case DR_CUDAFE:
        return "cudafe++";
    case DR_DEVICE_CPP:
        return "device-cpp";
    case DR_CICC:
        return "cicc";
    case DR_PTXAS:
        return "ptxas";
    case DR_FATBINARY:
        return "fatbinary";
    case DR_HOST_CC:
        return "host-cc";
    case DR_NVLINK:
        return "nvlink";
    case DR_HOST_LINK:
        return "host-link";
    case DR_RM:
        return "rm";
    }
    return "?";
}

static int is_ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_ident(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The value of NAME (len bytes) among the environment lines, the last one printed. */
static const char *env_value(const struct strvec *env, const char *name, size_t len)
{
    for (size_t i = env->n; i-- > 0;)
        if (strncmp(env->v[i], name, len) == 0 && env->v[i][len] == '=')
            return env->v[i] + len + 1;
    return NULL;
}

static int fail(struct strbuf *err, const char *fmt, ...) SHARDCC_PRINTF(2, 3);
static int fail(struct strbuf *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Expands $NAME or ${NAME} at *p (just after the '$') into word. Only a value that is one
 * plain word is expanded: nvcc expands everything else itself. */
static int expand(const char **p, const struct strvec *env, struct strbuf *word, struct strbuf *err)
{
    const char *s = *p;
    int braced = *s == '{';
    if (braced)
        s++;
    const char *name = s;
    if (!is_ident_start(*s))
        return fail(err, "a '$' that starts no variable name");
    while (is_ident(*s))
        s++;
    size_t len = (size_t)(s - name);
    if (braced) {
        if (*s != '}')
            return fail(err, "an unterminated ${...}");
        s++;
    }
    const char *v = env_value(env, name, len);
    if (!v)
        return fail(err, "the variable %.*s, which nvcc did not set", (int)len, name);
    if (strpbrk(v, " \t\"'\\$"))
        return fail(err, "the variable %.*s, whose value is not one plain word", (int)len, name);
    sb_adds(word, v);
    *p = s;
    return 0;
}

/* One sh word at *p into word. */
static int read_word(const char **p, const struct strvec *env, struct strbuf *word,
                     struct strbuf *err)
{
    const char *s = *p;
    while (*s && !is_blank(*s)) {
        if (*s == '"') {
            s++;
            while (*s != '"') {
                if (!*s)
                    return fail(err, "an unbalanced double quote");
                if (*s == '\\' && s[1] && strchr("\"\\$`", s[1])) {
                    sb_addc(word, s[1]);
                    s += 2;
                } else if (*s == '$') {
                    s++;
                    if (expand(&s, env, word, err) != 0)
                        return -1;
                } else if (*s == '`') {
                    return fail(err, "a command substitution");
                } else {
                    sb_addc(word, *s++);
                }
            }
            s++;
        } else if (*s == '\'') {
            const char *end = strchr(s + 1, '\'');
            if (!end)
                return fail(err, "an unbalanced single quote");
            sb_add(word, s + 1, (size_t)(end - s - 1));
            s = end + 1;
        } else if (*s == '\\') {
            if (!s[1])
                return fail(err, "a backslash at the end of the line");
            sb_addc(word, s[1]);
            s += 2;
        } else if (*s == '$') {
            s++;
            if (expand(&s, env, word, err) != 0)
                return -1;
        } else if (strchr("|&;<>()`*?[", *s)) {
            return fail(err, "the shell character '%c'", *s);
        } else {
            sb_addc(word, *s++);
        }
    }
    *p = s;
    return 0;
}

/* The words of a step line, and its redirections. */
static int split_line(const char *s, const struct strvec *env, struct dr_step *st,
                      struct strbuf *err)
{
    struct strbuf word = STRBUF_INIT;
    for (;;) {
        while (is_blank(*s))
            s++;
        if (!*s)
            break;
        char **redir = NULL;
        if (*s == '>') {
            redir = &st->stdout_path;
            s++;
        } else if (s[0] == '2' && s[1] == '>') {
            redir = &st->stderr_path;
            s += 2;
        }
        if (redir) {
            while (is_blank(*s))
                s++;
            if (!*s || *redir) {
                sb_release(&word);
                return fail(err, *s ? "a stream redirected twice" : "a redirection without a file");
            }
        }
        sb_reset(&word);
        if (read_word(&s, env, &word, err) != 0) {
            sb_release(&word);
            return -1;
        }
        if (redir)
            *redir = sb_detach(&word);
        else
            sv_push(&st->argv, sb_str(&word));
    }
    sb_release(&word);
    if (st->argv.n == 0)
        return fail(err, "an empty step");
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether an argv has the word w after its tool. */
static int has_word(const struct strvec *a, const char *w)
{
    for (size_t i = 1; i < a->n; i++)
        if (strcmp(a->v[i], w) == 0)
            return 1;
    return 0;
}

/* The value of an option: "NAME value" (sep), or "NAME=value" when sep is 0. */
static const char *opt_value(const struct strvec *a, const char *name, int sep)
{
    size_t len = strlen(name);
    for (size_t i = 1; i < a->n; i++) {
        if (sep && strcmp(a->v[i], name) == 0 && i + 1 < a->n)
            return a->v[i + 1];
        if (!sep && strncmp(a->v[i], name, len) == 0 && a->v[i][len] == '=')
            return a->v[i] + len + 1;
    }
    return NULL;
}

/* A host compiler's -D value of NAME ("-DNAME=v" or "-D" "NAME=v"), or NULL. */
static const char *define_value(const struct strvec *a, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 1; i < a->n; i++) {
        const char *d = NULL;
        if (strncmp(a->v[i], "-D", 2) == 0 && a->v[i][2])
            d = a->v[i] + 2;
        else if (strcmp(a->v[i], "-D") == 0 && i + 1 < a->n)
            d = a->v[++i];
        if (d && strncmp(d, name, len) == 0 && d[len] == '=')
            return d + len + 1;
    }
    return NULL;
}

/* The step's input: the word before "-o", or the last word when there is no -o. */
static const char *input_word(const struct strvec *a)
{
    for (size_t i = 1; i + 1 < a->n; i++)
        if (strcmp(a->v[i], "-o") == 0)
            return i > 1 && a->v[i - 1][0] != '-' ? a->v[i - 1] : NULL;
    return a->n > 1 && a->v[a->n - 1][0] != '-' ? a->v[a->n - 1] : NULL;
}

static int ends_with_any(const char *w, const char *const *exts)
{
    size_t n = strlen(w);
    for (; *exts; exts++) {
        size_t e = strlen(*exts);
        if (n > e && !strcmp(w + n - e, *exts))
            return 1;
    }
    return 0;
}

/* nvcc's host link step: a host compiler driver with -o, neither -E nor -c, whose inputs
 * are objects or archives (at least one) and no source. */
static int is_host_link(const struct strvec *a)
{
    static const char *const objects[] = {".o", ".a", ".so", ".obj", NULL};
    static const char *const sources[] = {".cu", ".c", ".cc", ".cpp", ".cxx", ".i", ".ii", NULL};
    int objs = 0, out = 0;
    for (size_t i = 1; i < a->n; i++) {
        const char *w = a->v[i];
        if (!strcmp(w, "-E") || !strcmp(w, "-c"))
            return 0;
        if (!strcmp(w, "-o") && i + 1 < a->n) {
            out = 1;
            i++;
        } else if (w[0] != '-') {
            if (ends_with_any(w, sources))
                return 0;
            objs += ends_with_any(w, objects);
        }
    }
    return out && objs > 0;
}

/* A name a generated file #includes, as the compiler finds it: beside the includer. */
static char *beside(const char *includer, const char *name)
{
    const char *slash = strrchr(includer, '/');
    if (name[0] == '/' || !slash)
        return xstrdup(name);
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, includer, (size_t)(slash - includer + 1));
    sb_adds(&sb, name);
    return sb_detach(&sb);
}

/* A file= value of a fatbinary image option ("kind=elf,sm=80,file=F" or "profile=..,file=F"). */
static const char *image_file(const char *v)
{
    const char *f = strstr(v, "file=");
    while (f && f != v && f[-1] != ',')
        f = strstr(f + 1, "file=");
    return f ? f + 5 : NULL;
}

/* Which tool the step runs: one of nvcc's own (by its name), the host compiler's link, or
 * the host compiler (the one the plan's first host step ran: *host_cc) as preprocessor of
 * host or device code or as compiler. */
static int step_tool(struct dr_step *st, char **host_cc, struct strbuf *err)
{
    const struct strvec *a = &st->argv;
    const char *tool = base_name(a->v[0]);
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (strcmp(tool, tools[i].base) == 0) {
            st->tool = tools[i].tool;
            return 0;
        }
    if (is_host_link(a)) {
        st->tool = DR_HOST_LINK; /* g++ where the compile steps ran gcc: no second compiler */
        return 0;
    }
    if (*host_cc && strcmp(*host_cc, a->v[0]) != 0)
        return fail(err, "a second host compiler '%s' (the plan ran '%s')", a->v[0], *host_cc);
    int pre = has_word(a, "-E"), comp = has_word(a, "-c");
    if (pre == comp)
        return fail(err,
                    "'%s', neither a tool nvcc runs nor a host compiler step with one of -E and -c",
                    a->v[0]);
    if (!*host_cc)
        *host_cc = xstrdup(a->v[0]);
    const char *arch = define_value(a, "__CUDA_ARCH__");
    st->tool = comp ? DR_HOST_CC : arch ? DR_DEVICE_CPP : DR_HOST_CPP;
    if (st->tool == DR_DEVICE_CPP)
        st->arch = xstrdup(arch);
    return 0;
}

/* A host compiler step (preprocessing or compiling): its input and the files its -D names
 * (the fatbin, the link-binary registration), and -o. */
static int host_step_files(struct dr_step *st, const char *in, const char *out, struct strbuf *err)
{
    const struct strvec *a = &st->argv;
    if (!in || !out)
        return fail(err, "a %s step without its input and -o", dr_tool_name(st->tool));
    sv_push(&st->reads, in);
    for (const char *const *d = (const char *const[]){"FATBINFILE", "REGISTERLINKBINARYFILE", NULL};
         *d; d++) {
        const char *v = define_value(a, *d);
        size_t n = v ? strlen(v) : 0;
        if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
            sv_push_owned(&st->reads, xstrndup(v + 1, n - 2));
    }
    sv_push(&st->writes, out);
    return 0;
}

/* cudafe++: the preprocessed input (its last word), the generated C file, the module id
 * file it writes. */
static int cudafe_files(struct dr_step *st, struct strbuf *err)
{
    const struct strvec *a = &st->argv;
    const char *gen = opt_value(a, "--gen_c_file_name", 1);
    const char *mod = opt_value(a, "--module_id_file_name", 1);
    const char *in = a->v[a->n - 1];
    if (!gen || in[0] == '-')
        return fail(err, "a cudafe++ step without its input and --gen_c_file_name");
    sv_push(&st->reads, in);
    sv_push(&st->writes, gen);
    if (mod && has_word(a, "--gen_module_id_file"))
        sv_push(&st->writes, mod);
    return 0;
}

/* cicc: the input, the module id file (read, or written with --gen_module_id_file), -o and
 * the C files it generates; its architecture. */
static int cicc_files(struct dr_step *st, const char *in, const char *out, struct strbuf *err)
{
    const struct strvec *a = &st->argv;
    const char *arch = opt_value(a, "-arch", 1);
    const char *mod = opt_value(a, "--module_id_file_name", 1);
    if (!in || !out || !arch)
        return fail(err, "a cicc step without its input, -o and -arch");
    st->arch = xstrdup(arch);
    sv_push(&st->reads, in);
    int gen_mod = has_word(a, "--gen_module_id_file");
    if (mod && !gen_mod)
        sv_push(&st->reads, mod);
    sv_push(&st->writes, out);
    if (mod && gen_mod)
        sv_push(&st->writes, mod);
    for (const char *const *o = (const char *const[]){"--gen_c_file_name", "--stub_file_name",
                                                      "--gen_device_file_name", NULL};
         *o; o++)
        if (opt_value(a, *o, 1))
            sv_push(&st->writes, opt_value(a, *o, 1));
    return 0;
}

/* fatbinary: each image's file; the fatbin it creates or embeds. */
static int fatbinary_files(struct dr_step *st, struct strbuf *err)
{
    const struct strvec *a = &st->argv;
    for (size_t i = 1; i < a->n; i++) {
        const char *w = a->v[i];
        if (strncmp(w, "--image3=", 9) == 0 || strncmp(w, "--image=", 8) == 0) {
            const char *f = image_file(w);
            if (!f || !*f)
                return fail(err, "a fatbinary image without file=: %s", w);
            sv_push(&st->reads, f);
        } else if (strncmp(w, "--embedded-fatbin=", 18) == 0 || strncmp(w, "--create=", 9) == 0) {
            sv_push(&st->writes, strchr(w, '=') + 1);
        }
    }
    if (st->writes.n == 0)
        return fail(err, "a fatbinary step that writes no file");
    return 0;
}

/* nvlink or the host link: the objects and archives it reads, what it
 * writes (nvlink: also the link-binary registration). */
static int link_files(struct dr_step *st, const char *out, int nvlink, struct strbuf *err)
{
    const struct strvec *a = &st->argv;
    if (nvlink && !out)
        return fail(err, "an nvlink step without -o");
    for (size_t i = 1; i < a->n; i++) {
        const char *w = a->v[i];
        if (!strcmp(w, "-o") && i + 1 < a->n)
            i++;
        else if (w[0] != '-' && ends_with_any(w, (const char *const[]){".o", ".a", NULL}))
            sv_push(&st->reads, w);
    }
    sv_push(&st->writes, out);
    const char *reg = nvlink ? opt_value(a, "--register-link-binaries", 0) : NULL;
    if (reg)
        sv_push(&st->writes, reg);
    return 0;
}

/* One step of nvcc's plan: which tool it runs (step_tool), its architecture, and the files it
 * reads and writes (a step's order is then checked against them). 0, or -1 with err. */
static int classify_step(struct dr_step *st, char **host_cc, struct strbuf *err)
{
    if (step_tool(st, host_cc, err) != 0)
        return -1;
    const struct strvec *a = &st->argv;
    const char *in = input_word(a), *out = opt_value(a, "-o", 1);
    switch (st->tool) {
    case DR_HOST_CPP:
    case DR_DEVICE_CPP:
    case DR_HOST_CC:
        return host_step_files(st, in, out, err);
    case DR_CUDAFE:
        return cudafe_files(st, err);
    case DR_CICC:
        return cicc_files(st, in, out, err);
    case DR_PTXAS: {
        const char *arch = opt_value(a, "-arch", 0);
        if (!in || !arch)
            return fail(err, "a ptxas step without its input and -arch=");
        st->arch = xstrdup(arch);
        sv_push(&st->reads, in);
        if (out)
            sv_push(&st->writes, out);
        return 0;
    }
    case DR_FATBINARY:
        return fatbinary_files(st, err);
    case DR_HOST_LINK:
        return link_files(st, out, 0, err);
    case DR_NVLINK:
        return link_files(st, out, 1, err);
    case DR_RM:
        for (size_t i = 1; i < a->n; i++)
            if (a->v[i][0] != '-')
                sv_push(&st->reads, a->v[i]);
        return 0;
    }
    return fail(err, "an unknown step");
}

static void step_clear(struct dr_step *st)
{
    sv_clear(&st->argv);
    sv_clear(&st->reads);
    sv_clear(&st->writes);
    free(st->stdout_path);
    free(st->stderr_path);
    free(st->arch);
    memset(st, 0, sizeof *st);
}

void dr_plan_clear(struct dr_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++)
        step_clear(&plan->steps[i]);
    free(plan->steps);
    sv_clear(&plan->env);
    memset(plan, 0, sizeof *plan);
}

/* The step (index) that writes file, or -1. */
static long writer_of(const struct dr_plan *plan, const char *file)
{
    for (size_t i = 0; i < plan->n; i++)
        for (size_t j = 0; j < plan->steps[i].writes.n; j++)
            if (strcmp(plan->steps[i].writes.v[j], file) == 0)
                return (long)i;
    return -1;
}

/* host-cc of a cudafe++ output also reads what that file #includes: the stub file
 * (cudafe++'s --stub_file_name) and the embedded fatbin (cicc's --include_file_name). */
static void add_generated_includes(struct dr_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++) {
        struct dr_step *cc = &plan->steps[i];
        if (cc->tool != DR_HOST_CC)
            continue;
        const char *src = cc->reads.v[0];
        long w = writer_of(plan, src);
        if (w < 0 || plan->steps[w].tool != DR_CUDAFE)
            continue;
        const char *stub = opt_value(&plan->steps[w].argv, "--stub_file_name", 1);
        if (stub)
            sv_push_owned(&cc->reads, beside(src, stub));
        for (size_t k = 0; k < plan->n; k++)
            if (plan->steps[k].tool == DR_CICC) {
                const char *inc = opt_value(&plan->steps[k].argv, "--include_file_name", 1);
                if (inc) {
                    sv_push_owned(&cc->reads, beside(src, inc));
                    break;
                }
            }
    }
}

/* Every file read is written by an earlier step or by none; none is written twice. */
static int check_order(const struct dr_plan *plan, struct strbuf *err)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct dr_step *st = &plan->steps[i];
        for (size_t j = 0; j < st->writes.n; j++)
            for (size_t k = 0; k < i; k++)
                if (sv_has(&plan->steps[k].writes, st->writes.v[j]))
                    return fail(err, "line %u: %s writes %s, which line %u wrote", st->line,
                                dr_tool_name(st->tool), st->writes.v[j], plan->steps[k].line);
        if (st->tool == DR_RM)
            continue;
        for (size_t j = 0; j < st->reads.n; j++) {
            long w = writer_of(plan, st->reads.v[j]);
            if (w >= (long)i)
                return fail(err, "line %u: %s reads %s, which a later step (line %u) writes",
                            st->line, dr_tool_name(st->tool), st->reads.v[j], plan->steps[w].line);
        }
    }
    return 0;
}

int dr_parse(const char *text, struct dr_plan *plan, struct strbuf *err)
{
    memset(plan, 0, sizeof *plan);
    char *host_cc = NULL;
    unsigned lineno = 0;
    const char *s = text;
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *line = xstrndup(s, len);
        s += len + (end ? 1 : 0);
        lineno++;
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\r' || is_blank(line[n - 1])))
            line[--n] = '\0';
        if (n == 0) {
            free(line);
            continue;
        }
        struct strbuf why = STRBUF_INIT;
        int rc = 0;
        if (strncmp(line, "#$ ", 3) != 0) {
            sb_adds(&why, "not a step (nvcc printed a message)");
            rc = -1;
        } else {
            const char *body = line + 3;
            const char *eq = body;
            while (is_ident(*eq))
                eq++;
            if (is_ident_start(*body) && *eq == '=') {
                sv_push(&plan->env, body);
            } else {
                if (plan->n == plan->alloc) {
                    plan->alloc = plan->alloc ? 2 * plan->alloc : 16;
                    plan->steps = xrealloc(plan->steps, plan->alloc * sizeof *plan->steps);
                }
                struct dr_step *st = &plan->steps[plan->n++];
                memset(st, 0, sizeof *st);
                st->line = lineno;
                rc = split_line(body, &plan->env, st, &why);
                if (rc == 0)
                    rc = classify_step(st, &host_cc, &why);
            }
        }
        if (rc != 0) {
            sb_addf(err, "nvcc -dryrun line %u: ", lineno);
            sb_add_printable(err, sb_str(&why));
            sb_adds(err, ": ");
            sb_add_printable(err, line);
            sb_release(&why);
            free(line);
            free(host_cc);
            dr_plan_clear(plan);
            return -1;
        }
        sb_release(&why);
        free(line);
    }
    free(host_cc);
    if (plan->n == 0) {
        dr_plan_clear(plan);
        return fail(err, "nvcc -dryrun printed no step");
    }
    add_generated_includes(plan);
    struct strbuf why = STRBUF_INIT;
    if (check_order(plan, &why) != 0) {
        sb_adds(err, "nvcc -dryrun: ");
        sb_add_printable(err, sb_str(&why));
        sb_release(&why);
        dr_plan_clear(plan);
        return -1;
    }
    sb_release(&why);
    return 0;
}

void dr_split_clear(struct dr_split *split)
{
    for (size_t i = 0; i < split->n; i++) {
        free(split->items[i].name);
        free(split->items[i].steps);
        free(split->items[i].real);
    }
    free(split->items);
    memset(split, 0, sizeof *split);
}

static void item_add(struct dr_item *it, size_t step)
{
    it->steps = xrealloc(it->steps, (it->n + 1) * sizeof *it->steps);
    it->steps[it->n++] = step;
}

static int by_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Is file the module id (cudafe++'s or a cicc's --module_id_file_name)? */
static int is_module_id(const struct dr_step *writer, const char *file)
{
    const char *mod = opt_value(&writer->argv, "--module_id_file_name", 1);
    return mod && strcmp(mod, file) == 0;
}

/* Is file the stub a cicc step writes (its --stub_file_name)? */
static int is_stub(const struct dr_step *cicc, const char *file)
{
    const char *stub = opt_value(&cicc->argv, "--stub_file_name", 1);
    return stub && strcmp(stub, file) == 0;
}

/* The device items: one per cicc step (an architecture), with the device preprocessing it
 * reads and the ptxas steps that read what it writes; owner[step] = the item. 0, or -1 with
 * why. */
static int device_items(const struct dr_plan *plan, struct dr_split *split, long *owner,
                        struct strbuf *why)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct dr_step *c = &plan->steps[i];
        if (c->tool != DR_CICC)
            continue;
        long d = (long)split->n;
        struct dr_item *it = &split->items[split->n++];
        it->name = xstrdup(c->arch);
        for (size_t k = 0; k < (size_t)d; k++)
            if (strcmp(split->items[k].name, it->name) == 0)
                return fail(why, "line %u: a second cicc for %s", c->line, c->arch);
        long w = writer_of(plan, c->reads.v[0]);
        if (w < 0 || plan->steps[w].tool != DR_DEVICE_CPP || owner[w] != -1)
            return fail(why,
                        "line %u: cicc %s reads %s, which no device-cpp step of its own writes",
                        c->line, c->arch, c->reads.v[0]);
        owner[w] = d;
        owner[i] = d;
        item_add(it, (size_t)w);
        item_add(it, i);
        struct strbuf real = STRBUF_INIT;
        for (size_t k = 0; k < plan->n; k++) {
            const struct dr_step *p = &plan->steps[k];
            if (p->tool == DR_PTXAS && sv_has(&c->writes, p->reads.v[0])) {
                owner[k] = d;
                item_add(it, k);
                if (p->writes.n > 0) {
                    if (real.len)
                        sb_addc(&real, ',');
                    sb_adds(&real, p->arch);
                }
            }
        }
        it->real = sb_detach(&real);
        qsort(it->steps, it->n, sizeof *it->steps, by_index);
    }
    return 0;
}

/* The host item: every step no device item owns (a ptxas or device preprocessing step
 * among them is an error), but the removals. */
static int host_item(const struct dr_plan *plan, struct dr_split *split, long *owner,
                     struct strbuf *why)
{
    struct dr_item *host = &split->items[split->n];
    int rc = 0;
    for (size_t i = 0; i < plan->n && rc == 0; i++) {
        const struct dr_step *st = &plan->steps[i];
        if (owner[i] != -1 || st->tool == DR_RM)
            continue;
        if (st->tool == DR_PTXAS || st->tool == DR_DEVICE_CPP)
            rc = fail(why, "line %u: %s %s belongs to no cicc", st->line, dr_tool_name(st->tool),
                      st->arch);
        owner[i] = (long)split->n;
        item_add(host, i);
    }
    host->name = xstrdup("host");
    host->real = xstrdup("");
    split->n++; /* cleared with the others, and dropped by the caller when it has no step */
    return rc;
}

/* What crosses from one item to another: only the module id file (into each cicc), the
 * device preprocessing's output into fatbinary, and the stubs of one item into the host
 * compile; anything else cannot be split. */
static int crossings(const struct dr_plan *plan, struct dr_split *split, const long *owner,
                     struct strbuf *why)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct dr_step *st = &plan->steps[i];
        if (st->tool == DR_RM)
            continue;
        for (size_t j = 0; j < st->reads.n; j++) {
            long w = writer_of(plan, st->reads.v[j]);
            if (w < 0 || owner[w] == owner[i])
                continue;
            const char *from = split->items[owner[w]].name;
            const struct dr_step *ws = &plan->steps[w];
            if (st->tool == DR_CICC && is_module_id(ws, st->reads.v[j])) {
                split->module_id_from = from;
            } else if (st->tool == DR_FATBINARY && ws->tool != DR_DEVICE_CPP) {
                continue;
            } else if (st->tool == DR_HOST_CC && ws->tool == DR_CICC &&
                       is_stub(ws, st->reads.v[j])) {
                if (split->stub_from && strcmp(split->stub_from, from) != 0)
                    return fail(why, "line %u: host-cc reads stubs of two items", st->line);
                split->stub_from = from;
            } else {
                return fail(why, "line %u: %s (item %s) reads %s, which %s (item %s) writes",
                            st->line, dr_tool_name(st->tool), split->items[owner[i]].name,
                            st->reads.v[j], dr_tool_name(ws->tool), from);
            }
        }
    }
    return 0;
}

int dr_split_plan(const struct dr_plan *plan, struct dr_split *split, struct strbuf *err)
{
    memset(split, 0, sizeof *split);
    long *owner = xmalloc((plan->n ? plan->n : 1) * sizeof *owner);
    size_t ncicc = 0;
    for (size_t i = 0; i < plan->n; i++) {
        owner[i] = -1;
        ncicc += plan->steps[i].tool == DR_CICC;
    }
    split->items = xmalloc((ncicc + 1) * sizeof *split->items);
    memset(split->items, 0, (ncicc + 1) * sizeof *split->items);
    struct strbuf why = STRBUF_INIT;
    int rc = device_items(plan, split, owner, &why);
    if (rc == 0)
        rc = host_item(plan, split, owner, &why);
    if (rc == 0)
        rc = crossings(plan, split, owner, &why);
    free(owner);
    if (rc != 0) {
        sb_adds(err, "nvcc -dryrun: cannot split: ");
        sb_add_printable(err, sb_str(&why));
        dr_split_clear(split);
    } else if (split->items[split->n - 1].n == 0) { /* nvcc -ptx: device items only */
        free(split->items[split->n - 1].name);
        free(split->items[split->n - 1].real);
        split->n--;
    }
    sb_release(&why);
    return rc;
}

void dr_describe(const struct dr_plan *plan, const struct dr_split *split, struct strbuf *out)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct dr_step *st = &plan->steps[i];
        sb_adds(out, dr_tool_name(st->tool));
        if (st->arch)
            sb_addf(out, " %s", st->arch);
        if (st->stdout_path || st->stderr_path)
            sb_adds(out, " (output to files)");
        sb_addc(out, '\n');
    }
    for (size_t i = 0; split && i < split->n; i++) {
        const struct dr_item *it = &split->items[i];
        sb_addf(out, "item %s", it->name);
        if (*it->real)
            sb_addf(out, " [%s]", it->real);
        sb_adds(out, ":");
        for (size_t k = 0; k < it->n; k++) {
            const struct dr_step *st = &plan->steps[it->steps[k]];
            sb_addf(out, " %s", dr_tool_name(st->tool));
        }
        sb_addc(out, '\n');
    }
    if (split && split->module_id_from)
        sb_addf(out, "module id from %s\n", split->module_id_from);
    if (split && split->stub_from)
        sb_addf(out, "stub from %s\n", split->stub_from);
}
