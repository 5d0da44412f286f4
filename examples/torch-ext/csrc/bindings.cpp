// The torch face of the example: one op per kernel, dispatching on the tensors' device to
// the CUDA kernel or the CPU reference. The only TU that includes <torch/extension.h>.
#include <torch/extension.h>

#include "kernels.h"

#include <ATen/cuda/CUDAContext.h>

namespace {

void check(const torch::Tensor &t, const char *name)
{
    TORCH_CHECK(t.scalar_type() == torch::kFloat32, name, " must be float32");
    TORCH_CHECK(t.is_contiguous(), name, " must be contiguous");
}

void same_device(const torch::Tensor &a, const torch::Tensor &b)
{
    TORCH_CHECK(a.device() == b.device(), "tensors must be on the same device");
    TORCH_CHECK(a.numel() == b.numel(), "tensors must have the same number of elements");
}

ext_stream_t stream()
{
    return reinterpret_cast<ext_stream_t>(at::cuda::getCurrentCUDAStream().stream());
}

torch::Tensor binary(const torch::Tensor &a, const torch::Tensor &b,
                     void (*gpu)(const float *, const float *, float *, int64_t, ext_stream_t),
                     void (*cpu)(const float *, const float *, float *, int64_t))
{
    check(a, "a");
    check(b, "b");
    same_device(a, b);
    auto out = torch::empty_like(a);
    if (a.is_cuda())
        gpu(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), a.numel(), stream());
    else
        cpu(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), a.numel());
    return out;
}

torch::Tensor unary(const torch::Tensor &x, void (*gpu)(const float *, float *, int64_t, ext_stream_t),
                    void (*cpu)(const float *, float *, int64_t))
{
    check(x, "x");
    auto out = torch::empty_like(x);
    if (x.is_cuda())
        gpu(x.data_ptr<float>(), out.data_ptr<float>(), x.numel(), stream());
    else
        cpu(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
    return out;
}

torch::Tensor add(torch::Tensor a, torch::Tensor b)
{
    return binary(a, b, ext_add_cuda, ext_add_cpu);
}

torch::Tensor mul(torch::Tensor a, torch::Tensor b)
{
    return binary(a, b, ext_mul_cuda, ext_mul_cpu);
}

torch::Tensor relu(torch::Tensor x)
{
    return unary(x, ext_relu_cuda, ext_relu_cpu);
}

torch::Tensor square(torch::Tensor x)
{
    return unary(x, ext_square_cuda, ext_square_cpu);
}

torch::Tensor scale(torch::Tensor x, double alpha)
{
    check(x, "x");
    auto out = torch::empty_like(x);
    if (x.is_cuda())
        ext_scale_cuda(x.data_ptr<float>(), float(alpha), out.data_ptr<float>(), x.numel(), stream());
    else
        ext_scale_cpu(x.data_ptr<float>(), float(alpha), out.data_ptr<float>(), x.numel());
    return out;
}

torch::Tensor axpy(double alpha, torch::Tensor x, torch::Tensor y)
{
    check(x, "x");
    check(y, "y");
    same_device(x, y);
    auto out = torch::empty_like(x);
    if (x.is_cuda())
        ext_axpy_cuda(float(alpha), x.data_ptr<float>(), y.data_ptr<float>(), out.data_ptr<float>(),
                      x.numel(), stream());
    else
        ext_axpy_cpu(float(alpha), x.data_ptr<float>(), y.data_ptr<float>(), out.data_ptr<float>(),
                     x.numel());
    return out;
}

torch::Tensor clamp(torch::Tensor x, double lo, double hi)
{
    check(x, "x");
    TORCH_CHECK(lo <= hi, "clamp: lo must not exceed hi");
    auto out = torch::empty_like(x);
    if (x.is_cuda())
        ext_clamp_cuda(x.data_ptr<float>(), float(lo), float(hi), out.data_ptr<float>(), x.numel(),
                       stream());
    else
        ext_clamp_cpu(x.data_ptr<float>(), float(lo), float(hi), out.data_ptr<float>(), x.numel());
    return out;
}

torch::Tensor sum(torch::Tensor x)
{
    check(x, "x");
    auto out = torch::zeros({1}, x.options());
    if (x.is_cuda())
        ext_sum_cuda(x.data_ptr<float>(), out.data_ptr<float>(), x.numel(), stream());
    else
        ext_sum_cpu(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
    return out;
}

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("add", &add, "a + b");
    m.def("mul", &mul, "a * b");
    m.def("relu", &relu, "max(x, 0)");
    m.def("square", &square, "x * x");
    m.def("scale", &scale, "alpha * x");
    m.def("axpy", &axpy, "alpha * x + y");
    m.def("clamp", &clamp, "min(max(x, lo), hi)");
    m.def("sum", &sum, "the sum of x, as a 1-element tensor");
}
