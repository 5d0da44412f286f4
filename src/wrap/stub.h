/* stub: what a non-owner leaves behind for a TU it does not compile: the stub object at
 * the output path and, when the call asked for one, a depfile "TARGETS:" with no
 * prerequisites. Both are written atomically (temporary file + rename). */
#ifndef SHARDCC_STUB_H
#define SHARDCC_STUB_H

#include "classify.h"

/* The depfile text for call (targets joined by spaces, then ":\n"). */
void stub_depfile_text(const struct call *call, struct strbuf *out);
/* Writes the stub files for call. EXIT_OK, or EXIT_IO with a message naming the file. */
int stub_write(const struct call *call, struct strbuf *err);

#endif
