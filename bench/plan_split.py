#!/usr/bin/env python3
"""The plan over split TUs' items: flash-attention's measured per-TU compile times
(../shared/data/fa2-sm90-tu-seconds.tsv, 82 TUs, sm_90), each TU assumed built for 4
architectures of equal cost (items KEY#compute_80, _86, _89, _90, each the TU's sm_90 time),
planned by shardcc plan for every N from 2 to 64. ratio = makespan / ideal, ideal =
max(total / N, longest item); beside the plan's: the plan of the same TUs whole (no items:
the best TU-level sharding does, bounded below by the longest TU) and the hash partition of
the items, on the same ideal. Goal: <= 1.05 for N up to 40. Writes
bench/results/plan_split.txt."""
import argparse
import json
import os
import subprocess
import sys

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
FA2 = os.path.join(os.path.dirname(SRC), "shared", "data", "fa2-sm90-tu-seconds.tsv")
ARCHS = ("compute_80", "compute_86", "compute_89", "compute_90")


def plan(shardcc, n, table):
    p = subprocess.run([shardcc, "plan", "-n", str(n), table], capture_output=True, text=True)
    if p.returncode:
        sys.exit("bench: shardcc plan failed: %s" % p.stderr)
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "plan_split.txt"))
    a = ap.parse_args()
    shardcc = os.path.join(a.build, "shardcc")
    with benchlib.session("plan_split", a.out) as (work, say):
        cost = {}
        with open(FA2) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    k, s = line.rstrip("\n").split("\t")
                    cost[k + (".cpp" if k.endswith("flash_api") else ".cu")] = float(s)
        items, whole = os.path.join(work, "items.tsv"), os.path.join(work, "whole.tsv")
        with open(items, "w") as f, open(whole, "w") as g:
            for k in sorted(cost):
                for x in ARCHS:
                    f.write("%s#%s\t%s\n" % (k, x, cost[k]))
                g.write("%s\t%s\n" % (k, len(ARCHS) * cost[k]))
        say("shardcc: %s" % benchlib.first_line([shardcc, "--version"]))
        say("flash-attention FA2, %d TUs x %d architectures, %.0f s of compile time, longest TU %.0f s, "
            "longest item %.1f s" % (len(cost), len(ARCHS), len(ARCHS) * sum(cost.values()),
                                     len(ARCHS) * max(cost.values()), max(cost.values())))
        say("  %3s %10s %14s %10s %12s %14s" % ("N", "ideal s", "plan / ideal", "TUs split", "whole / ideal",
                                               "hash / ideal"))
        worst = 0
        worst_all = 0
        for n in range(2, 65):
            p = plan(shardcc, n, items)
            w = plan(shardcc, n, whole)
            m = p["makespan"]
            r = m["plan"] / m["ideal"]
            worst = max(worst, r) if n <= 40 else worst
            worst_all = max(worst_all, r)
            split = len({k.split("#")[0] for k in p["assign"] if "#" in k})
            say("  %3d %10.1f %14.3f %10d %12.3f %14.3f" % (n, m["ideal"], r, split,
                                                           w["makespan"]["plan"] / m["ideal"],
                                                           m["hash"] / m["ideal"]))
        say("worst plan / ideal over N = 2..40: %.3f (goal <= 1.05: %s); over N = 2..64: %.3f"
            % (worst, "met" if worst <= 1.05 else "NOT met", worst_all))


if __name__ == "__main__":
    main()
