/* args: long-option matching for the CLI subcommands (see args.h). */
#include "args.h"

#include <stdio.h>
#include <string.h>

int args_value(struct args *a, const char *name, const char **value)
{
    if (a->error || a->i >= a->argc)
        return 0;
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        a->i++;
        return 1;
    }
    if (arg[n] != '\0')
        return 0;
    if (a->i + 1 >= a->argc) {
        fprintf(stderr, "%s: option %s needs a value (see --help)\n", a->cmd, name);
        a->error = 1;
        a->i++;
        return 0;
    }
    *value = a->argv[a->i + 1];
    a->i += 2;
    return 1;
}

int args_flag(struct args *a, const char *name)
{
    if (a->error || a->i >= a->argc)
        return 0;
    if (strcmp(a->argv[a->i], name) != 0)
        return 0;
    a->i++;
    return 1;
}

int args_values(struct args *a, const char *name, char **out, size_t *n)
{
    const char *first;
    if (!args_value(a, name, &first))
        return 0;
    out[(*n)++] = (char *)first;
    while (a->i < a->argc && a->argv[a->i][0] != '-')
        out[(*n)++] = a->argv[a->i++];
    return 1;
}

void args_unknown(struct args *a)
{
    fprintf(stderr, "%s: unknown option \"%s\" (see --help)\n", a->cmd, a->argv[a->i]);
    a->error = 1;
    a->i++;
}
