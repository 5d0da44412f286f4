// crc_check's host side: the check of the standard CRC-32 test vector.
#include "corpus/core.h"

#include <cstdio>
#include <cstring>

int crc_check_vector(bool cpu)
{
    const char *v = "123456789";
    const unsigned char *p = reinterpret_cast<const unsigned char *>(v);
    uint32_t got = cpu ? corpus_crc32_cpu(p, std::strlen(v)) : corpus_crc32_gpu(p, std::strlen(v));
    std::printf("crc32(\"%s\") = %08x (want cbf43926), %s\n", v, got, corpus_version());
    return got != 0xcbf43926u;
}
