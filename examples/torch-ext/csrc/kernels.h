// The example's kernels, as plain C functions on raw pointers: the .cu files implement
// them on the GPU, reference.cpp on the CPU; only bindings.cpp sees torch.
#pragma once
#include <cstdint>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *ext_stream_t;

// GPU (one .cu each); n elements, all pointers on the device
void ext_add_cuda(const float *a, const float *b, float *out, int64_t n, ext_stream_t s);
void ext_mul_cuda(const float *a, const float *b, float *out, int64_t n, ext_stream_t s);
void ext_relu_cuda(const float *x, float *out, int64_t n, ext_stream_t s);
void ext_scale_cuda(const float *x, float alpha, float *out, int64_t n, ext_stream_t s);
void ext_axpy_cuda(float alpha, const float *x, const float *y, float *out, int64_t n,
                   ext_stream_t s);
void ext_square_cuda(const float *x, float *out, int64_t n, ext_stream_t s);
void ext_clamp_cuda(const float *x, float lo, float hi, float *out, int64_t n, ext_stream_t s);
// out[0] = sum of x; out must be zeroed
void ext_sum_cuda(const float *x, float *out, int64_t n, ext_stream_t s);

// CPU references (reference.cpp), the same contracts on host memory
void ext_add_cpu(const float *a, const float *b, float *out, int64_t n);
void ext_mul_cpu(const float *a, const float *b, float *out, int64_t n);
void ext_relu_cpu(const float *x, float *out, int64_t n);
void ext_scale_cpu(const float *x, float alpha, float *out, int64_t n);
void ext_axpy_cpu(float alpha, const float *x, const float *y, float *out, int64_t n);
void ext_square_cpu(const float *x, float *out, int64_t n);
void ext_clamp_cpu(const float *x, float lo, float hi, float *out, int64_t n);
void ext_sum_cpu(const float *x, float *out, int64_t n);

#ifdef __cplusplus
}
#endif
