/* Unit tests: classify_call in process (the wide coverage is the data table in
 * tests/classify/cases.txt, run through `shardcc classify`). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "classify.h"

static struct wrap_config cfg(enum phase ph, int i, int n)
{
    struct wrap_config c = {.phase = ph,
                            .shard = i,
                            .count = n,
                            .root = "/nonexistent-root",
                            .cwd = "/nonexistent-root/build"};
    return c;
}

static void test_tu_owned_and_stubbed(void **state)
{
    (void)state;
    char *argv[] = {"-MD", "-MF", "a.o.d", "-c", "../src/a.cu", "-o", "a.o"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    int owners[3] = {0, 0, 0};
    for (int i = 1; i <= 3; i++) {
        struct wrap_config k = cfg(PHASE_SHARD, i, 3);
        assert_int_equal(classify_call(SEAT_NVCC, &k, 7, argv, &c, &err), 0);
        assert_int_equal(c.kind, KIND_TU);
        assert_string_equal(c.key, "src/a.cu");
        assert_string_equal(c.depfile, "a.o.d");
        owners[i - 1] = c.action == ACTION_CACHE;
        assert_int_equal(c.owner, c.owner >= 1 && c.owner <= 3 ? c.owner : -1);
        call_release(&c);
    }
    assert_int_equal(owners[0] + owners[1] + owners[2], 1); /* exactly one owner */
    struct wrap_config link = cfg(PHASE_LINK, 0, 0);
    assert_int_equal(classify_call(SEAT_NVCC, &link, 7, argv, &c, &err), 0);
    assert_int_equal(c.action, ACTION_CACHE);
    assert_int_equal(c.owner, 0);
    call_release(&c);
    sb_release(&err);
}

