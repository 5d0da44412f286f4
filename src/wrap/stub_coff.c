/* stub_coff: builds the COFF stub byte by byte (see stub_coff.h). The layout, from the PE
 * format's specification (learn.microsoft.com, "PE Format"): the 20-byte file header, the
 * 40-byte section headers, the raw data, the symbol table (18-byte records) and the string
 * table (its 4-byte size first; 4 when empty). Little-endian, whatever this host is. */
#include "stub_coff.h"

#include <string.h>

enum {
    FILE_HEADER = 20,
    SECTION_HEADER = 40,
    SYMBOL = 18,
    SYM_ABSOLUTE = 0xFFFF, /* IMAGE_SYM_ABSOLUTE (-1) */
    CLASS_STATIC = 3,      /* IMAGE_SYM_CLASS_STATIC */
    /* IMAGE_SCN_CNT_INITIALIZED_DATA | IMAGE_SCN_ALIGN_1BYTES | IMAGE_SCN_MEM_READ */
    COMMENT_FLAGS = 0x00000040 | 0x00100000 | 0x40000000,
};

static void put16(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)((v >> 8) & 0xff);
}

static void put32(unsigned char *p, unsigned long v)
{
    put16(p, (unsigned)(v & 0xffff));
    put16(p + 2, (unsigned)((v >> 16) & 0xffff));
}

static size_t build(unsigned char *buf, size_t cap, int machine, const char *comment, size_t clen)
{
    unsigned nsec = clen ? 1 : 0;
    size_t off_data = FILE_HEADER + nsec * SECTION_HEADER;
    size_t off_sym = off_data + clen;
    size_t total = off_sym + SYMBOL + 4;
    if (total > cap)
        return 0;
    memset(buf, 0, total);
    put16(buf, (unsigned)machine);
    put16(buf + 2, nsec);
    /* TimeDateStamp (4..8) stays 0: the same bytes on every call */
    put32(buf + 8, (unsigned long)off_sym);
    put32(buf + 12, 1); /* one symbol */
    if (clen) {
        unsigned char *sh = buf + FILE_HEADER;
        static const unsigned char comment_name[8] = {'.', 'c', 'o', 'm', 'm', 'e', 'n', 't'};
        memcpy(sh, comment_name, sizeof comment_name); /* 8 bytes: no NUL after it */
        put32(sh + 16, (unsigned long)clen);           /* SizeOfRawData */
        put32(sh + 20, (unsigned long)off_data);       /* PointerToRawData */
        put32(sh + 36, COMMENT_FLAGS);
        memcpy(buf + off_data, comment, clen);
    }
    unsigned char *sym = buf + off_sym;
    static const unsigned char feat[8] = {'@', 'f', 'e', 'a', 't', '.', '0', '0'};
    memcpy(sym, feat, sizeof feat);
    if (machine == COFF_MACHINE_I386)
        put32(sym + 8, 1); /* /SAFESEH: no exception handlers to register */
    put16(sym + 12, SYM_ABSOLUTE);
    sym[16] = CLASS_STATIC;
    put32(sym + SYMBOL, 4); /* the string table: its size alone */
    return total;
}

const char *stub_coff_name(int machine)
{
    return machine == COFF_MACHINE_ARM64  ? "coff-arm64"
           : machine == COFF_MACHINE_I386 ? "coff-x86"
                                          : "coff-x64";
}

size_t stub_coff_build(unsigned char *buf, int machine)
{
    memset(buf, 0, STUB_COFF_MAX);
    return build(buf, STUB_COFF_MAX, machine, NULL, 0);
}

size_t stub_coff_build_comment(unsigned char *buf, size_t cap, int machine, const char *comment,
                               size_t len)
{
    return build(buf, cap, machine, comment, len);
}
