/* remote: ccache's remote storage URL and a client for its Redis and HTTP servers (see
 * remote.h). */
#include "remote.h"
#include "artifact.h"
#include "net.h"
#include "platform.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#define MAX_OBJECT (1ull << 31) /* a bigger answer is refused, not read */

/* $VAR and ${VAR} expanded as ccache expands its configuration values; "$$" is "$". An unset
 * variable is an error. */
static int expand_env(const char *s, struct strbuf *out, struct strbuf *err)
{
    for (const char *p = s; *p; p++) {
        if (*p != '$') {
            sb_addc(out, *p);
            continue;
        }
        if (p[1] == '$') {
            sb_addc(out, '$');
            p++;
            continue;
        }
        int brace = p[1] == '{';
        const char *b = p + 1 + brace, *e = b;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        if (e == b || (brace && *e != '}')) {
            sb_addf(err, "a '$' not followed by a variable name (write $$ for a '$')");
            return -1;
        }
        char *name = xstrndup(b, (size_t)(e - b));
        const char *v = getenv(name);
        if (!v) {
            sb_addf(err, "the environment variable %s it names is not set", name);
            free(name);
            return -1;
        }
        free(name);
        sb_adds(out, v);
        p = e - !brace;
    }
    return 0;
}

/* Decodes %XX in place. */
static void pct_decode(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            char hex[3] = {p[1], p[2], 0};
            *o++ = (char)strtol(hex, NULL, 16);
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

static int parse_ms(const char *v, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 1 || n > 3600000)
        return -1;
    *out = (int)n;
    return 0;
}

/* A Redis database number: 0 and up (the server says how many it has). */
static int parse_db(const char *v, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 1000000 || !(*v >= '0' && *v <= '9'))
        return -1;
    *out = (int)n;
    return 0;
}

/* localhost, ::1, or an IPv4 address 127.A.B.C written as such (127.evil.example is a
 * name anyone's DNS answers for). */
