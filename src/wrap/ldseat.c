/* ldseat: reading a linker call and telling a hollow link (one with stub inputs) apart
 * (see ldseat.h). Reads the inputs' bytes; runs nothing. */
#include "ldseat.h"
#include "argv.h"
#include "path.h"
#include "platform.h"
#include "rsp.h"
#include "stub.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const linker_names[] = {"ld", "ld.bfd", "ld.gold", "ld.lld", "ld.mold"};

int ldseat_name(const char *name)
{
    for (size_t i = 0; i < sizeof linker_names / sizeof linker_names[0]; i++)
        if (!strcmp(name, linker_names[i]))
            return 1;
    return 0;
}

/* The marker text, kept in this binary one byte up from the text itself, so that shardcc's
 * own objects never hold the marker (a shard that links shardcc would take them for
 * hollow). */
static const char marker_up[] = "tibsedd;!mjolfe!jo!b!tibse!gspn!tuvc!pckfdut";

static size_t marker_text(char *out, size_t cap)
{
    size_t n = sizeof marker_up - 1;
    if (n + 1 > cap)
        return 0;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(marker_up[i] - 1);
    out[n] = '\0';
    return n;
}

size_t ldseat_marker_object(unsigned char *buf)
{
    char text[64];
    size_t n = marker_text(text, sizeof text);
    return stub_object_comment(buf, LDSEAT_MARKER_MAX, text, n + 1);
}

static int expand(const char *cwd, int argc, char *const *argv, int depth, const char *from,
                  struct strvec *out, struct strbuf *err)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        struct strbuf abs = STRBUF_INIT;
        int is_file = 0;
        if (a[0] == '@' && a[1]) { /* ld takes a missing @file literally */
            path_absolute(cwd, a + 1, &abs);
            is_file = plat_file_exists(sb_str(&abs));
            sb_release(&abs);
        }
        if (!is_file) {
            sv_push(out, a);
            continue;
        }
        struct strvec args = STRVEC_INIT;
        int rc = options_file_read(cwd, a + 1, depth, from, RSP_GCC, &args, err);
        if (!rc)
            rc = expand(cwd, (int)args.n, sv_argv(&args), depth + 1, a + 1, out, err);
        sv_clear(&args);
        if (rc)
            return rc;
    }
    return EXIT_OK;
}

/* The value of option name ("-o", "-L") in argv[*i]: the next argument, the rest of this
 * one ("-ofoo", "-L/x"), or after '=' for the long forms given in longname. */
static const char *value_of(char *const *v, size_t n, size_t *i, const char *name,
                            const char *longname)
{
    const char *a = v[*i];
    if (!a)
        return NULL;
    size_t k = strlen(name);
    if (!strncmp(a, name, k)) {
        if (a[k])
            return a + k;
        if (*i + 1 < n)
            return v[++*i];
        return NULL;
    }
    if (longname) {
        k = strlen(longname);
        if (!strncmp(a, longname, k) && a[k] == '=')
            return a + k + 1;
        if (!strcmp(a, longname) && *i + 1 < n)
            return v[++*i];
    }
    return NULL;
}

/* Options whose value is the next argument and names no input. */
static int takes_value(const char *a)
{
    static const char *const opts[] = {"-m",
                                       "-z",
                                       "-e",
                                       "-soname",
                                       "-h",
                                       "-rpath",
                                       "-rpath-link",
                                       "-dynamic-linker",
                                       "--dynamic-linker",
                                       "-plugin",
                                       "--plugin",
                                       "-plugin-opt",
                                       "--hash-style",
                                       "--sysroot",
                                       "-Map",
                                       "--version-script",
                                       "-T",
                                       "--script",
                                       "-u",
                                       "--undefined",
                                       "-y",
                                       "--defsym",
                                       "-a",
                                       "-A",
                                       "--build-id",
                                       "--exclude-libs",
                                       "-O",
                                       "-F",
                                       "-f",
                                       "-G",
                                       "-Y",
                                       "--entry",
                                       "--soname"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strcmp(a, opts[i]))
            return 1;
    return 0;
}

