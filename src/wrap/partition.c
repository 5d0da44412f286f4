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
