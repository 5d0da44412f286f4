/* fuzz_support: the temporary directory and file helpers of the fuzz targets, and the
 * invariants every classified call must hold. */
#include "fuzz_support.h"
#include "classify.h"
#include "platform.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmpdir;

static void remove_tmpdir(void)
{
    if (tmpdir)
        plat_rmtree(tmpdir);
    free(tmpdir);
    tmpdir = NULL;
}

const char *fuzz_tmpdir(void)
{
    if (tmpdir)
        return tmpdir;
    const char *base = getenv("TMPDIR");
    struct strbuf t = STRBUF_INIT, real = STRBUF_INIT;
    sb_addf(&t, "%s/shardcc-fuzz.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(t.buf) || plat_realpath(t.buf, &real) != 0) {
        fprintf(stderr, "fuzz: cannot create a directory \"%s\": %s\n", t.buf, strerror(errno));
        abort();
    }
    sb_release(&t);
    tmpdir = sb_detach(&real);
    atexit(remove_tmpdir);
    return tmpdir;
}

char *fuzz_path(const char *rel)
{
    struct strbuf p = STRBUF_INIT;
    sb_addf(&p, "%s/%s", fuzz_tmpdir(), rel);
    return sb_detach(&p);
}

void fuzz_write(const char *rel, const void *data, size_t len)
{
    char *path = fuzz_path(rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    int e = plat_mkdir_p(path);
    *slash = '/';
    FILE *f = e ? NULL : fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        fprintf(stderr, "fuzz: cannot write \"%s\": %s\n", path, strerror(e ? e : errno));
        abort();
    }
    free(path);
}

void fuzz_remove(const char *rel)
{
    char *path = fuzz_path(rel);
    int e = plat_rmtree(path);
    if (e) {
        fprintf(stderr, "fuzz: cannot remove \"%s\": %s\n", path, strerror(e));
        abort();
    }
    free(path);
}

char *fuzz_cstr(const uint8_t *data, size_t len)
{
    char *s = xmalloc(len + 1);
    if (len)
        memcpy(s, data, len);
    s[len] = '\0';
    return s;
}

/* The sanitizers' report channel: libFuzzer's -close_fd_mask=2 closes stderr but keeps it. */
extern void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));

void fuzz_fail(const char *fmt, ...)
{
    struct strbuf m = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_adds(&m, "fuzz invariant broken: ");
    sb_vaddf(&m, fmt, ap);
    va_end(ap);
    if (__sanitizer_report_error_summary)
        __sanitizer_report_error_summary(sb_str(&m));
    else
        fprintf(stderr, "%s\n", sb_str(&m));
    abort();
}

static int key_canonical(const char *key)
{
    if (!*key || key[0] == '/')
        return 0;
    for (const char *s = key;;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return 0;
        if (!e)
            return 1;
        s = e + 1;
    }
}

/* What classify_call promises: a non-TU call runs direct or through ccache; a TU is
 * cached, stubbed, pinned (shard phase, every shard compiles it) or device code (made in
 * every job, so its owner is this job's shard); outside the shard phase nothing is stubbed. */
void fuzz_check_call(const struct call *c, const struct wrap_config *cfg)
{
    if (c->kind > KIND_OTHER || !c->reason)
        fuzz_fail("kind %d, action %d, reason %s", (int)c->kind, (int)c->action,
                  c->reason ? c->reason : "NULL");
    for (size_t i = 0; i < c->argv.n; i++)
        if (!c->argv.v[i])
            fuzz_fail("argv[%zu] of %zu is NULL", i, c->argv.n);
    if (c->argv.v && c->argv.v[c->argv.n])
        fuzz_fail("argv is not NULL-terminated");
    if ((c->depfile != NULL) != (c->dep_targets.n > 0))
        fuzz_fail("depfile %s with %zu depfile targets", c->depfile ? c->depfile : "NULL",
                  c->dep_targets.n);
    if (c->kind != KIND_TU) {
        if (c->action != ACTION_DIRECT && c->action != ACTION_CACHE)
            fuzz_fail("a %s call with action %d", kind_name(c->kind), (int)c->action);
        if (c->key || c->owner || c->depfile)
            fuzz_fail("a %s call has a key, owner or depfile", kind_name(c->kind));
        return;
    }
    if (!c->source || !c->output || !c->key)
        fuzz_fail("a TU without source, output or key");
    if (!key_canonical(c->key))
        fuzz_fail("key \"%s\" is not a canonical root-relative path", c->key);
    int sharding = cfg->phase == PHASE_SHARD && cfg->count > 0;
    switch (c->action) {
    case ACTION_DEVICE:
        if (c->owner != cfg->shard)
            fuzz_fail("device code owned by %d in shard %d (key \"%s\")", c->owner, cfg->shard,
                      c->key);
        return;
    case ACTION_PIN:
        if (!sharding || c->owner != cfg->shard)
            fuzz_fail("a pinned TU owned by %d in shard %d, phase %d", c->owner, cfg->shard,
                      (int)cfg->phase);
        return;
    case ACTION_CACHE:
    case ACTION_STUB:
        break;
    default:
        fuzz_fail("a TU with action %d", (int)c->action);
    }
    if (!sharding) {
        if (c->owner || c->action != ACTION_CACHE)
            fuzz_fail("owner %d, action %s outside the shard phase", c->owner,
                      action_name(c->action));
        return;
    }
    if (c->owner < 1 || (!cfg->plan && c->owner > cfg->count))
        fuzz_fail("owner %d of %d shards (key \"%s\")", c->owner, cfg->count, c->key);
    if ((c->owner == cfg->shard) != (c->action == ACTION_CACHE))
        fuzz_fail("owner %d, shard %d, action %s", c->owner, cfg->shard, action_name(c->action));
}
