/* compare: normalising and comparing build products (see compare.h). */
#include "compare.h"
#include "exit_status.h"
#include "platform.h"

#include <archive.h>
#include <archive_entry.h>
#include "elf_defs.h"
#include <stdlib.h>
#include <string.h>

/* A wheel member larger than this is compared as a stream, a window at a time, so that
 * compare's memory stays bounded whatever the members' sizes (a 1 MB wheel can hold a
 * 1 GiB member of zeros). */
#define STREAM_MIN (16u << 20)
#define STREAM_WINDOW (1u << 20)
/* a tmpxft name is 24 bytes: a window keeps back the last 23, which a name could start in */
#define TMPXFT_LEN 24

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

size_t mask_tmpxft(unsigned char *buf, size_t len)
{
    static const char pat[] = "tmpxft_";
    size_t n = 0;
    for (size_t i = 0; i + 7 + 17 <= len; i++) {
        if (buf[i] != 't' || memcmp(buf + i, pat, 7) != 0)
            continue;
        unsigned char *h = buf + i + 7;
        int ok = h[8] == '_';
        for (int k = 0; ok && k < 17; k++)
            if (k != 8 && !is_hex(h[k]))
                ok = 0;
        if (!ok)
            continue;
        for (int k = 0; k < 17; k++)
            if (k != 8)
                h[k] = 'X';
        n++;
        i += 7 + 16;
    }
    return n;
}

/* The length of a module id of nvcc's for a TU with no external entity at p (room bytes
 * there): _<8 hex>_<L>_<file, L bytes>_<8 hex>_<cudafe++'s process id>; *digits is where
 * the process id starts. 0 when p holds none. */
static size_t module_id_at(const unsigned char *p, size_t room, size_t *digits)
{
    if (room < 14 || p[0] != '_' || p[9] != '_')
        return 0;
    for (size_t k = 1; k < 9; k++)
        if (!is_hex(p[k]))
            return 0;
    size_t L = 0, at = 10;
    while (at < room && p[at] >= '0' && p[at] <= '9' && L < 100000)
        L = L * 10 + (size_t)(p[at++] - '0');
    if (at == 10 || at >= room || p[at] != '_' || L > room || at + 1 + L + 11 > room)
        return 0;
    const unsigned char *t = p + at + 1 + L; /* _<8 hex>_<digits> */
    if (t[0] != '_' || t[9] != '_')
        return 0;
    for (size_t k = 1; k < 9; k++)
        if (!is_hex(t[k]))
            return 0;
    size_t d = 10;
    while (t + d < p + room && t[d] >= '0' && t[d] <= '9')
        d++;
    if (d == 10)
        return 0;
    *digits = (size_t)(t + 10 - p);
    return (size_t)(t + d - p);
}

/* Masks the per-run number at the end of nvcc's module ids of TUs with no external entity
 * (module_id_at): the digits become '0', so ids of the same length compare equal. How
 * many. */
static size_t mask_module_ids(unsigned char *buf, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i + 14 <= len; i++) {
        size_t d, l = buf[i] == '_' ? module_id_at(buf + i, len - i, &d) : 0;
        if (!l)
            continue;
        memset(buf + i + d, '0', l - d);
        n++;
        i += l - 1;
    }
    return n;
}

static const Elf64_Shdr *elf_sections(const unsigned char *buf, size_t len, size_t *n,
                                      const char **names, size_t *names_len)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(buf, ELFMAG, SELFMAG) != 0 ||
        buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
        (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
        return NULL;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    const Elf64_Shdr *str = &sh[eh->e_shstrndx];
    if (str->sh_offset > len || str->sh_size > len - str->sh_offset)
        return NULL;
    *n = eh->e_shnum;
    *names = (const char *)buf + str->sh_offset;
    *names_len = str->sh_size;
    return sh;
}

static const char *section_name(const char *names, size_t names_len, Elf64_Word off)
{
    if (off >= names_len || !memchr(names + off, '\0', names_len - off))
        return "?";
    return names + off;
}

