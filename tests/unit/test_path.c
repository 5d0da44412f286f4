/* Unit tests: lexical path operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "path.h"

static void check_abs(const char *base, const char *p, const char *want)
{
    struct strbuf sb = STRBUF_INIT;
    path_absolute(base, p, &sb);
    assert_string_equal(sb_str(&sb), want);
    sb_release(&sb);
}

static void test_normalize(void **state)
{
    (void)state;
    check_abs("/r/build", "../src/a.cu", "/r/src/a.cu");
    check_abs("/r/build", "./x//y/./z.cu", "/r/build/x/y/z.cu");
    check_abs("/r", "/a/b/../../../c", "/c");
    check_abs("/", "a", "/a");
    check_abs("/r/b", "..", "/r");
    struct strbuf sb = STRBUF_INIT;
    path_normalize("a/../../b", &sb);
    assert_string_equal(sb_str(&sb), "../b");
    path_normalize("./", &sb);
    assert_string_equal(sb_str(&sb), ".");
    sb_release(&sb);
}

static void test_under(void **state)
{
    (void)state;
    assert_string_equal(path_under("/r", "/r/src/a.cu"), "src/a.cu");
    assert_string_equal(path_under("/r", "/r"), "");
    assert_null(path_under("/r", "/rr/a.cu"));
    assert_null(path_under("/r/x", "/r"));
    assert_string_equal(path_under("/", "/a"), "a");
}

static void test_parts(void **state)
{
    (void)state;
    assert_string_equal(path_basename("a/b/c.cu"), "c.cu");
    assert_string_equal(path_extension("a.b/c.cu"), "cu");
    assert_string_equal(path_extension("a.b/c"), "");
    assert_string_equal(path_extension(".hidden"), "");
    assert_true(path_has_component("b/CMakeFiles/CMakeScratch/x.cu", "CMakeScratch", 0));
    assert_true(path_has_component("b/cmTC_1234/x.cu", "cmTC_", 1));
    assert_false(path_has_component("b/cmTC_1234/x.cu", "cmTC_", 0));
    assert_false(path_has_component("b/CMakeFiles/lib.dir/x.cu.o", "CMakeScratch", 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_under),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
