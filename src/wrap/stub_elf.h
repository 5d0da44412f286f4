/* stub_elf: the stub object a non-owner writes instead of compiling: an ELF64
 * relocatable (ET_REL) for the host machine with no symbols, made in code. */
#ifndef SHARDCC_STUB_ELF_H
#define SHARDCC_STUB_ELF_H

#include <stddef.h>

#define STUB_ELF_MAX 512

/* The e_machine of the machine this wrapper was built for (EM_X86_64, EM_AARCH64). */
int stub_host_machine(void);
/* Writes the object for machine into buf (at least STUB_ELF_MAX bytes); returns its size. */
size_t stub_elf_build(unsigned char *buf, int machine);
/* The same object with a .comment section holding comment[0..len) (NUL-terminated strings,
 * as compilers write theirs): linkers keep .comment in what they link. Returns its size,
 * or 0 when it would not fit in cap bytes. */
size_t stub_elf_build_comment(unsigned char *buf, size_t cap, int machine, const char *comment,
                              size_t len);

#endif
