"""asv benchmarks of the standard workloads (issue 3's targets).

Targets: shock's nine levels generate cold in under 30 s and load from the
cache in under 1 s; the adapters turn a bl step (about 20,000 boxes) into a
graph in about a second.
"""
import os
import shutil
import tempfile

from harness import workloads
from harness.adapters import as_form
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
