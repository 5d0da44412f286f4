/* Unit tests: the journal record format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "journal.h"

static void test_format(void **state)
{
    (void)state;
    struct journal_rec r = {
        1700000000000000ull, 42,      SEAT_NVCC, PHASE_SHARD, 2, 4, KIND_TU, ACTION_STUB, 0, 123, 3,
        "src/a\tb.cu",       "o\\x.o"};
    struct strbuf sb = STRBUF_INIT;
    journal_format(&r, &sb);
    assert_string_equal(sb_str(&sb),
                        "SCJ1\t1700000000000000\t42\tnvcc\tshard\t2/4\ttu\tstub\t0\t123"
                        "\t3\tsrc/a\\tb.cu\to\\\\x.o\n");
    sb_reset(&sb);
    struct journal_rec o = {1, 1, SEAT_CXX, PHASE_LINK, 0,   0, KIND_INFO, ACTION_DIRECT,
                            1, 5, 0,        NULL,       NULL};
    journal_format(&o, &sb);
    assert_string_equal(sb_str(&sb), "SCJ1\t1\t1\tc++\tlink\t0/0\tinfo\tdirect\t1\t5\t-\t-\t-\n");
    sb_release(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_format)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
