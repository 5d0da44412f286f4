// What every app and the library share: the CPU/GPU switch and error checks.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CORPUS_CHECK(call)                                                                \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(2);                                                                 \
        }                                                                                 \
    } while (0)

// --cpu: the reference path only (machines without a GPU); otherwise the GPU path, checked
// against the reference.
inline bool corpus_cpu_only(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (std::strcmp(argv[i], "--cpu") == 0)
            return true;
    return false;
}

inline int corpus_report(const char *name, double got, double want, double tol)
{
    double d = got > want ? got - want : want - got;
    std::printf("%s: %.6f (reference %.6f)\n", name, got, want);
    return d <= tol * (1.0 + (want < 0 ? -want : want)) ? 0 : 1;
}
