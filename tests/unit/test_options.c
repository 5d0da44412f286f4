/* Unit tests: the option tables are sorted and sound, and lookups find every spelling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "options.h"

static void test_tables_sound(void **state)
{
    (void)state;
    const char *p = opt_table_check(&nvcc_options);
    if (p)
        fail_msg("%s", p);
    p = opt_table_check(&gcc_options);
    if (p)
        fail_msg("%s", p);
    p = opt_table_check(&cl_options);
    if (p)
        fail_msg("%s", p);
    assert_true(nvcc_options.n > 250);
}

static void test_match(void **state)
{
    (void)state;
    const char *v;
    const struct opt *o = opt_match(&nvcc_options, "-o=x.o", &v);
    assert_non_null(o);
    assert_true(o->flags & OPT_OUTPUT);
    assert_string_equal(v, "x.o");
    o = opt_match(&nvcc_options, "--output-file", &v);
    assert_true(o && (o->flags & OPT_OUTPUT) && !v);
    o = opt_match(&nvcc_options, "-DFOO=bar.c", &v);
    assert_true(o && !(o->flags & OPT_OUTPUT));
    assert_string_equal(v, "FOO=bar.c");
    o = opt_match(&nvcc_options, "-O3", &v);
    assert_string_equal(v, "3");
    assert_null(opt_match(&nvcc_options, "-ofoo.o", &v)); /* nvcc rejects it too */
    o = opt_match(&nvcc_options, "--generate-dependencies-with-compile", &v);
    assert_string_equal(o->rewrite, "-MD");
    o = opt_match(&nvcc_options, "--dependency-output=d.d", &v);
    assert_string_equal(o->rewrite, "-MF");
    assert_string_equal(v, "d.d");
    o = opt_match(&nvcc_options, "-optf=a,b", &v);
    assert_true(o->flags & OPT_OPTFILE);
    o = opt_match(&gcc_options, "-ofoo.o", &v);
    assert_true(o && (o->flags & OPT_OUTPUT));
    assert_string_equal(v, "foo.o");
    o = opt_match(&gcc_options, "-MFdep.d", &v);
    assert_true(o->flags & OPT_DEPFILE);
    o = opt_match(&gcc_options, "-print-prog-name=cc1plus", &v);
    assert_true(o->flags & OPT_INFO);
    assert_null(opt_match(&gcc_options, "-std=c++17", &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables_sound),
        cmocka_unit_test(test_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
