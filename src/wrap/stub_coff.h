/* stub_coff: the stub object of the Windows seat: a COFF object (.obj) for x64 or ARM64
 * (or x86) with no sections and one symbol, @feat.00 (as MSVC and clang-cl write it for
 * every object; on x86 its bit 0 says the object is safe for /SAFESEH, which link.exe
 * requires of every object of a /SAFESEH image), made in code. link.exe and lld-link take it as an
 * object that defines nothing. */
#ifndef SHARDCC_STUB_COFF_H
#define SHARDCC_STUB_COFF_H

#include <stddef.h>

#define STUB_COFF_MAX 256
#define COFF_MACHINE_AMD64 0x8664
#define COFF_MACHINE_ARM64 0xAA64
#define COFF_MACHINE_I386 0x14C

/* The machine's name in shardcc's output: "coff-x64", "coff-arm64", "coff-x86". */
const char *stub_coff_name(int machine);
/* Writes the object for machine into buf (at least STUB_COFF_MAX bytes); returns its size. */
size_t stub_coff_build(unsigned char *buf, int machine);
/* The same object with a section .comment holding comment[0..len) (initialized, read-only
 * data: linkers carry it into the image they link). Its size, or 0 when over cap bytes. */
size_t stub_coff_build_comment(unsigned char *buf, size_t cap, int machine, const char *comment,
                               size_t len);

#endif
