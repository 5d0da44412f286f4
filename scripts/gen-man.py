#!/usr/bin/env python3
"""Man pages from the docs: every docs/*.md whose first line is `# NAME(SECTION)` becomes
OUTDIR/NAME.SECTION in roff (man(7) macros, tbl(1) tables), so the man pages say what the
docs say and cannot drift from them. The file formats are shardcc-journal(5) and
shardcc-artifact(5), out of the system's namespace.

The docs use a small part of Markdown, and only that part is understood: headings (## and
###), paragraphs, fenced code blocks, bulleted and numbered lists (continuation lines
indented), tables, `code`, **bold** and *italic*. Anything else is an error, so that a doc
that grows past it fails the build instead of rendering badly.

Usage: gen-man.py VERSION OUTDIR DOC.md..."""
import os
import re
import sys



def esc(text):
    """roff-escapes plain text: backslashes, hyphens, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def inline(text):
    out = []
    pos = 0
    for m in re.finditer(r"`([^`]+)`|\*\*(.+?)\*\*|\*([^*\s][^*]*?)\*", text):
        out.append(esc(text[pos:m.start()]))
        code, bold, ital = m.groups()
        if code is not None:
            out.append("\\fB" + esc(code) + "\\fR")
        elif bold is not None:
            out.append("\\fB" + inline(bold) + "\\fR")
        else:
            out.append("\\fI" + inline(ital) + "\\fR")
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def line_out(text):
    s = inline(text.strip())
    return "\\&" + s if s.startswith((".", "'")) else s


def convert(md, version, path):
    lines = md.split("\n")
    m = re.match(r"^# ([a-z][a-z0-9-]*)\(([1-8])\)$", lines[0])
    if not m:
        return None, None
    name, sec = m.group(1), m.group(2)
    out = ["'\\\" t", '.TH "%s" "%s" "" "shardcc %s" "shardcc manual"' % (name.upper(), sec, version)]
    i = 1
    para = []

    def flush():
        if para:
            out.append(".PP")
            out.extend(line_out(p) for p in para)
            para.clear()

    while i < len(lines):
        ln = lines[i]
        if ln.startswith("```"):
            flush()
            i += 1
            out.append(".PP")
            out.append(".nf")
            out.append(".RS 4")
            while i < len(lines) and not lines[i].startswith("```"):
                body = esc(lines[i])
                out.append("\\&" + body if body else "")
                i += 1
            if i >= len(lines):
                raise SystemExit("%s: a code block is not closed" % path)
            out.append(".RE")
            out.append(".fi")
            i += 1
            continue
        if ln.startswith("### "):
            flush()
            out.append('.SS "%s"' % inline(ln[4:]).replace('"', "'"))
        elif ln.startswith("## "):
            flush()
            out.append('.SH "%s"' % inline(ln[3:].upper()).replace('"', "'"))
        elif ln.startswith("# "):
            raise SystemExit("%s:%d: a second title" % (path, i + 1))
        elif ln.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            ncol = max(len(r) for r in rows)
            out.append(".TS")
            out.append("allbox tab(\x07);")
            # a column of short cells keeps its width; longer ones share the rest
            wide = ["x" if max(len(r[c]) if c < len(r) else 0 for r in rows) > 20 else "" for c in range(ncol)]
            out.append(" ".join(["lb"] * ncol))
            out.append(" ".join("l" + w for w in wide) + ".")
            for r in rows:
                out.append("\x07".join("T{\n" + line_out(c) + "\nT}" for c in r + [""] * (ncol - len(r))))
            out.append(".TE")
            continue
        elif re.match(r"^(- |\d+\. )", ln):
            flush()
            mark = re.match(r"^(- |\d+\. )", ln).group(1)
            item = [ln[len(mark):]]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i])
                i += 1
            # a blank line followed by an indented line continues the item
            while i + 1 < len(lines) and not lines[i].strip() and lines[i + 1].startswith("  ") \
                    and lines[i + 1].strip() and not lines[i + 1].lstrip().startswith("|"):
                out.append(".IP %s 4" % ("\\(bu" if mark == "- " else mark.strip()))
                out.extend(line_out(x) for x in item)
                mark, item = "", []
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                    item.append(lines[i])
                    i += 1
            out.append(".IP %s 4" % ("\\(bu" if mark == "- " else mark.strip() if mark else "\"\""))
            out.extend(line_out(x) for x in item)
            continue
        elif not ln.strip():
            flush()
        else:
            para.append(ln)
        i += 1
    flush()
    return "%s.%s" % (name, sec), "\n".join(out) + "\n"


def main():
    version, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    made = 0
    for path in sys.argv[3:]:
        with open(path, encoding="utf-8") as f:
            name, text = convert(f.read(), version, path)
        if not name:
            continue
        tmp = os.path.join(outdir, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(outdir, name))
        made += 1
    if not made:
        raise SystemExit("gen-man: no doc with a NAME(SECTION) title among the inputs")


if __name__ == "__main__":
    main()
