/* rsp: response ("options") files and flag strings split into arguments, with the
 * quoting rules of the tool that would read them. Reads no files itself. */
#ifndef SHARDCC_RSP_H
#define SHARDCC_RSP_H

#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

enum rsp_syntax {
    /* nvcc --options-file, NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS: whitespace separates,
     * "..." groups, a backslash takes the next character literally, ' is an ordinary
     * character (measured with nvcc 13.0). */
    RSP_NVCC,
    /* gcc/clang @file (libiberty's buildargv): whitespace separates, '...' and "..."
     * group, a backslash takes the next character literally. */
    RSP_GCC,
    /* cl and clang-cl @file, as the Microsoft C runtime splits a command line: whitespace
     * separates, "..." groups ("" inside quotes is one "), 2N backslashes before a " are
     * N and the " quotes, 2N+1 are N and a literal "; other backslashes are literal. */
    RSP_MSVC,
};

void rsp_split(const char *text, size_t len, enum rsp_syntax syntax, struct strvec *out);
/* An options file's text as cl reads it, into out as UTF-8: UTF-16LE after its byte order
 * mark FF FE (what MSBuild and CMake write for cl), UTF-8 without its mark EF BB BF, else
 * as it is. A lone surrogate becomes U+FFFD. */
void rsp_msvc_text(const char *text, size_t len, struct strbuf *out);

#endif
