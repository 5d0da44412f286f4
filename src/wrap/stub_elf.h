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

#endif
