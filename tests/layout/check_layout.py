#!/usr/bin/env python3
"""The source layout holds: src/common < src/wrap < src/core < src/cli.

  check_layout.py SRC [--objects BUILD]

1. No file includes a header of a folder above its own (a module never includes a
   subcommand; the seat never includes the CLI's modules).
2. No two modules (x.c + x.h) include each other, directly or around a loop.
3. With --objects: the same two rules on what the objects really call (nm: a module's
   undefined symbols against the module that defines them), which a header declaring
   another file's function cannot hide.

Before checking SRC it checks a planted tree with an upward include and a loop, and fails
if either goes unreported: the check is seen to fail.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

LEVELS = {"common": 0, "wrap": 1, "core": 2, "cli": 3}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(src):
    """{(folder, stem): [paths]} for every .c and .h under src/<folder>/."""
    mods = {}
    for folder in sorted(os.listdir(src)):
        d = os.path.join(src, folder)
        if not os.path.isdir(d):
            continue
        if folder not in LEVELS:
            raise SystemExit(f"check_layout: {d}: a folder of no known layer "
                             f"(known: {', '.join(LEVELS)})")
        for f in sorted(os.listdir(d)):
            stem, ext = os.path.splitext(f)
            if ext in (".c", ".h"):
                mods.setdefault((folder, stem), []).append(os.path.join(d, f))
    return mods


def header_owner(mods):
    owner = {}
    for (folder, stem), paths in mods.items():
        for p in paths:
            if p.endswith(".h"):
                name = os.path.basename(p)
                if name in owner:
                    raise SystemExit(f"check_layout: two headers named {name}: "
                                     f"src/{owner[name][0]}/ and src/{folder}/")
                owner[name] = (folder, stem)
    return owner


def cycles(edges):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    nodes = set(edges) | {b for bs in edges.values() for b in bs}

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def name(m):
    return f"src/{m[0]}/{m[1]}"


def check_graph(edges, what):
    """Messages for upward edges and loops of edges {module: {module: why}}."""
    errs = []
    for a, bs in sorted(edges.items()):
        for b, why in sorted(bs.items()):
            if LEVELS[b[0]] > LEVELS[a[0]]:
                errs.append(f"{name(a)} {what} {name(b)} ({why}): src/{a[0]}/ is below "
                            f"src/{b[0]}/")
    for comp in cycles({a: set(bs) for a, bs in edges.items()}):
        errs.append(f"{what} loop: " + " <-> ".join(name(m) for m in comp))
    return errs


def include_edges(src):
    mods = modules(src)
    owner = header_owner(mods)
    edges = {}
    for m, paths in mods.items():
        for p in paths:
            with open(p, encoding="utf-8") as f:
                for inc in INCLUDE.findall(f.read()):
                    b = owner.get(os.path.basename(inc))
                    if b and b != m:
                        edges.setdefault(m, {})[b] = f"{os.path.basename(p)} includes {inc}"
    return edges


def object_edges(build):
    """Module call graph from the objects CMake built: src/<folder>/<stem>.c.o."""
    objs = {}
    for root, _, files in os.walk(build):
        for f in files:
            if not f.endswith(".c.o"):
                continue
            parts = os.path.join(root, f).split(os.sep)
            if "src" not in parts or "CMakeFiles" not in parts:
                continue
            i = len(parts) - 1 - parts[::-1].index("src")
            if i + 2 != len(parts) - 1 or parts[i + 1] not in LEVELS:
                continue
            if parts[i - 1] == "shardcc_seat_check.dir":
                continue  # the seat's main.c compiled once more for its warnings
            objs.setdefault((parts[i + 1], f[:-4]), os.path.join(root, f))
    if not objs:
        raise SystemExit(f"check_layout: no objects under {build}/CMakeFiles/*/src/")
    defined, undefined = {}, {}
    for m, o in objs.items():
        out = subprocess.run(["nm", "-P", o], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            sym, typ = line.split()[:2]
            if typ == "U":
                undefined.setdefault(m, set()).add(sym)
            elif typ.isupper():
                defined.setdefault(sym, m)
    edges = {}
    for m, syms in undefined.items():
        for s in sorted(syms):
            d = defined.get(s)
            if d and d != m:
                edges.setdefault(m, {}).setdefault(d, f"calls {s}")
    return edges, len(objs)


def self_test():
    with tempfile.TemporaryDirectory() as t:
        files = {
            "common/a.h": "", "common/a.c": '#include "a.h"\n#include "b.h"\n',
            "common/b.h": "", "common/b.c": '#include "b.h"\n#include "a.h"\n',
            "core/m.h": "", "core/m.c": '#include "m.h"\n#include "cli.h"\n',
            "cli/cli.h": "", "cli/main.c": '#include "cli.h"\n#include "m.h"\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.join(t, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(t, rel), "w") as f:
                f.write(text)
        errs = check_graph(include_edges(t), "includes")
        want = ["src/core/m includes src/cli/cli", "includes loop: src/common/a <-> src/common/b"]
        for w in want:
            if not any(e.startswith(w) for e in errs):
                sys.exit(f"check_layout: self-test: the planted fault \"{w}\" was not reported "
                         f"(got {errs})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("--objects", metavar="BUILD")
    a = ap.parse_args()
    self_test()
    inc = include_edges(a.src)
    errs = check_graph(inc, "includes")
    n_obj = 0
    if a.objects:
        calls, n_obj = object_edges(a.objects)
        errs += check_graph(calls, "calls")
    for e in errs:
        print(f"check_layout: {e}", file=sys.stderr)
    if errs:
        return 1
    n = len({m for m in inc} | {b for bs in inc.values() for b in bs})
    print(f"check_layout: {n} modules, {sum(len(v) for v in inc.values())} include edges"
          + (f", {n_obj} objects' calls" if a.objects else "")
          + ": no upward include or call, no loop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
