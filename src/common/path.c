/* path: lexical path operations on '/'-separated paths.
 * Owns no state; the file system is never consulted here. */
#include "path.h"

#include <string.h>

#ifdef _WIN32
/* Windows: '\\' separates as '/' does (paths come out with '/'), "C:/" and "//server/" are
 * roots, and names compare without case. */
static size_t root_len(const char *p)
{
    if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
        (p[2] == '/' || p[2] == '\\'))
        return 3;
    if ((p[0] == '/' || p[0] == '\\') && (p[1] == '/' || p[1] == '\\'))
        return 2;
    return p[0] == '/' || p[0] == '\\';
}
#define IS_SEP(c) ((c) == '/' || (c) == '\\')
#define NAME_NCMP path_ncasecmp
#else
static size_t root_len(const char *p)
{
    return p[0] == '/';
}
#define IS_SEP(c) ((c) == '/')
#define NAME_NCMP strncmp
#endif

int path_ncasecmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        x = x >= 'A' && x <= 'Z' ? x + 32 : x;
        y = y >= 'A' && y <= 'Z' ? y + 32 : y;
        if (x != y || !x)
            return x - y;
    }
    return 0;
}

int path_is_absolute(const char *p)
{
    return root_len(p) > 0;
}

void path_normalize(const char *p, struct strbuf *out)
{
    struct strbuf r = STRBUF_INIT, root = STRBUF_INIT;
    size_t rl = root_len(p);
    for (size_t i = 0; i < rl; i++) /* "/", and on Windows "C:/" or "//" */
        sb_addc(&root, IS_SEP(p[i])                         ? '/'
                       : (i == 0 && rl == 3 && p[0] >= 'a') ? (char)(p[0] - 32)
                                                            : p[i]);
    int abs = rl > 0;
    const char *s = p + rl;
#ifdef _WIN32
    struct strbuf slashed = STRBUF_INIT;
    sb_adds(&slashed, s);
    for (size_t i = 0; i < slashed.len; i++)
        if (slashed.buf[i] == '\\')
            slashed.buf[i] = '/';
    s = sb_str(&slashed);
#endif
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
        sb_add(out, sb_str(&root), root.len);
    sb_add(out, sb_str(&r), r.len);
    if (!out->len)
        sb_addc(out, '.');
    sb_release(&r);
    sb_release(&root);
#ifdef _WIN32
    sb_release(&slashed);
#endif
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
    if (n && IS_SEP(root[n - 1])) { /* a root: "/", "C:/" */
        if (NAME_NCMP(root, abs, n) != 0)
            return NULL;
        return abs + n;
    }
    if (NAME_NCMP(root, abs, n) != 0)
        return NULL;
    if (abs[n] == '\0')
        return abs + n;
    if (IS_SEP(abs[n]))
        return abs + n + 1;
    return NULL;
}

const char *path_basename(const char *p)
{
    const char *b = p;
    for (const char *s = p; *s; s++)
        if (IS_SEP(*s))
            b = s + 1;
    return b;
}

const char *path_basename_any(const char *p)
{
    const char *b = p;
    for (const char *s = p; *s; s++)
        if (*s == '/' || *s == '\\')
            b = s + 1;
    return b;
}

const char *path_program_name(const char *path, char *buf, size_t cap)
{
    const char *b = path_basename_any(path);
    size_t n = strlen(b);
    if (n >= cap)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        buf[i] = (char)(b[i] >= 'A' && b[i] <= 'Z' ? b[i] - 'A' + 'a' : b[i]);
    if (n > 4 && !strcmp(buf + n - 4, ".exe"))
        buf[n - 4] = '\0';
    return buf;
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
