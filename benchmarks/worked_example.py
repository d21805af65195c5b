"""The README's worked example (issue 37): one SBN level of ``shock[scale=20]`` (1,005,958 elements) at
P = 8,192, with each rank's busy CPU and peak memory.

    mpiexec -n R python3 -m benchmarks.worked_example            # one JSON line per rank
    python3 -m benchmarks.worked_example --host-memory R [R ...]  # the host's peak memory at each R

The host's peak memory (issue 52) is the largest drop of ``MemAvailable`` (``/proc/meminfo``, sampled
every 50 ms) below its value just before the command starts: it counts pages the ranks share once, which
the ranks' peak RSS sum counts R times. Other processes on the host move it too: measure on an idle host.
Beside it, ``tree_peak_MiB`` is the largest sum of the command's processes' anonymous and shared-memory pages
(``Pss_Anon`` + ``Pss_Shmem``), which other processes do not move.
``SbnShock20`` tracks the same at R = 1 with asv (minutes: the workload cache is filled on first use).
"""
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time

from harness.engine.vprocs import world
from harness.run.api import compare

P, LEVEL, SCALE = 8192, 1, 20


def run() -> dict:
    """The level's figures and this rank's wall, CPU and peak memory."""
    t, c = time.perf_counter(), time.process_time()
    df = compare("sbn", workload="shock", workload_params={"scale": SCALE}, P=P, levels=[LEVEL],
                 out=tempfile.mkdtemp(prefix="lbbench-we-"), cache=False)
    r = df.iloc[0]
    comm = world()
    return {"rank": 0 if comm is None else comm.Get_rank(), "wall_s": round(time.perf_counter() - t, 1),
            "cpu_s": round(time.process_time() - c, 1),
            "peak_MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            **{k: r[k].item() if hasattr(r[k], "item") else r[k]
               for k in ("status", "ranks", "loadimb", "balance_messages", "sbn_supersteps", "rank_busy_s_max",
                         "rank_busy_s_mean", "rank_balance")}}


def mem_available() -> int:
    """The host's ``MemAvailable`` in bytes."""
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise OSError("/proc/meminfo has no MemAvailable")


def tree_private(pid: int) -> int:
    """The anonymous and shared-memory pages (bytes, ``Pss_Anon`` + ``Pss_Shmem``: a page ``k`` processes share
    counts ``1/k`` in each) of ``pid`` and its descendants: what they take from ``MemAvailable``, whatever other
    processes on the host do."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as fh:
                kids.setdefault(int(fh.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
        except (OSError, ValueError, IndexError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += kids.get(p, [])
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                total += sum(int(ln.split()[1]) * 1024 for ln in fh if ln.startswith(("Pss_Anon:", "Pss_Shmem:")))
        except OSError:
            continue
    return total


def host_peak(cmd: list[str], interval: float = 0.05) -> tuple[int, int, subprocess.CompletedProcess]:
    """Run ``cmd``, sampling every ``interval`` seconds: the largest drop of ``MemAvailable`` below its value at
    the start (bytes), the largest :func:`tree_private` of the command's processes, and the finished process
    (its stdout captured)."""
    start = low = mem_available()
    tree = 0
    done = threading.Event()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)

    def sample():
        nonlocal low, tree
        while not done.wait(interval):
            low, tree = min(low, mem_available()), max(tree, tree_private(proc.pid))

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    try:
        out = proc.communicate()[0]
    finally:
        done.set()
        watcher.join()
    return start - min(low, mem_available()), tree, subprocess.CompletedProcess(cmd, proc.returncode, out)


def host_memory(ranks: list[int]) -> list[dict]:
    """The host's peak memory (MiB) running the worked example at each of ``ranks``, with rank 0's figures."""
    out = []
    for R in ranks:
        cmd = [sys.executable, "-m", "benchmarks.worked_example"]
        drop, tree, proc = host_peak(cmd if R == 1 else ["mpiexec", "-n", str(R)] + cmd)
        if proc.returncode:
            raise SystemExit(f"worked example at R = {R} failed (exit {proc.returncode})")
        lines = [json.loads(x) for x in re.findall(r"\{[^{}]*\}", proc.stdout)]  # (ranks' lines may interleave)
        out.append({"R": R, "host_peak_MiB": round(drop / 2 ** 20), "tree_peak_MiB": round(tree / 2 ** 20),
                    "rank_peak_MiB": [x["peak_MiB"] for x in sorted(lines, key=lambda x: x["rank"])],
                    **{k: lines[0][k] for k in ("loadimb", "balance_messages", "sbn_supersteps")}})
        print(json.dumps(out[-1]), flush=True)
    if len(out) > 1:
        print(json.dumps({f"ratio_{k}": {f"R={x['R']}": round(x[k] / out[0][k], 2) for x in out[1:]}
                          for k in ("host_peak_MiB", "tree_peak_MiB")}), flush=True)
    return out


class SbnShock20:
    timeout = 1800
    number = 1
    repeat = 1

    def track_busy_s(self):
        return run()["rank_busy_s_max"]

    track_busy_s.unit = "seconds"

    def track_peak_MiB(self):
        return run()["peak_MiB"]

    track_peak_MiB.unit = "MiB"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--host-memory"]:
        if not all(x.isdigit() and int(x) > 0 for x in sys.argv[2:]):
            raise SystemExit("usage: python3 -m benchmarks.worked_example --host-memory R [R ...]")
        host_memory([int(x) for x in sys.argv[2:]] or [1, 4])
    else:
        print(json.dumps(run()), file=sys.stdout, flush=True)