static int is_loopback(const char *host)
{
    if (!strcmp(host, "localhost") || !strcmp(host, "::1"))
        return 1;
    unsigned a, b, c, d;
    char tail;
    return sscanf(host, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 && a == 127 && b < 256 &&
           c < 256 && d < 256 && strspn(host, "0123456789.") == strlen(host);
}

/* Whether a password as written is only a reference to the environment ($NAME or
 * ${NAME}): then it holds no secret and is shown; anything else is masked. */
static int only_reference(const char *pw, size_t n)
{
    if (n < 2 || pw[0] != '$')
        return 0;
    size_t b = pw[1] == '{' ? 2 : 1, e = b;
    while (e < n && (isalnum((unsigned char)pw[e]) || pw[e] == '_'))
        e++;
    return e > b && (b == 2 ? e + 1 == n && pw[e] == '}' : e == n);
}

/* The display form of url: the password of its user information, when written literally,
 * as "********" (ccache's own mask). */
static char *masked(const char *url, const char *scheme_end)
{
    /* the authority ends at the first '/' (or '|', where the attributes start); its user
     * information at its last '@' (URLs that hold more are refused by remote_parse, but
     * their display is masked too) */
    size_t alen = strcspn(scheme_end, "/|");
    const char *at = NULL;
    for (const char *p = scheme_end; p < scheme_end + alen; p++)
        if (*p == '@')
            at = p;
    if (!at) /* a '/' in the password ends the authority early: mask up to the last '@' */
        for (const char *p = scheme_end; *p && *p != '|'; p++)
            if (*p == '@')
                at = p;
    if (!at)
        return xstrdup(url);
    const char *colon = memchr(scheme_end, ':', (size_t)(at - scheme_end));
    const char *pw = colon ? colon + 1 : scheme_end; /* redis://PASSWORD@host */
    if (pw == at || only_reference(pw, (size_t)(at - pw)))
        return xstrdup(url);
    struct strbuf m = STRBUF_INIT;
    sb_add(&m, url, (size_t)(pw - url));
    sb_adds(&m, "********");
    sb_adds(&m, at);
    return sb_detach(&m);
}

/* The scheme of url: r->kind. 0, or -1 with the reason in err. */
static int parse_scheme(const char *url, int unix_form, struct remote *r, struct strbuf *err)
{
    if (!strncmp(url, "https://", 8) || !strncmp(url, "rediss://", 9)) {
        sb_addf(err,
                "\"%s\": ccache 4.7 speaks neither HTTPS nor TLS to Redis: use http:// or "
                "redis:// (behind a tunnel or on a private network)",
                r->display);
        return -1;
    }
    if (!strncmp(url, "http://", 7)) {
        r->kind = REMOTE_HTTP;
    } else if (!strncmp(url, "redis://", 8) || unix_form) {
        r->kind = REMOTE_REDIS;
    } else {
        sb_addf(err,
                "\"%s\": not a remote storage URL ccache 4.7 can use with shardcc "
                "(http://HOST[:PORT]/PATH, redis://HOST[:PORT][/DB] or "
                "redis+unix:SOCKET)",
                r->display);
        return -1;
    }
    return 0;
}

/* The URL with its variables expanded, refused where ccache would read it otherwise or send
 * it into a request line: a control character, an '@' or '/' in the credentials. */
static int check_expanded(const char *ex, int unix_form, const struct remote *r, struct strbuf *err)
{
    for (const char *c = ex; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            sb_addf(err, "\"%s\": a control character in the URL (or in a variable it names)",
                    r->display);
            return -1;
        }
    if (unix_form)
        return 0;
    const char *auth0 = ex + (r->kind == REMOTE_HTTP ? 7 : 8);
    size_t alen = strcspn(auth0, "/"), ats = 0;
    for (size_t i = 0; i < alen; i++)
        ats += auth0[i] == '@';
    if (ats > 1 || strchr(auth0 + alen, '@')) {
        sb_addf(err,
                "\"%s\": an '@' or a '/' in the user or the password (write them as %%40 "
                "and %%2F): ccache would read another host from this URL",
                r->display);
        return -1;
    }
    return 0;
}

/* The |attributes after the URL (bar: the first '|', or NULL). */
static int parse_attributes(const char *bar, struct remote *r, struct strbuf *err)
{
    for (const char *a = bar; a && *a == '|';) {
        const char *next = strchr(a + 1, '|');
        char *kv = next ? xstrndup(a + 1, (size_t)(next - a - 1)) : xstrdup(a + 1);
        a = next;
        char *eq = strchr(kv, '=');
        const char *v = eq ? eq + 1 : "true";
        if (eq)
            *eq = '\0';
        int bad = 0, known = 1;
        if (!strcmp(kv, "read-only"))
            bad = strcmp(v, "true") && strcmp(v, "false") ? 1
                                                          : (r->read_only = !strcmp(v, "true"), 0);
        else if (!strcmp(kv, "connect-timeout"))
            bad = parse_ms(v, &r->connect_ms);
        else if (!strcmp(kv, "operation-timeout"))
            bad = parse_ms(v, &r->op_ms);
        else if (!strcmp(kv, "layout") && r->kind == REMOTE_HTTP && !strcmp(v, "subdirs"))
            r->flat = 0;
        else if (!strcmp(kv, "layout") && r->kind == REMOTE_HTTP && !strcmp(v, "flat"))
            r->flat = 1;
        else if (!strcmp(kv, "keep-alive") && r->kind == REMOTE_HTTP)
            bad = strcmp(v, "true") && strcmp(v, "false");
        else
            known = 0;
        if (!known)
            sb_addf(err,
                    "\"%s\": the attribute \"%s%s%s\" is not one shardcc knows (read-only, "
                    "connect-timeout, operation-timeout%s)",
                    r->display, kv, eq ? "=" : "", eq ? v : "",
                    r->kind == REMOTE_HTTP ? ", layout=subdirs|flat, keep-alive" : "");
        else if (bad)
            sb_addf(err, "\"%s\": the attribute %s has the bad value \"%s\"", r->display, kv, v);
        free(kv);
        if (!known || bad)
            return -1;
    }
    return 0;
}

/* redis+unix:[//]SOCKET[?db=N] (u: the expanded URL, changed in place). */
static int parse_unix(char *u, const char *spec, struct remote *r, struct strbuf *err)
{
    char *p = u + 11;
    if (!strncmp(p, "//", 2))
        p += 2;
    char *q = strchr(p, '?');
    if (q) {
        *q++ = '\0';
        if (strncmp(q, "db=", 3) || parse_db(q + 3, &r->db) != 0) {
            sb_addf(err, "\"%s\": the query must be ?db=N", r->display);
            return -1;
        }
    }
    if (*p != '/') {
        sb_addf(err, "\"%s\": redis+unix: needs an absolute socket path", r->display);
        return -1;
    }
    r->unix_path = xstrdup(p);
    r->loopback = 1;
    r->ccache = xstrdup(spec);
    return 0;
}

/* USER:PASSWORD@ (or redis's PASSWORD@) before the host: r->user and r->password, decoded.
 * Returns where the host starts (auth: after the scheme, changed in place). */
static char *parse_credentials(char *auth, struct remote *r)
{
    char *slash = strchr(auth, '/');
    char *at = strrchr(auth, '@');
    if (!at || (slash && at > slash))
        return auth;
    *at = '\0';
    char *colon = strchr(auth, ':');
    if (colon) {
        *colon = '\0';
        r->user = *auth ? xstrdup(auth) : NULL;
        r->password = xstrdup(colon + 1);
    } else if (r->kind == REMOTE_REDIS) { /* redis://PASSWORD@HOST */
        r->password = xstrdup(auth);
    } else {
        r->user = xstrdup(auth);
        r->password = xstrdup("");
    }
    if (r->user)
        pct_decode(r->user);
    if (r->password)
        pct_decode(r->password);
    return at + 1;
}

/* HOST[:PORT] or [IPv6][:PORT], then the path: HTTP's, or redis's /DB (hostport changed in
 * place). */
static int parse_host_path(char *hostport, struct remote *r, struct strbuf *err)
{
    char *slash = strchr(hostport, '/');
    char *path = slash ? xstrdup(slash) : xstrdup("");
    if (slash)
        *slash = '\0';
    char *port = NULL;
    if (hostport[0] == '[') { /* [IPv6] */
        char *close = strchr(hostport, ']');
        if (!close) {
            sb_addf(err, "\"%s\": an unclosed '[' in the host", r->display);
            free(path);
            return -1;
        }
        *close = '\0';
        r->host = xstrdup(hostport + 1);
        port = close[1] == ':' ? close + 2 : NULL;
    } else {
        char *colon = strchr(hostport, ':');
        if (colon)
            *colon = '\0';
        r->host = xstrdup(hostport);
        port = colon ? colon + 1 : NULL;
    }
    if (!*r->host || (port && (!*port || strspn(port, "0123456789") != strlen(port)))) {
        sb_addf(err, "\"%s\": no host, or a port that is not a number", r->display);
        free(path);
        return -1;
    }
    r->port = xstrdup(port ? port : r->kind == REMOTE_HTTP ? "80" : "6379");
    r->loopback = is_loopback(r->host);
    if (r->kind == REMOTE_HTTP) {
        size_t n = strlen(path);
        while (n && path[n - 1] == '/')
            path[--n] = '\0';
        r->path = path;
        return 0;
    }
    int bad = *path && (strlen(path) < 2 || parse_db(path + 1, &r->db) != 0);
    free(path);
    if (bad) {
        sb_addf(err, "\"%s\": the path of a redis:// URL is the database number (/N)", r->display);
        return -1;
    }
    return 0;
}

/* What ccache gets: the URL as given, but for redis://:PASSWORD@HOST, which ccache 4.7.5
 * sends no AUTH for (and prints the password in its log): redis://PASSWORD@HOST. */
static char *ccache_url(const char *spec, const struct remote *r)
{
    if (r->kind == REMOTE_REDIS && !strncmp(spec, "redis://:", 9)) {
        struct strbuf fix = STRBUF_INIT;
        sb_adds(&fix, "redis://");
        sb_adds(&fix, spec + 9);
        return sb_detach(&fix);
    }
    return xstrdup(spec);
}

int remote_parse(const char *spec, struct remote *r, struct strbuf *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->connect_ms = 100;
    r->op_ms = 10000;
    const char *bar = strchr(spec, '|');
    char *url = bar ? xstrndup(spec, (size_t)(bar - spec)) : xstrdup(spec);
    const char *scheme_end = strstr(url, "://");
    int unix_form = !strncmp(url, "redis+unix:", 11);
    scheme_end = unix_form ? url + 11 : scheme_end ? scheme_end + 3 : NULL;
    r->display = masked(spec, spec + ((scheme_end ? scheme_end : url) - url));
    struct strbuf ex = STRBUF_INIT, why = STRBUF_INIT;
    int rc = parse_scheme(url, unix_form, r, err);
    if (!rc && expand_env(url, &ex, &why) != 0) {
        sb_addf(err, "\"%s\": %s", r->display, sb_str(&why));
        rc = -1;
    }
    if (!rc)
        rc = check_expanded(sb_str(&ex), unix_form, r, err);
    if (!rc)
        rc = parse_attributes(bar, r, err);
    if (!rc && !ex.len) {
        sb_addf(err, "\"%s\": an empty URL", r->display);
        rc = -1;
    }
    if (!rc && unix_form) {
        rc = parse_unix(ex.buf, spec, r, err);
    } else if (!rc) {
        char *hostport = parse_credentials(ex.buf + (r->kind == REMOTE_HTTP ? 7 : 8), r);
        rc = parse_host_path(hostport, r, err);
        if (!rc) {
            r->literal_password =
                r->password && *r->password && r->display && strstr(r->display, "********");
            r->ccache = ccache_url(spec, r);
        }
    }
    free(url);
    sb_release(&ex);
    sb_release(&why);
    if (rc)
        remote_release(r); /* nothing is left to the caller of a URL that failed */
    return rc;
}

void remote_release(struct remote *r)
{
    net_close(r->fd);
    free(r->ccache);
    free(r->display);
    free(r->host);
    free(r->port);
    free(r->unix_path);
    free(r->path);
    free(r->user);
    if (r->password)
        memset(r->password, 0, strlen(r->password));
    free(r->password);
    sb_release(&r->in);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}

int remote_entry_name(const char *rel, struct strbuf *out)
{
    if (!cache_entry_name_ok(rel))
        return -1;
    struct strbuf d = STRBUF_INIT;
    cache_entry_key(rel, &d);
    if (cache_entry_kind(rel, NULL) == CACHE_DEVICE)
        sb_addf(out, "shardcc/d/%s", sb_str(&d));
    else
        sb_adds(out, sb_str(&d));
    sb_release(&d);
    return 0;
}

int remote_run_id_ok(const char *run)
{
    size_t n = strlen(run);
    if (!n || n > 128 || run[0] == '.' || run[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)run[i]) && !strchr("._+-", run[i]))
            return 0;
    return 1;
}

