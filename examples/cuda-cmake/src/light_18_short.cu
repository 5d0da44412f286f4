#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for short. */
extern "C" void kern_light_18_short_launch_all(const void *in, void *out, int n)
{
    const short *x = static_cast<const short *>(in);
    short *y = static_cast<short *>(out);
    kern::launch_gemm<short, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<short, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<short, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<short, 256>(x, y, n);
    kern::launch_stencil<short, 3>(x, y, n);
    kern::launch_transpose<short, 32>(x, y, n, n);
}

KERN_ENTRY(light_18_short) { return KERN_BLOCK; }
