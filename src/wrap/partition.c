/* partition: the hash partition of keys over shards (header-only xxhash, libc only). */
#include "partition.h"

#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t partition_hash(const char *key)
{
    return (uint64_t)XXH64(key, strlen(key), 0);
}

int partition_owner(const char *key, int n)
{
    return (int)(partition_hash(key) % (uint64_t)n) + 1;
}

static int decimal(const char *p, const char *end)
{
    int v = 0;
    if (p == end || end - p > 6)
        return 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* The header line "shardcc-plan<TAB>N" with an optional "<TAB>CHECK" (16 hex digits):
 * N, *check (NULL without one) and *body (the text after the line); 0 when the text does
 * not start with such a line. */
static int header(const char *plan, const char **check, const char **body)
{
    static const char head[] = "shardcc-plan\t";
    *check = NULL;
    *body = plan;
    if (strncmp(plan, head, sizeof head - 1) != 0)
        return 0;
    const char *p = plan + sizeof head - 1, *q = p;
    while (*q >= '0' && *q <= '9')
        q++;
    int n = decimal(p, q);
    if (*q == '\t') {
        *check = q + 1;
        if (strspn(*check, "0123456789abcdef") != 16)
            return 0;
        q = *check + 16;
    }
    if (*q != '\n')
        return 0;
    *body = q + 1;
    return n;
}

int plan_count(const char *plan)
{
    const char *check, *body;
    return header(plan, &check, &body);
}

void plan_check_text(const char *body, size_t len, char out[17])
{
    /* never NULL to XXH64; 16 hex digits as shardcc writes every XXH digest */
    snprintf(out, 17, "%016llx", (unsigned long long)XXH64(body ? body : "", body ? len : 0, 0));
}

/* The first '\t' or '\n' in [p, end), or NULL: eight bytes at a time where the compiler
 * allows (the seat scans its plan on every call: bench/plan_stub_cost.sh). */
static const char *tab_or_nl(const char *p, const char *end)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t t = w ^ (ones * '\t'), n = w ^ (ones * '\n');
        uint64_t hit = (((t - ones) & ~t) | ((n - ones) & ~n)) & highs;
        if (hit) /* the lowest flagged byte is a true match (borrows only run upwards) */
            return p + __builtin_ctzll(hit) / 8;
    }
#endif
    for (; p < end; p++)
        if (*p == '\t' || *p == '\n')
            return p;
    return NULL;
}

/* The line at line, which ends before end: its key [line, *tab) and shard text
 * (*tab, *nl); 1 when it has the form KEY<TAB>DIGITS<NL> with one tab and a key. */
static int split_line(const char *line, const char *end, const char **tab, const char **nl)
{
    *tab = tab_or_nl(line, end);
    if (!*tab || **tab != '\t' || *tab == line)
        return 0;
    *nl = tab_or_nl(*tab + 1, end);
    return *nl && **nl == '\n';
}

/* The key's shard by bisection over lines sorted by key (a text with a check that
 * matched is one shardcc wrote: sorted, one line a key): O(log lines) lines read. */
static int owner_sorted(const char *body, const char *end, const char *key, size_t klen)
{
    /* lo: a line's start; the key's line, if any, starts in [lo, hi) */
    const char *lo = body, *hi = end, *tab, *nl;
    while (lo < hi) {
        const char *s = lo + (hi - lo) / 2;
        while (s > lo && s[-1] != '\n')
            s--;
        if (!split_line(s, end, &tab, &nl))
            return 0;
        size_t tlen = (size_t)(tab - s);
        int c = memcmp(key, s, klen < tlen ? klen : tlen);
        if (c == 0)
            c = klen < tlen ? -1 : klen > tlen;
        if (c == 0)
            return decimal(tab + 1, nl);
        if (c < 0)
            hi = s;
        else
            lo = nl + 1;
    }
    return 0;
}

int plan_owner(const char *plan, size_t len, const char *key)
{
    const char *check, *line;
    if (!memchr(plan, '\n', len) || !header(plan, &check, &line))
        return 0;
    size_t klen = strlen(key);
    const char *end = plan + len, *tab, *nl;
    if (check)
        return owner_sorted(line, end, key, klen);
    for (; line < end; line = nl + 1) {
        if (!split_line(line, end, &tab, &nl))
            return 0;
        if ((size_t)(tab - line) == klen && !memcmp(line, key, klen))
            return decimal(tab + 1, nl);
    }
    return 0;
}

size_t plan_bad_line(const char *plan, size_t len, int count)
{
    const char *check, *line;
    if (!memchr(plan, '\n', len) || !header(plan, &check, &line))
        return 1;
    const char *end = plan + len, *tab, *nl;
    if (check) { /* shardcc wrote it and nobody edited it since: no line to read */
        char want[17];
        plan_check_text(line, (size_t)(end - line), want);
        return memcmp(want, check, 16) ? 1 : 0;
    }
    const char *nul = memchr(line, '\0', (size_t)(end - line));
    size_t no = 1;
    for (; line < end; line = nl + 1) {
        no++;
        if (!split_line(line, end, &tab, &nl) || (nul && nul < nl))
            return no;
        int shard = decimal(tab + 1, nl);
        if (shard < 1 || shard > count)
            return no;
    }
    return 0;
}
