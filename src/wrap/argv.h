/* argv: the canonical argv of one call: options files expanded in place, NVCC_PREPEND_FLAGS
 * and NVCC_APPEND_FLAGS folded in, the long depfile forms rewritten, the shadow CUDA_HOME
 * replaced by the toolkit it stands for. Shards and the link job build it alike. */
#ifndef SHARDCC_ARGV_H
#define SHARDCC_ARGV_H

#include "rsp.h"
#include "seat.h"
#include "strbuf.h"
#include "strvec.h"

/* Expands response files and folded flags into out. Returns EXIT_OK or EXIT_USAGE with a
 * message in err (e.g. a missing options file). */
int canon_argv(enum seat seat, const struct wrap_config *cfg, int argc, char *const *argv,
               struct strvec *out, struct strbuf *err);

/* Reads the options file file (relative to cwd; from: the file that named it, or NULL) at
 * nesting depth depth and splits it into args by syntax. EXIT_OK, or EXIT_USAGE with a
 * message (too deep, larger than 64 MiB, unreadable). Used by canon_argv and the linker
 * seat's @file expansion. */
int options_file_read(const char *cwd, const char *file, int depth, const char *from,
                      enum rsp_syntax syntax, struct strvec *args, struct strbuf *err);

/* arg with the shadow CUDA_HOME (cfg->shadow, where it is followed by '/', ':', ',' or the
 * end) replaced by the toolkit path it stands for, in a new string; NULL when arg does not
 * name the shadow. The compiler then sees the arguments of the unsharded build: nvcc's
 * include paths, -I$CUDA_HOME/include and every path derived from them reach the debug
 * info and the device line tables as the unsharded build writes them. */
char *shadow_rewrite(const struct wrap_config *cfg, const char *arg);

#endif
