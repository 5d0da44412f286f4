/* job: what every job's modules share: counts and cell ids as a person writes them,
 * messages (with GitHub Actions annotations), running the package's build, and where
 * shardcc's own binaries are. */
#include "job.h"
#include "path.h"
#include "platform.h"
#include "strvec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_count(const char *s)
{
    long v = 0;
    if (!*s)
        return 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || (v = v * 10 + (*p - '0')) > 100000)
            return 0;
    }
    return (int)v;
}

int cell_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > 200 || id[0] == '.' || id[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '+' || c == '-'))
            return 0;
    }
    return 1;
}

int run_build(char **argv, struct strbuf *how)
{
    int st = plat_spawn_wait_path(argv);
    if (st < 0) {
        int e = errno;
        report_error("shardcc", "cannot run \"%s\": %s", argv[0], plat_strerror(e));
        sb_addf(how, "could not start: %s", plat_strerror(e));
        return 127;
    }
    int sig = plat_last_signal(), got = plat_interrupted_by();
    if (got && st == 0)
        st = 128 + got; /* stopped on request: never an artifact, even if the build ended 0 */
    if (got)
        sb_addf(how,
                "shardcc received signal %d, %s, and passed it on to the build, which "
                "ended with %s %d",
                got, strsignal(got), sig ? "signal" : "status", sig ? sig : st);
    else if (sig)
        sb_addf(how, "killed by signal %d, %s", sig, strsignal(sig));
    else
        sb_addf(how, "exit status %d", st);
    return st;
}

int shardcc_bindir(struct strbuf *out)
{
    struct strbuf self = STRBUF_INIT;
    int e = plat_self_exe(&self);
    if (e)
        return e;
    sb_reset(out);
    sb_add(out, self.buf, (size_t)(path_basename(self.buf) - self.buf - 1));
    sb_release(&self);
    return 0;
}

static int n_annotations;

/* GitHub's workflow-command escaping: the message's %, CR and LF; a property value's also
 * ':' and ','. Untrusted text (a cell id or key from an artifact) cannot end the command
 * or start another one. */
static void gh_escape(struct strbuf *out, const char *s, int property)
{
    for (; *s; s++) {
        if (*s == '%')
            sb_adds(out, "%25");
        else if (*s == '\r')
            sb_adds(out, "%0D");
        else if (*s == '\n')
            sb_adds(out, "%0A");
        else if (property && *s == ':')
            sb_adds(out, "%3A");
        else if (property && *s == ',')
            sb_adds(out, "%2C");
        else
            sb_addc(out, *s);
    }
}

int in_github_actions(void)
{
    const char *ga = getenv("GITHUB_ACTIONS");
    return ga && strcmp(ga, "true") == 0;
}

static void vreport(const char *level, const char *gh, const char *cmd, const char *fmt, va_list ap)
{
    struct strbuf m = STRBUF_INIT, raw = STRBUF_INIT, text = STRBUF_INIT;
    sb_addf(&raw, "%s: %s", cmd, level);
    sb_vaddf(&raw, fmt, ap);
    /* one line whatever the message holds (a key or cell from an artifact) */
    sb_add_printable(&text, sb_str(&raw));
    sb_release(&raw);
    if (in_github_actions()) {
        sb_addf(&m, "::%s title=", gh);
        gh_escape(&m, cmd, 1);
        sb_adds(&m, "::");
        gh_escape(&m, sb_str(&text), 0);
        n_annotations++;
    } else {
        sb_adds(&m, sb_str(&text));
    }
    sb_addc(&m, '\n');
    fflush(stdout);
    fputs(sb_str(&m), stderr);
    sb_release(&m);
    sb_release(&text);
}

int report_annotations(void)
{
    return n_annotations;
}

void report_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", "error", cmd, fmt, ap);
    va_end(ap);
}

void report_warning(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", "warning", cmd, fmt, ap);
    va_end(ap);
}

char *ci_run_id(void)
{
    const char *v = getenv("SHARDCC_RUN_ID");
    if (v && *v)
        return xstrdup(v);
    v = getenv("GITHUB_RUN_ID");
    if (v && *v) {
        const char *att = getenv("GITHUB_RUN_ATTEMPT");
        struct strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "github-%s-%s", v, att && *att ? att : "1");
        return sb_detach(&sb);
    }
    v = getenv("CI_PIPELINE_ID");
    if (v && *v) {
        struct strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "gitlab-%s", v);
        return sb_detach(&sb);
    }
    return NULL;
}