void remote_manifest_name(const char *run, const char *cell, int i, int n, struct strbuf *out)
{
    sb_addf(out, "shardcc/run/%s/%s/shard-%d-of-%d.json", run, cell, i, n);
}

int remote_copy_name(const char *run, const char *cell, int i, int n, const char *rel,
                     struct strbuf *out)
{
    if (!cache_entry_name_ok(rel))
        return -1;
    sb_addf(out, "shardcc/run/%s/%s/shard-%d-of-%d/", run, cell, i, n);
    for (const char *c = rel; *c; c++)
        if (*c != '/')
            sb_addc(out, *c);
    return 0;
}

/* ---- the connection ---- */

/* The most bytes one answer may carry: the caller's cap (remote_get_max), else 2 GiB. */
static uint64_t max_of(const struct remote *r)
{
    return r->max_object ? r->max_object : MAX_OBJECT;
}

static uint64_t deadline(const struct remote *r)
{
    return plat_monotonic_us() + (uint64_t)r->op_ms * 1000;
}

static void drop(struct remote *r)
{
    net_close(r->fd);
    r->fd = -1;
    sb_reset(&r->in);
    r->inpos = 0;
}

static int fill(struct remote *r, uint64_t dl, struct strbuf *err)
{
    if (r->inpos == r->in.len) {
        sb_reset(&r->in);
        r->inpos = 0;
    }
    sb_grow(&r->in, 65536);
    long got = net_read_some(r->fd, r->in.buf + r->in.len, 65536, dl, err);
    if (got == 0)
        sb_adds(err, "the server closed the connection");
    if (got <= 0)
        return -1;
    r->in.len += (size_t)got;
    r->in.buf[r->in.len] = '\0';
    return 0;
}

