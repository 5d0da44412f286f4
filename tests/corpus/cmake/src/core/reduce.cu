// Sum of a vector: a shared-memory tree reduction per block, templated on the block size
// as real reduction kernels are.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

template <unsigned Block>
__global__ static void sum_kernel(std::size_t n, const float *x, double *partial)
{
    __shared__ double s[Block];
    double acc = 0;
    for (std::size_t i = blockIdx.x * Block + threadIdx.x; i < n; i += Block * gridDim.x)
        acc += x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned w = Block / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s[0];
}

double corpus_sum_cpu(std::size_t n, const float *x)
{
    double s = 0;
    for (std::size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

template <unsigned Block> static double sum_gpu(std::size_t n, const float *x)
{
    const unsigned blocks = 64;
    float *dx;
    double *dp;
    CORPUS_CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CORPUS_CHECK(cudaMalloc(&dp, blocks * sizeof(double)));
    CORPUS_CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    sum_kernel<Block><<<blocks, Block>>>(n, dx, dp);
    CORPUS_CHECK(cudaGetLastError());
    std::vector<double> p(blocks);
    CORPUS_CHECK(cudaMemcpy(p.data(), dp, blocks * sizeof(double), cudaMemcpyDeviceToHost));
    cudaFree(dx);
    cudaFree(dp);
    double s = 0;
    for (double v : p)
        s += v;
    return s;
}

double corpus_sum_gpu(std::size_t n, const float *x)
{
    return n < 4096 ? sum_gpu<128>(n, x) : sum_gpu<256>(n, x);
}
