/* Unit tests: nvcc -dryrun parsing and work items (dryrun.h), on what nvcc printed for the
 * option mixes of tests/dryrun/record.sh (DRYRUN_DIR/nvcc-<version>/<mix>.txt), and on
 * shapes nvcc does not print, each of which must fail the parse rather than be guessed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dryrun.h"

#ifndef DRYRUN_DIR
#error DRYRUN_DIR names tests/dryrun
#endif

static char *slurp(const char *mix)
{
    char path[512];
    snprintf(path, sizeof path, "%s/nvcc-13.0/%s.txt", DRYRUN_DIR, mix);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    struct strbuf sb = STRBUF_INIT;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_detach(&sb);
}

static void parse_ok(const char *mix, struct dr_plan *plan)
{
    char *text = slurp(mix);
    struct strbuf err = STRBUF_INIT;
    if (dr_parse(text, plan, &err) != 0)
        fail_msg("%s: %s", mix, sb_str(&err));
    sb_release(&err);
    free(text);
}

/* The item lines of dr_describe, joined with " | ". */
static char *items_of(const char *mix)
{
    struct dr_plan plan;
    struct dr_split split;
    struct strbuf err = STRBUF_INIT, all = STRBUF_INIT, out = STRBUF_INIT;
    parse_ok(mix, &plan);
    if (dr_split_plan(&plan, &split, &err) != 0)
        fail_msg("%s: %s", mix, sb_str(&err));
    dr_describe(&plan, &split, &all);
    for (const char *s = sb_str(&all); *s;) {
        const char *nl = strchr(s, '\n');
        if (strncmp(s, "item ", 5) == 0 || strncmp(s, "module id ", 10) == 0 ||
            strncmp(s, "stub ", 5) == 0) {
            if (out.len)
                sb_adds(&out, " | ");
            sb_add(&out, s, (size_t)(nl - s));
        }
        s = nl + 1;
    }
    dr_split_clear(&split);
    dr_plan_clear(&plan);
    sb_release(&all);
    sb_release(&err);
    return sb_detach(&out);
}

#define TWO_ARCH                                                                                   \
    "item compute_80 [sm_80]: device-cpp cicc ptxas | item compute_90 [sm_90]: device-cpp cicc "   \
    "ptxas | item host: host-cpp cudafe++ fatbinary host-cc | module id from host | stub from "    \
    "compute_90"

/* Every recorded mix but -arch=native: its work items. */
static void test_recorded_items(void **state)
{
    (void)state;
    static const struct {
        const char *mix, *items;
    } cases[] = {
        {"base", "item compute_75 [sm_75]: device-cpp cicc ptxas | item host: host-cpp cudafe++ "
                 "fatbinary host-cc | module id from host | stub from compute_75"},
        {"gencode", TWO_ARCH},
        {"G", TWO_ARCH},
        {"lineinfo", TWO_ARCH},
        {"rdc", TWO_ARCH},
        {"threads", TWO_ARCH},
        {"xptxas", TWO_ARCH},
        {"objtemp", TWO_ARCH},
        {"quoting", TWO_ARCH},
        {"ccbin", TWO_ARCH},
        {"keep", TWO_ARCH},
        {"ptxonly", "item compute_90: device-cpp cicc ptxas | item host: host-cpp cudafe++ "
                    "fatbinary host-cc | module id from host | stub from compute_90"},
        {"twocode", "item compute_80 [sm_80,sm_86]: device-cpp cicc ptxas ptxas | item host: "
                    "host-cpp cudafe++ fatbinary host-cc | module id from host | stub from "
                    "compute_80"},
        {"sm90a", "item compute_90a [sm_90a]: device-cpp cicc ptxas | item host: host-cpp "
                  "cudafe++ fatbinary host-cc | module id from host | stub from compute_90a"},
        {"dlink", "item host: nvlink fatbinary host-cc"},
        {"fatbin", "item compute_90 [sm_90]: device-cpp cicc ptxas | item compute_80 [sm_80]: "
                   "device-cpp cicc ptxas | item host: fatbinary | module id from compute_90"},
        {"ptx", "item compute_90: device-cpp cicc ptxas"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = items_of(cases[i].mix);
        if (strcmp(got, cases[i].items) != 0)
            fail_msg("%s:\n got  %s\n want %s", cases[i].mix, got, cases[i].items);
        free(got);
    }
    /* -arch=all: one item for every architecture nvcc 13.0 knows, and the host */
    char *all = items_of("archall");
    int n = 0;
    for (const char *s = all; (s = strstr(s, "item ")) != NULL; s++)
        n++;
    assert_int_equal(n, 13);
    assert_non_null(strstr(all, "item compute_121 [sm_121]"));
    free(all);
}

static const struct dr_step *find(const struct dr_plan *p, enum dr_tool tool, size_t nth)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->steps[i].tool == tool && nth-- == 0)
            return &p->steps[i];
    fail_msg("no %s step", dr_tool_name(tool));
    return NULL;
}

