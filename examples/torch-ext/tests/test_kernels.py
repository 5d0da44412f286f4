#!/usr/bin/env python3
"""Imports the built extension and checks every kernel against plain torch.

  python3 tests/test_kernels.py [--device cpu|cuda|all] [--cpu-reference]

cpu: the CPU references (runs anywhere); cuda: the CUDA kernels (needs a GPU). With
--cpu-reference the references run on the CPU whatever the device (under
CUDA_FORCE_PTX_JIT=1 torch's own CUDA kernels, which carry no PTX, cannot run). Prints one
line per kernel and device and exits 1 on any mismatch or missing kernel."""
import argparse
import sys

import torch

import shardcc_torch_ext as ext

REFERENCE = {
    "add": (lambda a, b: ext.add(a, b), lambda a, b: a + b, 2),
    "mul": (lambda a, b: ext.mul(a, b), lambda a, b: a * b, 2),
    "relu": (lambda x: ext.relu(x), torch.relu, 1),
    "scale": (lambda x: ext.scale(x, 1.75), lambda x: 1.75 * x, 1),
    "axpy": (lambda x, y: ext.axpy(-0.5, x, y), lambda x, y: -0.5 * x + y, 2),
    "square": (lambda x: ext.square(x), lambda x: x * x, 1),
    "clamp": (lambda x: ext.clamp(x, -0.25, 0.5), lambda x: torch.clamp(x, -0.25, 0.5), 1),
    "sum": (lambda x: ext.sum(x), lambda x: x.sum().reshape(1), 1),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cpu", "cuda", "all"], default="all")
    ap.add_argument("--cpu-reference", action="store_true")
    a = ap.parse_args()
    devices = ["cpu", "cuda"] if a.device == "all" else [a.device]
    if "cuda" in devices and not torch.cuda.is_available():
        print("no CUDA device: cannot check the CUDA kernels")
        return 1
    missing = sorted(set(ext.KERNELS) - set(REFERENCE)) + sorted(k for k in ext.KERNELS if not hasattr(ext, k))
    if missing:
        print("kernels without a check: %s" % ", ".join(missing))
        return 1
    gen = torch.Generator().manual_seed(7)
    failed = 0
    for dev in devices:
        for name in ext.KERNELS:
            fn, ref, nargs = REFERENCE[name]
            for n in (1, 255, 1000, 1 << 20):
                args = [torch.randn(n, generator=gen).to(dev) for _ in range(nargs)]
                got = fn(*args)
                if dev == "cuda":
                    torch.cuda.synchronize()
                if a.cpu_reference:
                    got, want = got.cpu(), ref(*[x.cpu() for x in args])
                else:
                    want = ref(*args)
                tol = dict(rtol=1e-4, atol=1e-3 * (n ** 0.5)) if name == "sum" else dict(rtol=1e-6, atol=1e-6)
                if got.shape != want.shape or not torch.allclose(got, want, **tol):
                    print("FAIL %s on %s, n=%d: max error %g" % (name, dev, n, (got - want).abs().max().item()))
                    failed += 1
                    break
            else:
                print("ok %s on %s (n = 1, 255, 1000, 2^20)" % (name, dev))
    print("%d kernels x %d devices checked, %d failed" % (len(ext.KERNELS), len(devices), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
