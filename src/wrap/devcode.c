/* devcode: the device-code-only outputs' store key (devcode.h). */
#include "devcode.h"
#include "options.h"
#include "path.h"
#include "platform.h"
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

int devcode_option(const char *name)
{
    static const char *const names[] = {"-fatbin", "--fatbin",  "-ptx",       "--ptx",  "-cubin",
                                        "--cubin", "-optix-ir", "--optix-ir", "-ltoir", "--ltoir"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i]))
            return 1;
    return 0;
}

/* s with every occurrence of root followed by '/' or the end written as "<root>". */
static char *root_relative(const char *root, const char *s)
{
    size_t n = strlen(root);
    struct strbuf sb = STRBUF_INIT;
    const char *p = s;
    for (const char *q; n > 1 && (q = strstr(p, root));) {
        if (q[n] != '/' && q[n] != '\0') {
            sb_add(&sb, p, (size_t)(q - p) + n);
            p = q + n;
            continue;
        }
        sb_add(&sb, p, (size_t)(q - p));
        sb_adds(&sb, "<root>");
        p = q + n;
    }
    sb_adds(&sb, p);
    return sb_detach(&sb);
}

void devcode_args(const struct wrap_config *cfg, const struct strvec *argv, struct strvec *key_args,
                  struct strvec *dep_args, const char *depout)
{
    const struct opt_table *t = seat_table(SEAT_NVCC);
    for (size_t i = 0; i < argv->n; i++) {
        const char *arg = argv->v[i], *value = NULL;
        const struct opt *o = arg[0] == '-' && arg[1] ? opt_match(t, arg, &value) : NULL;
        size_t span = 1; /* the option and its separate value */
        if (o && opt_takes_next(o, value) && i + 1 < argv->n)
            span = 2;
        int drop_key = o && o->flags & (OPT_OUTPUT | OPT_DEPFILE | OPT_DEPTARGET | OPT_DEPGEN);
        int drop_dep = drop_key || (o && devcode_option(o->name));
        for (size_t k = i; k < i + span; k++) {
            if (!drop_key)
                sv_push_owned(key_args, root_relative(cfg->root, argv->v[k]));
            if (!drop_dep)
                sv_push(dep_args, argv->v[k]);
        }
        i += span - 1;
    }
    sv_push(dep_args, "-M");
    sv_push(dep_args, "-MF");
    sv_push(dep_args, depout);
}

int devcode_parse_deps(const char *text, struct strvec *deps)
{
    /* the first ':' that ends a target ("t:" then a space or the end) starts the list */
    const char *p = text;
    for (;; p++) {
        p = strchr(p, ':');
        if (!p)
            return -1;
        if (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\r' || p[1] == '\0')
            break;
    }
    struct strbuf word = STRBUF_INIT;
    for (p++;; p++) {
        if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
            p += p[1] == '\r' ? 2 : 1; /* a continued line */
            continue;
        }
        if (*p == '\\' && (p[1] == ' ' || p[1] == '#' || p[1] == '\\')) {
            sb_addc(&word, *++p);
            continue;
        }
        if (*p == '$' && p[1] == '$') {
            sb_addc(&word, *++p);
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\0') {
            if (word.len)
                sv_push_owned(deps, sb_detach(&word));
            if (*p == '\0' || *p == '\n')
                break; /* one rule: the first line and its continuations */
            continue;
        }
        sb_addc(&word, *p);
    }
    sb_release(&word);
    return 0;
}

int devcode_key(const struct wrap_config *cfg, const char *fingerprint, const char *extrafiles,
                const struct strvec *key_args, const struct strvec *deps, char key[65],
                struct strbuf *err)
{
    struct sha256 s;
    sha256_init(&s);
    sha256_update_str(&s, DEVCODE_TAG);
    sha256_update_str(&s, fingerprint ? fingerprint : "");
    sha256_update_str(&s, extrafiles ? extrafiles : "");
    for (size_t i = 0; i < key_args->n; i++)
        sha256_update_str(&s, key_args->v[i]);
    sha256_update_str(&s, "--deps--");
    struct strbuf abs = STRBUF_INIT, data = STRBUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < deps->n && !rc; i++) {
        sb_reset(&abs);
        sb_reset(&data);
        path_absolute(cfg->cwd, deps->v[i], &abs);
        rc = plat_read_file_max(sb_str(&abs), DEVCODE_FILE_MAX, &data);
        if (rc) {
            sb_addf(err, "\"%s\"", sb_str(&abs));
            break;
        }
        char *rel = root_relative(cfg->root, sb_str(&abs));
        sha256_update_str(&s, rel);
        free(rel);
        unsigned char d[32];
        struct sha256 f;
        sha256_init(&f);
        sha256_update(&f, data.buf ? data.buf : "", data.len);
        sha256_final(&f, d);
        sha256_update(&s, d, sizeof d);
    }
    sb_release(&abs);
    sb_release(&data);
    if (rc)
        return rc;
    unsigned char d[32];
    sha256_final(&s, d);
    sha256_hex(d, key);
    return 0;
}

void devcode_entry_path(const char *cache_dir, const char *key, struct strbuf *out)
{
    sb_reset(out);
    sb_addf(out, "%s/%c/%c/%sD", cache_dir, key[0], key[1], key + 2);
}

