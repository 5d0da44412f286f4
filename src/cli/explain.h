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

/* Reads the manifests of n artifact files into an allocated array (json_decref each, free
 * the array). Returns an exit status; messages are prefixed with cmd. */
int explain_load_manifests(char **files, size_t n, json_t ***out, const char *cmd);

#endif
