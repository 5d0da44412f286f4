/* path: lexical path operations on '/'-separated paths.
 * Owns no state; the file system is never consulted here. */
#include "path.h"

#include <string.h>

int path_is_absolute(const char *p)
{
    return p[0] == '/';
}

void path_normalize(const char *p, struct strbuf *out)
{
    struct strbuf r = STRBUF_INIT;
    int abs = p[0] == '/';
    const char *s = p;
    while (*s) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 1 && s[0] == '.') {
            /* skip */
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            char *slash = r.len ? strrchr(r.buf, '/') : NULL;
            int last_is_dotdot =
                r.len >= 2 && strcmp(r.buf + (slash ? slash - r.buf + 1 : 0), "..") == 0;
            if (r.len && !last_is_dotdot) {
                r.len = slash ? (size_t)(slash - r.buf) : 0;
                r.buf[r.len] = '\0';
            } else if (!abs) {
                if (r.len)
                    sb_addc(&r, '/');
                sb_adds(&r, "..");
            }
        } else {
            if (r.len)
                sb_addc(&r, '/');
            sb_add(&r, s, n);
        }
        s += n;
    }
    sb_reset(out);
    if (abs)
        sb_addc(out, '/');
    sb_add(out, sb_str(&r), r.len);
    if (!out->len)
        sb_addc(out, '.');
    sb_release(&r);
}

void path_absolute(const char *base, const char *p, struct strbuf *out)
{
    if (path_is_absolute(p)) {
        path_normalize(p, out);
        return;
    }
    struct strbuf j = STRBUF_INIT;
    sb_adds(&j, base);
    sb_addc(&j, '/');
    sb_adds(&j, p);
    path_normalize(sb_str(&j), out);
    sb_release(&j);
}

const char *path_under(const char *root, const char *abs)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return abs[0] == '/' ? abs + 1 : NULL;
    if (strncmp(root, abs, n) != 0)
        return NULL;
    if (abs[n] == '\0')
        return abs + n;
    if (abs[n] == '/')
        return abs + n + 1;
    return NULL;
}

const char *path_basename(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int path_has_component(const char *p, const char *name, int prefix_ok)
{
    size_t n = strlen(name);
    const char *s = p;
    for (;;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len >= n && strncmp(s, name, n) == 0 && (prefix_ok || len == n))
            return 1;
        if (!e)
            return 0;
        s = e + 1;
    }
}

const char *path_extension(const char *p)
{
    const char *b = path_basename(p);
    const char *d = strrchr(b, '.');
    return d && d != b ? d + 1 : "";
}

/* The bracket expression at *pat (after its '['): whether c is in it; *pat is moved past
 * its ']'. A '[' without its ']' is an ordinary character (returns -1). */
static int bracket(const char **pat, unsigned char c)
{
    const char *p = *pat;
    int neg = *p == '!' || *p == '^';
    if (neg)
        p++;
    int in = 0, first = 1;
    while (*p && (*p != ']' || first)) {
        first = 0;
        unsigned char lo = (unsigned char)*p, hi;
        if (lo == '\\' && p[1])
            lo = (unsigned char)*++p;
        p++;
        hi = lo;
        if (*p == '-' && p[1] && p[1] != ']') {
            p++;
            hi = (unsigned char)*p;
            if (hi == '\\' && p[1])
                hi = (unsigned char)*++p;
            p++;
        }
        in |= lo <= c && c <= hi;
    }
    if (*p != ']')
        return -1;
    *pat = p + 1;
    return in != neg;
}

int path_glob(const char *pat, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        const char *p = pat;
        int step = 0; /* 1: pat's character matched s's */
        if (*p == '*') {
            star = ++pat;
            resume = s;
            continue;
        }
        if (*p == '?') {
            pat++;
            step = 1;
        } else if (*p == '[') {
            const char *q = p + 1;
            int in = bracket(&q, (unsigned char)*s);
            if (in < 0) {
                step = *s == '[';
                pat = p + 1;
            } else {
                step = in;
                pat = q;
            }
        } else if (*p == '\\' && !p[1]) {
            return 0; /* a pattern ending in one backslash matches nothing (glibc's fnmatch) */
        } else if (*p) {
            if (*p == '\\')
                p++;
            step = *p == *s;
            pat = p + 1;
        }
        if (step) {
            s++;
            continue;
        }
        if (!star)
            return 0;
        pat = star; /* the last '*' takes one character more */
        s = ++resume;
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}
