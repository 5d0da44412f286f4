#!/usr/bin/env python3
"""actionlint (with shellcheck) on everything shardcc gives GitHub Actions:

1. the workflows, .github/workflows/shardcc-farm.yml (reusable), release.yml and
   windows-seat.yml, as they are;
2. the composite action, action.yml. actionlint checks workflows, not action metadata, so
   the action is checked as the workflow it amounts to: its inputs become `workflow_call`
   inputs, its steps one job's steps, its outputs the job's and the workflow's outputs.
   Every `${{ }}` expression of the action is then type-checked against the contexts GitHub
   gives it, and every step with `uses:` is checked for a pinned, known action;
3. the scripts the action's `run:` steps call (ci/github/*.sh), with shellcheck itself,
   following their `source` lines.

Before any of that, the same conversion of a planted bad action (an untrusted value expanded
inside a `run:` script, an unknown input, a shell error) must be reported on each count: the
check can fail. (zizmor, lint.zizmor, checks the action.yml itself, inputs in scripts included.) Exit 0 when everything is clean, 1 with the findings otherwise."""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

import yaml


def action_as_workflow(action):
    """The workflow a composite action amounts to, for actionlint."""
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        raise SystemExit("lint_github: action.yml: runs.using is %r, not composite" % runs.get("using"))
    inputs = {}
    for name, spec in (action.get("inputs") or {}).items():
        spec = spec or {}
        entry = {"type": "string", "required": bool(spec.get("required", False))}
        if "default" in spec:
            entry["default"] = str(spec["default"])
        if "description" in spec:
            entry["description"] = spec["description"]
        inputs[name] = entry
    job_outputs, wf_outputs = {}, {}
    for name, spec in (action.get("outputs") or {}).items():
        job_outputs[name] = spec["value"]
        wf_outputs[name] = {"description": spec.get("description", ""),
                            "value": "${{ jobs.action.outputs.%s }}" % name}
    call = {"inputs": inputs}
    job = {"runs-on": "ubuntu-latest"}
    if wf_outputs:
        call["outputs"] = wf_outputs
        job["outputs"] = job_outputs
    job["steps"] = runs.get("steps") or []
    return {"name": action.get("name", "action"), "on": {"workflow_call": call},
            "permissions": {"contents": "read"}, "jobs": {"action": job}}


def actionlint(actionlint_bin, shellcheck, path, cwd):
    p = subprocess.run([actionlint_bin, "-no-color", "-oneline", "-shellcheck", shellcheck,
                        "-pyflakes", "", path],
                       cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def lint_action(actionlint_bin, shellcheck, action, name):
    """actionlint on the workflow form of an action; returns (status, findings)."""
    with tempfile.TemporaryDirectory(prefix="shardcc-lint.") as tmp:
        wf_dir = os.path.join(tmp, ".github", "workflows")
        os.makedirs(wf_dir)
        path = os.path.join(wf_dir, name)
        with open(path, "w") as f:
            yaml.safe_dump(action_as_workflow(action), f, sort_keys=False)
        return actionlint(actionlint_bin, shellcheck, path, tmp)


PLANTED = """
name: planted
description: an action with three faults the lint must report
inputs:
  build:
    description: the build
    required: true
runs:
  using: composite
  steps:
    - name: injected
      shell: bash
      run: echo "${{ github.event.pull_request.title }}"
    - name: unknown input
      shell: bash
      env:
        X: ${{ inputs.no-such-input }}
      run: echo "$X"
    - name: shell error
      shell: bash
      run: cd $HOME; [ -n $X ]
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="the shardcc source tree")
    ap.add_argument("--actionlint", default="actionlint")
    ap.add_argument("--shellcheck", default="shellcheck")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    failed = False

    # the check can fail: each planted fault is reported
    rc, out = lint_action(a.actionlint, a.shellcheck, yaml.safe_load(PLANTED), "planted.yml")
    expected = {"injection": "github.event.pull_request.title", "unknown input": "no-such-input",
                "shellcheck": "shellcheck reported issue"}
    missing = [k for k, needle in expected.items() if needle not in out]
    if rc == 0 or missing:
        print("FAIL: actionlint did not report the planted %s (status %d):\n%s"
              % (", ".join(missing) or "faults", rc, out))
        return 1
    print("ok - the planted action is reported: %s" % ", ".join(expected))

    for wf in ("shardcc-farm.yml", "release.yml", "windows-seat.yml"):
        rc, out = actionlint(a.actionlint, a.shellcheck, os.path.join(src, ".github", "workflows", wf), src)
        print(("ok" if rc == 0 else "FAIL") + " - actionlint .github/workflows/" + wf)
        if rc != 0:
            print(out)
            failed = True

    with open(os.path.join(src, "action.yml")) as f:
        action = yaml.safe_load(f)
    rc, out = lint_action(a.actionlint, a.shellcheck, action, "action.yml")
    nsteps = len(action["runs"]["steps"])
    print(("ok" if rc == 0 else "FAIL")
          + " - actionlint action.yml (as a workflow: %d inputs, %d steps)"
          % (len(action.get("inputs") or {}), nsteps))
    if rc != 0:
        print(out)
        failed = True

    # the workflows docs/ci.md publishes for users to copy (GitHub's only)
    with open(os.path.join(src, "docs", "ci.md")) as f:
        doc = f.read()
    blocks = re.findall(r"^## (GitHub[^\n]*)\n+```yaml\n(.*?)^```", doc, re.M | re.S)
    if not blocks:
        print("FAIL - docs/ci.md has no GitHub workflow")
        failed = True
    for title, text in blocks:
        with tempfile.TemporaryDirectory() as tmp:
            wf_dir = os.path.join(tmp, ".github", "workflows")
            os.makedirs(wf_dir)
            path = os.path.join(wf_dir, "doc.yml")
            with open(path, "w") as f:
                f.write(text)
            rc, out = actionlint(a.actionlint, a.shellcheck, path, tmp)
        print(("ok" if rc == 0 else "FAIL") + " - actionlint docs/ci.md, %s" % title)
        if rc != 0:
            print(out)
            failed = True

    scripts = sorted(glob.glob(os.path.join(src, "ci", "github", "*.sh")))
    p = subprocess.run([a.shellcheck, "-x", "-P", src] + scripts, cwd=src,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(("ok" if p.returncode == 0 else "FAIL")
          + " - shellcheck %s" % " ".join(os.path.relpath(s, src) for s in scripts))
    if p.returncode != 0:
        print(p.stdout)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
