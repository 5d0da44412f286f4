#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for int. */
extern "C" void kern_light_08_int_launch_all(const void *in, void *out, int n)
{
    const int *x = static_cast<const int *>(in);
    int *y = static_cast<int *>(out);
    kern::launch_gemm<int, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<int, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<int, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<int, 128>(x, y, n);
    kern::launch_stencil<int, 2>(x, y, n);
    kern::launch_transpose<int, 16>(x, y, n, n);
}

KERN_ENTRY(light_08_int) { return KERN_BLOCK; }
