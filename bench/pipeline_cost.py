#!/usr/bin/env python3
"""Costs of the pipeline around the seat, each as a ratio measured side by side in one run.

  1. link job / unsharded build on the bundled example (`shardcc local`, which runs both
     in the same run), by default (the host TUs compiled in every job: the host seats
     shard torch extensions' TUs only) and with --host-seat.        goal <= 0.05
  2. one cache hit through shardcc-nvcc / a direct `ccache nvcc` hit (compiler_check=string:,
     the same cache), the two interleaved call by call (A B B A ...) so that adjacent calls
     see the same load; per round the median of the pair ratios.    goal <= 1.15
     Beside it the floor: a static program that only spawns ccache and waits.
  3. `shardcc merge` / `tar -x` of the same artifacts, and merge's peak memory, for a
     synthetic cache of --merge-gib GiB in 4 shards.                goal <= 1.2, <= 64 MiB

Writes bench/results/pipeline_cost.txt. Exit status 0 whether or not the goals are met."""
import argparse

import benchlib
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd, **kw):
    t0 = time.monotonic()
    p = subprocess.run(cmd, **kw)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d)" % (cmd if isinstance(cmd, str) else " ".join(cmd), p.returncode))
    return dt


def child_maxrss_kib():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def link_ratio(shardcc, work, host_seat):
    proj = os.path.join(work, "proj-%s" % ("host" if host_seat else "nohost"))
    shutil.copytree(os.path.join(SRC, "examples", "cuda-cmake"), proj)
    cmd = [shardcc, "local", "-n", "3", "--clean", "rm -rf build"]
    if host_seat:
        cmd.append("--host-seat")
    build = "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"
    p = subprocess.run(cmd + ["--", "sh", "-c", build], cwd=proj, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bench: shardcc local failed:\n" + p.stdout + p.stderr)
    m = re.search(r"unsharded build ([\d.]+) s", p.stdout)
    l = re.search(r"^link\s.*?([\d.]+)\s+hit rate ([\d.]+)%", p.stdout, re.M)
    if not m or not l:
        sys.exit("bench: cannot read shardcc local's table:\n" + p.stdout)
    base, link, rate = float(m.group(1)), float(l.group(1)), float(l.group(2))
    return base, link, rate, p.stdout


def hit_ratio(shardcc_bin, work, rounds, calls):
    root = os.path.join(work, "hit")
    os.makedirs(os.path.join(root, "src"))
    os.makedirs(os.path.join(root, "build"))
    with open(os.path.join(root, "src", "a.cu"), "w") as f:
        f.write("template <int N> __global__ void k(float *x) { x[threadIdx.x] *= N; }\n"
                "void launch(float *x) { k<3><<<1, 32>>>(x); }\n")
    env_sh = subprocess.run([os.path.join(shardcc_bin, "shardcc"), "env", "--root", root, "--format", "json"],
                            capture_output=True, text=True, check=True).stdout
    import json
    doc = json.loads(env_sh)
    env = dict(os.environ)
    env.update(doc["set"])
    for k in doc["unset"]:
        env.pop(k, None)
    nvcc = env["SHARDCC_REAL_NVCC"]
    args = ["-O2", "-gencode=arch=compute_90,code=sm_90", "-MD", "-MF", "a.o.d", "-c", "../src/a.cu", "-o", "a.o"]
    b_dir = os.path.join(root, "build")
    run([os.path.join(shardcc_bin, "shardcc-nvcc")] + args, cwd=b_dir, env=env)  # the miss
    driver = os.path.join(work, "spawn_loop")
    run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", driver, os.path.join(HERE, "spawn_loop.c")])
    # the floors are linked as the seat is (static, with the seat's libc): the difference
    # is then the seat's own work, not its C library's start-up
    libc = re.search(r"\(libc: (\w+)\)", subprocess.run([os.path.join(shardcc_bin, "shardcc-wrap"), "--version"],
                                                         capture_output=True, text=True, check=True).stdout).group(1)
    floor_cc = "musl-gcc" if libc == "musl" else "cc"
    floor_bin = os.path.join(work, "spawn_wait")
    run([floor_cc, "-O2", "-static", "-Wall", "-Wextra", "-Werror", "-o", floor_bin, os.path.join(HERE, "spawn_wait.c")])
    seat = [os.path.join(shardcc_bin, "shardcc-nvcc")] + args
    direct = [env["SHARDCC_CCACHE"], nvcc] + args
    floor = [floor_bin] + direct
    exec_bin = os.path.join(work, "exec_only")
    run([floor_cc, "-O2", "-static", "-Wall", "-Wextra", "-Werror", "-o", exec_bin, os.path.join(HERE, "exec_only.c")])
    exec_floor = [exec_bin] + direct
    res = {"seat": [], "floor": [], "exec": []}  # per round: (ms per call, ms per ccache call, median pair ratio)
    seat_calls = seat_hits = 0
    for r in range(rounds):
        for what, cmd in (("seat", seat), ("floor", floor), ("exec", exec_floor)):
            # the two interleaved call by call (A B B A ...): adjacent calls see the same load
            open(env["SHARDCC_JOURNAL"], "w").close()
            a, b = (cmd, direct) if r % 2 == 0 else (direct, cmd)
            out = subprocess.run([driver, "-u", "a.o", "-u", "a.o.d", str(calls)] + a + [":::"] + b, cwd=b_dir,
                                 env=env, capture_output=True, text=True, check=True).stdout.split()
            ta, tb, ratio = float(out[0]) / 1e6, float(out[1]) / 1e6, float(out[2])
            if a is direct:
                ta, tb, ratio = tb, ta, 1 / ratio
            res[what].append((ta, tb, ratio))
            if what == "seat":
                with open(env["SHARDCC_JOURNAL"]) as f:  # every timed seat call was a hit
                    recs = [l.split("\t") for l in f if l.startswith("SCJ2")]
                seat_calls += len(recs)
                seat_hits += sum(1 for x in recs if x[13] == "hit")
    if seat_hits != seat_calls or seat_calls != rounds * calls:
        sys.exit("bench: the seat's calls were not all hits (%d/%d of %d)" % (seat_hits, seat_calls, rounds * calls))
    out = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v),
               statistics.median(x[2] for x in v), [x[2] for x in v]) for k, v in res.items()}
    out["libc"] = libc
    return out


