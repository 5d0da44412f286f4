/* Unit tests: strbuf and strvec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "strvec.h"

static void test_grow_and_format(void **state)
{
    (void)state;
    struct strbuf sb = STRBUF_INIT;
    assert_string_equal(sb_str(&sb), "");
    for (int i = 0; i < 1000; i++)
        sb_addc(&sb, 'x');
    assert_int_equal(sb.len, 1000);
    sb_reset(&sb);
    sb_addf(&sb, "%s-%d", "a", 42);
    sb_adds(&sb, "!");
    assert_string_equal(sb_str(&sb), "a-42!");
    char *d = sb_detach(&sb);
    assert_string_equal(d, "a-42!");
    assert_int_equal(sb.len, 0);
    free(d);
    sb_release(&sb);
}

static void test_strvec(void **state)
{
    (void)state;
    struct strvec sv = STRVEC_INIT;
    assert_null(sv_argv(&sv)[0]);
    for (int i = 0; i < 100; i++)
        sv_push(&sv, "arg");
    assert_int_equal(sv.n, 100);
    assert_null(sv.v[100]);
    sv_clear(&sv);
    assert_int_equal(sv.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_and_format),
        cmocka_unit_test(test_strvec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
