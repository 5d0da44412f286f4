#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for int. */
extern "C" void kern_light_07_int_launch_all(const void *in, void *out, int n)
{
    const int *x = static_cast<const int *>(in);
    int *y = static_cast<int *>(out);
    kern::launch_gemm<int, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<int, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<int, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<int, 64>(x, y, n);
    kern::launch_stencil<int, 1>(x, y, n);
    kern::launch_transpose<int, 8>(x, y, n, n);
}

KERN_ENTRY(light_07_int) { return KERN_BLOCK; }
