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

#include "artifact.h"
#include "cmstate.h"
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

/* Journal numbers are strict: a record whose number fields are not plain decimals within
 * range is skipped like any other malformed line, never counted with atoi's guess (which
 * reads shard "9/2" as shard 9, status "-1x" as -1, time "12abc" as 12). */
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

/* one build directory's state with the given dir and file name, for cmstate_check */
static int check_one(const char *dir, const char *name)
{
    json_t *v =
        json_pack("[{s:s, s:{s:s, s:s}}]", "dir", dir, "files", "CMakeCache.txt", "x", name, "y");
    struct strbuf err = STRBUF_INIT;
    int rc = cmstate_check(v, &err);
    json_decref(v);
    sb_release(&err);
    return rc;
}

static void test_cmstate_check(void **state)
{
    (void)state;
    assert_int_equal(check_one("build", "CMakeFiles/3.25.1/CMakeSystem.cmake"), 0);
    assert_int_equal(check_one("a/b-c/build", "CMakeFiles/3.31.0-rc2/CMakeCUDACompiler.cmake"), 0);
    assert_int_equal(check_one("build", "CMakeFiles/4.0.3/CMakeASM-ATTCompiler.cmake"), 0);
    assert_int_equal(check_one("build", "CMakeCache.txt"), 0);
    /* directories outside the root, hidden or not plain */
    const char *dirs[] = {"",   "/tmp/build", "../build",   "a/../b", "a/./b", "a//b",
                          "a/", ".git",       "a/.shardcc", "a\\b",   "a\nb"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        assert_int_equal(check_one(dirs[i], "CMakeCache.txt"), -1);
    /* files that are not CMake's configure state */
    const char *names[] = {"CMakeFiles/3.25.1/evil.sh",
                           "CMakeFiles/x/CMakeSystem.cmake",
                           "CMakeFiles/3.25.1/../../x/CMakeSystem.cmake",
                           "CMakeFiles/3.25.1/sub/CMakeSystem.cmake",
                           "CMakeFiles/3.25.1/CMakeCompiler.cmake",
                           "CMakeFiles/3.25.1/CMake$Compiler.cmake",
                           "build.ninja",
                           "CMakeFiles//CMakeSystem.cmake"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_int_equal(check_one("build", names[i]), -1);
    struct strbuf err = STRBUF_INIT;
    json_t *v = json_pack("[{s:s, s:{s:s}}]", "dir", "b", "files", "CMakeFiles/3/CMakeSystem.cmake",
                          "x"); /* no CMakeCache.txt */
    assert_int_equal(cmstate_check(v, &err), -1);
    json_decref(v);
    v = json_pack("[{s:s, s:{s:s}}, {s:s, s:{s:s}}]", "dir", "b", "files", "CMakeCache.txt", "x",
                  "dir", "b", "files", "CMakeCache.txt", "y"); /* twice */
    assert_int_equal(cmstate_check(v, &err), -1);
    json_decref(v);
    v = json_pack("{s:s}", "dir", "b"); /* not an array */
    assert_int_equal(cmstate_check(v, &err), -1);
    json_decref(v);
    v = json_pack("[{s:s, s:{s:i}}]", "dir", "b", "files", "CMakeCache.txt", 1); /* not text */
    assert_int_equal(cmstate_check(v, &err), -1);
    json_decref(v);
    v = json_array();
    for (int i = 0; i <= CMSTATE_MAX_DIRS; i++) {
        char d[16];
        snprintf(d, sizeof d, "b%d", i);
        json_array_append_new(
            v, json_pack("{s:s, s:{s:s}}", "dir", d, "files", "CMakeCache.txt", "x"));
    }
    assert_int_equal(cmstate_check(v, &err), -1);
    json_decref(v);
    sb_release(&err);
}

static void put(const char *root, const char *rel, const char *text)
{
    struct strbuf p = STRBUF_INIT;
    sb_addf(&p, "%s/%s", root, rel);
    char *slash = strrchr(p.buf, '/');
    *slash = '\0';
    assert_int_equal(plat_mkdir_p(sb_str(&p)), 0);
    *slash = '/';
    assert_int_equal(plat_write_atomic(sb_str(&p), text, strlen(text)), 0);
    sb_release(&p);
}

static void put_build(const char *root, const char *rel, const char *made_at)
{
    struct strbuf t = STRBUF_INIT, p = STRBUF_INIT;
    sb_addf(&t,
            "# comment\nCMAKE_CACHEFILE_DIR:INTERNAL=%s\nCMAKE_CACHE_MAJOR_VERSION:INTERNAL=3\n"
            "CMAKE_CACHE_MINOR_VERSION:INTERNAL=25\nCMAKE_CACHE_PATCH_VERSION:INTERNAL=1\n",
            made_at);
    sb_addf(&p, "%s/CMakeCache.txt", rel);
    put(root, sb_str(&p), sb_str(&t));
    const char *files[] = {"CMakeSystem.cmake", "CMakeCUDACompiler.cmake", "CMakeCXXCompiler.cmake",
                           "CompilerIdCUDA/a.out", "CMakeDetermineCompilerABI_CUDA.bin"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        sb_reset(&p);
        sb_addf(&p, "%s/CMakeFiles/3.25.1/%s", rel, files[i]);
        put(root, sb_str(&p), files[i]);
    }
    sb_reset(&p);
    sb_addf(&p, "%s/CMakeFiles/CMakeScratch/x", rel);
    put(root, sb_str(&p), "scratch");
    sb_release(&t);
    sb_release(&p);
}

/* ccache's entry names: with a kind letter (4.7.5's "5/f/92cou...R") and, in newer ccache
 * (4.14.2: measured), the hex key alone with the kind in the header (cc ac, version, type) */
static void test_cache_entry_names(void **state)
{
    (void)state;
    const char *good[] = {
        "5/f/92cou846au5pjrs2n4m6dc4ef5i827sR", "5/f/92cou846au5pjrs2n4m6dc4ef5i827sM",
        "a/b/0123456789abcdef0123456789abcdefD", "b/a/11b74f9a50a8855111048ee799638308507fd4",
        "1/3/12940baa1dc1352669f2584d782d14bb9af26a"};
    const char *bad[] = {"stats",
                         "6/1/stats",
                         "b/CACHEDIR.TAG",
                         "b/a/11b74f9a50a8855111048ee79963830850Xfd4",
                         "b/a/short",
                         "11b74f9a50a8855111048ee799638308507fd4",
                         "b/a/../x",
                         "b/a/",
                         "b/a/11B74F9A50A8855111048EE799638308507FD4",
                         "tmp/.cleaned"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(cache_entry_name_ok(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(cache_entry_name_ok(bad[i]));
    assert_int_equal(cache_entry_kind(good[0], NULL), CACHE_RESULT);
    assert_int_equal(cache_entry_kind(good[1], NULL), CACHE_MANIFEST);
    assert_int_equal(cache_entry_kind(good[2], NULL), CACHE_DEVICE);
    assert_int_equal(cache_entry_kind(good[3], NULL), 0); /* no letter, no file */
    char tmpl[] = "/tmp/shardcc-entry-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    struct strbuf p = STRBUF_INIT;
    static const char result[] = "\xcc\xac\x01\x00\x01\x01",
                      manifest[] = "\xcc\xac\x01\x01\x01\x01", other[] = "\x28\xb5\x2f\xfd\x00\x00";
    sb_addf(&p, "%s/r", tmpl);
    assert_int_equal(plat_write_atomic(sb_str(&p), result, 6), 0);
    assert_int_equal(cache_entry_kind(good[3], sb_str(&p)), CACHE_RESULT);
    assert_int_equal(cache_entry_kind(good[0], sb_str(&p)), CACHE_RESULT); /* the letter rules */
    assert_int_equal(plat_write_atomic(sb_str(&p), manifest, 6), 0);
    assert_int_equal(cache_entry_kind(good[3], sb_str(&p)), CACHE_MANIFEST);
    assert_int_equal(plat_write_atomic(sb_str(&p), other, 6), 0);
    assert_int_equal(cache_entry_kind(good[3], sb_str(&p)), 0);
    unlink(sb_str(&p));
    rmdir(tmpl);
    sb_reset(&p);
    cache_entry_key(good[0], &p);
    assert_string_equal(sb_str(&p), "5f92cou846au5pjrs2n4m6dc4ef5i827s");
    sb_reset(&p);
    cache_entry_key(good[3], &p);
    assert_string_equal(sb_str(&p), "ba11b74f9a50a8855111048ee799638308507fd4");
    sb_release(&p);
}

static void test_cmstate_round_trip(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/shardcc-cmstate-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    struct strbuf b = STRBUF_INIT, c = STRBUF_INIT;
    sb_addf(&b, "%s/out/build", tmpl);
    put_build(tmpl, "out/build", sb_str(&b));
    put_build(tmpl, "copied", "/elsewhere/copied"); /* made at another path */
    put_build(tmpl, ".hidden/build", "/x");         /* not looked into */
    put_build(tmpl, "out/build/nested", "/y");      /* inside a build directory */
    put(tmpl, "src/a.cu", "__global__ void k() {}\n");
    struct strvec notes = STRVEC_INIT, done = STRVEC_INIT;
    json_t *v = cmstate_collect(tmpl, &notes);
    assert_int_equal(json_array_size(v), 1);
    json_t *d = json_array_get(v, 0);
    assert_string_equal(json_string_value(json_object_get(d, "dir")), "out/build");
    json_t *files = json_object_get(d, "files");
    assert_int_equal(json_object_size(files), 4); /* the cache, the system, two compilers */
    assert_non_null(json_object_get(files, "CMakeFiles/3.25.1/CMakeCUDACompiler.cmake"));
    assert_null(json_object_get(files, "CMakeFiles/3.25.1/CMakeDetermineCompilerABI_CUDA.bin"));
    assert_int_equal(notes.n, 1);
    assert_non_null(
        strstr(notes.v[0], "copied: its CMakeCache.txt was made at \"/elsewhere/copied\""));
    struct strbuf err = STRBUF_INIT;
    assert_int_equal(cmstate_check(v, &err), 0);

    /* into a fresh tree: written, the same bytes */
    sb_addf(&c, "%s/out", tmpl);
    assert_int_equal(plat_rmtree(sb_str(&c)), 0);
    sv_clear(&notes);
    assert_int_equal(cmstate_restore(tmpl, v, &done, &notes), 0);
    assert_int_equal(done.n, 1);
    assert_int_equal(notes.n, 0);
    json_t *again = cmstate_collect(tmpl, &notes);
    assert_true(json_equal(again, v));
    json_decref(again);
    /* a configured directory is left as it is */
    sv_clear(&notes);
    sv_clear(&done);
    assert_int_equal(cmstate_restore(tmpl, v, &done, &notes), 0);
    assert_int_equal(done.n, 0);
    assert_non_null(strstr(notes.v[0], "already configured here"));
    /* a symbolic link on the way is not followed */
    assert_int_equal(plat_rmtree(sb_str(&c)), 0);
    assert_int_equal(plat_symlink("/tmp", sb_str(&c)), 0);
    sv_clear(&notes);
    assert_int_equal(cmstate_restore(tmpl, v, &done, &notes), 0);
    assert_int_equal(done.n, 0);
    assert_non_null(strstr(notes.v[0], "symbolic link"));
    /* a cache made at another root is not written */
    assert_int_equal(plat_unlink(sb_str(&c)), 0);
    sv_clear(&notes);
    assert_int_equal(cmstate_restore("/tmp/another-root", v, &done, &notes), 0);
    assert_int_equal(done.n, 0);
    assert_non_null(strstr(notes.v[0], "made at another path"));
    /* where the two states differ */
    json_object_set_new(files, "CMakeCache.txt", json_string("changed"));
    cmstate_diff(v, again = cmstate_collect(tmpl, &notes), &err);
    assert_string_equal(sb_str(&err), "1 build directories against 0");
    json_decref(again);
    json_decref(v);
    sv_clear(&notes);
    sv_clear(&done);
    sb_release(&err);
    sb_release(&b);
    sb_release(&c);
    plat_rmtree(tmpl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_count),
        cmocka_unit_test(test_cell_id),
        cmocka_unit_test(test_bindir),
        cmocka_unit_test(test_run_build),
        cmocka_unit_test(test_journal_strict_numbers),
        cmocka_unit_test(test_cmstate_check),
        cmocka_unit_test(test_cmstate_round_trip),
        cmocka_unit_test(test_cache_entry_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
