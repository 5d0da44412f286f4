#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for double. */
extern "C" void kern_light_05_double_launch_all(const void *in, void *out, int n)
{
    const double *x = static_cast<const double *>(in);
    double *y = static_cast<double *>(out);
    kern::launch_gemm<double, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<double, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<double, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<double, 128>(x, y, n);
    kern::launch_stencil<double, 2>(x, y, n);
    kern::launch_transpose<double, 16>(x, y, n, n);
}

KERN_ENTRY(light_05_double) { return KERN_BLOCK; }
