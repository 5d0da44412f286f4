/* Templated kernels shared by every TU: each TU instantiates some of them for some
 * element types and block sizes; how many decides how long the TU takes to compile. */
#pragma once
#include <cuda_runtime.h>

#include "kern/config.h"

namespace kern {

template <typename T> struct Add { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };

template <typename T, int BS, typename Op>
__global__ void block_reduce(const T *in, T *out, int n, Op op)
{
    __shared__ T s[BS];
    int i = blockIdx.x * BS + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
#pragma unroll
    for (int w = BS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

template <typename T, int R>
__global__ void stencil(const T *in, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < R || i >= n - R)
        return;
    T acc = T(0);
#pragma unroll
    for (int k = -R; k <= R; k++)
        acc += in[i + k] * T(R + 1 - (k < 0 ? -k : k));
    out[i] = acc;
}

template <typename T, int TILE>
__global__ void transpose(const T *in, T *out, int rows, int cols)
{
    __shared__ T tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols)
        out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

/* A register-tiled matrix multiply: unrolled TM x TN micro-tiles, costly to compile. */
template <typename T, int TM, int TN, int TK>
__global__ void gemm_tile(const T *a, const T *b, T *c, int n)
{
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = T(0);
    int row = (blockIdx.y * blockDim.y + threadIdx.y) * TM;
    int col = (blockIdx.x * blockDim.x + threadIdx.x) * TN;
    for (int k0 = 0; k0 < n; k0 += TK) {
#pragma unroll
        for (int k = 0; k < TK; k++)
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    if (row + i < n && col + j < n && k0 + k < n)
                        acc[i][j] += a[(row + i) * n + k0 + k] * b[(k0 + k) * n + col + j];
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            if (row + i < n && col + j < n)
                c[(row + i) * n + col + j] = acc[i][j];
}

template <typename T, int TM, int TN, int TK> void launch_gemm(const T *a, const T *b, T *c, int n)
{
    dim3 blk(16, 16), grd((n + 16 * TN - 1) / (16 * TN), (n + 16 * TM - 1) / (16 * TM));
    gemm_tile<T, TM, TN, TK><<<grd, blk>>>(a, b, c, n);
}

template <typename T, int BS> void launch_reduce(const T *in, T *out, int n)
{
    block_reduce<T, BS, Add<T>><<<(n + BS - 1) / BS, BS>>>(in, out, n, Add<T>());
    block_reduce<T, BS, Max<T>><<<(n + BS - 1) / BS, BS>>>(in, out, n, Max<T>());
}

template <typename T, int R> void launch_stencil(const T *in, T *out, int n)
{
    stencil<T, R><<<(n + KERN_BLOCK - 1) / KERN_BLOCK, KERN_BLOCK>>>(in, out, n);
}

template <typename T, int TILE> void launch_transpose(const T *in, T *out, int rows, int cols)
{
    dim3 b(TILE, TILE), g((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose<T, TILE><<<g, b>>>(in, out, rows, cols);
}

} // namespace kern

/* One exported entry point per TU, so every object contributes a symbol. */
#define KERN_ENTRY(name) extern "C" int kern_##name(void)
