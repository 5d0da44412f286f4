/* args: a small, portable long-option reader for the CLI ("--name VALUE", "--name=VALUE",
 * "--flag", "--" ends the options). No getopt, so it ports as is. */
#ifndef SHARDCC_ARGS_H
#define SHARDCC_ARGS_H

#include <stddef.h>

struct args {
    int argc;
    char **argv;
    int i;           /* index of the current argument */
    const char *cmd; /* for messages: "shardcc env" */
    int error;       /* set once a usage error was reported */
    /* the option names tried on argv[tried_at] so far (for args_unknown's suggestion) */
    int tried_at;
    size_t ntried;
    const char *tried[48];
};

/* 1 when argv[i] is --name with a value (consumed, *value set), 0 when not, and on a
 * missing value reports it, sets error and returns 0. */
int args_value(struct args *a, const char *name, const char **value);
/* 1 when argv[i] is the flag --name (consumed). */
int args_flag(struct args *a, const char *name);
/* 1 when argv[i] is --name with one or more values: the value, then every following
 * argument up to the next one starting with '-', appended to out (room for argc entries
 * is the caller's). */
int args_values(struct args *a, const char *name, char **out, size_t *n);
/* Reports argv[i] as unknown and sets error. The message suggests the nearest option
 * name tried on it (a typo), or, for a word that is no option, says that the build
 * command comes after "--". */
void args_unknown(struct args *a);

/* The candidate nearest to word by edit distance (insertions, deletions, substitutions
 * and swaps of two neighbours count 1), or NULL when none is near enough to be a typo
 * of it: at most 2 edits, and fewer than half of word's length. */
const char *args_nearest(const char *word, const char *const *cands, size_t n);

#endif
