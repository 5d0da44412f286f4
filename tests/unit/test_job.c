/* Unit tests: the job helpers of src/core/job.c. Linked against the whole of shardcc_core
 * (every object, not only those these tests call) and none of the CLI's objects: that it
 * links at all shows the modules never call up into a subcommand or main.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "job.h"
#include "platform.h"

static void test_parse_count(void **state)
{
    (void)state;
    assert_int_equal(parse_count("1"), 1);
    assert_int_equal(parse_count("4"), 4);
    assert_int_equal(parse_count("100000"), 100000);
    assert_int_equal(parse_count("100001"), 0);
    assert_int_equal(parse_count(""), 0);
    assert_int_equal(parse_count("-3"), 0);
    assert_int_equal(parse_count("3x"), 0);
    assert_int_equal(parse_count(" 3"), 0);
    assert_int_equal(parse_count("99999999999999999999"), 0);
}

static void test_cell_id(void **state)
{
    (void)state;
    assert_true(cell_id_ok("flash-attn-linux-x86_64-py3.11-cu13.0-torch2.11.0"));
    assert_true(cell_id_ok("a+b_c.d"));
    assert_false(cell_id_ok(""));
    assert_false(cell_id_ok(".hidden"));
    assert_false(cell_id_ok("-x"));
    assert_false(cell_id_ok("a/b"));
    assert_false(cell_id_ok("a b"));
    assert_false(cell_id_ok("demo\n::error::x"));
    char long_id[202];
    memset(long_id, 'a', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    assert_false(cell_id_ok(long_id));
    long_id[200] = '\0';
    assert_true(cell_id_ok(long_id));
}

static void test_bindir(void **state)
{
    (void)state;
    struct strbuf dir = STRBUF_INIT, self = STRBUF_INIT;
    assert_int_equal(shardcc_bindir(&dir), 0);
    assert_int_equal(plat_self_exe(&self), 0);
    /* the directory of this test binary, without a trailing '/' */
    assert_true(dir.len > 0 && dir.len < self.len);
    assert_memory_equal(dir.buf, self.buf, dir.len);
    assert_int_equal(self.buf[dir.len], '/');
    assert_null(strchr(self.buf + dir.len + 1, '/'));
    sb_release(&dir);
    sb_release(&self);
}

static void test_run_build(void **state)
{
    (void)state;
    struct strbuf how = STRBUF_INIT;
    char *ok[] = {"sh", "-c", "exit 0", NULL};
    assert_int_equal(run_build(ok, &how), 0);
    assert_string_equal(sb_str(&how), "exit status 0");
    sb_reset(&how);
    char *fail[] = {"sh", "-c", "exit 7", NULL};
    assert_int_equal(run_build(fail, &how), 7);
    assert_string_equal(sb_str(&how), "exit status 7");
    sb_reset(&how);
    char *killed[] = {"sh", "-c", "kill -TERM $$", NULL};
    assert_int_equal(run_build(killed, &how), 128 + 15);
    assert_non_null(strstr(sb_str(&how), "killed by signal 15"));
    sb_release(&how);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_count),
        cmocka_unit_test(test_cell_id),
        cmocka_unit_test(test_bindir),
        cmocka_unit_test(test_run_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
