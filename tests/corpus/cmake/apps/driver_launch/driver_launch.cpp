// driver_launch: loads the embedded fatbin with the CUDA driver API (libcuda.so.1, opened
// at run time as driver-API programs that must start without a GPU do) and runs
// corpus_scale. --cpu checks the embedded fatbin's header only.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "corpus/common.h"

extern "C" const unsigned char corpus_scale_fatbin[];
extern "C" const unsigned long corpus_scale_fatbin_size;

template <typename F> static F sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        std::fprintf(stderr, "driver_launch: libcuda has no %s\n", name);
        std::exit(2);
    }
    return reinterpret_cast<F>(p);
}

#define DRV(call)                                                                          \
    do {                                                                                   \
        CUresult r_ = (call);                                                              \
        if (r_ != CUDA_SUCCESS) {                                                          \
            std::fprintf(stderr, "driver_launch: %s failed: %d\n", #call, (int)r_);       \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    unsigned magic;
    std::memcpy(&magic, corpus_scale_fatbin, sizeof magic);
    std::printf("driver_launch: fatbin of %lu bytes, magic %08x\n", corpus_scale_fatbin_size, magic);
    if (corpus_scale_fatbin_size < 64 || magic != 0xba55ed50u)
        return 1;
    if (corpus_cpu_only(argc, argv))
        return 0;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        std::fprintf(stderr, "driver_launch: %s\n", dlerror());
        return 2;
    }
    auto init = sym<decltype(&cuInit)>(lib, "cuInit");
    auto dev_get = sym<decltype(&cuDeviceGet)>(lib, "cuDeviceGet");
    auto retain = sym<decltype(&cuDevicePrimaryCtxRetain)>(lib, "cuDevicePrimaryCtxRetain");
    auto set_ctx = sym<decltype(&cuCtxSetCurrent)>(lib, "cuCtxSetCurrent");
    auto load = sym<decltype(&cuModuleLoadData)>(lib, "cuModuleLoadData");
    auto get_fn = sym<decltype(&cuModuleGetFunction)>(lib, "cuModuleGetFunction");
    auto alloc = sym<decltype(&cuMemAlloc)>(lib, "cuMemAlloc_v2");
    auto htod = sym<decltype(&cuMemcpyHtoD)>(lib, "cuMemcpyHtoD_v2");
    auto dtoh = sym<decltype(&cuMemcpyDtoH)>(lib, "cuMemcpyDtoH_v2");
    auto launch = sym<decltype(&cuLaunchKernel)>(lib, "cuLaunchKernel");
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr d;
    DRV(init(0));
    DRV(dev_get(&dev, 0));
    DRV(retain(&ctx, dev));
    DRV(set_ctx(ctx));
    DRV(load(&mod, corpus_scale_fatbin));
    DRV(get_fn(&fn, mod, "corpus_scale"));
    int n = 1000;
    float a = 3.0f;
    std::vector<float> x(n, 2.0f);
    DRV(alloc(&d, n * sizeof(float)));
    DRV(htod(d, x.data(), n * sizeof(float)));
    void *args[] = {&n, &a, &d};
    DRV(launch(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    DRV(dtoh(x.data(), d, n * sizeof(float)));
    return corpus_report("driver_launch", x[0] + x[n - 1], 12.0, 0);
}
