/* rsp: response ("options") files and flag strings split into arguments, with the
 * quoting rules of the tool that would read them. Reads no files itself. */
#ifndef SHARDCC_RSP_H
#define SHARDCC_RSP_H

#include <stddef.h>

#include "strvec.h"

enum rsp_syntax {
    /* nvcc --options-file, NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS: whitespace separates,
     * "..." groups, a backslash takes the next character literally, ' is an ordinary
     * character (measured with nvcc 13.0). */
    RSP_NVCC,
    /* gcc/clang @file (libiberty's buildargv): whitespace separates, '...' and "..."
     * group, a backslash takes the next character literally. */
    RSP_GCC,
};

void rsp_split(const char *text, size_t len, enum rsp_syntax syntax, struct strvec *out);

#endif
