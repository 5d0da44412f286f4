/* fuzz_plan: the plan readers. The input is written as a plan file and read by plan_load()
 * (the JSON plan `shardcc shard --plan` takes) for N = 0 (any) and N = 3; a plan it accepts
 * must give a seat text whose header says its N, whose every line is KEY<TAB>SHARD within
 * 1..N (plan_bad_line() finds none, with its check and without), whose every key
 * plan_owner() finds at its line's shard (the bisection) and whose digest is "plan1-" and
 * 32 hex digits. The input is also taken as a seat text (SHARDCC_PLAN's), as the seat
 * reads it: plan_count(),
 * plan_bad_line() and, when both accept it, plan_owner() of every line's key must be that
 * line's shard or an earlier line's for the same key. Every refusal must say why. */
#include "exit_status.h"
#include "fuzz_support.h"
#include "partition.h"
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#define INPUT_MAX (1u << 20)

static void as_json(const char *path, int count)
{
    struct strbuf seat = STRBUF_INIT, digest = STRBUF_INIT, err = STRBUF_INIT;
    int rc = plan_load(path, count, count ? "c1" : NULL, &seat, &digest, &err);
    if (rc == EXIT_OK) {
        int n = plan_count(sb_str(&seat));
        if (n < 1 || n > 100000 || (count && n != count))
            fuzz_fail("plan_load accepted a plan whose seat text says %d shards (asked %d)", n,
                      count);
        size_t bad = plan_bad_line(sb_str(&seat), seat.len, n);
        if (bad)
            fuzz_fail("plan_load wrote a seat text whose line %zu the seat refuses", bad);
        /* its lines are also good read one by one (the check left out), and the seat's
         * bisection finds every key's own shard */
        const char *body = strchr(sb_str(&seat), '\n') + 1;
        struct strbuf plain = STRBUF_INIT;
        sb_addf(&plain, "shardcc-plan\t%d\n%s", n, body);
        if ((bad = plan_bad_line(sb_str(&plain), plain.len, n)) != 0)
            fuzz_fail("plan_load wrote a line (%zu) the seat refuses without the check", bad);
        sb_release(&plain);
        for (const char *line = body; *line;) {
            const char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
            char *key = strndup(line, (size_t)(tab - line));
            int owner = plan_owner(sb_str(&seat), seat.len, key);
            if (owner != atoi(tab + 1))
                fuzz_fail("plan_owner(\"%s\") is %d, the seat text says %d", key, owner,
                          atoi(tab + 1));
            free(key);
            line = nl + 1;
        }
        const char *d = sb_str(&digest);
        if (strncmp(d, "plan1-", 6) != 0 || strlen(d) != 38 ||
            strspn(d + 6, "0123456789abcdef") != 32)
            fuzz_fail("plan_load's digest \"%s\"", d);
    } else if ((rc != EXIT_USAGE && rc != EXIT_IO) || !err.len) {
        fuzz_fail("plan_load returned %d with message \"%s\"", rc, sb_str(&err));
    }
    sb_release(&seat);
    sb_release(&digest);
    sb_release(&err);
}

static void as_seat_text(const char *text)
{
    int n = plan_count(text);
    if (n < 0 || n > 999999)
        fuzz_fail("plan_count %d", n);
    if (n == 0 || plan_bad_line(text, strlen(text), n))
        return;
    /* every line is KEY<TAB>SHARD: the owner of each key is a shard of this plan */
    const char *line = strchr(text, '\n');
    while (line && *++line) {
        const char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
        if (!tab || !nl || tab > nl)
            fuzz_fail("plan_bad_line passed a line without a tab");
        char *key = strndup(line, (size_t)(tab - line));
        int owner = plan_owner(text, strlen(text), key);
        if (owner < 1 || owner > n)
            fuzz_fail("plan_owner(\"%s\") is %d in a plan of %d", key, owner, n);
        free(key);
        line = nl;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_MAX)
        return 0;
    fuzz_write("plan.json", data, size);
    char *path = fuzz_path("plan.json");
    as_json(path, 0);
    as_json(path, 3);
    free(path);
    char *text = fuzz_cstr(data, size);
    as_seat_text(text);
    free(text);
    return 0;
}
