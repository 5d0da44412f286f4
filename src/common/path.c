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
