// Inclusive prefix sum: one block per 1024 elements, then the block totals added in.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

__global__ static void block_scan(std::size_t n, const int *in, int *out, int *totals)
{
    __shared__ int s[1024];
    std::size_t i = blockIdx.x * 1024ul + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned off = 1; off < 1024; off *= 2) {
        int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n)
        out[i] = s[threadIdx.x];
    if (threadIdx.x == 1023)
        totals[blockIdx.x] = s[1023];
}

__global__ static void add_offsets(std::size_t n, int *out, const int *offsets)
{
    std::size_t i = blockIdx.x * 1024ul + threadIdx.x;
    if (blockIdx.x > 0 && i < n)
        out[i] += offsets[blockIdx.x - 1];
}

void corpus_scan_cpu(std::size_t n, const int *in, int *out)
{
    int acc = 0;
    for (std::size_t i = 0; i < n; i++)
        out[i] = acc += in[i];
}

void corpus_scan_gpu(std::size_t n, const int *in, int *out)
{
    unsigned blocks = (unsigned)((n + 1023) / 1024);
    int *din, *dout, *dt;
    CORPUS_CHECK(cudaMalloc(&din, n * sizeof(int)));
    CORPUS_CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CORPUS_CHECK(cudaMalloc(&dt, blocks * sizeof(int)));
    CORPUS_CHECK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
    block_scan<<<blocks, 1024>>>(n, din, dout, dt);
    std::vector<int> t(blocks);
    CORPUS_CHECK(cudaMemcpy(t.data(), dt, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (unsigned b = 1; b < blocks; b++)
        t[b] += t[b - 1];
    CORPUS_CHECK(cudaMemcpy(dt, t.data(), blocks * sizeof(int), cudaMemcpyHostToDevice));
    add_offsets<<<blocks, 1024>>>(n, dout, dt);
    CORPUS_CHECK(cudaGetLastError());
    CORPUS_CHECK(cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dt);
}
