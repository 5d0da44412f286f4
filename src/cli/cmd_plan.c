/* shardcc plan: assigns TU keys to shards from measured compile times (longest processing
 * time first) or, with no timings yet, by count (--sources), and predicts the makespans. */
#include "args.h"
#include "cli.h"
#include "job.h"
#include "plan.h"
#include "plan_costs.h"
#include "platform.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc plan"

static const char usage[] =
    "usage: shardcc plan -n N [-o FILE] [--pick median|latest] [--per-cell] INPUT...\n"
    "       shardcc plan -n N [-o FILE] --sources [--root DIR] [INPUT...]\n"
    "\n"
    "Assigns the TUs of a build to N shards. From measured compile times: longest\n"
    "processing time first (the costliest TU to the least loaded shard; ties by key, then by\n"
    "the lower shard), then moves and swaps off the busiest shard while they lower it. A TU\n"
    "whose device items were measured (a split TU's, KEY#compute_90) is placed as its items\n"
    "when it costs more than a shard's share, and more such TUs while the makespan is over\n"
    "1.03 x the ideal. With --sources, when there are no timings yet: every source file\n"
    "under the root (and every key the inputs saw) counts 1, so the shards get equal\n"
    "counts and none is empty while there are at least N TUs.\n"
    "\n"
    "  INPUT           a shard artifact (*.tar.zst: its manifest's owned TUs and the split\n"
    "                  TUs' items it stored), a directory of them, a journal (journal.tsv:\n"
    "                  its cached TU records and item lines) or a cost table (lines\n"
    "                  KEY<TAB>SECONDS or KEY#ITEM<TAB>SECONDS; # comments). Pinned TUs and\n"
    "                  device-code outputs are left out: every shard makes them\n"
    "  -n N            the number of shards\n"
    "  -o FILE         write the plan there (atomically); default standard output\n"
    "  --pick P        a key measured several times: median (default) or latest (the last\n"
    "                  input that measured it)\n"
    "  --sources       count-balanced over the sources under --root (default .): .cu .cpp\n"
    "                  .cc .cxx .c files, not under .shardcc/, .git/ or build directories\n"
    "  --per-cell      a plan per cell, from artifacts only (their manifests name the cell):\n"
    "                  {\"format\": 1, \"cells\": {CELL: plan, ...}, \"default\": plan of\n"
    "                  every cell's times}; a job follows its cell's section, a cell it\n"
    "                  lacks the default\n"
    "\n"
    "The plan (JSON, the same bytes for the same input): format, n, assign (key -> shard),\n"
    "cost (key -> seconds), and the predicted makespans of the plan and of the hash\n"
    "partition against the ideal max(total / N, longest TU). Give it to every shard job\n"
    "(the plan option of shardcc shard and link); keys it lacks fall back to the hash\n"
    "partition.\n"
    "\n"
    "Exit status: 0 ok, 2 usage, 4 an unreadable input or output.\n";

int cmd_plan(int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *n_s = NULL, *out = NULL, *pick_s = "median", *root = ".";
    int sources = 0, per_cell = 0;
    struct strvec inputs = STRVEC_INIT;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            sv_clear(&inputs);
            return EXIT_OK;
        }
        if (args_value(&a, "-n", &n_s) || args_value(&a, "-o", &out) ||
            args_value(&a, "--pick", &pick_s) || args_value(&a, "--root", &root) ||
            (args_flag(&a, "--sources") && (sources = 1)) ||
            (args_flag(&a, "--per-cell") && (per_cell = 1)))
            continue;
        if (argv[a.i][0] != '-' || !strcmp(argv[a.i], "-")) {
            sv_push(&inputs, argv[a.i++]);
            continue;
        }
        if (!a.error)
            args_unknown(&a);
    }
    int n = n_s ? parse_count(n_s) : 0, latest = !strcmp(pick_s, "latest");
    int rc = EXIT_USAGE;
    if (a.error) {
        /* reported */
    } else if (n < 1) {
        report_error(CMD, "-n N is required, 1 <= N <= 100000 (see --help)");
    } else if (!latest && strcmp(pick_s, "median")) {
        report_error(CMD, "--pick is median or latest, not \"%s\"", pick_s);
    } else if (!inputs.n && !sources) {
        report_error(CMD, "no input: give artifacts, journals or cost tables, or --sources");
    } else if (per_cell && sources) {
        report_error(CMD, "--per-cell plans from measured times: not with --sources");
    } else {
        rc = EXIT_OK;
    }
    struct costs c = {.cmd = CMD};
    struct cell_costs cc = {0};
    for (size_t i = 0; i < inputs.n && !rc; i++)
        rc = plan_costs_read_input(inputs.v[i], &c, sources, per_cell ? &cc : NULL);
    if (!rc && sources) {
        if (!plat_is_dir(root)) {
            report_error(CMD, "--root \"%s\" is not a directory", root);
            rc = EXIT_USAGE;
        } else {
            plan_costs_walk_sources(root, "", &c, 0);
        }
    }
    if (!rc && c.n == 0) {
        report_error(CMD, "the inputs name no TU (no owned TU with a compile time)");
        rc = EXIT_USAGE;
    }
    char *text = NULL;
    struct plan_makespan ms;
    if (!rc)
        text = plan_costs_plan(&c, n, sources, latest, &ms);
    if (!rc && per_cell) { /* {"format":1,"cells":{...},"default":...}, keys sorted */
        json_t *doc = json_object(), *cells = json_object();
        json_object_set_new(doc, "format", json_integer(PLAN_FORMAT));
        json_object_set_new(doc, "default", json_loads(text, 0, NULL));
        for (size_t i = 0; i < cc.n; i++) {
            struct plan_makespan cms;
            char *one = plan_costs_plan(&cc.c[i], n, 0, latest, &cms);
            json_object_set_new(cells, cc.cell[i], json_loads(one, 0, NULL));
            free(one);
        }
        json_object_set_new(doc, "cells", cells);
        free(text);
        text = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(12));
        json_decref(doc);
        size_t len = strlen(text);
        text = xrealloc(text, len + 2);
        memcpy(text + len, "\n", 2);
    }
    if (!rc) {
        if (out) {
            int e = plat_write_atomic(out, text, strlen(text));
            if (e) {
                report_error(CMD, "cannot write \"%s\": %s", out, plat_strerror(e));
                rc = EXIT_IO;
            }
        } else if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
            report_error(CMD, "cannot write the plan: %s", strerror(errno));
            rc = EXIT_IO;
        }
    }
    if (!rc && per_cell)
        fprintf(stderr, CMD ": a plan per cell for %zu cells, and a default of their %zu TUs\n",
                cc.n, c.n);
    if (!rc)
        fprintf(stderr,
                CMD ": %s%zu TUs over %d shards (%s): makespan %.1f s, hash partition %.1f s, "
                    "ideal %.1f s\n",
                per_cell ? "the default: " : "", c.n, n,
                sources ? "count-balanced" : "longest first", ms.plan, ms.hash, ms.ideal);
    free(text);
    plan_costs_release(&c);
    for (size_t i = 0; i < cc.n; i++) {
        plan_costs_release(&cc.c[i]);
        free(cc.cell[i]);
    }
    free(cc.c);
    free(cc.cell);
    json_decref(cc.index);
    sv_clear(&inputs);
    return rc;
}
