/* pipeline: an nvcc compile run as nvcc's own steps (dryrun.h), with temporary names the
 * seat chooses: reproducible objects (shardcc env --reproducible) that are still shaped
 * like plain nvcc's.
 *
 * nvcc names its temporaries tmpxft_<pid>_<counter>, and those names reach the object (the
 * host stub's file name, the module id, __nv_static_* symbols), so two runs differ.
 * nvcc's own --objdir-as-tempdir names them after the object instead ("k.o.cudafe1.cpp"),
 * which is reproducible but changes the names' lengths: such objects no longer compare
 * equal to a plain nvcc build's, even with the names masked. The pipeline asks nvcc for
 * its plan (nvcc -dryrun), writes every tmpxft_<pid>_<counter> of it as
 * tmpxft_<h1>_<h2>, where h1h2 are the first 16 hex digits of SHA-256 over the call's
 * arguments less its output and depfile options (what ccache's key covers; the project
 * root written as "<root>"), and runs the steps itself: the object is the same bytes at any
 * pid and under any -j, in every phase, whichever of several outputs of one ccache entry
 * it is, and is plain nvcc's up to those names (shardcc compare).
 * cudafe++ names a TU with no external entity (template instantiations only) with its
 * process id at the end of the module id (_<hex>_<L>_<file>_<hex>_<pid>), which reaches
 * the object's symbols and the device code's anonymous namespace: the pipeline writes a
 * number from the temporaries' name there instead, in the module id file and in what
 * cudafe++ wrote with it, before any step reads them.
 *
 * What it does beyond the plan:
 * - a depfile (-MD/-MMD with -MF, -MT, -MQ, -MP, in either spelling): nvcc's plan shows
 *   an internal "-- Filter Dependencies --" step instead, so the pipeline leaves those
 *   options out of the plan and gives them to the host preprocessor step (gcc -E -MD -MF
 *   FILE -MT TARGET, the target defaulting to the -o file, as nvcc's does). The file
 *   lists the same headers; gcc writes "k.o: k.cu" where nvcc writes "k.o : k.cu".
 * - two calls at once with the same arguments (two checkouts of one project, or one source
 *   in two targets) would share names: each takes a lock beside the temporaries
 *   (<tmpdir>/tmpxft_<h1>_<h2>.lock) first, and they run one after the other.
 * - --threads N: the steps run one after the other (the plan's order); a step's output
 *   that nvcc sends to a file under --threads is copied to stdout/stderr when it ends.
 * - every temporary is removed, after a failure too.
 * A call it does not take (not a compile, device code only, -dlink, -E, nvcc's info
 * options, names already given by --objdir-as-tempdir) or a plan it cannot read
 * (dryrun.h: never guessed) is not run here: pipeline_run says why, and the caller runs
 * nvcc whole with --objdir-as-tempdir (reproducible, not shaped like plain nvcc). */
#ifndef SHARDCC_PIPELINE_H
#define SHARDCC_PIPELINE_H

#include <stddef.h>

#include "split.h"
#include "strbuf.h"

/* The variable through which the nvcc seat hands a compile to the pipeline when ccache
 * runs it: ccache runs shardcc-wrap as the compiler (CCACHE_COMPILERTYPE=nvcc), with this
 * variable naming the real nvcc. */
#define PIPELINE_ENV "SHARDCC_PIPELINE_NVCC"

/* pipeline_run's answers besides an exit status */
#define PIPELINE_FALLBACK (-1) /* not run: nvcc whole, with --objdir-as-tempdir (why says why) */
#define PIPELINE_AS_IS (-2)    /* not run: nvcc's plan names no temporary (a host-only source) */

/* Runs the nvcc call nvcc ARGS (args without argv[0]) as its steps. Returns the call's
 * exit status (0, or the failing step's), or PIPELINE_FALLBACK with the reason in why when
 * the call is not one the pipeline runs or its plan cannot be run, or PIPELINE_AS_IS (the
 * call is then deterministic as it is); nothing was written in either case. */
int pipeline_run(const char *nvcc, int argc, char **argv, struct strbuf *why);

#define PIPELINE_UNSPLIT (-3) /* PIPELINE_DECIDE, PIPELINE_ITEMS: the TU is not split */