struct finder {
    const char *pats[2];
    size_t lens[2];
    unsigned char stub[STUB_OBJECT_MAX];
    char marker[64];
};

/* 1 when path is (or holds) a stub, 2 when it holds the hollow marker, else 0. */
static int hollow_kind(const struct finder *f, const char *cwd, const char *path)
{
    struct strbuf abs = STRBUF_INIT;
    path_absolute(cwd, path, &abs);
    int found = -1;
    int e = plat_file_find(sb_str(&abs), f->pats, f->lens, 2, &found);
    sb_release(&abs);
    return e || found < 0 ? 0 : found + 1;
}

static void note_input(struct link_call *lc, const struct finder *f, const char *cwd,
                       const char *path)
{
    int k = hollow_kind(f, cwd, path);
    if (k && lc->stubs.n < 1000)
        sv_push(&lc->stubs, path);
    if (k && !lc->hollow) {
        lc->hollow = xstrdup(path);
        lc->hollow_is_stub = k == 1;
    }
}

/* -lNAME in the -L directories given so far and later (ld searches them all, then its
 * own, where no project output lives): the first of libNAME.so (unless static_only) and
 * libNAME.a, directory by directory; -l:FILE as named. */
static void note_library(struct link_call *lc, const struct finder *f, const char *cwd,
                         const struct strvec *dirs, const char *name, int static_only)
{
    struct strbuf p = STRBUF_INIT;
    int found = 0;
    for (size_t d = 0; d < dirs->n && !found; d++) {
        const char *exts[] = {".so", ".a"};
        for (size_t k = static_only ? 1 : 0; k < 2 && !found; k++) {
            sb_reset(&p);
            if (name[0] == ':')
                sb_addf(&p, "%s/%s", dirs->v[d], name + 1);
            else
                sb_addf(&p, "%s/lib%s%s", dirs->v[d], name, exts[k]);
            found = plat_file_exists(sb_str(&p));
        }
    }
    if (found) /* the one ld takes */
        note_input(lc, f, cwd, sb_str(&p));
    sb_release(&p);
}

static void finder_init(struct finder *f)
{
    size_t sn = stub_object(f->stub);
    size_t mn = marker_text(f->marker, sizeof f->marker);
    f->pats[0] = (const char *)f->stub;
    f->lens[0] = sn;
    f->pats[1] = f->marker;
    f->lens[1] = mn;
}

const char *ldseat_first_hollow(const char *cwd, const struct strvec *paths, int *is_stub)
{
    struct finder f;
    finder_init(&f);
    for (size_t i = 0; i < paths->n; i++) {
        int k = hollow_kind(&f, cwd, paths->v[i]);
        if (k) {
            *is_stub = k == 1;
            return paths->v[i];
        }
    }
    return NULL;
}

int ldseat_inspect(const char *cwd, int argc, char *const *argv, struct link_call *lc,
                   struct strbuf *err)
{
    memset(lc, 0, sizeof *lc);
    int rc = expand(cwd, argc, argv, 0, NULL, &lc->argv, err);
    if (rc)
        return rc;
    struct finder f;
    finder_init(&f);

