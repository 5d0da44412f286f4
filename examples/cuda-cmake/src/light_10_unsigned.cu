#include "kern/ops.cuh"

/* Light TU: three GEMMs, one reduce, one stencil and one transpose instantiated for unsigned. */
extern "C" void kern_light_10_unsigned_launch_all(const void *in, void *out, int n)
{
    const unsigned *x = static_cast<const unsigned *>(in);
    unsigned *y = static_cast<unsigned *>(out);
    kern::launch_gemm<unsigned, 4, 4, 8>(x, x, y, n);
    kern::launch_gemm<unsigned, 8, 4, 8>(x, x, y, n);
    kern::launch_gemm<unsigned, 4, 8, 16>(x, x, y, n);
    kern::launch_reduce<unsigned, 64>(x, y, n);
    kern::launch_stencil<unsigned, 1>(x, y, n);
    kern::launch_transpose<unsigned, 8>(x, y, n, n);
}

KERN_ENTRY(light_10_unsigned) { return KERN_BLOCK; }
