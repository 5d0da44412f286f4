#!/usr/bin/env python3
"""Runs the reusable workflow (.github/workflows/shardcc-farm.yml) and the composite action
(action.yml) here, as GitHub would: plan -> shard matrix -> link matrix, each job in a fresh
copy of the project at one workspace path and a fresh RUNNER_TEMP, the steps' own `run:`
scripts with GitHub's environment files (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH,
GITHUB_STEP_SUMMARY) emulated, `${{ }}` expressions and `if:` conditions evaluated, and the
three actions it uses (checkout, upload-artifact, download-artifact) emulated on a local
artifact store. Nothing is compiled by anything but the real tools.

The project is examples/cuda-cmake as one package with `sharding: 3` on one platform. It
checks: the plan (3 shards, 1 link), every job green, the link job's library the same as an
unsharded build's (shardcc compare), the step summary (the report table, the 100 % hit rate,
the Mermaid chart), the log groups, no ::error:: annotation; then the link job again with
shard 2's artifact gone: it fails (exit 3) with an ::error:: annotation naming the missing
shard, and it is not skipped when another shard job failed."""
import argparse
import fnmatch
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import yaml

CHECKS = 0


def ok(what):
    global CHECKS
    CHECKS += 1
    print("ok %d - %s" % (CHECKS, what), flush=True)


def fail(what):
    print("FAIL: " + what, flush=True)
    sys.exit(1)


# ---- expressions: ${{ ... }} and if: ------------------------------------------------------

TOKEN = re.compile(r"\s*(?:('(?:[^']|'')*')|(==|!=|&&|\|\||!|\(|\)|\[|\]|,)|([0-9]+(?:\.[0-9]+)?)|"
                   r"([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))")


class Ctx:
    def __init__(self, data):
        self.data = data

    def get(self, path):
        cur = self.data
        for part in path.split("."):
            if isinstance(cur, dict):
                cur = cur.get(part, "")
            else:
                return ""
        return cur


def evaluate(expr, ctx):
    """GitHub's expression language, the part the workflow and the action use."""
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            if expr[pos:].strip() == "":
                break
            raise ValueError("cannot parse %r at %d" % (expr, pos))
        pos = m.end()
        s, op, num, ident = m.groups()
        if s is not None:
            out.append(repr(s[1:-1].replace("''", "'")))
        elif op:
            out.append({"&&": " and ", "||": " or ", "!": " not "}.get(op, op))
        elif num:
            out.append(num)
        elif ident in ("always", "success", "failure", "cancelled", "fromJSON", "toJSON"):
            out.append("_" + ident)
        elif ident in ("true", "false", "null"):
            out.append({"true": "True", "false": "False", "null": "None"}[ident])
        else:
            out.append("_get(%r)" % ident)
    code = "".join(out)
    ns = {"_get": ctx.get, "_always": lambda: True, "_success": lambda: ctx.get("job_ok") != "no",
          "_failure": lambda: ctx.get("job_ok") == "no", "_cancelled": lambda: False,
          "_fromJSON": json.loads, "_toJSON": json.dumps}
    return eval(code, {"__builtins__": {}}, ns)  # the workflow's own text, nothing else


def render(value, ctx):
    """A string with ${{ }} parts; other types as they are."""
    if not isinstance(value, str):
        return value

    def one(m):
        v = evaluate(m.group(1), ctx)
        if isinstance(v, bool):
            return "true" if v else "false"
        if v is None:
            return ""
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v)
    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def condition(text, ctx):
    if text is None:
        return evaluate("success()", ctx)
    text = text.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    # GitHub adds success() to a condition that calls no status function
    if not re.search(r"\b(always|success|failure|cancelled)\(", text):
        text = "success() && (%s)" % text
    return bool(evaluate(text, ctx))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


# ---- a runner ------------------------------------------------------------------------------

