/* classify: what the wrapper does with one compiler call. Builds the canonical argv
 * (argv.c), walks it once against the seat's option table and decides the outcome:
 * info / probe / tu / other, and for a TU its key, owner, output and depfile.
 * The CLI's `shardcc classify` calls exactly this, so what it prints is what the wrapper does. */
#ifndef SHARDCC_CLASSIFY_H
#define SHARDCC_CLASSIFY_H

#include "options.h"
#include "strbuf.h"
#include "strvec.h"

enum seat { SEAT_NVCC, SEAT_CXX, SEAT_CC };
enum phase { PHASE_OFF, PHASE_SHARD, PHASE_LINK };
enum call_kind { KIND_TU, KIND_PROBE, KIND_INFO, KIND_OTHER };
enum call_action { ACTION_CACHE, ACTION_STUB, ACTION_DIRECT };

/* Exit statuses (DESIGN.md). */
enum { EXIT_OK = 0, EXIT_BUILD = 1, EXIT_USAGE = 2, EXIT_GUARD = 3, EXIT_IO = 4 };

struct wrap_config {
    enum phase phase;
    int shard;               /* 1..count in the shard phase, else 0 */
    int count;               /* N in the shard phase, else 0 */
    char *root;              /* canonical absolute project root */
    char *cwd;               /* canonical absolute working directory */
    const char *prepend;     /* NVCC_PREPEND_FLAGS (nvcc seat), or NULL */
    const char *append;      /* NVCC_APPEND_FLAGS (nvcc seat), or NULL */
    const char *plan;        /* the plan's seat text (SHARDCC_PLAN's contents), or NULL */
    const char *shadow;      /* the shadow CUDA_HOME (SHARDCC_CUDA_SHADOW), or NULL */
    const char *shadow_real; /* what it stands for (SHARDCC_CUDA_REAL), or NULL */
};

struct call {
    enum seat seat;
    struct strvec argv; /* canonical arguments, compiler excluded */
    enum call_kind kind;
    enum call_action action;
    const char *reason;        /* a few words on why this kind */
    char *source;              /* the source as written, or NULL */
    char *key;                 /* root-relative key of a TU's source, or NULL */
    char *output;              /* the output as written, or NULL */
    char *depfile;             /* the depfile the compiler would write, or NULL */
    struct strvec dep_targets; /* depfile targets, already make-quoted where needed */
    int owner;                 /* owning shard 1..N in the shard phase, else 0 */
};

const char *seat_name(enum seat s);
/* The seat a compiler's name suggests (shardcc classify): nvcc, a C compiler (cc, gcc,
 * clang, *-gcc, *-cc) or else C++. */
enum seat seat_of_compiler(const char *compiler);
const struct opt_table *seat_table(enum seat s);
const char *kind_name(enum call_kind k);
const char *action_name(enum call_action a);
const char *phase_name(enum phase p);

/* Expands response files and folded flags into call->argv (see argv.c). Returns EXIT_OK
 * or EXIT_USAGE with a message in err (e.g. a missing options file). */
int canon_argv(enum seat seat, const struct wrap_config *cfg, int argc, char *const *argv,
               struct strvec *out, struct strbuf *err);

/* arg with the shadow CUDA_HOME (cfg->shadow, where it is followed by '/', ':', ',' or the
 * end) replaced by the toolkit path it stands for, in a new string; NULL when arg does not
 * name the shadow. The compiler then sees the arguments of the unsharded build: nvcc's
 * include paths, -I$CUDA_HOME/include and every path derived from them reach the debug
 * info and the device line tables as the unsharded build writes them. */
char *shadow_rewrite(const struct wrap_config *cfg, const char *arg);

/* Fills call from the compiler arguments argv[0..argc) (compiler excluded). */
int classify_call(enum seat seat, const struct wrap_config *cfg, int argc, char *const *argv,
                  struct call *call, struct strbuf *err);
void call_release(struct call *call);

/* Parses "I/N" (1 <= I <= N <= 100000). 0 on success. */
int parse_shard_spec(const char *s, int *shard, int *count);

#endif
