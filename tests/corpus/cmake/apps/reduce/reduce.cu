// reduce: the library's block reduction against the CPU sum, for two block sizes.
#include "corpus/common.h"
#include "corpus/core.h"

#include <vector>

int main(int argc, char **argv)
{
    int rc = 0;
    for (std::size_t n : {1000ul, 1ul << 20}) {
        std::vector<float> x(n);
        corpus_fill(n, x.data(), (unsigned)n);
        double want = corpus_sum_cpu(n, x.data());
        double got = corpus_cpu_only(argc, argv) ? want : corpus_sum_gpu(n, x.data());
        rc |= corpus_report("reduce", got, want, 1e-6);
    }
    return rc;
}
