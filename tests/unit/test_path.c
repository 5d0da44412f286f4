/* Unit tests: lexical path operations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fnmatch.h>
#include <stdio.h>

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

/* path_glob (the Windows seat's fnmatch) against the C library's fnmatch(3), flags 0: fixed
 * cases, then 200,000 random patterns and names over the characters that matter. */
static void test_glob(void **state)
{
    (void)state;
    const char *yes[][2] = {
        {"src/*.cu", "src/a.cu"},  {"*", "a/b/c"},       {"a?c", "a/c"}, {"[ab]x", "bx"},
        {"[!ab]x", "cx"},          {"[a-c]", "b"},       {"\\*", "*"},   {"[]]", "]"},
        {"*/gen/*", "x/gen/y.cu"}, {"a*b*c", "aXbYbZc"}, {"[", "["},     {"", ""}};
    const char *no[][2] = {{"src/*.cu", "src/a.cpp"}, {"[!ab]x", "ax"}, {"a?c", "ac"}, {"\\*", "x"},
                           {"a*b", "ab/c"},           {"", "a"}};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(path_glob(yes[i][0], yes[i][1]));
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(path_glob(no[i][0], no[i][1]));
    static const char pat_chars[] = "ab/*?[]!^-\\", name_chars[] = "ab/*?[]!^-\\";
    unsigned long long x = 88172645463325252ull;
    for (int round = 0; round < 200000; round++) {
        char pat[9], name[9];
        for (int k = 0; k < 2; k++) {
            char *out = k ? name : pat;
            const char *from = k ? name_chars : pat_chars;
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int len = (int)(x % 9);
            for (int j = 0; j < len; j++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                out[j] = from[x % (sizeof pat_chars - 1)];
            }
            out[len] = '\0';
        }
        int want = fnmatch(pat, name, 0) == 0;
        if (path_glob(pat, name) != want)
            fail_msg("path_glob(\"%s\", \"%s\") = %d, fnmatch says %d", pat, name, !want, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_under),
        cmocka_unit_test(test_parts),
        cmocka_unit_test(test_glob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
