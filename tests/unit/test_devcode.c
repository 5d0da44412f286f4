/* Unit tests: the device-code store's key inputs (devcode.h) and its classification. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h"
#include "devcode.h"
#include "platform.h"

static void test_options(void **state)
{
    (void)state;
    assert_true(devcode_option("-fatbin"));
    assert_true(devcode_option("--ptx"));
    assert_true(devcode_option("-cubin"));
    assert_true(devcode_option("-optix-ir"));
    assert_true(devcode_option("--ltoir"));
    assert_false(devcode_option("-dlink"));
    assert_false(devcode_option("-c"));
}

static void test_args(void **state)
{
    (void)state;
    struct wrap_config c = {.phase = PHASE_LINK, .root = "/r", .cwd = "/r/build"};
    struct strvec in = STRVEC_INIT, key = STRVEC_INIT, dep = STRVEC_INIT;
    const char *a[] = {"-I/r/inc", "-I/rr/x", "-fatbin", "-MD",      "-MT",         "k.fatbin",
                       "-MF",      "k.d",     "-o",      "k.fatbin", "-arch=sm_90", "/r/src/k.cu"};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        sv_push(&in, a[i]);
    devcode_args(&c, &in, &key, &dep, "/tmp/d.d");
    const char *want_key[] = {"-I<root>/inc", "-I/rr/x", "-fatbin", "-arch=sm_90",
                              "<root>/src/k.cu"};
    assert_int_equal(key.n, 5);
    for (size_t i = 0; i < key.n; i++)
        assert_string_equal(key.v[i], want_key[i]);
    const char *want_dep[] = {"-I/r/inc", "-I/rr/x", "-arch=sm_90", "/r/src/k.cu",
                              "-M",       "-MF",     "/tmp/d.d"};
    assert_int_equal(dep.n, 7);
    for (size_t i = 0; i < dep.n; i++)
        assert_string_equal(dep.v[i], want_dep[i]);
    sv_clear(&in);
    sv_clear(&key);
    sv_clear(&dep);
}

static void test_parse_deps(void **state)
{
    (void)state;
    struct strvec d = STRVEC_INIT;
    assert_int_equal(devcode_parse_deps("a.o : a.cu \\\n    /usr/include/x.h \\\n   b\\ c.h\n"
                                        "other: rule\n",
                                        &d),
                     0);
    assert_int_equal(d.n, 3);
    assert_string_equal(d.v[0], "a.cu");
    assert_string_equal(d.v[1], "/usr/include/x.h");
    assert_string_equal(d.v[2], "b c.h");
    sv_clear(&d);
    assert_int_equal(devcode_parse_deps("C:/x/a.o: a.cu\n", &d), 0); /* a drive letter */
    assert_int_equal(d.n, 1);
    sv_clear(&d);
    assert_int_equal(devcode_parse_deps("no rule here\n", &d), -1);
}

static void test_depfile(void **state)
{
    (void)state;
    struct strvec t = STRVEC_INIT, d = STRVEC_INIT;
    sv_push(&t, "k.fatbin");
    sv_push(&d, "a.cu");
    sv_push(&d, "b c.h");
    struct strbuf out = STRBUF_INIT;
    devcode_depfile(&t, &d, &out);
    assert_string_equal(sb_str(&out), "k.fatbin: \\\n a.cu \\\n b\\ c.h\n");
    struct strvec back = STRVEC_INIT;
    assert_int_equal(devcode_parse_deps(sb_str(&out), &back), 0);
    assert_int_equal(back.n, 2);
    assert_string_equal(back.v[1], "b c.h");
    sb_release(&out);
    sv_clear(&t);
    sv_clear(&d);
    sv_clear(&back);
}

/* The key follows the contents of every dependency and the arguments, not where the
 * project lies. */
