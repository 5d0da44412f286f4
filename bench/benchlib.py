"""What the benchmarks share: a temporary work directory, and the lines they print, recorded
in bench/results/<name>.txt once the run has finished (a run that fails records nothing)."""
import contextlib
import datetime
import os
import platform
import shutil
import subprocess
import tempfile


class Record:
    """say(line): prints the line and keeps it for the result file."""

    def __init__(self):
        self.lines = []

    def __call__(self, s=""):
        print(s, flush=True)
        self.lines.append(s)


def first_line(cmd, last=False):
    """The first (or last) line a tool prints about its version, or "not found"."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()
    except OSError:
        return "not found"
    return (out[-1] if last else out[0]) if out else "unknown"


@contextlib.contextmanager
def session(name, out):
    """with session("pipeline_cost", path) as (work, say): ..."""
    work = tempfile.mkdtemp(prefix="shardcc-bench.")
    say = Record()
    say("%s: %s, %s, %d cores" % (name, datetime.datetime.now().isoformat(timespec="seconds"),
                                  platform.machine(), os.cpu_count()))
    try:
        yield work, say
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(say.lines) + "\n")
    print("recorded in %s" % out)
