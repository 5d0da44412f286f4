/* Unit tests: the job helpers of src/core/job.c. Linked against the whole of shardcc_core
 * (every object, not only those these tests call) and none of the CLI's objects: that it
 * links at all shows the modules never call up into a subcommand or main.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "jrnl.h"
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

/* Journal numbers are strict (issue 20): a record whose number fields are not plain
 * decimals within range is skipped like any other malformed line, never counted with
 * atoi's guess (shard "9/2" was shard 9, status "-1x" -1, time "12abc" 12). */
static void test_journal_strict_numbers(void **state)
{
    (void)state;
    char path[] = "/tmp/shardcc-unit-jrnl.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char text[] =
        "SCJ2\t100\t7\tnvcc\tshard\t1/2\ttu\tcache\t0\t5\t1\ta.cu\ta.o\tmiss\tk\n" /* good */
        "SCJ2\t12abc\t7\tnvcc\tshard\t1/2\ttu\tcache\t0\t5\t1\tb.cu\tb.o\tmiss\tk\n"
        "SCJ2\t100\t7\tnvcc\tshard\t9/2\ttu\tcache\t0\t5\t1\tc.cu\tc.o\tmiss\tk\n"
        "SCJ2\t100\t7\tnvcc\tshard\t1/2\ttu\tcache\t-1\t5\t1\td.cu\td.o\tmiss\tk\n"
        "SCJ2\t100\t7\tnvcc\tshard\t1/2\ttu\tcache\t0\t5\tx\te.cu\te.o\tmiss\tk\n"
        "SCJ2\t100\t7\tnvcc\tlink\t0/0\ttu\tcache\t0\t5\t-\tf.cu\tf.o\thit\tk\n"; /* good */
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    struct jrnl j;
    assert_int_equal(jrnl_load(path, &j), 0);
    assert_int_equal(j.n, 2);
    assert_int_equal(j.skipped, 4);
    assert_string_equal(j.r[0].key, "a.cu");
    assert_int_equal(j.r[0].shard, 1);
    assert_int_equal(j.r[0].owner, 1);
    assert_string_equal(j.r[1].key, "f.cu");
    assert_int_equal(j.r[1].owner, 0);
    jrnl_release(&j);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_count),
        cmocka_unit_test(test_cell_id),
        cmocka_unit_test(test_bindir),
        cmocka_unit_test(test_run_build),
        cmocka_unit_test(test_journal_strict_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
