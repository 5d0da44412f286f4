/* shardcc merge: unions shard artifacts into a ccache directory (merge.c does the work). */
#include "args.h"
#include "cli.h"
#include "job.h"
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: shardcc merge --cache DIR [--expect-shards N] [--allow-partial]\n"
    "                     [--allow-nondeterministic] ARTIFACT|DIR...\n"
    "\n"
    "Unions shard artifacts (files, or directories of *.tar.zst) into a new ccache directory.\n"
    "They must be exactly shards 1..N of one cell, made with the same N, toolchain\n"
    "fingerprint, shardcc version and plan. Result entries present in two artifacts must be\n"
    "byte-identical (else the TU is named as nondeterministic); direct-mode manifests that\n"
    "collide may differ (the first is kept). Every member is checked before extraction:\n"
    "\"..\", absolute paths, links, devices and anything but ccache entries are refused.\n"
    "The union is built beside DIR and renamed into place only when complete.\n"
    "\n"
    "  --cache DIR                 the cache to create (must not exist, or be empty)\n"
    "  --expect-shards N           fail unless the artifacts are shards of N\n"
    "  --allow-partial             missing shards are a warning, not a failure\n"
    "  --allow-nondeterministic    differing results are a warning, not a failure\n"
    "\n"
    "Exit status: 0 ok, 2 usage (DIR not empty), 3 guard failed (missing, duplicate or foreign\n"
    "artifacts; nondeterministic results), 4 unreadable or unsafe artifact, I/O error.\n";

int cmd_merge(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = "shardcc merge"};
    struct merge_opts o;
    memset(&o, 0, sizeof o);
    o.cmd = "shardcc merge";
    o.inputs = calloc((size_t)argc, sizeof *o.inputs);
    const char *expect = NULL;
    int only_files = 0;
    while (a.i < argc && !a.error) {
        if (only_files || argv[a.i][0] != '-') {
            o.inputs[o.ninputs++] = argv[a.i++];
            continue;
        }
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            free(o.inputs);
            return EXIT_OK;
        }
        if (args_flag(&a, "--")) {
            only_files = 1;
            continue;
        }
        if (args_value(&a, "--cache", &o.cache) || args_value(&a, "--expect-shards", &expect) ||
            (args_flag(&a, "--allow-partial") && (o.allow_partial = 1)) ||
            (args_flag(&a, "--allow-nondeterministic") && (o.allow_nondeterministic = 1)))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    int rc = EXIT_USAGE;
    if (a.error) {
        /* reported */
    } else if (!o.cache) {
        report_error("shardcc merge", "--cache DIR is required (see --help)");
    } else if (expect && (o.expect = parse_count(expect)) < 1) {
        report_error("shardcc merge", "--expect-shards \"%s\" is not a positive number", expect);
    } else if (!o.ninputs) {
        report_error("shardcc merge", "no artifacts given (see --help)");
    } else {
        struct merge_result r;
        rc = merge_run(&o, &r);
        if (rc == EXIT_OK)
            fprintf(stderr,
                    "shardcc merge: %d/%d shards of cell %s: %zu entries (%zu identical "
                    "duplicates, %zu manifests kept) -> %s\n",
                    r.present, r.count, r.cell, r.added, r.same, r.kept, o.cache);
        merge_result_release(&r);
    }
    free(o.inputs);
    return rc;
}
