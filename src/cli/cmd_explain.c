/* shardcc explain: why the link job's misses missed. */
#include "args.h"
#include "artifact.h"
#include "cli.h"
#include "explain.h"
#include "job.h"
#include "platform.h"
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc explain"

static const char usage[] =
    "usage: shardcc explain --artifacts DIR|FILE... [--journal FILE] [--root DIR]\n"
    "\n"
    "For every TU compile of the link job that was not a cache hit, compares what its owner\n"
    "shard ran (the canonical arguments recorded in its artifact: options files expanded,\n"
    "NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS folded in, the depfile options) with what the link\n"
    "job ran, and prints the arguments only one side had. When they are the same (the\n"
    "toolchain fingerprint is checked before the link build), an input differed: a header\n"
    "or a generated file; it says how to see which. shardcc link prints this when its\n"
    "hit-rate guard fails.\n"
    "\n"
    "  --artifacts P...  the shards' artifacts (files, or directories of *.tar.zst)\n"
    "  --journal FILE    the link job's journal (default ROOT/.shardcc/link/journal.tsv)\n"
    "  --root DIR        the project root (default .)\n"
    "\n"
    "Exit status: 0 ok (also when nothing missed), 2 usage, 4 an unreadable artifact or\n"
    "journal.\n";

int cmd_explain(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    struct merge_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.cmd = CMD;
    mo.inputs = calloc((size_t)argc, sizeof *mo.inputs);
    const char *journal = NULL, *root = ".";
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            free(mo.inputs);
            return EXIT_OK;
        }
        if (args_values(&a, "--artifacts", mo.inputs, &mo.ninputs))
            continue;
        if (args_value(&a, "--journal", &journal) || args_value(&a, "--root", &root))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    if (a.error || !mo.ninputs) {
        if (!a.error)
            report_error(CMD, "--artifacts is required (see --help)");
        free(mo.inputs);
        return EXIT_USAGE;
    }
    struct shard_manifests sm;
    int rc = shard_manifests_load(&mo, &sm);
    free(mo.inputs);
    struct strbuf jp = STRBUF_INIT;
    if (journal)
        sb_adds(&jp, journal);
    else
        sb_addf(&jp, "%s/.shardcc/link/journal.tsv", root);
    struct jrnl j;
    memset(&j, 0, sizeof j);
    if (!rc) {
        int e = jrnl_load(sb_str(&jp), &j);
        if (e) {
            report_error(CMD, "cannot read the journal \"%s\": %s", sb_str(&jp), plat_strerror(e));
            rc = EXIT_IO;
        } else if (j.n == 0) {
            report_error(CMD, "the journal \"%s\" is empty or missing (has the link job run?)",
                         sb_str(&jp));
            rc = EXIT_IO;
        }
    }
    if (!rc) {
        size_t k = explain_misses(sm.m, sm.n, &j, stdout);
        if (!k)
            printf("explain: every TU compile of the link job was a cache hit\n");
    }
    jrnl_release(&j);
    shard_manifests_release(&sm);
    sb_release(&jp);
    return rc;
}
