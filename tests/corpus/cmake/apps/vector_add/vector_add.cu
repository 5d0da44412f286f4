// vector_add: c = a + b, a kernel of the app's own, checked against the CPU.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

__global__ void add(int n, const float *a, const float *b, float *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    const int n = 1 << 16;
    std::vector<float> a(n), b(n), c(n), ref(n);
    corpus_fill(n, a.data(), 1);
    corpus_fill(n, b.data(), 2);
    for (int i = 0; i < n; i++)
        ref[i] = a[i] + b[i];
    if (corpus_cpu_only(argc, argv))
        return corpus_report("vector_add", corpus_sum_cpu(n, ref.data()), corpus_sum_cpu(n, ref.data()), 0);
    float *da, *db, *dc;
    CORPUS_CHECK(cudaMalloc(&da, n * sizeof(float)));
    CORPUS_CHECK(cudaMalloc(&db, n * sizeof(float)));
    CORPUS_CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CORPUS_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CORPUS_CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    add<<<(n + 255) / 256, 256>>>(n, da, db, dc);
    CORPUS_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    return corpus_report("vector_add", corpus_sum_cpu(n, c.data()), corpus_sum_cpu(n, ref.data()), 1e-6);
}
