/* job_build: a job's build as shard and link run it: the build command read before it runs
 * (check_build_command), progress lines while it runs, the seats' journal read after it. */
#ifndef SHARDCC_JOB_BUILD_H
#define SHARDCC_JOB_BUILD_H

#include "jrnl.h"
#include "strbuf.h"

#include <stdint.h>

/* A job's build, as shard and link run it. */
struct job_build {
    uint64_t w0;   /* when it started (plat_wall_us) */
    double wall;   /* how long it ran, in seconds */
    struct jrnl j; /* the seats' journal of it; jrnl_release() it after EXIT_OK */
};
/* Runs a job's build: the command is read first (check_build_command: EXIT_USAGE, the word
 * and the fix in msg, nothing run), then "CMD: ANNOUNCE" is printed, the command runs with
 * progress lines for what ("shard 2/4", "link job"), and the seats' journal is read.
 * EXIT_OK with b filled; EXIT_BUILD when the build failed (how it ended in msg); EXIT_IO
 * when the journal cannot be read (reported). Only EXIT_USAGE and EXIT_BUILD are the
 * caller's to report. */
int job_run_build(const char *cmd, const char *announce, const char *what, char **build,
                  const char *journal, struct job_build *b, struct strbuf *msg);

#endif
