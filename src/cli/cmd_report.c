/* shardcc report: what a cell's shards and link job did, as text or as markdown for a CI
 * step summary (a table per shard, the hit rate, the misses, a Mermaid Gantt chart). */
#include "args.h"
#include "artifact.h"
#include "cli.h"
#include "job.h"
#include "jrnl.h"
#include "merge.h"
#include "plan.h"
#include "plan_costs.h"
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
    "Given the artifacts of several cells (a farm's run), it reports a table per package\n"
    "(the manifests' package: the farm workflow records it) with each cell's shards, TUs\n"
    "and times, the cells with missing shards, and the slowest cells.\n"
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
    size_t owned, warm; /* warm: owned TUs that were hits from a remote or a seed */
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
        /* a split TU counts where this shard compiled items of it: its record's seconds
         * are the front and those items */
        int mine = d && !strcmp(d, "owned");
        size_t q;
        json_t *it;
        json_array_foreach(json_object_get(t, "items"), q, it)
        {
            if (d && !strcmp(d, "split") &&
                json_integer_value(json_object_get(it, "owner")) == r->shard)
                mine = 1;
        }
        if (mine) {
            r->owned++;
            r->warm += json_is_true(json_object_get(t, "warm"));
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

/* A farm's run: the artifacts of many cells, grouped by package (the manifests' `package`,
 * which the farm workflow records), and the slowest cells. */
struct cell_row {
    char *cell, *package; /* printable */
    int count, present, slowest_shard;
    size_t owned;
    double compile, slowest;
};

static int cmp_cell_row(const void *a, const void *b)
{
    const struct cell_row *x = a, *y = b;
    int c = strcmp(x->package, y->package);
    return c ? c : strcmp(x->cell, y->cell);
}

static int cmp_slowest(const void *a, const void *b)
{
    const struct cell_row *x = *(const struct cell_row *const *)a,
                          *y = *(const struct cell_row *const *)b;
    if (x->slowest != y->slowest)
        return x->slowest > y->slowest ? -1 : 1;
    return strcmp(x->cell, y->cell);
}

static char *printable_md(const char *s, int md)
{
    struct strbuf b = STRBUF_INIT;
    sb_add_printable(&b, s);
    for (char *p = b.buf; md && p && *p; p++)
        if (*p == '`' || *p == '|')
            *p = '\'';
    return sb_detach(&b);
}

#define FARM_SLOWEST 10

static void farm_report(json_t **m, size_t n, int md)
{
    json_t *index = json_object();
    struct cell_row *rows = calloc(n ? n : 1, sizeof *rows);
    size_t nc = 0;
    for (size_t i = 0; i < n; i++) {
        const char *cell = json_string_value(json_object_get(m[i], "cell"));
        const char *pkg = json_string_value(json_object_get(m[i], "package"));
        json_t *at = json_object_get(index, cell);
        struct cell_row *r;
        if (at) {
            r = &rows[json_integer_value(at)];
        } else {
            json_object_set_new(index, cell, json_integer((json_int_t)nc));
            r = &rows[nc++];
            r->cell = printable_md(cell, md);
            r->package = printable_md(pkg ? pkg : "(no package)", md);
            r->count = (int)json_integer_value(json_object_get(m[i], "count"));
        }
        struct shard_row sr = {0};
        read_row(m[i], &sr);
        r->present++;
        r->owned += sr.owned;
        r->compile += sr.compile;
        if (sr.wall > r->slowest || r->present == 1) {
            r->slowest = sr.wall;
            r->slowest_shard = sr.shard;
        }
    }
    qsort(rows, nc, sizeof *rows, cmp_cell_row);
    size_t npkg = 0;
    for (size_t i = 0; i < nc; i++)
        npkg += !i || strcmp(rows[i].package, rows[i - 1].package);
    printf(md ? "### shardcc: a farm's run, %zu cells of %zu packages (%zu artifacts)\n"
              : "farm: %zu cells of %zu packages (%zu artifacts)\n",
           nc, npkg, n);
    for (size_t i = 0; i < nc;) {
        size_t j = i, shards = 0;
        double compile = 0;
        while (j < nc && !strcmp(rows[j].package, rows[i].package)) {
            shards += (size_t)rows[j].present;
            compile += rows[j].compile;
            j++;
        }
        if (md)
            printf("\n#### package `%s`: %zu cells, %zu shard artifacts, %.1f compile s\n\n"
                   "| cell | shards | TUs owned | compile s | slowest shard s |\n"
                   "|---|---:|---:|---:|---:|\n",
                   rows[i].package, j - i, shards, compile);
        else
            printf("\npackage %s: %zu cells, %zu shard artifacts, %.1f compile s\n  %-50s %7s "
                   "%9s %10s %16s\n",
                   rows[i].package, j - i, shards, compile, "cell", "shards", "TUs owned",
                   "compile s", "slowest shard s");
        for (size_t k = i; k < j; k++) {
            const struct cell_row *r = &rows[k];
            if (md)
                printf("| `%s` | %d/%d%s | %zu | %.1f | %.1f |\n", r->cell, r->present, r->count,
                       r->present < r->count ? " **incomplete**" : "", r->owned, r->compile,
                       r->slowest);
            else
                printf("  %-50s %3d/%-3d %9zu %10.1f %16.1f%s\n", r->cell, r->present, r->count,
                       r->owned, r->compile, r->slowest,
                       r->present < r->count ? "  (incomplete)" : "");
        }
        i = j;
    }
    const struct cell_row **by = calloc(nc ? nc : 1, sizeof *by);
    for (size_t i = 0; i < nc; i++)
        by[i] = &rows[i];
    qsort(by, nc, sizeof *by, cmp_slowest);
    printf(md ? "\n#### the slowest cells (a cell's link waits for its slowest shard)\n\n"
              : "\nthe slowest cells (a cell's link waits for its slowest shard):\n");
    for (size_t i = 0; i < nc && i < FARM_SLOWEST; i++) {
        if (md)
            printf("%zu. `%s`: %.1f s (shard %d/%d)\n", i + 1, by[i]->cell, by[i]->slowest,
                   by[i]->slowest_shard, by[i]->count);
        else
            printf("  %2zu. %8.1f s  %s (shard %d/%d)\n", i + 1, by[i]->slowest, by[i]->cell,
                   by[i]->slowest_shard, by[i]->count);
    }
    free(by);
    for (size_t i = 0; i < nc; i++) {
        free(rows[i].cell);
        free(rows[i].package);
    }
    free(rows);
    json_decref(index);
}

/* One cell's report, from its options to its last line; report_release frees what it
 * holds whichever step it stopped in. */
struct report {
    struct merge_opts mo;
    const char *root, *summary, *format, *plan_path;
    int md;
    struct shard_manifests sm;
    struct shard_row *rows; /* one per shard, by shard */
    size_t n;
    struct plan_makespan pms; /* what a plan from these timings would make */
    char *cell;               /* printable */
    char *cell_id;            /* as written: a plan's section is named by it */
    json_t *sum;              /* the link job's summary, or NULL (not finished) */
    json_t *plan_file, *plan; /* --plan, and its section of this cell */
};

static void report_release(struct report *r)
{
    free(r->mo.inputs);
    shard_manifests_release(&r->sm);
    free(r->rows);
    free(r->cell);
    free(r->cell_id);
    json_decref(r->sum);
    json_decref(r->plan_file);
}

/* The options. EXIT_OK, CLI_HELP_SHOWN, or EXIT_USAGE (reported). */
static int report_parse(struct report *r, int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    r->mo.cmd = CMD;
    r->mo.inputs = calloc((size_t)argc, sizeof *r->mo.inputs);
    r->root = ".";
    r->format = "text";
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return CLI_HELP_SHOWN;
        }
        if (args_values(&a, "--artifacts", r->mo.inputs, &r->mo.ninputs))
            continue;
        if (args_value(&a, "--root", &r->root) || args_value(&a, "--summary", &r->summary) ||
            args_value(&a, "--format", &r->format) || args_value(&a, "--plan", &r->plan_path))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    r->md = !strcmp(r->format, "markdown");
    if (a.error || !r->mo.ninputs || (!r->md && strcmp(r->format, "text"))) {
        if (!a.error)
            fprintf(stderr,
                    r->mo.ninputs ? CMD ": --format is text or markdown, not \"%s\"\n"
                                  : CMD ": --artifacts is required (see --help)\n",
                    r->format);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The shards' rows from their manifests, sorted, and what a plan from their timings would
 * make the slowest shard's compiles (none when they were made with a plan). */
static void report_rows(struct report *r)
{
    json_t **m = r->sm.m;
    size_t n = r->n = r->sm.n;
    r->rows = calloc(n ? n : 1, sizeof *r->rows);
    for (size_t i = 0; i < n; i++)
        read_row(m[i], &r->rows[i]);
    struct costs costs = {.cmd = CMD};
    int planned = n && json_is_string(json_object_get(m[0], "plan"));
    int count0 = n ? (int)json_integer_value(json_object_get(m[0], "count")) : 0;
    for (size_t i = 0; i < n && !planned; i++)
        if (plan_costs_read_manifest(m[i], "", &costs, 0, NULL) != EXIT_OK)
            planned = 1; /* a manifest it cannot read: no suggestion */
    if (!planned && costs.n && count0 > 1)
        free(plan_costs_plan(&costs, count0, 0, 0, &r->pms));
    plan_costs_release(&costs);
    qsort(r->rows, n, sizeof *r->rows, cmp_row);
    const char *c0 = n ? json_string_value(json_object_get(m[0], "cell")) : NULL;
    struct strbuf cellb = STRBUF_INIT;
    sb_add_printable(&cellb, c0 ? c0 : "?");
    r->cell = sb_detach(&cellb);
    r->cell_id = c0 ? xstrdup(c0) : NULL;
}

/* The link job's summary (ROOT/.shardcc/link/summary.json, or --summary): NULL when there is
 * none. One of another cell or an earlier run is not this link job's result: it is said and
 * left out (the link job then has not finished, never "every guard passed" from it). */
static int report_summary(struct report *r)
{
    struct strbuf sp = STRBUF_INIT;
    if (r->summary)
        sb_adds(&sp, r->summary);
    else
        sb_addf(&sp, "%s/.shardcc/link/summary.json", r->root);
    json_error_t jerr;
    int rc = EXIT_OK;
    if (plat_file_exists(sb_str(&sp))) {
        r->sum = json_file_load(sb_str(&sp), JSON_FILE_MAX, &jerr);
        const char *bad = !r->sum                   ? jerr.text
                          : !json_is_object(r->sum) ? "not a JSON object"
                                                    : summary_invalid(r->sum);
        if (bad) {
            report_error(CMD, "cannot read the link summary \"%s\": %s", sb_str(&sp), bad);
            rc = EXIT_IO;
        }
    } else if (r->summary) {
        report_error(CMD, "cannot read the link summary \"%s\": %s", r->summary, strerror(ENOENT));
        rc = EXIT_IO;
    }
    if (!rc && r->sum) {
        const char *scell = json_string_value(json_object_get(r->sum, "cell"));
        const char *srun = json_string_value(json_object_get(r->sum, "run"));
        char *run = ci_run_id();
        const char *why = NULL;
        if (!scell || strcmp(scell, r->cell) != 0)
            why = "another cell's";
        else if (run && (!srun || strcmp(srun, run) != 0))
            why = "an earlier run's";
        if (why) {
            report_warning(CMD,
                           "\"%s\" is %s link summary (cell %s, run %s; these artifacts are "
                           "cell %s%s%s): ignored, the link job of this cell has not finished",
                           sb_str(&sp), why, scell ? scell : "?", srun ? srun : "none", r->cell,
                           run ? ", run " : "", run ? run : "");
            json_decref(r->sum);
            r->sum = NULL;
        }
        free(run);
    }
    sb_release(&sp);
    return rc;
}

/* --plan: this cell's section, whose predictions the table shows. */
static int report_plan(struct report *r)
{
    if (!r->plan_path)
        return EXIT_OK;
    json_error_t jerr;
    r->plan_file = json_file_load(r->plan_path, JSON_FILE_MAX, &jerr);
    r->plan = r->plan_file ? plan_section(r->plan_file, r->cell_id, NULL) : NULL;
    if (r->plan && json_is_array(json_object_get(r->plan, "shards")))
        return EXIT_OK;
    report_error(CMD, "cannot read the plan \"%s\": %s", r->plan_path,
                 r->plan_file ? "no shards list for this cell (made by shardcc plan?)" : jerr.text);
    return r->plan_file ? EXIT_USAGE : EXIT_IO;
}

/* The table: each shard's TUs owned, compile and wall seconds (planned seconds with a plan),
 * and the link job's wall; then the shards that started warm. */
static void report_table(const struct report *r, double link_wall)
{
    const struct shard_row *rows = r->rows;
    size_t n = r->n;
    json_t *plan = r->plan;
    if (r->md) {
        printf("### shardcc: cell `%s`\n\n", r->cell);
        printf("| job | TUs owned | compile s |%s wall s |\n|---|---:|---:|%s---:|\n",
               plan ? " planned s |" : "", plan ? "---:|" : "");
        for (size_t i = 0; i < n; i++) {
            printf("| shard %d/%d | %zu | %.1f |", rows[i].shard, rows[i].count, rows[i].owned,
                   rows[i].compile);
            if (plan)
                printf(" %.1f |", plan_shard_seconds(plan, rows[i].shard));
            printf(" %.1f |\n", rows[i].wall);
        }
        if (r->sum)
            printf("| link | - | - |%s %.1f |\n", plan ? " - |" : "", link_wall);
        printf("\n");
    } else {
        printf("cell %s\n%-10s %10s %12s%s %9s\n", r->cell, "job", "TUs owned", "compile s",
               plan ? "    planned s" : "", "wall s");
        for (size_t i = 0; i < n; i++) {
            printf("%4d/%-5d %10zu %12.1f", rows[i].shard, rows[i].count, rows[i].owned,
                   rows[i].compile);
            if (plan)
                printf(" %12.1f", plan_shard_seconds(plan, rows[i].shard));
            printf(" %9.1f\n", rows[i].wall);
        }
        if (r->sum)
            printf("%-10s %10s %12s%s %9.1f\n", "link", "-", "-", plan ? "            -" : "",
                   link_wall);
    }
    /* a warm start: the owned TUs a shard found in a remote or a seed, apart from those it
     * compiled */
    for (size_t i = 0; i < n; i++)
        if (rows[i].warm)
            printf("%sshard %d/%d: %zu of its %zu TUs were hits from the remote or the seed (a "
                   "warm start), %zu compiled%s\n",
                   r->md ? "- " : "", rows[i].shard, rows[i].count, rows[i].warm, rows[i].owned,
                   rows[i].owned - rows[i].warm, r->md && i + 1 == n ? "\n" : "");
}

/* The link job's result from its summary: hit rate, guards, misses, its build's time. */
static void report_link(const struct report *r)
{
    json_t *sum = r->sum;
    int md = r->md;
    if (!sum) {
        printf("%sthe link job has not finished (no summary)%s\n", md ? "**" : "", md ? "**" : "");
        return;
    }
    json_t *misses = json_object_get(sum, "misses");
    int status = (int)json_integer_value(json_object_get(sum, "status"));
    json_int_t ndev = json_integer_value(json_object_get(sum, "device"));
    char dev[64] = "";
    if (ndev > 0)
        snprintf(dev, sizeof dev, ", %" JSON_INTEGER_FORMAT " of them device-code outputs", ndev);
    printf("%shit rate %.1f%% (%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
           " TUs%s), %" JSON_INTEGER_FORMAT " stubs, %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
           " shards (minimum %.1f%%): %s%s\n",
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
        /* a summary is another job's file: its text goes out printable only (a key cannot
         * break the markdown's backticks either) */
        struct strbuf k = STRBUF_INIT, why = STRBUF_INIT;
        sb_add_printable(&k, json_string_value(json_object_get(x, "key")));
        sb_add_printable(&why, json_string_value(json_object_get(x, "reason")));
        for (char *p = k.buf; md && p && *p; p++)
            if (*p == '`')
                *p = '\'';
        printf(md ? "- `%s` (%s)\n" : "  %s (%s)\n", sb_str(&k), sb_str(&why));
        sb_release(&k);
        sb_release(&why);
    }
    struct jtime jt;
    if (jtime_of_summary(sum, &jt) == 0) {
        struct strbuf tl = STRBUF_INIT;
        jtime_format(&jt, &tl);
        printf("%slink job's %.1f s: %s\n", md ? "\n" : "", jt.wall, sb_str(&tl));
        sb_release(&tl);
    }
}

/* The predicted makespan, and a plan's suggestion when the shards are lopsided. */
static void report_makespan(const struct report *r, double slowest, double link_wall, double total)
{
    printf("%spredicted makespan %.1f s (slowest shard %.1f s + link %.1f s); compile time over "
           "the shards %.1f s\n",
           r->md ? "\n" : "", slowest + link_wall, slowest, link_wall, total);
    double slowest_compile = 0;
    for (size_t i = 0; i < r->n; i++)
        slowest_compile =
            r->rows[i].compile > slowest_compile ? r->rows[i].compile : slowest_compile;
    if (r->pms.plan > 0 && slowest_compile > 0 && r->pms.plan <= 0.8 * slowest_compile)
        printf("%sthe shards are lopsided: the slowest shard's compiles took %.1f s; a plan made "
               "from these timings would make it %.1f s (%.2fx): `shardcc plan -n %d -o plan.json "
               "ARTIFACTS`, then `--plan plan.json` for every job\n",
               r->md ? "\n" : "", slowest_compile, r->pms.plan, r->pms.plan / slowest_compile,
               r->n ? r->rows[0].count : 0);
}

/* Markdown only: the jobs as a mermaid gantt chart. */
static void report_gantt(const struct report *r, double slowest, double link_wall)
{
    printf("\n```mermaid\ngantt\n    title %s\n    dateFormat X\n    axisFormat %%s s\n", r->cell);
    printf("    section shards\n");
    for (size_t i = 0; i < r->n; i++) {
        char name[64], id[32];
        snprintf(name, sizeof name, "shard %d of %d", r->rows[i].shard, r->rows[i].count);
        snprintf(id, sizeof id, "s%d", r->rows[i].shard);
        gantt_task(name, id, 0, r->rows[i].wall);
    }
    if (r->sum) {
        printf("    section link\n");
        gantt_task("link", "link", slowest, link_wall);
    }
    printf("```\n");
}

/* One cell's report. */
static int report_cell(struct report *r)
{
    report_rows(r);
    shard_manifests_release(&r->sm);
    int rc;
    if ((rc = report_summary(r)) != EXIT_OK || (rc = report_plan(r)) != EXIT_OK)
        return rc;
    double slowest = 0, total = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->rows[i].wall > slowest)
            slowest = r->rows[i].wall;
        total += r->rows[i].compile;
    }
    double link_wall = r->sum ? json_number_value(json_object_get(r->sum, "wall_seconds")) : 0;
    report_table(r, link_wall);
    report_link(r);
    report_makespan(r, slowest, link_wall, total);
    if (r->md)
        report_gantt(r, slowest, link_wall);
    return EXIT_OK;
}

