/* strvec: a NULL-terminated vector of owned strings (an argv under construction).
 * Used for canonical argvs, child argvs and environments. */
#ifndef SHARDCC_STRVEC_H
#define SHARDCC_STRVEC_H

#include <stddef.h>

struct strvec {
    char **v; /* always NULL-terminated once anything was pushed */
    size_t n;
    size_t alloc;
};

#define STRVEC_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void sv_push(struct strvec *sv, const char *s);
void sv_push_owned(struct strvec *sv, char *s);
void sv_pushv(struct strvec *sv, char *const *v, size_t n);
/* The NULL-terminated array (a static empty one for an empty vector). */
char **sv_argv(struct strvec *sv);
void sv_clear(struct strvec *sv);
/* Whether s is one of sv's strings. */
int sv_has(const struct strvec *sv, const char *s);
/* qsort comparator for an array of C strings (char * or const char *), by strcmp. */
int cstr_cmp(const void *a, const void *b);

#endif
