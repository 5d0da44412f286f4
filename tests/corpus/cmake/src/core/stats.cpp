// Host-only helpers of the library: data, statistics, the version string.
#include "corpus/core.h"

#include <cmath>

void corpus_fill(std::size_t n, float *x, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    for (std::size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
}

double corpus_mean(std::size_t n, const float *x)
{
    double s = 0;
    for (std::size_t i = 0; i < n; i++)
        s += x[i];
    return n ? s / (double)n : 0;
}

double corpus_stddev(std::size_t n, const float *x)
{
    double m = corpus_mean(n, x), s = 0;
    for (std::size_t i = 0; i < n; i++)
        s += (x[i] - m) * (x[i] - m);
    return n ? std::sqrt(s / (double)n) : 0;
}

const char *corpus_version(void)
{
    return "corpus 1.0";
}
