/* Unit tests: the partition function is a contract (partition.h). These vectors were
 * computed with the independent python-xxhash implementation of XXH64 (seed 0); if this
 * test fails, shards and link jobs of different shardcc versions would disagree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "partition.h"

static const struct {
    const char *key;
    uint64_t hash;
    int n, owner;
} vectors[] = {
#include "partition_vectors.inc"
};

static void test_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        assert_int_equal(partition_hash(vectors[i].key), vectors[i].hash);
        assert_int_equal(partition_owner(vectors[i].key, vectors[i].n), vectors[i].owner);
    }
}

static void test_range(void **state)
{
    (void)state;
    char key[32];
    for (int n = 1; n <= 20; n++)
        for (int k = 0; k < 200; k++) {
            snprintf(key, sizeof key, "src/k%d.cu", k);
            int o = partition_owner(key, n);
            assert_true(o >= 1 && o <= n);
        }
}

/* The seat's plan lookup: exact keys only (no prefix, no suffix), the header's count. */
static void test_plan(void **state)
{
    (void)state;
    const char *plan = "shardcc-plan\t3\nsrc/a.cu\t2\nsrc/a.cu.bak\t3\nsrc/b.cu\t1\nz\t3\n";
    assert_int_equal(plan_count(plan), 3);
    assert_int_equal(plan_owner(plan, strlen(plan), "src/a.cu"), 2);
    assert_int_equal(plan_owner(plan, strlen(plan), "src/a.cu.bak"), 3);
    assert_int_equal(plan_owner(plan, strlen(plan), "src/b.cu"), 1);
    assert_int_equal(plan_owner(plan, strlen(plan), "z"), 3);
    assert_int_equal(plan_owner(plan, strlen(plan), "src/a"), 0);    /* a prefix of a key */
    assert_int_equal(plan_owner(plan, strlen(plan), "a.cu"), 0);     /* a suffix of a key */
    assert_int_equal(plan_owner(plan, strlen(plan), "src/c.cu"), 0); /* absent: the hash decides */
    assert_int_equal(plan_owner(plan, strlen(plan), "shardcc-plan"), 0);
    assert_int_equal(plan_count("shardcc-plan\t12\n"), 12);
    assert_int_equal(plan_count("shardcc-plan\tx\n"), 0);
    assert_int_equal(plan_count("{\"format\": 1}\n"), 0); /* plan.json, not the seat's form */
    assert_int_equal(plan_owner("shardcc-plan\t2\nk\t2", 18, "k"), 0); /* truncated last line */
    /* a NUL byte within a line makes it a bad line, not the text's end */
    static const char nul[] = "shardcc-plan\t2\na\t1\nb\0c\t2\nd\t1\n";
    assert_int_equal(plan_bad_line(nul, sizeof nul - 1, 2), 3);
    assert_int_equal(plan_bad_line(nul, 19, 2), 0); /* "...a\t1\n": the text before it */
}

/* A seat text with a check (as shardcc writes it): XXH64 of the lines, bisection over them. */
static void test_plan_checked(void **state)
{
    (void)state;
    char check[17], text[4096], key[32];
    plan_check_text("", 0, check);
    assert_string_equal(check, "ef46db3751d8e999"); /* xxHash's own vector for "" */
    plan_check_text("abc", 3, check);
    assert_string_equal(check, "44bc2cf5ad770999");
    /* 1..60 keys: every key is found, and every key between or beyond them is not */
    for (int n = 1; n <= 60; n++) {
        char body[4096] = "";
        size_t len = 0;
        for (int k = 0; k < n; k++)
            len += (size_t)snprintf(body + len, sizeof body - len, "src/k%03d.cu\t%d\n", 2 * k,
                                    1 + k % 3);
        plan_check_text(body, len, check);
        snprintf(text, sizeof text, "shardcc-plan\t3\t%s\n%s", check, body);
        assert_int_equal(plan_count(text), 3);
        assert_int_equal(plan_bad_line(text, strlen(text), 3), 0);
        for (int k = 0; k < n; k++) {
            snprintf(key, sizeof key, "src/k%03d.cu", 2 * k);
            assert_int_equal(plan_owner(text, strlen(text), key), 1 + k % 3);
            snprintf(key, sizeof key, "src/k%03d.cu", 2 * k + 1);
            assert_int_equal(plan_owner(text, strlen(text), key), 0);
            snprintf(key, sizeof key, "src/k%03d.c", 2 * k); /* a prefix */
            assert_int_equal(plan_owner(text, strlen(text), key), 0);
            snprintf(key, sizeof key, "src/k%03d.cux", 2 * k); /* longer */
            assert_int_equal(plan_owner(text, strlen(text), key), 0);
        }
        assert_int_equal(plan_owner(text, strlen(text), ""), 0);
        assert_int_equal(plan_owner(text, strlen(text), "a"), 0);
        assert_int_equal(plan_owner(text, strlen(text), "z"), 0);
        text[strlen(text) - 2] = text[strlen(text) - 2] == '1' ? '2' : '1'; /* edited */
        assert_int_equal(plan_bad_line(text, strlen(text), 3), 1);
    }
    /* a check that is not 16 hex digits: not a header */
    assert_int_equal(plan_count("shardcc-plan\t3\tef46db3751d8e99\n"), 0);
    assert_int_equal(plan_count("shardcc-plan\t3\tef46db3751d8e999x\n"), 0);
    assert_int_equal(plan_count("shardcc-plan\t3\tEF46DB3751D8E999\n"), 0);
    assert_int_equal(plan_count("shardcc-plan\t3\tef46db3751d8e999\n"), 3);
    assert_int_equal(plan_bad_line("shardcc-plan\t3\tef46db3751d8e999\n", 32, 3), 0); /* no lines */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_plan_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
