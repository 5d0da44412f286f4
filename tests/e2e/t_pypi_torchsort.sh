# torchsort 0.1.10 from PyPI (one CUDA TU, one C++ TU; torch's ninja backend, its default)
# through 2 shards and the link job with default options: 100 % hits, the wheel the same
# as the unsharded one, and the link job's CPU extension sorting correctly. The setuptools
# backend and larger packages are in the corpus suite (ctest -L corpus).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/torchlane.sh"
. "$(dirname "$0")/pypi.sh"
pypi_fetch torchsort 0.1.10 416a7dd2ab88332b27e98318d7fb2e0243b9fb6f1fffcf77760d63103d70dd04
ninja --version >/dev/null || fail "ninja is not installed (the ninja backend needs it)"
pypi_pipeline torchsort 2 2
[ -n "$(find build -name build.ninja)" ] || fail "torch did not use its ninja backend"
ok "torch's ninja backend built it"
rm -rf "$T/site"
python3 -m pip install -q --no-deps --no-index --target "$T/site" dist/*.whl ||
    fail "cannot install the link job's wheel"
(cd "$T" && PYTHONPATH="$T/site" python3 -c '
import torch, torchsort
x = torch.tensor([[8.0, 0.0, 5.0, 3.0, 2.0, 1.0, 6.0, 7.0, 9.0]])
r = torchsort.soft_rank(x, regularization_strength=0.001)
assert torch.allclose(r, torch.tensor([[8.0, 1, 5, 4, 3, 2, 6, 7, 9]])), r
print("soft_rank on the CPU:", r.tolist())') >"$T/cpu.out" 2>&1 || fail "the link job's wheel: $(cat "$T/cpu.out")"
ok "the link job's wheel: $(tail -1 "$T/cpu.out")"
summary
