// saxpy: the library's saxpy on the GPU against its CPU reference.
#include "corpus/common.h"
#include "corpus/core.h"

#include <vector>

int main(int argc, char **argv)
{
    const std::size_t n = 100000;
    std::vector<float> x(n), y(n), ref;
    corpus_fill(n, x.data(), 3);
    corpus_fill(n, y.data(), 4);
    ref = y;
    corpus_saxpy_cpu(n, 2.5f, x.data(), ref.data());
    if (corpus_cpu_only(argc, argv))
        return corpus_report("saxpy", corpus_sum_cpu(n, ref.data()), corpus_sum_cpu(n, ref.data()), 0);
    corpus_saxpy_gpu(n, 2.5f, x.data(), y.data());
    return corpus_report("saxpy", corpus_sum_cpu(n, y.data()), corpus_sum_cpu(n, ref.data()), 1e-5);
}
