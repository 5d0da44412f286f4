/* args: long-option matching for the CLI subcommands (see args.h). */
#include "args.h"

#include <stdio.h>
#include <string.h>

/* Notes name as tried on argv[i]: the names tried on one argument are the options that
 * the command knows, in its own order. */
static void note_tried(struct args *a, const char *name)
{
    if (a->tried_at != a->i + 1) { /* +1: a zeroed struct has tried nothing on argv[0] */
        a->tried_at = a->i + 1;
        a->ntried = 0;
    }
    if (a->ntried < sizeof a->tried / sizeof a->tried[0])
        a->tried[a->ntried++] = name;
}

int args_value(struct args *a, const char *name, const char **value)
{
    if (a->error || a->i >= a->argc)
        return 0;
    note_tried(a, name);
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
    note_tried(a, name);
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

/* Optimal string alignment distance, capped: returns cap + 1 once it exceeds cap. */
static size_t edit_distance(const char *x, const char *y, size_t cap)
{
    size_t nx = strlen(x), ny = strlen(y);
    if (nx > 64 || ny > 64)
        return cap + 1;
    size_t d[65][65];
    for (size_t i = 0; i <= nx; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= ny; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= nx; i++)
        for (size_t j = 1; j <= ny; j++) {
            size_t best = d[i - 1][j - 1] + (x[i - 1] != y[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[nx][ny] > cap ? cap + 1 : d[nx][ny];
}

const char *args_nearest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(word);
    for (size_t k = 0; k < n; k++) {
        size_t dist = edit_distance(word, cands[k], 2);
        if (dist < best_d && 2 * dist < len) {
            best = cands[k];
            best_d = dist;
        }
    }
    return best;
}

void args_unknown(struct args *a)
{
    const char *arg = a->argv[a->i];
    const char *near = NULL;
    if (a->tried_at == a->i + 1) {
        char name[128];
        size_t n = strcspn(arg, "="); /* --shrad=1/3: the name alone */
        if (n < sizeof name) {
            memcpy(name, arg, n);
            name[n] = '\0';
            near = args_nearest(name, a->tried, a->ntried);
        }
    }
    if (near)
        fprintf(stderr, "%s: unknown option \"%s\": did you mean \"%s\"? (see --help)\n", a->cmd,
                arg, near);
    else if (arg[0] != '-')
        fprintf(stderr,
                "%s: unexpected argument \"%s\": options come first, and the build command "
                "after \"--\" (%s [OPTIONS] -- BUILD...; see --help)\n",
                a->cmd, arg, a->cmd);
    else
        fprintf(stderr, "%s: unknown option \"%s\" (see --help)\n", a->cmd, arg);
    a->error = 1;
    a->i++;
}
