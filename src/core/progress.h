/* progress: a line on standard error every 30 s while a job's build runs (shard, link,
 * and each phase of local), from the seats' journal: TU compiles done so far (and of how
 * many, where the job knows), and the time elapsed. On when standard error is a terminal;
 * SHARDCC_PROGRESS=1 turns it on elsewhere (a CI log), 0 off everywhere;
 * SHARDCC_PROGRESS_INTERVAL=S sets the period (1..3600 s). */
#ifndef SHARDCC_PROGRESS_H
#define SHARDCC_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
    const char *cmd;     /* "shardcc shard" */
    const char *what;    /* "shard 2/4", "link job" */
    const char *journal; /* the journal the build's seats write */
    size_t expected;     /* the TU compiles the build will make, where known; else 0 */
    uint64_t t0;         /* set by progress_start */
};

/* Starts the lines for the next plat_spawn_wait_path/_log call, if they are wanted; p must
 * live until progress_stop. */
void progress_start(struct progress *p);
void progress_stop(void);
/* One line now (what the tick prints), into out: "shard 2/4: 12 TU compiles so far (3
 * through ccache, 9 stubbed), 1m30s elapsed". */
struct strbuf;
void progress_line(const struct progress *p, struct strbuf *out);

#endif
