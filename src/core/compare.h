/* compare: "the same bytes". Two build products are the same when they are equal after
 * masking nvcc's per-run temporary names (tmpxft_<8 hex>_<8 hex>) and the process id that
 * ends the module id of a TU with no external entity (_<hex>_<L>_<file>_<hex>_<pid>; the
 * symbol hash tables .gnu.hash and .hash, which hash the names holding it, are blanked
 * then), and blanking the GNU build-id note the linker computes over them. Objects and shared
 * libraries (ELF), static libraries (ar, member by member) and wheels (zip, member by
 * member; RECORD hashes of members that differ only by masked names are ignored). */
#ifndef SHARDCC_COMPARE_H
#define SHARDCC_COMPARE_H

#include <stddef.h>

#include "strbuf.h"

/* compare_files' modes: byte for byte (nothing masked or blanked: shardcc compare --exact),
 * and with CMP_EXACT, the time stamps of Windows objects and images still blanked
 * (blank_pe_stamps: what cl, clang-cl, link.exe and lld-link write anew on every run,
 * unless /Brepro); without CMP_EXACT they always are. */
enum { CMP_EXACT = 1, CMP_STAMPS = 2 };

struct cmp_result {
    int exact;  /* byte for byte: nothing masked or blanked (shardcc compare --exact) */
    int stamps; /* Windows time stamps blanked (always when !exact) */
    int same;
    size_t stamped;     /* Windows objects and images whose stamps were blanked */
    size_t masked;      /* temp names masked in A */
    size_t masked_ids;  /* images whose module ids' process ids were masked */
    size_t members;     /* members compared (archives and wheels) */
    struct strbuf diff; /* where the first difference is, when !same */
};

/* Masks tmpxft names in place; returns how many. */
size_t mask_tmpxft(unsigned char *buf, size_t len);
/* Blanks the contents of .note.gnu.build-id in an ELF64 image; returns 1 when found. */
int blank_build_id(unsigned char *buf, size_t len);
/* Blanks what a Windows build writes anew on every run: a COFF object's TimeDateStamp
 * (clang-cl and cl without /Brepro), an import object's, and in a PE image (.dll, .exe,
 * .pyd) the file header's stamp, the checksum, the export directory's stamp and the debug
 * directory's stamps, CodeView GUID and age, and REPRO hash. 1 when it recognised one. */
int blank_pe_stamps(unsigned char *buf, size_t len);

/* Compares two in-memory images of the same name (for messages), as r->exact says. */
void compare_buffers(const char *what, unsigned char *a, size_t alen, unsigned char *b, size_t blen,
                     struct cmp_result *r);
/* Compares two files in mode (CMP_EXACT, CMP_STAMPS). 0, or 4 with a message in err
 * (unreadable input). */
int compare_files(const char *a, const char *b, int mode, struct cmp_result *r, struct strbuf *err);

#endif