/* One line ending in CRLF (without it) into line. */
static int read_line(struct remote *r, uint64_t dl, struct strbuf *line, struct strbuf *err)
{
    sb_reset(line);
    if (plat_monotonic_us() > dl) { /* a server that floods lines never makes a read block */
        sb_adds(err, "the server did not answer in time (operation timeout)");
        return -1;
    }
    for (;;) {
        const char *b = r->in.buf ? r->in.buf + r->inpos : "";
        const char *nl = r->in.len > r->inpos ? memchr(b, '\n', r->in.len - r->inpos) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - b);
            sb_add(line, b, n && b[n - 1] == '\r' ? n - 1 : n);
            r->inpos += n + 1;
            return 0;
        }
        if (r->in.len - r->inpos > 65536) {
            sb_adds(err, "the server sent a line longer than 64 KiB");
            return -1;
        }
        if (fill(r, dl, err))
            return -1;
    }
}

static int read_bytes(struct remote *r, uint64_t dl, size_t n, struct strbuf *out,
                      struct strbuf *err)
{
    while (n) {
        if (r->inpos == r->in.len && out && n >= 65536) {
            /* nothing pending: straight into out, a large read at a time; the room grows
             * with what arrives, not with what the server claims it will send */
            size_t room = n < (64u << 20) ? n : (64u << 20);
            sb_grow(out, room);
            long got = net_read_some(r->fd, out->buf + out->len, room, dl, err);
            if (got == 0)
                sb_adds(err, "the server closed the connection");
            if (got <= 0)
                return -1;
            out->len += (size_t)got;
            out->buf[out->len] = '\0';
            n -= (size_t)got;
            continue;
        }
        if (r->inpos == r->in.len && fill(r, dl, err))
            return -1;
        size_t take = r->in.len - r->inpos < n ? r->in.len - r->inpos : n;
        if (out)
            sb_add(out, r->in.buf + r->inpos, take);
        r->inpos += take;
        n -= take;
    }
    return 0;
}

