/* partition: which shard owns a translation unit.
 * owner(key, N) = XXH64(key bytes, seed 0) mod N + 1, shards numbered 1..N. This function
 * is part of shardcc's contract (shards and link jobs of different versions must agree):
 * the test vectors in tests/unit/partition_vectors.inc (checked by test_partition.c) pin it and
 * must never change silently. */
#ifndef SHARDCC_PARTITION_H
#define SHARDCC_PARTITION_H

#include <stddef.h>
#include <stdint.h>

uint64_t partition_hash(const char *key);
/* 1..n for n >= 1. */
int partition_owner(const char *key, int n);

/* A plan's seat text: "shardcc-plan<TAB>N\n", then "KEY<TAB>SHARD\n" lines (shardcc plan,
 * docs/shardcc-plan.md). plan_count: N, or 0 when the header is not one. plan_owner: the
 * key's shard, or 0 when the plan does not name it (the hash partition decides then). */
int plan_count(const char *plan);
int plan_owner(const char *plan, const char *key);
/* The first line of a plan's seat text that is not KEY<TAB>SHARD with a key and
 * 1 <= SHARD <= count (1-based; the header is line 1), or 0 when every line is one. */
size_t plan_bad_line(const char *plan, int count);

#endif
