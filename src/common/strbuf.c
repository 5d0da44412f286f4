/* strbuf: growable strings and the allocation helpers everything else uses.
 * Owns nothing beyond its own buffers. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#define write_stderr(m, n) _write(2, m, (unsigned)(n))
#else
#include <unistd.h>
#define write_stderr(m, n) write(2, m, n)
#endif

static void die_oom(void)
{
    static const char msg[] = "shardcc: out of memory\n";
    long r = (long)write_stderr(msg, sizeof msg - 1);
    (void)r;
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die_oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die_oom();
    return q;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

void sb_grow(struct strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->alloc)
        return;
    size_t want = sb->alloc ? sb->alloc : 64;
    while (want < sb->len + extra + 1) {
        if (want > ((size_t)-1) / 2)
            die_oom();
        want *= 2;
    }
    sb->buf = xrealloc(sb->buf, want);
    sb->alloc = want;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
    sb_grow(sb, len);
    memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    /* cp is a va_copy of the caller's started ap; clang-analyzer loses track of it */
    int n = vsnprintf(NULL, 0, fmt, cp); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(cp);
    if (n < 0)
        return;
    sb_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

const char *sb_str(const struct strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

char *sb_detach(struct strbuf *sb)
{
    char *p = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->alloc = 0;
    return p;
}

void sb_release(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->alloc = 0;
}

void sb_add_printable(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            sb_addf(sb, "\\x%02x", c);
        else
            sb_addc(sb, (char)c);
    }
}
