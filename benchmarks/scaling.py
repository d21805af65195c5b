"""asv scaling benchmarks of SBN (issue 15).

* ``SbnScaling``: one shock level (level 1, METIS start) at P = 32, 256, 2048: wall
  time, peak memory, and the balancing / migration messages (``track_*``; the
  balancing messages per P log2 P show whether they grow faster than P log P).
  Targets: P = 2048 in under 90 s and 1 GB.
* ``Headline``: ``lbbench compare --plugins sbn,minex,plum -P 32`` (all nine levels,
  cold result store, cached workload). Target: under 10 s.
* ``HarnessFloor``: ``lbbench compare --plugins metis,plum,minex -P P`` at P = 2048
  and 8192 (nine shock levels): wall time and peak memory of the harness's own floor.
* ``MpiSpeedup``: one SBN level at P = 256 under ``mpiexec -n 1`` and ``-n 2`` (the
  level's own wall time, without start-up). Target: ``-n 2`` at least 1.6x faster.
"""
import json
import math
import os
import shutil
import sys
import tempfile
import time

from .sbn import _need_plugin, compare, run_level, shock_level

_MPI_LEVEL = r"""
import json, sys, time
import numpy as np
from harness import Engine, Machine
import importlib.util
sys.path.append(sys.argv[2] + "/..")  # the repository's workloads package when run from a source tree
spec = importlib.util.spec_from_file_location("asv_sbn_helpers", sys.argv[2] + "/sbn.py")
helpers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(helpers)
shock_level = helpers.shock_level
from lbbench_sbn.balancer import LevelRun, Params
from lbbench_sbn.topology import Trees
P = int(sys.argv[1])
g, state = shock_level(0, P)
m = Machine.uniform(P)
eng = Engine(P, m)
run = LevelRun(g, m, eng, state, Params(), lambda p: np.random.default_rng(p), trees=Trees(P))
eng.barrier()
t = time.perf_counter()
run.run()
eng.barrier()
t = eng.rank_max(time.perf_counter() - t)
figures = run.figures()  # a collective: every rank
if eng.is_root:
    print("RESULT " + json.dumps({"seconds": t, "figures": figures}))
"""


class SbnScaling:
    params = [32, 256, 2048]
    param_names = ["P"]
    timeout = 600
    number = 1
    repeat = 1
    warmup_time = 0

    def setup_cache(self):
        _need_plugin()
        out = {}
        for P in self.params:
            g, state = shock_level(0, P)
            out[P] = run_level(g, state, P)
        return out

    def setup(self, totals, P):
        self.g, self.state = shock_level(0, P)

    def time_level1(self, totals, P):
        run_level(self.g, self.state, P)

    def peakmem_level1(self, totals, P):
        run_level(self.g, self.state, P)

    def track_balance_messages(self, totals, P):
        return totals[P]["balance"]["messages"]

    def track_migration_messages(self, totals, P):
        return totals[P]["migration"]["messages"]

    def track_balance_messages_per_PlogP(self, totals, P):
        return totals[P]["balance"]["messages"] / (P * math.log2(P))

    track_balance_messages.unit = "messages"
    track_migration_messages.unit = "messages"
    track_balance_messages_per_PlogP.unit = "messages / (P log2 P)"


class Headline:
    """The README's headline command, through the Python API (the CLI's code path)."""

    timeout = 300
    number = 1
    repeat = 1
    warmup_time = 0

    def setup(self):
        _need_plugin()
        shock_level(0, 32)  # the workload is cached; the result store is not
        self.out = tempfile.mkdtemp(prefix="asv-headline-")

    def teardown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def time_compare_sbn_minex_plum_P32(self):
        compare("sbn,minex,plum", 32, tempfile.mkdtemp(dir=self.out))


class HarnessFloor:
    """The harness's own floor (issue 26): ``lbbench compare --plugins metis,plum,minex -P P`` over the nine
    shock levels (cold result store, cached workload), wall time and peak memory. Measured before contract
    1.0 (db1fcb4) side by side with it: see the issue's closing note."""

    params = [2048, 8192]
    param_names = ["P"]
    timeout = 900
    number = 1
    repeat = 1
    warmup_time = 0

    def setup(self, P):
        shock_level(0, 32)  # the workload is cached; the result store is not
        self.out = tempfile.mkdtemp(prefix="asv-floor-")

    def teardown(self, P):
        shutil.rmtree(self.out, ignore_errors=True)

    def time_compare_metis_plum_minex(self, P):
        compare("metis,plum,minex", P, tempfile.mkdtemp(dir=self.out))

    def peakmem_compare_metis_plum_minex(self, P):
        compare("metis,plum,minex", P, tempfile.mkdtemp(dir=self.out))


class MpiSpeedup:
    """One SBN level at P = 256 under 1 and 2 MPI ranks (real mpiexec)."""

    timeout = 600
    P = 256

    def setup(self):
        _need_plugin()
        try:
            from harness.testing import mpirun
        except ImportError:
            raise NotImplementedError("harness.testing.mpirun is not available")
        self.mpirun = mpirun
        shock_level(0, self.P)
        fd, self.script = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(_MPI_LEVEL)

    def teardown(self):
        os.unlink(self.script)

    def _seconds(self, ranks):
        res = self.mpirun(ranks, self.script, str(self.P), os.path.dirname(os.path.abspath(__file__)), timeout=600)
        line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
        if res.returncode != 0 or len(line) != 1:
            raise RuntimeError(res.stderr[-2000:])
        return json.loads(line[0][len("RESULT "):])

    def track_mpi2_speedup_P256(self):
        one, two = self._seconds(1), self._seconds(2)
        if one["figures"] != two["figures"]:
            raise RuntimeError("figures differ between 1 and 2 ranks")
        return one["seconds"] / two["seconds"]

    track_mpi2_speedup_P256.unit = "x (1 rank / 2 ranks)"


if __name__ == "__main__":  # quick manual run: python -m benchmarks.scaling [P ...]
    for P in [int(x) for x in sys.argv[1:]] or SbnScaling.params:
        g, state = shock_level(0, P)
        t = time.perf_counter()
        tot = run_level(g, state, P)
        print(P, round(time.perf_counter() - t, 2), tot["balance"]["messages"], tot["migration"]["messages"])
