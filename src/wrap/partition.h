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

/* A plan's seat text (shardcc plan, docs/shardcc-plan.md): the header line
 * "shardcc-plan<TAB>N" or "shardcc-plan<TAB>N<TAB>CHECK", then "KEY<TAB>SHARD" lines.
 * CHECK (plan_check_text: XXH64, seed 0, of the text after the header line, as 16
 * lowercase hex digits) is written by shardcc, whose lines are sorted by key (bytes), one
 * a key: a text whose CHECK matches is not read line by line, and its keys are found by
 * bisection; a text without one (written by hand) is checked and searched line by line.
 * The text is plan[0, len) and a NUL byte follows it (a strbuf's); a NUL byte within is
 * a bad line. plan_count: N, or 0 when the header is not one. plan_owner: the key's shard, or 0
 * when the plan does not name it (the hash partition decides then). */
int plan_count(const char *plan);
int plan_owner(const char *plan, size_t len, const char *key);
/* 0 when the text can be followed: its CHECK matches, or it has none and every line is
 * KEY<TAB>SHARD with a key and 1 <= SHARD <= count. Otherwise the first line that cannot
 * (1-based; 1: the header, or a CHECK the text does not match). */
size_t plan_bad_line(const char *plan, size_t len, int count);
void plan_check_text(const char *body, size_t len, char out[17]);

#endif
