// crc_check's kernel: fills a buffer with a byte pattern on the device.
#include "corpus/common.h"

#include <cuda_runtime.h>
#include <vector>

__global__ static void pattern(unsigned char *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = (unsigned char)(i * 31 + 7);
}

void crc_check_pattern(unsigned char *host, int n, bool cpu)
{
    if (cpu) {
        for (int i = 0; i < n; i++)
            host[i] = (unsigned char)(i * 31 + 7);
        return;
    }
    unsigned char *d;
    CORPUS_CHECK(cudaMalloc(&d, n));
    pattern<<<(n + 255) / 256, 256>>>(d, n);
    CORPUS_CHECK(cudaMemcpy(host, d, n, cudaMemcpyDeviceToHost));
    cudaFree(d);
}
