#!/usr/bin/env python3
"""The hand-off through a remote storage against artifacts (docs/remote.md), measured side by
side in one run, against real servers started here on free ports: Debian's redis-server and
nginx with WebDAV PUT.

1. The bundled example (examples/cuda-cmake, N=3): the shards once per mode (artifacts,
   redis, http), then the link job of each mode, interleaved, --rounds times. Printed: the
   link job's wall time (median), its ratio to the artifact mode's, and the bytes that reach
   the link job (the artifacts' size; what the server sent, from Redis' INFO and nginx's log).
2. A synthetic cache of 2 GiB: two shards of a one-TU build whose caches are filled first
   with 2 x 1 GiB of store entries (random, 4 MiB each, incompressible); the shards pack or
   put them, the link job merges or fetches them. The artifact mode's time has no download
   (the files are local): its bytes are what CI would download.
3. Warm starts on the bundled example: a cold sharded run (shardcc local -n 3) against the
   run after one TU changed, with the remote (redis) and with --seed-from the cold run's
   artifacts: the predicted makespans and the TUs the shards compiled.

Writes bench/results/remote_handoff.txt."""
import argparse
import glob
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
BUILD = "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build >/dev/null"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("bench: nothing listens on port %d" % port)


class Servers:
    def __init__(self, work):
        self.work = work
        self.procs = []
        self.rport, self.hport = free_port(), free_port()
        self.procs.append(subprocess.Popen(
            ["redis-server", "--port", str(self.rport), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL))
        os.makedirs(os.path.join(work, "www", "cache"))
        os.makedirs(os.path.join(work, "nginx-tmp"))
        conf = os.path.join(work, "nginx.conf")
        t = os.path.join(work, "nginx-tmp")
        with open(conf, "w") as f:
            f.write("""user %s;
daemon off;
pid %s/nginx.pid;
error_log %s/nginx-error.log;
events {}
http {
  log_format bytes '$request_method $status $bytes_sent $request_length';
  access_log %s/nginx-access.log bytes;
  client_body_temp_path %s; proxy_temp_path %s; fastcgi_temp_path %s; uwsgi_temp_path %s; scgi_temp_path %s;
  server {
    listen 127.0.0.1:%d;
    root %s/www;
    client_max_body_size 0;
    location / { dav_methods PUT DELETE; create_full_put_path on; }
  }
}
""" % (os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip(),
       work, work, work, t, t, t, t, t, self.hport, work))
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.procs.append(subprocess.Popen([nginx, "-c", conf, "-e", os.path.join(work, "nginx-error.log")]))
        wait_port(self.rport)
        wait_port(self.hport)
        self.redis = "redis://127.0.0.1:%d" % self.rport
        self.http = "http://127.0.0.1:%d/cache" % self.hport

    def redis_out(self):
        out = subprocess.run(["redis-cli", "-p", str(self.rport), "info", "stats"], capture_output=True,
                             text=True).stdout
        return int(re.search(r"total_net_output_bytes:(\d+)", out).group(1))

    def http_out(self):
        try:
            with open(os.path.join(self.work, "nginx-access.log")) as f:
                return sum(int(l.split()[2]) for l in f if l.startswith("GET ") or l.startswith("HEAD "))
        except FileNotFoundError:
            return 0

    def sent(self, mode):
        return self.redis_out() if mode == "redis" else self.http_out() if mode == "http" else 0

    def stop(self):
        for p in self.procs:
            p.terminate()
            p.wait()


def run(cmd, cwd, what):
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("bench: %s failed (exit %d):\n%s%s" % (what, p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return wall, p.stdout + p.stderr


def handoff(shardcc, srv, proj, n, build, rounds, say, prefill=None):
    """Shards per mode, then the link jobs interleaved. prefill(cache_dir, i) fills a shard's cache."""
    modes = ["artifacts", "redis", "http"]
    url = {"redis": srv.redis, "http": srv.http}
    arts = {}
    for m in modes:
        arts[m] = os.path.join(proj, "..", "arts-" + m + "-" + os.path.basename(proj))
        os.makedirs(arts[m], exist_ok=True)
        for i in range(1, n + 1):
            shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
            cache = os.path.join(proj, ".shardcc", "bench-%s-%d" % (m, i))
            shutil.rmtree(cache, ignore_errors=True)
            cmd = [shardcc, "shard", "--shard", "%d/%d" % (i, n), "--cache", cache]
            if prefill:
                prefill(cache, i)
            cmd += ["--artifact", arts[m]] if m == "artifacts" else ["--no-artifact", "--remote", url[m],
                                                                    "--run-id", "bench-" + os.path.basename(proj)]
            wall, _ = run(cmd + ["--", "sh", "-c", build], proj, "shard %d/%d (%s)" % (i, n, m))
            say("   shard %d/%d (%s): %.1f s" % (i, n, m, wall))
    art_bytes = sum(os.path.getsize(f) for f in glob.glob(os.path.join(arts["artifacts"], "*.tar.zst")))
    walls = {m: [] for m in modes}
    moved = {}
    for r in range(rounds):
        for m in modes:
            shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True)
            cmd = [shardcc, "link", "--expect-shards", str(n)]
            cmd += ["--artifacts", arts[m]] if m == "artifacts" else ["--remote", url[m], "--run-id",
                                                                     "bench-" + os.path.basename(proj)]
            before = srv.sent(m)
            wall, out = run(cmd + ["--", "sh", "-c", build], proj, "link (%s)" % m)
            if "hit rate 100.0%" not in out:
                sys.exit("bench: the link job (%s) missed:\n%s" % (m, out[-2000:]))
            walls[m].append(wall)
            moved[m] = art_bytes if m == "artifacts" else srv.sent(m) - before
    base = statistics.median(walls["artifacts"])
    for m in modes:
        med = statistics.median(walls[m])
        say("   link job, %-9s: %6.2f s median of %d (%s), %.3f x artifacts; %8.1f MB into the link job"
            % (m, med, rounds, " ".join("%.2f" % w for w in walls[m]), med / base, moved[m] / 1e6))


def fill_store(cache, i, per_shard, size):
    """per_shard random store entries of size bytes in the cache's layout (a/b/<62 hex>D)."""
    for k in range(per_shard):
        data = os.urandom(size)
        import hashlib
        key = hashlib.sha256(b"bench %d %d" % (i, k)).hexdigest()
        d = os.path.join(cache, key[0], key[1])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, key[2:] + "D"), "wb") as f:
            f.write(data)


