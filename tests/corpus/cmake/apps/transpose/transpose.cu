// transpose: a tiled matrix transpose through shared memory, templated on the tile.
#include "corpus/common.h"
#include "corpus/core.h"

#include <cuda_runtime.h>
#include <vector>

template <int Tile> __global__ void transpose(int rows, int cols, const float *in, float *out)
{
    __shared__ float t[Tile][Tile + 1];
    int x = blockIdx.x * Tile + threadIdx.x, y = blockIdx.y * Tile + threadIdx.y;
    if (x < cols && y < rows)
        t[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * Tile + threadIdx.x;
    y = blockIdx.x * Tile + threadIdx.y;
    if (x < rows && y < cols)
        out[y * rows + x] = t[threadIdx.x][threadIdx.y];
}

int main(int argc, char **argv)
{
    const int rows = 300, cols = 500;
    std::vector<float> a(rows * cols), want(rows * cols), got(rows * cols);
    corpus_fill(a.size(), a.data(), 11);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            want[c * rows + r] = a[r * cols + c];
    if (corpus_cpu_only(argc, argv)) {
        got = want;
    } else {
        float *din, *dout;
        CORPUS_CHECK(cudaMalloc(&din, a.size() * sizeof(float)));
        CORPUS_CHECK(cudaMalloc(&dout, a.size() * sizeof(float)));
        CORPUS_CHECK(cudaMemcpy(din, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
        transpose<32><<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 32)>>>(rows, cols, din, dout);
        CORPUS_CHECK(cudaMemcpy(got.data(), dout, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
    return corpus_report("transpose", corpus_sum_cpu(got.size(), got.data()),
                         corpus_sum_cpu(want.size(), want.data()), 0) | (got != want);
}
