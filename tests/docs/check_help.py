#!/usr/bin/env python3
"""Docs that cannot drift: for every command, the options of docs/shardcc-CMD.md's SYNOPSIS,
the options its OPTIONS section defines (the head of each list item, before the dash) and
the options `shardcc CMD --help` names must be the same set, and the exit statuses of the
doc's EXIT STATUS table must be those of the help's "Exit status:" paragraph. `shardcc help
CMD` must print what `shardcc CMD --help` prints. Usage: check_help.py SHARDCC DOCS_DIR"""
import re
import subprocess
import sys

COMMANDS = ["env", "classify", "shard", "merge", "link", "local", "compare", "plan", "explain",
            "report", "matrix"]
ALWAYS = {"--help", "--version"}  # every command takes --help; --version is shardcc's (and nvcc's)
OPT = re.compile(r"--(?:\[no-\])?[a-z][a-z0-9-]*")


def options(text):
    out = set()
    for o in OPT.findall(text):
        if o.startswith("--[no-]"):
            out |= {"--" + o[7:], "--no-" + o[7:]}
        else:
            out.add(o)
    return out


def section(doc, name):
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(name), doc, re.M | re.S)
    return m.group(1) if m else None


def main():
    shardcc, docs = sys.argv[1], sys.argv[2]
    bad = 0
    for cmd in COMMANDS:
        before = bad
        with open("%s/shardcc-%s.md" % (docs, cmd)) as f:
            doc = f.read()
        h = subprocess.run([shardcc, cmd, "--help"], capture_output=True, text=True)
        if h.returncode != 0:
            print("FAIL %s: --help exited %d" % (cmd, h.returncode))
            bad += 1
            continue
        helptext = h.stdout
        via = subprocess.run([shardcc, "help", cmd], capture_output=True, text=True)
        if via.returncode != 0 or via.stdout != helptext:
            print("FAIL %s: `shardcc help %s` is not `shardcc %s --help` (exit %d)" %
                  (cmd, cmd, cmd, via.returncode))
            bad += 1
        if re.search(r"\]\s*\.\.\.\s*--|\s\.\.\.\s*$", helptext.split("\n\n")[0], re.M):
            print("FAIL %s: the help's synopsis hides options behind '...'" % cmd)
            bad += 1
        syn = section(doc, "SYNOPSIS")
        opts = section(doc, "OPTIONS")
        status = section(doc, "EXIT STATUS")
        if syn is None or opts is None or status is None:
            print("FAIL %s: the doc lacks SYNOPSIS, OPTIONS or EXIT STATUS" % cmd)
            bad += 1
            continue
        heads = set()
        for item in re.findall(r"^- (.*?)(?=^- |^\s*$|\Z)", opts, re.M | re.S):
            heads |= options(item.split(" — ")[0])
        sets = {"help": options(helptext) - ALWAYS, "synopsis": options(syn) - ALWAYS,
                "OPTIONS": heads - ALWAYS}
        names = sorted(sets)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                if sets[a] != sets[b]:
                    print("FAIL %s: %s has %s, %s has %s" % (
                        cmd, a, sorted(sets[a] - sets[b]) or "nothing more", b,
                        sorted(sets[b] - sets[a]) or "nothing more"))
                    bad += 1
        if "--help" not in heads:
            print("FAIL %s: OPTIONS does not list --help" % cmd)
            bad += 1
        doc_st = set(re.findall(r"^\| *([0-9]+) *\|", status, re.M))
        m = re.search(r"^Exit status:(.*?)(?:\n\n|\Z)", helptext, re.M | re.S)
        help_st = set(re.findall(r"(?<![0-9./-])([0-4])(?= )", m.group(1))) if m else set()
        if not doc_st or doc_st != help_st:
            print("FAIL %s: exit statuses: doc %s, help %s" % (cmd, sorted(doc_st), sorted(help_st)))
            bad += 1
        if bad == before:
            print("ok %s: %d options, exit statuses %s" % (cmd, len(sets["help"]), " ".join(sorted(doc_st))))
    if bad:
        print("%d mismatches" % bad)
        sys.exit(1)


if __name__ == "__main__":
    main()
