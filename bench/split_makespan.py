#!/usr/bin/env python3
"""Split TUs against TU-level sharding, measured (docs/shardcc-wrap.md, SPLIT TUS).

A project shaped like the measured case: one heavy TU built for 8 real architectures (sm_75,
80, 86, 87, 89, 90, 100, 120) that is most of the build, and 4 light TUs for sm_90 alone,
built by make -j1 (one compile at a time, as a CI job whose cores one compile fills). Three
runs of shardcc local -n 4, side by side in one session, each with its own unsharded build:

  a. split, hash partition of the items (--split-archs 4: 8 architectures >= 4);
  b. TU-level (the default, --split-archs 0: the heavy TU is one shard's);
  c. split, with the plan shardcc plan makes from run b's artifacts (whole TUs, whose
     device items the shards timed: one TU-level run is enough to plan the split).

Makespan = the slowest shard's wall time + the link job's, each measured (shardcc local runs
the jobs one after the other and times each); the ratio is against the unsharded build of
the same run. Goals: split <= 0.35 x unsharded, TU-level >= 0.80 x (what today's sharding
cannot beat). Also: the link job's assembly of the split TU (cudafe++, each item's device
preprocessor for its key and the store's entry, fatbinary, the host compile) against that
TU's compile in the unsharded build: goal <= 0.25. Every run's products are the unsharded
build's byte for byte (--compare). Writes bench/results/split_makespan.txt."""
import argparse
import json
import os
import re
import subprocess
import sys

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)

HEAVY = r'''
template <int N> __device__ __forceinline__ float step(float a, float b) {
#pragma unroll
  for (int i = 0; i < UNROLL; i++) { a = a * b + __sinf(a + i * N); b = b * 0.999f + __cosf(a); }
  return a + b;
}
template <int N> __global__ void kern(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float a = x[i], b = x[(i + N) % n]; x[i] = step<N>(a, b) + step<N + 1>(b, a); }
}
template <int... Is> struct Launch;
template <int I, int... Is> struct Launch<I, Is...> {
  static void go(float *x, int n) { kern<I><<<(n + 255) / 256, 256>>>(x, n); Launch<Is...>::go(x, n); }
};
template <> struct Launch<> { static void go(float *, int) {} };
#define S8(b) b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7
void NAME(float *x, int n) { Launch<INSTANCES>::go(x, n); }
'''

ARCHS = (75, 80, 86, 87, 89, 90, 100, 120)
LIGHT = 4


def write_project(d):
    os.makedirs(os.path.join(d, "src"))
    with open(os.path.join(d, "src", "heavy.cu"), "w") as f:
        f.write("#define UNROLL 192\n#define NAME heavy\n#define INSTANCES S8(0), S8(8), S8(16), S8(24), S8(32), S8(40)\n")
        f.write(HEAVY)
    for i in range(LIGHT):
        with open(os.path.join(d, "src", "light%d.cu" % i), "w") as f:
            f.write("#define UNROLL 96\n#define NAME light%d\n#define INSTANCES S8(%d), S8(%d)\n" % (i, 100 * i, 100 * i + 8))
            f.write(HEAVY)
    gencode = " ".join("-gencode arch=compute_%d,code=sm_%d" % (a, a) for a in ARCHS)
    objs = " ".join(["out/heavy.o"] + ["out/light%d.o" % i for i in range(LIGHT)])
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write("NVCC ?= $(CUDACXX)\n")
        f.write("all: out/libk.so\n")
        f.write("out/libk.so: %s\n\tg++ -shared -o $@ $^ -L/usr/local/cuda/lib64 -lcudart\n" % objs)
        f.write("out/heavy.o: src/heavy.cu\n\t@mkdir -p out\n\t$(NVCC) %s -O2 -Xcompiler -fPIC -c $(CURDIR)/$< -o $@\n" % gencode)
        f.write("out/light%.o: src/light%.cu\n\t@mkdir -p out\n\t$(NVCC) -arch=sm_90 -O2 -Xcompiler -fPIC -c $(CURDIR)/$< -o $@\n")


def local(shardcc, d, extra, say, tag):
    cmd = [shardcc, "local", "-n", "4", "--jobs", "1", "--cell", "bench", "--clean", "rm -rf out",
           "--compare", "out"] + extra + ["--", "make", "-s"]
    p = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench: %s: shardcc local failed (%d):\n%s%s" % (tag, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    out = p.stdout
    m = re.search(r"predicted CI makespan: ([\d.]+) s \(slowest shard ([\d.]+) s \+ link ([\d.]+) s\); "
                  r"unsharded build ([\d.]+) s", out)
    if not m or "byte for byte" not in out:
        sys.exit("bench: %s: unexpected output:\n%s" % (tag, out))
    mk, slow, link, base = (float(x) for x in m.groups())
    rows = [l for l in out.splitlines() if re.match(r"\s+\d+/4\s", l)]
    walls = [float(l.split()[-1]) for l in rows]
    return {"makespan": mk, "slowest": slow, "link": link, "base": base, "walls": walls, "text": out}


