"""asv benchmarks of the SBN plugin (plugins/sbn).

Target (issue 5): SBN through all nine ``shock`` levels at P = 32 in under 30 s
on the development machine (2 cores, one MPI rank).
"""
import tempfile

import numpy as np

from harness import Engine, Machine
from harness.api import compare
from harness.runner import initial_state
from harness.workloads import load


class ShockP32:
    """SBN (default parameters, no pre-partitioning) over all shock levels at P = 32."""

    timeout = 300
    number = 1
    repeat = 1

    def setup(self):
        load("shock", {}, 0)  # generate / cache the workload outside the timing
        self.out = tempfile.mkdtemp(prefix="asv-sbn-")

    def time_sbn_all_levels(self):
        compare("sbn", workload="shock", P=32, cache=False, out=self.out)

    def peakmem_sbn_all_levels(self):
        compare("sbn", workload="shock", P=32, cache=False, out=self.out)


class OneLevel:
    """One SBN level (level 1 of shock) directly on the engine, no harness around it."""

    timeout = 120

    def setup(self):
        from lbbench_sbn.balancer import Params
        from lbbench_sbn.plugin import trees

        levels = load("shock", {}, 0)[2]
        self.g = levels[0].data
        self.m = Machine.uniform(32)
        self.state = initial_state(self.g, 32, 0)
        self.params = Params()
        self.trees = trees(32)

    def time_level1(self):
        from lbbench_sbn.balancer import LevelRun

        LevelRun(self.g, self.m, Engine(32, self.m, comm=None), self.state, self.params,
                 lambda p: np.random.default_rng(p), trees=self.trees).run()


class PrePartition:
    """The §3.7 pre-partitioner on level 3 of shock at P = 32 (sequential, as in the paper)."""

    timeout = 120

    def setup(self):
        levels = load("shock", {}, 0)[2]
        self.g = levels[2].data
        self.m = Machine.uniform(32)
        self.state = initial_state(levels[0].data, 32, 0)

    def time_prepartition(self):
        from lbbench_sbn.prepartition import prepartition

        prepartition(self.g, self.state, self.m, np.random.default_rng(0))
