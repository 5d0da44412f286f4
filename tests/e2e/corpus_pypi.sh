# corpus_pypi.sh (ctest -L corpus): real CUDA extensions from PyPI through torch's setuptools
# backend, with default options, N = 2:
#   - torchsort 0.1.10 on a machine without ninja (torch falls back to setuptools);
#   - torch-scatter 2.1.2, which sets use_ninja=False itself (3 CUDA TUs, 14 C++ TUs;
#     about 15 minutes unsharded on 2 cores).
# The ninja backend's run of torchsort is in the default suite (t_pypi_torchsort.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/torchlane.sh"
. "$(dirname "$0")/pypi.sh"
pypi_hide_ninja
pypi_fetch torchsort 0.1.10 416a7dd2ab88332b27e98318d7fb2e0243b9fb6f1fffcf77760d63103d70dd04
pypi_pipeline torchsort-setuptools 2 2
[ -z "$(find build -name build.ninja)" ] || fail "torch used ninja although it is not installed"
ok "torchsort: torch's setuptools backend built it"

pypi_fetch torch-scatter 2.1.2 69b3aa435f2424ac6a1bfb6ff702da6eb73b33ca0db38fb26989c74159258e47
# without a GPU torch-scatter builds its CPU extension only (setup.py: CUDA when
# torch.cuda.is_available(), or FORCE_CUDA=1); the first corpus run here built a CPU-only
# wheel and the shard guard rightly found no TU in the nvcc seat
pypi_pipeline torch-scatter 2 17 FORCE_CUDA=1
summary
