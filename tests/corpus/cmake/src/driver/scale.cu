// The driver-API program's kernel, loaded from its fatbin at run time.
extern "C" __global__ void corpus_scale(int n, float a, float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}
