// CPU implementations of the kernels (the extension's CPU path and the GPU test's second
// opinion); plain C++ on host memory, no torch headers.
#include "kernels.h"

extern "C" {

void ext_add_cpu(const float *a, const float *b, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

void ext_mul_cpu(const float *a, const float *b, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = a[i] * b[i];
}

void ext_relu_cpu(const float *x, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void ext_scale_cpu(const float *x, float alpha, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = alpha * x[i];
}

void ext_axpy_cpu(float alpha, const float *x, const float *y, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = alpha * x[i] + y[i];
}

void ext_square_cpu(const float *x, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] * x[i];
}

void ext_clamp_cpu(const float *x, float lo, float hi, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
}

void ext_sum_cpu(const float *x, float *out, int64_t n)
{
    double acc = 0.0; // pairwise-free but accurate enough against torch.sum in float32
    for (int64_t i = 0; i < n; i++)
        acc += x[i];
    out[0] = static_cast<float>(acc);
}
}