/* Zeroes the contents of the ELF64 image's section named name; 1 when found. */
static int blank_section(unsigned char *buf, size_t len, const char *name)
{
    size_t n, nl;
    const char *names;
    const Elf64_Shdr *sh = elf_sections(buf, len, &n, &names, &nl);
    if (!sh || ((uintptr_t)sh % _Alignof(Elf64_Shdr)) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(section_name(names, nl, sh[i].sh_name), name) != 0)
            continue;
        if (sh[i].sh_type == SHT_NOBITS || sh[i].sh_offset > len ||
            sh[i].sh_size > len - sh[i].sh_offset)
            return 0;
        memset(buf + sh[i].sh_offset, 0, sh[i].sh_size);
        return 1;
    }
    return 0;
}

int blank_build_id(unsigned char *buf, size_t len)
{
    return blank_section(buf, len, ".note.gnu.build-id");
}

static unsigned rd16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static size_t rd32(const unsigned char *p)
{
    return rd16(p) | (size_t)rd16(p + 2) << 16;
}

static int zero(unsigned char *buf, size_t len, size_t off, size_t n)
{
    if (off > len || n > len - off)
        return 0;
    memset(buf + off, 0, n);
    return 1;
}

/* The file offset of an image's RVA, through its section table, or 0. */
static size_t pe_offset(const unsigned char *buf, size_t len, size_t sections, unsigned nsec,
                        size_t rva)
{
    for (unsigned i = 0; i < nsec; i++) {
        size_t sh = sections + (size_t)i * 40;
        if (sh > len || 40 > len - sh)
            return 0;
        size_t va = rd32(buf + sh + 12), raw = rd32(buf + sh + 16), ptr = rd32(buf + sh + 20);
        if (rva >= va && rva - va < raw)
            return ptr + (rva - va);
    }
    return 0;
}

int blank_pe_stamps(unsigned char *buf, size_t len)
{
    if (len < 20)
        return 0;
    unsigned m = rd16(buf);
    /* a bigobj object or a short import object (an import library's members) */
    if (m == 0 && rd16(buf + 2) == 0xFFFF)
        return zero(buf, len, 8, 4);
    if (m == 0x8664 || m == 0xAA64 || m == 0x14C || m == 0x1C4) { /* an object */
        if (rd16(buf + 16) != 0 || rd16(buf + 2) > 0x2000 || rd32(buf + 8) > len)
            return 0; /* an optional header, or not an object at all */
        return zero(buf, len, 4, 4);
    }
    if (m != 0x5A4D || len < 0x40) /* "MZ" */
        return 0;
    size_t pe = rd32(buf + 0x3C);
    if (pe > len || len - pe < 24 || memcmp(buf + pe, "PE\0\0", 4) != 0)
        return 0;
    unsigned nsec = rd16(buf + pe + 6), optsize = rd16(buf + pe + 20);
    size_t opt = pe + 24, sections = opt + optsize;
    if (sections > len || optsize < 96)
        return 0;
    unsigned magic = rd16(buf + opt);
    size_t dirs = opt + (magic == 0x20B ? 112 : 96);
    int any = zero(buf, len, pe + 8, 4); /* the file header's TimeDateStamp */
    any |= zero(buf, len, opt + 64, 4);  /* the checksum, over the stamps */
    /* the export directory's stamp (directory 0) */
    if (dirs + 8 <= sections && rd32(buf + dirs + 4)) {
        size_t off = pe_offset(buf, len, sections, nsec, rd32(buf + dirs));
        if (off)
            any |= zero(buf, len, off + 4, 4);
    }
    /* the debug directory (6): each entry's stamp, CodeView's GUID and age (the PDB's
     * identity, new on every link), a /Brepro link's hash */
    if (dirs + 7 * 8 <= sections) {
        size_t off = pe_offset(buf, len, sections, nsec, rd32(buf + dirs + 48)),
               size = rd32(buf + dirs + 52);
        for (size_t e = 0; off && e + 28 <= size && off + e + 28 <= len; e += 28) {
            const unsigned char *d = buf + off + e;
            size_t type = rd32(d + 12), dlen = rd32(d + 16), dptr = rd32(d + 24);
            any |= zero(buf, len, off + e + 4, 4);
            if (type == 2 && dlen >= 24 && dptr <= len - 4 && !memcmp(buf + dptr, "RSDS", 4))
                any |= zero(buf, len, dptr + 4, 20);
            else if (type == 16)
                any |= zero(buf, len, dptr, dlen);
        }
    }
    return any;
}

