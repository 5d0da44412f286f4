#!/usr/bin/env python3
"""The action's reference in docs/ci.md, from action.yml: a table of its inputs (name,
default, what it does) and one of its outputs, between the lines
`<!-- action-reference: begin -->` and `<!-- action-reference: end -->`, so that the docs
name every input and output the action has and nothing else.

Usage: gen-action-ref.py SRC          rewrite docs/ci.md's tables from SRC/action.yml
       gen-action-ref.py --check SRC  exit 1, naming the differences, when they disagree"""
import sys

import yaml

BEGIN = "<!-- action-reference: begin (scripts/gen-action-ref.py writes this part) -->"
END = "<!-- action-reference: end -->"


def cell(text):
    return " ".join(str(text).split()).replace("|", "\\|")


def tables(action):
    out = ["| input | default | what it does |", "|---|---|---|"]
    for name, spec in action["inputs"].items():
        default = spec.get("default", "")
        default = "(required)" if spec.get("required") else ("`%s`" % default if default != "" else "empty")
        out.append("| `%s` | %s | %s |" % (name, default, cell(spec.get("description", ""))))
    out += ["", "| output | what it holds |", "|---|---|"]
    for name, spec in action.get("outputs", {}).items():
        out.append("| `%s` | %s |" % (name, cell(spec.get("description", ""))))
    return "\n".join(out)


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) != 1:
        raise SystemExit(__doc__)
    src = args[0]
    with open(src + "/action.yml") as f:
        action = yaml.safe_load(f)
    path = src + "/docs/ci.md"
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        raise SystemExit("%s: the lines %s and %s are missing" % (path, BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    want = "\n" + tables(action) + "\n"
    if check:
        if old != want:
            have = set(l for l in old.split("\n") if l.startswith("| `"))
            need = set(l for l in want.split("\n") if l.startswith("| `"))
            for l in sorted(need - have):
                print("docs/ci.md lacks (or has another text for): %s" % l[:100])
            for l in sorted(have - need):
                print("docs/ci.md has, action.yml does not: %s" % l[:100])
            print("FAIL: docs/ci.md's action reference is not action.yml's: run "
                  "scripts/gen-action-ref.py .")
            return 1
        print("docs/ci.md's action reference is action.yml's: %d inputs, %d outputs"
              % (len(action["inputs"]), len(action.get("outputs", {}))))
        return 0
    with open(path + ".tmp", "w") as f:
        f.write(head + BEGIN + want + END + tail)
    import os
    os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
