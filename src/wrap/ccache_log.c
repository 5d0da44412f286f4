/* ccache_log: parses the lines of a ccache 4.x log that matter to shardcc:
 * "[time pid] Result key: <key>" and "[time pid] Result: <counter>". */
#include "ccache_log.h"

#include <stdio.h>
#include <string.h>

static void copy_token(char *dst, size_t cap, const char *src, const char *end)
{
    size_t n = 0;
    while (src + n < end && src[n] != '\n' && src[n] != '\r' && src[n] != ' ' && n + 1 < cap)
        n++;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A stats-log counter line: one word of [a-z0-9_], nothing else on the line. */
static int is_counter(const char *c, const char *line, const char *eol)
{
    size_t n = strlen(c);
    const char *rest = line + n;
    if (!n || (rest < eol && *rest != '\r'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= '0' && c[i] <= '9') || c[i] == '_'))
            return 0;
    return 1;
}

static void count(const char *c, int *hit, int *miss, int *remote, char *first, size_t cap)
{
    if (!strcmp(c, "remote_storage_hit"))
        *remote = 1;
    if (!strcmp(c, "direct_cache_hit") || !strcmp(c, "preprocessed_cache_hit"))
        *hit = 1;
    else if (!strcmp(c, "cache_miss"))
        *miss = 1;
    else if (!first[0] && strncmp(c, "local_storage", 13) != 0 &&
             strncmp(c, "remote_storage", 14) != 0 && strcmp(c, "direct_cache_miss") &&
             strcmp(c, "preprocessed_cache_miss"))
        snprintf(first, cap, "%s", c);
}

void ccache_log_parse(const char *text, size_t len, struct ccache_outcome *out)
{
    int hit = 0, miss = 0, remote = 0;
    char first[48] = "";
    memset(out, 0, sizeof *out);
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *eol = nl ? nl : end;
        if (line < eol && line[0] != '[' && line[0] != '#') {
            /* a stats log (CCACHE_STATSLOG): "# <source>", then one counter per line */
            char c[48];
            copy_token(c, sizeof c, line, eol);
            if (is_counter(c, line, eol))
                count(c, &hit, &miss, &remote, first, sizeof first);
        }
        const char *msg =
            line < eol && line[0] == '[' ? memchr(line, ']', (size_t)(eol - line)) : NULL;
        if (msg && msg + 2 <= eol) {
            msg += 2;
            size_t rest = (size_t)(eol - msg);
            if (rest > 12 && memcmp(msg, "Result key: ", 12) == 0) {
                copy_token(out->result_key, sizeof out->result_key, msg + 12, eol);
            } else if (rest > 8 && memcmp(msg, "Result: ", 8) == 0) {
                char c[48];
                copy_token(c, sizeof c, msg + 8, eol);
                count(c, &hit, &miss, &remote, first, sizeof first);
            }
        }
        line = nl ? nl + 1 : end;
    }
    const char *o = hit ? "hit" : miss ? "miss" : first[0] ? first : "unknown";
    snprintf(out->outcome, sizeof out->outcome, "%s", o);
    out->remote = hit && remote;
}
