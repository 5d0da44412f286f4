// The RDC library: particles and forces in two translation units that call each other's
// device functions (separable compilation, device-linked into the executable).
#pragma once

struct corpus_particle {
    float x, y, z, m;
};

__device__ float3 corpus_force(const corpus_particle &a, const corpus_particle &b);
__device__ void corpus_integrate(corpus_particle &p, float3 &v, float3 f, float dt);
__global__ void corpus_step(int n, corpus_particle *p, float3 *v, float dt);
void corpus_step_cpu(int n, corpus_particle *p, float3 *v, float dt);
