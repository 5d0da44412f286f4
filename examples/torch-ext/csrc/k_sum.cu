// ext_sum_cuda: the sum of x, a block reduction in shared memory and one atomicAdd per block
#include <cuda_runtime.h>

#include "kernels.h"

namespace {
template <typename T, int THREADS>
__global__ void sum_kernel(const T *x, T *out, int64_t n)
{
    __shared__ T part[THREADS];
    T acc = T(0);
    for (int64_t i = int64_t(blockIdx.x) * THREADS + threadIdx.x; i < n;
         i += int64_t(gridDim.x) * THREADS)
        acc += x[i];
    part[threadIdx.x] = acc;
    __syncthreads();
#pragma unroll
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, part[0]);
}
} // namespace

extern "C" void ext_sum_cuda(const float *x, float *out, int64_t n, ext_stream_t s)
{
    constexpr int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 1024)
        blocks = 1024;
    if (blocks > 0)
        sum_kernel<float, threads><<<blocks, threads, 0, reinterpret_cast<cudaStream_t>(s)>>>(x, out, n);
}
