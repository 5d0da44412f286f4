// The integrator the step kernel in forces.cu calls across translation units.
#include "corpus/nbody.h"

__device__ void corpus_integrate(corpus_particle &p, float3 &v, float3 f, float dt)
{
    v.x += f.x * dt;
    v.y += f.y * dt;
    v.z += f.z * dt;
    p.x += v.x * dt;
    p.y += v.y * dt;
    p.z += v.z * dt;
}