static int ensure_connected(struct remote *r, struct strbuf *err);

/* ---- Redis (RESP2) ---- */

static void resp_arg(struct strbuf *q, const void *d, size_t n)
{
    sb_addf(q, "$%zu\r\n", n);
    sb_add(q, d, n);
    sb_adds(q, "\r\n");
}

/* One reply: its type ('+', '-', ':', '$'), the integer (':', or the bulk length, -1 for
 * nil) and the text or bulk bytes into val. */
static int redis_reply(struct remote *r, uint64_t dl, char *type, long long *num,
                       struct strbuf *val, struct strbuf *err)
{
    struct strbuf line = STRBUF_INIT;
    int rc = read_line(r, dl, &line, err);
    if (!rc) {
        *type = line.len ? line.buf[0] : '?';
        *num = 0;
        if (val)
            sb_reset(val);
        if (*type == '+' || *type == '-') {
            if (val)
                sb_adds(val, sb_str(&line) + 1);
        } else if (*type == ':' || *type == '$') {
            char *end;
            *num = strtoll(sb_str(&line) + 1, &end, 10);
            if (*end || (*type == '$' &&
                         (*num < -1 || (*num >= 0 && (unsigned long long)*num > max_of(r))))) {
                r->over_max = *type == '$' && *num > 0;
                sb_adds(err, r->over_max ? "an answer over the size expected"
                                         : "the server's answer is not Redis's protocol (RESP)");
                rc = -1;
            } else if (*type == '$' && *num >= 0) {
                rc = read_bytes(r, dl, (size_t)*num, val, err);
                if (!rc)
                    rc = read_line(r, dl, &line, err);
                if (!rc && line.len) {
                    sb_adds(err, "the server's answer is not Redis's protocol (RESP)");
                    rc = -1;
                }
            }
        } else {
            sb_adds(err, "the server's answer is not Redis's protocol (RESP): is it a Redis "
                         "server?");
            rc = -1;
        }
    }
    sb_release(&line);
    return rc;
}

