/* Unit tests: the journal record format and the ccache log parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "ccache_log.h"
#include "journal.h"

static void test_format(void **state)
{
    (void)state;
    struct journal_rec r = {1700000000000000ull,
                            42,
                            SEAT_NVCC,
                            PHASE_SHARD,
                            2,
                            4,
                            KIND_TU,
                            ACTION_CACHE,
                            0,
                            123,
                            3,
                            "src/a\tb.cu",
                            "o\\x.o",
                            "hit",
                            "89d36m1m5rvkes48dc7phaju4ecmo8m9m",
                            NULL,
                            NULL,
                            NULL,
                            0,
                            0};
    struct strbuf sb = STRBUF_INIT;
    journal_format(&r, &sb);
    assert_string_equal(sb_str(&sb),
                        "SCJ2\t1700000000000000\t42\tnvcc\tshard\t2/4\ttu\tcache\t0\t123"
                        "\t3\tsrc/a\\tb.cu\to\\\\x.o\thit\t89d36m1m5rvkes48dc7phaju4ecmo8m9m\n");
    /* a hit from ccache's remote storage: an SCP1 remote line after the record */
    sb_reset(&sb);
    r.remote = 1;
    journal_format(&r, &sb);
    assert_string_equal(sb_str(&sb),
                        "SCJ2\t1700000000000000\t42\tnvcc\tshard\t2/4\ttu\tcache\t0\t123"
                        "\t3\tsrc/a\\tb.cu\to\\\\x.o\thit\t89d36m1m5rvkes48dc7phaju4ecmo8m9m\n"
                        "SCP1\tsrc/a\\tb.cu\tremote\thit\n");
    r.remote = 0;
    sb_reset(&sb);
    struct journal_rec o = {1,    1,    SEAT_CXX, PHASE_LINK, 0,    0,    KIND_INFO, ACTION_DIRECT,
                            1,    5,    0,        NULL,       NULL, NULL, NULL,      NULL,
                            NULL, NULL, 0,        0};
    journal_format(&o, &sb);
    assert_string_equal(sb_str(&sb),
                        "SCJ2\t1\t1\tc++\tlink\t0/0\tinfo\tdirect\t1\t5\t-\t-\t-\t-\t-\n");
    /* a cached TU's arguments follow its record: escaped, an empty one kept empty */
    sb_reset(&sb);
    struct strvec av = STRVEC_INIT;
    sv_push(&av, "-DX=a\tb");
    sv_push(&av, "");
    sv_push(&av, "-");
    r.argv = &av;
    journal_format(&r, &sb);
    const char *nl = strchr(sb_str(&sb), '\n');
    assert_non_null(nl);
    assert_string_equal(nl + 1, "SCA1\tsrc/a\\tb.cu\t-DX=a\\tb\t\t-\n");
    /* a reproducible TU that ran as nvcc whole: its SCP1 line, after the arguments */
    sb_reset(&sb);
    r.fallback = "nvcc -dryrun line 2: not a step\tx";
    journal_format(&r, &sb);
    nl = strchr(strchr(sb_str(&sb), '\n') + 1, '\n');
    assert_string_equal(nl + 1,
                        "SCP1\tsrc/a\\tb.cu\tfallback\tnvcc -dryrun line 2: not a step\\tx\n");
    /* a split TU's device items, a line each, after the others */
    sb_reset(&sb);
    r.fallback = NULL;
    r.action = ACTION_SPLIT;
    struct split_item items[2] = {
        {"compute_80", "sm_80", 2, "stored", 1500000, "ab12", "0a0a0a0a.1b1b1b1b.2c2c2c2c"},
        {"compute_90", "sm_90,sm_90a", 1, "other", 0, "", ""}};
    r.items = items;
    r.nitems = 2;
    journal_format(&r, &sb);
    nl = strchr(strchr(sb_str(&sb), '\n') + 1, '\n');
    assert_string_equal(nl + 1,
                        "SCP1\tsrc/a\\tb.cu\titem\tcompute_80\tsm_80\t2\tstored\t1500000\tab12\t"
                        "0a0a0a0a.1b1b1b1b.2c2c2c2c\n"
                        "SCP1\tsrc/a\\tb.cu\titem\tcompute_90\tsm_90,sm_90a\t1\tother\t0\t-\t-\n");
    sv_clear(&av);
    sb_release(&sb);
}

static void parse(const char *text, const char *outcome, const char *key)
{
    struct ccache_outcome o;
    ccache_log_parse(text, strlen(text), &o);
    assert_string_equal(o.outcome, outcome);
    assert_string_equal(o.result_key, key);
}

static void test_ccache_log(void **state)
{
    (void)state;
    /* lines as ccache 4.7.5 writes them */
    parse("[2026-12-01T03:10:26.803199 3662 ] Manifest key: 4477adqolpaqp5vmm9gh9qf9t4fm3ccs4\n"
          "[2026-12-01T03:10:26.970466 3662 ] Result key: 89d36m1m5rvkes48dc7phaju4ecmo8m9m\n"
          "[2026-12-01T03:10:27.885318 3662 ] Result: cache_miss\n"
          "[2026-12-01T03:10:27.885320 3662 ] Result: direct_cache_miss\n"
          "[2026-12-01T03:10:27.885321 3662 ] Result: local_storage_miss\n",
          "miss", "89d36m1m5rvkes48dc7phaju4ecmo8m9m");
    parse("[t 1 ] Result key: abc\n[t 1 ] Result: direct_cache_hit\n[t 1 ] Result: "
          "local_storage_hit\n",
          "hit", "abc");
    parse("[t 1 ] Result: preprocessed_cache_hit", "hit", "");
    parse("[t 1 ] Result: preprocessor_error\n", "preprocessor_error", "");
    parse("[t 1 ] Result: local_storage_read_miss\n[t 1 ] Result: called_for_link\n",
          "called_for_link", "");
    parse("", "unknown", "");
    /* stats logs, as ccache 4.7.5 writes them for CCACHE_STATSLOG */
    parse("# ../src/a.cu\ndirect_cache_hit\nlocal_storage_hit\nlocal_storage_read_hit\n", "hit",
          "");
    parse("# ../src/a.cu\ncache_miss\ndirect_cache_miss\nlocal_storage_miss\n", "miss", "");
    parse("# ../src/a.cu ../src/b.cu\nmultiple_source_files\n", "multiple_source_files", "");
    parse("garbage without brackets\n]\n[x] Result:\n", "unknown", "");
    /* a hit from the remote storage (the lines of ccache 4.7.5 with an http remote) */
    struct ccache_outcome o;
    const char *remote = "[t 1] Result: direct_cache_hit\n[t 1] Result: local_storage_miss\n"
                         "[t 1] Result: local_storage_read_miss\n[t 1] Result: "
                         "remote_storage_hit\n[t 1] Result: remote_storage_read_hit\n";
    ccache_log_parse(remote, strlen(remote), &o);
    assert_string_equal(o.outcome, "hit");
    assert_int_equal(o.remote, 1);
    const char *local = "# a.cu\ndirect_cache_hit\nlocal_storage_hit\n";
    ccache_log_parse(local, strlen(local), &o);
    assert_int_equal(o.remote, 0);
    /* a miss that read the remote (and wrote it) is no remote hit */
    const char *miss = "# a.cu\ncache_miss\nremote_storage_miss\nremote_storage_write\n";
    ccache_log_parse(miss, strlen(miss), &o);
    assert_string_equal(o.outcome, "miss");
    assert_int_equal(o.remote, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_ccache_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
