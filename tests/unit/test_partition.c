/* Unit tests: the partition function is a contract (partition.h). These vectors were
 * computed with the independent python-xxhash implementation of XXH64 (seed 0); if this
 * test fails, shards and link jobs of different shardcc versions would disagree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

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
    assert_int_equal(plan_owner(plan, "src/a.cu"), 2);
    assert_int_equal(plan_owner(plan, "src/a.cu.bak"), 3);
    assert_int_equal(plan_owner(plan, "src/b.cu"), 1);
    assert_int_equal(plan_owner(plan, "z"), 3);
    assert_int_equal(plan_owner(plan, "src/a"), 0);    /* a prefix of a key */
    assert_int_equal(plan_owner(plan, "a.cu"), 0);     /* a suffix of a key */
    assert_int_equal(plan_owner(plan, "src/c.cu"), 0); /* absent: the hash decides */
    assert_int_equal(plan_owner(plan, "shardcc-plan"), 0);
    assert_int_equal(plan_count("shardcc-plan\t12\n"), 12);
    assert_int_equal(plan_count("shardcc-plan\tx\n"), 0);
    assert_int_equal(plan_count("{\"format\": 1}\n"), 0); /* plan.json, not the seat's form */
    assert_int_equal(plan_owner("shardcc-plan\t2\nk\t2", "k"), 0); /* truncated last line */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