/* Appends one command of argc arguments to q. */
static void redis_add(struct strbuf *q, int argc, const char **argv, const size_t *len)
{
    sb_addf(q, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        resp_arg(q, argv[i], len ? len[i] : strlen(argv[i]));
}

/* Sends the command and reads its reply (redis_reply). */
static int redis_cmd(struct remote *r, int argc, const char **argv, const size_t *len, char *type,
                     long long *num, struct strbuf *val, struct strbuf *err)
{
    struct strbuf q = STRBUF_INIT;
    redis_add(&q, argc, argv, len);
    uint64_t dl = deadline(r);
    int rc = net_write_all(r->fd, q.buf, q.len, dl, err);
    if (!rc)
        rc = redis_reply(r, dl, type, num, val, err);
    if (rc)
        drop(r);
    sb_release(&q);
    return rc;
}

/* The server's text with the password, wherever it echoes it, as "********". */
static void scrub(struct strbuf *text, const char *secret)
{
    size_t n = secret ? strlen(secret) : 0;
    char *hit;
    while (n && text->buf && (hit = strstr(text->buf, secret)) != NULL) {
        struct strbuf o = STRBUF_INIT;
        sb_add(&o, text->buf, (size_t)(hit - text->buf));
        sb_adds(&o, "********");
        sb_adds(&o, hit + n);
        sb_release(text);
        *text = o;
    }
}

static int redis_login(struct remote *r, struct strbuf *err)
{
    char t;
    long long num;
    struct strbuf v = STRBUF_INIT;
    int rc = 0;
    if (r->password) {
        const char *av[3] = {"AUTH", r->user ? r->user : r->password, r->password};
        rc = redis_cmd(r, r->user ? 3 : 2, av, NULL, &t, &num, &v, err);
        if (!rc && t != '+') {
            scrub(&v, r->password);
            sb_addf(err, "the server refused the credentials: %s", sb_str(&v));
            rc = -1;
        }
    }
    if (!rc && r->db) {
        char db[16];
        snprintf(db, sizeof db, "%d", r->db);
        const char *av[2] = {"SELECT", db};
        rc = redis_cmd(r, 2, av, NULL, &t, &num, &v, err);
        if (!rc && t != '+') {
            sb_addf(err, "SELECT %s: %s", db, sb_str(&v));
            rc = -1;
        }
    }
    sb_release(&v);
    if (rc)
        drop(r);
    return rc;
}

static void redis_key(const char *name, struct strbuf *k)
{
    if (!strncmp(name, "shardcc/", 8)) {
        for (const char *p = name; *p; p++)
            sb_addc(k, *p == '/' ? ':' : *p);
    } else {
        sb_addf(k, "ccache:%s", name);
    }
}

/* ---- HTTP/1.1 ---- */

static void http_path(const struct remote *r, const char *name, struct strbuf *p)
{
    sb_addf(p, "%s/", r->path);
    if (strncmp(name, "shardcc/", 8) && !r->flat && strlen(name) > 2)
        sb_addf(p, "%.2s/%s", name, name + 2);
    else
        sb_adds(p, name);
}

static void base64(const char *s, struct strbuf *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)s[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)s[i + 2];
        sb_addc(out, tab[(v >> 18) & 63]);
        sb_addc(out, tab[(v >> 12) & 63]);
        sb_addc(out, i + 1 < n ? tab[(v >> 6) & 63] : '=');
        sb_addc(out, i + 2 < n ? tab[v & 63] : '=');
    }
}

