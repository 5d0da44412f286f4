/* fuzz_classify: argv classification, as `shardcc classify` runs it. The input is split on
 * NUL bytes and newlines into words (a trailing separator ends the last word, it does not
 * start an empty one). Leading words may set what the CLI takes from options and the
 * environment:
 *   --shard=I/N  --seat=nvcc|c++|cc  NVCC_PREPEND_FLAGS=...  NVCC_APPEND_FLAGS=...
 *   SHARDCC_PLAN=...  (the plan's text, '|' standing for a newline; shard phase only, and
 *                      only a plan for N shards, as the wrapper insists)
 * The next word is the compiler (its name picks the seat unless --seat did, as in the
 * CLI), the rest its arguments. classify_call() runs from build/ of a small project tree
 * made once at start-up (sources, a symbolic link, the options files of
 * tests/classify/fixtures), and what it returns is checked (fuzz_check_call). */
#include "classify.h"
#include "fuzz_support.h"
#include "partition.h"
#include "path.h"
#include "platform.h"

#include <stdlib.h>
#include <string.h>

#define INPUT_MAX (1u << 20)
#define MAX_WORDS 4096

static char *root, *cwd;

static void put(const char *name, const char *text)
{
    fuzz_write(name, text, strlen(text));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    put("src/a.cu", "__global__ void add(float *x) { x[threadIdx.x] += 1; }\n");
    put("src/b.cu", "__global__ void mul(float *x) { x[0] *= 2; }\n");
    put("src/host.cpp", "int host() { return 1; }\n");
    put("src/kernel.c", "int kernel(void) { return 0; }\n");
    put("src/a dir/c.cu", "__global__ void c() {}\n");
    put("gen/gen.cpp", "int gen() { return 2; }\n");
    put("include/common.h", "#define COMMON 1\n");
    /* tests/classify/fixtures/build */
    put("build/a.cu.o.rsp", "-DKDEF=1 -Dk_EXPORTS -I../include -O3 -DNDEBUG "
                            "\"--generate-code=arch=compute_90,code=[compute_90,sm_90]\" "
                            "-Xcompiler=-fPIC -std=c++17\n");
    put("build/host.rsp", "-c '../src/host.cpp' -o \"host.o\" -DHOST=1\n");
    put("build/includes_CUDA.rsp", "-I../include\n");
    put("build/inner.rsp", "-DINNER\n");
    put("build/list1.rsp", "-DL1\n");
    put("build/list2.rsp", "-DL2\n");
    put("build/longdep.rsp", "--generate-dependencies-with-compile --dependency-output a.o.d\n");
    put("build/nested1.rsp", "-DN1 --options-file nested2.rsp\n");
    put("build/nested2.rsp", "-DN2 -optf=nested3.rsp\n");
    put("build/nested3.rsp", "-DN3\n");
    put("build/outer.rsp", "-DFROM_NESTED @inner.rsp\n");
    put("build/output.rsp", "-o \"out dir/a.o\"\n");
    put("build/quoted.rsp", "\"-DMSG=hello world\" -DQ=a\\ b -DSQ='x'\n");
    put("build/self.rsp", "-DSELF --options-file self.rsp\n");
    put("build/whole.rsp", "-c ../src/a.cu -o a.o\n");
    char *link = fuzz_path("src/link.cu"), *out = fuzz_path("src/outside.cu");
    if (plat_symlink("a.cu", link) != 0 || plat_symlink("/nonexistent/x.cu", out) != 0)
        fuzz_fail("cannot make the fixture links");
    free(link);
    free(out);
    root = xstrdup(fuzz_tmpdir());
    cwd = fuzz_path("build");
    return 0;
}

static const char *value_of(const char *word, const char *name)
{
    size_t n = strlen(name);
    return strncmp(word, name, n) == 0 ? word + n : NULL;
}

static void run(char **w, size_t n)
{
    struct wrap_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.phase = PHASE_LINK;
    cfg.root = root;
    cfg.cwd = cwd;
    const char *seat_s = NULL, *prepend = NULL, *append = NULL, *v;
    char *plan = NULL;
    size_t i = 0;
    for (; i < n; i++) {
        if ((v = value_of(w[i], "--shard="))) {
            if (parse_shard_spec(v, &cfg.shard, &cfg.count) != 0) {
                free(plan); /* the CLI: a usage error */
                return;
            }
            if (cfg.shard < 1 || cfg.count > 100000 || cfg.shard > cfg.count)
                fuzz_fail("parse_shard_spec(\"%s\") accepted %d/%d", v, cfg.shard, cfg.count);
            cfg.phase = PHASE_SHARD;
        } else if ((v = value_of(w[i], "--seat="))) {
            seat_s = v;
        } else if ((v = value_of(w[i], "NVCC_PREPEND_FLAGS="))) {
            prepend = v;
        } else if ((v = value_of(w[i], "NVCC_APPEND_FLAGS="))) {
            append = v;
        } else if ((v = value_of(w[i], "SHARDCC_PLAN="))) {
            free(plan);
            plan = xstrdup(v);
            for (char *p = plan; *p; p++)
                if (*p == '|')
                    *p = '\n';
        } else {
            break;
        }
    }
    if (i >= n ||
        (seat_s && strcmp(seat_s, "nvcc") && strcmp(seat_s, "c++") && strcmp(seat_s, "cc"))) {
        free(plan); /* the CLI: no compiler, or a bad --seat */
        return;
    }
    enum seat seat = !seat_s                   ? seat_of_compiler(w[i])
                     : !strcmp(seat_s, "nvcc") ? SEAT_NVCC
                     : !strcmp(seat_s, "c++")  ? SEAT_CXX
                                               : SEAT_CC;
    if (seat == SEAT_NVCC) {
        cfg.prepend = prepend;
        cfg.append = append;
    }
    /* cl and clang-cl by name, as the seat reads its real compiler's (main.c) */
    cfg.msvc = seat == SEAT_NVCC ? 0 : msvc_dialect(w[i]);
    cfg.coff_machine = msvc_machine(w[i]);
    /* the wrapper refuses a plan that is not one for this N (wrap/main.c) */
    if (plan && cfg.phase == PHASE_SHARD && plan_count(plan) == cfg.count)
        cfg.plan = plan, cfg.plan_len = strlen(plan);
    struct call call;
    struct strbuf err = STRBUF_INIT;
    int rc = classify_call(seat, &cfg, (int)(n - i - 1), w + i + 1, &call, &err);
    if (rc == EXIT_OK)
        fuzz_check_call(&call, &cfg);
    else if (rc != EXIT_USAGE || !err.len) {
        fuzz_fail("classify_call returned %d with message \"%s\"", rc, sb_str(&err));
    }
    call_release(&call);
    sb_release(&err);
    free(plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    char *text = fuzz_cstr(data, size);
    char **w = xmalloc((MAX_WORDS + 1) * sizeof *w);
    size_t n = 0;
    char *s = text;
    for (size_t k = 0; k <= size && n < MAX_WORDS; k++) {
        if (k < size && text[k] != '\n' && text[k] != '\0')
            continue;
        if (k < size || s < text + size) {
            text[k] = '\0';
            w[n++] = s;
        }
        s = text + k + 1;
    }
    w[n] = NULL;
    run(w, n);
    free(w);
    free(text);
    return 0;
}
