/* shardcc report: what a cell's shards and link job did, as text or as markdown for a CI
 * step summary (a table per shard, the hit rate, the misses, a Mermaid Gantt chart). */
#include "args.h"
#include "artifact.h"
#include "cli.h"
#include "job.h"
#include "jrnl.h"
#include "merge.h"
#include "plan.h"
#include "platform.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc report"

static const char usage[] =
    "usage: shardcc report --artifacts DIR|FILE... [--root DIR] [--summary FILE]\n"
    "                      [--plan FILE] [--format text|markdown]\n"
    "\n"
    "Reports what a cell's jobs did, from the shards' artifacts (their manifests) and the\n"
    "link job's summary (ROOT/.shardcc/link/summary.json, written by shardcc link): per\n"
    "shard the TUs it owned, their compile seconds and the build's wall seconds; then the\n"
    "link job's wall seconds, hit rate and misses. markdown adds a Mermaid Gantt chart of\n"
    "the shards and the link (GitHub renders it in a step summary: append the output to\n"
    "$GITHUB_STEP_SUMMARY).\n"
    "\n"
    "  --artifacts P...  artifact files or directories of *.tar.zst (values up to the next\n"
    "                    option)\n"
    "  --root DIR        the project root (default: .)\n"
    "  --summary FILE    the link job's summary (default: ROOT/.shardcc/link/summary.json;\n"
    "                    when it is missing the report says the link job did not finish)\n"
    "  --plan FILE       the plan the shards followed: its predicted seconds per shard go\n"
    "                    next to the measured ones\n"
    "  --format F        text (default) or markdown\n"
    "\n"
    "Exit status: 0 ok, 2 usage, 4 an unreadable artifact or summary.\n";

struct shard_row {
    int shard, count;
    size_t owned;
    double compile, wall;
};

static int cmp_row(const void *a, const void *b)
{
    return ((const struct shard_row *)a)->shard - ((const struct shard_row *)b)->shard;
}

static void read_row(json_t *m, struct shard_row *r)
{
    r->shard = (int)json_integer_value(json_object_get(m, "shard"));
    r->count = (int)json_integer_value(json_object_get(m, "count"));
    r->wall = json_number_value(json_object_get(m, "wall_seconds"));
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(m, "tus"), i, t)
    {
        const char *d = json_string_value(json_object_get(t, "decision"));
        if (d && !strcmp(d, "owned")) {
            r->owned++;
            r->compile += json_number_value(json_object_get(t, "seconds"));
        }
    }
}

/* Mermaid task names: no ':' or '#', which end or comment a task line. */

static void gantt_task(const char *name, const char *id, double start, double len)
{
    long s = (long)(start + 0.5), l = (long)(len + 0.5);
    printf("    %s :%s, %ld, %lds\n", name, id, s, l > 0 ? l : 1);
}