def merge_ratio(shardcc_bin, work, gib, rounds):
    shardcc = os.path.join(shardcc_bin, "shardcc")
    root = os.path.join(work, "merge")
    os.makedirs(os.path.join(root, "art"))
    with open(os.path.join(root, "t.c"), "w") as f:
        f.write("int t(void) { return 1; }\n")
    per_shard = int(gib * (1 << 30) / 4)
    entry = 1 << 20  # 1 MiB entries, like the objects of large CUDA TUs
    rnd = random.Random(1)
    alphabet = "0123456789abcdefghijklmnopqrstuv"
    for i in range(1, 5):
        # the shard's "build": one real TU through the seat, then the synthetic entries
        gen = os.path.join(root, "gen%d.py" % i)
        names = ["".join(rnd.choice(alphabet) for _ in range(33)) for _ in range(per_shard // entry)]
        with open(gen, "w") as f:
            f.write("import os\nd = os.environ['CCACHE_DIR']\n")
            f.write("names = %r\n" % names)
            f.write("for n in names:\n    p = os.path.join(d, n[0], n[1])\n    os.makedirs(p, exist_ok=True)\n"
                    "    with open(os.path.join(p, n[2:] + 'R'), 'wb') as f:\n        f.write(os.urandom(%d))\n" % entry)
        build = "%s/shardcc-cc -c t.c -o t.o && %s %s" % (shardcc_bin, sys.executable, gen)
        run([shardcc, "shard", "--shard", "%d/4" % i, "--cell", "bench", "--root", root, "--artifact",
             os.path.join(root, "art"), "--", "sh", "-c", build], cwd=root, capture_output=True)
    arts = sorted(os.path.join(root, "art", a) for a in os.listdir(os.path.join(root, "art")))
    size = sum(os.path.getsize(a) for a in arts)
    t_merge, t_tar, ratios = [], [], []
    peak_kib = 0
    for r in range(rounds):
        order = ["merge", "tar"] if r % 2 == 0 else ["tar", "merge"]
        got = {}
        for k in order:
            dest = os.path.join(root, "out-%s-%d" % (k, r))
            if k == "merge":
                got[k] = timed([shardcc, "merge", "--cache", dest] + arts, capture_output=True)
                peak_kib = max(peak_kib, child_maxrss_kib())
            else:
                os.makedirs(dest)
                got[k] = timed("for a in %s; do tar --zstd -xf \"$a\" -C %s; done" % (" ".join(arts), dest),
                               shell=True)
            shutil.rmtree(dest)
        t_merge.append(got["merge"])
        t_tar.append(got["tar"])
        ratios.append(got["merge"] / got["tar"])
    # ru_maxrss of children is the largest of any child so far: measure merge's alone
    p = subprocess.run(["/usr/bin/time", "-f", "%M", shardcc, "merge", "--cache", os.path.join(root, "out-rss")] + arts,
                       capture_output=True, text=True)
    rss_kib = int(p.stderr.strip().splitlines()[-1])
    shutil.rmtree(os.path.join(root, "out-rss"), ignore_errors=True)
    return size, statistics.median(t_merge), statistics.median(t_tar), statistics.median(ratios), rss_kib


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--merge-gib", type=float, default=2.0)
    ap.add_argument("--skip-link", action="store_true", help="leave out part 1 (two full shardcc local runs)")
    ap.add_argument("--skip-merge", action="store_true", help="leave out part 3 (the synthetic cache)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "pipeline_cost.txt"))
    a = ap.parse_args()
    shardcc_bin = os.path.abspath(a.build)
    with benchlib.session("pipeline_cost", a.out) as (work, say):
        say("nvcc: %s" % benchlib.first_line(["nvcc", "--version"], last=True))
        say("ccache: %s" % benchlib.first_line(["ccache", "--version"]))
        say("shardcc: %s" % benchlib.first_line([os.path.join(shardcc_bin, "shardcc"), "--version"]))
        say("seat: %s" % benchlib.first_line([os.path.join(shardcc_bin, "shardcc-wrap"), "--version"]))
        say()
        if not a.skip_link:
            for host in (False, True):
                base, link, rate, table = link_ratio(os.path.join(shardcc_bin, "shardcc"), work, host)
                say("1. link job / unsharded build, examples/cuda-cmake, N=3, %s:" %
                    ("--host-seat" if host else "default options"))
                for l in table.strip().splitlines():
                    say("     " + l)
                say("   link %.1f s / unsharded %.1f s = %.3f (goal <= 0.05) - %s, link hit rate %.1f%%" %
                    (link, base, link / base, "goal met" if link / base <= 0.05 else "GOAL MISSED", rate))
                say()
        hit = hit_ratio(shardcc_bin, work, a.rounds, a.calls)
        seat, direct, ratio, ratios = hit["seat"]
        say("2. one cache hit: shardcc-nvcc %.2f ms, ccache nvcc %.2f ms (medians of %d rounds x %d interleaved pairs)" %
            (seat, direct, a.rounds, a.calls))
        say("   seat/ccache ratio %.3f (per round %s) (goal <= 1.15) - %s" %
            (ratio, " ".join("%.3f" % r for r in ratios), "goal met" if ratio <= 1.15 else "GOAL MISSED"))
        fl, fd, fratio, fratios = hit["floor"]
        say("   floor: spawn_wait (static, %s like the seat, spawns ccache and waits, nothing else) %.2f ms, ccache nvcc %.2f ms:" %
            (hit["libc"], fl, fd))
        say("   floor/ccache ratio %.3f (per round %s); the seat's own work: %.3f of a hit" %
            (fratio, " ".join("%.3f" % r for r in fratios), ratio - fratio))
        el, ed, eratio, eratios = hit["exec"]
        say("   exec floor: exec_only (static, %s, replaces itself with ccache) %.2f ms, ccache nvcc %.2f ms:" %
            (hit["libc"], el, ed))
        say("   exec/ccache ratio %.3f (per round %s); waiting for ccache instead of becoming it: %.3f of a hit" %
            (eratio, " ".join("%.3f" % r for r in eratios), fratio - eratio))
        say()
        if a.skip_merge:
            return
        size, tm, tt, mr, rss = merge_ratio(shardcc_bin, work, a.merge_gib, max(3, a.rounds // 2))
        say("3. merge of 4 artifacts, %.2f GiB: shardcc merge %.2f s, tar -x %.2f s (medians)" %
            (size / (1 << 30), tm, tt))
        say("   merge/tar ratio %.3f (goal <= 1.2) - %s" % (mr, "goal met" if mr <= 1.2 else "GOAL MISSED"))
        say("   merge peak memory %.1f MiB (goal <= 64 MiB) - %s" %
            (rss / 1024, "goal met" if rss <= 64 * 1024 else "GOAL MISSED"))


if __name__ == "__main__":
    main()
