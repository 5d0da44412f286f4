/* fuzz_package_yaml: the YAML reader (ydoc.c) and the grid (grid.c) behind
 * `shardcc matrix --packages`. The input is a package.yml (in pk/fuzzpkg/, so the
 * directory's name is the default package name). Each run:
 *  - package_load(), then, as cmd_matrix.c does, package_check_against() a fixed cells file
 *    (the grid of tests/matrix/test_matrix.py's rules) and matrix_plan() with --max-jobs 64:
 *    every list of every dispatch within 64, and the package listed twice must be refused;
 *  - when the text names "platforms" (a cells file must), cells_load() of the same file
 *    (it goes through the same reader; without that key it is refused right after the
 *    parse, which the package load already fuzzed, so the gate saves a second parse of
 *    the slow inputs), and for a grid of at most 4096 cells matrix_plan() with a fixed
 *    package (sharding: 3).
 * Every refusal must say why. */
#include "classify.h"
#include "fuzz_support.h"
#include "grid.h"
#include "job.h"

#include <stdlib.h>
#include <string.h>

#define INPUT_MAX (1u << 20)
#define MAX_JOBS 64
/* a fuzzed grid larger than this is a legitimately big plan, not a finding: skip it */
#define MAX_FUZZED_CELLS 4096

static struct cells grid;
static struct package fixed;

static void release_fixed(void)
{
    package_release(&fixed);
    cells_release(&grid);
}

static const char cells_yml[] = "platforms:\n"
                                "  - {name: linux, arch: x86_64}\n"
                                "  - {name: linux_aarch64, arch: aarch64}\n"
                                "  - {name: windows, arch: x86_64}\n"
                                "python: [\"3.10\", \"3.11\", \"3.12\", \"3.13\"]\n"
                                "cuda: [\"12.8\", \"13.0\"]\n"
                                "torch: [\"2.9.1\", \"2.10.0\"]\n"
                                "exclude:\n"
                                "  - {platform: windows, python: \"3.10\"}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct strbuf err = STRBUF_INIT;
    fuzz_write("cells.yml", cells_yml, sizeof cells_yml - 1);
    fuzz_write("fixed/package.yml", "name: fz\nsharding: 3\n", 21);
    char *cells = fuzz_path("cells.yml"), *pkg = fuzz_path("fixed/package.yml");
    if (cells_load(cells, &grid, &err) != 0 || package_load(pkg, NULL, 0, &fixed, &err) != 0)
        fuzz_fail("the fixed cells or package file: %s", sb_str(&err));
    free(cells);
    free(pkg);
    sb_release(&err);
    atexit(release_fixed);
    return 0;
}

static void check_refusal(int rc, const struct strbuf *err, const char *what)
{
    if ((rc != EXIT_USAGE && rc != EXIT_IO) || !err->len)
        fuzz_fail("%s returned %d with message \"%s\"", what, rc, sb_str(err));
}

/* Runs matrix_plan; 1 when it planned at least one cell. */
static int plan(struct package *const *pkgs, size_t n, const struct cells *c, int must_fail)
{
    json_t *out = NULL;
    struct strbuf err = STRBUF_INIT;
    int rc = matrix_plan(pkgs, n, c, MAX_JOBS, &out, &err);
    int cells = 0;
    if (rc == EXIT_OK) {
        if (must_fail)
            fuzz_fail("matrix_plan accepted a package listed twice");
        json_t *ds = json_object_get(out, "dispatches"), *d;
        size_t i;
        json_array_foreach(ds, i, d)
        {
            size_t shards = json_array_size(json_object_get(d, "shards"));
            size_t links = json_array_size(json_object_get(d, "links"));
            if (shards > MAX_JOBS || links > MAX_JOBS || links == 0)
                fuzz_fail("dispatch %zu: %zu shard jobs, %zu link jobs (max %d)", i, shards, links,
                          MAX_JOBS);
            cells += (int)links;
        }
        json_decref(out);
    } else {
        check_refusal(rc, &err, "matrix_plan");
    }
    sb_release(&err);
    return cells > 0;
}

static void as_package(const char *path)
{
    struct package p;
    struct strbuf err = STRBUF_INIT;
    int rc = package_load(path, "fuzzpkg", 0, &p, &err);
    if (rc == EXIT_OK) {
        if (!p.name || !cell_id_ok(p.name) || p.sharding < 0 || p.sharding > 100000 ||
            !(p.min_hit_rate >= 0 && p.min_hit_rate <= 1))
            fuzz_fail("package_load accepted name %s, sharding %ld, min_hit_rate %g",
                      p.name ? p.name : "NULL", p.sharding, p.min_hit_rate);
        rc = package_check_against(&p, &grid, &err);
        if (rc == EXIT_OK) {
            struct package *one[] = {&p}, *twice[] = {&p, &p};
            if (plan(one, 1, &grid, 0))
                plan(twice, 2, &grid, 1);
        } else {
            check_refusal(rc, &err, "package_check_against");
        }
    } else {
        check_refusal(rc, &err, "package_load");
    }
    package_release(&p);
    sb_release(&err);
}

static void as_cells(const char *path)
{
    struct cells c;
    struct strbuf err = STRBUF_INIT;
    int rc = cells_load(path, &c, &err);
    if (rc == EXIT_OK) {
        size_t total = c.nplat;
        for (int k = 0; k < NDIMS; k++)
            total *= c.dim[k].n ? c.dim[k].n : 1;
        if (c.nplat == 0)
            fuzz_fail("cells_load accepted a grid without platforms");
        rc = package_check_against(&fixed, &c, &err);
        if (rc != EXIT_OK)
            fuzz_fail("a package that narrows nothing does not fit: %s", sb_str(&err));
        struct package *one[] = {&fixed};
        if (total <= MAX_FUZZED_CELLS)
            plan(one, 1, &c, 0);
    } else {
        check_refusal(rc, &err, "cells_load");
    }
    cells_release(&c);
    sb_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    fuzz_write("pk/fuzzpkg/package.yml", data, size);
    char *path = fuzz_path("pk/fuzzpkg/package.yml");
    as_package(path);
    if (memmem(data, size, "platforms", 9))
        as_cells(path);
    free(path);
    return 0;
}
