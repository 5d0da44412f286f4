/* fuzz_rsp: response files. The input is the contents of an options file, in.rsp, in the
 * process's temporary directory. Each run:
 *  - splits it with the three syntaxes (rsp_split) and checks that quoting every argument
 *    back (a backslash before each character; for cl's, the C runtime's quoting) and
 *    splitting again gives the same arguments;
 *  - classifies `nvcc --options-file in.rsp` (with the input also as NVCC_PREPEND_FLAGS and
 *    NVCC_APPEND_FLAGS), `c++ @in.rsp` and `cl @in.rsp`, so argv.c expands it in place:
 *    in.rsp may name itself (the depth limit) and the fixed files written once at start-up
 *    (a leaf, an empty file, files that name in.rsp back, a comma list of them).
 * Writes only in.rsp; the start-up files are never changed. */
#include "classify.h"
#include "fuzz_support.h"
#include "rsp.h"

#include <stdlib.h>
#include <string.h>

/* argv.c's RSP_MAX_BYTES: an options file beyond it is refused before it is split. */
#define INPUT_MAX (64u << 20)

static struct wrap_config cfg;

static void put(const char *name, const char *text)
{
    fuzz_write(name, text, strlen(text));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    put("leaf.rsp", "-DLEAF=1 \"-DMSG=hello world\" -DQ=a\\ b -DSQ='x' -I../include\n");
    put("empty.rsp", "");
    put("back.rsp", "-DBACK --options-file in.rsp\n"); /* nvcc: in.rsp again */
    put("gback.rsp", "-DGBACK @in.rsp\n");             /* gcc: in.rsp again */
    put("list.rsp", "-optf leaf.rsp,empty.rsp -optf=leaf.rsp\n");
    put("whole.rsp", "-c ../src/a.cu -o a.o -MD\n");
    put("src/a.cu", "__global__ void k(float *x) { x[0] = 1; }\n");
    cfg.phase = PHASE_SHARD;
    cfg.shard = 1;
    cfg.count = 3;
    cfg.root = (char *)fuzz_tmpdir();
    cfg.cwd = (char *)fuzz_tmpdir();
    return 0;
}

static const char *syntax_name(enum rsp_syntax s)
{
    return s == RSP_NVCC ? "nvcc" : s == RSP_GCC ? "gcc" : "msvc";
}

/* arg quoted as the Microsoft C runtime reads it back (platform_win32.c's rule): in
 * quotes, the backslashes before a quote and before the closing one doubled. */
static void quote_msvc(struct strbuf *q, const char *arg)
{
    sb_addc(q, '"');
    for (const char *p = arg;; p++) {
        size_t bs = 0;
        while (*p == '\\')
            bs++, p++;
        size_t k = !*p ? 2 * bs : *p == '"' ? 2 * bs + 1 : bs;
        for (size_t i = 0; i < k; i++)
            sb_addc(q, '\\');
        if (!*p)
            break;
        sb_addc(q, *p);
    }
    sb_addc(q, '"');
}

/* Quotes every argument back, splits again, compares. */
static void check_roundtrip(const uint8_t *data, size_t size, enum rsp_syntax syntax)
{
    struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
    rsp_split((const char *)data, size, syntax, &a);
    struct strbuf q = STRBUF_INIT;
    for (size_t i = 0; i < a.n; i++) {
        if (i)
            sb_addc(&q, ' ');
        if (syntax == RSP_MSVC) {
            quote_msvc(&q, a.v[i]);
            continue;
        }
        if (!a.v[i][0])
            sb_adds(&q, "\"\"");
        for (const char *p = a.v[i]; *p; p++) {
            sb_addc(&q, '\\');
            sb_addc(&q, *p);
        }
    }
    rsp_split(q.buf ? q.buf : "", q.len, syntax, &b);
    if (a.n != b.n)
        fuzz_fail("rsp_split(%s): %zu arguments, %zu once quoted back", syntax_name(syntax), a.n,
                  b.n);
    for (size_t i = 0; i < a.n; i++)
        if (strcmp(a.v[i], b.v[i]) != 0)
            fuzz_fail("rsp_split(%s): argument %zu \"%s\" is \"%s\" once quoted back",
                      syntax_name(syntax), i, a.v[i], b.v[i]);
    sb_release(&q);
    sv_clear(&a);
    sv_clear(&b);
}

static void classify(enum seat seat, int argc, char *const *argv)
{
    struct call call;
    struct strbuf err = STRBUF_INIT;
    int rc = classify_call(seat, &cfg, argc, argv, &call, &err);
    if (rc == EXIT_OK)
        fuzz_check_call(&call, &cfg);
    else if (rc != EXIT_USAGE || !err.len)
        fuzz_fail("classify_call returned %d with message \"%s\"", rc, sb_str(&err));
    call_release(&call);
    sb_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    check_roundtrip(data, size, RSP_NVCC);
    check_roundtrip(data, size, RSP_GCC);
    check_roundtrip(data, size, RSP_MSVC);

    fuzz_write("in.rsp", data, size);
    char *text = fuzz_cstr(data, size);
    char *nvcc[] = {"--options-file", "in.rsp", NULL};
    cfg.prepend = text;
    cfg.append = text;
    classify(SEAT_NVCC, 2, nvcc);
    cfg.prepend = cfg.append = NULL;
    char *gcc[] = {"@in.rsp", NULL};
    classify(SEAT_CXX, 1, gcc);
    cfg.msvc = MSVC_CL; /* cl @in.rsp: the C runtime's quoting, UTF-16 after a BOM */
    classify(SEAT_CXX, 1, gcc);
    cfg.msvc = 0;
    free(text);
    return 0;
}
