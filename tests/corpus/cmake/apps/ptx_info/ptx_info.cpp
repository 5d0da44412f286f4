// ptx_info: the embedded PTX names its kernels (.entry) and the PTX version it needs.
#include <cstdio>
#include <cstring>
#include <string>

extern "C" const unsigned char corpus_kernels_ptx[];
extern "C" const unsigned long corpus_kernels_ptx_size;

int main()
{
    std::string ptx(reinterpret_cast<const char *>(corpus_kernels_ptx), corpus_kernels_ptx_size);
    int entries = 0;
    for (size_t p = 0; (p = ptx.find(".entry ", p)) != std::string::npos; p++)
        entries++;
    bool fill = ptx.find("corpus_ptx_fill") != std::string::npos;
    bool square = ptx.find("corpus_ptx_square") != std::string::npos;
    std::printf("ptx_info: %lu bytes, %d entries, %s\n", corpus_kernels_ptx_size, entries,
                ptx.find(".version") != std::string::npos ? "has .version" : "NO .version");
    return !(entries == 2 && fill && square);
}
