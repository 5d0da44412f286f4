/* shardcc env: prints the environment that puts the seats in place and configures ccache
 * for one job (a shard I of N, or the link job). `eval "$(shardcc env --shard 2/4)"`
 * turns any build in that shell into shard 2 of 4. */
#include "args.h"
#include "classify.h"
#include "cli.h"
#include "path.h"
#include "platform.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: shardcc env [--shard I/N] [--root DIR] [--cache DIR] [--journal FILE]\n"
    "                   [--format sh|json] [--host-seat] [--real-nvcc PATH]\n"
    "                   [--real-cxx PATH] [--real-cc PATH] [--ccache PATH]\n"
    "\n"
    "Prints the environment for one job. With --shard I/N (1 <= I <= N): a shard, whose\n"
    "seats compile the TUs shard I owns through ccache and stub the rest. Without it: the\n"
    "link job, which caches every compile and stubs nothing.\n"
    "\n"
    "  --shard I/N      this job is shard I of N\n"
    "  --root DIR       the project root; TU keys are relative to it (default: .)\n"
    "  --cache DIR      the job's ccache directory (default: ROOT/.shardcc/cache)\n"
    "  --journal FILE   where the seats record each call (default: ROOT/.shardcc/journal.tsv)\n"
    "  --format F       sh (default; for eval) or json\n"
    "  --host-seat      also put shardcc-c++/shardcc-cc in CXX/CC\n"
    "  --real-nvcc, --real-cxx, --real-cc, --ccache PATH\n"
    "                   the real tools (default: found on PATH, CUDA_HOME, /usr/local/cuda)\n"
    "\n"
    "Sets: SHARDCC_ROOT SHARDCC_PHASE SHARDCC_SHARD SHARDCC_REAL_NVCC SHARDCC_REAL_CXX\n"
    "SHARDCC_REAL_CC SHARDCC_CCACHE SHARDCC_JOURNAL PYTORCH_NVCC CUDACXX [CXX CC]\n"
    "CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_MAXSIZE CCACHE_SLOPPINESS\n"
    "CCACHE_COMPILERCHECK (string:<toolchain fingerprint>).\n"
    "Exit status: 0 ok, 2 usage or configuration error, 4 I/O error.\n";

static void add(json_t *vars, const char *name, const char *value)
{
    json_object_set_new(vars, name, json_string(value));
}

