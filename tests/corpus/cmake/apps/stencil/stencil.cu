// stencil: a 1-D 7-point stencil with a halo in shared memory.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

constexpr int R = 3;

__global__ void stencil(int n, const float *in, float *out)
{
    __shared__ float s[256 + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + R;
    s[l] = g < n ? in[g] : 0;
    if (threadIdx.x < R) {
        s[l - R] = g >= R ? in[g - R] : 0;
        s[l + 256] = g + 256 < n ? in[g + 256] : 0;
    }
    __syncthreads();
    if (g < n) {
        float v = 0;
        for (int k = -R; k <= R; k++)
            v += s[l + k];
        out[g] = v;
    }
}

int main(int argc, char **argv)
{
    const int n = 1 << 14;
    std::vector<float> in(n), want(n), got(n);
    corpus_fill(n, in.data(), 13);
    for (int i = 0; i < n; i++) {
        float v = 0;
        for (int k = -R; k <= R; k++)
            v += i + k >= 0 && i + k < n ? in[i + k] : 0;
        want[i] = v;
    }
    if (corpus_cpu_only(argc, argv)) {
        got = want;
    } else {
        float *din, *dout;
        CORPUS_CHECK(cudaMalloc(&din, n * sizeof(float)));
        CORPUS_CHECK(cudaMalloc(&dout, n * sizeof(float)));
        CORPUS_CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        stencil<<<n / 256, 256>>>(n, din, dout);
        CORPUS_CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    }
    return corpus_report("stencil", corpus_sum_cpu(n, got.data()), corpus_sum_cpu(n, want.data()), 1e-5);
}
