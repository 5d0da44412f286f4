__global__ void mul_k(float *x) { x[threadIdx.x] += 1; }
void mul(float *x) { mul_k<<<1, 32>>>(x); }
