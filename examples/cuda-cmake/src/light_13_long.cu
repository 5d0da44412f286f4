#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for long. */
extern "C" void kern_light_13_long_launch_all(const void *in, void *out, int n)
{
    const long *x = static_cast<const long *>(in);
    long *y = static_cast<long *>(out);
    kern::launch_gemm<long, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<long, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<long, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<long, 64>(x, y, n);
    kern::launch_stencil<long, 1>(x, y, n);
    kern::launch_transpose<long, 8>(x, y, n, n);
}

KERN_ENTRY(light_13_long) { return KERN_BLOCK; }