json_t *json_file_load(const char *path, size_t max, json_error_t *je)
{
    struct strbuf text = STRBUF_INIT;
    int e = plat_read_file_max(path, max, &text);
    if (e) {
        memset(je, 0, sizeof *je);
        je->line = -1;
        snprintf(je->text, sizeof je->text, "unable to open: %s",
                 e == EFBIG ? "larger than the size cap of JSON files" : plat_strerror(e));
        snprintf(je->source, sizeof je->source, "%s", path);
        sb_release(&text);
        return NULL;
    }
    json_t *doc = json_loadb(text.buf ? text.buf : "", text.len, 0, je);
    sb_release(&text);
    return doc;
}

int run_clean_command(const char *cmd, const char *clean)
{
    char *argv[] = {"/bin/sh", "-c", (char *)clean, NULL};
    fprintf(stderr, "%s: cleaning the tree first: %s\n", cmd, clean);
    int st = plat_spawn_wait_path(argv);
    if (st != 0) {
        report_error(cmd, "the clean command failed (%s %d): %s",
                     st < 0 ? "could not start /bin/sh, errno" : "exit status", st < 0 ? errno : st,
                     clean);
        return EXIT_BUILD;
    }
    return EXIT_OK;
}

/* What explain_no_tu found under the root */
struct obj_scan {
    long long started;
    size_t visited, fresh, stale;
    struct strbuf fresh_example, stale_example;
};

static int is_object_name(const char *name)
{
    size_t n = strlen(name);
    return (n > 2 && !strcmp(name + n - 2, ".o")) || (n > 4 && !strcmp(name + n - 4, ".obj"));
}

/* Walks dir (depth-first, sorted, at most 200000 entries in all, not into .git or
 * shardcc's own state), counting object files written before and since s->started. */
static void scan_objects(const char *dir, const char *rel, int depth, struct obj_scan *s)
{
    struct strvec names = STRVEC_INIT;
    if (depth > 32 || plat_list_dir(dir, &names) != 0)
        return;
    for (size_t i = 0; i < names.n && s->visited < 200000; i++) {
        const char *name = names.v[i];
        s->visited++;
        if (!strcmp(name, ".git") || !strcmp(name, ".shardcc"))
            continue;
        struct strbuf p = STRBUF_INIT, r = STRBUF_INIT;
        sb_addf(&p, "%s/%s", dir, name);
        sb_addf(&r, "%s%s%s", rel, *rel ? "/" : "", name);
        long long mt;
        int isdir;
        if (plat_mtime(sb_str(&p), &mt, &isdir) == 0) {
            if (isdir) {
                scan_objects(sb_str(&p), sb_str(&r), depth + 1, s);
            } else if (is_object_name(name)) {
                int fresh = mt >= s->started;
                struct strbuf *ex = fresh ? &s->fresh_example : &s->stale_example;
                /* an example of the project's own, not of CMake's compiler identification */
                if (!ex->len ||
                    (strstr(ex->buf, "/CompilerId") && !strstr(sb_str(&r), "/CompilerId"))) {
                    sb_reset(ex);
                    sb_adds(ex, sb_str(&r));
                }
                (fresh ? s->fresh++ : s->stale++);
            }
        }
        sb_release(&p);
        sb_release(&r);
    }
    sv_clear(&names);
}

void explain_no_tu(const char *root, long long started, struct strbuf *out)
{
    struct obj_scan s = {
        .started = started, .fresh_example = STRBUF_INIT, .stale_example = STRBUF_INIT};
    scan_objects(root, "", 0, &s);
    if (s.fresh)
        sb_addf(out,
                "the build wrote %zu object file%s under the root without the seats (e.g. "
                "\"%s\"): it runs its compilers by a path of its own. ",
                s.fresh, s.fresh == 1 ? "" : "s", sb_str(&s.fresh_example));
    else if (s.stale)
        sb_addf(out,
                "the build compiled nothing: its tree was already built (%zu object file%s from "
                "before this job, e.g. \"%s\"), so it had nothing to do. Each job starts from a "
                "clean build tree: remove it first, or pass --clean CMD (e.g. --clean 'rm -rf "
                "build'). ",
                s.stale, s.stale == 1 ? "" : "s", sb_str(&s.stale_example));
    else
        sb_adds(out, "no object file under the root was written by this build. ");
    sb_release(&s.fresh_example);
    sb_release(&s.stale_example);
}