/* The steps of shardcc-report(1): the shards' manifests, then one cell's report, or a
 * farm's (the artifacts of many cells). */
int cmd_report(int argc, char **argv)
{
    struct report r;
    memset(&r, 0, sizeof r);
    int rc = report_parse(&r, argc, argv);
    if (rc == CLI_HELP_SHOWN || rc != EXIT_OK ||
        (rc = shard_manifests_load(&r.mo, &r.sm)) != EXIT_OK) {
        report_release(&r);
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    }
    json_t **m = r.sm.m;
    const char *c0 = r.sm.n ? json_string_value(json_object_get(m[0], "cell")) : NULL;
    int many = 0; /* the artifacts of a farm's run: many cells */
    for (size_t i = 1; i < r.sm.n && !many; i++)
        many = strcmp(json_string_value(json_object_get(m[i], "cell")), c0) != 0;
    if (many && (r.summary || r.plan_path)) {
        report_error(CMD, "the artifacts are of several cells (a farm's run): --summary and "
                          "--plan are one cell's; report one cell's artifacts with them");
        rc = EXIT_USAGE;
    } else if (many) {
        farm_report(m, r.sm.n, r.md);
    } else {
        rc = report_cell(&r);
    }
    report_release(&r);
    if (!rc && fflush(stdout) != 0) {
        report_error(CMD, "cannot write the report: %s", strerror(errno));
        rc = EXIT_IO;
    }
    return rc;
}
