/* dryrun: nvcc's own plan for one call, read from what `nvcc -dryrun` prints, as steps the
 * seat can run itself and as work items (one per virtual architecture, and the host side)
 * that different shards can own. The seat that runs these steps names every temporary
 * (reproducible objects, pipeline.h) and runs each architecture's device steps anywhere
 * (split TUs, split.h).
 * libc only (it is seat code).
 *
 * What nvcc prints (13.0, recorded under tests/dryrun/): "#$ NAME=value" lines, its
 * environment, then one "#$ " line a step, in sh syntax: words, double quotes with
 * backslash escapes, quotes inside a word (-I"/a b"), $NAME and ${NAME} from the
 * environment lines (nvcc leaves only $CICC_PATH unexpanded), and under --threads the
 * redirections "> file" and "2>file". Steps are told by their tool:
 *
 *   step         tool                           reads                  writes
 *   host-cpp     the host compiler, -E, no      the source             -o
 *                -D__CUDA_ARCH__
 *   cudafe++     cudafe++                       the .ii (last word)    --gen_c_file_name,
 *                                                                      --module_id_file_name
 *                                                                      (with --gen_module_id_file)
 *   device-cpp   the host compiler, -E,         the source             -o
 *                -D__CUDA_ARCH__=N
 *   cicc         cicc                           the .ii; the module    -o (PTX), --gen_c_file_name,
 *                                               id file (without       --stub_file_name,
 *                                               --gen_module_id_file)  --gen_device_file_name
 *   ptxas        ptxas                          the .ptx               -o (absent: a check only)
 *   fatbinary    fatbinary                      every --image3=/--image= file=
 *                                                                      --embedded-fatbin=,
 * --create= host-cc      the host compiler, -c          the .cudafe1.cpp, and  -o what it
 * #includes: the stub file and the embedded fatbin (cudafe++'s --stub_file_name and cicc's
 * --include_file_name, beside the .cpp) nvlink       nvlink                         the objects -o,
 *                                                                      --register-link-binaries=
 *   host-link    the host compiler (or its C++  the objects and         -o
 *                driver), neither -E nor -c:    archives it names
 *                nvcc's link of an executable
 *                or a shared library
 *   rm           rm                             (removes; a missing file is no error: without
 *                                               --objdir-as-tempdir nvcc 13.0 removes a .fatbin
 *                                               that no step it prints writes)
 *
 * A step's input is the word before its "-o", or its last word when it has none. Every
 * file a step reads is one an earlier step wrote or one no step writes (the source, an
 * object); no file is written twice; every host compiler step runs one compiler. Any
 * other shape - a line that is not "#$ ", such as nvcc's "Cannot find valid GPU for
 * '-arch=native'" warning, a tool not in the table, a step without its files, an
 * unbalanced quote, a variable nvcc did not set - fails the parse, with the line and the
 * reason: the caller then runs nvcc whole and says so, never a guess. */
#ifndef SHARDCC_DRYRUN_H
#define SHARDCC_DRYRUN_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

enum dr_tool {
    DR_HOST_CPP,
    DR_CUDAFE,
    DR_DEVICE_CPP,
    DR_CICC,
    DR_PTXAS,
    DR_FATBINARY,
    DR_HOST_CC,
    DR_NVLINK,
    DR_HOST_LINK,
    DR_RM,
};

struct dr_step {
    enum dr_tool tool;
    struct strvec argv;  /* the words, unquoted and expanded */
    char *stdout_path;   /* "> file", or NULL */
    char *stderr_path;   /* "2>file", or NULL */
    char *arch;          /* device-cpp "800", cicc "compute_80", ptxas "sm_80"; or NULL */
    struct strvec reads; /* files read (rm: files removed) */
    struct strvec writes;
    unsigned line; /* 1-based line of the -dryrun text */
};

struct dr_plan {
    struct strvec env; /* "NAME=value", as printed (a later one overrides) */
    struct dr_step *steps;
    size_t n, alloc;
};

/* Parses the text nvcc -dryrun printed (its stderr). 0, or -1 with the line number, the
 * line and the reason in err (the plan is then empty). */
int dr_parse(const char *text, struct dr_plan *plan, struct strbuf *err);
void dr_plan_clear(struct dr_plan *plan);
const char *dr_tool_name(enum dr_tool tool);

/* Work items of a plan: one per cicc step (its device-cpp, the cicc and every ptxas that
 * reads its PTX), named after the cicc's virtual architecture; then "host", every other
 * step but rm (host-cpp, cudafe++, fatbinary, host-cc, nvlink). A device item reads the
 * module id file, which cudafe++ writes (or, without cudafe++, as for -fatbin, the first
 * cicc: module_id_from names that item); the host reads what the device items write
 * (fatbinary's images, and host-cc's stub file, which one cicc writes: stub_from). */
struct dr_item {
    char *name;    /* "compute_90", or "host" */
    size_t *steps; /* indices into plan->steps, in plan order */
    size_t n;
    char *real; /* device: the ptxas architectures, "sm_80,sm_86" ("" when PTX only) */
};

struct dr_split {
    struct dr_item *items; /* the device items in plan order, then the host item (none when
                              every step is a device step, as for nvcc -ptx) */
    size_t n;
    const char *stub_from;      /* the device item whose cicc writes host-cc's stub, or NULL */
    const char *module_id_from; /* the item that writes the module id the cicc steps read, or
                                   NULL */
};

/* 0, or -1 with the reason in err: a cicc without one device-cpp writing its input, a ptxas
 * reading PTX no cicc wrote, a host step reading a device file other than through
 * fatbinary's images or host-cc's stub, a device step reading another item's file other
 * than the module id. A plan without cicc (nvcc -dlink) has one item, "host". */
int dr_split_plan(const struct dr_plan *plan, struct dr_split *split, struct strbuf *err);
void dr_split_clear(struct dr_split *split);

/* One line a step ("cicc compute_80 < a.ii > a.ptx") and one line an item, for tests and
 * diagnostics. */
void dr_describe(const struct dr_plan *plan, const struct dr_split *split, struct strbuf *out);

#endif
