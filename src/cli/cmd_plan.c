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

/* One plan's making, from its options to the file. */
struct planning {
    const char *out, *pick_s, *root;
    int n, sources, per_cell, latest;
    struct strvec inputs;
    struct costs c;
    struct cell_costs cc;
};

static void planning_release(struct planning *p)
{
    plan_costs_release(&p->c);
    for (size_t i = 0; i < p->cc.n; i++) {
        plan_costs_release(&p->cc.c[i]);
        free(p->cc.cell[i]);
    }
    free(p->cc.c);
    free(p->cc.cell);
    json_decref(p->cc.index);
    sv_clear(&p->inputs);
}

/* The options and the inputs (the words that are no option). */
static int plan_parse(struct planning *p, int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *n_s = NULL;
    p->pick_s = "median";
    p->root = ".";
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return CLI_HELP_SHOWN;
        }
        if (args_value(&a, "-n", &n_s) || args_value(&a, "-o", &p->out) ||
            args_value(&a, "--pick", &p->pick_s) || args_value(&a, "--root", &p->root) ||
            (args_flag(&a, "--sources") && (p->sources = 1)) ||
            (args_flag(&a, "--per-cell") && (p->per_cell = 1)))
            continue;
        if (argv[a.i][0] != '-' || !strcmp(argv[a.i], "-")) {
            sv_push(&p->inputs, argv[a.i++]);
            continue;
        }
        if (!a.error)
            args_unknown(&a);
    }
    p->n = n_s ? parse_count(n_s) : 0;
    p->latest = !strcmp(p->pick_s, "latest");
    if (a.error) {
        /* reported */
    } else if (p->n < 1) {
        report_error(CMD, "-n N is required, 1 <= N <= 100000 (see --help)");
    } else if (!p->latest && strcmp(p->pick_s, "median")) {
        report_error(CMD, "--pick is median or latest, not \"%s\"", p->pick_s);
    } else if (!p->inputs.n && !p->sources) {
        report_error(CMD, "no input: give artifacts, journals or cost tables, or --sources");
    } else if (p->per_cell && p->sources) {
        report_error(CMD, "--per-cell plans from measured times: not with --sources");
    } else {
        return EXIT_OK;
    }
    return EXIT_USAGE;
}

/* The costs: each input's, and with --sources every CUDA source under the root. */
static int plan_read(struct planning *p)
{
    p->c.cmd = CMD;
    int rc = EXIT_OK;
    for (size_t i = 0; i < p->inputs.n && !rc; i++)
        rc = plan_costs_read_input(p->inputs.v[i], &p->c, p->sources, p->per_cell ? &p->cc : NULL);
    if (!rc && p->sources) {
        if (!plat_is_dir(p->root)) {
            report_error(CMD, "--root \"%s\" is not a directory", p->root);
            return EXIT_USAGE;
        }
        plan_costs_walk_sources(p->root, "", &p->c, 0);
    }
    if (!rc && p->c.n == 0) {
        report_error(CMD, "the inputs name no TU (no owned TU with a compile time)");
        rc = EXIT_USAGE;
    }
    return rc;
}

/* With --per-cell: {"format":1,"cells":{...},"default":...}, keys sorted, from the default
 * plan's text and each cell's. */
static char *plan_per_cell(const struct planning *p, char *text)
{
    json_t *doc = json_object(), *cells = json_object();
    json_object_set_new(doc, "format", json_integer(PLAN_FORMAT));
    json_object_set_new(doc, "default", json_loads(text, 0, NULL));
    for (size_t i = 0; i < p->cc.n; i++) {
        struct plan_makespan cms;
        char *one = plan_costs_plan(&p->cc.c[i], p->n, 0, p->latest, &cms);
        json_object_set_new(cells, p->cc.cell[i], json_loads(one, 0, NULL));
        free(one);
    }
    json_object_set_new(doc, "cells", cells);
    free(text);
    text = json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(12));
    json_decref(doc);
    size_t len = strlen(text);
    text = xrealloc(text, len + 2);
    memcpy(text + len, "\n", 2);
    return text;
}

/* The plan to -o (atomically) or to standard output. */
static int plan_write(const struct planning *p, const char *text)
{
    if (p->out) {
        int e = plat_write_atomic(p->out, text, strlen(text));
        if (e) {
            report_error(CMD, "cannot write \"%s\": %s", p->out, plat_strerror(e));
            return EXIT_IO;
        }
    } else if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
        report_error(CMD, "cannot write the plan: %s", strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}

/* The steps of shardcc-plan(1): the costs read, the plan made (a plan per cell with
 * --per-cell), written, and its predicted makespan said. */
int cmd_plan(int argc, char **argv)
{
    struct planning p;
    memset(&p, 0, sizeof p);
    int rc = plan_parse(&p, argc, argv);
    if (rc == EXIT_OK)
        rc = plan_read(&p);
    if (rc == EXIT_OK) {
        struct plan_makespan ms;
        char *text = plan_costs_plan(&p.c, p.n, p.sources, p.latest, &ms);
        if (p.per_cell)
            text = plan_per_cell(&p, text);
        rc = plan_write(&p, text);
        free(text);
        if (!rc && p.per_cell)
            fprintf(stderr, CMD ": a plan per cell for %zu cells, and a default of their %zu TUs\n",
                    p.cc.n, p.c.n);
        if (!rc)
            fprintf(stderr,
                    CMD ": %s%zu TUs over %d shards (%s): makespan %.1f s, hash partition "
                        "%.1f s, ideal %.1f s\n",
                    p.per_cell ? "the default: " : "", p.c.n, p.n,
                    p.sources ? "count-balanced" : "longest first", ms.plan, ms.hash, ms.ideal);
    }
    planning_release(&p);
    return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
}
