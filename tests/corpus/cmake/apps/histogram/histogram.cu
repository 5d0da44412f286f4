// histogram: 64 bins with shared-memory atomics, against the CPU's count.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

__global__ void hist(int n, const float *x, unsigned *bins)
{
    __shared__ unsigned local[64];
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[(int)((x[i] + 0.5f) * 63.999f)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}

int main(int argc, char **argv)
{
    const int n = 1 << 18;
    std::vector<float> x(n);
    corpus_fill(n, x.data(), 9);
    std::vector<unsigned> want(64, 0), got(64, 0);
    for (float v : x)
        want[(int)((v + 0.5f) * 63.999f)]++;
    if (corpus_cpu_only(argc, argv)) {
        got = want;
    } else {
        float *dx;
        unsigned *db;
        CORPUS_CHECK(cudaMalloc(&dx, n * sizeof(float)));
        CORPUS_CHECK(cudaMalloc(&db, 64 * sizeof(unsigned)));
        CORPUS_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        CORPUS_CHECK(cudaMemset(db, 0, 64 * sizeof(unsigned)));
        hist<<<128, 256>>>(n, dx, db);
        CORPUS_CHECK(cudaMemcpy(got.data(), db, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    }
    int bad = 0;
    for (int b = 0; b < 64; b++)
        bad += got[b] != want[b];
    std::printf("histogram: %d of 64 bins differ, stddev of data %.4f\n", bad, corpus_stddev(n, x.data()));
    return bad != 0;
}
