#!/usr/bin/env python3
"""Cross-references that resolve: every shardcc man page named as NAME(SECTION) in the docs,
the README or the sources (shardcc-journal(5), shardcc-shard(1)...) is a page the build
installs, i.e. the title of one docs/*.md. Usage: check_refs.py SRC"""
import glob
import os
import re
import sys

REF = re.compile(r"(?<![\w-])((?:shardcc[a-z0-9-]*|journal|artifact))\(([1-8])\)")


def main():
    src = sys.argv[1]
    titles = set()
    for d in glob.glob(os.path.join(src, "docs", "*.md")):
        with open(d) as f:
            m = re.match(r"# ([a-z][a-z0-9-]*)\(([1-8])\)$", f.readline().rstrip("\n"))
        if m:
            titles.add("%s(%s)" % m.groups())
    files = [os.path.join(src, "README.md")] + glob.glob(os.path.join(src, "docs", "*.md"))
    files += glob.glob(os.path.join(src, "src", "*", "*.[ch]"))
    bad = 0
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for m in REF.finditer(line):
                    ref = "%s(%s)" % m.groups()
                    if ref not in titles:
                        print("FAIL %s:%d: %s names no installed page (the pages: docs/*.md titles)"
                              % (os.path.relpath(path, src), n, ref))
                        bad += 1
    print("%d man page titles; %s" % (len(titles), "every reference resolves" if not bad else "%d do not" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
