/* Unit tests: the store's side of split TUs (split.h) on nvcc 13.0's recorded plans
 * (DRYRUN_DIR): what each item hands on, the real architectures counted, the owners without
 * a plan, the item entries' format, and the item key (the same wherever the temporaries
 * are, another for other inputs or another toolchain). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "partition.h"
#include "pipeline.h"
#include "platform.h"
#include "split.h"

#ifndef DRYRUN_DIR
#error DRYRUN_DIR names tests/dryrun
#endif

/* The recorded plan of mix, with every "/tmp/" written tmp (a directory with its slash). */
static void plan_of(const char *mix, const char *tmp, struct dr_plan *plan, struct dr_split *split)
{
    char path[512];
    snprintf(path, sizeof path, "%s/nvcc-13.0/%s.txt", DRYRUN_DIR, mix);
    struct strbuf text = STRBUF_INIT, moved = STRBUF_INIT, err = STRBUF_INIT;
    if (plat_read_file(path, &text) != 0)
        fail_msg("cannot read %s", path);
    const char *s = sb_str(&text), *p;
    while ((p = strstr(s, "/tmp/")) != NULL) {
        sb_add(&moved, s, (size_t)(p - s));
        sb_adds(&moved, tmp);
        s = p + 5;
    }
    sb_adds(&moved, s);
    if (dr_parse(sb_str(&moved), plan, &err) != 0 || dr_split_plan(plan, split, &err) != 0)
        fail_msg("%s: %s", mix, sb_str(&err));
    sb_release(&text);
    sb_release(&moved);
    sb_release(&err);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static void test_exports(void **state)
{
    (void)state;
    struct dr_plan plan;
    struct dr_split split;
    plan_of("gencode", "/tmp/", &plan, &split);
    assert_int_equal(split.n, 3); /* compute_80, compute_90, host */
    struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
    split_item_exports(&plan, &split, 0, &a);
    split_item_exports(&plan, &split, 1, &b);
    /* compute_80: its cubin; compute_90: its cubin, its PTX (code=compute_90) and the host
     * stub that its cicc writes */
    assert_int_equal(a.n, 1);
    assert_true(ends_with(a.v[0], "_a.compute_80.cubin"));
    assert_int_equal(b.n, 3);
    int cubin = 0, ptx = 0, stub = 0;
    for (size_t i = 0; i < b.n; i++) {
        cubin += ends_with(b.v[i], ".compute_90.sm_90.cubin");
        ptx += ends_with(b.v[i], ".compute_90.ptx");
        stub += ends_with(b.v[i], ".compute_90.cudafe1.stub.c");
    }
    assert_int_equal(cubin + ptx + stub, 3);
    assert_int_equal(split_real_count(&split), 2);
    assert_int_equal(split_item_rank(&split, 0), 0);
    assert_int_equal(split_item_rank(&split, 1), 1);
    sv_clear(&a);
    sv_clear(&b);
    dr_split_clear(&split);
    dr_plan_clear(&plan);
    plan_of("archall", "/tmp/", &plan, &split);
    assert_true(split_real_count(&split) >= 10);
    dr_split_clear(&split);
    dr_plan_clear(&plan);
}

static void test_owners(void **state)
{
    (void)state;
    /* round robin from the TU's own shard: 8 items over 4 shards, 2 each */
    int per[5] = {0};
    for (size_t r = 0; r < 8; r++)
        per[split_item_owner("csrc/flash_fwd_hdim128.cu", r, 4)]++;
    assert_int_equal(per[1], 2);
    assert_int_equal(per[2], 2);
    assert_int_equal(per[3], 2);
    assert_int_equal(per[4], 2);
    assert_int_equal(split_item_owner("src/k.cu", 0, 7), partition_owner("src/k.cu", 7));
    assert_int_equal(split_item_owner("src/k.cu", 7, 7), partition_owner("src/k.cu", 7));
    assert_int_equal(split_item_owner("src/k.cu", 3, 1), 1);
}

static void write_text(const char *path, const char *text)
{
    assert_int_equal(plat_write_atomic(path, text, strlen(text)), 0);
}

static void test_pack(void **state)
{
    (void)state;
    char dir[] = "/tmp/shardcc-test-split.XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct strvec files = STRVEC_INIT;
    struct strbuf p = STRBUF_INIT, blob = STRBUF_INIT, err = STRBUF_INIT, got = STRBUF_INIT;
    sb_addf(&p, "%s/tmpxft_1_a.compute_90.cubin", dir);
    sv_push(&files, sb_str(&p));
    sb_reset(&p);
    sb_addf(&p, "%s/tmpxft_1_a.stub.c", dir);
    sv_push(&files, sb_str(&p));
    assert_int_equal(plat_write_atomic(files.v[0], "\177ELF\0binary\n2\n", 14), 0); /* a NUL */
    write_text(files.v[1], "");
    assert_int_equal(split_pack(&files, &blob, &err), 0);
    unlink(files.v[0]);
    unlink(files.v[1]);
    /* by base name, into the same paths: the same bytes, an empty file too */
    assert_int_equal(split_unpack(blob.buf, blob.len, &files, &err), 0);
    assert_int_equal(plat_read_file(files.v[0], &got), 0);
    assert_int_equal(got.len, 14);
    assert_memory_equal(got.buf, "\177ELF\0binary\n2\n", 14);
    sb_reset(&got);
    assert_int_equal(plat_read_file(files.v[1], &got), 0);
    assert_int_equal(got.len, 0);
    /* a file the entry lacks, a truncated entry, not an entry: refused, nothing trusted */
    struct strvec more = STRVEC_INIT;
    sv_pushv(&more, files.v, files.n);
    sb_reset(&p);
    sb_addf(&p, "%s/tmpxft_1_a.compute_80.cubin", dir);
    sv_push(&more, sb_str(&p));
    assert_int_equal(split_unpack(blob.buf, blob.len, &more, &err), -1);
    assert_non_null(strstr(sb_str(&err), "lacks tmpxft_1_a.compute_80.cubin"));
    sb_reset(&err);
    assert_int_equal(split_unpack(blob.buf, blob.len - 3, &files, &err), -1);
    assert_non_null(strstr(sb_str(&err), "truncated"));
    sb_reset(&err);
    assert_int_equal(split_unpack("shardcc-devcode\n", 16, &files, &err), -1);
    assert_non_null(strstr(sb_str(&err), "not an item entry"));
    /* a file that cannot be read: its errno and its name */
    sb_reset(&err);
    sb_reset(&blob);
    assert_int_not_equal(split_pack(&more, &blob, &err), 0);
    assert_non_null(strstr(sb_str(&err), "compute_80.cubin"));
    sv_clear(&more);
    for (size_t i = 0; i < files.n; i++)
        unlink(files.v[i]);
    rmdir(dir);
    sv_clear(&files);
    sb_release(&p);
    sb_release(&blob);
    sb_release(&err);
    sb_release(&got);
}

/* Writes the files item i's key reads (as the host front and its device preprocessor
 * would), with contents c. */
static void make_inputs(const struct dr_plan *plan, const char *c)
{
    for (size_t i = 0; i < plan->n; i++) {
        const struct dr_step *st = &plan->steps[i];
        if (st->tool != DR_DEVICE_CPP && st->tool != DR_CUDAFE)
            continue;
        for (size_t k = 0; k < st->writes.n; k++) {
            char *slash = strrchr(st->writes.v[k], '/');
            *slash = '\0';
            mkdir(st->writes.v[k], 0700);
            *slash = '/';
            write_text(st->writes.v[k], c);
        }
    }
}

static void remove_inputs(const struct dr_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++)
        for (size_t k = 0; k < plan->steps[i].writes.n; k++)
            unlink(plan->steps[i].writes.v[k]);
}

