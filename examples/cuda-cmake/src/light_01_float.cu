#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for float. */
extern "C" void kern_light_01_float_launch_all(const void *in, void *out, int n)
{
    const float *x = static_cast<const float *>(in);
    float *y = static_cast<float *>(out);
    kern::launch_gemm<float, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<float, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<float, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<float, 64>(x, y, n);
    kern::launch_stencil<float, 1>(x, y, n);
    kern::launch_transpose<float, 8>(x, y, n, n);
}

KERN_ENTRY(light_01_float) { return KERN_BLOCK; }