/* "section .text, offset 0x40 (file offset 0x1040)" for an ELF image, else the offset. */
static void describe_offset(const unsigned char *buf, size_t len, size_t off, struct strbuf *out)
{
    size_t n, nl;
    const char *names;
    const Elf64_Shdr *sh = elf_sections(buf, len, &n, &names, &nl);
    if (sh && ((uintptr_t)sh % _Alignof(Elf64_Shdr)) == 0) {
        for (size_t i = 1; i < n; i++) {
            if (sh[i].sh_type != SHT_NOBITS && off >= sh[i].sh_offset &&
                off - sh[i].sh_offset < sh[i].sh_size) {
                sb_addf(out, "section %s, offset 0x%zx (file offset 0x%zx)",
                        section_name(names, nl, sh[i].sh_name), off - (size_t)sh[i].sh_offset, off);
                return;
            }
        }
        if (off < sizeof(Elf64_Ehdr)) {
            sb_addf(out, "the ELF header, offset 0x%zx", off);
            return;
        }
    }
    sb_addf(out, "offset 0x%zx", off);
}

/* What is at offset off of a: a temporary name or a module id that reaches across it */
static void describe_bytes(const unsigned char *a, size_t alen, size_t off, struct strbuf *out)
{
    size_t from = off > 40 ? off - 40 : 0;
    for (size_t i = from; i <= off && i + 24 <= alen; i++)
        if (!memcmp(a + i, "tmpxft_", 7) && off < i + 24) {
            sb_addf(out, " (in nvcc's temporary name %.24s)", (const char *)a + i);
            return;
        }
    size_t back = off > 400 ? off - 400 : 0;
    for (size_t i = back; i <= off; i++) {
        size_t d, l = a[i] == '_' ? module_id_at(a + i, alen - i, &d) : 0;
        if (l && off < i + l) {
            sb_addf(out, " (in the module id %.*s, whose last number is cudafe++'s process id)",
                    (int)l, (const char *)a + i);
            return;
        }
    }
}

/* For two ELF images: names the first section (in A's order) whose contents differ from the
 * section of the same name in B, the build-id note only when no other does (the linker
 * computes it over the rest, so it differs whenever they do). 0 when the sections agree
 * (or the images are not ELF). */
static int first_differing_section_of(const unsigned char *a, size_t alen, const unsigned char *b,
                                      size_t blen, int build_id, struct strbuf *out);

static int first_differing_section(const unsigned char *a, size_t alen, const unsigned char *b,
                                   size_t blen, struct strbuf *out)
{
    return first_differing_section_of(a, alen, b, blen, 0, out) ||
           first_differing_section_of(a, alen, b, blen, 1, out);
}

static int first_differing_section_of(const unsigned char *a, size_t alen, const unsigned char *b,
                                      size_t blen, int build_id, struct strbuf *out)
{
    size_t na, nb, la, lb;
    const char *sa, *sb;
    const Elf64_Shdr *ha = elf_sections(a, alen, &na, &sa, &la);
    const Elf64_Shdr *hb = elf_sections(b, blen, &nb, &sb, &lb);
    if (!ha || !hb || ((uintptr_t)ha % _Alignof(Elf64_Shdr)) ||
        ((uintptr_t)hb % _Alignof(Elf64_Shdr)))
        return 0;
    for (size_t i = 1; i < na; i++) {
        const char *name = section_name(sa, la, ha[i].sh_name);
        if ((strcmp(name, ".note.gnu.build-id") == 0) != build_id)
            continue;
        /* names repeat (.group, .text.X of COMDAT groups): the j-th of a name in A is
         * matched with the j-th of that name in B */
        size_t nth = 0, seen = 0;
        for (size_t k = 1; k < i; k++)
            nth += !strcmp(section_name(sa, la, ha[k].sh_name), name);
        const Elf64_Shdr *o = NULL;
        for (size_t k = 1; k < nb && !o; k++)
            if (!strcmp(section_name(sb, lb, hb[k].sh_name), name) && seen++ == nth)
                o = &hb[k];
        char label[32] = "";
        if (nth)
            snprintf(label, sizeof label, " (number %zu of that name)", nth + 1);
        if (!o) {
            sb_addf(out, "section %s%s is only in A", name, label);
            return 1;
        }
        int nobits = ha[i].sh_type == SHT_NOBITS || o->sh_type == SHT_NOBITS;
        if (ha[i].sh_size != o->sh_size) {
            sb_addf(out, "section %s%s: sizes differ (%zu and %zu bytes)", name, label,
                    (size_t)ha[i].sh_size, (size_t)o->sh_size);
            return 1;
        }
        if (nobits || ha[i].sh_offset > alen || ha[i].sh_size > alen - ha[i].sh_offset ||
            o->sh_offset > blen || o->sh_size > blen - o->sh_offset)
            continue;
        const unsigned char *pa = a + ha[i].sh_offset, *pb = b + o->sh_offset;
        for (size_t k = 0; k < ha[i].sh_size; k++) {
            if (pa[k] != pb[k]) {
                sb_addf(out, "section %s%s, offset 0x%zx", name, label, k);
                describe_bytes(a, alen, (size_t)ha[i].sh_offset + k, out);
                return 1;
            }
        }
    }
    return 0;
}

