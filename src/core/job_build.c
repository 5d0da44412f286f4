/* job_build: a job's build as shard and link run it (see job_build.h). */
#include "job_build.h"
#include "job.h"
#include "platform.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>

int job_run_build(const char *cmd, const char *announce, const char *what, char **build,
                  const char *journal, struct job_build *b, struct strbuf *msg)
{
    memset(b, 0, sizeof *b);
    if (check_build_command(build, msg) != EXIT_OK)
        return EXIT_USAGE;
    fprintf(stderr, "%s: %s\n", cmd, announce);
    uint64_t t0 = plat_monotonic_us();
    b->w0 = plat_wall_us();
    struct progress pg = {.cmd = cmd, .what = what, .journal = journal};
    progress_start(&pg);
    int st = run_build(build, msg);
    progress_stop();
    b->wall = (double)(plat_monotonic_us() - t0) / 1e6;
    if (st != 0)
        return EXIT_BUILD;
    int e = jrnl_load(journal, &b->j);
    if (e) {
        report_error(cmd, "cannot read the journal \"%s\": %s", journal, plat_strerror(e));
        return EXIT_IO;
    }
    return EXIT_OK;
}