static void test_key(void **state)
{
    (void)state;
    char d1[] = "/tmp/shardcc-test-key1.XXXXXX", d2[] = "/tmp/shardcc-test-key2.XXXXXX";
    assert_non_null(mkdtemp(d1));
    assert_non_null(mkdtemp(d2));
    char t1[64], t2[64], k1[65], k2[65], k3[65], k4[65], k0[65];
    snprintf(t1, sizeof t1, "%s/", d1);
    snprintf(t2, sizeof t2, "%s/", d2);
    struct dr_plan p1, p2;
    struct dr_split s1, s2;
    plan_of("gencode", t1, &p1, &s1);
    plan_of("gencode", t2, &p2, &s2);
    make_inputs(&p1, "int x;\n");
    make_inputs(&p2, "int x;\n");
    struct strbuf err = STRBUF_INIT;
    setenv("CCACHE_COMPILERCHECK", "string:shardcc1-test", 1);
    unsetenv("CCACHE_EXTRAFILES");
    /* the same inputs wherever the temporaries are: one key; items differ */
    assert_int_equal(split_item_key(&p1, &s1, 0, t1, k1, &err), 0);
    assert_int_equal(split_item_key(&p2, &s2, 0, t2, k2, &err), 0);
    assert_string_equal(k1, k2);
    assert_int_equal(split_item_key(&p1, &s1, 1, t1, k0, &err), 0);
    assert_string_not_equal(k0, k1);
    /* another preprocessed source or module id: another key */
    make_inputs(&p2, "int y;\n");
    assert_int_equal(split_item_key(&p2, &s2, 0, t2, k3, &err), 0);
    assert_string_not_equal(k1, k3);
    /* another toolchain: another key */
    make_inputs(&p2, "int x;\n");
    setenv("CCACHE_COMPILERCHECK", "string:shardcc1-other", 1);
    assert_int_equal(split_item_key(&p2, &s2, 0, t2, k4, &err), 0);
    assert_string_not_equal(k1, k4);
    /* an input that is not there: its errno, and the file named */
    remove_inputs(&p2);
    assert_int_not_equal(split_item_key(&p2, &s2, 0, t2, k4, &err), 0);
    assert_non_null(strstr(sb_str(&err), d2));
    remove_inputs(&p1);
    rmdir(d1);
    rmdir(d2);
    unsetenv("CCACHE_COMPILERCHECK");
    sb_release(&err);
    dr_split_clear(&s1);
    dr_split_clear(&s2);
    dr_plan_clear(&p1);
    dr_plan_clear(&p2);
}

