/* partition: the hash partition of keys over shards (header-only xxhash, libc only). */
#include "partition.h"

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

int plan_count(const char *plan)
{
    static const char head[] = "shardcc-plan\t";
    if (strncmp(plan, head, sizeof head - 1) != 0)
        return 0;
    const char *p = plan + sizeof head - 1, *nl = strchr(p, '\n');
    return nl ? decimal(p, nl) : 0;
}

int plan_owner(const char *plan, const char *key)
{
    size_t klen = strlen(key);
    const char *line = strchr(plan, '\n');
    while (line && *++line) {
        const char *nl = strchr(line, '\n');
        if (!nl)
            return 0;
        if ((size_t)(nl - line) > klen && !strncmp(line, key, klen) && line[klen] == '\t')
            return decimal(line + klen + 1, nl);
        line = nl;
    }
    return 0;
}

size_t plan_bad_line(const char *plan, int count)
{
    const char *line = strchr(plan, '\n');
    size_t no = 1;
    while (line && *++line) {
        no++;
        const char *nl = strchr(line, '\n'), *tab = strchr(line, '\t');
        if (!nl || !tab || tab > nl || tab == line || memchr(tab + 1, '\t', (size_t)(nl - tab - 1)))
            return no;
        int shard = decimal(tab + 1, nl);
        if (shard < 1 || shard > count)
            return no;
        line = nl;
    }
    return 0;
}
