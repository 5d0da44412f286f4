// crc_check: the CRC-32 of the standard test vector (the generated table is right) and of
// a device-made pattern, on the CPU and the GPU.
#include "corpus/common.h"
#include "corpus/core.h"

#include <vector>

void crc_check_pattern(unsigned char *host, int n, bool cpu);
int crc_check_vector(bool cpu);

int main(int argc, char **argv)
{
    bool cpu = corpus_cpu_only(argc, argv);
    int rc = crc_check_vector(cpu);
    std::vector<unsigned char> buf(10000);
    crc_check_pattern(buf.data(), (int)buf.size(), cpu);
    uint32_t a = corpus_crc32_cpu(buf.data(), buf.size());
    uint32_t b = cpu ? a : corpus_crc32_gpu(buf.data(), buf.size());
    std::printf("crc32(pattern) = %08x / %08x\n", a, b);
    return rc | (a != b);
}
