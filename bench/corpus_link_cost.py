#!/usr/bin/env python3
"""The link job's cost on the CMake corpus fixture (tests/corpus/cmake: 13 executables, RDC,
a -fatbin and a PTX step, a generator pinned), as a ratio to the unsharded build measured
in the same `shardcc local` run, with where the link job's time went (configure, compiles,
links and other nvcc calls, other). Goal: link job <= 10 % of the unsharded
build. Run for one architecture (sm_90, as the tests build it) and for four (75;80;86;90,
as farm packages build), since the link job's fixed part (the links) does not grow with the
architectures and the compiles do; the four twice, with the default (whole TUs, hits in
the link job) and with --split-archs 4 (each TU of 4 real architectures split, and the
link job assembles it: cudafe++, the device items' keys, the host compile).

Writes bench/results/corpus_link_cost.txt. Exit status 0 whether or not the goal is met."""
import argparse
import os
import re
import shutil
import subprocess
import sys

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def local(shardcc, work, archs, n, extra):
    proj = os.path.join(work, "proj-" + archs.replace(";", "-") + "".join(extra).replace("-", ""))
    shutil.copytree(os.path.join(SRC, "tests", "corpus", "cmake"), proj)
    build = ("cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release '-DCMAKE_CUDA_ARCHITECTURES=%s' "
             ">/dev/null && cmake --build build >/dev/null" % archs)
    p = subprocess.run([shardcc, "local", "-n", str(n), "--pin", "tools/*", "--clean", "rm -rf build"] + extra +
                       ["--", "sh", "-c", build], cwd=proj, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench: shardcc local failed:\n" + p.stdout + p.stderr)
    m = re.search(r"unsharded build ([\d.]+) s", p.stdout)
    l = re.search(r"^link\s.*?([\d.]+)\s+hit rate ([\d.]+)%", p.stdout, re.M)
    t = re.search(r"^the link job's build: (.*)$", p.stdout, re.M)
    r = re.search(r"link job ([\d.]+)% of the unsharded build", p.stdout)
    if not m or not l or not t or not r:
        sys.exit("bench: cannot read shardcc local's table:\n" + p.stdout)
    shutil.rmtree(proj)
    return float(m.group(1)), float(l.group(1)), float(l.group(2)), t.group(1), p.stdout, float(r.group(1)) / 100


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each configuration (the median is the figure)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "corpus_link_cost.txt"))
    a = ap.parse_args()
    shardcc = os.path.join(os.path.abspath(a.build), "shardcc")
    with benchlib.session("corpus_link_cost", a.out) as (work, say):
        say("nvcc: %s" % benchlib.first_line(["nvcc", "--version"], last=True))
        say("cmake: %s" % benchlib.first_line(["cmake", "--version"]))
        say("shardcc: %s" % benchlib.first_line([shardcc, "--version"]))
        say()
        # four architectures twice: the default (whole TUs, hits in the link job), and
        # --split-archs 4 (each TU split; the link job compiles its host side)
        # each configuration --repeat times, each run with its own unsharded build (the
        # ratio is side by side); the median run's table is shown
        for archs, extra in (("90", []), ("75;80;86;90", []), ("75;80;86;90", ["--split-archs", "4"])):
            runs = sorted((local(shardcc, work, archs, a.n, extra) for _ in range(a.repeat)), key=lambda x: x[5])
            base, link, rate, when, table, ratio = runs[len(runs) // 2]
            say("tests/corpus/cmake, CMAKE_CUDA_ARCHITECTURES=%s, N=%d, --pin 'tools/*'%s (the median of %d runs):" %
                (archs, a.n, "".join(" " + x for x in extra), len(runs)))
            for line in table.strip().splitlines():
                say("   " + line)
            say("   link job / unsharded build, each run: %s" % " ".join("%.3f" % x[5] for x in runs))
            say("   median %.3f (goal <= 0.10) - %s, link hit rate %.1f%%" %
                (ratio, "goal met" if ratio <= 0.10 else "GOAL MISSED", rate))
            say()


if __name__ == "__main__":
    main()