    char **v = sv_argv(&lc->argv);
    size_t n = lc->argv.n;
    struct strvec dirs = STRVEC_INIT, libs = STRVEC_INIT;
    int static_only = 0;
    lc->mode = LINK_EXE;
    for (size_t i = 0; i < n; i++) {
        const char *a = v[i], *val;
        if (a[0] != '-' || !a[1]) {
            sv_push(&lc->inputs, a);
            note_input(lc, &f, cwd, a);
            continue;
        }
        if (!strcmp(a, "-shared") || !strcmp(a, "--shared") || !strcmp(a, "-Bshareable")) {
            lc->mode = LINK_SHARED;
        } else if (!strcmp(a, "-r") || !strcmp(a, "-i") || !strcmp(a, "--relocatable")) {
            lc->mode = LINK_RELOC;
        } else if (!strcmp(a, "-Bstatic") || !strcmp(a, "-static") || !strcmp(a, "-dn") ||
                   !strcmp(a, "-non_shared")) {
            static_only = 1;
        } else if (!strcmp(a, "-Bdynamic") || !strcmp(a, "-dy") || !strcmp(a, "-call_shared")) {
            static_only = 0;
        } else if ((val = value_of(v, n, &i, "-o", "--output")) != NULL) {
            free(lc->output);
            lc->output = xstrdup(val);
        } else if ((val = value_of(v, n, &i, "-L", "--library-path")) != NULL) {
            sv_push(&dirs, val);
        } else if ((val = value_of(v, n, &i, "-l", "--library")) != NULL) {
            /* resolved after the loop: -L applies to every -l, wherever it stands */
            struct strbuf t = STRBUF_INIT;
            sb_addf(&t, "%c%s", static_only ? 's' : 'd', val);
            sv_push_owned(&libs, sb_detach(&t));
        } else if (takes_value(a) && i + 1 < n) {
            i++;
        }
    }
    for (size_t k = 0; k < libs.n; k++)
        note_library(lc, &f, cwd, &dirs, libs.v[k] + 1, libs.v[k][0] == 's');
    if (!lc->output)
        lc->output = xstrdup("a.out");
    sv_clear(&dirs);
    sv_clear(&libs);
    return EXIT_OK;
}

void link_call_release(struct link_call *lc)
{
    sv_clear(&lc->argv);
    sv_clear(&lc->inputs);
    sv_clear(&lc->stubs);
    free(lc->output);
    free(lc->hollow);
    memset(lc, 0, sizeof *lc);
}

/* Little-endian reads from an ELF file's bytes (x86-64 and aarch64 objects) */
static uint64_t le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* The global symbols of an ELF64 relocatable object b[0..n): the undefined ones that are
 * not of default visibility into undef, the defined ones into def. Anything else (another
 * class, a truncated file, offsets out of range) adds nothing. */
static void elf_symbols(const unsigned char *b, size_t n, struct strvec *undef, struct strvec *def)
{
    if (n < 64 || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 /* ELFCLASS64 */ ||
        b[5] != 1 /* little-endian */ || le(b + 16, 2) != 1 /* ET_REL */)
        return;
    uint64_t shoff = le(b + 40, 8), shentsize = le(b + 58, 2), shnum = le(b + 60, 2);
    if (shentsize < 64 || shoff > n || shnum > (n - shoff) / shentsize)
        return;
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *sh = b + shoff + i * shentsize;
        if (le(sh + 4, 4) != 2 /* SHT_SYMTAB */)
            continue;
        uint64_t off = le(sh + 24, 8), size = le(sh + 32, 8), link = le(sh + 40, 4);
        uint64_t ent = le(sh + 56, 8);
        if (link >= shnum || ent < 24 || off > n || size > n - off)
            return;
        const unsigned char *st = b + shoff + link * shentsize;
        uint64_t soff = le(st + 24, 8), ssize = le(st + 32, 8);
        if (soff > n || ssize > n - soff || ssize == 0 || b[soff + ssize - 1] != 0)
            return;
        const char *strtab = (const char *)b + soff;
        for (uint64_t k = 1; k < size / ent; k++) {
            const unsigned char *sym = b + off + k * ent;
            uint64_t name = le(sym, 4);
            unsigned bind = sym[4] >> 4, vis = sym[5] & 3, shndx = (unsigned)le(sym + 6, 2);
            if (name >= ssize || !strtab[name] || (bind != 1 && bind != 2)) /* GLOBAL, WEAK */
                continue;
            if (shndx == 0 /* SHN_UNDEF */) {
                if (vis != 0)
                    sv_push(undef, strtab + name);
            } else {
                sv_push(def, strtab + name);
            }
        }
        return;
    }
}

