/* stub: what a non-owner leaves behind for a TU it does not compile: the stub object at
 * the output path and, when the call asked for one, a depfile "TARGETS:" with no
 * prerequisites. Both are written atomically (temporary file + rename). */
#ifndef SHARDCC_STUB_H
#define SHARDCC_STUB_H

#include "classify.h"

/* The stub object of the system the seat was built for: ELF (stub_elf.h) on Linux,
 * COFF (stub_coff.h) on Windows. STUB_OBJECT_MAX bytes at most. */
#define STUB_OBJECT_MAX 512
size_t stub_object(unsigned char *buf);
/* The same object with a comment section holding comment[0..len), which linkers carry into
 * what they link (ldseat's marker); 0 when it would not fit in cap bytes. */
size_t stub_object_comment(unsigned char *buf, size_t cap, const char *comment, size_t len);

/* The depfile text for call (targets joined by spaces, then ":\n"). */
void stub_depfile_text(const struct call *call, struct strbuf *out);
/* Writes the stub files for call. EXIT_OK, or EXIT_IO with a message naming the file. */
int stub_write(const struct call *call, struct strbuf *err);

#endif