static int is_ar(const unsigned char *b, size_t n)
{
    return n >= 8 && memcmp(b, "!<arch>\n", 8) == 0;
}

static int is_zip(const unsigned char *b, size_t n)
{
    return n >= 4 && memcmp(b, "PK\x03\x04", 4) == 0;
}

/* Blanks the GNU build-id note found through the program headers (PT_NOTE) in the first
 * len bytes of an ELF64 image: a streamed member has no section table at hand (it is at
 * the end), but the notes lie in its first page. 1 when blanked. */
static int blank_build_id_prefix(unsigned char *buf, size_t len)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(buf, ELFMAG, SELFMAG) != 0 ||
        buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB)
        return 0;
    Elf64_Ehdr eh;
    memcpy(&eh, buf, sizeof eh);
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > len ||
        (len - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum)
        return 0;
    for (size_t i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, buf + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_NOTE || ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
            continue;
        size_t off = ph.p_offset, end = ph.p_offset + ph.p_filesz;
        while (end - off >= sizeof(Elf64_Nhdr)) {
            Elf64_Nhdr nh;
            memcpy(&nh, buf + off, sizeof nh);
            size_t name = off + sizeof nh, namesz = (nh.n_namesz + 3u) & ~3u;
            size_t descsz = (nh.n_descsz + 3u) & ~3u;
            if (namesz > end - name || descsz > end - name - namesz)
                break;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(buf + name, "GNU", 4)) {
                memset(buf + name + namesz, 0, nh.n_descsz);
                return 1;
            }
            off = name + namesz + descsz;
        }
    }
    return 0;
}

/* One side of a streamed member: the archive positioned at the member, and a window of
 * its bytes not compared yet. */
struct stream {
    struct archive *a;
    unsigned char *buf;
    size_t len, cap;
    int eof, failed;
};

static int stream_open(struct stream *s, const char *path, const char *member)
{
    memset(s, 0, sizeof *s);
    s->a = archive_read_new();
    archive_read_support_format_zip(s->a);
    if (archive_read_open_filename(s->a, path, 1 << 16) != ARCHIVE_OK)
        return -1;
    struct archive_entry *ae;
    while (archive_read_next_header(s->a, &ae) == ARCHIVE_OK) {
        const char *n = archive_entry_pathname(ae);
        if (n && !strcmp(n, member)) {
            s->cap = 2 * STREAM_WINDOW;
            s->buf = xmalloc(s->cap);
            return 0;
        }
        if (archive_read_data_skip(s->a) != ARCHIVE_OK)
            return -1;
    }
    return -1;
}

/* Reads until the window holds at least want bytes or the member ends. */
static void stream_fill(struct stream *s, size_t want)
{
    while (!s->eof && !s->failed && s->len < want) {
        if (s->cap - s->len < 65536) {
            s->cap *= 2;
            s->buf = xrealloc(s->buf, s->cap);
        }
        la_ssize_t got = archive_read_data(s->a, s->buf + s->len, s->cap - s->len);
        if (got < 0)
            s->failed = 1;
        else if (got == 0)
            s->eof = 1;
        else
            s->len += (size_t)got;
    }
}