static void test_folded_env_flags(void **state)
{
    (void)state;
    struct wrap_config k = cfg(PHASE_LINK, 0, 0);
    k.prepend = "--threads 4";
    k.append = "-diag-suppress 177";
    char *argv[] = {"-c", "x.cu", "-o", "x.o"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    assert_int_equal(classify_call(SEAT_NVCC, &k, 4, argv, &c, &err), 0);
    assert_int_equal(c.argv.n, 8);
    assert_string_equal(c.argv.v[0], "--threads");
    assert_string_equal(c.argv.v[7], "177");
    call_release(&c);
    /* the host seat ignores NVCC_* flags */
    assert_int_equal(classify_call(SEAT_CXX, &k, 4, argv, &c, &err), 0);
    assert_int_equal(c.argv.n, 4);
    call_release(&c);
    sb_release(&err);
}

static void test_default_depfile(void **state)
{
    (void)state;
    struct wrap_config k = cfg(PHASE_SHARD, 1, 1);
    char *argv[] = {"-MMD", "-c", "x.cpp", "-o", "obj dir/x.o"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    assert_int_equal(classify_call(SEAT_CXX, &k, 5, argv, &c, &err), 0);
    assert_string_equal(c.depfile, "obj dir/x.d");
    assert_string_equal(c.dep_targets.v[0], "obj\\ dir/x.o");
    call_release(&c);
    sb_release(&err);
}

static void test_shard_spec(void **state)
{
    (void)state;
    int i, n;
    assert_int_equal(parse_shard_spec("2/4", &i, &n), 0);
    assert_int_equal(i, 2);
    assert_int_equal(n, 4);
    const char *bad[] = {"0/4", "5/4", "2/", "/4", "2/4x", "a/b", "1/1000001", "", "2 /4", "-1/4"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_int_not_equal(parse_shard_spec(bad[k], &i, &n), 0);
}

/* The shadow CUDA_HOME is replaced where it is a whole path component prefix, nowhere else;
 * the canonical argv the compiler gets carries the caller's toolkit path. */
static void test_shadow_rewrite(void **state)
{
    (void)state;
    struct wrap_config k = cfg(PHASE_LINK, 0, 0);
    k.shadow = "/r/.shardcc/cuda-home";
    k.shadow_real = "/usr/local/cuda-13.0";
    static const char *const cases[][2] = {
        {"-I/r/.shardcc/cuda-home/include", "-I/usr/local/cuda-13.0/include"},
        {"/r/.shardcc/cuda-home", "/usr/local/cuda-13.0"},
        {"-L/r/.shardcc/cuda-home/lib64:/r/.shardcc/cuda-home/x,/r/.shardcc/cuda-home",
         "-L/usr/local/cuda-13.0/lib64:/usr/local/cuda-13.0/x,/usr/local/cuda-13.0"},
        {"-I/r/.shardcc/cuda-home2/include", NULL},
        {"-O2", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = shadow_rewrite(&k, cases[i][0]);
        if (cases[i][1])
            assert_string_equal(r, cases[i][1]);
        else
            assert_null(r);
        free(r);
    }
    char *argv[] = {"-I/r/.shardcc/cuda-home/include", "-c", "../src/a.cu", "-o", "a.o"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    assert_int_equal(classify_call(SEAT_NVCC, &k, 5, argv, &c, &err), 0);
    assert_string_equal(c.argv.v[0], "-I/usr/local/cuda-13.0/include");
    call_release(&c);
    k.shadow = NULL;
    assert_null(shadow_rewrite(&k, "-I/r/.shardcc/cuda-home/include"));
    sb_release(&err);
}

/* A plan line naming a shard beyond N (a plan.tsv edited by hand) falls back to the hash:
 * the TU is never stubbed by every shard. A line within range is obeyed. */
static void test_plan_out_of_range(void **state)
{
    (void)state;
    char *argv[] = {"-c", "../src/a.cu", "-o", "a.o"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    int owned = 0;
    for (int i = 1; i <= 3; i++) {
        struct wrap_config k = cfg(PHASE_SHARD, i, 3);
        k.plan = "shardcc-plan\t3\nsrc/a.cu\t9\n";
        k.plan_len = strlen(k.plan);
        assert_int_equal(classify_call(SEAT_NVCC, &k, 4, argv, &c, &err), 0);
        assert_true(c.owner >= 1 && c.owner <= 3);
        owned += c.action == ACTION_CACHE;
        call_release(&c);
    }
    assert_int_equal(owned, 1);
    struct wrap_config k = cfg(PHASE_SHARD, 2, 3);
    k.plan = "shardcc-plan\t3\nsrc/a.cu\t2\n";
    k.plan_len = strlen(k.plan);
    assert_int_equal(classify_call(SEAT_NVCC, &k, 4, argv, &c, &err), 0);
    assert_int_equal(c.owner, 2);
    assert_int_equal(c.action, ACTION_CACHE);
    call_release(&c);
    sb_release(&err);
}

/* A pinned key (SHARDCC_PIN's globs, '*' crossing '/') is compiled in every shard; the
 * others keep their one owner. */
static void test_pinned(void **state)
{
    (void)state;
    char *gen[] = {"-c", "../tools/gen/main.cu", "-o", "gen.o"};
    char *lib[] = {"-c", "../src/a.cu", "-o", "a.o"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    int stubbed = 0;
    for (int i = 1; i <= 4; i++) {
        struct wrap_config k = cfg(PHASE_SHARD, i, 4);
        k.pins = "nomatch/*:tools/*";
        assert_int_equal(classify_call(SEAT_NVCC, &k, 4, gen, &c, &err), 0);
        assert_int_equal(c.action, ACTION_PIN);
        assert_int_equal(c.owner, i);
        assert_string_equal(action_name(c.action), "pin");
        call_release(&c);
        assert_int_equal(classify_call(SEAT_NVCC, &k, 4, lib, &c, &err), 0);
        assert_true(c.action == ACTION_CACHE || c.action == ACTION_STUB);
        stubbed += c.action == ACTION_STUB;
        call_release(&c);
    }
    assert_int_equal(stubbed, 3);
    struct wrap_config link = cfg(PHASE_LINK, 0, 0);
    link.pins = "tools/*";
    assert_int_equal(classify_call(SEAT_NVCC, &link, 4, gen, &c, &err), 0);
    assert_int_equal(c.action, ACTION_CACHE); /* the link job caches everything alike */
    call_release(&c);
    sb_release(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tu_owned_and_stubbed), cmocka_unit_test(test_folded_env_flags),
        cmocka_unit_test(test_default_depfile),      cmocka_unit_test(test_shard_spec),
        cmocka_unit_test(test_shadow_rewrite),       cmocka_unit_test(test_pinned),
        cmocka_unit_test(test_plan_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
