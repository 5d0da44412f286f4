/* shardcc matrix: package files + a cells file -> the dispatches of shard and link jobs. */
#include "args.h"
#include "cli.h"
#include "grid.h"
#include "job.h"
#include "platform.h"
#include "strvec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "shardcc matrix"

static const char usage[] =
    "usage: shardcc matrix --packages DIR|FILE... --cells FILE [--max-jobs N] [--strict]\n"
    "                      [--summary] [--concurrency N] [--pretty]\n"
    "\n"
    "Plans the CI jobs of a build farm: every cell of the grid (the product of the cells\n"
    "file's platforms, python, cuda and torch lists, or the union of its combinations,\n"
    "minus its exclusions, narrowed by each package and projected onto its axes) becomes N\n"
    "shard jobs and one link job when the package says `sharding: N` on that platform,\n"
    "else one link job with count 0 that builds unsharded. Prints\n"
    "  {\"dispatches\": [{\"shards\": [...], \"links\": [...]}, ...]}\n"
    "where no list exceeds --max-jobs or 1,000,000 bytes of JSON (a job output carries it)\n"
    "and a cell's shards and link share one dispatch (one workflow run each: GitHub refuses\n"
    "a matrix of more than 256 jobs).\n"
    "\n"
    "  --packages P...    package files, or directories holding DIR/<name>/package.yml\n"
    "                     (values up to the next option)\n"
    "  --cells FILE       the grid (see docs/shardcc-matrix.md)\n"
    "  --max-jobs N       the most jobs of one kind in one dispatch (default 256)\n"
    "  --strict           every key of a package file must be shardcc's (by default a\n"
    "                     farm's own keys are ignored, except near misses of shardcc's)\n"
    "  --summary          print the farm per package, and against the limits, on stderr\n"
    "  --concurrency N    with --summary: the most jobs the CI account runs at once\n"
    "                     (default 20, GitHub Free's)\n"
    "  --pretty           indent the JSON\n"
    "\n"
    "Exit status: 0 ok, 2 a usage or configuration error (FILE:LINE:COLUMN named),\n"
    "4 an unreadable file.\n";

