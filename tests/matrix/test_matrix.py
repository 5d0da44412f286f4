#!/usr/bin/env python3
"""shardcc matrix and shardcc shard --shard auto, against the real binary.

Farm-scale planning (4 packages, N = 20, 20, 10, 10, 140 cells per platform, 3 platforms):
every list of every dispatch within --max-jobs, every shard of every cell exactly once, a
cell's shards and link in one dispatch, artifact names distinct and never hidden. Then the
grid's rules (exclusions, narrowing, unsharded platforms), the cap error, the malformed
YAML cases (each with its FILE:LINE:COLUMN), and the CI engines' shard indexes."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

FAILS = []
CHECKS = 0


def check(cond, what):
    global CHECKS
    CHECKS += 1
    if cond:
        print("ok %d - %s" % (CHECKS, what))
    else:
        print("FAIL: %s" % what)
        FAILS.append(what)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def matrix(shardcc, args, cwd):
    p = subprocess.run([shardcc, "matrix"] + args, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def farm(shardcc, d):
    write(os.path.join(d, "farm-cells.yml"),
          "platforms:\n"
          "  - {name: linux, arch: x86_64}\n"
          "  - {name: linux_aarch64, arch: aarch64}\n"
          "  - {name: windows, arch: x86_64}\n"
          'python: ["3.9", "3.10", "3.11", "3.12", "3.13"]\n'
          'cuda: ["12.6", "12.8", "12.9", "13.0"]\n'
          'torch: ["2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0"]\n')
    for name, n in (("flash-attn", 20), ("xformers", 20), ("mamba-ssm", 10), ("causal-conv1d", 10)):
        write(os.path.join(d, "farm", name, "package.yml"), "sharding: %d\n" % n)
    rc, out, err = matrix(shardcc, ["--packages", "farm", "--cells", "farm-cells.yml"], d)
    check(rc == 0, "farm: exit 0 (%s)" % err.strip())
    plan = json.loads(out)
    ds = plan["dispatches"]
    check(all(len(x["shards"]) <= 256 and len(x["links"]) <= 256 for x in ds),
          "farm: every list of %d dispatches within 256 jobs" % len(ds))
    cells_per_pkg = 3 * 5 * 4 * 7
    want = {"flash-attn": 20, "xformers": 20, "mamba-ssm": 10, "causal-conv1d": 10}
    seen, where, links = {}, {}, {}
    for i, x in enumerate(ds):
        for s in x["shards"]:
            key = (s["cell"], s["shard"])
            seen[key] = seen.get(key, 0) + 1
            where.setdefault(s["cell"], set()).add(i)
        for l in x["links"]:
            links[l["cell"]] = (i, l)
    total = sum(want[p] for p in want) * cells_per_pkg
    check(sum(seen.values()) == total and len(seen) == total,
          "farm: %d shard jobs, each (cell, shard) once" % total)
    check(all(v == 1 for v in seen.values()), "farm: no shard twice")
    full = all(sorted(k for (c, k) in seen if c == cell) == list(range(1, links[cell][1]["count"] + 1))
               for cell in links)
    check(full, "farm: every cell has shards 1..N")
    check(len(links) == 4 * cells_per_pkg, "farm: one link job per cell (%d)" % (4 * cells_per_pkg))
    check(all(where[c] == {links[c][0]} for c in where), "farm: a cell's shards and link share one dispatch")
    arts = [s["artifact"] for x in ds for s in x["shards"]]
    check(len(set(arts)) == len(arts), "farm: %d artifact names, all distinct" % len(arts))
    check(not any(a.startswith(".") for a in arts), "farm: no artifact name starts with '.'")
    import fnmatch
    ok = all(fnmatch.filter(arts, l["artifacts"]) == [s["artifact"] for x in ds for s in x["shards"]
                                                       if s["cell"] == c] for c, (_, l) in links.items()
             if c.startswith("flash-attn-linux-x86_64-py3.9"))
    check(ok, "farm: a link's artifact pattern matches its own shards only")
    check(all(set(s) >= {"package", "cell", "platform", "arch", "python", "cuda", "torch", "shard", "count",
                         "artifact"} for x in ds for s in x["shards"]), "farm: shard entries carry every field")
    rc, out, err = matrix(shardcc, ["--packages", "farm", "--cells", "farm-cells.yml", "--max-jobs", "15"], d)
    check(rc == 2 and "has 20 shards, more than --max-jobs 15" in err,
          "a cell that cannot fit one dispatch is an error: %s" % err.strip())


def rules(shardcc, d):
    write(os.path.join(d, "cells.yml"),
          "platforms:\n"
          "  - {name: linux, arch: x86_64}\n"
          "  - {name: linux_aarch64, arch: aarch64}\n"
          "  - {name: windows, arch: x86_64}\n"
          'python: ["3.10", "3.11", "3.12", "3.13"]\n'
          'cuda: ["12.8", "13.0"]\n'
          'torch: ["2.9.1", "2.10.0"]\n'
          "exclude:\n"
          '  - {platform: windows, python: "3.10"}\n')
    write(os.path.join(d, "pk", "fa", "package.yml"),
          "name: fa\nsharding: 4\nsharding_platforms: [linux]\nmin_hit_rate: 0.95\nhost_seat: true\nreproducible: true\n"
          "pin: ['tools/*', 'gen/main.cu']\n")
    write(os.path.join(d, "pk", "narrow", "package.yml"),
          'sharding: 2\npython: ["3.12"]\ncuda: ["13.0"]\nremote: "redis://${CACHE_PW}@cache:6379|read-only"\n')
    write(os.path.join(d, "pk", "off", "package.yml"), "sharding: 0\nplatforms: [windows]\nhost_seat: false\n")
    rc, out, err = matrix(shardcc, ["--packages", "pk", "--cells", "cells.yml"], d)
    check(rc == 0, "grid: exit 0 (%s)" % err.strip())
    plan = json.loads(out)
    links = [l for x in plan["dispatches"] for l in x["links"]]
    shards = [s for x in plan["dispatches"] for s in x["shards"]]
    fa = [l for l in links if l["package"] == "fa"]
    check(len(fa) == 3 * 16 - 4, "grid: the exclusion drops windows/python 3.10 (%d cells of fa)" % len(fa))
    check(all(l["count"] == 4 and l["artifacts"] == "shard-%s-*-of-4" % l["cell"]
              for l in fa if l["platform"] == "linux"), "grid: fa shards 4 ways on linux")
    check(all(l["count"] == 0 and l["artifacts"] is None for l in fa if l["platform"] != "linux"),
          "grid: other platforms build unsharded (count 0)")
    check(all(l["min_hit_rate"] == 0.95 and l["host_seat"] is True for l in fa), "grid: min_hit_rate and host_seat carried")
    check('"min_hit_rate":0.95,' in out and '"min_hit_rate":0.9,' in out and "000000000" not in out,
          "grid: rates printed as written (0.95, the default 0.9), not 0.94999999999999996")
    fas = [s for s in shards if s["package"] == "fa"]
    check(fas and all(s["pin"] == "tools/*:gen/main.cu" for s in fas), "grid: pin carried to fa's shards")
    check(all(s["pin"] == "" for s in shards if s["package"] != "fa"), "grid: no pin is an empty pin")
    check(all(e["remote"] == ("redis://${CACHE_PW}@cache:6379|read-only" if e["package"] == "narrow" else "")
              for e in shards + links) and any(e["package"] == "narrow" for e in shards),
          "grid: remote carried as written to the package's shard and link entries, else empty")
    nar = [l for l in links if l["package"] == "narrow"]
    check(nar and all(x["host_seat"] == "torch" for x in nar + [s for s in shards if s["package"] == "narrow"]),
          "grid: host_seat defaults to torch (the host seats shard torch extensions' TUs only)")
    check(all(x["reproducible"] is True for x in fa + fas) and
          all(x["reproducible"] == "auto" for x in nar), "grid: reproducible carried (default auto)")
    off = [l for l in links if l["package"] == "off"]
    check(off and all(l["host_seat"] is False for l in off), "grid: host_seat: false carried as false")
    check(len(nar) == 6 and all(l["python"] == "3.12" and l["cuda"] == "13.0" for l in nar),
          "grid: a package narrows the grid (6 cells: 3 platforms x 2 torch)")
    off = [l for l in links if l["package"] == "off"]
    check(len(off) == 12 and all(l["count"] == 0 for l in off), "grid: sharding 0 is off (12 windows cells)")
    check(len(shards) == 16 * 4 + 6 * 2, "grid: %d shard jobs" % len(shards))
    check(links[0]["cell"] == "fa-linux-x86_64-py3.10-cu12.8-torch2.9.1", "grid: cell id " + links[0]["cell"])
    # a grid without torch: the cell id and entries leave it out
    write(os.path.join(d, "notorch.yml"), "platforms: [{name: linux, arch: x86_64}]\ncuda: ['13.0']\n")
    write(os.path.join(d, "lib.yml"), "name: cutlass-lib\nsharding: 3\n")
    rc, out, err = matrix(shardcc, ["--packages", "lib.yml", "--cells", "notorch.yml"], d)
    plan = json.loads(out) if rc == 0 else {"dispatches": [{"links": [{}]}]}
    l = plan["dispatches"][0]["links"][0]
    check(rc == 0 and l.get("cell") == "cutlass-lib-linux-x86_64-cu13.0" and l.get("torch", 1) is None,
          "grid: absent dimensions are left out (%s)" % l.get("cell"))

# A farm's own files: package files with the farm's keys (some colliding with
# shardcc's generic ones, some through "<<:" merges), two torch-free packages with axes,
# three sharded ones, a sparse grid of combinations over 3 platforms. The expected cells
# are computed here from the YAML's meaning, not from the tool's output.
PLATS = [("linux", "x86_64"), ("linux_aarch64", "aarch64"), ("windows", "x86_64")]
TORCH = [  # torch release, its CUDA versions, its Python versions
    ("2.5.1", ["11.8", "12.1", "12.4"], ["3.9", "3.10", "3.11", "3.12"]),
    ("2.6.0", ["11.8", "12.4", "12.6"], ["3.9", "3.10", "3.11", "3.12", "3.13"]),
    ("2.7.1", ["11.8", "12.6", "12.8"], ["3.9", "3.10", "3.11", "3.12", "3.13"]),
    ("2.8.0", ["12.6", "12.8", "12.9"], ["3.9", "3.10", "3.11", "3.12", "3.13"]),
    ("2.9.1", ["12.6", "12.8", "13.0"], ["3.10", "3.11", "3.12", "3.13", "3.14"]),
    ("2.10.0", ["12.6", "12.8", "13.0"], ["3.10", "3.11", "3.12", "3.13", "3.14"]),
    ("2.11.0", ["12.8", "13.0"], ["3.10", "3.11", "3.12", "3.13", "3.14"]),
]
EXCLUDE = [{"platform": "windows", "python": "3.14"}, {"platform": "linux_aarch64", "cuda": "11.8"}]


def farm_grid():
    """The combinations as written (each a dict of lists and an optional platform list)."""
    combos = []
    for torch, cudas, pys in TORCH:
        for cu in cudas:
            combos.append({"cuda": [cu], "torch": [torch], "python": pys, "platform": ["linux", "windows"]})
        # aarch64 wheels for the newer CUDA only, and one combination written twice over
        combos.append({"cuda": cudas[-2:], "torch": [torch], "python": pys, "platform": ["linux_aarch64"]})
    combos.append({"cuda": ["13.0"], "torch": ["2.10.0"], "python": ["3.12", "3.13"]})  # overlaps, all platforms
    return combos


def farm_points(combos):
    """platform -> the ordered distinct (python, cuda, torch) points, exclusions applied."""
    pts = {}
    for name, _ in PLATS:
        seen = []
        for c in combos:
            if "platform" in c and name not in c["platform"]:
                continue
            for py in c["python"]:
                for cu in c["cuda"]:
                    for t in c["torch"]:
                        p = (py, cu, t)
                        bad = any(all({"platform": name, "python": py, "cuda": cu, "torch": t}[k] == v
                                      for k, v in x.items()) for x in EXCLUDE)
                        if p not in seen and not bad:
                            seen.append(p)
        pts[name] = seen
    return pts


def yaml_list(v):
    return "[" + ", ".join('"%s"' % x for x in v) + "]"


def farm_files(shardcc, d):
    root = os.path.join(d, "farm15")
    combos = farm_grid()
    lines = ["platforms:"] + ["  - {name: %s, arch: %s}" % p for p in PLATS] + ["combinations:"]
    for c in combos:
        parts = ["%s: %s" % (k, yaml_list(c[k])) for k in ("cuda", "torch", "python")]
        if "platform" in c:
            parts.append("platform: %s" % yaml_list(c["platform"]))
        lines.append("  - {" + ", ".join(parts) + "}")
    lines.append("exclude:")
    lines += ["  - {" + ", ".join('%s: "%s"' % kv for kv in x.items()) + "}" for x in EXCLUDE]
    write(os.path.join(root, "cells.yml"), "\n".join(lines) + "\n")
    check(len(combos) >= 25, "farm15: %d combinations over 3 platforms" % len(combos))
    # package name -> (file text, sharding N, sharding platforms or None, axes, narrowing)
    P = {}
    P["flash-attn"] = ("x-sharded: &sharded {sharding: 20, max_jobs: 4}\n"
                       "<<: *sharded\n"
                       "source: {repo: Dao-AILab/flash-attention, ref: v2.8.3}\n"
                       "links_torch: true\n"
                       'python: ">=3.9"\n'
                       "platform: [linux, windows]\n"
                       "shardcc:\n"
                       "  sharding_platforms: [linux, linux_aarch64]\n"
                       "  pin: ['csrc/tools/*']\n", 20, ["linux", "linux_aarch64"], "pct", {})
    P["xformers"] = ("sharding: 10\nsharding_platforms: [linux]\nmax_jobs: 2\npatches: [fix-sm120.patch]\n"
                     "env: {XFORMERS_BUILD_TYPE: Release}\nversion: 0.0.30\npip: [xformers]\n",
                     10, ["linux"], "pct", {})
    P["cutlass-lib"] = ("links_torch: false\nsharding: 4\naxes: [platform, python, cuda]\nsource: nvidia/cutlass\n",
                        4, None, "pc", {})
    P["nvcomp-lib"] = ("python: any\nlinks_torch: false\nshardcc:\n  axes: [cuda]\n  platforms: [linux, windows]\n",
                       0, None, "c", {"platform": ["linux", "windows"]})
    defaults = "x-farm: &farm\n  max_jobs: 8\n  build_isolation: false\n  links_torch: true\n"
    for i in range(30):
        name = "pkg%02d" % i
        if i % 3 == 0:  # a farm default through a merge, foreign keys only
            text = defaults + "<<: *farm\nversion: 1.%d\nurl: https://example.org/%s\n" % (i, name)
            P[name] = (text, 0, None, "pct", {})
        elif i % 3 == 1:  # shardcc's keys under the farm's own "name" and "python" meanings
            text = ("name: {pypi: %s-cu}\npython: '>=3.10'\nplatforms: all\n"
                    "shardcc:\n  python: ['3.12', '3.13']\n  cuda: ['12.8', '13.0']\n" % name)
            P[name] = (text, 0, None, "pct", {"python": ["3.12", "3.13"], "cuda": ["12.8", "13.0"]})
        else:  # the plain form: shardcc's generic keys meaning what shardcc means
            text = "name: %s\nplatforms: [linux]\ntorch: ['2.10.0', '2.11.0']\nhomepage: x\nflags: ['-O3']\n" % name
            P[name] = (text, 0, None, "pct", {"platform": ["linux"], "torch": ["2.10.0", "2.11.0"]})
    for name, (text, *_rest) in P.items():
        write(os.path.join(root, "packages", name, "package.yml"), text)
    check(len(P) >= 30, "farm15: %d package files" % len(P))
    t0 = time.monotonic()
    rc, out, err = matrix(shardcc, ["--packages", "packages", "--cells", "cells.yml", "--summary"], root)
    took = time.monotonic() - t0
    check(rc == 0, "farm15: exit 0 (%s)" % err.strip()[-300:])
    if rc:
        return
    # the bound: well under a second; a sanitized build (scripts/test.sh's second pass) is slower
    bound = 3.0 if os.environ.get("ASAN_OPTIONS") else 1.0
    check(took < bound, "farm15: planned in %.2f s (bound %.1f s)" % (took, bound))
    plan = json.loads(out)
    links = [l for x in plan["dispatches"] for l in x["links"]]
    shards = [s for x in plan["dispatches"] for s in x["shards"]]
    pts = farm_points(combos)
    dims = {"p": 0, "c": 1, "t": 2}
    want_cells, want_shards = {}, {}
    for name, (_, n, splats, axes, narrow) in P.items():
        ids = []
        for plat, arch in PLATS:
            if "platform" in narrow and plat not in narrow["platform"]:
                continue
            for py, cu, t in pts[plat]:
                if any(v not in narrow.get(k, [v]) for k, v in (("python", py), ("cuda", cu), ("torch", t))):
                    continue
                cid = "%s-%s-%s" % (name, plat, arch)
                for letter, prefix, v in (("p", "py", py), ("c", "cu", cu), ("t", "torch", t)):
                    if letter in axes:
                        cid += "-%s%s" % (prefix, v)
                if cid not in ids:
                    ids.append(cid)
                    if n and (splats is None or plat in splats):
                        want_shards[name] = want_shards.get(name, 0) + n
        want_cells[name] = ids
    got_cells = {}
    for l in links:
        got_cells.setdefault(l["package"], []).append(l["cell"])
    check(got_cells == want_cells,
          "farm15: every package's cells, in order, as the grid's meaning gives them (%d cells)" %
          sum(len(v) for v in want_cells.values()))
    for name in P:
        if got_cells.get(name) != want_cells[name]:
            print("   %s: got %d cells, want %d; first difference: %s" % (
                name, len(got_cells.get(name, [])), len(want_cells[name]),
                next((a, b) for a, b in zip(got_cells.get(name, []) + [None] * 9999, want_cells[name] + [None] * 9999)
                     if a != b)))
    got_shards = {}
    for s in shards:
        got_shards[s["package"]] = got_shards.get(s["package"], 0) + 1
    check(got_shards == want_shards, "farm15: shard jobs per package %s" % sorted(want_shards.items()))
    torchfree = [l for l in links if l["package"] in ("cutlass-lib", "nvcomp-lib")]
    check(torchfree and all(l["torch"] is None for l in torchfree) and
          all(l["python"] is None for l in torchfree if l["package"] == "nvcomp-lib"),
          "farm15: torch-free packages' entries carry null for the axes they leave out")
    fa = [s for s in shards if s["package"] == "flash-attn"]
    check(fa and all(s["pin"] == "csrc/tools/*" and s["count"] == 20 for s in fa),
          "farm15: a merged sharding: 20 counts, and the shardcc: mapping's pin is carried")
    check(all(len(x["shards"]) <= 256 and len(x["links"]) <= 256 and
              len(json.dumps(x["shards"], separators=(",", ":"))) <= 1000000 for x in plan["dispatches"]),
          "farm15: every dispatch within 256 jobs and 1,000,000 bytes a list")
    where = {}
    for i, x in enumerate(plan["dispatches"]):
        for e in x["shards"] + x["links"]:
            where.setdefault(e["cell"], set()).add(i)
    check(all(len(v) == 1 for v in where.values()), "farm15: a cell's shards and link share one dispatch")
    for name in ("flash-attn", "cutlass-lib", "pkg00", "total"):
        row = next((ln.split() for ln in err.splitlines() if ln.startswith(name + " ")), None)
        if name == "total":
            ok = row and int(row[1]) == len(links) and int(row[2]) == len(shards)
        else:
            ok = row and int(row[1]) == len(want_cells[name]) and int(row[3]) == want_shards.get(name, 0)
        check(ok, "farm15: --summary's row for %s: %s" % (name, row))
    check("a job output (one list's JSON): at most 1000000 bytes" in err and "jobs at once: 20" in err,
          "farm15: --summary names the limits")
    # generic words a farm uses never trip the near-miss check; --strict still refuses them
    rc, out, err = matrix(shardcc, ["--packages", "packages/pkg00/package.yml", "--cells", "cells.yml", "--strict"], root)
    check(rc == 2 and 'unknown key "x-farm"' in err, "farm15: --strict refuses a farm's own keys (%s)" % err.strip())
    # a dispatch's list stays within a job output's 1 MB: long pins make big entries
    big = "shardcc:\n  sharding: %d\n  pin: [%s]\n"
    pins = ", ".join("'tools/%s/*'" % ("x" * 40 + str(i)) for i in range(100))
    write(os.path.join(root, "big", "huge", "package.yml"), big % (200, pins))
    rc, out, err = matrix(shardcc, ["--packages", "big", "--cells", "cells.yml"], root)
    check(rc == 2 and "200 shard entries take 10" in err and "bytes of JSON, more than a job output may hold" in err,
          "farm15: a cell whose shard entries alone pass 1,000,000 bytes: exit 2 (%s)" % err.strip()[-200:])
    write(os.path.join(root, "big", "huge", "package.yml"), big % (100, pins))
    rc, out, err = matrix(shardcc, ["--packages", "big", "--cells", "cells.yml"], root)
    ds = json.loads(out)["dispatches"] if rc == 0 else []
    check(rc == 0 and len(ds) > 1 and all(len(json.dumps(x["shards"], separators=(",", ":"))) <= 1000000 and
                                          len(x["shards"]) <= 256 for x in ds),
          "farm15: 5 KB pins: the dispatches split at 1,000,000 bytes of JSON (%d dispatches, largest %d bytes)" %
          (len(ds), max([len(json.dumps(x["shards"], separators=(",", ":"))) for x in ds] or [0])))


# (file name, text, expected "FILE:LINE:COLUMN: ..." fragment); package files unless the
# name starts with "cells"
MALFORMED = [
    # a second document is an error, not ignored without a word
    ("cells-two.yml", "platforms:\n  - {name: linux, arch: x86_64}\n---\nplatforms: []\n",
     "cells-two.yml:4:1: a second YAML document: a file holds one"),
    ("neg.yml", "name: x\nsharding: -2\n", 'neg.yml:2:11: key "sharding": expected an integer from 0 to 100000, got "-2"'),
    ("str.yml", "name: x\nsharding: four\n", 'str.yml:2:11: key "sharding": expected an integer'),
    ("quoted.yml", 'name: x\nsharding: "4"\n', 'quoted.yml:2:11: key "sharding": expected an integer'),
    ("list.yml", "name: x\nsharding: [4]\n", 'list.yml:2:11: key "sharding": expected an integer from 0 to 100000, got a list'),
    ("strict-unknown.yml", "name: x\nsharding: 2\nshard_count: 3\n", 'strict-unknown.yml:3:1: package: unknown key "shard_count"'),
    # a farm's own keys are ignored, but not a near miss of one of shardcc's
    ("typo.yml", "name: x\nrepo: a/b\nshardnig: 4\n", 'typo.yml:3:1: package: unknown key "shardnig": did you mean "sharding"?'),
    ("typo-plat.yml", "name: x\nsharding_platform: [linux]\n", 'typo-plat.yml:2:1: package: unknown key "sharding_platform": did you mean "sharding_platforms"?'),
    ("typo-rate.yml", "name: x\nmin_hitrate: 0.5\n", 'typo-rate.yml:2:1: package: unknown key "min_hitrate": did you mean "min_hit_rate"?'),
    ("typo-dash.yml", "name: x\nhost-seat: true\n", 'typo-dash.yml:2:1: package: unknown key "host-seat": did you mean "host_seat"?'),
    ("typo-case.yml", "name: x\nSharding: 3\n", 'typo-case.yml:2:1: package: unknown key "Sharding": did you mean "sharding"?'),
    ("typo-pins.yml", "name: x\npins: [a]\n", 'typo-pins.yml:2:1: package: unknown key "pins": did you mean "pin"?'),
    ("typo-axis.yml", "name: x\naxis: [python]\n", 'typo-axis.yml:2:1: package: unknown key "axis": did you mean "axes"?'),
    ("typo-merged.yml", "base: &b {shardnig: 4}\nname: x\n<<: *b\n", 'typo-merged.yml:1:11: package: unknown key "shardnig"'),
    ("typo-own.yml", "name: x\nshardcc: {shardin: 3}\n", 'typo-own.yml:2:11: key "shardcc": unknown key "shardin": did you mean "sharding"?'),
    ("own-unknown.yml", "shardcc: {name: x, repo: a/b}\n", 'own-unknown.yml:1:20: key "shardcc": unknown key "repo" (known: name, sharding'),
    ("own-twice.yml", "sharding: 2\nshardcc: {name: x, sharding: 3}\n", 'own-twice.yml:2:30: key "sharding": given both at the top (line 1) and under "shardcc"'),
    ("own-scalar.yml", "name: x\nshardcc: yes\n", 'own-scalar.yml:2:10: key "shardcc": expected a mapping'),
    ("farm-python.yml", 'name: x\npython: ">=3.9"\n', 'farm-python.yml:2:9: key "python": expected a list, got ">=3.9" (if this key is the farm\'s own, put shardcc\'s keys under a "shardcc:" mapping'),
    ("merge-scalar.yml", "name: x\n<<: 3\n", 'merge-scalar.yml:2:5: a merge key "<<" takes a mapping or a list of mappings'),
    ("merge-merged-bad.yml", "d: &d {sharding: -1}\nname: x\n<<: [*d]\n", 'merge-merged-bad.yml:1:18: key "sharding": expected an integer from 0 to 100000, got "-1"'),
    ("axes-bad.yml", "name: x\naxes: [platform, pyhton]\n", 'axes-bad.yml:2:18: key "axes": "pyhton" is not an axis'),
    ("axes-twice.yml", "name: x\naxes: [python, python]\n", 'axes-twice.yml:2:16: key "axes": "python" is listed twice'),
    ("axes-narrow.yml", "name: x\naxes: [python, cuda]\ntorch: ['2.9.1']\n", 'axes-narrow.yml:3:8: key "torch": the package\'s axes leave torch out'),
    ("rate.yml", "name: x\nmin_hit_rate: 1.5\n", 'rate.yml:2:15: key "min_hit_rate": expected a number from 0 to 1, got "1.5"'),
    ("pin.yml", "name: x\npin: ['tools/*', 'a:b']\n", 'pin.yml:2:18: key "pin": "a:b" is not a glob of TU keys'),
    ("pinstr.yml", "name: x\npin: tools/*\n", 'pinstr.yml:2:6: key "pin": expected a list'),
    ("bool.yml", "name: x\nhost_seat: yes\n", 'bool.yml:2:12: key "host_seat": expected true, false or torch, got "yes"'),
    ("repro.yml", "name: x\nreproducible: 1\n", 'repro.yml:2:15: key "reproducible": expected true, false or auto, got "1"'),
    ("repro-typo.yml", "name: x\nreproducable: true\n", 'repro-typo.yml:2:1: package: unknown key "reproducable": did you mean "reproducible"?'),
    ("plat.yml", "name: x\nsharding_platforms: linux\n", 'plat.yml:2:21: key "sharding_platforms": expected a list, got "linux"'),
    ("platname.yml", "name: x\nsharding_platforms: [linux, macos]\n", 'platname.yml:2:29: key "sharding_platforms": "macos" is not in the cells file'),
    ("dup.yml", "name: x\nsharding: 2\nsharding: 3\n", 'dup.yml:3:1: key "sharding" appears twice'),
    ("dupalias.yml", "name: x\nbase: &b {a: 1, a: 2}\nmore: [*b, *b]\n", 'dupalias.yml:2:17: key "a" appears twice'),
    ("syntax.yml", "name: x\nsharding: [2\n", "syntax.yml:3:1: YAML syntax error"),
    ("notmap.yml", "- name: x\n", "notmap.yml:1:1: a package file must be a mapping"),
    ("badname.yml", "name: 'a b'\n", 'badname.yml:1:7: key "name": "a b" is not a package name'),
    ("nopy.yml", "name: x\npython: ['2.7']\n", 'nopy.yml:2:10: key "python": "2.7" is not in the cells file'),
    ("cells-key.yml", "platforms: [{name: linux, arch: x86_64}]\npythons: ['3.12']\n", 'cells-key.yml:2:1: cells file: unknown key "pythons"'),
    ("cells-arch.yml", "platforms: [{name: linux}]\n", 'cells-arch.yml:1:13: key "platforms": an entry lacks "arch"'),
    ("cells-ex.yml", "platforms: [{name: linux, arch: x86_64}]\npython: ['3.12']\nexclude:\n  - {python: '3.21'}\n",
     'cells-ex.yml:4:14: key "exclude": python "3.21" is not in the grid'),
    ("cells-dash.yml", "platforms: [{name: linux-gnu, arch: x86_64}]\n", 'cells-dash.yml:1:20: key "name": "linux-gnu" is not a name'),
    ("cells-twice.yml", "platforms: [{name: linux, arch: x86_64}]\ncuda: ['13.0', '13.0']\n", 'cells-twice.yml:2:16: key "cuda": "13.0" is listed twice'),
    ("cells-typo.yml", "platforms: [{name: linux, arch: x86_64}]\ncombination: []\n", 'cells-typo.yml:2:1: cells file: unknown key "combination": did you mean "combinations"?'),
    ("cells-both.yml", "platforms: [{name: linux, arch: x86_64}]\ncombinations: [{cuda: '13.0'}]\ncuda: ['13.0']\n",
     'cells-both.yml:3:7: key "cuda": a cells file gives either the lists python, cuda and torch (their product) or "combinations", not both'),
    ("cells-combo-lacks.yml", "platforms: [{name: linux, arch: x86_64}]\ncombinations:\n  - {cuda: '13.0', torch: '2.9.1'}\n  - {cuda: '12.8'}\n",
     'cells-combo-lacks.yml:4:5: key "combinations": this entry lacks torch, which the first names'),
    ("cells-combo-plat.yml", "platforms: [{name: linux, arch: x86_64}]\ncombinations:\n  - {cuda: '13.0', platform: [linux, macos]}\n",
     'cells-combo-plat.yml:3:38: key "platform": "macos" is not one of the platforms'),
    ("cells-combo-empty.yml", "platforms: [{name: linux, arch: x86_64}]\ncombinations:\n  - {cuda: []}\n",
     'cells-combo-empty.yml:3:12: key "cuda": the list is empty'),
    ("cells-combo-ex.yml", "platforms: [{name: linux, arch: x86_64}]\ncombinations:\n  - {cuda: '13.0'}\nexclude:\n  - {cuda: '12.8'}\n",
     'cells-combo-ex.yml:5:12: key "exclude": cuda "12.8" is not in the grid'),
]


def malformed(shardcc, d):
    for name, text, want in MALFORMED:
        path = os.path.join(d, "bad", name)
        write(path, text)
        if name.startswith("cells"):
            args = ["--packages", os.path.join("pk", "fa", "package.yml"), "--cells", os.path.join("bad", name)]
        else:
            args = ["--packages", os.path.join("bad", name), "--cells", "cells.yml"]
        if name.startswith("strict-"):
            args.append("--strict")
        rc, out, err = matrix(shardcc, args, d)
        check(rc == 2 and ("shardcc matrix: bad/" + want) in err and not out,
              "malformed %s: exit 2, %s (got %d: %s)" % (name, want, rc, err.strip()))
    # aliases that copy a mapping of 2000 keys 400 times (1.6M nodes from 30 KB): each
    # mapping's keys are checked once, not once per copy (2.9 s before, 0.15 s now). Timed
    # against a list of as many nodes copied as often, which costs the same to expand but
    # has no keys to check, so that the bound holds on a slow or sanitized build too.
    keys = ", ".join("k%d: %d" % (i, i) for i in range(2000))
    items = ", ".join(str(i) for i in range(4000))
    refs = ", ".join(["*a"] * 400)
    write(os.path.join(d, "bad", "copies.yml"), "name: x\nbig: &a {%s}\nrefs: [%s]\n" % (keys, refs))
    write(os.path.join(d, "bad", "listcopies.yml"), "name: x\nbig: &a [%s]\nrefs: [%s]\n" % (items, refs))
    took = {}
    for name in ("listcopies.yml", "copies.yml"):
        t0 = time.monotonic()
        rc, out, err = matrix(shardcc, ["--packages", os.path.join("bad", name), "--cells", "cells.yml", "--strict"], d)
        took[name] = time.monotonic() - t0
        check(rc == 2 and name + ':2:1: package: unknown key "big"' in err, "%s: exit 2, unknown key" % name)
    check(took["copies.yml"] < 2 * took["listcopies.yml"] + 0.3,
          "a mapping copied 400 times by aliases: %.2f s, a list as large %.2f s (limit: twice it + 0.3 s)" %
          (took["copies.yml"], took["listcopies.yml"]))
    rc, out, err = matrix(shardcc, ["--packages", "missing.yml", "--cells", "cells.yml"], d)
    check(rc == 4 and 'cannot read "missing.yml"' in err, "an unreadable package file: exit 4")
    # I/O errors are 4, a directory and a symbolic-link loop included
    os.makedirs(os.path.join(d, "adir"), exist_ok=True)
    os.symlink("loop2", os.path.join(d, "loop1"))
    os.symlink("loop1", os.path.join(d, "loop2"))
    for cells, want in (("adir", "Is a directory"), ("loop1", "Too many levels of symbolic links")):
        rc, out, err = matrix(shardcc, ["--packages", "pk/fa/package.yml", "--cells", cells], d)
        check(rc == 4 and ('cannot read "%s": %s' % (cells, want)) in err, "a cells file that is %s: exit 4 (%s)" % (cells, err.strip()))
    rc, out, err = matrix(shardcc, ["--packages", "pk", "pk/fa/package.yml", "--cells", "cells.yml"], d)
    check(rc == 2 and 'two cells are named "fa-linux-x86_64' in err, "a package listed twice: exit 2")
    # deeply nested flow collections: the depth is checked while parsing, in linear time
    # (not after libyaml's composer, which is quadratic in it: 200,000 levels would take
    # minutes)
    write(os.path.join(d, "bad", "deep.yml"), "name: x\nsharding: " + "[" * 200000 + "]" * 200000 + "\n")
    t0 = time.monotonic()
    rc, out, err = matrix(shardcc, ["--packages", os.path.join("bad", "deep.yml"), "--cells", "cells.yml"], d)
    took = time.monotonic() - t0
    check(rc == 2 and "deep.yml:2:74: nested deeper than 64 levels" in err and took < 5,
          "200,000 nested flow sequences: exit 2 in %.2f s (%s)" % (took, err.strip()[:120]))
    # a 20 KB cells file whose product is 10^8 cells, and one of 250,000 cells: a clear error
    # at once, before any cell is made (not an abort out of memory, nor seconds and GBs)
    def grid(n_py, n_cuda, n_torch):
        lists = [("python", "3", n_py), ("cuda", "12", n_cuda), ("torch", "2", n_torch)]
        return "platforms:\n  - {name: linux, arch: x86_64}\n" + "".join(
            "%s: [%s]\n" % (k, ", ".join('"%s.%d"' % (p, i) for i in range(n))) for k, p, n in lists if n)
    for name, dims, want in (("cells-product.yml", (1000, 1000, 101), "is a product of more than 100000000"),
                             ("cells-many.yml", (500, 500, 0), "the plan has more than 100000 cells")):
        write(os.path.join(d, "bad", name), grid(*dims))
        t0 = time.monotonic()
        rc, out, err = matrix(shardcc, ["--packages", os.path.join("pk", "fa", "package.yml"), "--cells",
                                        os.path.join("bad", name)], d)
        took = time.monotonic() - t0
        check(rc == 2 and want in err and not out and took < 30,
              "%s (%d x %d x %d): exit 2 in %.1f s, %s (got %d: %s)" % (name, *dims, took, want, rc, err.strip()[:200]))


# (environment, --count, expected exit, expected stderr fragment)
ENGINES = [
    ({"SHARDCC_SHARD_INDEX": "3", "SHARDCC_SHARD_COUNT": "4"}, None, "shard 3/4 from SHARDCC_SHARD_INDEX=3"),
    ({"GITLAB_CI": "true", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "5"}, None, "shard 1/5 from CI_NODE_INDEX=1"),
    ({"BUILDKITE_PARALLEL_JOB": "0", "BUILDKITE_PARALLEL_JOB_COUNT": "3"}, None, "shard 1/3 from BUILDKITE_PARALLEL_JOB=0"),
    ({"CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "3"}, None, "shard 3/3 from CIRCLE_NODE_INDEX=2"),
    ({"JOB_COMPLETION_INDEX": "6"}, "7", "shard 7/7 from JOB_COMPLETION_INDEX=6"),
    ({"CIRCLE_NODE_INDEX": "2", "CIRCLE_NODE_TOTAL": "3"}, "3", "shard 3/3 from CIRCLE_NODE_INDEX=2"),
]
ENGINE_ERRORS = [
    ({}, None, "no CI engine's shard index is set"),
    ({"GITHUB_ACTIONS": "true"}, None, "GitHub Actions has no shard index of its own"),
    ({"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2", "CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "2"}, None,
     "--shard auto is ambiguous: both CI_NODE_INDEX"),
    ({"JOB_COMPLETION_INDEX": "0"}, None, "carries no count; pass --count N"),
    ({"JOB_COMPLETION_INDEX": "4"}, "4", "JOB_COMPLETION_INDEX=4 is outside 0..3"),
    ({"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "2"}, None, "CI_NODE_INDEX=0 is outside 1..2 (GitLab CI parallel: counts from 1)"),
    ({"BUILDKITE_PARALLEL_JOB": "3", "BUILDKITE_PARALLEL_JOB_COUNT": "3"}, None, "BUILDKITE_PARALLEL_JOB=3 is outside 0..2"),
    ({"CI_NODE_INDEX": "1"}, None, "CI_NODE_INDEX is set but CI_NODE_TOTAL is not"),
    ({"CI_NODE_INDEX": "x1", "CI_NODE_TOTAL": "2"}, None, 'CI_NODE_INDEX="x1" is not a number'),
    ({"CIRCLE_NODE_INDEX": "1", "CIRCLE_NODE_TOTAL": "3"}, "4", "--count 4 disagrees with CIRCLE_NODE_TOTAL=3"),
]
ENGINE_VARS = ["SHARDCC_SHARD_INDEX", "SHARDCC_SHARD_COUNT", "CI_NODE_INDEX", "CI_NODE_TOTAL", "GITLAB_CI",
               "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL",
               "JOB_COMPLETION_INDEX", "GITHUB_ACTIONS"]


def engines(shardcc, d):
    root = os.path.join(d, "auto")
    os.makedirs(root, exist_ok=True)
    base = {k: v for k, v in os.environ.items() if k not in ENGINE_VARS}
    for env, count, want in ENGINES + ENGINE_ERRORS:
        cmd = [shardcc, "shard", "--shard", "auto", "--artifact", root + "/", "--root", root]
        if count:
            cmd += ["--count", count]
        # the build compiles nothing: a resolved index ends in the bypass guard (exit 3)
        # after saying where it came from; an unresolved one is a usage error (exit 2)
        p = subprocess.run(cmd + ["--", "true"], cwd=root, env=dict(base, **env), capture_output=True, text=True)
        good = (env, count, want) in ENGINES
        check(p.returncode == (3 if good else 2) and want in p.stderr,
              "--shard auto %s%s: %s (exit %d: %s)" % (" ".join("%s=%s" % kv for kv in env.items()),
                                                       " --count " + count if count else "", want, p.returncode,
                                                       p.stderr.strip().splitlines()[0] if p.stderr else ""))
    p = subprocess.run([shardcc, "shard", "--shard", "2/3", "--count", "3", "--artifact", root + "/", "--", "true"],
                       cwd=root, capture_output=True, text=True)
    check(p.returncode == 2 and "--count goes with --shard auto" in p.stderr, "--count without auto: exit 2")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shardcc", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="shardcc-matrix.") as d:
        farm(a.shardcc, d)
        farm_files(a.shardcc, d)
        rules(a.shardcc, d)
        malformed(a.shardcc, d)
        engines(a.shardcc, d)
    print("%d checks, %d failed" % (CHECKS, len(FAILS)))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
