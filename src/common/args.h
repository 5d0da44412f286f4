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
/* Reports argv[i] as unknown and sets error. */
void args_unknown(struct args *a);

#endif