int cmd_report(int argc, char **argv)
{
    struct args a = {argc, argv, 1, CMD, 0};
    struct merge_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.cmd = CMD;
    mo.inputs = calloc((size_t)argc, sizeof *mo.inputs);
    const char *root = ".", *summary = NULL, *format = "text", *plan_path = NULL;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            free(mo.inputs);
            return EXIT_OK;
        }
        if (args_values(&a, "--artifacts", mo.inputs, &mo.ninputs))
            continue;
        if (args_value(&a, "--root", &root) || args_value(&a, "--summary", &summary) ||
            args_value(&a, "--format", &format) || args_value(&a, "--plan", &plan_path))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    int md = !strcmp(format, "markdown");
    if (a.error || !mo.ninputs || (!md && strcmp(format, "text"))) {
        if (!a.error)
            fprintf(stderr,
                    mo.ninputs ? CMD ": --format is text or markdown, not \"%s\"\n"
                               : CMD ": --artifacts is required (see --help)\n",
                    format);
        free(mo.inputs);
        return EXIT_USAGE;
    }
    char **files = NULL;
    size_t n = 0;
    int rc = merge_expand_inputs(&mo, &files, &n);
    free(mo.inputs);
    json_t **m = NULL;
    if (!rc)
        rc = artifact_read_manifests(files, n, &m, CMD);
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    if (rc)
        return rc;
    struct shard_row *rows = calloc(n ? n : 1, sizeof *rows);
    for (size_t i = 0; i < n; i++)
        read_row(m[i], &rows[i]);
    qsort(rows, n, sizeof *rows, cmp_row);
    const char *c0 = n ? json_string_value(json_object_get(m[0], "cell")) : NULL;
    struct strbuf cellb = STRBUF_INIT;
    sb_add_printable(&cellb, c0 ? c0 : "?");
    char *cell = sb_detach(&cellb);
    for (size_t i = 0; i < n; i++)
        json_decref(m[i]);
    free(m);

    struct strbuf sp = STRBUF_INIT;
    if (summary)
        sb_adds(&sp, summary);
    else
        sb_addf(&sp, "%s/.shardcc/link/summary.json", root);
    json_error_t jerr;
    json_t *sum = NULL;
    if (plat_file_exists(sb_str(&sp))) {
        sum = json_file_load(sb_str(&sp), JSON_FILE_MAX, &jerr);
        const char *bad = !sum                   ? jerr.text
                          : !json_is_object(sum) ? "not a JSON object"
                                                 : summary_invalid(sum);
        if (bad) {
            report_error(CMD, "cannot read the link summary \"%s\": %s", sb_str(&sp), bad);
            json_decref(sum);
            sb_release(&sp);
            free(rows);
            free(cell);
            return EXIT_IO;
        }
    } else if (summary) {
        report_error(CMD, "cannot read the link summary \"%s\": %s", summary, strerror(ENOENT));
        sb_release(&sp);
        free(rows);
        free(cell);
        return EXIT_IO;
    }
    /* a summary of another cell or an earlier run is not this link job's result: say so and
     * report the link job as not finished, never "every guard passed" from it */
    if (sum) {
        const char *scell = json_string_value(json_object_get(sum, "cell"));
        const char *srun = json_string_value(json_object_get(sum, "run"));
        char *run = ci_run_id();
        const char *why = NULL;
        if (!scell || strcmp(scell, cell) != 0)
            why = "another cell's";
        else if (run && (!srun || strcmp(srun, run) != 0))
            why = "an earlier run's";
        if (why) {
            report_warning(CMD,
                           "\"%s\" is %s link summary (cell %s, run %s; these artifacts are "
                           "cell %s%s%s): ignored, the link job of this cell has not finished",
                           sb_str(&sp), why, scell ? scell : "?", srun ? srun : "none", cell,
                           run ? ", run " : "", run ? run : "");
            json_decref(sum);
            sum = NULL;
        }
        free(run);
    }
    sb_release(&sp);

    json_t *plan = NULL, *plan_file = NULL;
    if (plan_path) {
        plan_file = json_file_load(plan_path, JSON_FILE_MAX, &jerr);
        plan = plan_file ? plan_section(plan_file, c0, NULL) : NULL; /* this cell's */
        if (!plan || !json_is_array(json_object_get(plan, "shards"))) {
            report_error(CMD, "cannot read the plan \"%s\": %s", plan_path,
                         plan_file ? "no shards list for this cell (made by shardcc plan?)"
                                   : jerr.text);
            json_decref(plan_file);
            json_decref(sum);
            free(rows);
            free(cell);
            return plan_file ? EXIT_USAGE : EXIT_IO;
        }
    }
    double slowest = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].wall > slowest)
            slowest = rows[i].wall;
        total += rows[i].compile;
    }
    double link_wall = sum ? json_number_value(json_object_get(sum, "wall_seconds")) : 0;
    if (md) {
        printf("### shardcc: cell `%s`\n\n", cell);
        printf("| job | TUs owned | compile s |%s wall s |\n|---|---:|---:|%s---:|\n",
               plan ? " planned s |" : "", plan ? "---:|" : "");
        for (size_t i = 0; i < n; i++) {
            printf("| shard %d/%d | %zu | %.1f |", rows[i].shard, rows[i].count, rows[i].owned,
                   rows[i].compile);
            if (plan)
                printf(" %.1f |", plan_shard_seconds(plan, rows[i].shard));
            printf(" %.1f |\n", rows[i].wall);
        }
        if (sum)
            printf("| link | - | - |%s %.1f |\n", plan ? " - |" : "", link_wall);
        printf("\n");
    } else {
        printf("cell %s\n%-10s %10s %12s%s %9s\n", cell, "job", "TUs owned", "compile s",
               plan ? "    planned s" : "", "wall s");
        for (size_t i = 0; i < n; i++) {
            printf("%4d/%-5d %10zu %12.1f", rows[i].shard, rows[i].count, rows[i].owned,
                   rows[i].compile);
            if (plan)
                printf(" %12.1f", plan_shard_seconds(plan, rows[i].shard));
            printf(" %9.1f\n", rows[i].wall);
        }
        if (sum)
            printf("%-10s %10s %12s%s %9.1f\n", "link", "-", "-", plan ? "            -" : "",
                   link_wall);
    }
    if (sum) {
        json_t *misses = json_object_get(sum, "misses");
        int status = (int)json_integer_value(json_object_get(sum, "status"));
        json_int_t ndev = json_integer_value(json_object_get(sum, "device"));
        char dev[64] = "";
        if (ndev > 0)
            snprintf(dev, sizeof dev, ", %" JSON_INTEGER_FORMAT " of them device-code outputs",
                     ndev);
        printf("%shit rate %.1f%% (%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
               " TUs%s), %" JSON_INTEGER_FORMAT " stubs, %" JSON_INTEGER_FORMAT
               "/%" JSON_INTEGER_FORMAT " shards (minimum %.1f%%): %s%s\n",
               md ? "**" : "", 100.0 * json_number_value(json_object_get(sum, "hit_rate")),
               json_integer_value(json_object_get(sum, "hits")),
               json_integer_value(json_object_get(sum, "tus")), dev,
               json_integer_value(json_object_get(sum, "stubs")),
               json_integer_value(json_object_get(sum, "present")),
               json_integer_value(json_object_get(sum, "count")),
               100.0 * json_number_value(json_object_get(sum, "min_hit_rate")),
               status ? "a guard failed" : "every guard passed", md ? "**" : "");
        size_t i;
        json_t *x;
        if (json_array_size(misses))
            printf("%s", md ? "\nMisses:\n\n" : "misses:\n");
        json_array_foreach(misses, i, x)
        {
            /* a summary is another job's file: its text goes out printable only (a key
             * cannot break the markdown's backticks either) */
            struct strbuf k = STRBUF_INIT, r = STRBUF_INIT;
            sb_add_printable(&k, json_string_value(json_object_get(x, "key")));
            sb_add_printable(&r, json_string_value(json_object_get(x, "reason")));
            for (char *p = k.buf; md && p && *p; p++)
                if (*p == '`')
                    *p = '\'';
            printf(md ? "- `%s` (%s)\n" : "  %s (%s)\n", sb_str(&k), sb_str(&r));
            sb_release(&k);
            sb_release(&r);
        }
        struct jtime jt;
        if (jtime_of_summary(sum, &jt) == 0) {
            struct strbuf tl = STRBUF_INIT;
            jtime_format(&jt, &tl);
            printf("%slink job's %.1f s: %s\n", md ? "\n" : "", jt.wall, sb_str(&tl));
            sb_release(&tl);
        }
    } else {
        printf("%sthe link job has not finished (no summary)%s\n", md ? "**" : "", md ? "**" : "");
    }
    printf("%spredicted makespan %.1f s (slowest shard %.1f s + link %.1f s); compile time over "
           "the shards %.1f s\n",
           md ? "\n" : "", slowest + link_wall, slowest, link_wall, total);
    if (md) {
        printf("\n```mermaid\ngantt\n    title %s\n    dateFormat X\n    axisFormat %%s s\n", cell);
        printf("    section shards\n");
        for (size_t i = 0; i < n; i++) {
            char name[64], id[32];
            snprintf(name, sizeof name, "shard %d of %d", rows[i].shard, rows[i].count);
            snprintf(id, sizeof id, "s%d", rows[i].shard);
            gantt_task(name, id, 0, rows[i].wall);
        }
        if (sum) {
            printf("    section link\n");
            gantt_task("link", "link", slowest, link_wall);
        }
        printf("```\n");
    }
    json_decref(sum);
    json_decref(plan_file);
    free(cell);
    free(rows);
    if (fflush(stdout) != 0) {
        report_error(CMD, "cannot write the report: %s", strerror(errno));
        return EXIT_IO;
    }
    return EXIT_OK;
}
