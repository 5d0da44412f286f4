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
    "usage: shardcc matrix --packages DIR|FILE... --cells FILE [--max-jobs N] [--pretty]\n"
    "\n"
    "Plans the CI jobs of a build farm: every cell of the grid (the product of the cells\n"
    "file's platforms, python, cuda and torch lists, minus its exclusions, narrowed by each\n"
    "package) becomes N shard jobs and one link job when the package says `sharding: N`\n"
    "on that platform, else one link job with count 0 that builds unsharded. Prints\n"
    "  {\"dispatches\": [{\"shards\": [...], \"links\": [...]}, ...]}\n"
    "where no list exceeds --max-jobs and a cell's shards and link share one dispatch (one\n"
    "workflow run each: GitHub refuses a matrix of more than 256 jobs).\n"
    "\n"
    "  --packages P...  package files, or directories holding DIR/<name>/package.yml\n"
    "                   (values up to the next option)\n"
    "  --cells FILE     the grid (see docs/shardcc-matrix.md)\n"
    "  --max-jobs N     the most jobs of one kind in one dispatch (default 256)\n"
    "  --pretty         indent the JSON\n"
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

int cmd_matrix(int argc, char **argv)
{
    struct args a = {argc, argv, 1, CMD, 0};
    struct strvec inputs = STRVEC_INIT;
    const char *cells_path = NULL, *max_s = "256", *first;
    int pretty = 0;
    while (a.i < argc && !a.error) {
        if (args_flag(&a, "--help") || args_flag(&a, "-h")) {
            fputs(usage, stdout);
            sv_clear(&inputs);
            return EXIT_OK;
        }
        if (args_value(&a, "--packages", &first)) {
            sv_push(&inputs, first);
            while (a.i < argc && argv[a.i][0] != '-')
                sv_push(&inputs, argv[a.i++]);
            continue;
        }
        if (args_value(&a, "--cells", &cells_path) || args_value(&a, "--max-jobs", &max_s) ||
            (args_flag(&a, "--pretty") && (pretty = 1)))
            continue;
        if (!a.error)
            args_unknown(&a);
    }
    long max_jobs = parse_count(max_s);
    int rc = EXIT_USAGE;
    if (a.error) {
        sv_clear(&inputs);
        return EXIT_USAGE;
    }
    if (!inputs.n || !cells_path) {
        report_error(CMD, "--packages and --cells are required (see --help)");
        sv_clear(&inputs);
        return EXIT_USAGE;
    }
    if (max_jobs < 1) {
        report_error(CMD, "--max-jobs \"%s\" is not a number from 1 to 100000", max_s);
        sv_clear(&inputs);
        return EXIT_USAGE;
    }
    struct strvec files = STRVEC_INIT, names = STRVEC_INIT;
    rc = EXIT_OK;
    for (size_t i = 0; i < inputs.n && !rc; i++) {
        if (plat_is_dir(inputs.v[i])) {
            rc = expand_dir(inputs.v[i], &files, &names);
        } else {
            sv_push(&files, inputs.v[i]);
            sv_push(&names, "");
        }
    }
    sv_clear(&inputs);
    struct strbuf err = STRBUF_INIT;
    struct cells cells;
    memset(&cells, 0, sizeof cells);
    struct package **pkgs = calloc(files.n ? files.n : 1, sizeof *pkgs);
    size_t np = 0;
    if (!rc && (rc = cells_load(cells_path, &cells, &err)))
        report_error(CMD, "%s", sb_str(&err));
    for (size_t i = 0; i < files.n && !rc; i++) {
        pkgs[np] = calloc(1, sizeof **pkgs);
        rc = package_load(files.v[i], *names.v[i] ? names.v[i] : NULL, pkgs[np], &err);
        np++;
        if (!rc)
            rc = package_check_against(pkgs[np - 1], &cells, &err);
        if (rc)
            report_error(CMD, "%s", sb_str(&err));
    }
    json_t *plan = NULL;
    if (!rc && (rc = matrix_plan(pkgs, np, &cells, max_jobs, &plan, &err)))
        report_error(CMD, "%s", sb_str(&err));
    if (!rc) {
        char *s = json_dumps(plan, JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(2) : JSON_COMPACT));
        size_t nd = json_array_size(json_object_get(plan, "dispatches")), ns = 0, nl = 0;
        for (size_t d = 0; d < nd; d++) {
            json_t *x = json_array_get(json_object_get(plan, "dispatches"), d);
            ns += json_array_size(json_object_get(x, "shards"));
            nl += json_array_size(json_object_get(x, "links"));
        }
        if (puts(s) == EOF || fflush(stdout) != 0) {
            report_error(CMD, "cannot write the plan: %s", strerror(errno));
            rc = EXIT_IO;
        } else {
            fprintf(stderr, CMD ": %zu packages, %zu cells, %zu shard jobs in %zu dispatches\n", np,
                    nl, ns, nd);
        }
        free(s);
        json_decref(plan);
    }
    for (size_t i = 0; i < np; i++) {
        package_release(pkgs[i]);
        free(pkgs[i]);
    }
    free(pkgs);
    cells_release(&cells);
    sv_clear(&files);
    sv_clear(&names);
    sb_release(&err);
    return rc;
}
