/* progress: periodic lines while a build runs (see progress.h). */
#include "progress.h"
#include "jrnl.h"
#include "platform.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void progress_line(const struct progress *p, struct strbuf *out)
{
    unsigned long secs = (unsigned long)((plat_monotonic_us() - p->t0) / 1000000u);
    sb_addf(out, "%s: ", p->what);
    struct jrnl j;
    if (p->journal && jrnl_load(p->journal, &j) == 0) {
        struct jstats s;
        jrnl_stats(&j, &s);
        jrnl_release(&j);
        sb_addf(out, "%zu", s.tu);
        if (p->expected)
            sb_addf(out, " of %zu", p->expected);
        sb_addf(out, " TU compiles so far (%zu through ccache", s.cached);
        if (s.hits)
            sb_addf(out, ", %zu hits", s.hits);
        if (s.stubbed)
            sb_addf(out, ", %zu stubbed", s.stubbed);
        sb_adds(out, ")");
        if (s.links)
            sb_addf(out, ", %zu link%s", s.links, s.links == 1 ? "" : "s");
        sb_adds(out, ", ");
    } else {
        sb_adds(out, "no TU compile yet, ");
    }
    if (secs >= 60)
        sb_addf(out, "%lum%02lus elapsed", secs / 60, secs % 60);
    else
        sb_addf(out, "%lus elapsed", secs);
}

static void tick(void *ctx)
{
    const struct progress *p = ctx;
    struct strbuf line = STRBUF_INIT;
    progress_line(p, &line);
    fprintf(stderr, "%s: %s\n", p->cmd, sb_str(&line));
    fflush(stderr);
    sb_release(&line);
}

void progress_start(struct progress *p)
{
    p->t0 = plat_monotonic_us();
    const char *on = getenv("SHARDCC_PROGRESS");
    int wanted = on && *on ? strcmp(on, "0") != 0 : plat_stderr_is_terminal();
    const char *iv = getenv("SHARDCC_PROGRESS_INTERVAL");
    long interval = iv && *iv ? strtol(iv, NULL, 10) : 30;
    if (interval < 1 || interval > 3600)
        interval = 30;
    plat_wait_tick(wanted ? (unsigned)interval : 0, wanted ? tick : NULL, p);
}

void progress_stop(void)
{
    plat_wait_tick(0, NULL, NULL);
}
