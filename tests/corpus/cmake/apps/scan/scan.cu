// scan: the library's prefix sum against the CPU's, element by element.
#include "corpus/common.h"
#include "corpus/core.h"

#include <vector>

int main(int argc, char **argv)
{
    const std::size_t n = 5000;
    std::vector<int> in(n), want(n), got(n);
    for (std::size_t i = 0; i < n; i++)
        in[i] = (int)(i % 7) - 3;
    corpus_scan_cpu(n, in.data(), want.data());
    if (corpus_cpu_only(argc, argv))
        got = want;
    else
        corpus_scan_gpu(n, in.data(), got.data());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; i++)
        bad += got[i] != want[i];
    std::printf("scan: %zu of %zu differ, last %d\n", bad, n, got[n - 1]);
    return bad != 0;
}
