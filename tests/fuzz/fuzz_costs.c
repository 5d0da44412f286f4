/* fuzz_costs: the cost-table reader behind `shardcc plan` (plan_read_costs). The input is
 * read as a cost table from memory. Every key it hands over must be non-empty and hold no
 * control character, and its seconds must pass
 * plan_seconds_ok(); no more keys than the input has lines. A refusal must be 2 (a bad
 * line) with "PATH:LINE: " and the reason, the line number within the input's lines. The
 * keys accepted must also be exactly those of a second, simpler reading of the same text
 * (split at "\n", the rules of docs/shardcc-plan.md), up to the line refused. */
#include "exit_status.h"
#include "fuzz_support.h"
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INPUT_MAX (1u << 20)

struct seen {
    size_t n;
    const char *text, *pos; /* the reference reading: the next line to look at */
    const char *end;
};

/* The next line the reference takes as a cost (key and seconds written), or 0 at the end. */
static int reference_next(struct seen *s, char **key, double *seconds)
{
    while (s->pos < s->end) {
        const char *nl = memchr(s->pos, '\n', (size_t)(s->end - s->pos));
        const char *stop = nl ? nl : s->end;
        size_t len = (size_t)(stop - s->pos);
        if (len && s->pos[len - 1] == '\r')
            len--;
        char *line = strndup(s->pos, len);
        s->pos = nl ? nl + 1 : s->end;
        if (!line[0] || line[0] == '#') {
            free(line);
            continue;
        }
        char *tab = strchr(line, '\t');
        if (!tab)
            fuzz_fail("the reader accepted a line without a tab: \"%s\"", line);
        *tab = '\0';
        *seconds = strtod(tab + 1, NULL);
        *key = line;
        return 1;
    }
    return 0;
}

static void add(void *ctx, const char *key, double seconds)
{
    struct seen *s = ctx;
    s->n++;
    if (!key[0])
        fuzz_fail("an empty cost key");
    for (const char *k = key; *k; k++)
        if ((unsigned char)*k < 0x20 || *k == 0x7f)
            fuzz_fail("cost key \"%s\" holds byte 0x%02x", key, (unsigned char)*k);
    if (!plan_seconds_ok(seconds))
        fuzz_fail("cost %g for \"%s\"", seconds, key);
    char *rkey;
    double rs;
    if (!reference_next(s, &rkey, &rs))
        fuzz_fail("the reader gave \"%s\" past the reference's last line", key);
    if (strcmp(rkey, key) || rs != seconds)
        fuzz_fail("the reader gave \"%s\" %g where the reference reads \"%s\" %g", key, seconds,
                  rkey, rs);
    free(rkey);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    FILE *f = fmemopen(size ? (void *)data : (void *)"", size, "r");
    if (!f)
        fuzz_fail("fmemopen");
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    struct seen s = {0, (const char *)data, (const char *)data, (const char *)data + size};
    struct strbuf err = STRBUF_INIT;
    int rc = plan_read_costs(f, "costs.tsv", add, &s, &err);
    fclose(f);
    if (s.n > lines)
        fuzz_fail("%zu keys from %zu lines", s.n, lines);
    if (rc == EXIT_OK) {
        if (err.len)
            fuzz_fail("accepted with message \"%s\"", sb_str(&err));
        char *k;
        double sec;
        if (reference_next(&s, &k, &sec))
            fuzz_fail("the reference reads \"%s\" after the reader's last key", k);
    } else {
        unsigned long at = 0;
        if (rc != EXIT_USAGE || sscanf(sb_str(&err), "costs.tsv:%lu: ", &at) != 1 || at < 1 ||
            at > lines || !strstr(sb_str(&err), ": "))
            fuzz_fail("refused with %d and message \"%s\"", rc, sb_str(&err));
    }
    sb_release(&err);
    return 0;
}
