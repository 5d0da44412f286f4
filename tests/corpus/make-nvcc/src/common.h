#pragma once
#include <cstdio>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e_)); return 1; } } while (0)
float *device_ones(int n);
int report(const char *name, float got, float want);
