#!/usr/bin/env python3
"""forge.py IN OUT CODE: a shard artifact as a hostile shard job would make it.

OUT is IN (a shard's .tar.zst) after CODE (Python) ran with:
  m        the manifest (a dict), to change
  members  {"cache/...": bytes} of IN, to change
  other(P) (manifest, members) of another artifact P
  entry(name, data)  the manifest's entry for a member (path, size, kind, sha256)
  fix      True: the manifest's entry list is made again from members afterwards, as a
           competent attacker's would be (set fix = False to keep CODE's own)
The output is what shardcc writes: manifest.json first, the members sorted, zstd."""
import hashlib
import io
import json
import subprocess
import sys
import tarfile


def read(path):
    raw = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
    tin = tarfile.open(fileobj=io.BytesIO(raw))
    m, members = None, {}
    for ti in tin.getmembers():
        data = tin.extractfile(ti).read()
        if ti.name == "manifest.json":
            m = json.loads(data)
        else:
            members[ti.name] = data
    return m, members


def entry(name, data):
    kind = {"R": "result", "M": "manifest", "D": "device"}.get(name[-1], "result")
    return {"path": name, "size": len(data), "kind": kind,
            "sha256": hashlib.sha256(data).hexdigest()}


def main():
    src, dst, code = sys.argv[1:]
    m, members = read(src)
    env = {"m": m, "members": members, "other": read, "entry": entry, "fix": True}
    exec(code, env)
    m, members = env["m"], env["members"]
    if env["fix"]:
        m["entries"] = [entry(n, members[n]) for n in sorted(members)]
    out = io.BytesIO()
    tout = tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT)
    for name, data in [("manifest.json", json.dumps(m).encode())] + sorted(members.items()):
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        ti.mode = 0o644
        tout.addfile(ti, io.BytesIO(data))
    tout.close()
    z = subprocess.run(["zstd", "-q", "-c"], input=out.getvalue(), capture_output=True, check=True)
    open(dst, "wb").write(z.stdout)


main()
