"""The README's worked example (issue 37): one SBN level of ``shock[scale=20]`` (1,005,958 elements) at
P = 8,192, with each rank's busy CPU and peak memory.

    mpiexec -n R python3 -m benchmarks.worked_example    # one JSON line per rank

``SbnShock20`` tracks the same at R = 1 with asv (minutes: the workload cache is filled on first use).
"""
import json
import resource
import sys
import tempfile
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
    print(json.dumps(run()), file=sys.stdout, flush=True)
