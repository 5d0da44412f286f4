/* fuzz_journal: the CLI's journal reader (jrnl.c), which every guard counts from. The
 * input is written as a journal and loaded; the counts must hold together (hits and failed
 * within the cached, cached and stubbed within the TU compiles, pinned and device within
 * the cached, placeholders and hollow links within the links; compile seconds finite and
 * not negative), jrnl_time() of the records must split a wall time into parts that are
 * not negative and add up to it, and jrnl_argv() must answer for every record's key. */
#include "fuzz_support.h"
#include "jrnl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INPUT_MAX (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    fuzz_write("journal.tsv", data, size);
    char *path = fuzz_path("journal.tsv");
    struct jrnl j;
    int e = jrnl_load(path, &j);
    free(path);
    if (e) {
        fuzz_fail("jrnl_load of a regular file failed: %d", e);
    }
    struct jstats s;
    jrnl_stats(&j, &s);
    if (s.hits > s.cached || s.failed > s.cached || s.cached + s.stubbed > s.tu ||
        s.pinned > s.cached || s.placeholders + s.hollow + s.refused > s.links ||
        !(s.cached_seconds >= 0) || !isfinite(s.cached_seconds))
        fuzz_fail("counts: tu %zu cached %zu stubbed %zu hits %zu failed %zu pinned %zu device "
                  "%zu links %zu placeholders %zu hollow %zu refused %zu seconds %g",
                  s.tu, s.cached, s.stubbed, s.hits, s.failed, s.pinned, s.device, s.links,
                  s.placeholders, s.hollow, s.refused, s.cached_seconds);
    uint64_t start = j.n ? j.r[0].wall_us : 0, end = start;
    for (size_t i = 0; i < j.n; i++) {
        if (j.r[i].wall_us < start)
            start = j.r[i].wall_us;
        if (j.r[i].wall_us > end)
            end = j.r[i].wall_us;
        if (j.r[i].key)
            (void)jrnl_argv(&j, j.r[i].key);
    }
    struct jtime t;
    jrnl_time(&j, start, end, &t);
    double parts = t.configure + t.compiles + t.links + t.other;
    if (!(t.configure >= 0 && t.compiles >= 0 && t.links >= 0 && t.other >= 0) ||
        !isfinite(parts) || fabs(parts - t.wall) > 1e-6 * (t.wall > 1 ? t.wall : 1))
        fuzz_fail("time: wall %g = configure %g + compiles %g + links %g + other %g", t.wall,
                  t.configure, t.compiles, t.links, t.other);
    jrnl_release(&j);
    return 0;
}
