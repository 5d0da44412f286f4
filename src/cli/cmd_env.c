/* shardcc env: prints the environment that puts the seats in place and configures ccache
 * for one job (a shard I of N, or the link job). `eval "$(shardcc env --shard 2/4)"`
 * turns any build in that shell into shard 2 of 4. */
#include "args.h"
#include "cli.h"
#include "job.h"
#include "jobenv.h"
#include "seat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: shardcc env [--shard I/N | --plain] [--cell ID] [--root DIR] [--cache DIR]\n"
    "                   [--journal FILE] [--format sh|powershell|cmd|json]\n"
    "                   [--[no-]host-seat]\n"
    "                   [--[no-]cuda-home-seat] [--relocatable] [--[no-]reproducible]\n"
    "                   [--split-archs N] [--plan FILE]\n"
    "                   [--pin GLOB]... [--real-nvcc PATH] [--real-cxx PATH] [--real-cc PATH]\n"
    "                   [--ccache PATH] [--cuda X.Y] [--remote URL] [--run-id ID]\n"
    "                   [--seed-from SRC]\n"
    "\n"
    "Prints the environment for one job. With --shard I/N (1 <= I <= N): a shard, whose\n"
    "seats compile the TUs shard I owns through ccache and stub the rest. Without it: the\n"
    "link job, which caches every compile and stubs nothing.\n"
    "\n"
    "  --shard I/N      this job is shard I of N\n"
    "  --plain          an unsharded build through the seats (SHARDCC_PHASE=plain): every\n"
    "                   compile runs the real compiler directly, no cache, no stubs, with the\n"
    "                   seats' changes to TU arguments (reproducible objects), journaled: the\n"
    "                   baseline a link job's products equal byte for byte\n"
    "  --cell ID        the cell: with a plan per cell (see shardcc plan), the seats follow\n"
    "                   its section (default: the plan's default section)\n"
    "  --root DIR       the project root; TU keys are relative to it (default: .)\n"
    "  --cache DIR      the job's ccache directory (default: ROOT/.shardcc/cache)\n"
    "  --journal FILE   where the seats record each call (default: ROOT/.shardcc/journal.tsv)\n"
    "  --format F       sh (default; for eval in a POSIX shell, Git Bash included),\n"
    "                   powershell (for Invoke-Expression: $env:NAME = '...' and\n"
    "                   Remove-Item Env:NAME), cmd (a batch file to call: set \"NAME=...\"\n"
    "                   with % doubled; a value with a line break or a \" cannot be held\n"
    "                   there: exit 2) or json ({\"set\": {...}, \"unset\": [...]})\n"
    "  --host-seat, --no-host-seat\n"
    "                   the host seats shardcc-c++/shardcc-cc in CXX/CC shard every host TU,\n"
    "                   or CXX/CC are left alone (default: they are seats that shard the\n"
    "                   TUs of torch extensions, which define TORCH_EXTENSION_NAME, and run\n"
    "                   every other call as the real compiler: a build may run a tool it\n"
    "                   compiled, and in a shard that tool would be a placeholder; a CXX\n"
    "                   or CC that is a command line, not one program, is left alone)\n"
    "  --cuda-home-seat, --no-cuda-home-seat\n"
    "                   always, or never, seat $CUDA_HOME/bin/nvcc (default: where it is safe,\n"
    "                   that is when the nvcc torch would run is CMake's and lives in a CUDA\n"
    "                   toolkit of its own, not /usr): CUDA_HOME, CUDA_PATH and the front of\n"
    "                   PATH name ROOT/.shardcc/cuda-home, where bin/nvcc is the seat and every\n"
    "                   other entry links to the real toolkit (for builds that run\n"
    "                   $CUDA_HOME/bin/nvcc or nvcc from PATH: torch without ninja, older torch,\n"
    "                   setup.py files that overwrite PYTORCH_NVCC). The seat runs\n"
    "                   $CUDA_HOME/bin/nvcc as the caller spells it and gives the compiler\n"
    "                   the caller's toolkit path wherever an argument names the shadow, so\n"
    "                   the objects are the unsharded build's\n"
    "  --remote URL     ccache's remote storage (else SHARDCC_REMOTE; see shardcc shard):\n"
    "                   CCACHE_REMOTE_STORAGE, read-only without --shard; without it\n"
    "                   CCACHE_REMOTE_STORAGE is empty, whatever ccache.conf names\n"
    "  --run-id ID      checked only: the run id shardcc shard and link name manifests "
    "by\n" CLI_HELP_SEED
    "  --plan FILE      a shard plan (shardcc plan): with --shard, the seats give each key\n"
    "                   it names to its shard and hash the others (SHARDCC_PLAN)\n"
    "  --pin GLOB       with --shard: the TUs whose key matches GLOB ('*' matches '/' too)\n"
    "                   are compiled in every shard (SHARDCC_PIN; repeatable): the sources\n"
    "                   of a tool the build runs, which a shard would otherwise link as a\n"
    "                   placeholder\n"
    "  --relocatable    set CCACHE_BASEDIR=ROOT: jobs may run at different paths, but ccache\n"
    "                   then hands the compiler relative paths, so debug info and __FILE__\n"
    "                   differ from an unsharded build's (default: off, CCACHE_BASEDIR unset,\n"
    "                   and every job must run at the same root)\n"
    "  --reproducible, --no-reproducible\n"
    "                   whether the nvcc seats compile a TU as nvcc's own steps (nvcc -dryrun)\n"
    "                   with temporary names of their own, tmpxft_<hash of the object's\n"
    "                   path> instead of tmpxft_<pid>_<counter> (SHARDCC_REPRODUCIBLE=1): a TU\n"
    "                   compiled with the same -o is the same bytes in every job and every run\n"
    "                   (shardcc compare with its exact option), and a plain nvcc's up to\n"
    "                   temp names. A call whose plan they cannot run is nvcc's whole, with\n"
    "                   nvcc's objdir-as-tempdir option. Default: on where every nvcc of the\n"
    "                   job lists that option in its help; --reproducible with one that does\n"
    "                   not: exit 2. Give every job the same, or the link job's keys match no\n"
    "                   shard's\n"
    "  --split-archs N  a TU that the nvcc seats compile reproducibly, with N real\n"
    "                   architectures or more (ptxas targets in nvcc's plan), is split: its\n"
    "                   device items (per virtual architecture: preprocessor, cicc, ptxas)\n"
    "                   are owned by shards (round robin from the TU's hash owner, or a\n"
    "                   plan's KEY#ITEM lines), which keep them in the seat's store in the\n"
    "                   job's cache; the link job assembles the object from them, the\n"
    "                   unsplit object's bytes\n"
    "                   (SHARDCC_SPLIT_ARCHS; default 0: only what a plan splits, from\n"
    "                   the items' times the shards measure). A TU the plan names whole\n"
    "                   is not split\n" CLI_HELP_TOOLS "\n"
    "Sets: SHARDCC_ROOT SHARDCC_PHASE SHARDCC_SHARD SHARDCC_REAL_NVCC SHARDCC_REAL_NVCC_TORCH\n"
    "SHARDCC_REAL_CXX SHARDCC_REAL_CC SHARDCC_CCACHE SHARDCC_JOURNAL PYTORCH_NVCC (the\n"
    "shardcc-nvcc-torch seat: it runs the nvcc torch would run, $CUDA_HOME/bin/nvcc)\n"
    "CUDACXX (shardcc-nvcc: CUDACXX's or PATH's nvcc, as CMake) [CXX CC SHARDCC_HOST_SEAT]\n"
    "[CUDA_HOME CUDA_PATH PATH SHARDCC_CUDA_SHADOW SHARDCC_CUDA_REAL CFLAGS CXXFLAGS:\n"
    "-fdebug-prefix-map=SHADOW=REAL appended, for compilers not behind a seat]\n"
    "[SHARDCC_PIN] PATH and COMPILER_PATH (the linker seat's directory first: ld, ld.bfd,\n"
    "ld.gold, ld.lld and ld.mold; in a shard, a link with stub inputs writes a placeholder\n"
    "executable or links a library with unresolved symbols allowed; in the link job it fails)\n"
    "CCACHE_DIR SHARDCC_CCACHE_DIR [CCACHE_BASEDIR] [SHARDCC_REPRODUCIBLE] SHARDCC_SPLIT_ARCHS\n"
    "CCACHE_NOHASHDIR CCACHE_MAXSIZE CCACHE_SLOPPINESS CCACHE_COMPILERCHECK\n"
    "(string:<toolchain fingerprint>)\n"
    "CCACHE_DISABLE=1\n"
    "(a ccache launcher of the build's own passes calls on; the seat's ccache runs).\n"
    "Exit status: 0 ok, 2 usage or configuration error, 4 I/O error.\n";

