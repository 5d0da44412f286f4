/* options: lookups in a seat's sorted option table (exact, "name=value", glued value)
 * and the table self-check. Knows nothing of phases or outcomes: see classify.c. */
#include "options.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int cmp_row(const void *key, const void *row)
{
    return strcmp((const char *)key, ((const struct opt *)row)->name);
}

const struct opt *opt_find(const struct opt_table *t, const char *name)
{
    return bsearch(name, t->rows, t->n, sizeof t->rows[0], cmp_row);
}

static const struct opt *find_prefix(const struct opt_table *t, const char *arg, size_t n)
{
    char buf[64];
    if (n >= sizeof buf)
        return NULL;
    memcpy(buf, arg, n);
    buf[n] = '\0';
    return opt_find(t, buf);
}

const struct opt *opt_match(const struct opt_table *t, const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    const struct opt *o = opt_find(t, arg);
    if (o && !(o->flags & OPT_EQ_ONLY))
        return o;
    const char *eq = strchr(arg, '=');
    if (eq) {
        o = find_prefix(t, arg, (size_t)(eq - arg));
        if (o && (o->flags & OPT_ARG) && (t->eq_values || (o->flags & OPT_EQ_ONLY))) {
            *inline_value = eq + 1;
            return o;
        }
    }
    /* Glued values: the longest row name that is a prefix of arg and allows it. */
    size_t len = strlen(arg);
    for (size_t n = len > 63 ? 63 : len - 1; n >= 2; n--) {
        o = find_prefix(t, arg, n);
        if (o && (o->flags & OPT_CONCAT)) {
            *inline_value = arg + n;
            return o;
        }
    }
    return NULL;
}

int opt_takes_next(const struct opt *o, const char *inline_value)
{
    return (o->flags & OPT_ARG) && !inline_value && !(o->flags & (OPT_EQ_ONLY | OPT_JOINED));
}

const struct opt *cl_match(const struct opt_table *t, const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    if (arg[0] != '/')
        return opt_match(t, arg, inline_value);
    char buf[64];
    size_t n = strlen(arg);
    /* a name is short: the part looked up is at most 63 bytes, the value may be longer */
    size_t k = n < sizeof buf ? n : sizeof buf - 1;
    memcpy(buf, arg, k);
    buf[0] = '-';
    buf[k] = '\0';
    const struct opt *o = opt_match(t, buf, inline_value);
    if (o && *inline_value)
        *inline_value = arg + (*inline_value - buf);
    if (o && k < n && !*inline_value) /* cut short: only a glued value can run on */
        o = NULL;
    return o;
}

const char *opt_table_check(const struct opt_table *t)
{
    static char msg[160];
    for (size_t i = 0; i < t->n; i++) {
        const struct opt *o = &t->rows[i];
        if (o->name[0] != '-')
            return "a row whose name does not start with '-'";
        if (i && strcmp(t->rows[i - 1].name, o->name) >= 0) {
            snprintf(msg, sizeof msg, "%s table: \"%s\" is out of order or duplicated", t->seat,
                     o->name);
            return msg;
        }
        unsigned needs_arg = OPT_CONCAT | OPT_OUTPUT | OPT_DEPFILE | OPT_DEPTARGET | OPT_OPTFILE |
                             OPT_LANG | OPT_EQ_ONLY | OPT_DEPQUOTE | OPT_JOINED | OPT_SOURCE;
        if ((o->flags & needs_arg) && !(o->flags & OPT_ARG)) {
            snprintf(msg, sizeof msg, "%s table: \"%s\" names a file or value but lacks OPT_ARG",
                     t->seat, o->name);
            return msg;
        }
        if ((o->flags & OPT_COMPILE) && (o->flags & (OPT_NONTU | OPT_INFO | OPT_ARG))) {
            snprintf(msg, sizeof msg, "%s table: \"%s\" selects two phases", t->seat, o->name);
            return msg;
        }
        if ((o->flags & OPT_JOINED) && !(o->flags & OPT_CONCAT)) {
            snprintf(msg, sizeof msg, "%s table: \"%s\" is joined-only but lacks OPT_CONCAT",
                     t->seat, o->name);
            return msg;
        }
        if (o->rewrite && !opt_find(t, o->rewrite)) {
            snprintf(msg, sizeof msg, "%s table: \"%s\" rewrites to unknown \"%s\"", t->seat,
                     o->name, o->rewrite);
            return msg;
        }
    }
    return NULL;
}