static void stream_close(struct stream *s)
{
    if (s->a)
        archive_read_free(s->a);
    free(s->buf);
}

/* Compares member `name` of the wheels a and b a window at a time (tmpxft names masked,
 * the build-id blanked) in bounded memory. Sets *masked_any when masking changed a byte. */
static void compare_streamed(const char *what, const char *a, const char *b, const char *name,
                             struct cmp_result *r, int *masked_any, struct strbuf *err)
{
    struct stream sa, sb;
    int ea = stream_open(&sa, a, name), eb = stream_open(&sb, b, name);
    *masked_any = 0;
    if (ea || eb) {
        sb_addf(err, "%s: cannot read member %s again: %s", ea ? a : b, name,
                archive_error_string(ea ? sa.a : sb.a));
        stream_close(&sa);
        stream_close(&sb);
        return;
    }
    size_t off = 0; /* bytes of the member compared so far */
    int first = 1;
    for (;;) {
        stream_fill(&sa, STREAM_WINDOW);
        stream_fill(&sb, STREAM_WINDOW);
        if (sa.failed || sb.failed) {
            sb_addf(err, "%s: member %s: %s", sa.failed ? a : b, name,
                    archive_error_string(sa.failed ? sa.a : sb.a));
            break;
        }
        if (first && !r->exact) {
            *masked_any |= blank_build_id_prefix(sa.buf, sa.len);
            *masked_any |= blank_build_id_prefix(sb.buf, sb.len);
        }
        first = 0;
        size_t ma = r->exact ? 0 : mask_tmpxft(sa.buf, sa.len);
        size_t mb = r->exact ? 0 : mask_tmpxft(sb.buf, sb.len);
        r->masked += ma;
        *masked_any |= ma || mb;
        /* what cannot change any more: all of an ended side, else all but the tail a
         * tmpxft name could start in */
        size_t safe_a = sa.eof ? sa.len : sa.len - (TMPXFT_LEN - 1);
        size_t safe_b = sb.eof ? sb.len : sb.len - (TMPXFT_LEN - 1);
        size_t n = safe_a < safe_b ? safe_a : safe_b, i = 0;
        while (i < n && sa.buf[i] == sb.buf[i])
            i++;
        if (i < n) {
            r->same = 0;
            sb_addf(&r->diff,
                    "%s: differs at byte %zu (a member over %u MiB, compared as a "
                    "stream)",
                    what, off + i, STREAM_MIN >> 20);
            break;
        }
        if (sa.eof && sb.eof && n == sa.len && n == sb.len)
            break; /* the same to the end */
        if ((sa.eof && n == sa.len) || (sb.eof && n == sb.len)) {
            r->same = 0;
            sb_addf(&r->diff, "%s: sizes differ (one ends at byte %zu)", what, off + n);
            break;
        }
        memmove(sa.buf, sa.buf + n, sa.len - n);
        memmove(sb.buf, sb.buf + n, sb.len - n);
        sa.len -= n;
        sb.len -= n;
        off += n;
    }
    stream_close(&sa);
    stream_close(&sb);
}

