#!/usr/bin/env python3
"""How balanced are the shards? makespan / ideal for the hash partition, the count-balanced
plan and the longest-processing-time-first plan (shardcc plan), where
ideal = max(total compile time / N, longest TU) and makespan = the slowest shard's compile
time.

  1. flash-attention's measured per-TU compile times (../shared/data/fa2-sm90-tu-seconds.tsv,
     82 TUs, 16-core machine), N in {4, 8, 12, 20}: hash, count-balanced and LPT side by side
     (computed: the same costs under each assignment).
  2. examples/cuda-cmake (24 TUs of skewed cost), N in {3, 4, 7}, measured: for each N, the N
     shard jobs with the hash partition, then shardcc plan from their artifacts, then the N
     shard jobs with that plan; each ratio from its own run's measured compile times. The
     plan's own prediction (on the costs it was made from) is printed beside it: the gap
     between the two is run-to-run noise in the per-TU wall times.

Goal: plan <= 1.10. Writes bench/results/plan_balance.txt."""
import argparse

import benchlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
FA2 = os.path.join(os.path.dirname(SRC), "shared", "data", "fa2-sm90-tu-seconds.tsv")


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def makespan(assign, cost, n):
    loads = [0.0] * (n + 1)
    for k, s in assign.items():
        loads[s] += cost[k]
    return max(loads[1:]), sum(1 for x in loads[1:] if x == 0)


def fa2(shardcc, work, say):
    cost = {}
    with open(FA2) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, sec = line.rstrip("\n").split("\t")
            # the keys the seat would see: root-relative source paths
            cost[name + (".cpp" if name.endswith("flash_api") else ".cu")] = float(sec)
    table = os.path.join(work, "fa2.tsv")
    ones = os.path.join(work, "fa2-ones.tsv")
    with open(table, "w") as f, open(ones, "w") as g:
        for k in sorted(cost):
            f.write("%s\t%s\n" % (k, cost[k]))
            g.write("%s\t1\n" % k)
    total, longest = sum(cost.values()), max(cost.values())
    say("1. flash-attention FA2 sm_90, %d TUs, %.0f s of compile time, longest TU %.1f s (%s)" %
        (len(cost), total, longest, os.path.basename(FA2)))
    say("   %3s %8s   %-22s %-22s %-22s" % ("N", "ideal s", "hash", "count-balanced", "LPT plan"))
    for n in (4, 8, 12, 20):
        lpt = json.loads(run([shardcc, "plan", "-n", str(n), table]))
        cnt = json.loads(run([shardcc, "plan", "-n", str(n), ones]))
        ideal = max(total / n, longest)
        h = json.loads(run([shardcc, "plan", "-n", str(n), table]))["makespan"]["hash"]
        # the hash partition's own assignment, to count its empty shards
        hm = {}
        for k in cost:
            hm[k] = json.loads(run([shardcc, "classify", "--root", work, "--shard", "1/%d" % n, "--", "nvcc", "-c",
                                    os.path.join(work, k), "-o", "x.o"]))["owner"]
        hmk, hempty = makespan(hm, cost, n)
        assert abs(hmk - h) < 0.01, (hmk, h)
        cmk, cempty = makespan(cnt["assign"], cost, n)
        lmk, lempty = makespan(lpt["assign"], cost, n)
        say("   %3d %8.1f   %5.2f (%d empty)%-8s %5.2f (%d empty)%-8s %5.2f (%d empty)" %
            (n, ideal, hmk / ideal, hempty, "", cmk / ideal, cempty, "", lmk / ideal, lempty))
    say()


def shard_seconds(art_dir):
    per, costs = {}, {}
    for a in sorted(os.listdir(art_dir)):
        m = json.loads(run(["tar", "--zstd", "-xOf", os.path.join(art_dir, a), "manifest.json"]))
        s = 0.0
        for t in m["tus"]:
            if t["decision"] == "owned":
                s += t["seconds"]
                costs[t["key"]] = t["seconds"]
        per[m["shard"]] = s
    return per, costs


def example(shardcc, work, say):
    proj = os.path.join(work, "proj")
    shutil.copytree(os.path.join(SRC, "examples", "cuda-cmake"), proj)
    build = "rm -rf build && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
    say("2. examples/cuda-cmake, measured (compile seconds per shard from the manifests; "
        "CMAKE_BUILD_PARALLEL_LEVEL=%s)" % env["CMAKE_BUILD_PARALLEL_LEVEL"])
    say("   %3s   %-34s %-34s %s" % ("N", "hash: slowest / ideal = ratio", "LPT plan: slowest / ideal = ratio",
                                   "(plan predicted on the hash run's costs)"))
    out = {}
    for n in (3, 4, 7):
        row = []
        plan = os.path.join(work, "plan-%d.json" % n)
        for kind in ("hash", "plan"):
            arts = os.path.join(work, "art-%s-%d" % (kind, n))
            os.makedirs(arts)
            for i in range(1, n + 1):
                cmd = [shardcc, "shard", "--shard", "%d/%d" % (i, n), "--cell", "bench", "--artifact", arts]
                if kind == "plan":
                    cmd += ["--plan", plan]
                run(cmd + ["--", "sh", "-c", build], cwd=proj, env=env)
            per, costs = shard_seconds(arts)
            ideal = max(sum(costs.values()) / n, max(costs.values()))
            slowest = max(per.values())
            row.append((slowest, ideal, slowest / ideal))
            if kind == "hash":
                run([shardcc, "plan", "-n", str(n), "-o", plan, arts])
                with open(plan) as f:
                    ms = json.load(f)["makespan"]
                predicted = ms["plan"] / ms["ideal"]  # on the hash run's own costs
        out[n] = row
        say("   %3d   %6.1f / %6.1f = %5.2f%-14s %6.1f / %6.1f = %5.2f  %-11s (%.2f)" %
            (n, row[0][0], row[0][1], row[0][2], "", row[1][0], row[1][1], row[1][2],
             "goal met" if row[1][2] <= 1.10 else "GOAL MISSED", predicted))
    say()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--skip-example", action="store_true", help="only the flash-attention table")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "plan_balance.txt"))
    a = ap.parse_args()
    shardcc = os.path.join(os.path.abspath(a.build), "shardcc")
    with benchlib.session("plan_balance", a.out) as (work, say):
        say("shardcc: %s" % benchlib.first_line([shardcc, "--version"]))
        say("ratio = makespan / ideal, ideal = max(total / N, longest TU); goal for the plan <= 1.10")
        say()
        fa2(shardcc, work, say)
        if not a.skip_example:
            example(shardcc, work, say)


if __name__ == "__main__":
    main()
