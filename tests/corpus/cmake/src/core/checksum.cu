// CRC-32 with the table the generator wrote (corpus/table.h), on the CPU and the GPU.
#include "corpus/common.h"
#include "corpus/core.h"
#include "corpus/table.h"

#include <cuda_runtime.h>
#include <vector>

__constant__ static uint32_t d_table[256];

__host__ __device__ static uint32_t crc_update(const uint32_t *table, uint32_t c,
                                               const unsigned char *p, std::size_t n)
{
    for (std::size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c;
}

uint32_t corpus_crc32_cpu(const unsigned char *p, std::size_t n)
{
    return ~crc_update(corpus_crc_table, 0xffffffffu, p, n);
}

__global__ static void crc_kernel(const unsigned char *p, std::size_t n, uint32_t *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *out = ~crc_update(d_table, 0xffffffffu, p, n);
}

uint32_t corpus_crc32_gpu(const unsigned char *p, std::size_t n)
{
    unsigned char *dp;
    uint32_t *dout, r = 0;
    CORPUS_CHECK(cudaMemcpyToSymbol(d_table, corpus_crc_table, sizeof corpus_crc_table));
    CORPUS_CHECK(cudaMalloc(&dp, n ? n : 1));
    CORPUS_CHECK(cudaMalloc(&dout, sizeof(uint32_t)));
    CORPUS_CHECK(cudaMemcpy(dp, p, n, cudaMemcpyHostToDevice));
    crc_kernel<<<1, 1>>>(dp, n, dout);
    CORPUS_CHECK(cudaGetLastError());
    CORPUS_CHECK(cudaMemcpy(&r, dout, sizeof r, cudaMemcpyDeviceToHost));
    cudaFree(dp);
    cudaFree(dout);
    return r;
}