/* PowerShell: a single-quoted string takes everything as is, '' for a quote (PowerShell also
 * ends one at the typographic quotes U+2018-U+201B, which are doubled too). */
static void print_ps_quoted(const char *s)
{
    putchar('\'');
    while (*s) {
        const unsigned char *u = (const unsigned char *)s;
        size_t n = u[0] == 0xE2 && u[1] == 0x80 && u[2] >= 0x98 && u[2] <= 0x9B ? 3 : 1;
        if (n == 3 || *s == '\'')
            fwrite(s, 1, n, stdout); /* doubled */
        fwrite(s, 1, n, stdout);
        s += n;
    }
    putchar('\'');
}

/* cmd: set "NAME=value" in a batch file. Inside the quotes & | < > ^ are plain; % is
 * doubled (a batch file reads %% as %). A line break cannot be held, nor a " (the quotes
 * would end), nor a ! under delayed expansion: those values are refused. */
static const char *cmd_unsafe(const char *v)
{
    if (strpbrk(v, "\r\n"))
        return "a line break";
    if (strchr(v, '"'))
        return "a double quote";
    return NULL;
}

static void print_cmd_value(const char *s)
{
    for (; *s; s++) {
        if (*s == '%')
            putchar('%');
        putchar(*s);
    }
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
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = "shardcc env"};
    struct jobenv_opts o;
    memset(&o, 0, sizeof o);
    o.print_only = 1; /* a printing command: the cache and journal directories come later */
    const char *shard = NULL, *format = "sh";
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (args_value(&a, "--shard", &shard) || args_value(&a, "--format", &format) ||
            args_value(&a, "--cell", &o.cell) || (args_flag(&a, "--plain") && (o.plain = 1)) ||
            jobenv_arg(&a, &o))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error)
        return EXIT_USAGE;
    if (shard && parse_shard_spec(shard, &o.shard, &o.count) != 0) {
        report_error("shardcc env", "--shard \"%s\" is not I/N with 1 <= I <= N", shard);
        return EXIT_USAGE;
    }
    if (shard && o.plain) {
        report_error("shardcc env", "--plain and --shard: a plain build is not a shard; give one");
        return EXIT_USAGE;
    }
    if (!strcmp(format, "pwsh"))
        format = "powershell";
    if (strcmp(format, "sh") != 0 && strcmp(format, "json") != 0 &&
        strcmp(format, "powershell") != 0 && strcmp(format, "cmd") != 0) {
        report_error("shardcc env", "--format \"%s\" is not sh, powershell, cmd or json", format);
        return EXIT_USAGE;
    }
    struct jobenv env;
    int rc = jobenv_build(&o, &env, "shardcc env");
    if (rc)
        return rc;
    if (strcmp(format, "json") == 0) {
        json_t *doc = json_pack("{s:O, s:O}", "set", env.set, "unset", env.unset);
        char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(doc);
    } else if (strcmp(format, "cmd") == 0) {
        const char *k, *why = NULL;
        json_t *v;
        json_object_foreach(env.set, k, v)
        {
            if ((why = cmd_unsafe(json_string_value(v))) != NULL) {
                report_error("shardcc env",
                             "--format cmd: %s=\"%s\" holds %s, which a batch file's set "
                             "cannot hold; use --format powershell or json",
                             k, json_string_value(v), why);
                jobenv_release(&env);
                return EXIT_USAGE;
            }
        }
        puts("@echo off");
        json_object_foreach(env.set, k, v)
        {
            printf("set \"%s=", k);
            print_cmd_value(json_string_value(v));
            puts("\"");
        }
        size_t i;
        json_array_foreach(env.unset, i, v) printf("set \"%s=\"\n", json_string_value(v));
    } else {
        int ps = strcmp(format, "powershell") == 0;
        const char *k;
        json_t *v;
        json_object_foreach(env.set, k, v)
        {
            printf(ps ? "$env:%s = " : "export %s=", k);
            (ps ? print_ps_quoted : print_sh_quoted)(json_string_value(v));
            putchar('\n');
        }
        size_t i;
        json_array_foreach(env.unset, i, v)
        {
            if (ps)
                printf("Remove-Item -ErrorAction SilentlyContinue Env:%s\n", json_string_value(v));
            else
                printf("unset %s\n", json_string_value(v));
        }
    }
    jobenv_release(&env);
    return EXIT_OK; /* main() flushes standard output and reports a failure */
}