static int has(const struct strvec *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return 1;
    return 0;
}

/* Words as the shell reads them: quotes inside a word, backslash escapes in double quotes,
 * $CICC_PATH from the environment lines. */
static void test_words(void **state)
{
    (void)state;
    struct dr_plan p;
    parse_ok("quoting", &p);
    const struct dr_step *cpp = find(&p, DR_HOST_CPP, 0);
    assert_string_equal(cpp->argv.v[0], "gcc");
    assert_true(has(&cpp->argv, "-I/tmp/dir with space"));
    assert_true(has(&cpp->argv, "MSG=\"a b\""));
    assert_true(has(&cpp->argv, "Q=\"x\""));
    assert_string_equal(cpp->reads.v[0], "a.cu");
    const struct dr_step *cicc = find(&p, DR_CICC, 0);
    assert_string_equal(cicc->argv.v[0], "/usr/local/cuda/bin/../nvvm/bin/cicc");
    assert_string_equal(cicc->arch, "compute_80");
    assert_true(has(&cicc->argv, "-fast-math"));
    const struct dr_step *fat = find(&p, DR_FATBINARY, 0);
    assert_true(has(&fat->argv, "--cicc-cmdline=-ftz=1 -prec_div=0 -prec_sqrt=0 -fmad=1 "));
    assert_int_equal(fat->reads.n, 3); /* two cubins and the compute_90 PTX */
    assert_int_equal(find(&p, DR_DEVICE_CPP, 1)->arch[0], '9');
    dr_plan_clear(&p);
}

/* --threads: every step's output goes to files; the order differs and still holds. */
static void test_threads(void **state)
{
    (void)state;
    struct dr_plan p;
    parse_ok("threads", &p);
    const struct dr_step *ptxas = find(&p, DR_PTXAS, 1);
    assert_non_null(ptxas->stdout_path);
    assert_non_null(ptxas->stderr_path);
    assert_non_null(strstr(ptxas->stdout_path, "_stdout"));
    assert_non_null(strstr(ptxas->stderr_path, "_stderr"));
    for (size_t i = 0; i < ptxas->argv.n; i++)
        assert_null(strchr(ptxas->argv.v[i], '>'));
    assert_int_equal(p.steps[0].tool, DR_RM);
    dr_plan_clear(&p);
}

/* The files a host compile reads besides its source: the stub cicc writes and the
 * embedded fatbin, beside the .cudafe1.cpp (--objdir-as-tempdir: beside the object). */
static void test_generated_includes(void **state)
{
    (void)state;
    struct dr_plan p;
    parse_ok("objtemp", &p);
    const struct dr_step *cc = find(&p, DR_HOST_CC, 0);
    assert_string_equal(cc->reads.v[0], "obj/a.o.compute_90.cudafe1.cpp");
    assert_true(has(&cc->reads, "obj/a.o.compute_90.cudafe1.stub.c"));
    assert_true(has(&cc->reads, "obj/a.o.fatbin.c"));
    assert_string_equal(cc->writes.v[0], "obj/a.o");
    assert_true(has(&find(&p, DR_CICC, 1)->writes, "obj/a.o.compute_90.cudafe1.stub.c"));
    assert_true(has(&find(&p, DR_CICC, 0)->reads, "obj/a.o.module_id"));
    assert_true(has(&find(&p, DR_CUDAFE, 0)->writes, "obj/a.o.module_id"));
    dr_plan_clear(&p);

    parse_ok("dlink", &p);
    const struct dr_step *link = find(&p, DR_NVLINK, 0);
    assert_true(has(&link->reads, "a.o"));
    cc = find(&p, DR_HOST_CC, 0);
    assert_string_equal(cc->reads.v[0], "/usr/local/cuda/bin/crt/link.stub");
    assert_int_equal(cc->reads.n, 3); /* FATBINFILE and REGISTERLINKBINARYFILE */
    dr_plan_clear(&p);

    parse_ok("rdc", &p);
    assert_true(has(&find(&p, DR_PTXAS, 0)->argv, "--compile-only"));
    dr_plan_clear(&p);
}

