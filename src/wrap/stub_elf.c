/* stub_elf: builds the empty relocatable object byte by byte (no compiler call).
 * Sections: null, .shstrtab, .strtab, .symtab (the null symbol only) and an empty
 * .note.GNU-stack, so linkers neither warn about an executable stack nor need symbols. */
#include "stub_elf.h"

#include "elf_defs.h"
#include <string.h>

int stub_host_machine(void)
{
#if defined(__x86_64__)
    return EM_X86_64;
#elif defined(__aarch64__)
    return EM_AARCH64;
#else
#error "shardcc: stub objects are defined for x86-64 and aarch64 hosts only"
#endif
}

static const char shstrtab[] = "\0.shstrtab\0.strtab\0.symtab\0.note.GNU-stack";
/* the same names, and .comment (names at the same offsets) */
static const char shstrtab_c[] = "\0.shstrtab\0.strtab\0.symtab\0.note.GNU-stack\0.comment";
enum {
    NAME_SHSTRTAB = 1,
    NAME_STRTAB = 11,
    NAME_SYMTAB = 19,
    NAME_GNUSTACK = 27,
    NAME_COMMENT = 43
};

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* The object, with a .comment section holding comment[0..clen) when clen > 0. */
static size_t build(unsigned char *buf, size_t cap, int machine, const char *comment, size_t clen)
{
    const char *names = clen ? shstrtab_c : shstrtab;
    size_t names_len = clen ? sizeof shstrtab_c : sizeof shstrtab;
    int nsec = clen ? 6 : 5;
    size_t off_shstr = sizeof(Elf64_Ehdr);
    size_t off_str = off_shstr + names_len;
    size_t off_sym = align8(off_str + 1);
    size_t off_com = off_sym + sizeof(Elf64_Sym);
    size_t off_sh = align8(off_com + clen);
    size_t total = off_sh + (size_t)nsec * sizeof(Elf64_Shdr);
    if (total > cap)
        return 0;
    memset(buf, 0, total);

    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
    eh.e_type = ET_REL;
    eh.e_machine = (Elf64_Half)machine;
    eh.e_version = EV_CURRENT;
    eh.e_shoff = off_sh;
    eh.e_ehsize = sizeof(Elf64_Ehdr);
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = (Elf64_Half)nsec;
    eh.e_shstrndx = 1;
    memcpy(buf, &eh, sizeof eh);
    memcpy(buf + off_shstr, names, names_len);
    /* .strtab is one NUL byte (already zero); the null symbol is all zeros. */
    if (clen)
        memcpy(buf + off_com, comment, clen);

    Elf64_Shdr sh[6];
    memset(sh, 0, sizeof sh);
    sh[1].sh_name = NAME_SHSTRTAB;
    sh[1].sh_type = SHT_STRTAB;
    sh[1].sh_offset = off_shstr;
    sh[1].sh_size = names_len;
    sh[1].sh_addralign = 1;
    sh[2].sh_name = NAME_STRTAB;
    sh[2].sh_type = SHT_STRTAB;
    sh[2].sh_offset = off_str;
    sh[2].sh_size = 1;
    sh[2].sh_addralign = 1;
    sh[3].sh_name = NAME_SYMTAB;
    sh[3].sh_type = SHT_SYMTAB;
    sh[3].sh_offset = off_sym;
    sh[3].sh_size = sizeof(Elf64_Sym);
    sh[3].sh_link = 2;
    sh[3].sh_info = 1;
    sh[3].sh_addralign = 8;
    sh[3].sh_entsize = sizeof(Elf64_Sym);
    sh[4].sh_name = NAME_GNUSTACK;
    sh[4].sh_type = SHT_PROGBITS;
    sh[4].sh_offset = clen ? off_com : off_sh;
    sh[4].sh_addralign = 1;
    if (clen) { /* as compilers write it: merged strings, kept by linkers in their output */
        sh[5].sh_name = NAME_COMMENT;
        sh[5].sh_type = SHT_PROGBITS;
        sh[5].sh_flags = SHF_MERGE | SHF_STRINGS;
        sh[5].sh_offset = off_com;
        sh[5].sh_size = clen;
        sh[5].sh_addralign = 1;
        sh[5].sh_entsize = 1;
    }
    memcpy(buf + off_sh, sh, (size_t)nsec * sizeof(Elf64_Shdr));
    return total;
}

size_t stub_elf_build(unsigned char *buf, int machine)
{
    memset(buf, 0, STUB_ELF_MAX);
    return build(buf, STUB_ELF_MAX, machine, NULL, 0);
}

size_t stub_elf_build_comment(unsigned char *buf, size_t cap, int machine, const char *comment,
                              size_t len)
{
    return build(buf, cap, machine, comment, len);
}
