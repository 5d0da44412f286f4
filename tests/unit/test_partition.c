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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