/* One request; *status and the body (for GET) or its Content-Length (for HEAD) */
static int http_req(struct remote *r, const char *method, const char *name, const void *body,
                    size_t blen, int *status, struct strbuf *out, uint64_t *clen,
                    struct strbuf *err)
{
    struct strbuf q = STRBUF_INIT, line = STRBUF_INIT, p = STRBUF_INIT;
    http_path(r, name, &p);
    sb_addf(&q, "%s %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nUser-Agent: shardcc\r\n", method, sb_str(&p),
            strchr(r->host, ':') ? "[" : "", r->host, strchr(r->host, ':') ? "]" : "", r->port);
    if (r->user || r->password) {
        struct strbuf up = STRBUF_INIT;
        sb_addf(&up, "%s:%s", r->user ? r->user : "", r->password ? r->password : "");
        sb_adds(&q, "Authorization: Basic ");
        base64(sb_str(&up), &q);
        sb_adds(&q, "\r\n");
        memset(up.buf, 0, up.len);
        sb_release(&up);
    }
    if (!strcmp(method, "PUT"))
        sb_addf(&q, "Content-Type: application/octet-stream\r\nContent-Length: %zu\r\n", blen);
    sb_adds(&q, "\r\n");
    uint64_t dl = deadline(r);
    int rc = net_write_all(r->fd, q.buf, q.len, dl, err);
    if (!rc && blen)
        rc = net_write_all(r->fd, body, blen, dl, err);
    if (!rc)
        rc = read_line(r, dl, &line, err);
    if (!rc && (strncmp(sb_str(&line), "HTTP/1.", 7) || line.len < 12)) {
        sb_adds(err, "the server's answer is not HTTP: is it an HTTP server?");
        rc = -1;
    }
    long long length = -1;
    int chunked = 0, close_after = 0;
    if (!rc) {
        *status = atoi(sb_str(&line) + 9);
        close_after = !strncmp(sb_str(&line), "HTTP/1.0", 8);
        for (int lines = 0;; lines++) {
            rc = read_line(r, dl, &line, err);
            if (rc || !line.len)
                break;
            if (lines == 256) {
                sb_adds(err, "the server sent more than 256 header lines");
                rc = -1;
                break;
            }
            char *h = line.buf, *colon = strchr(h, ':');
            if (!colon)
                continue;
            *colon = '\0';
            const char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            if (!strcasecmp(h, "Content-Length"))
                length = strtoll(v, NULL, 10);
            else if (!strcasecmp(h, "Transfer-Encoding") && strstr(v, "chunked"))
                chunked = 1;
            else if (!strcasecmp(h, "Connection") && !strcasecmp(v, "close"))
                close_after = 1;
        }
    }
    if (!rc && clen)
        *clen = length < 0 ? 0 : (uint64_t)length;
    int keep = !strcmp(method, "GET") && *status / 100 == 2;
    struct strbuf *dst = keep ? out : NULL;
    if (!rc && strcmp(method, "HEAD") && *status != 204 && *status != 304) {
        if (chunked) {
            unsigned long long total = 0;
            for (;;) {
                rc = read_line(r, dl, &line, err);
                if (rc)
                    break;
                unsigned long long n = strtoull(sb_str(&line), NULL, 16);
                if (n > max_of(r) || (total += n) > max_of(r)) {
                    r->over_max = 1;
                    sb_addf(err, "an answer over %llu bytes", (unsigned long long)max_of(r));
                    rc = -1;
                    break;
                }
                if (n == 0) {
                    do
                        rc = read_line(r, dl, &line, err);
                    while (!rc && line.len);
                    break;
                }
                rc = read_bytes(r, dl, (size_t)n, dst, err);
                if (!rc)
                    rc = read_line(r, dl, &line, err);
                if (rc)
                    break;
            }
        } else if (length >= 0) {
            if ((unsigned long long)length > max_of(r)) {
                r->over_max = 1;
                sb_addf(err, "an answer over %llu bytes", (unsigned long long)max_of(r));
                rc = -1;
            } else {
                rc = read_bytes(r, dl, (size_t)length, dst, err);
            }
        } else { /* to the end of the connection */
            while (!rc) {
                if (r->inpos < r->in.len) {
                    if (dst)
                        sb_add(dst, r->in.buf + r->inpos, r->in.len - r->inpos);
                    r->inpos = r->in.len;
                }
                if (dst && dst->len > max_of(r)) {
                    r->over_max = 1;
                    sb_addf(err, "an answer over %llu bytes", (unsigned long long)max_of(r));
                    rc = -1;
                    break;
                }
                struct strbuf e2 = STRBUF_INIT;
                if (fill(r, dl, &e2)) {
                    int eof = !strcmp(sb_str(&e2), "the server closed the connection");
                    if (!eof)
                        sb_adds(err, sb_str(&e2));
                    sb_release(&e2);
                    rc = eof ? 0 : -1;
                    break;
                }
                sb_release(&e2);
            }
            close_after = 1;
        }
    }
    if (rc || close_after)
        drop(r);
    sb_release(&q);
    sb_release(&line);
    sb_release(&p);
    return rc;
}

static int ensure_connected(struct remote *r, struct strbuf *err)
{
    if (r->fd >= 0)
        return 0;
    if (net_connect(r->host, r->port, r->unix_path, r->connect_ms, &r->fd, err))
        return -1;
    return r->kind == REMOTE_REDIS ? redis_login(r, err) : 0;
}

/* Runs one operation, once more on a fresh connection when a kept-alive one failed before
 * any answer (the server closes idle connections). */
enum op { OP_GET, OP_STAT, OP_PUT };

