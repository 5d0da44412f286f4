/* strvec: NULL-terminated string vectors. Owns every string it holds. */
#include "strvec.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

void sv_push_owned(struct strvec *sv, char *s)
{
    if (sv->n + 2 > sv->alloc) {
        sv->alloc = sv->alloc ? sv->alloc * 2 : 16;
        sv->v = xrealloc(sv->v, sv->alloc * sizeof *sv->v);
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

int cstr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void sv_push(struct strvec *sv, const char *s)
{
    sv_push_owned(sv, xstrdup(s));
}

void sv_pushv(struct strvec *sv, char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sv_push(sv, v[i]);
}

char **sv_argv(struct strvec *sv)
{
    static char *empty[1] = {NULL};
    return sv->v ? sv->v : empty;
}

void sv_clear(struct strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->alloc = 0;
}

int sv_has(const struct strvec *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return 1;
    return 0;
}
