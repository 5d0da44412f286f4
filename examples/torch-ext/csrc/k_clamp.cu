// ext_clamp_cuda: min(max(x, lo), hi)
#include <cuda_runtime.h>

#include "kernels.h"

namespace {
template <typename T, int UNROLL>
__global__ void clamp_kernel(const T *x, T lo, T hi, T *out, int64_t n)
{
    int64_t base = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
        int64_t i = base + u;
        if (i < n)
            out[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
    }
}
} // namespace

extern "C" void ext_clamp_cuda(const float *x, float lo, float hi, float *out, int64_t n, ext_stream_t s)
{
    constexpr int unroll = 4, threads = 256;
    int64_t blocks = (n + threads * unroll - 1) / (threads * unroll);
    if (blocks > 0)
        clamp_kernel<float, unroll><<<blocks, threads, 0, reinterpret_cast<cudaStream_t>(s)>>>(x, lo, hi, out, n);
}
