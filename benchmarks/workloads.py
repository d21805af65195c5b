"""asv benchmarks of the standard workloads (issue 3's targets).

Targets: shock's nine levels generate cold in under 30 s and load from the
cache in under 1 s; the adapters turn a bl step (about 20,000 boxes) into a
graph in about a second.
"""
import os
import shutil
import tempfile

from harness.run import workloads
from harness import as_form
from workloads import bl, shock, truss


class ShockGeneration:
    """Cold generation of the nine shock levels (mesh + refinement trees + graphs). Target < 30 s."""

    timeout = 300
    number = 1
    repeat = 1

    def time_shock_cold(self):
        shock.generate(seed=0)

    def peakmem_shock_cold(self):
        shock.generate(seed=0)


class ShockCache:
    """Warm load of the nine shock levels from the on-disk cache. Target < 1 s."""

    timeout = 300

    def setup(self):
        self.dir = tempfile.mkdtemp(prefix="lbbench-asv-")
        os.environ["LBBENCH_CACHE"] = self.dir
        workloads.load("shock", {}, 0)  # fills the cache

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.environ.pop("LBBENCH_CACHE", None)

    def time_shock_warm(self):
        workloads.load("shock", {}, 0)


class ShockScale20:
    """Cold generation of ``shock[scale=20]`` (about 1M elements per level, nine levels), the README's
    per-rank memory figure (issue 26). Targets: under 30 s, peak under 1 GB."""

    timeout = 900
    number = 1
    repeat = 1

    def time_shock20_cold(self):
        shock.generate(seed=0, scale=20)

    def peakmem_shock20_cold(self):
        shock.generate(seed=0, scale=20)


class ShockScale20Cache:
    """What each MPI rank of a ``shock[scale=20]`` compare does first: load the nine levels from the
    workload cache (levels share one xadj, adjncy and coords)."""

    timeout = 900
    number = 1
    repeat = 1

    def setup_cache(self):
        path = os.path.join(tempfile.gettempdir(), "lbbench-asv-shock20")  # reused by the next run (~0.6 GB)
        os.environ["LBBENCH_CACHE"] = path
        workloads.load("shock", {"scale": 20.0}, 0)
        return path

    def _load(self, path):
        os.environ["LBBENCH_CACHE"] = path
        workloads._RECENT.clear()
        workloads.load("shock", {"scale": 20.0}, 0)

    def time_shock20_warm(self, path):
        self._load(path)

    def peakmem_shock20_warm(self, path):
        self._load(path)


class OtherGenerators:
    timeout = 600
    number = 1
    repeat = 1

    def time_truss_cold(self):
        truss.generate(seed=0)

    def time_bl_one_regrid(self):
        bl.regrid(33, 5, 0.5, 2, 0.7, 4)


class Adapters:
    def setup(self):
        self.boxes = bl.to_boxes(bl.regrid(33, 5, 0.5, 2, 0.7, 4))

    def time_boxes_to_graph(self):
        as_form(self.boxes, "graph")

    def time_boxes_to_array(self):
        as_form(self.boxes, "array")
