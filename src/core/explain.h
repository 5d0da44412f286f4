/* explain: why TUs missed the cache in the link job (shardcc explain; shardcc link prints
 * it when the hit-rate guard fails). */
#ifndef SHARDCC_EXPLAIN_H
#define SHARDCC_EXPLAIN_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "jrnl.h"

/* For every TU compile of the link journal that was not a hit, one explanation on out:
 * no owner, a failed owner, the arguments only one side ran, the same arguments in another
 * order, or the same arguments (then an input differed). Returns how many. */
size_t explain_misses(json_t *const *manifests, size_t nm, const struct jrnl *link, FILE *out);

#endif