/* The variables the seats set that a build command can set again, and the CMake cache
 * entries that name a compiler: (word's name, the seat variable whose value it must keep) */
static const struct {
    const char *name, *seat;
} seat_words[] = {
    {"CUDA_HOME", "CUDA_HOME"},
    {"CUDA_PATH", "CUDA_PATH"},
    {"CUDACXX", "CUDACXX"},
    {"PYTORCH_NVCC", "PYTORCH_NVCC"},
    {"CXX", "CXX"},
    {"CC", "CC"},
    {"CMAKE_CUDA_COMPILER", "CUDACXX"},
    {"CMAKE_CXX_COMPILER", "CXX"},
    {"CMAKE_C_COMPILER", "CC"},
};

/* One word of the build command (an argument, or a token of a shell script it runs): a
 * message into why when it sets a seat's variable to something other than the seat. */
static int seat_word(const char *tok, size_t len, struct strbuf *why)
{
    struct strbuf w = STRBUF_INIT;
    for (size_t i = 0; i < len; i++) /* quotes around the value, as sh reads them */
        if (tok[i] != '"' && tok[i] != '\'')
            sb_addc(&w, tok[i]);
    const char *t = sb_str(&w);
    if (!strncmp(t, "-D", 2))
        t += 2;
    const char *eq = strchr(t, '=');
    int found = 0;
    for (size_t k = 0; eq && k < sizeof seat_words / sizeof seat_words[0] && !found; k++) {
        size_t n = strlen(seat_words[k].name);
        /* NAME=VALUE, or a CMake cache entry NAME:TYPE=VALUE */
        if (strncmp(t, seat_words[k].name, n) != 0 || (t[n] != '=' && t[n] != ':') ||
            (t[n] == ':' && strchr(t + n, '=') != eq))
            continue;
        const char *seat = getenv(seat_words[k].seat), *value = eq + 1;
        if (!seat || !*seat || !*value)
            continue; /* a variable the seats do not set here */
        /* the seat itself, or the variable's own value ($CXX, ${CUDA_HOME}) */
        struct strbuf r1 = STRBUF_INIT, r2 = STRBUF_INIT;
        sb_addf(&r1, "$%s", seat_words[k].seat);
        sb_addf(&r2, "${%s}", seat_words[k].seat);
        int same = !strcmp(value, seat) || strstr(value, sb_str(&r1)) || strstr(value, sb_str(&r2));
        sb_release(&r1);
        sb_release(&r2);
        if (!same) {
            sb_addf(why,
                    "the build command sets %s: %s, so the build would run %s outside the "
                    "seat and the guard would fail after the whole build. Drop it (the seats "
                    "set %s=%s), or write %.*s=\"$%s\"",
                    t,
                    t == sb_str(&w) ? "a variable given on make's command line, or before a "
                                      "command, beats the environment"
                                    : "a CMake cache entry given with -D beats the environment",
                    seat_words[k].seat[0] == 'C' && seat_words[k].seat[1] == 'U' ? "nvcc"
                                                                                 : "the compiler",
                    seat_words[k].seat, seat, (int)(eq - t), t, seat_words[k].seat);
            found = 1;
        }
    }
    sb_release(&w);
    return found;
}

int check_build_command(char **build, struct strbuf *why)
{
    for (char **a = build; *a; a++) {
        const char *base = strrchr(build[0], '/') ? strrchr(build[0], '/') + 1 : build[0];
        int script = a > build && !strcmp(a[-1], "-c") &&
                     (!strcmp(base, "sh") || !strcmp(base, "bash") || !strcmp(base, "dash") ||
                      !strcmp(base, "zsh"));
        if (!script) {
            if (seat_word(*a, strlen(*a), why))
                return EXIT_USAGE;
            continue;
        }
        /* a shell script: its words, split where sh would split simple ones */
        for (const char *p = *a; *p;) {
            while (*p && strchr(" \t\n;&|()`", *p))
                p++;
            const char *s = p;
            char quote = 0;
            while (*p && (quote || !strchr(" \t\n;&|()`", *p))) {
                if (quote && *p == quote)
                    quote = 0;
                else if (!quote && (*p == '"' || *p == '\''))
                    quote = *p;
                p++;
            }
            if (p > s && seat_word(s, (size_t)(p - s), why))
                return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}
