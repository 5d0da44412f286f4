/* Unit tests: options-file splitting under nvcc's and gcc's quoting rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rsp.h"

static void check(enum rsp_syntax syn, const char *text, const char *const *want, size_t n)
{
    struct strvec sv = STRVEC_INIT;
    rsp_split(text, strlen(text), syn, &sv);
    assert_int_equal(sv.n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(sv.v[i], want[i]);
    sv_clear(&sv);
}

static void test_nvcc(void **state)
{
    (void)state;
    /* measured with nvcc 13.0: " groups, \ escapes, ' is literal */
    const char *w1[] = {"-DA=x y", "-O2", "p q.o", "p\\q.o", "'x", "y.o'"};
    check(RSP_NVCC, "-DA=\"x y\"\n -O2\tp\\ q.o \"p\\\\q.o\" 'x y.o'", w1, 6);
    const char *w2[] = {"--generate-code=arch=compute_90,code=[compute_90,sm_90]"};
    check(RSP_NVCC, "\"--generate-code=arch=compute_90,code=[compute_90,sm_90]\"\r\n", w2, 1);
    const char *w3[] = {""};
    check(RSP_NVCC, "\"\"", w3, 1);
    check(RSP_NVCC, "  \n\t ", NULL, 0);
}

static void test_gcc(void **state)
{
    (void)state;
    const char *w[] = {"-DX=a b", "-Dy=\"q\"", "c d", "e\\f"};
    check(RSP_GCC, "'-DX=a b' -Dy=\\\"q\\\" \"c d\" e\\\\f", w, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvcc),
        cmocka_unit_test(test_gcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
