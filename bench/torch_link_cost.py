#!/usr/bin/env python3
"""The torch lane's link job ÷ its unsharded build, with the host seats off and by default.

On examples/torch-ext (a setup.py CUDAExtension: 8 .cu TUs, 2 .cpp TUs of which the torch
bindings TU dominates), `shardcc local -n N` runs the unsharded wheel build (the baseline), the
N shards and the link job in one run, so each ratio is measured side by side. The build is
`python3 -m pip wheel . --no-build-isolation`, through PYTORCH_NVCC + ninja. With
--no-host-seat the link job compiles the .cpp TUs itself; by default the host seats shard
the TUs of torch extensions, so they are cache hits too.

Writes bench/results/torch_link_cost.txt. Exit status 0 whether or not the numbers are good,
1 when a run fails or its link job is not a 100 % hit rate."""
import argparse

import benchlib
import os
import platform
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
WHEEL = "python3 -m pip wheel . --no-build-isolation --no-deps -q -w dist"


def one_run(shardcc, work, n, host_seat):
    proj = os.path.join(work, "proj-%s" % ("host" if host_seat else "nohost"))
    shutil.copytree(os.path.join(SRC, "examples", "torch-ext"), proj)
    cmd = [shardcc, "local", "-n", str(n), "--clean", "rm -rf build dist *.egg-info"]
    if not host_seat:
        cmd.append("--no-host-seat")
    env = dict(os.environ, TORCH_CUDA_ARCH_LIST=os.environ.get("TORCH_CUDA_ARCH_LIST", "9.0"),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    p = subprocess.run(cmd + ["--", "sh", "-c", WHEEL], cwd=proj, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("bench: shardcc local failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
    m = re.search(r"unsharded build ([\d.]+) s", p.stdout)
    l = re.search(r"^link\s.*?([\d.]+)\s+hit rate ([\d.]+)%", p.stdout, re.M)
    if not m or not l:
        sys.exit("bench: cannot read shardcc local's table:\n" + p.stdout)
    base, link, rate = float(m.group(1)), float(l.group(1)), float(l.group(2))
    if rate != 100.0:
        sys.exit("bench: the link job's hit rate is %.1f%%, not 100%%:\n%s" % (rate, p.stdout))
    shutil.rmtree(proj, ignore_errors=True)
    return base, link, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(SRC, "build"), help="the directory holding shardcc")
    ap.add_argument("-n", type=int, default=2, help="the number of shards (default 2)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "torch_link_cost.txt"))
    a = ap.parse_args()
    shardcc = os.path.join(os.path.abspath(a.build), "shardcc")
    if subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode != 0:
        sys.exit("bench: torch is not installed (scripts/install-deps.sh installs it)")
    with benchlib.session("torch_link_cost", a.out) as (work, say):
        torch_v = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                                 capture_output=True, text=True).stdout.strip()
        say("nvcc: %s" % benchlib.first_line(["nvcc", "--version"], last=True))
        say("torch: %s; python: %s" % (torch_v, platform.python_version()))
        say("shardcc: %s" % benchlib.first_line([shardcc, "--version"]))
        say("build: %s" % WHEEL)
        say()
        ratios = {}
        for host in (False, True):
            base, link, table = one_run(shardcc, work, a.n, host)
            name = "default (host seats for torch TUs)" if host else "--no-host-seat"
            ratios[name] = link / base
            say("link job / unsharded build, examples/torch-ext, N=%d, %s:" % (a.n, name))
            for l in table.strip().splitlines():
                say("     " + l)
            say("   link %.1f s / unsharded %.1f s = %.3f" % (link, base, link / base))
            say()
        say("summary: link/unsharded %.3f with --no-host-seat, %.3f by default" %
            (ratios["--no-host-seat"], ratios["default (host seats for torch TUs)"]))


if __name__ == "__main__":
    main()