def journal_tu(path, key):
    """(seconds, [item lines]) of the last record of key in a journal."""
    dur, items, cur = None, [], None
    with open(path) as f:
        for line in f:
            fld = line.rstrip("\n").split("\t")
            if fld[0] == "SCJ2" and fld[6] == "tu" and fld[11] == key:
                dur, items, cur = int(fld[9]) / 1e6, [], key
            elif fld[0] == "SCJ2":
                cur = None
            elif fld[0] == "SCP1" and fld[2] == "item" and cur == key:
                items.append(fld)
    return dur, items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SRC, "build"), help="the directory of shardcc and its seats")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "split_makespan.txt"))
    a = ap.parse_args()
    shardcc = os.path.join(a.build, "shardcc")
    os.environ["PATH"] = a.build + os.pathsep + os.environ["PATH"]
    with benchlib.session("split_makespan", a.out) as (work, say):
        d = os.path.join(work, "proj")
        write_project(d)
        say("shardcc: %s" % benchlib.first_line([shardcc, "--version"]))
        say("nvcc: %s" % benchlib.first_line(["nvcc", "--version"], last=True))
        say("project: src/heavy.cu for %d real architectures (%s), %d light TUs for sm_90, make -j1"
            % (len(ARCHS), ",".join("sm_%d" % x for x in ARCHS), LIGHT))
        say()
        runs = {}
        runs["split"] = local(shardcc, d, ["--split-archs", "4"], say, "split")
        base_j = os.path.join(d, ".shardcc", "local", "baseline.tsv")
        heavy_plain, _ = journal_tu(base_j, "src/heavy.cu")
        light_plain = sum(journal_tu(base_j, "src/light%d.cu" % i)[0] for i in range(LIGHT))
        asm, items = journal_tu(os.path.join(d, ".shardcc", "link", "journal.tsv"), "src/heavy.cu")
        fetch = sum(int(x[7]) for x in items) / 1e6
        hits = sum(1 for x in items if x[6] == "hit")
        runs["tu-level"] = local(shardcc, d, [], say, "tu-level")
        arts = os.path.join(work, "art-whole")
        subprocess.run(["cp", "-r", os.path.join(d, ".shardcc", "local", "artifacts"), arts], check=True)
        plan = os.path.join(work, "plan.json")
        subprocess.run([shardcc, "plan", "-n", "4", "-o", plan, arts], check=True, capture_output=True)
        runs["split, planned"] = local(shardcc, d, ["--plan", plan], say, "planned")
        say("the unsharded build: heavy.cu %.1f s, the light TUs %.1f s: heavy.cu is %.0f%% of the compile time"
            % (heavy_plain, light_plain, 100 * heavy_plain / (heavy_plain + light_plain)))
        say()
        say("  %-16s %12s %12s %10s %12s %8s   %s" % ("N = 4", "unsharded s", "slowest s", "link s",
                                                    "makespan s", "ratio", "shards' wall s"))
        goal = {"split": (0.35, "<="), "split, planned": (0.35, "<="), "tu-level": (0.80, ">=")}
        with open(plan) as f:
            placed = sorted(k for k in json.load(f)["assign"] if "#" in k)
        say("the plan from the TU-level run's artifacts places %d items: %s" % (len(placed), " ".join(placed)))
        for k in ("split", "split, planned", "tu-level"):
            r = runs[k]
            ratio = r["makespan"] / r["base"]
            g, op = goal[k]
            met = ratio <= g if op == "<=" else ratio >= g
            say("  %-16s %12.1f %12.1f %10.1f %12.1f %8.2f   %s   goal %s %.2f: %s" % (
                k, r["base"], r["slowest"], r["link"], r["makespan"], ratio,
                " ".join("%.1f" % w for w in r["walls"]), op, g, "met" if met else "NOT met"))
        say()
        say("link-job assembly of heavy.cu (split run): %.2f s against its compile in the unsharded build "
            "%.1f s: %.2f (goal <= 0.25); %d of %d items from the store, their device preprocessor runs "
            "and the store reads %.2f s in all; the rest is cudafe++'s preprocessor and front end, "
            "fatbinary and the host compile" % (asm, heavy_plain, asm / heavy_plain, hits, len(items), fetch))
        say("every run: the link job's products are the unsharded build's, byte for byte (shardcc local --compare)")


if __name__ == "__main__":
    main()