/* DIR/<name>/package.yml for every subdirectory that has one, sorted by name. */
static int expand_dir(const char *dir, struct strvec *files, struct strvec *names)
{
    struct strvec ents = STRVEC_INIT;
    int e = plat_list_dir(dir, &ents);
    if (e) {
        report_error(CMD, "cannot list \"%s\": %s", dir, plat_strerror(e));
        return EXIT_IO;
    }
    size_t before = files->n;
    for (size_t i = 0; i < ents.n; i++) {
        struct strbuf p = STRBUF_INIT;
        sb_addf(&p, "%s/%s/package.yml", dir, ents.v[i]);
        if (ents.v[i][0] != '.' && plat_file_exists(sb_str(&p))) {
            sv_push(files, sb_str(&p));
            sv_push(names, ents.v[i]);
        }
        sb_release(&p);
    }
    sv_clear(&ents);
    if (files->n == before) {
        report_error(CMD, "\"%s\" holds no <name>/package.yml", dir);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Per package: cells, the sharded ones, shard jobs, and the dispatches it spans. */
struct pkg_sum {
    size_t cells, sharded, shards;
    long first, last; /* dispatch indexes, -1: none */
};

static size_t list_bytes(json_t *list)
{
    return json_dumpb(list, NULL, 0, MATRIX_JSON_FLAGS);
}

static void print_summary(json_t *plan, struct package *const *pkgs, size_t np, long max_jobs,
                          long concurrency)
{
    json_t *ds = json_object_get(plan, "dispatches");
    struct pkg_sum *sum = calloc(np ? np : 1, sizeof *sum);
    json_t *index = json_object(); /* package name -> position */
    for (size_t i = 0; i < np; i++) {
        json_object_set_new(index, pkgs[i]->name, json_integer((json_int_t)i));
        sum[i].first = sum[i].last = -1;
    }
    size_t max_shards = 0, max_links = 0, max_sbytes = 0, max_lbytes = 0, shards = 0, links = 0;
    for (size_t d = 0; d < json_array_size(ds); d++) {
        json_t *x = json_array_get(ds, d), *sl = json_object_get(x, "shards"),
               *ll = json_object_get(x, "links"), *e;
        size_t i;
        json_array_foreach(ll, i, e)
        {
            struct pkg_sum *p = &sum[json_integer_value(
                json_object_get(index, json_string_value(json_object_get(e, "package"))))];
            p->cells++;
            p->sharded += json_integer_value(json_object_get(e, "count")) > 0;
            p->shards += (size_t)json_integer_value(json_object_get(e, "count"));
            if (p->first < 0)
                p->first = (long)d;
            p->last = (long)d;
        }
        shards += json_array_size(sl);
        links += json_array_size(ll);
        max_shards = json_array_size(sl) > max_shards ? json_array_size(sl) : max_shards;
        max_links = json_array_size(ll) > max_links ? json_array_size(ll) : max_links;
        size_t sb = list_bytes(sl), lb = list_bytes(ll);
        max_sbytes = sb > max_sbytes ? sb : max_sbytes;
        max_lbytes = lb > max_lbytes ? lb : max_lbytes;
    }
    fprintf(stderr, "\n%-28s %7s %8s %11s %11s\n", "package", "cells", "sharded", "shard jobs",
            "dispatches");
    for (size_t i = 0; i < np; i++) {
        char span[48];
        if (sum[i].first < 0)
            snprintf(span, sizeof span, "-");
        else if (sum[i].first == sum[i].last)
            snprintf(span, sizeof span, "%ld", sum[i].first);
        else
            snprintf(span, sizeof span, "%ld-%ld", sum[i].first, sum[i].last);
        fprintf(stderr, "%-28s %7zu %8zu %11zu %11s\n", pkgs[i]->name, sum[i].cells, sum[i].sharded,
                sum[i].shards, span);
    }
    fprintf(stderr, "%-28s %7zu %8s %11zu %11zu\n", "total", links, "", shards,
            json_array_size(ds));
    fprintf(stderr,
            "\nlimits:\n"
            "  jobs of one matrix: at most %ld (--max-jobs; GitHub: 256): the largest dispatch "
            "has %zu shard jobs and %zu link jobs\n"
            "  a job output (one list's JSON): at most %d bytes (GitHub: 1 MB): the largest "
            "shard list is %zu bytes, link list %zu bytes\n"
            "  jobs at once: %ld (--concurrency): the %zu shard jobs and %zu link jobs take "
            "at least %zu rounds in all; the largest dispatch's shard jobs %zu\n",
            max_jobs, max_shards, max_links, MATRIX_MAX_OUTPUT_BYTES, max_sbytes, max_lbytes,
            concurrency, shards, links,
            (shards + (size_t)concurrency - 1) / (size_t)concurrency +
                (links + (size_t)concurrency - 1) / (size_t)concurrency,
            (max_shards + (size_t)concurrency - 1) / (size_t)concurrency);
    json_decref(index);
    free(sum);
}

/* One farm's matrix, from its options to the plan printed. */
struct matrix {
    struct strvec inputs; /* --packages: files and directories */
    const char *cells_path;
    long max_jobs, concurrency;
    int pretty, strict, summary;
    struct strvec files, names; /* the package files, and each one's name from its directory */
    struct cells cells;
    struct package **pkgs;
    size_t np;
    struct strbuf err;
};

static void matrix_release(struct matrix *m)
{
    for (size_t i = 0; i < m->np; i++) {
        package_release(m->pkgs[i]);
        free(m->pkgs[i]);
    }
    free(m->pkgs);
    cells_release(&m->cells);
    sv_clear(&m->inputs);
    sv_clear(&m->files);
    sv_clear(&m->names);
    sb_release(&m->err);
}

/* The options. EXIT_OK, CLI_HELP_SHOWN or EXIT_USAGE (reported). */
static int matrix_parse(struct matrix *m, int argc, char **argv)
{
    struct args a = {.argc = argc, .argv = argv, .i = 1, .cmd = CMD};
    const char *max_s = "256", *conc_s = "20", *first;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            return CLI_HELP_SHOWN;
        }
        if (args_value(&a, "--packages", &first)) {
            sv_push(&m->inputs, first);
            while (a.i < argc && argv[a.i][0] != '-')
                sv_push(&m->inputs, argv[a.i++]);
            continue;
        }
        if (args_value(&a, "--cells", &m->cells_path) || args_value(&a, "--max-jobs", &max_s) ||
            args_value(&a, "--concurrency", &conc_s) ||
            (args_flag(&a, "--pretty") && (m->pretty = 1)) ||
            (args_flag(&a, "--strict") && (m->strict = 1)) ||
            (args_flag(&a, "--summary") && (m->summary = 1)))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    m->max_jobs = parse_count(max_s);
    m->concurrency = parse_count(conc_s);
    if (a.error)
        return EXIT_USAGE;
    if (!m->inputs.n || !m->cells_path)
        report_error(CMD, "--packages and --cells are required (see --help)");
    else if (m->max_jobs < 1)
        report_error(CMD, "--max-jobs \"%s\" is not a number from 1 to 100000", max_s);
    else if (m->concurrency < 1)
        report_error(CMD, "--concurrency \"%s\" is not a number from 1 to 100000", conc_s);
    else
        return EXIT_OK;
    return EXIT_USAGE;
}

/* The cells, then every package file (a directory's: each package's, named after it), each
 * checked against the cells. */
static int matrix_load(struct matrix *m)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < m->inputs.n && !rc; i++) {
        if (plat_is_dir(m->inputs.v[i])) {
            rc = expand_dir(m->inputs.v[i], &m->files, &m->names);
        } else {
            sv_push(&m->files, m->inputs.v[i]);
            sv_push(&m->names, "");
        }
    }
    m->pkgs = calloc(m->files.n ? m->files.n : 1, sizeof *m->pkgs);
    if (!rc && (rc = cells_load(m->cells_path, &m->cells, &m->err)))
        report_error(CMD, "%s", sb_str(&m->err));
    for (size_t i = 0; i < m->files.n && !rc; i++) {
        struct package *p = m->pkgs[m->np++] = calloc(1, sizeof *p);
        rc = package_load(m->files.v[i], *m->names.v[i] ? m->names.v[i] : NULL, m->strict, p,
                          &m->err);
        if (!rc)
            rc = package_check_against(p, &m->cells, &m->err);
        if (rc)
            report_error(CMD, "%s", sb_str(&m->err));
    }
    return rc;
}

