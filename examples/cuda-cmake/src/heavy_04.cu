#include "kern/ops.cuh"

/* Heavy TU: every block size, radius and tile for float, int and double and twelve register-tiled
 * GEMMs per type (about 7x the compile time of a light TU). */
extern "C" void kern_heavy_04_launch_all(const void *in, void *out, int n)
{
    {
        const float *x = static_cast<const float *>(in);
        float *y = static_cast<float *>(out);
        kern::launch_gemm<float, 4, 4, 8>(x, x, y, n);
        kern::launch_gemm<float, 8, 4, 8>(x, x, y, n);
        kern::launch_gemm<float, 4, 8, 16>(x, x, y, n);
        kern::launch_gemm<float, 8, 8, 8>(x, x, y, n);
        kern::launch_gemm<float, 2, 8, 8>(x, x, y, n);
        kern::launch_gemm<float, 8, 2, 8>(x, x, y, n);
        kern::launch_gemm<float, 4, 4, 16>(x, x, y, n);
        kern::launch_gemm<float, 2, 4, 8>(x, x, y, n);
        kern::launch_gemm<float, 4, 2, 8>(x, x, y, n);
        kern::launch_gemm<float, 2, 2, 16>(x, x, y, n);
        kern::launch_gemm<float, 4, 8, 8>(x, x, y, n);
        kern::launch_gemm<float, 8, 4, 16>(x, x, y, n);
        kern::launch_reduce<float, 64>(x, y, n);
        kern::launch_reduce<float, 128>(x, y, n);
        kern::launch_reduce<float, 256>(x, y, n);
        kern::launch_reduce<float, 512>(x, y, n);
        kern::launch_stencil<float, 1>(x, y, n);
        kern::launch_stencil<float, 2>(x, y, n);
        kern::launch_stencil<float, 3>(x, y, n);
        kern::launch_stencil<float, 4>(x, y, n);
        kern::launch_stencil<float, 5>(x, y, n);
        kern::launch_stencil<float, 6>(x, y, n);
        kern::launch_transpose<float, 8>(x, y, n, n);
        kern::launch_transpose<float, 16>(x, y, n, n);
        kern::launch_transpose<float, 32>(x, y, n, n);
    }
    {
        const int *x = static_cast<const int *>(in);
        int *y = static_cast<int *>(out);
        kern::launch_gemm<int, 4, 4, 8>(x, x, y, n);
        kern::launch_gemm<int, 8, 4, 8>(x, x, y, n);
        kern::launch_gemm<int, 4, 8, 16>(x, x, y, n);
        kern::launch_gemm<int, 8, 8, 8>(x, x, y, n);
        kern::launch_gemm<int, 2, 8, 8>(x, x, y, n);
        kern::launch_gemm<int, 8, 2, 8>(x, x, y, n);
        kern::launch_gemm<int, 4, 4, 16>(x, x, y, n);
        kern::launch_gemm<int, 2, 4, 8>(x, x, y, n);
        kern::launch_gemm<int, 4, 2, 8>(x, x, y, n);
        kern::launch_gemm<int, 2, 2, 16>(x, x, y, n);
        kern::launch_gemm<int, 4, 8, 8>(x, x, y, n);
        kern::launch_gemm<int, 8, 4, 16>(x, x, y, n);
        kern::launch_reduce<int, 64>(x, y, n);
        kern::launch_reduce<int, 128>(x, y, n);
        kern::launch_reduce<int, 256>(x, y, n);
        kern::launch_reduce<int, 512>(x, y, n);
        kern::launch_stencil<int, 1>(x, y, n);
        kern::launch_stencil<int, 2>(x, y, n);
        kern::launch_stencil<int, 3>(x, y, n);
        kern::launch_stencil<int, 4>(x, y, n);
        kern::launch_stencil<int, 5>(x, y, n);
        kern::launch_stencil<int, 6>(x, y, n);
        kern::launch_transpose<int, 8>(x, y, n, n);
        kern::launch_transpose<int, 16>(x, y, n, n);
        kern::launch_transpose<int, 32>(x, y, n, n);
    }
    {
        const double *x = static_cast<const double *>(in);
        double *y = static_cast<double *>(out);
        kern::launch_gemm<double, 4, 4, 8>(x, x, y, n);
        kern::launch_gemm<double, 8, 4, 8>(x, x, y, n);
        kern::launch_gemm<double, 4, 8, 16>(x, x, y, n);
        kern::launch_gemm<double, 8, 8, 8>(x, x, y, n);
        kern::launch_gemm<double, 2, 8, 8>(x, x, y, n);
        kern::launch_gemm<double, 8, 2, 8>(x, x, y, n);
        kern::launch_gemm<double, 4, 4, 16>(x, x, y, n);
        kern::launch_gemm<double, 2, 4, 8>(x, x, y, n);
        kern::launch_gemm<double, 4, 2, 8>(x, x, y, n);
        kern::launch_gemm<double, 2, 2, 16>(x, x, y, n);
        kern::launch_gemm<double, 4, 8, 8>(x, x, y, n);
        kern::launch_gemm<double, 8, 4, 16>(x, x, y, n);
        kern::launch_reduce<double, 64>(x, y, n);
        kern::launch_reduce<double, 128>(x, y, n);
        kern::launch_reduce<double, 256>(x, y, n);
        kern::launch_reduce<double, 512>(x, y, n);
        kern::launch_stencil<double, 1>(x, y, n);
        kern::launch_stencil<double, 2>(x, y, n);
        kern::launch_stencil<double, 3>(x, y, n);
        kern::launch_stencil<double, 4>(x, y, n);
        kern::launch_stencil<double, 5>(x, y, n);
        kern::launch_stencil<double, 6>(x, y, n);
        kern::launch_transpose<double, 8>(x, y, n, n);
        kern::launch_transpose<double, 16>(x, y, n, n);
        kern::launch_transpose<double, 32>(x, y, n, n);
    }
}

KERN_ENTRY(heavy_04) { return KERN_BLOCK * 2; }
