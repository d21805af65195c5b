"""asv benchmarks of the SBN plugin (plugins/sbn).

Targets (issues 5 and 15), on the development machine (2 cores, one MPI rank):
SBN through all nine ``shock`` levels at P = 32 in under 30 s; one level at
P = 2048 in under 90 s and 1 GB (``scaling.py``). The helpers below work with
the current public harness API and fall back to the older submodule names, so
that ``asv run`` can go back over earlier commits.
"""
import tempfile

import numpy as np

try:
    from lbbench_sbn.balancer import LevelRun, Params
    from lbbench_sbn.topology import Trees
except ImportError:  # the plugin is not installed in this environment
    LevelRun = None


def shock_level(index: int, P: int):
    """(graph of shock level ``index`` (0-based), the level-1 METIS start at P processors)."""
    try:
        from harness import graph_of, initial_state, load_workload

        levels = load_workload("shock", {}, 0)[2]
        return graph_of(levels[index]), initial_state(levels[0], P, 0)
    except ImportError:  # before the public API (contract 1.0)
        from harness.run.runner import initial_state
        from harness.run.workloads import load

        levels = load("shock", {}, 0)[2]
        return levels[index].data, initial_state(levels[0].data, P, 0)


def compare(methods: str, P: int, out: str):
    try:
        from harness.run.api import compare as run
    except ImportError:  # pragma: no cover
        from harness import compare as run
    return run(methods, workload="shock", P=P, cache=False, out=out)


def run_level(g, state, P: int, trees=None):
    """One SBN level on a one-process engine; returns the engine's message totals."""
    from harness import Engine, Machine

    m = Machine.uniform(P)
    eng = Engine(P, m, comm=None)
    LevelRun(g, m, eng, state, Params(), lambda p: np.random.default_rng(p), trees=trees or Trees(P)).run()
    return eng.totals()


def _need_plugin():
    if LevelRun is None:
        raise NotImplementedError("lbbench-sbn is not installed")


class ShockP32:
    """SBN (default parameters, no pre-partitioning) over all shock levels at P = 32."""

    timeout = 300
    number = 1
    repeat = 1

    def setup(self):
        _need_plugin()
        shock_level(0, 32)  # generate / cache the workload outside the timing
        self.out = tempfile.mkdtemp(prefix="asv-sbn-")

    def time_sbn_all_levels(self):
        compare("sbn", 32, self.out)

    def peakmem_sbn_all_levels(self):
        compare("sbn", 32, self.out)


class OneLevel:
    """One SBN level (level 1 of shock) at P = 32 directly on the engine, no harness around it."""

    timeout = 120

    def setup(self):
        _need_plugin()
        self.g, self.state = shock_level(0, 32)
        self.trees = Trees(32)

    def time_level1(self):
        run_level(self.g, self.state, 32, self.trees)


class PrePartition:
    """The §3.7 pre-partitioner on level 3 of shock at P = 32 (sequential, as in the paper)."""

    timeout = 120

    def setup(self):
        _need_plugin()
        from harness import Machine

        self.g, self.state = shock_level(2, 32)
        self.m = Machine.uniform(32)

    def time_prepartition(self):
        from lbbench_sbn.prepartition import prepartition

        prepartition(self.g, self.state, self.m, np.random.default_rng(0))