def local(shardcc, proj, args, what):
    wall, out = run([shardcc, "local", "-n", "3", "--no-baseline", "--clean", "rm -rf build"] + args +
                    ["--", "sh", "-c", BUILD], proj, what)
    m = re.search(r"predicted CI makespan: ([\d.]+) s \(slowest shard ([\d.]+) s \+ link ([\d.]+) s\)", out)
    if not m:
        sys.exit("bench: no makespan in shardcc local's output:\n" + out)
    compiled = 0
    for j in glob.glob(os.path.join(proj, ".shardcc", "shard-*-of-3", "journal.tsv")):
        with open(j) as f:
            compiled += sum(1 for l in f if l.startswith("SCJ2\t") and l.split("\t")[6] == "tu"
                            and l.split("\t")[13] == "miss")
    return float(m.group(1)), float(m.group(2)), float(m.group(3)), compiled


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--synthetic-mib", type=int, default=2048)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "remote_handoff.txt"))
    a = ap.parse_args()
    shardcc = os.path.join(os.path.abspath(a.build), "shardcc")
    with benchlib.session("remote_handoff", a.out) as (work, say):
        say("shardcc: %s" % benchlib.first_line([shardcc, "--version"]))
        say("ccache: %s" % benchlib.first_line(["ccache", "--version"]))
        say("redis: %s" % benchlib.first_line(["redis-server", "--version"]))
        say("nginx: %s" % (subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()))
        srv = Servers(work)
        try:
            say()
            say("1. examples/cuda-cmake, N=3:")
            proj = os.path.join(work, "example")
            shutil.copytree(os.path.join(SRC, "examples", "cuda-cmake"), proj)
            handoff(shardcc, srv, proj, 3, BUILD, a.rounds, say)

            say()
            mib = a.synthetic_mib
            say("2. a synthetic %d MiB cache: 2 shards, each %d MiB of 4 MiB store entries, one TU built:" % (mib, mib // 2))
            syn = os.path.join(work, "synthetic")
            os.makedirs(os.path.join(syn, "src"))
            with open(os.path.join(syn, "src", "k.cu"), "w") as f:
                f.write("__global__ void k(float *x) { x[threadIdx.x] += 1.0f; }\n")
            sbuild = ('rm -rf build && mkdir build && "$CUDACXX" -O2 -gencode=arch=compute_90,code=sm_90 '
                      '-c "$PWD/src/k.cu" -o build/k.o')
            per = mib // 2 // 4
            handoff(shardcc, srv, syn, 2, sbuild, a.rounds, say,
                    prefill=lambda cache, i: fill_store(cache, i, per, 4 << 20))
            shutil.rmtree(syn, ignore_errors=True)
            for m in ("artifacts", "redis", "http"):
                shutil.rmtree(os.path.join(work, "arts-%s-synthetic" % m), ignore_errors=True)
            subprocess.run(["redis-cli", "-p", str(srv.rport), "flushall"], capture_output=True)
            shutil.rmtree(os.path.join(work, "www", "cache"), ignore_errors=True)
            os.makedirs(os.path.join(work, "www", "cache"))

            say()
            say("3. warm starts, examples/cuda-cmake, N=3 (shardcc local --no-baseline), one TU changed:")
            wp = os.path.join(work, "warm")
            shutil.copytree(os.path.join(SRC, "examples", "cuda-cmake"), wp)
            victim = sorted(glob.glob(os.path.join(wp, "src", "heavy_*.cu")))[0]
            cold = local(shardcc, wp, ["--remote", srv.redis], "cold (redis)")
            with open(victim, "a") as f:
                f.write("\nvoid bench_changed_1() {}\n")
            warm = local(shardcc, wp, ["--remote", srv.redis], "warm (redis)")
            say("   remote:  cold makespan %.1f s (slowest shard %.1f s + link %.1f s), %d TUs compiled" % cold)
            say("            warm makespan %.1f s (slowest shard %.1f s + link %.1f s), %d TUs compiled: %.3f x cold"
                % (warm + (warm[0] / cold[0],)))
            cold2 = local(shardcc, wp, [], "cold (artifacts)")
            seed = os.path.join(work, "seed")
            shutil.copytree(os.path.join(wp, ".shardcc", "local", "artifacts"), seed)
            with open(victim, "a") as f:
                f.write("\nvoid bench_changed_2() {}\n")
            warm2 = local(shardcc, wp, ["--seed-from", seed], "warm (--seed-from)")
            say("   seed:    cold makespan %.1f s (slowest shard %.1f s + link %.1f s), %d TUs compiled" % cold2)
            say("            warm makespan %.1f s (slowest shard %.1f s + link %.1f s), %d TUs compiled: %.3f x cold"
                % (warm2 + (warm2[0] / cold2[0],)))
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
