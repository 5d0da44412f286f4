#include "common.h"
__global__ void scan_kernel(float *x, float *out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] * 2.0f : 0.0f;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, s[0]);
}
int main()
{
    const int n = 1 << 12;
    float *x = device_ones(n), *out, h = 0;
    if (!x)
        return 1;
    CHECK(cudaMalloc(&out, sizeof(float)));
    CHECK(cudaMemset(out, 0, sizeof(float)));
    scan_kernel<<<n / 256, 256>>>(x, out, n);
    CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    return report("scan", h, 2.0f * n);
}