/* The plan printed (its dispatches counted on standard error; --summary: the farm's
 * estimate too). */
static int matrix_print(const struct matrix *m, json_t *plan)
{
    char *text = json_dumps(plan, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15) |
                                      (m->pretty ? JSON_INDENT(2) : JSON_COMPACT));
    json_t *dispatches = json_object_get(plan, "dispatches");
    size_t nd = json_array_size(dispatches), ns = 0, nl = 0;
    for (size_t d = 0; d < nd; d++) {
        json_t *x = json_array_get(dispatches, d);
        ns += json_array_size(json_object_get(x, "shards"));
        nl += json_array_size(json_object_get(x, "links"));
    }
    int rc = EXIT_OK;
    if (puts(text) == EOF || fflush(stdout) != 0) {
        report_error(CMD, "cannot write the plan: %s", strerror(errno));
        rc = EXIT_IO;
    } else {
        fprintf(stderr, CMD ": %zu packages, %zu cells, %zu shard jobs in %zu dispatches\n", m->np,
                nl, ns, nd);
        if (m->summary)
            print_summary(plan, m->pkgs, m->np, m->max_jobs, m->concurrency);
    }
    free(text);
    return rc;
}

/* The steps of shardcc-matrix(1): the cells and packages read, the dispatches planned, the
 * plan printed. */
int cmd_matrix(int argc, char **argv)
{
    struct matrix m;
    memset(&m, 0, sizeof m);
    int rc = matrix_parse(&m, argc, argv);
    if (rc == EXIT_OK)
        rc = matrix_load(&m);
    json_t *plan = NULL;
    if (rc == EXIT_OK && (rc = matrix_plan(m.pkgs, m.np, &m.cells, m.max_jobs, &plan, &m.err)))
        report_error(CMD, "%s", sb_str(&m.err));
    if (rc == EXIT_OK)
        rc = matrix_print(&m, plan);
    json_decref(plan);
    matrix_release(&m);
    return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
}
