# The bundled torch extension: 8 CUDA TUs (plain kernels, no torch headers) and 2 host TUs
# (the torch bindings and the CPU references), built by torch.utils.cpp_extension.
#   pip wheel . --no-build-isolation --no-deps -w dist
# TORCH_CUDA_ARCH_LIST picks the architectures (default here: 9.0, one architecture);
# SHARDCC_EXAMPLE_NO_NINJA=1 takes torch's non-ninja path ($CUDA_HOME/bin/nvcc).
import glob
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
here = os.path.dirname(os.path.abspath(__file__))
sources = sorted(os.path.relpath(p, here) for p in glob.glob(os.path.join(here, "csrc", "*.cu")))
sources += ["csrc/bindings.cpp", "csrc/reference.cpp"]

setup(
    name="shardcc_torch_ext",
    version="0.1.0",
    packages=["shardcc_torch_ext"],
    ext_modules=[
        CUDAExtension(
            "shardcc_torch_ext._C",
            sources=sources,
            include_dirs=[os.path.join(here, "csrc")],
            # -lineinfo, as many packages build: the device line tables hold the paths of
            # the CUDA headers nvcc includes, which nvcc derives from the path it runs by
            extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2", "-lineinfo"]},
        )
    ],
    cmdclass={
        "build_ext": BuildExtension.with_options(
            use_ninja=os.environ.get("SHARDCC_EXAMPLE_NO_NINJA") != "1")
    },
)
