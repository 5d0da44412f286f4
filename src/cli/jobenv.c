/* jobenv: building and applying one job's environment (see jobenv.h). */
#include "jobenv.h"
#include "classify.h"
#include "path.h"
#include "platform.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vreport(const char *level, const char *gh, const char *cmd, const char *fmt, va_list ap)
{
    const char *ga = getenv("GITHUB_ACTIONS");
    struct strbuf m = STRBUF_INIT;
    if (ga && strcmp(ga, "true") == 0)
        sb_adds(&m, gh);
    sb_addf(&m, "%s: %s", cmd, level);
    sb_vaddf(&m, fmt, ap);
    sb_addc(&m, '\n');
    fflush(stdout);
    fputs(sb_str(&m), stderr);
    sb_release(&m);
}

void report_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", "::error::", cmd, fmt, ap);
    va_end(ap);
}

void report_warning(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", "::warning::", cmd, fmt, ap);
    va_end(ap);
}

int jobenv_arg(struct args *a, struct jobenv_opts *o)
{
    return args_value(a, "--root", &o->root) || args_value(a, "--cache", &o->cache) ||
           args_value(a, "--journal", &o->journal) || args_value(a, "--real-nvcc", &o->real_nvcc) ||
           args_value(a, "--real-cxx", &o->real_cxx) || args_value(a, "--real-cc", &o->real_cc) ||
           args_value(a, "--ccache", &o->ccache) ||
           (args_flag(a, "--host-seat") && (o->host_seat = 1));
}

static void add(json_t *vars, const char *name, const char *value)
{
    json_object_set_new(vars, name, json_string(value));
}

static char *parent_dir(const char *path)
{
    return xstrndup(path, (size_t)(path_basename(path) - path));
}

int jobenv_build(const struct jobenv_opts *o, struct jobenv *env, const char *cmd)
{
    memset(env, 0, sizeof *env);
    struct strbuf sb = STRBUF_INIT, cwd = STRBUF_INIT;
    const char *root = o->root ? o->root : ".";
    if (plat_realpath(root, &sb) != 0) {
        report_error(cmd, "--root \"%s\": %s", root, strerror(errno));
        return EXIT_USAGE;
    }
    env->root = sb_detach(&sb);
    plat_getcwd(&cwd);
    if (o->cache)
        path_absolute(sb_str(&cwd), o->cache, &sb);
    else
        sb_addf(&sb, "%s/.shardcc/cache", env->root);
    env->cache = sb_detach(&sb);
    if (o->journal)
        path_absolute(sb_str(&cwd), o->journal, &sb);
    else
        sb_addf(&sb, "%s/.shardcc/journal.tsv", env->root);
    env->journal = sb_detach(&sb);
    sb_release(&cwd);

    int rc = toolchain_find(&env->tc, o->real_nvcc, o->real_cxx, o->real_cc, o->ccache);
    if (rc)
        return rc;
    rc = toolchain_fingerprint(&env->tc, &sb);
    if (rc)
        return rc;
    env->fingerprint = sb_detach(&sb);
    struct strbuf bindir = STRBUF_INIT;
    if (cli_bindir(&bindir) != 0) {
        report_error(cmd, "cannot find the directory of the shardcc binary");
        return EXIT_IO;
    }
    char *jdir = parent_dir(env->journal);
    const char *dirs[] = {jdir, env->cache};
    for (size_t i = 0; i < 2; i++) {
        int e = plat_mkdir_p(dirs[i]);
        if (e) {
            report_error(cmd, "cannot create \"%s\": %s", dirs[i], strerror(e));
            free(jdir);
            return EXIT_IO;
        }
    }
    free(jdir);

    json_t *v = env->set = json_object();
    env->unset = json_array();
    add(v, "SHARDCC_ROOT", env->root);
    add(v, "SHARDCC_PHASE", o->count ? "shard" : "link");
    if (o->count) {
        sb_addf(&sb, "%d/%d", o->shard, o->count);
        add(v, "SHARDCC_SHARD", sb_str(&sb));
        sb_reset(&sb);
    } else {
        json_array_append_new(env->unset, json_string("SHARDCC_SHARD"));
    }
    json_array_append_new(env->unset, json_string("SHARDCC_DEPTH"));
    add(v, "SHARDCC_REAL_NVCC", env->tc.nvcc);
    add(v, "SHARDCC_REAL_CXX", env->tc.cxx);
    add(v, "SHARDCC_REAL_CC", env->tc.cc);
    add(v, "SHARDCC_CCACHE", env->tc.ccache);
    add(v, "SHARDCC_JOURNAL", env->journal);
    sb_addf(&sb, "%s/shardcc-nvcc", sb_str(&bindir));
    add(v, "PYTORCH_NVCC", sb_str(&sb));
    add(v, "CUDACXX", sb_str(&sb));
    sb_reset(&sb);
    if (o->host_seat) {
        sb_addf(&sb, "%s/shardcc-c++", sb_str(&bindir));
        add(v, "CXX", sb_str(&sb));
        sb_reset(&sb);
        sb_addf(&sb, "%s/shardcc-cc", sb_str(&bindir));
        add(v, "CC", sb_str(&sb));
        sb_reset(&sb);
    }
    add(v, "CCACHE_DIR", env->cache);
    add(v, "CCACHE_BASEDIR", env->root);
    add(v, "CCACHE_NOHASHDIR", "1");
    add(v, "CCACHE_MAXSIZE", "0");
    add(v, "CCACHE_SLOPPINESS", "include_file_mtime,include_file_ctime,time_macros,locale");
    sb_addf(&sb, "string:%s", env->fingerprint);
    add(v, "CCACHE_COMPILERCHECK", sb_str(&sb));
    sb_release(&sb);
    sb_release(&bindir);
    return EXIT_OK;
}

void jobenv_apply(const struct jobenv *env)
{
    const char *k;
    json_t *v;
    json_object_foreach(env->set, k, v) setenv(k, json_string_value(v), 1);
    size_t i;
    json_array_foreach(env->unset, i, v) unsetenv(json_string_value(v));
}

void jobenv_release(struct jobenv *env)
{
    json_decref(env->set);
    json_decref(env->unset);
    free(env->root);
    free(env->cache);
    free(env->journal);
    free(env->fingerprint);
    toolchain_release(&env->tc);
    memset(env, 0, sizeof *env);
}