/* What pipeline_run_opts does with a compile (split.h):
 * - PIPELINE_WHOLE: every step (pipeline_run);
 * - PIPELINE_DECIDE: nothing; says whether the TU is split and its items' owners;
 * - PIPELINE_ITEMS (a shard): decides; a TU not split is PIPELINE_UNSPLIT, else the host
 *   side's front and the device items this shard owns run and go to the store (the caller
 *   writes the stub);
 * - PIPELINE_ASSEMBLE (the link job, for a TU the shards split): every step, each device
 *   item from the store where it is there (compiled here where not).
 * A TU is split when nvcc's plan has two device items or more that the host side's module
 * id ties together (dryrun.h) and the plan (shardcc plan) names items of its key
 * ("KEY#compute_90"), or names neither the key nor its items and the TU has at least
 * min_archs real architectures. An item's owner: the plan's, else round robin from the
 * TU's hash owner in the items' name order (split_item_owner). */
enum pipeline_mode { PIPELINE_WHOLE, PIPELINE_DECIDE, PIPELINE_ITEMS, PIPELINE_ASSEMBLE };

struct pipeline_opts {
    enum pipeline_mode mode;
    const char *key;          /* the TU's key */
    int shard, count;         /* this shard I of N (PIPELINE_DECIDE, PIPELINE_ITEMS) */
    const char *plan;         /* the plan's seat text (partition.h), or NULL */
    size_t plan_len;          /* its length */
    int min_archs;            /* SHARDCC_SPLIT_ARCHS (0: no split unless the plan says so) */
    const char *store;        /* the store's cache directory (ITEMS, ASSEMBLE) */
    int split;                /* out: the TU is split */
    struct split_item *items; /* out: its device items (malloc'd), o->n of them */
    size_t n;
};

/* pipeline_run under o (above): the call's exit status, PIPELINE_FALLBACK or
 * PIPELINE_AS_IS with why (nothing was run), or PIPELINE_UNSPLIT. */
int pipeline_run_opts(const char *nvcc, int argc, char **argv, struct pipeline_opts *o,
                      struct strbuf *why);

/* Whether the store has the marker of a TU that shards split (split.h); its path into
 * marker. output: the TU's -o, as the call names it. */
int pipeline_split_marked(const char *store, const char *tu_key, const char *output,
                          struct strbuf *marker);
/* Writes the marker of a split TU (o: its items): 0, or an errno with the path in err. */
int pipeline_split_mark(const char *store, const char *tu_key, const char *output,
                        const struct pipeline_opts *o, struct strbuf *err);

/* The file (named by the seat for ccache's child) where the pipeline writes
 * "fallback<TAB>WHY" when it ran nvcc whole instead: the seat journals it (shardcc-journal(5),
 * SCP1 lines). */
#define PIPELINE_NOTE_ENV "SHARDCC_PIPELINE_NOTE"

/* Whether nvcc ARGS compiles to an object, with temporaries nvcc would name tmpxft_*: the
 * calls the pipeline is for, and that otherwise run with --objdir-as-tempdir. */
int pipeline_compiles(int argc, char **argv);

/* Whether nvcc ARGS links objects and archives (an executable, a shared library, or
 * -dlink's device-link object), with no source among its inputs and not -lib: nvcc's link
 * modes, whose device link and host stub name temporaries tmpxft_* too (with -g they reach
 * the output's debug information). */
int pipeline_links(int argc, char **argv);

/* Runs such a link as nvcc's own steps (nvlink, fatbinary, the stub's host compile, the
 * host link) with the seat's names, as pipeline_run does a compile: the exit status, or
 * PIPELINE_FALLBACK or PIPELINE_AS_IS with why (nothing was run: run nvcc as called). */
int pipeline_run_link(const char *nvcc, int argc, char **argv, struct strbuf *why);

/* A compile the pipeline did not take (PIPELINE_FALLBACK, why): says so on stderr and adds
 * --objdir-as-tempdir to argv, nvcc's own reproducible names. */
void pipeline_fallback(const char *why, struct strvec *argv);

/* The program ccache runs as the compiler (PIPELINE_ENV set): the pipeline, else the real
 * nvcc with --objdir-as-tempdir when the call compiles, else the real nvcc as called. */
int pipeline_main(const char *nvcc, int argc, char **argv);

#endif
