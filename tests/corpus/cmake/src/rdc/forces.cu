// Pairwise gravity, and the step kernel that calls the integrator in particles.cu.
#include "corpus/nbody.h"

__host__ __device__ static float3 force_of(const corpus_particle &a, const corpus_particle &b)
{
    float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
    float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
    float inv = b.m / (r2 * sqrtf(r2));
    return make_float3(dx * inv, dy * inv, dz * inv);
}

__device__ float3 corpus_force(const corpus_particle &a, const corpus_particle &b)
{
    return force_of(a, b);
}

__global__ void corpus_step(int n, corpus_particle *p, float3 *v, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float3 f = make_float3(0, 0, 0);
    for (int j = 0; j < n; j++) {
        if (j == i)
            continue;
        float3 g = corpus_force(p[i], p[j]);
        f.x += g.x;
        f.y += g.y;
        f.z += g.z;
    }
    corpus_integrate(p[i], v[i], f, dt);
}

void corpus_step_cpu(int n, corpus_particle *p, float3 *v, float dt)
{
    for (int i = 0; i < n; i++) {
        float3 f = make_float3(0, 0, 0);
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            float3 g = force_of(p[i], p[j]);
            f.x += g.x;
            f.y += g.y;
            f.z += g.z;
        }
        v[i].x += f.x * dt;
        v[i].y += f.y * dt;
        v[i].z += f.z * dt;
        p[i].x += v[i].x * dt;
        p[i].y += v[i].y * dt;
        p[i].z += v[i].z * dt;
    }
}