/* Compares two single images (an object, a library, any file). */
static void compare_plain(const char *what, unsigned char *a, size_t alen, unsigned char *b,
                          size_t blen, struct cmp_result *r)
{
    if (!r->exact) {
        r->masked += mask_tmpxft(a, alen);
        mask_tmpxft(b, blen);
        /* module ids' process ids; the symbol hash tables hash the names they are in */
        if (mask_module_ids(a, alen) + mask_module_ids(b, blen)) {
            r->masked_ids++;
            for (size_t k = 0; k < 2; k++) {
                blank_section(a, alen, k ? ".hash" : ".gnu.hash");
                blank_section(b, blen, k ? ".hash" : ".gnu.hash");
            }
        }
        blank_build_id(a, alen);
        blank_build_id(b, blen);
    }
    if (r->stamps) {
        int x = blank_pe_stamps(a, alen), y = blank_pe_stamps(b, blen);
        r->stamped += x && y;
    }
    size_t n = alen < blen ? alen : blen, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n && alen == blen)
        return;
    r->same = 0;
    sb_addf(&r->diff, "%s%s", what, *what ? ": " : "");
    if (!first_differing_section(a, alen, b, blen, &r->diff)) {
        if (i == n)
            sb_addf(&r->diff, "sizes differ (%zu and %zu bytes)", alen, blen);
        else
            describe_offset(a, alen, i, &r->diff);
    }
    /* byte for byte they differ: do they up to nvcc's per-run names? */
    if (r->exact && alen == blen && alen <= ((size_t)1 << 30)) {
        unsigned char *ca = xmalloc(alen ? alen : 1), *cb = xmalloc(alen ? alen : 1);
        memcpy(ca, a, alen);
        memcpy(cb, b, blen);
        size_t t = mask_tmpxft(ca, alen), m = mask_module_ids(ca, alen);
        mask_tmpxft(cb, blen);
        mask_module_ids(cb, blen);
        blank_build_id(ca, alen);
        blank_build_id(cb, blen);
        if ((t || m) && memcmp(ca, cb, alen) == 0)
            sb_addf(&r->diff,
                    "; they are the same up to nvcc's per-run names (%s%s%s, and the build-id "
                    "computed over them): a step named them at random (nvcc outside the seats, "
                    "or a call the seats' pipeline did not take: see the journal's fallback "
                    "lines); shardcc compare without --exact accepts the pair",
                    t ? "temporary names tmpxft_*" : "", t && m ? ", " : "",
                    m ? "module ids' process ids" : "");
        free(ca);
        free(cb);
    }
}

struct member {
    char *name;
    unsigned char *data;
    size_t len;
    int large; /* a wheel member over STREAM_MIN: not held, compared streaming */
};

static void free_members(struct member *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].name);
        free(m[i].data);
    }
    free(m);
}

/* ar members in order (the symbol table "/" and the long-name table "//" included). */
static int ar_members(const unsigned char *b, size_t len, struct member **out, size_t *n)
{
    size_t off = 8, alloc = 0;
    *out = NULL;
    *n = 0;
    while (off + 60 <= len) {
        const unsigned char *h = b + off;
        char sz[11];
        memcpy(sz, h + 48, 10);
        sz[10] = '\0';
        char *end;
        unsigned long long size = strtoull(sz, &end, 10);
        if (h[58] != '`' || h[59] != '\n' || size > len - off - 60)
            return -1;
        if (*n == alloc)
            *out = xrealloc(*out, (alloc = alloc ? alloc * 2 : 16) * sizeof **out);
        size_t nl = 16;
        while (nl && h[nl - 1] == ' ')
            nl--;
        if (nl > 1 && h[nl - 1] == '/' && h[0] != '/')
            nl--; /* GNU ar ends short names with '/' */
        struct member *m = &(*out)[(*n)++];
        m->name = xstrndup((const char *)h, nl);
        m->len = (size_t)size;
        m->data = xmalloc(m->len ? m->len : 1);
        memcpy(m->data, h + 60, m->len);
        off += 60 + (size_t)size + (size & 1);
    }
    return off == len || off == len + 1 ? 0 : -1;
}

static int is_index_table(const char *name)
{
    return !strcmp(name, "/") || !strcmp(name, "//") || !strcmp(name, "/SYM64/");
}

static void index_tables_last(struct member *m, size_t n)
{
    if (n == 0)
        return;
    struct member *tmp = xmalloc(n * sizeof *tmp);
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (is_index_table(m[i].name) == pass)
                tmp[k++] = m[i];
    memcpy(m, tmp, n * sizeof *m);
    free(tmp);
}

