// saxpy on the CPU and the GPU.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>

__global__ static void saxpy_kernel(std::size_t n, float a, const float *x, float *y)
{
    std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

void corpus_saxpy_cpu(std::size_t n, float a, const float *x, float *y)
{
    for (std::size_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

void corpus_saxpy_gpu(std::size_t n, float a, const float *x, float *y)
{
    float *dx, *dy;
    CORPUS_CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CORPUS_CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CORPUS_CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CORPUS_CHECK(cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice));
    saxpy_kernel<<<(unsigned)((n + 255) / 256), 256>>>(n, a, dx, dy);
    CORPUS_CHECK(cudaGetLastError());
    CORPUS_CHECK(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    cudaFree(dx);
    cudaFree(dy);
}
