#include "kernels.h"
#include <cstdio>
template <int K> __global__ void reduce_k(const float *x, float *out, int n)
{
    __shared__ float s[256];
    float acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i] * (K % 7 + 1) + __sinf(x[i] * K);
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, s[0]);
}
float heavy_sum(const float *x, int n)
{
    float *out;
    cudaMalloc(&out, sizeof(float));
    cudaMemset(out, 0, sizeof(float));
    reduce_k<0><<<4, 256>>>(x, out, n);
    reduce_k<1><<<4, 256>>>(x, out, n);
    reduce_k<2><<<4, 256>>>(x, out, n);
    reduce_k<3><<<4, 256>>>(x, out, n);
    reduce_k<4><<<4, 256>>>(x, out, n);
    reduce_k<5><<<4, 256>>>(x, out, n);
    reduce_k<6><<<4, 256>>>(x, out, n);
    reduce_k<7><<<4, 256>>>(x, out, n);
    reduce_k<8><<<4, 256>>>(x, out, n);
    reduce_k<9><<<4, 256>>>(x, out, n);
    reduce_k<10><<<4, 256>>>(x, out, n);
    reduce_k<11><<<4, 256>>>(x, out, n);
    reduce_k<12><<<4, 256>>>(x, out, n);
    reduce_k<13><<<4, 256>>>(x, out, n);
    reduce_k<14><<<4, 256>>>(x, out, n);
    reduce_k<15><<<4, 256>>>(x, out, n);
    reduce_k<16><<<4, 256>>>(x, out, n);
    reduce_k<17><<<4, 256>>>(x, out, n);
    reduce_k<18><<<4, 256>>>(x, out, n);
    reduce_k<19><<<4, 256>>>(x, out, n);
    reduce_k<20><<<4, 256>>>(x, out, n);
    reduce_k<21><<<4, 256>>>(x, out, n);
    reduce_k<22><<<4, 256>>>(x, out, n);
    reduce_k<23><<<4, 256>>>(x, out, n);
    reduce_k<24><<<4, 256>>>(x, out, n);
    reduce_k<25><<<4, 256>>>(x, out, n);
    reduce_k<26><<<4, 256>>>(x, out, n);
    reduce_k<27><<<4, 256>>>(x, out, n);
    reduce_k<28><<<4, 256>>>(x, out, n);
    reduce_k<29><<<4, 256>>>(x, out, n);
    reduce_k<30><<<4, 256>>>(x, out, n);
    reduce_k<31><<<4, 256>>>(x, out, n);
    reduce_k<32><<<4, 256>>>(x, out, n);
    reduce_k<33><<<4, 256>>>(x, out, n);
    reduce_k<34><<<4, 256>>>(x, out, n);
    reduce_k<35><<<4, 256>>>(x, out, n);
    reduce_k<36><<<4, 256>>>(x, out, n);
    reduce_k<37><<<4, 256>>>(x, out, n);
    reduce_k<38><<<4, 256>>>(x, out, n);
    reduce_k<39><<<4, 256>>>(x, out, n);
    reduce_k<40><<<4, 256>>>(x, out, n);
    reduce_k<41><<<4, 256>>>(x, out, n);
    reduce_k<42><<<4, 256>>>(x, out, n);
    reduce_k<43><<<4, 256>>>(x, out, n);
    reduce_k<44><<<4, 256>>>(x, out, n);
    reduce_k<45><<<4, 256>>>(x, out, n);
    reduce_k<46><<<4, 256>>>(x, out, n);
    reduce_k<47><<<4, 256>>>(x, out, n);
    float h = 0;
    cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(out);
    return h;
}
