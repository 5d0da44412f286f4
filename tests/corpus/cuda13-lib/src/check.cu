// Runs every entry point of the library on the GPU against what it must give
// (BACKEND_GPU_CHECK=ON; scripts/gpu-cuda13-check.sh): kernels launched across TUs, the
// template-only TU, a static kernel, the split heavy TU.
#include <cmath>
#include <cstdio>
#include "kernels.h"
extern "C" void backend_scale(float *x, float a, int n);
extern "C" void backend_add(float *x, const float *y, int n);
extern "C" void backend_fill(int *x, int v, int n);
extern "C" void backend_negate(float *x, int n);
int main()
{
    const int n = 1000;
    float *x, *y, h[n];
    int *k, hk[n];
    if (cudaMalloc(&x, n * sizeof(float)) || cudaMalloc(&y, n * sizeof(float)) ||
        cudaMalloc(&k, n * sizeof(int))) {
        std::printf("backend_check: no device memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        h[i] = float(i);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(y, h, sizeof h, cudaMemcpyHostToDevice);
    backend_scale(x, 2.0f, n); /* 2i */
    backend_add(x, y, n);      /* 3i */
    backend_negate(x, n);      /* -3i */
    backend_fill(k, 7, n);
    cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(hk, k, sizeof hk, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += h[i] != -3.0f * i || hk[i] != 7;
    float s = heavy_sum(y, n), want = 0;
    for (int kk = 0; kk < 48; kk++)
        for (int i = 0; i < n; i++)
            want += float(i) * (kk % 7 + 1) + std::sin(float(i) * kk);
    int heavy_ok = std::fabs(s - want) <= 1e-3f * std::fabs(want) + 1.0f;
    int answer = common_answer();
    cudaError_t e = cudaGetLastError();
    std::printf("backend_check: %d wrong elements, heavy_sum %g (expected %g), answer %d, %s\n", bad,
                s, want, answer, cudaGetErrorString(e));
    return bad || !heavy_ok || answer != 42 || e != cudaSuccess;
}
