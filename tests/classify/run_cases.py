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


def split_msvc(text):
    """A command line split as the Microsoft C runtime splits it (CommandLineToArgvW; the
    program name too, for a table's sake): blanks separate, "..." groups, 2N backslashes
    before a quote are N and the quote quotes, 2N+1 are N and a literal quote."""
    args, cur, have, quoted, i = [], [], False, False, 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            n = 0
            while i < len(text) and text[i] == "\\":
                n, i = n + 1, i + 1
            if i < len(text) and text[i] == '"':
                cur.append("\\" * (n // 2))
                if n % 2:
                    cur.append('"')
                else:
                    quoted = not quoted
                i += 1
            else:
                cur.append("\\" * n)
            have = True
            continue
        if c == '"':
            if quoted and text[i + 1:i + 2] == '"':
                cur.append('"')
                i += 1
            else:
                quoted = not quoted
            have = True
        elif c in " \t" and not quoted:
            if have:
                args.append("".join(cur))
            cur, have = [], False
        else:
            cur.append(c)
            have = True
        i += 1
    if have:
        args.append("".join(cur))
    return args


def parse_line(line, root, windows=False):
    parts = [p.strip() for p in re.split(r"\s*\|\s*", line)]
    if len(parts) != 4:
        raise ValueError("expected 4 fields separated by ' | ', got %d" % len(parts))
    name, opts, cmd, expect = parts
    def sub(s):
        return s.replace("{root}", root).replace("{ROOT}", root.upper())
    opts = shlex.split(sub(opts))
    env = dict(o.split("=", 1) for o in opts if ENV_RE.match(o))
    opts = [o for o in opts if not ENV_RE.match(o)]
    if windows:  # backslashes are a Windows path's: literal in the expectations
        cmd = split_msvc(sub(cmd))
        expect = shlex.split(sub(expect).replace("\\", "\\\\"))
    else:
        cmd = shlex.split(sub(cmd))
        expect = shlex.split(sub(expect))
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
    ap.add_argument("--shardcc", help="the CLI: runs `shardcc classify`")
    ap.add_argument("--seat", metavar="EXE",
                    help="the seat instead: runs `EXE --classify` (on Windows: the Windows table)")
    ap.add_argument("--wine", metavar="EXE",
                    help="the Windows seat under Wine: runs `wine EXE --classify` (Windows paths)")
    ap.add_argument("--wine-cli", metavar="EXE",
                    help="the Windows CLI under Wine: runs `wine EXE classify` (Windows paths)")
    ap.add_argument("--cases", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--min", type=int, default=MIN_CASES, help="the fewest cases the table may hold")
    a = ap.parse_args()
    if sum(map(bool, (a.shardcc, a.wine, a.seat, a.wine_cli))) != 1:
        ap.error("give one of --shardcc, --seat, --wine and --wine-cli")
    wine = a.wine or a.wine_cli
    windows = bool(wine) or os.name == "nt"
    root = os.path.realpath(a.fixtures)
    cwd = os.path.join(root, "build")
    if wine:
        # one wineserver for every case (each "wine" would otherwise start one: seconds)
        # (the prefix's services start with the first program: they would hold a pipe of
        # the first case open, so they are started here, with no pipe to hold)
        server = subprocess.Popen(["wineserver", "-f", "-p"], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["wineboot", "-i"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        root = subprocess.run(["winepath", "-w", root], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, check=True).stdout.strip()
    total = failed = 0
    names = set()
    with open(a.cases, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                name, opts, env, cmd, expect = parse_line(line, root, windows)
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
            if a.wine_cli:
                child_env["WINEDEBUG"] = "-all"
                argv = ["wine", a.wine_cli, "classify", "--root", root] + opts + ["--"] + cmd
            elif a.wine or a.seat:
                wopts = [o + "=" + opts[k + 1] for k, o in enumerate(opts) if o.startswith("--")]
                child_env["WINEDEBUG"] = "-all"
                argv = ["wine", a.wine] if a.wine else [a.seat]
                argv += ["--classify", "--root=" + root] + wopts + ["--"] + cmd
            else:
                argv = [a.shardcc, "classify", "--root", root] + opts + ["--"] + cmd
            p = subprocess.run(argv, cwd=cwd, env=child_env, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL,
                               encoding="utf-8", errors="replace")
            errs = check(name, opts, p.returncode, p.stdout, p.stderr, expect)
            if errs:
                failed += 1
                print("FAIL %s (%s:%d)" % (name, a.cases, lineno))
                for e in errs:
                    print("    " + e)
    if wine:
        subprocess.run(["wineserver", "-k"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        server.wait(timeout=30)
    print("classify cases: %d run, %d failed" % (total, failed))
    if total < a.min:
        print("the table holds %d cases; at least %d are required" % (total, a.min))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