static void parse_fails(const char *text, const char *want)
{
    struct dr_plan p;
    struct strbuf err = STRBUF_INIT;
    if (dr_parse(text, &p, &err) == 0)
        fail_msg("parsed: %s", text);
    if (!strstr(sb_str(&err), want))
        fail_msg("error '%s' lacks '%s'", sb_str(&err), want);
    assert_int_equal(p.n, 0);
    sb_release(&err);
}

#define ENV "#$ CICC_PATH=/c/nvvm/bin\n"
#define CPP "#$ gcc -E -x c++ \"a.cu\" -o \"/t/a.ii\"\n"
#define CPP1 "#$ gcc -D__CUDA_ARCH__=900 -E -x c++ \"a.cu\" -o \"/t/a1.ii\"\n"
#define CICC "#$ \"$CICC_PATH/cicc\" -arch compute_90 \"/t/a1.ii\" -o \"/t/a.ptx\"\n"

/* Shapes nvcc does not print: each fails, naming the line and why. */
static void test_unknown_shapes(void **state)
{
    (void)state;
    char *native = slurp("native");
    parse_fails(native, "line 2: not a step (nvcc printed a message): nvcc warning : Cannot find "
                        "valid GPU for '-arch=native'");
    free(native);
    parse_fails("", "printed no step");
    parse_fails(ENV "#$ nvdisasm -o x y\n", "'nvdisasm', neither a tool nvcc runs nor a host");
    parse_fails(ENV "#$ gcc -E \"a.cu -o x\n", "line 2: an unbalanced double quote");
    parse_fails(ENV "#$ \"$NVVM/cicc\" -arch compute_90 a -o b\n",
                "the variable NVVM, which nvcc did not set");
    parse_fails("#$ X=\"a b\"\n#$ $X/cicc -arch compute_90 a -o b\n",
                "the variable X, whose value is not one plain word");
    parse_fails(ENV CPP "#$ clang -E b.cu -o /t/b.ii\n", "a second host compiler 'clang'");
    parse_fails(ENV "#$ gcc -x c++ a.cu -o a.ii\n", "neither a tool nvcc runs nor a host");
    parse_fails(ENV "#$ gcc -E -c a.cu -o a.ii\n", "neither a tool nvcc runs nor a host");
    parse_fails(ENV "#$ gcc -E a.cu | tee x\n", "the shell character '|'");
    parse_fails(ENV "#$ ptxas -m64 a.ptx -o a.cubin\n",
                "a ptxas step without its input and -arch=");
    parse_fails(ENV "#$ fatbinary -64 --image3=kind=elf,sm=90,file=a.cubin\n",
                "a fatbinary step that writes no file");
    parse_fails(ENV CICC CPP1, "line 2: cicc reads /t/a1.ii, which a later step (line 3) writes");
    parse_fails(ENV CPP1 CPP1, "line 3: device-cpp writes /t/a1.ii, which line 2 wrote");
    parse_fails(ENV "#$ gcc -E a.cu > x > y\n", "a stream redirected twice");

    /* parses, but cannot be split: a cicc whose input is the host preprocessor's */
    struct dr_plan p;
    struct dr_split s;
    struct strbuf err = STRBUF_INIT;
    assert_int_equal(
        dr_parse(ENV CPP "#$ \"$CICC_PATH/cicc\" -arch compute_90 /t/a.ii -o /t/a.ptx\n", &p, &err),
        0);
    assert_int_equal(dr_split_plan(&p, &s, &err), -1);
    assert_non_null(strstr(sb_str(&err), "cannot split: line 3: cicc compute_90 reads /t/a.ii, "
                                         "which no device-cpp step of its own writes"));
    assert_int_equal(s.n, 0);
    dr_plan_clear(&p);
    sb_reset(&err);
    /* a ptxas whose PTX no cicc wrote */
    assert_int_equal(
        dr_parse(ENV CPP1 CICC "#$ ptxas -arch=sm_90 /t/other.ptx -o /t/a.cubin\n", &p, &err), 0);
    assert_int_equal(dr_split_plan(&p, &s, &err), -1);
    assert_non_null(strstr(sb_str(&err), "ptxas sm_90 belongs to no cicc"));
    dr_plan_clear(&p);
    sb_release(&err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_items), cmocka_unit_test(test_words),
        cmocka_unit_test(test_threads),        cmocka_unit_test(test_generated_includes),
        cmocka_unit_test(test_unknown_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
