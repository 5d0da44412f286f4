#include "common.h"
__global__ void ones_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 1.0f;
}
float *device_ones(int n)
{
    float *x = nullptr;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess)
        return nullptr;
    ones_kernel<<<(n + 255) / 256, 256>>>(x, n);
    return x;
}
