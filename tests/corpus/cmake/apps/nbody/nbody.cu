// nbody: steps of the RDC library's kernel, checked against its CPU step (positions after
// one step, within float tolerance; the GPU's update order differs from the CPU's).
#include "corpus/common.h"
#include "corpus/core.h"
#include "corpus/nbody.h"

#include <vector>

int main(int argc, char **argv)
{
    const int n = 256;
    std::vector<corpus_particle> p(n);
    std::vector<float> r(4 * n);
    corpus_fill(r.size(), r.data(), 5);
    for (int i = 0; i < n; i++)
        p[i] = {r[4 * i], r[4 * i + 1], r[4 * i + 2], 1.0f + r[4 * i + 3]};
    std::vector<float3> v(n, make_float3(0, 0, 0));
    std::vector<corpus_particle> want = p;
    std::vector<float3> vw = v;
    corpus_step_cpu(n, want.data(), vw.data(), 1e-4f);
    double sw = 0;
    for (auto &q : want)
        sw += q.x + q.y + q.z;
    if (corpus_cpu_only(argc, argv))
        return corpus_report("nbody", sw, sw, 0);
    corpus_particle *dp;
    float3 *dv;
    CORPUS_CHECK(cudaMalloc(&dp, n * sizeof *dp));
    CORPUS_CHECK(cudaMalloc(&dv, n * sizeof *dv));
    CORPUS_CHECK(cudaMemcpy(dp, p.data(), n * sizeof *dp, cudaMemcpyHostToDevice));
    CORPUS_CHECK(cudaMemcpy(dv, v.data(), n * sizeof *dv, cudaMemcpyHostToDevice));
    // one thread per particle reads the others' old positions: snapshot semantics need a
    // copy, which the CPU reference has too (it updates in order), so compare loosely
    corpus_step<<<(n + 127) / 128, 128>>>(n, dp, dv, 1e-4f);
    CORPUS_CHECK(cudaMemcpy(p.data(), dp, n * sizeof *dp, cudaMemcpyDeviceToHost));
    double sg = 0;
    for (auto &q : p)
        sg += q.x + q.y + q.z;
    return corpus_report("nbody", sg, sw, 1e-3);
}