static int zip_members(const char *path, struct member **out, size_t *n, struct strbuf *err)
{
    *out = NULL;
    *n = 0;
    int fd, e = plat_open_regular(path, &fd);
    if (e) {
        sb_addf(err, "%s: %s", path, plat_strerror(e));
        return -1;
    }
    plat_close(fd);
    struct archive *a = archive_read_new();
    archive_read_support_format_zip(a);
    size_t alloc = 0;
    if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
        sb_addf(err, "%s: %s", path, archive_error_string(a));
        archive_read_free(a);
        return -1;
    }
    struct archive_entry *ae;
    int rc = 0, r;
    while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
        if (*n == alloc)
            *out = xrealloc(*out, (alloc = alloc ? alloc * 2 : 64) * sizeof **out);
        struct member *m = &(*out)[(*n)++];
        m->name = xstrdup(archive_entry_pathname(ae) ? archive_entry_pathname(ae) : "");
        m->large = 0;
        struct strbuf d = STRBUF_INIT;
        char buf[65536];
        la_ssize_t got;
        while ((got = archive_read_data(a, buf, sizeof buf)) > 0) {
            if (d.len + (size_t)got > STREAM_MIN) { /* compared later, streaming */
                m->large = 1;
                sb_release(&d);
                got = archive_read_data_skip(a) == ARCHIVE_OK ? 0 : -1;
                break;
            }
            sb_add(&d, buf, (size_t)got);
        }
        if (got < 0) {
            sb_addf(err, "%s: member %s: %s", path, m->name, archive_error_string(a));
            rc = -1;
        }
        m->len = d.len;
        m->data = (unsigned char *)sb_detach(&d);
        if (rc)
            break;
    }
    if (!rc && r != ARCHIVE_EOF) {
        sb_addf(err, "%s: %s", path, archive_error_string(a));
        rc = -1;
    }
    archive_read_free(a);
    return rc;
}

static int cmp_member(const void *x, const void *y)
{
    return strcmp(((const struct member *)x)->name, ((const struct member *)y)->name);
}

static int is_record(const char *name)
{
    size_t n = strlen(name);
    return n > 17 && strcmp(name + n - 17, ".dist-info/RECORD") == 0;
}

/* RECORD lines "path,hash,size": the hash of a member that is the same only up to masking
 * differs as a consequence; blank those hashes in both before comparing. */
static void blank_record_hashes(unsigned char *rec, size_t len, char **names, size_t n)
{
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && rec[e] != '\n')
            e++;
        unsigned char *c1 = memchr(rec + i, ',', e - i);
        unsigned char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(rec + e - c1 - 1)) : NULL;
        if (c1 && c2) {
            for (size_t k = 0; k < n; k++) {
                size_t nl = strlen(names[k]);
                if ((size_t)(c1 - (rec + i)) == nl && memcmp(rec + i, names[k], nl) == 0)
                    memset(c1 + 1, '-', (size_t)(c2 - c1 - 1));
            }
        }
        i = e + 1;
    }
}

/* zip_a, zip_b: the wheels' paths, for members too large to hold (NULL for ar). */
static void compare_member_lists(const char *kind, struct member *ma, size_t na, struct member *mb,
                                 size_t nb, int sorted, const char *zip_a, const char *zip_b,
                                 struct cmp_result *r, struct strbuf *err)
{
    if (sorted && na)
        qsort(ma, na, sizeof *ma, cmp_member);
    if (sorted && nb)
        qsort(mb, nb, sizeof *mb, cmp_member);
    char **masked_only = xmalloc((na ? na : 1) * sizeof *masked_only);
    size_t nmasked = 0;
    size_t i = 0, k = 0;
    for (; i < na && k < nb && r->same; i++, k++) {
        int c = strcmp(ma[i].name, mb[k].name);
        if (c && !sorted) {
            r->same = 0;
            sb_addf(&r->diff, "%s member %zu is %s in A and %s in B", kind, i + 1, ma[i].name,
                    mb[k].name);
            break;
        }
        if (c) {
            r->same = 0;
            sb_addf(&r->diff, "%s member %s is only in %s", kind, c < 0 ? ma[i].name : mb[k].name,
                    c < 0 ? "A" : "B");
            break;
        }
        if (sorted && is_record(ma[i].name))
            continue; /* compared last, once every member's status is known */
        if ((ma[i].large || mb[k].large) && zip_a && zip_b) {
            struct strbuf what = STRBUF_INIT;
            sb_addf(&what, "%s member %s", kind, ma[i].name);
            int masked_any = 0;
            compare_streamed(sb_str(&what), zip_a, zip_b, ma[i].name, r, &masked_any, err);
            sb_release(&what);
            if (err->len)
                break;
            r->members++;
            if (r->same && masked_any)
                masked_only[nmasked++] = ma[i].name;
            continue;
        }
        int raw_equal = ma[i].len == mb[k].len && !memcmp(ma[i].data, mb[k].data, ma[i].len);
        struct strbuf what = STRBUF_INIT;
        sb_addf(&what, "%s member %s", kind, ma[i].name);
        compare_plain(sb_str(&what), ma[i].data, ma[i].len, mb[k].data, mb[k].len, r);
        sb_release(&what);
        r->members++;
        if (r->same && !raw_equal)
            masked_only[nmasked++] = ma[i].name;
    }
    if (r->same && (i < na || k < nb)) {
        r->same = 0;
        sb_addf(&r->diff, "%s member %s is only in %s", kind, i < na ? ma[i].name : mb[k].name,
                i < na ? "A" : "B");
    }
    for (size_t x = 0; r->same && x < na && x < nb; x++) { /* same: na == nb */
        if (!sorted || !is_record(ma[x].name))
            continue;
        blank_record_hashes(ma[x].data, ma[x].len, masked_only, nmasked);
        blank_record_hashes(mb[x].data, mb[x].len, masked_only, nmasked);
        struct strbuf what = STRBUF_INIT;
        sb_addf(&what, "%s member %s", kind, ma[x].name);
        compare_plain(sb_str(&what), ma[x].data, ma[x].len, mb[x].data, mb[x].len, r);
        sb_release(&what);
        r->members++;
    }
    free(masked_only);
}