static void test_marker_and_env(void **state)
{
    (void)state;
    char a[65], b[65], c[65];
    setenv("CCACHE_COMPILERCHECK", "string:x", 1);
    split_marker_key("src/k.cu", "tmpxft_00000001_00000002", a);
    split_marker_key("src/k.cu", "tmpxft_00000001_00000002", b);
    split_marker_key("src/k.cu", "tmpxft_00000001_00000003", c);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    unsetenv("CCACHE_COMPILERCHECK");
    int n;
    unsetenv(SPLIT_ARCHS_ENV);
    assert_int_equal(split_archs_from_env(&n), 0);
    assert_int_equal(n, SPLIT_ARCHS_DEFAULT);
    setenv(SPLIT_ARCHS_ENV, "0", 1);
    assert_int_equal(split_archs_from_env(&n), 0);
    assert_int_equal(n, 0);
    setenv(SPLIT_ARCHS_ENV, "4x", 1);
    assert_int_equal(split_archs_from_env(&n), -1);
    setenv(SPLIT_ARCHS_ENV, "1001", 1);
    assert_int_equal(split_archs_from_env(&n), -1);
    unsetenv(SPLIT_ARCHS_ENV);
}

/* Every owner of a split TU's item writes its marker, and the link job's merge compares the
 * copies byte for byte; nvcc --threads N -dryrun lists the items in a different order from
 * run to run, so the marker must not follow that order. */
static void test_marker_order(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_split_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *names[2][4] = {{"compute_80", "compute_86", "compute_89", "compute_90"},
                               {"compute_86", "compute_90", "compute_89", "compute_80"}};
    struct strbuf text[2] = {STRBUF_INIT, STRBUF_INIT}, path = STRBUF_INIT, err = STRBUF_INIT;
    for (int r = 0; r < 2; r++) {
        struct split_item items[4];
        memset(items, 0, sizeof items);
        for (int i = 0; i < 4; i++)
            snprintf(items[i].name, sizeof items[i].name, "%s", names[r][i]);
        struct pipeline_opts o;
        memset(&o, 0, sizeof o);
        o.items = items;
        o.n = 4;
        assert_int_equal(pipeline_split_mark(dir, "src/k.cu", "k.o", &o, &err), 0);
        assert_true(pipeline_split_marked(dir, "src/k.cu", "k.o", &path));
        assert_int_equal(plat_read_file(sb_str(&path), &text[r]), 0);
        sb_reset(&path); /* the second run rewrites the same marker */
    }
    assert_string_equal(sb_str(&text[0]), sb_str(&text[1]));
    assert_string_equal(sb_str(&text[0]),
                        SPLIT_MARK_TAG "\ncompute_80\ncompute_86\ncompute_89\ncompute_90\n");
    assert_int_equal(plat_rmtree(dir), 0);
    sb_release(&text[0]);
    sb_release(&text[1]);
    sb_release(&path);
    sb_release(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exports),        cmocka_unit_test(test_owners),
        cmocka_unit_test(test_pack),           cmocka_unit_test(test_key),
        cmocka_unit_test(test_marker_and_env), cmocka_unit_test(test_marker_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
