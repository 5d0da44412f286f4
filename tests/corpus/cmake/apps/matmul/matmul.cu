// matmul: a tiled SGEMM, templated on the tile size (two instantiations), against the CPU.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

template <int T> __global__ void sgemm(int n, const float *a, const float *b, float *c)
{
    __shared__ float sa[T][T], sb[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += T) {
        sa[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0;
        sb[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; k++)
            acc += sa[threadIdx.y][k] * sb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = acc;
}

template <int T> static void run(int n, const float *a, const float *b, float *c)
{
    float *da, *db, *dc;
    size_t bytes = (size_t)n * n * sizeof(float);
    CORPUS_CHECK(cudaMalloc(&da, bytes));
    CORPUS_CHECK(cudaMalloc(&db, bytes));
    CORPUS_CHECK(cudaMalloc(&dc, bytes));
    CORPUS_CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CORPUS_CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    sgemm<T><<<dim3((n + T - 1) / T, (n + T - 1) / T), dim3(T, T)>>>(n, da, db, dc);
    CORPUS_CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
}

int main(int argc, char **argv)
{
    const int n = 96;
    std::vector<float> a(n * n), b(n * n), want(n * n, 0), got(n * n);
    corpus_fill(a.size(), a.data(), 21);
    corpus_fill(b.size(), b.data(), 22);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                want[i * n + j] += a[i * n + k] * b[k * n + j];
    int rc = 0;
    if (corpus_cpu_only(argc, argv))
        return corpus_report("matmul", corpus_sum_cpu(want.size(), want.data()), corpus_sum_cpu(want.size(), want.data()), 0);
    run<16>(n, a.data(), b.data(), got.data());
    rc |= corpus_report("matmul<16>", corpus_sum_cpu(got.size(), got.data()), corpus_sum_cpu(want.size(), want.data()), 1e-4);
    run<32>(n, a.data(), b.data(), got.data());
    rc |= corpus_report("matmul<32>", corpus_sum_cpu(got.size(), got.data()), corpus_sum_cpu(want.size(), want.data()), 1e-4);
    return rc;
}
