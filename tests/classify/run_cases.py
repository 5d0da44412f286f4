#!/usr/bin/env python3
"""Runs the classify data table (cases.txt) through `shardcc classify`.

Each case is one compiler call; the expectations are checked against the JSON the CLI
prints (the wrapper's own decision code). Prints one line per failing case and a summary;
exits 1 when any case fails or when the table is smaller than it should be."""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

MIN_CASES = 60
ENV_RE = re.compile(r"^[A-Z_][A-Z0-9_]*=")


def parse_line(line, root):
    parts = [p.strip() for p in re.split(r"\s*\|\s*", line)]
    if len(parts) != 4:
        raise ValueError("expected 4 fields separated by ' | ', got %d" % len(parts))
    name, opts, cmd, expect = parts
    opts = shlex.split(opts.replace("{root}", root))
    env = dict(o.split("=", 1) for o in opts if ENV_RE.match(o))
    opts = [o for o in opts if not ENV_RE.match(o)]
    cmd = shlex.split(cmd.replace("{root}", root))
    expect = shlex.split(expect.replace("{root}", root))
    return name, opts, env, cmd, expect


def check(name, opts, result, stdout, stderr, expect):
    """Returns a list of mismatch descriptions."""
    errs = []
    obj = None
    want_exit = 0
    for e in expect:
        if e.startswith("exit="):
            want_exit = int(e[5:])
    if result != want_exit:
        return ["exit %d, expected %d (stderr: %s)" % (result, want_exit, stderr.strip())]
    if want_exit == 0:
        obj = json.loads(stdout)
    for e in expect:
        m = re.match(r"^([a-z_]+)(~=|!~=|=)(.*)$", e, re.S)
        if not m:
            errs.append("bad expectation %r" % e)
            continue
        key, op, val = m.groups()
        if key == "exit":
            continue
        if key == "stderr":
            if val not in stderr:
                errs.append("stderr lacks %r: %s" % (val, stderr.strip()))
            continue
        if key == "argv":
            present = val in obj["argv"]
            if (op == "~=") != present:
                errs.append("argv %s %r: %s" % ("lacks" if op == "~=" else "has", val, obj["argv"]))
            continue
        if key == "argc":
            if len(obj["argv"]) != int(val):
                errs.append("argc %d, expected %s: %s" % (len(obj["argv"]), val, obj["argv"]))
            continue
        if key == "targets":
            got = ",".join(obj["depfile_targets"])
            if got != val:
                errs.append("targets %r, expected %r" % (got, val))
            continue
        got = obj.get(key, "<absent>")
        if op == "~=":
            if got is None or val not in str(got):
                errs.append("%s %r does not contain %r" % (key, got, val))
            continue
        want = None if val == "null" else (int(val) if key == "owner" else val)
        if got != want:
            errs.append("%s %r, expected %r" % (key, got, want))
    if obj and obj["kind"] == "tu" and "--shard" in opts:
        shard = int(opts[opts.index("--shard") + 1].split("/")[0])
        compiled = obj["action"] in ("cache", "pin", "device")  # pin, device: every shard
        if compiled != (obj["owner"] == shard):
            errs.append("action %s inconsistent with owner %s for shard %d"
                        % (obj["action"], obj["owner"], shard))
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--shardcc", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--fixtures", required=True)
    a = ap.parse_args()
    root = os.path.realpath(a.fixtures)
    cwd = os.path.join(root, "build")
    total = failed = 0
    names = set()
    with open(a.cases, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                name, opts, env, cmd, expect = parse_line(line, root)
            except ValueError as exc:
                print("%s:%d: %s" % (a.cases, lineno, exc))
                failed += 1
                continue
            if name in names:
                print("%s:%d: duplicate case name %s" % (a.cases, lineno, name))
                failed += 1
            names.add(name)
            total += 1
            child_env = {k: v for k, v in os.environ.items()
                         if not k.startswith("NVCC_") and not k.startswith("SHARDCC_")}
            child_env.update(env)
            p = subprocess.run([a.shardcc, "classify", "--root", root] + opts + ["--"] + cmd,
                               cwd=cwd, env=child_env, capture_output=True, text=True)
            errs = check(name, opts, p.returncode, p.stdout, p.stderr, expect)
            if errs:
                failed += 1
                print("FAIL %s (%s:%d)" % (name, a.cases, lineno))
                for e in errs:
                    print("    " + e)
    print("classify cases: %d run, %d failed" % (total, failed))
    if total < MIN_CASES:
        print("the table holds %d cases; at least %d are required" % (total, MIN_CASES))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
