// ext_relu_cuda: max(x, 0)
#include <cuda_runtime.h>

#include "kernels.h"

namespace {
template <typename T, int UNROLL>
__global__ void relu_kernel(const T *x, T *out, int64_t n)
{
    int64_t base = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        int64_t i = base + u;
        if (i < n)
            out[i] = x[i] > T(0) ? x[i] : T(0);
    }
}
} // namespace

extern "C" void ext_relu_cuda(const float *x, float *out, int64_t n, ext_stream_t s)
{
    constexpr int unroll = 4, threads = 256;
    int64_t blocks = (n + threads * unroll - 1) / (threads * unroll);
    if (blocks > 0)
        relu_kernel<float, unroll><<<blocks, threads, 0, reinterpret_cast<cudaStream_t>(s)>>>(x, out, n);
}