static void key_of(const char *root, const char *header, const char *arch, char key[65])
{
    char path[512];
    snprintf(path, sizeof path, "%s/src", root);
    assert_int_equal(plat_mkdir_p(path), 0);
    snprintf(path, sizeof path, "%s/src/k.cu", root);
    assert_int_equal(plat_write_atomic(path, "#include \"h.cuh\"\n", 17), 0);
    snprintf(path, sizeof path, "%s/src/h.cuh", root);
    assert_int_equal(plat_write_atomic(path, header, strlen(header)), 0);
    struct wrap_config c = {.phase = PHASE_LINK, .root = (char *)root, .cwd = (char *)root};
    struct strvec in = STRVEC_INIT, args = STRVEC_INIT, dep_args = STRVEC_INIT, deps = STRVEC_INIT;
    char inc[512];
    snprintf(inc, sizeof inc, "-I%s/src", root);
    sv_push(&in, inc);
    sv_push(&in, arch);
    devcode_args(&c, &in, &args, &dep_args, "d.d"); /* the root written as "<root>" */
    sv_clear(&in);
    sv_clear(&dep_args);
    sv_push(&deps, "src/k.cu");
    snprintf(path, sizeof path, "%s/src/h.cuh", root);
    sv_push(&deps, path);
    struct strbuf err = STRBUF_INIT;
    assert_int_equal(devcode_key(&c, "string:fp", NULL, &args, &deps, key, &err), 0);
    assert_int_equal(strlen(key), 64);
    sv_clear(&args);
    sv_clear(&deps);
    sb_release(&err);
}

static void test_key(void **state)
{
    (void)state;
    char base[] = "/tmp/shardcc-devcode-test.XXXXXX";
    assert_non_null(mkdtemp(base));
    char r1[600], r2[600];
    snprintf(r1, sizeof r1, "%s/one", base);
    snprintf(r2, sizeof r2, "%s/two", base);
    char k1[65], k2[65], k3[65], k4[65];
    key_of(r1, "#define V 1\n", "-arch=sm_90", k1);
    key_of(r2, "#define V 1\n", "-arch=sm_90", k2);
    assert_string_equal(k1, k2); /* another root, the same key */
    key_of(r2, "#define V 2\n", "-arch=sm_90", k3);
    assert_string_not_equal(k1, k3); /* a header changed */
    key_of(r2, "#define V 1\n", "-arch=sm_80", k4);
    assert_string_not_equal(k1, k4); /* an argument changed */
    struct wrap_config c = {.phase = PHASE_LINK, .root = r1, .cwd = r1};
    struct strvec args = STRVEC_INIT, deps = STRVEC_INIT;
    sv_push(&deps, "src/missing.cuh");
    struct strbuf err = STRBUF_INIT;
    char k5[65];
    assert_int_not_equal(devcode_key(&c, "string:fp", NULL, &args, &deps, k5, &err), 0);
    assert_non_null(strstr(sb_str(&err), "missing.cuh"));
    sv_clear(&deps);
    sb_release(&err);
    struct strbuf e = STRBUF_INIT;
    devcode_entry_path("/c", k1, &e);
    assert_int_equal(e.len, strlen("/c/x/y/") + 62 + 1);
    assert_int_equal(sb_str(&e)[e.len - 1], 'D');
    sb_release(&e);
    assert_int_equal(plat_rmtree(base), 0);
}

static void test_classified(void **state)
{
    (void)state;
    char *argv[] = {"-fatbin",  "-arch=sm_90", "-MD", "-MT",
                    "k.fatbin", "-MF",         "k.d", "/nonexistent-root/src/k.cu",
                    "-o",       "k.fatbin"};
    struct call c;
    struct strbuf err = STRBUF_INIT;
    struct wrap_config s = {.phase = PHASE_SHARD,
                            .shard = 2,
                            .count = 3,
                            .root = "/nonexistent-root",
                            .cwd = "/nonexistent-root/b"};
    assert_int_equal(classify_call(SEAT_NVCC, &s, 10, argv, &c, &err), 0);
    assert_int_equal(c.kind, KIND_TU);
    assert_int_equal(c.action, ACTION_DEVICE); /* never a stub, in any shard */
    assert_int_equal(c.owner, 2);
    assert_string_equal(c.key, "src/k.cu");
    assert_string_equal(c.depfile, "k.d");
    call_release(&c);
    struct wrap_config off = s;
    off.phase = PHASE_OFF;
    assert_int_equal(classify_call(SEAT_NVCC, &off, 10, argv, &c, &err), 0);
    assert_int_equal(c.kind, KIND_OTHER); /* outside a job: ccache passes it on, as before */
    call_release(&c);
    char *two[] = {"-fatbin", "a.cu", "b.cu", "-o", "k.fatbin"};
    assert_int_equal(classify_call(SEAT_NVCC, &s, 5, two, &c, &err), 0);
    assert_int_equal(c.kind, KIND_OTHER);
    call_release(&c);
    sb_release(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),    cmocka_unit_test(test_args),
        cmocka_unit_test(test_parse_deps), cmocka_unit_test(test_depfile),
        cmocka_unit_test(test_key),        cmocka_unit_test(test_classified),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
