// Kernels shipped as PTX: the driver compiles them for whatever GPU runs the program.
extern "C" __global__ void corpus_ptx_fill(int n, int *x, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = v + i;
}

extern "C" __global__ void corpus_ptx_square(int n, int *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= x[i];
}