void compare_buffers(const char *what, unsigned char *a, size_t alen, unsigned char *b, size_t blen,
                     struct cmp_result *r)
{
    if (is_ar(a, alen) && is_ar(b, blen)) {
        struct member *ma, *mb;
        size_t na, nb;
        if (ar_members(a, alen, &ma, &na) == 0 && ar_members(b, blen, &mb, &nb) == 0) {
            /* the symbol and long-name tables follow from the members: compare them last,
             * so that a difference is reported at the member that causes it */
            index_tables_last(ma, na);
            index_tables_last(mb, nb);
            compare_member_lists("archive", ma, na, mb, nb, 0, NULL, NULL, r, NULL);
            free_members(ma, na);
            free_members(mb, nb);
            return;
        }
    }
    compare_plain(what, a, alen, b, blen, r);
}

int compare_files(const char *a, const char *b, int mode, struct cmp_result *r, struct strbuf *err)
{
    memset(r, 0, sizeof *r);
    r->exact = (mode & CMP_EXACT) != 0;
    r->stamps = !r->exact || (mode & CMP_STAMPS);
    r->same = 1;
    struct strbuf da = STRBUF_INIT, db = STRBUF_INIT;
    int e = plat_read_file(a, &da);
    if (e) {
        sb_addf(err, "cannot read \"%s\": %s", a, plat_strerror(e));
        return EXIT_IO;
    }
    e = plat_read_file(b, &db);
    if (e) {
        sb_addf(err, "cannot read \"%s\": %s", b, plat_strerror(e));
        sb_release(&da);
        return EXIT_IO;
    }
    unsigned char *pa = (unsigned char *)(da.buf ? da.buf : ""),
                  *pb = (unsigned char *)(db.buf ? db.buf : "");
    if (is_zip(pa, da.len) && is_zip(pb, db.len)) {
        struct member *ma, *mb;
        size_t na, nb;
        if (zip_members(a, &ma, &na, err) != 0) {
            sb_release(&da);
            sb_release(&db);
            return EXIT_IO;
        }
        if (zip_members(b, &mb, &nb, err) != 0) {
            free_members(ma, na);
            sb_release(&da);
            sb_release(&db);
            return EXIT_IO;
        }
        compare_member_lists("wheel", ma, na, mb, nb, 1, a, b, r, err);
        free_members(ma, na);
        free_members(mb, nb);
        if (err->len) {
            sb_release(&da);
            sb_release(&db);
            return EXIT_IO;
        }
    } else {
        compare_buffers("", pa, da.len, pb, db.len, r);
    }
    sb_release(&da);
    sb_release(&db);
    return 0;
}