static int run_op(struct remote *r, enum op op, const char *name, const void *data, size_t len,
                  struct strbuf *out, uint64_t *size, struct strbuf *err)
{
    struct strbuf e = STRBUF_INIT;
    int rc = -1;
    for (int attempt = 0; attempt < 2; attempt++) {
        int reused = r->fd >= 0;
        sb_reset(&e);
        if (ensure_connected(r, &e))
            break;
        if (r->kind == REMOTE_REDIS) {
            struct strbuf k = STRBUF_INIT;
            redis_key(name, &k);
            char t;
            long long num;
            struct strbuf v = STRBUF_INIT;
            if (op == OP_PUT) {
                const char *av[3] = {"SET", sb_str(&k), data};
                size_t lens[3] = {3, k.len, len};
                rc = redis_cmd(r, 3, av, lens, &t, &num, &v, &e);
                if (!rc && t != '+') {
                    sb_addf(&e, "SET %s: %s", sb_str(&k), sb_str(&v));
                    rc = -2;
                }
            } else if (op == OP_GET) {
                /* the value straight into out (an error's text too, then cleared) */
                const char *av[2] = {"GET", sb_str(&k)};
                rc = redis_cmd(r, 2, av, NULL, &t, &num, out, &e);
                if (!rc && t == '$') {
                    rc = num >= 0;
                } else if (!rc) {
                    sb_addf(&e, "GET %s: %s", sb_str(&k), sb_str(out));
                    sb_reset(out);
                    rc = -2;
                }
            } else {
                /* EXISTS and STRLEN in one round trip (an empty value exists too); both
                 * replies are read, whatever the first, to keep the stream in step */
                struct strbuf q = STRBUF_INIT;
                const char *av[2] = {"EXISTS", sb_str(&k)}, *av2[2] = {"STRLEN", sb_str(&k)};
                redis_add(&q, 2, av, NULL);
                redis_add(&q, 2, av2, NULL);
                uint64_t dl = deadline(r);
                char t2 = 0;
                long long len2 = 0;
                int bad = 0;
                rc = net_write_all(r->fd, q.buf, q.len, dl, &e);
                if (!rc)
                    rc = redis_reply(r, dl, &t, &num, &v, &e);
                if (!rc && t != ':') {
                    sb_addf(&e, "EXISTS %s: %s", sb_str(&k), sb_str(&v));
                    bad = 1;
                }
                if (!rc)
                    rc = redis_reply(r, dl, &t2, &len2, &v, &e);
                if (!rc && !bad && t2 != ':') {
                    sb_addf(&e, "STRLEN %s: %s", sb_str(&k), sb_str(&v));
                    bad = 1;
                }
                if (rc) {
                    drop(r);
                } else if (bad) {
                    rc = -2;
                } else {
                    *size = (uint64_t)len2;
                    rc = num > 0;
                }
                sb_release(&q);
            }
            sb_release(&k);
            sb_release(&v);
        } else {
            int status = 0;
            uint64_t clen = 0;
            size_t before = out ? out->len : 0;
            rc = http_req(r,
                          op == OP_PUT   ? "PUT"
                          : op == OP_GET ? "GET"
                                         : "HEAD",
                          name, data, op == OP_PUT ? len : 0, &status, out, &clen, &e);
            if (!rc) {
                if (op == OP_PUT)
                    rc = status / 100 == 2 ? 0 : -2;
                else if (status / 100 == 2)
                    rc = 1;
                else if (status == 404)
                    rc = 0;
                else
                    rc = -2;
                if (rc == -2) {
                    struct strbuf p = STRBUF_INIT;
                    http_path(r, name, &p);
                    sb_addf(&e, "%s %s: HTTP status %d%s",
                            op == OP_PUT   ? "PUT"
                            : op == OP_GET ? "GET"
                                           : "HEAD",
                            sb_str(&p), status,
                            status == 401 || status == 403 ? " (the server refused the credentials)"
                            : status == 405 && op == OP_PUT
                                ? " (the server takes no PUT: enable WebDAV's PUT, e.g. nginx's "
                                  "dav_methods PUT)"
                                : "");
                    sb_release(&p);
                }
                if (rc == 1 && size)
                    *size = op == OP_GET && out ? out->len - before : clen;
            }
        }
        if (rc >= 0 || rc == -2 || !reused)
            break;
    }
    if (rc < 0)
        sb_addf(err, "%s: %s", r->display, sb_str(&e));
    else if (op == OP_PUT)
        r->bytes_out += len;
    else if (op == OP_GET && rc == 1 && out)
        r->bytes_in += out->len;
    sb_release(&e);
    return rc < 0 ? -1 : rc;
}

int remote_get_max(struct remote *r, const char *name, uint64_t max, struct strbuf *out,
                   struct strbuf *err)
{
    r->max_object = max;
    r->over_max = 0;
    int rc = remote_get(r, name, out, err);
    r->max_object = 0;
    return rc < 0 && r->over_max ? -2 : rc;
}

int remote_get(struct remote *r, const char *name, struct strbuf *out, struct strbuf *err)
{
    sb_reset(out);
    return run_op(r, OP_GET, name, NULL, 0, out, NULL, err);
}

int remote_stat(struct remote *r, const char *name, uint64_t *size, struct strbuf *err)
{
    return run_op(r, OP_STAT, name, NULL, 0, NULL, size, err);
}

int remote_put(struct remote *r, const char *name, const void *data, size_t len, struct strbuf *err)
{
    if (r->read_only) {
        sb_addf(err, "%s: read-only: nothing is written there", r->display);
        return -1;
    }
    return run_op(r, OP_PUT, name, data, len, NULL, NULL, err);
}
