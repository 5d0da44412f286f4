/* seat: what one call of the seat runs under: which seat (nvcc, c++, cc) and its option
 * table, the job's phase, and the configuration the environment gives it. Both argv
 * expansion (argv.c) and classification (classify.c) build on this; it depends on neither. */
#ifndef SHARDCC_SEAT_H
#define SHARDCC_SEAT_H

#include "exit_status.h"
#include "options.h"
#include "strbuf.h"

/* SEAT_LD: the linker names (ldseat.h); it takes no part in classification. */
enum seat { SEAT_NVCC, SEAT_CXX, SEAT_CC, SEAT_LD };
/* PHASE_PLAIN: an unsharded build through the seats (shardcc env --plain): every call runs
 * the real compiler directly, with the seats' changes to a TU's arguments (reproducible
 * objects), journaled; no cache, no stubs */
enum phase { PHASE_OFF, PHASE_SHARD, PHASE_LINK, PHASE_PLAIN };

struct wrap_config {
    enum phase phase;
    int shard;               /* 1..count in the shard phase, else 0 */
    int count;               /* N in the shard phase, else 0 */
    char *root;              /* canonical absolute project root */
    char *cwd;               /* canonical absolute working directory */
    const char *prepend;     /* NVCC_PREPEND_FLAGS (nvcc seat), or NULL */
    const char *append;      /* NVCC_APPEND_FLAGS (nvcc seat), or NULL */
    const char *plan;        /* the plan's seat text (SHARDCC_PLAN's contents), or NULL */
    size_t plan_len;         /* its length */
    const char *shadow;      /* the shadow CUDA_HOME (SHARDCC_CUDA_SHADOW), or NULL */
    const char *shadow_real; /* what it stands for (SHARDCC_CUDA_REAL), or NULL */
    const char *pins;        /* SHARDCC_PIN: ':'-separated globs of keys every shard compiles */
    int torch_only;          /* SHARDCC_HOST_SEAT=torch: the host seats shard torch
                                extensions' TUs only, and pass every other call through */
    int reproducible;        /* SHARDCC_REPRODUCIBLE=1: nvcc TU compiles run as nvcc's steps
                                with the seat's temporary names (pipeline.h) */
    int msvc;                /* a host seat's real compiler speaks cl's options: MSVC_CL or
                                MSVC_CLANG_CL (msvc_dialect), else 0 */
    int coff_machine;        /* the COFF machine cl's path names (msvc_machine), or 0 */
};

enum { MSVC_CL = 1, MSVC_CLANG_CL = 2 };
/* Whether a compiler's path names cl (cl, cl.exe: MSVC_CL) or clang-cl (clang-cl,
 * clang-cl-14, x86_64-w64-clang-cl, any .exe of them: MSVC_CLANG_CL), else 0. By name,
 * as ccache tells them apart: a symbolic link to clang named clang-cl is clang-cl. */
int msvc_dialect(const char *compiler);
/* The COFF machine an MSVC cl.exe builds for, from its directory (VS: ...\\bin\\Host<h>\\<target>
 * \\cl.exe, target x64, x86 or arm64): stub_coff.h's COFF_MACHINE_*, or 0 when the path
 * does not say (clang-cl: its --target says). */
int msvc_machine(const char *compiler);
/* The option table of a call of seat s under c: cl's for a cl dialect, else the seat's. */
const struct opt_table *call_table(enum seat s, const struct wrap_config *c);

const char *seat_name(enum seat s);
/* The modes shardcc env hands the seats, from the values of SHARDCC_HOST_SEAT and
 * SHARDCC_REPRODUCIBLE (NULL or empty: unset), into c: torch_only for a host seat
 * ("torch"; "all" shards every host TU), reproducible for the nvcc seat ("1"). A value
 * other than those is EXIT_USAGE with the reason appended to err; SHARDCC_HOST_SEAT is
 * read by the host seats only. The seats and shardcc classify both read them here. */
int seat_modes(enum seat s, const char *host_seat, const char *reproducible, struct wrap_config *c,
               struct strbuf *err);
/* The seat a compiler's name suggests (shardcc classify): nvcc, a C compiler (cc, gcc,
 * clang, *-gcc, *-cc) or else C++. */
enum seat seat_of_compiler(const char *compiler);
const struct opt_table *seat_table(enum seat s);
const char *phase_name(enum phase p);

/* Parses "I/N" (1 <= I <= N <= 100000). 0 on success. */
int parse_shard_spec(const char *s, int *shard, int *count);

#endif
