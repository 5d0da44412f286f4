/* classify: what the wrapper does with one compiler call. Builds the canonical argv
 * (argv.c), walks it once against the seat's option table and decides the outcome:
 * info / probe / tu / other, and for a TU its key, owner, output and depfile.
 * The CLI's `shardcc classify` calls exactly this, so what it prints is what the wrapper does. */
#ifndef SHARDCC_CLASSIFY_H
#define SHARDCC_CLASSIFY_H

#include "seat.h"
#include "strbuf.h"
#include "strvec.h"

/* KIND_LINK: a linker seat's call (never classified here; journaled by the seat).
 * KIND_HOST: a host TU the default host seat left to the real compiler (a TU classified
 * with host_pass, journaled as such so that the jobs can say how many they compiled in
 * every job). */
enum call_kind { KIND_TU, KIND_PROBE, KIND_INFO, KIND_OTHER, KIND_LINK, KIND_HOST };
/* ACTION_PIN: a pinned TU, compiled through ccache in every shard. The linker seat's:
 * ACTION_LINK (the real link), ACTION_HOLLOW (a shared library or relocatable object linked
 * with stub inputs, unresolved symbols allowed), ACTION_PLACEHOLDER (an executable written
 * as a placeholder), ACTION_REFUSED (stub inputs in the link job). ACTION_DEVICE: a
 * device-code-only output (-fatbin, -ptx, ...: devcode.h), made in every shard and the link
 * job through the seat's own store. ACTION_SPLIT: a TU whose device items shards own
 * (split.h): a shard runs the ones it owns into the store and writes the stub, the link job
 * assembles the object from the store. */
enum call_action {
    ACTION_CACHE,
    ACTION_STUB,
    ACTION_DIRECT,
    ACTION_PIN,
    ACTION_LINK,
    ACTION_HOLLOW,
    ACTION_PLACEHOLDER,
    ACTION_REFUSED,
    ACTION_DEVICE,
    ACTION_SPLIT
};

/* What an nvcc call of kind other links: nothing, device code only (-dlink: a host object
 * out), or a program or shared library (nvcc as the link driver: nvlink, then the host
 * linker through the ld seat). */
enum call_link { CALL_LINK_NONE, CALL_LINK_DEVICE, CALL_LINK_FULL };

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
    enum call_link link;       /* an nvcc call that links (kind other), else CALL_LINK_NONE */
    struct strvec inputs;      /* a linking call's object and library inputs, as written */
    int shared;                /* a linking call's -shared */
    int host_pass;             /* a host seat's call that is not a torch extension's TU, under
                                  cfg->torch_only: the real compiler's (journaled as KIND_HOST) */
    int outside_root;          /* a probe because its one source lies outside the root */
    int coff_machine;          /* cl and clang-cl: the COFF machine of the object (stub_coff.h,
                                  x64 unless --target names ARM64); 0: the host's format */
};

const char *kind_name(enum call_kind k);
const char *action_name(enum call_action a);

/* Why arg (a path, relative to cfg->cwd) is a build system's compiler probe (CMake's
 * compiler identification and try_compile, meson-private, conftest), or NULL. */
const char *probe_path_reason(const struct wrap_config *cfg, const char *arg);

/* Fills call from the compiler arguments argv[0..argc) (compiler excluded). */
int classify_call(enum seat seat, const struct wrap_config *cfg, int argc, char *const *argv,
                  struct call *call, struct strbuf *err);
void call_release(struct call *call);

#endif
