// libcorpus_core: BLAS-like kernels, reductions, scans and checksums, each with a CPU
// reference.
#pragma once
#include <cstddef>
#include <cstdint>

void corpus_saxpy_cpu(std::size_t n, float a, const float *x, float *y);
void corpus_saxpy_gpu(std::size_t n, float a, const float *x, float *y);
double corpus_sum_cpu(std::size_t n, const float *x);
double corpus_sum_gpu(std::size_t n, const float *x);
void corpus_scan_cpu(std::size_t n, const int *in, int *out);
void corpus_scan_gpu(std::size_t n, const int *in, int *out);
uint32_t corpus_crc32_cpu(const unsigned char *p, std::size_t n);
uint32_t corpus_crc32_gpu(const unsigned char *p, std::size_t n);
void corpus_fill(std::size_t n, float *x, unsigned seed);
double corpus_mean(std::size_t n, const float *x);
double corpus_stddev(std::size_t n, const float *x);
const char *corpus_version(void);
