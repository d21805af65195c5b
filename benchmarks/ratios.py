"""asv: the ratios issue 26 sets targets on (tracked, not asserted).

* ``HeadlineRatio``: ``lbbench compare --plugins sbn,minex,plum -P 32`` over
  ``lbbench compare --plugins metis -P 32``, timed in alternation (median of
  three each; cold result store, cached workload), as the issue measured it:
  through the command line (target: at most 3x), and in one process
  (``harness.run.api.compare``, no start-up in either: a stricter ratio).
* ``RankBalance``: one SBN level at P = 256 through the runner under
  ``mpiexec -n R`` (levels 1-2 of ``shock``: level 2 is laid out by level 1's
  measured work): ``rank_balance`` of level 2 (target >= 0.85 at R = 2 and 4)
  and the busy CPU summed over the ranks over one rank's (target <= 1.15); medians
  of five runs of each R, taken in turn.
* ``AmrBoxGraphs``: the 66 box graphs of ``bl`` read back from the workload
  cache (the second ``compare`` on ``bl``).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

_RANKS = r"""
import json, sys, tempfile
from harness.run.api import compare
from harness.engine.vprocs import world
df = compare("sbn", workload="shock", P=int(sys.argv[1]), levels=[1, 2], out=tempfile.mkdtemp(), cache=False)
c = world()
if c is None or c.Get_rank() == 0:
    r = df[df["level"] == 2].iloc[0]
    print("RESULT " + json.dumps({"balance": float(r["rank_balance"]), "busy_mean": float(r["rank_busy_s_mean"]),
                                  "ranks": int(r["ranks"])}))
"""


def _compare(methods, P, out):
    from harness.run.api import compare

    return compare(methods, workload="shock", P=P, cache=False, out=out)


def _compare_cli(methods, P, out):
    subprocess.run([sys.executable, "-m", "harness.present.cli", "compare", "--plugins", methods, "-P", str(P), "--out", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _alternate(run, out) -> float:
    head, metis = [], []
    for _ in range(3):
        t = time.perf_counter()
        run("sbn,minex,plum", 32, tempfile.mkdtemp(dir=out))
        head.append(time.perf_counter() - t)
        t = time.perf_counter()
        run("metis", 32, tempfile.mkdtemp(dir=out))
        metis.append(time.perf_counter() - t)
    return statistics.median(head) / statistics.median(metis)


class HeadlineRatio:
    timeout = 900
    number = 1
    repeat = 1
    warmup_time = 0

    def setup(self):
        from harness import load_workload

        load_workload("shock", {}, 0)  # the workload is cached; the result store is not
        self.scratch = tempfile.TemporaryDirectory(prefix="asv-ratio-")
        self.out = self.scratch.name

    def teardown(self):
        self.scratch.cleanup()

    def track_headline_over_metis_P32(self):
        return _alternate(_compare_cli, self.out)

    def track_headline_over_metis_P32_in_process(self):
        return _alternate(_compare, self.out)

    track_headline_over_metis_P32.unit = "x (headline / METIS-only, command line)"
    track_headline_over_metis_P32_in_process.unit = "x (headline / METIS-only, one process)"


class RankBalance:
    params = [2, 4]
    param_names = ["ranks"]
    timeout = 1800
    P = 256
    ROUNDS = 5  # medians of five runs of each R

    def setup_cache(self):
        from harness import load_workload
        from harness.testing import mpirun

        load_workload("shock", {}, 0)
        fd, script = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(_RANKS)
        try:
            out = {R: [] for R in [1] + self.params}
            for _ in range(self.ROUNDS):  # R = 1, 2, 4 in turn: a load that comes and goes hits each alike
                for R in out:
                    res = mpirun(R, script, str(self.P), timeout=1200)
                    line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
                    if res.returncode != 0 or len(line) != 1:
                        raise RuntimeError(res.stderr[-2000:])
                    out[R].append(json.loads(line[0][len("RESULT "):]))
            return {R: {k: statistics.median(r[k] for r in runs) for k in ("balance", "busy_mean")}
                    for R, runs in out.items()}
        finally:
            os.unlink(script)

    def track_rank_balance_P256(self, got, ranks):
        return got[ranks]["balance"]

    def track_busy_over_one_rank_P256(self, got, ranks):
        return got[ranks]["busy_mean"] * ranks / got[1]["busy_mean"]

    track_rank_balance_P256.unit = "mean / max busy"
    track_busy_over_one_rank_P256.unit = "x (sum over ranks / one rank)"


class AmrBoxGraphs:
    timeout = 900
    number = 1
    repeat = 3

    def setup(self):
        from harness import load_workload
        from harness.store import boxgraphs
        from harness.run.runner import graph_of

        self.levels = load_workload("bl", {}, 0)[2]
        for lv in self.levels:  # built (or read) once: in the workload cache now
            graph_of(lv)
        self.memory = boxgraphs._box_graphs

    def time_bl_box_graphs_from_cache(self):
        from harness.run.runner import graph_of

        self.memory.clear()  # as a new process: from the workload cache on disk
        for lv in self.levels:
            graph_of(lv)


if __name__ == "__main__":  # python -m benchmarks.ratios [ranks]: the headline ratios (or the ranks') once
    if sys.argv[1:] == ["ranks"]:
        rb = RankBalance()
        got = rb.setup_cache()
        print(f"R = 1: {got[1]['busy_mean']:.3f} s busy")
        for R in rb.params:
            print(f"R = {R}: rank_balance {rb.track_rank_balance_P256(got, R):.3f}, "
                  f"busy summed over ranks {rb.track_busy_over_one_rank_P256(got, R):.2f}x one rank's")
    else:
        bench = HeadlineRatio()
        bench.setup()
        print(f"command line {bench.track_headline_over_metis_P32():.2f}x, "
              f"one process {bench.track_headline_over_metis_P32_in_process():.2f}x")
        bench.teardown()