class Runner:
    def __init__(self, src, work, shardcc_bin):
        self.src, self.work = src, work
        self.store = os.path.join(work, "artifact-store")  # what upload-artifact keeps
        os.makedirs(self.store)
        self.workspace = os.path.join(work, "workspace", "repo")  # one path for every job
        self.tool_path = [shardcc_bin] if shardcc_bin else []
        self.log = []

    def fresh_job(self, project, name):
        shutil.rmtree(os.path.dirname(self.workspace), ignore_errors=True)
        os.makedirs(os.path.dirname(self.workspace))
        shutil.copytree(project, self.workspace, symlinks=True)
        temp = os.path.join(self.work, "runner-temp", name)
        shutil.rmtree(temp, ignore_errors=True)
        os.makedirs(temp)
        files = {k: os.path.join(temp, "_" + k.lower()) for k in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for f in files.values():
            open(f, "w").close()
        return {"temp": temp, "files": files, "env": {}, "path": list(self.tool_path)}

    def run_script(self, job, script, env, cwd, what):
        out_file = os.path.join(job["temp"], "_output_%d" % len(self.log))
        open(out_file, "w").close()
        full = dict(os.environ)
        for k in ("SHARDCC_SHARD_INDEX", "SHARDCC_SHARD_COUNT", "CI_NODE_INDEX", "CIRCLE_NODE_INDEX",
                  "BUILDKITE_PARALLEL_JOB", "JOB_COMPLETION_INDEX", "CCACHE_DIR", "SHARDCC_ROOT"):
            full.pop(k, None)
        full.update(job["env"])
        full.update({k: str(v) for k, v in env.items()})
        full.update({"GITHUB_ACTIONS": "true", "CI": "true", "RUNNER_TEMP": job["temp"],
                     "GITHUB_WORKSPACE": self.workspace, "GITHUB_OUTPUT": out_file})
        full.update(job["files"])
        # a fresh runner has no shardcc but the one the set-up step installs
        system = [d for d in full.get("PATH", "").split(":") if d and not os.path.exists(os.path.join(d, "shardcc"))]
        full["PATH"] = ":".join(job["path"] + system)
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env=full,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.log.append((what, p.stdout))
        with open(job["files"]["GITHUB_ENV"]) as f:  # NAME=value lines (no heredoc form used here)
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    job["env"][k] = v
        with open(job["files"]["GITHUB_PATH"]) as f:
            for line in f:
                if line.strip() and line.strip() not in job["path"]:
                    job["path"].insert(0, line.strip())
        outputs = {}
        with open(out_file) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    outputs[k] = v
        return p.returncode, p.stdout, outputs

    def run_steps(self, job, steps, ctx, base_env, action_path):
        """Runs steps (a job's or a composite action's); returns the first failure's status."""
        status = 0
        for st in steps:
            ctx.data["job_ok"] = "no" if status else "yes"
            if not condition(st.get("if"), ctx):
                continue
            env = dict(base_env)
            env.update({k: render(v, ctx) for k, v in (st.get("env") or {}).items()})
            cwd = os.path.join(self.workspace, render(st.get("working-directory", "."), ctx))
            if "run" in st:
                rc, out, outputs = self.run_script(job, render(st["run"], ctx), env, cwd, st.get("name", "run"))
                if "${{" in st["run"]:
                    fail("a run: script holds an expression: %r" % st["run"])
            else:
                rc, outputs = self.uses(job, st, ctx, env, action_path)
            if st.get("id"):
                ctx.data["steps"][st["id"]] = {"outputs": outputs}
            if rc != 0:
                status = status or rc
        return status

    def uses(self, job, st, ctx, env, action_path):
        uses = st["uses"]
        with_ = {k: render(v, ctx) for k, v in (st.get("with") or {}).items()}
        if uses.startswith("actions/checkout@"):
            if with_.get("repository"):  # shardcc's own source, at the path given
                shutil.copytree(self.src, os.path.join(self.workspace, with_["path"]), symlinks=True,
                                ignore=shutil.ignore_patterns("build*", ".git", "_install", ".gpu"))
            return 0, {}
        if uses.startswith("actions/upload-artifact@"):
            name = with_["name"]
            if name.startswith("."):
                return 1, {}
            dest = os.path.join(self.store, name)
            if os.path.exists(dest):
                if str(with_.get("overwrite")).lower() != "true":  # upload-artifact v4 answers 409
                    self.log.append(("upload", "::error::an artifact named %s exists" % name))
                    return 1, {}
                shutil.rmtree(dest)
                self.log.append(("upload", "overwrote the artifact %s" % name))
            os.makedirs(dest)
            import glob
            found = glob.glob(os.path.join(self.workspace, with_["path"])) if not os.path.isabs(with_["path"]) \
                else glob.glob(with_["path"])
            if not found and with_.get("if-no-files-found") == "error":
                return 1, {}
            for f in found:
                shutil.copy(f, dest)
            return 0, {}
        if uses.startswith("actions/download-artifact@"):
            dest = with_["path"]
            os.makedirs(dest, exist_ok=True)
            for name in sorted(os.listdir(self.store)):
                if fnmatch.fnmatchcase(name, with_["pattern"]):
                    for f in os.listdir(os.path.join(self.store, name)):
                        shutil.copy(os.path.join(self.store, name, f), dest)
            return 0, {}
        if uses.startswith("./") or re.match(r"^OWNER/shardcc@", uses):
            # a composite action from a path in the workspace, or docs/ci.md's
            # OWNER/shardcc@COMMIT: this source tree's action
            apath = self.src if not uses.startswith("./") else os.path.join(self.workspace, uses[2:].split()[0])
            with open(os.path.join(apath, "action.yml")) as f:
                action = yaml.safe_load(f)
            inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
            missing = [k for k, v in action["inputs"].items() if v.get("required") and k not in with_]
            if missing:
                fail("%s: required inputs missing: %s" % (uses, missing))
            unknown = [k for k in with_ if k not in action["inputs"]]
            if unknown:
                fail("%s: unknown inputs: %s" % (uses, unknown))
            inputs.update({k: str(v) for k, v in with_.items()})
            actx = Ctx({"inputs": inputs, "github": {"action_path": apath}, "runner": {"temp": job["temp"]},
                        "steps": {}})
            rc = self.run_steps(job, action["runs"]["steps"], actx, env, apath)
            outputs = {k: render(v["value"], actx) for k, v in (action.get("outputs") or {}).items()}
            self.log.append(("action outputs", "action outputs: " + json.dumps(outputs, sort_keys=True)))
            return rc, outputs
        fail("unknown action " + uses)

    def job(self, wf, name, project, inputs, needs, matrix=None, strategy=None):
        spec = wf["jobs"][name]
        job = self.fresh_job(project, "%s-%s" % (name, (matrix or {}).get("shard", (matrix or {}).get("cell", ""))))
        ctx = Ctx({"inputs": inputs, "needs": needs, "matrix": matrix or {}, "steps": {},
                   "runner": {"temp": job["temp"]}, "github": {"workspace": self.workspace},
                   "strategy": strategy or {"job-index": 0, "job-total": 1}})
        status = self.run_steps(job, spec["steps"], ctx, {}, None)
        outputs = {k: render(v, ctx) for k, v in (spec.get("outputs") or {}).items()}
        with open(job["files"]["GITHUB_STEP_SUMMARY"]) as f:
            summary = f.read()
        return status, outputs, summary


def expand_matrix(spec):
    """A job's matrix entries: the product of its lists (include: taken as it is)."""
    m = (spec.get("strategy") or {}).get("matrix")
    if not m:
        return [None]
    if "include" in m:
        return list(m["include"])
    out = [{}]
    for k, vs in m.items():
        out = [dict(e, **{k: v}) for e in out for v in vs]
    return out


def walkthrough(src, shardcc_bin):
    """docs/ci.md's "GitHub: one package, by hand" workflow, as published, run on the bundled
    CMake example: only the build command and the uploaded path are the example's. Every
    job green, the shard count taken from the matrix list alone (strategy.job-total), the
    link job's hit rate 100 % through the action's outputs, the cell's CUDA step naming
    the toolkit, the product the same as an unsharded build's."""
    with open(os.path.join(src, "docs", "ci.md")) as f:
        doc = f.read()
    m = re.search(r"^## GitHub: one package, by hand\n+```yaml\n(.*?)^```", doc, re.M | re.S)
    if not m:
        fail("docs/ci.md has no \"GitHub: one package, by hand\" workflow")
    wf = yaml.safe_load(m.group(1))
    build = "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"
    for j in wf["jobs"].values():  # the example's build and product, nothing else
        for st in j["steps"]:
            w = st.get("with") or {}
            if "build" in w:
                w["build"] = build
            if st.get("uses", "").startswith("actions/upload-artifact@"):
                w["path"] = "build/libkern.so"
    ok("docs/ci.md's workflow: jobs %s; the build command and the uploaded path replaced by "
       "the example's" % ", ".join(wf["jobs"]))
    work = tempfile.mkdtemp(prefix="shardcc-walk.")
    try:
        project = os.path.join(work, "project")
        shutil.copytree(os.path.join(src, "examples", "cuda-cmake"), project)
        # a runner image with this build's shardcc on PATH (the farm run above tests the
        # set-up step's build from source; here it finds shardcc and skips it)
        r = Runner(src, work, shardcc_bin)
        entries = expand_matrix(wf["jobs"]["shard"])
        outputs = {}
        for idx, mtx in enumerate(entries):
            st, out, summ = r.job(wf, "shard", project, {}, {}, mtx,
                                  {"job-index": idx, "job-total": len(entries)})
            if st:
                fail("shard job %s failed:\n%s" % (mtx, "\n".join(o for _, o in r.log[-6:])[-3000:]))
            outputs.update(out)  # the last matrix job's outputs win, as on GitHub
            if idx == 0 and not any("already on PATH" in o for _, o in r.log):
                fail("the set-up step did not find the runner's shardcc")
        ok("%d shard jobs green; the shard job's output count = %s (strategy.job-total)" %
           (len(entries), outputs.get("count")))
        if outputs.get("count") != str(len(entries)):
            fail("the shard job's count output: %r" % outputs.get("count"))
        used = [o.strip() for _, o in r.log if o.startswith("shardcc: CUDA ")]
        if len(used) != len(entries) or any("at /usr/local/cuda-13.0" not in u for u in used):
            fail("the cell's CUDA step: %s" % used)
        ok("every shard job's CUDA step named the cell's toolkit: " + used[0])
        first = len(r.log)
        st, _, summary = r.job(wf, "link", project, {}, {"shard": {"result": "success", "outputs": outputs}})
        text = "\n".join(o for _, o in r.log[first:])
        if st:
            fail("the link job failed:\n" + text[-3000:])
        lo = [json.loads(o[len("action outputs: "):]) for k, o in r.log[first:] if k == "action outputs"]
        lo = [o for o in lo if o.get("hit-rate")]
        if len(lo) != 1 or float(lo[0]["hit-rate"]) != 1.0:
            fail("the link step's outputs: %s" % lo)
        ok("the link job: green, hit-rate %s over %s TUs, %d shards" % (lo[0]["hit-rate"], lo[0]["tus"], len(entries)))
        if "every guard passed" not in summary:
            fail("the link job's step summary: " + summary)
        product = os.path.join(r.store, "wheel", "libkern.so")
        plain = os.path.join(work, "plain")
        shutil.copytree(os.path.join(src, "examples", "cuda-cmake"), plain)
        subprocess.run(["sh", "-c", build], cwd=plain, check=True)
        p = subprocess.run([os.path.join(r.tool_path[0], "shardcc"), "compare", product,
                            os.path.join(plain, "build", "libkern.so")], capture_output=True, text=True)
        if p.returncode:
            fail(p.stdout + p.stderr)
        ok("the uploaded product: " + p.stdout.strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d checks passed" % CHECKS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--walkthrough", metavar="SHARDCC_BIN_DIR",
                    help="run docs/ci.md's by-hand workflow, with this shardcc on the runner's PATH")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    if a.walkthrough:
        walkthrough(src, os.path.abspath(a.walkthrough))
        return
    with open(os.path.join(src, ".github", "workflows", "shardcc-farm.yml")) as f:
        wf = yaml.safe_load(f)
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    work = tempfile.mkdtemp(prefix="shardcc-gha.")
    try:
        # the caller's repository: the example project, one package, one platform
        project = os.path.join(work, "project")
        shutil.copytree(os.path.join(src, "examples", "cuda-cmake"), project)
        os.makedirs(os.path.join(project, "packages", "kern"))
        # a farm's package file: its own keys (python meaning the farm's), shardcc's under
        # shardcc:, a package that varies over platform and CUDA only (axes) and pins a TU
        with open(os.path.join(project, "packages", "kern", "package.yml"), "w") as f:
            f.write("source: {repo: example/kern}\npython: '>=3.9'\nshardcc:\n  sharding: 3\n"
                    "  min_hit_rate: 1.0\n  axes: [platform, cuda]\n  pin: ['src/light_07_int.cu']\n")
        with open(os.path.join(project, "cells.yml"), "w") as f:
            f.write("platforms:\n  - {name: linux, arch: x86_64}\npython: ['3.12', '3.13']\ncuda: ['13.0']\n")
        build = "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"
        inputs = {"packages": "packages", "cells": "cells.yml", "dispatch": 0, "build": build,
                  "working-directory": ".", "shardcc-repository": "shardcc/shardcc", "shardcc-ref": "HEAD",
                  "outputs": "build/libkern.so", "runners": on["workflow_call"]["inputs"]["runners"]["default"],
                  "install-cuda": "false",  # no network here: the toolkit at /usr/local/cuda-13.0
                  "cuda-packages": on["workflow_call"]["inputs"]["cuda-packages"]["default"]}
        r = Runner(src, work, None)
        # plan: the set-up step downloads the release of shardcc's version, as from GitHub's
        # releases: here scripts/build-release.sh's files from a local HTTP server
        # (SHARDCC_RELEASE_URL); the later jobs use it, as a runner image with shardcc
        # installed would
        version = re.search(r'#define SHARDCC_VERSION "(.*)"',
                            open(os.path.join(src, "src", "common", "version.h")).read()).group(1)
        store = os.path.join(work, "releases", "v" + version)
        subprocess.run([os.path.join(src, "scripts", "build-release.sh"), "--out", store], check=True,
                       stdout=subprocess.DEVNULL)
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(QuietHandler, directory=os.path.dirname(store)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        os.environ["SHARDCC_RELEASE_URL"] = "http://127.0.0.1:%d/v%s" % (server.server_address[1], version)
        st, plan_out, _ = r.job(wf, "plan", project, inputs, {})
        if st:
            fail("plan job failed: " + "\n".join(o for _, o in r.log[-3:]))
        name = "shardcc-%s-linux-%s" % (version, os.uname().machine)
        built = os.path.join(work, "runner-temp", "plan-", "shardcc", name, "bin")
        if not os.path.exists(os.path.join(built, "shardcc")):
            fail("the set-up step did not unpack the release into RUNNER_TEMP/shardcc/%s" % name)
        if not any("from %s/%s.tar.gz (sha256 " % (os.environ["SHARDCC_RELEASE_URL"], name) in o for _, o in r.log):
            fail("the set-up step did not say which release it installed")
        ok("plan job: the set-up step downloaded and checked the release %s.tar.gz" % name)
        r.tool_path = [built]
        shards, links = json.loads(plan_out["shards"]), json.loads(plan_out["links"])
        if len(shards) != 3 or len(links) != 1 or links[0]["count"] != 3:
            fail("plan: %d shards, %d links" % (len(shards), len(links)))
        if links[0]["python"] is not None or any(m["pin"] != "src/light_07_int.cu" for m in shards):
            fail("plan: axes and pin not carried: %s" % shards[0])
        ok("plan: 3 shard jobs and 1 link job for cell %s (axes [platform, cuda]: python null; "
           "pin carried)" % links[0]["cell"])
        needs = {"plan": {"result": "success", "outputs": plan_out}}
        if not condition(wf["jobs"]["shards"].get("if"), Ctx({"needs": needs})):
            fail("the shard jobs would be skipped")
        for m in shards:
            st, _, _ = r.job(wf, "shards", project, inputs, needs, m)
            if st:
                fail("shard %s failed:\n%s" % (m["shard"], r.log[-2][1][-3000:]))
        names = sorted(os.listdir(r.store))
        want = sorted(m["artifact"] for m in shards)
        if names != want:
            fail("uploaded %s, expected %s" % (names, want))
        ok("3 shard jobs green, artifacts uploaded as %s" % ", ".join(names))
        used = [o for _, o in r.log if o.startswith("shardcc: CUDA ")]
        if len(used) != 3 or any(not re.match(r"shardcc: CUDA 13\.0(\.\d+)? at /usr/local/cuda-13\.0$", u.strip())
                                 for u in used):
            fail("the cell's CUDA step: %s" % used)
        ok("every shard job compiled with the cell's toolkit: " + used[0].strip())
        outs = [json.loads(o[len("action outputs: "):]) for k, o in r.log if k == "action outputs"]
        tus = [o["tus"] for o in outs if o.get("artifact-name")]
        # 24 TUs, and the pinned one compiled in the two shards that do not own it too
        if len(tus) != 3 or sum(int(t) for t in tus) != 24 + 2:
            fail("the shard steps' tus outputs: %s" % tus)
        pinned = [o for _, o in r.log if re.search(r"shard \d/3: 1 pinned TUs", o)]
        if len(pinned) != 3:
            fail("the shard logs do not each say the pinned TU was compiled: %d" % len(pinned))
        ok("the shard steps' tus outputs: %s (24 TUs, the pinned one in every shard)" % " + ".join(tus))
        # "Re-run all jobs": shard 1 again uploads under the same name (overwrite: true)
        st, _, ssum = r.job(wf, "shards", project, inputs, needs, shards[0])
        if st:
            fail("shard 1 re-run failed:\n%s" % "\n".join(o for _, o in r.log[-4:])[-3000:])
        if not any(o == "overwrote the artifact " + shards[0]["artifact"] for _, o in r.log):
            fail("the re-run did not overwrite its artifact")
        if "TUs owned" not in ssum:
            fail("the shard step summary lacks the shard's line: " + ssum)
        ok("a re-run shard job overwrites its artifact; its step summary: " +
           [l for l in ssum.splitlines() if "TUs owned" in l][0])
        # a link job without a count fails: never an unsharded build by omission
        first = len(r.log)
        st, _, _ = r.job(wf, "links", project, inputs, dict(needs, shards={"result": "success"}),
                         dict(links[0], count=""))
        text = "\n".join(o for _, o in r.log[first:])
        if st != 2 or not re.search(r"^::error title=shardcc link::the link step has no shard count", text, re.M):
            fail("a link job without a count: exit %s:\n%s" % (st, text[-2000:]))
        ok("a link job without a count: exit 2, annotated, nothing built")
        # a second cell of another CUDA (12.8) on a runner that has only 13.0: refused before
        # shardcc runs, annotated; never built by 13.0 with every guard green
        first = len(r.log)
        other = dict(shards[0], cuda="12.8", cell=shards[0]["cell"].replace("cu13.0", "cu12.8"))
        st, _, _ = r.job(wf, "shards", project, inputs, needs, other)
        text = "\n".join(o for _, o in r.log[first:])
        if st != 2 or not re.search(r"^::error title=shardcc cuda::CUDA 12\.8 is not installed at /usr/local/cuda-12\.8", text, re.M) \
                or "running the build" in text:
            fail("a 12.8 cell on a 13.0 runner: exit %s:\n%s" % (st, text[-2000:]))
        ok("a cu12.8 cell on a runner with only 13.0: exit 2 before the build: " +
           re.search(r"^::error.*$", text, re.M).group(0)[:120])
        lif = wf["jobs"]["links"].get("if")
        for shards_result in ("success", "failure"):
            needs["shards"] = {"result": shards_result}
            if not condition(lif, Ctx({"needs": needs, "job_ok": "no" if shards_result == "failure" else "yes"})):
                fail("the link job would be skipped when the shard matrix's result is %s" % shards_result)
        ok("the link job runs whether or not another shard job failed (always())")
        needs["shards"] = {"result": "success"}
        first = len(r.log)
        st, _, summary = r.job(wf, "links", project, inputs, needs, links[0])
        text = "\n".join(o for _, o in r.log[first:])
        if st:
            fail("link job failed:\n" + text[-3000:])
        ok("link job green")
        lo = [json.loads(o[len("action outputs: "):]) for k, o in r.log[first:] if k == "action outputs"]
        lo = [o for o in lo if o.get("hit-rate")]
        if len(lo) != 1 or float(lo[0]["hit-rate"]) != 1.0 or lo[0]["tus"] != "24":
            fail("the link step's outputs: %s" % lo)
        ok("the link step's outputs: hit-rate %s, tus %s" % (lo[0]["hit-rate"], lo[0]["tus"]))
        for want in ("| shard 1/3 |", "| shard 3/3 |", "| link |", "hit rate 100.0% (24/24 TUs), 0 stubs, 3/3 shards",
                     "every guard passed", "```mermaid", "gantt", "section shards"):
            if want not in summary:
                fail("the step summary lacks %r:\n%s" % (want, summary))
        ok("step summary: the shard table, hit rate 100.0% (24/24 TUs), the Mermaid Gantt chart")
        print("".join("# " + l + "\n" for l in summary.splitlines()), end="")
        if "::group::shardcc link" not in text or "::endgroup::" not in text:
            fail("the link log is not grouped")
        ok("the link log is in a ::group::")
        if "::error" in text:
            fail("a green link job wrote an ::error annotation")
        ok("no ::error:: annotation in a green job")
        product = os.path.join(r.store, "product-" + links[0]["cell"], "libkern.so")
        if not os.path.exists(product):
            fail("the link job did not upload its product")
        plain = os.path.join(work, "plain")
        shutil.copytree(os.path.join(src, "examples", "cuda-cmake"), plain)
        subprocess.run(["sh", "-c", build], cwd=plain, check=True)
        p = subprocess.run([os.path.join(built, "shardcc"), "compare", product, os.path.join(plain, "build", "libkern.so")],
                           capture_output=True, text=True)
        if p.returncode:
            fail(p.stdout + p.stderr)
        ok("the uploaded product: " + p.stdout.strip())
        # shard 2's artifact lost: the link job fails, annotated, and says so in the summary
        shutil.rmtree(os.path.join(r.store, "product-" + links[0]["cell"]))
        shutil.rmtree(os.path.join(r.store, [n for n in names if "-2-of-3" in n][0]))
        first = len(r.log)
        st, _, summary = r.job(wf, "links", project, inputs, needs, links[0])
        text = "\n".join(o for _, o in r.log[first:])
        if st != 3:
            fail("link with a missing shard: exit %s, expected 3:\n%s" % (st, text[-2000:]))
        ok("link job with shard 2 missing: exit 3")
        if not re.search(r"^::error title=shardcc link::shardcc link: cell \S+: shard 2 of 3 missing", text, re.M):
            fail("no ::error annotation naming the missing shard:\n" + text[-2000:])
        ok("::error annotation: " + re.search(r"^::error.*$", text, re.M).group(0))
        if "| shard 2/3 |" in summary or "the link job has not finished" not in summary:
            fail("the failed link job's summary: " + summary)
        ok("the failed link job's summary lists the shards that arrived and no link result")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d checks passed" % CHECKS)


if __name__ == "__main__":
    main()
