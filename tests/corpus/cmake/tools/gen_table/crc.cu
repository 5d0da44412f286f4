// The generator's arithmetic: the reflected CRC-32 polynomial's table, computed on the host.
#include <cstdint>

uint32_t gen_crc_entry(uint32_t i)
{
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    return c;
}
