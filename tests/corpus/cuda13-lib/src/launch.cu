// launches kernels another TU defines (hidden symbols in a shard where that TU is a stub)
#include "kernels.h"
extern "C" void backend_scale(float *x, float a, int n)
{
    scale_kernel<<<(n + 255) / 256, 256>>>(x, a, n);
}
extern "C" void backend_add(float *x, const float *y, int n)
{
    add_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
}
extern "C" void backend_fill(int *x, int v, int n)
{
    fill_kernel<int><<<(n + 255) / 256, 256>>>(x, v, n);
}
// a static kernel: its name holds the module id's hash (__nv_static_...), which the host
// side registers and the device code defines, each side hashing it on its own
static __global__ void negate_kernel(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = -x[i];
}
extern "C" void backend_negate(float *x, int n)
{
    negate_kernel<<<(n + 255) / 256, 256>>>(x, n);
}