static void print_sh_quoted(const char *s)
{
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

int cmd_env(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "shardcc env", 0};
    const char *shard = NULL, *root = ".", *cache = NULL, *journal = NULL, *format = "sh";
    const char *rnvcc = NULL, *rcxx = NULL, *rcc = NULL, *rccache = NULL;
    int host_seat = 0;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (args_value(&a, "--shard", &shard) || args_value(&a, "--root", &root) ||
            args_value(&a, "--cache", &cache) || args_value(&a, "--journal", &journal) ||
            args_value(&a, "--format", &format) || args_value(&a, "--real-nvcc", &rnvcc) ||
            args_value(&a, "--real-cxx", &rcxx) || args_value(&a, "--real-cc", &rcc) ||
            args_value(&a, "--ccache", &rccache) ||
            (args_flag(&a, "--host-seat") && (host_seat = 1)))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    int si = 0, sn = 0;
    if (shard && parse_shard_spec(shard, &si, &sn) != 0) {
        fprintf(stderr, "shardcc env: --shard \"%s\" is not I/N with 1 <= I <= N\n", shard);
        return EXIT_USAGE;
    }
    if (strcmp(format, "sh") != 0 && strcmp(format, "json") != 0) {
        fprintf(stderr, "shardcc env: --format \"%s\" is not sh or json\n", format);
        return EXIT_USAGE;
    }
    struct strbuf rroot = STRBUF_INIT, cwd = STRBUF_INIT, tmp = STRBUF_INIT;
    if (plat_realpath(root, &rroot) != 0) {
        fprintf(stderr, "shardcc env: --root \"%s\": %s\n", root, strerror(errno));
        return EXIT_USAGE;
    }
    plat_getcwd(&cwd);
    struct strbuf rcache = STRBUF_INIT, rjournal = STRBUF_INIT;
    if (cache)
        path_absolute(sb_str(&cwd), cache, &rcache);
    else
        sb_addf(&rcache, "%s/.shardcc/cache", sb_str(&rroot));
    if (journal)
        path_absolute(sb_str(&cwd), journal, &rjournal);
    else
        sb_addf(&rjournal, "%s/.shardcc/journal.tsv", sb_str(&rroot));

    struct toolchain tc;
    int rc = toolchain_find(&tc, rnvcc, rcxx, rcc, rccache);
    if (rc)
        return rc;
    struct strbuf fp = STRBUF_INIT, bindir = STRBUF_INIT;
    rc = toolchain_fingerprint(&tc, &fp);
    if (rc)
        return rc;
    if (cli_bindir(&bindir) != 0) {
        fprintf(stderr, "shardcc env: cannot find the directory of the shardcc binary\n");
        return EXIT_IO;
    }
    sb_add(&tmp, rjournal.buf, (size_t)(path_basename(rjournal.buf) - rjournal.buf));
    const char *dirs[] = {sb_str(&tmp), sb_str(&rcache)};
    for (size_t i = 0; i < 2; i++) {
        int e = plat_mkdir_p(dirs[i]);
        if (e) {
            fprintf(stderr, "shardcc env: cannot create \"%s\": %s\n", dirs[i], strerror(e));
            return EXIT_IO;
        }
    }

    json_t *vars = json_object();
    add(vars, "SHARDCC_ROOT", sb_str(&rroot));
    add(vars, "SHARDCC_PHASE", shard ? "shard" : "link");
    if (shard) {
        sb_reset(&tmp);
        sb_addf(&tmp, "%d/%d", si, sn);
        add(vars, "SHARDCC_SHARD", sb_str(&tmp));
    }
    add(vars, "SHARDCC_REAL_NVCC", tc.nvcc);
    add(vars, "SHARDCC_REAL_CXX", tc.cxx);
    add(vars, "SHARDCC_REAL_CC", tc.cc);
    add(vars, "SHARDCC_CCACHE", tc.ccache);
    add(vars, "SHARDCC_JOURNAL", sb_str(&rjournal));
    sb_reset(&tmp);
    sb_addf(&tmp, "%s/shardcc-nvcc", sb_str(&bindir));
    add(vars, "PYTORCH_NVCC", sb_str(&tmp));
    add(vars, "CUDACXX", sb_str(&tmp));
    if (host_seat) {
        sb_reset(&tmp);
        sb_addf(&tmp, "%s/shardcc-c++", sb_str(&bindir));
        add(vars, "CXX", sb_str(&tmp));
        sb_reset(&tmp);
        sb_addf(&tmp, "%s/shardcc-cc", sb_str(&bindir));
        add(vars, "CC", sb_str(&tmp));
    }
    add(vars, "CCACHE_DIR", sb_str(&rcache));
    add(vars, "CCACHE_BASEDIR", sb_str(&rroot));
    add(vars, "CCACHE_NOHASHDIR", "1");
    add(vars, "CCACHE_MAXSIZE", "0");
    add(vars, "CCACHE_SLOPPINESS", "include_file_mtime,include_file_ctime,time_macros,locale");
    sb_reset(&tmp);
    sb_addf(&tmp, "string:%s", sb_str(&fp));
    add(vars, "CCACHE_COMPILERCHECK", sb_str(&tmp));

    if (strcmp(format, "json") == 0) {
        json_t *doc = json_pack("{s:o, s:[s]}", "set", vars, "unset",
                                shard ? "SHARDCC_DEPTH" : "SHARDCC_SHARD");
        if (!shard)
            json_array_append_new(json_object_get(doc, "unset"), json_string("SHARDCC_DEPTH"));
        char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(doc);
    } else {
        const char *k;
        json_t *v;
        json_object_foreach(vars, k, v)
        {
            printf("export %s=", k);
            print_sh_quoted(json_string_value(v));
            putchar('\n');
        }
        if (!shard)
            puts("unset SHARDCC_SHARD");
        puts("unset SHARDCC_DEPTH");
        json_decref(vars);
    }
    toolchain_release(&tc);
    sb_release(&rroot);
    sb_release(&cwd);
    sb_release(&tmp);
    sb_release(&rcache);
    sb_release(&rjournal);
    sb_release(&fp);
    sb_release(&bindir);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_IO;
}