/* elf_symbols over an object file, or over every ELF member of an ar archive */
static void file_symbols(const char *path, struct strvec *undef, struct strvec *def)
{
    const char *text;
    size_t n;
    struct strbuf spare = STRBUF_INIT;
    if (plat_map_file(path, (size_t)4 << 30, &text, &n, &spare) != 0)
        return;
    const unsigned char *b = (const unsigned char *)text;
    if (n >= 8 && !memcmp(b, "!<arch>\n", 8)) {
        for (size_t at = 8; at + 60 <= n;) {
            char sz[11];
            memcpy(sz, b + at + 48, 10);
            sz[10] = '\0';
            char *end;
            unsigned long long m = strtoull(sz, &end, 10);
            if (end == sz || m > n - at - 60)
                break;
            elf_symbols(b + at + 60, (size_t)m, undef, def);
            at += 60 + (size_t)m + (m & 1);
        }
    } else {
        elf_symbols(b, n, undef, def);
    }
    sb_release(&spare);
}

size_t ldseat_hidden_defsyms(const char *cwd, const struct link_call *lc, struct strvec *out)
{
    struct strvec undef = STRVEC_INIT, def = STRVEC_INIT;
    struct strbuf abs = STRBUF_INIT;
    for (size_t i = 0; i < lc->inputs.n; i++) {
        sb_reset(&abs);
        path_absolute(cwd, lc->inputs.v[i], &abs);
        file_symbols(sb_str(&abs), &undef, &def);
    }
    size_t added = 0;
    if (undef.n) {
        qsort(undef.v, undef.n, sizeof *undef.v, cstr_cmp);
        if (def.n)
            qsort(def.v, def.n, sizeof *def.v, cstr_cmp);
        for (size_t i = 0; i < undef.n; i++) {
            const char *name = undef.v[i];
            if ((i && !strcmp(name, undef.v[i - 1])) ||
                (def.n && bsearch(&name, def.v, def.n, sizeof *def.v, cstr_cmp)))
                continue;
            struct strbuf a = STRBUF_INIT;
            sb_addf(&a, "--defsym=%s=0", name);
            sv_push_owned(out, sb_detach(&a));
            added++;
        }
    }
    sv_clear(&undef);
    sv_clear(&def);
    sb_release(&abs);
    return added;
}

void ldseat_hollow_args(const char *marker_path, struct strvec *out)
{
    sv_push(out, marker_path);
    sv_push(out, "--unresolved-symbols=ignore-all");
    sv_push(out, "--allow-shlib-undefined");
}

/* s quoted for sh between single quotes */
static void sh_quote(struct strbuf *out, const char *s)
{
    sb_addc(out, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            sb_adds(out, "'\\''");
        else
            sb_addc(out, *s);
    }
    sb_addc(out, '\'');
}

void ldseat_placeholder(const char *output, int shard, int count, const char *hollow,
                        struct strbuf *out)
{
    struct strbuf msg = STRBUF_INIT;
    sb_addf(&msg,
            "shardcc: %s is a placeholder: shard %d/%d linked it from stub objects (%s is "
            "one: other shards compile its code), so it cannot run in this shard. If the "
            "build runs it (a code generator, a test), pin the sources it is built from so "
            "that every shard compiles them: shardcc shard --pin 'GLOB' (repeatable; the "
            "package file's pin: list; the action's pin input). The link job builds the real "
            "program.",
            path_basename(output), shard, count, path_basename(hollow));
    sb_adds(out, "#!/bin/sh\n# shardcc placeholder: linked in a shard from stub objects\n");
    sb_adds(out, "echo ");
    sh_quote(out, sb_str(&msg));
    sb_adds(out, " >&2\nexit 1\n");
    sb_release(&msg);
}