const char *devcode_store_dir(void)
{
    const char *cache = getenv("SHARDCC_CCACHE_DIR");
    if (!cache || !*cache)
        cache = getenv("CCACHE_DIR");
    return cache && *cache ? cache : NULL;
}

int devcode_store_put(const char *path, const void *data, size_t len)
{
    struct strbuf dir = STRBUF_INIT;
    sb_add(&dir, path, (size_t)(path_basename(path) - path));
    int e = plat_mkdir_p(sb_str(&dir));
    sb_release(&dir);
    return e ? e : plat_write_atomic(path, data ? data : "", len);
}

int devcode_store_seed(const char *key, const char *entry)
{
    const char *seed = getenv("SHARDCC_SEED_STORE");
    if (!seed || !*seed || plat_file_exists(entry))
        return 0;
    struct strbuf from = STRBUF_INIT, data = STRBUF_INIT;
    devcode_entry_path(seed, key, &from);
    int ok = plat_read_file_max(sb_str(&from), DEVCODE_FILE_MAX, &data) == 0 &&
             devcode_store_put(entry, data.buf, data.len) == 0;
    sb_release(&from);
    sb_release(&data);
    return ok;
}

void devcode_depfile(const struct strvec *targets, const struct strvec *deps, struct strbuf *out)
{
    for (size_t i = 0; i < targets->n; i++)
        sb_addf(out, "%s%s", i ? " " : "", targets->v[i]);
    sb_adds(out, ":");
    for (size_t i = 0; i < deps->n; i++) {
        sb_adds(out, " \\\n ");
        for (const char *p = deps->v[i]; *p; p++) {
            if (*p == ' ' || *p == '#')
                sb_addc(out, '\\');
            if (*p == '$')
                sb_addc(out, '$');
            sb_addc(out, *p);
        }
    }
    sb_addc(out, '\n');
}

void devcode_manifest_key(const struct wrap_config *cfg, const char *fingerprint,
                          const char *extrafiles, const struct strvec *key_args, char mkey[65])
{
    struct sha256 s;
    sha256_init(&s);
    sha256_update_str(&s, DEVCODE_MANIFEST_TAG);
    sha256_update_str(&s, fingerprint ? fingerprint : "");
    sha256_update_str(&s, extrafiles ? extrafiles : "");
    char *cwd = root_relative(cfg->root, cfg->cwd);
    sha256_update_str(&s, cwd);
    free(cwd);
    for (size_t i = 0; i < key_args->n; i++)
        sha256_update_str(&s, key_args->v[i]);
    unsigned char d[32];
    sha256_final(&s, d);
    sha256_hex(d, mkey);
}

/* The SHA-256 (hex) of the file path (relative to cfg->cwd). 0 or an errno. */
static int file_digest(const struct wrap_config *cfg, const char *path, char hex[65])
{
    struct strbuf abs = STRBUF_INIT, data = STRBUF_INIT;
    path_absolute(cfg->cwd, path, &abs);
    int e = plat_read_file_max(sb_str(&abs), DEVCODE_FILE_MAX, &data);
    if (!e) {
        unsigned char d[32];
        struct sha256 f;
        sha256_init(&f);
        sha256_update(&f, data.buf ? data.buf : "", data.len);
        sha256_final(&f, d);
        sha256_hex(d, hex);
    }
    sb_release(&abs);
    sb_release(&data);
    return e;
}

int devcode_manifest_text(const struct wrap_config *cfg, const char *key, const struct strvec *deps,
                          struct strbuf *out)
{
    sb_addf(out, "%skey %s\n", DEVCODE_MANIFEST_TAG, key);
    for (size_t i = 0; i < deps->n; i++) {
        char hex[65];
        if (strchr(deps->v[i], '\n') || !*deps->v[i] || file_digest(cfg, deps->v[i], hex))
            return -1;
        sb_addf(out, "dep %s %s\n", hex, deps->v[i]);
    }
    return 0;
}

static int hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

int devcode_manifest_match(const struct wrap_config *cfg, const char *text, char key[65],
                           struct strvec *deps)
{
    size_t tag = strlen(DEVCODE_MANIFEST_TAG);
    const char *p = text;
    if (strncmp(p, DEVCODE_MANIFEST_TAG, tag) != 0 || strncmp(p + tag, "key ", 4) != 0 ||
        !hex64(p + tag + 4) || p[tag + 68] != '\n')
        return -1;
    memcpy(key, p + tag + 4, 64);
    key[64] = '\0';
    int ok = 1;
    for (p += tag + 69; ok && *p;) {
        const char *nl = strchr(p, '\n');
        char hex[65];
        if (!nl || nl - p < 70 || strncmp(p, "dep ", 4) != 0 || !hex64(p + 4) || p[68] != ' ') {
            ok = 0;
            break;
        }
        char *path = xstrndup(p + 69, (size_t)(nl - p - 69));
        ok = file_digest(cfg, path, hex) == 0 && memcmp(hex, p + 4, 64) == 0;
        sv_push_owned(deps, path);
        p = nl + 1;
    }
    if (!ok || !deps->n)
        sv_clear(deps);
    return ok && deps->n ? 0 : -1;
}
