"""asv benchmarks of the core: metrics on a 50,000-vertex graph, engine supersteps (objects, batches, empty), one compare cell."""
import shutil
import tempfile

import numpy as np

from harness import Engine, Machine, State, app_figures, core_metrics, latency_figures, load_workload, metis_kway


def graph_50k():
    """The `mini` generator at about 50,000 tetrahedra (dual vertices)."""
    return load_workload("mini", {"points": 8300, "levels": 1})[2][0].data


class Metrics:
    """Target: every metric of one level of a 50,000-vertex graph in under 20 ms."""

    def setup(self):
        self.g = graph_50k()
        # a realistic level: METIS owners before, 5% of the vertices moved after
        rng = np.random.default_rng(0)
        self.before = State.settled(metis_kway(self.g, 32), 32)
        owner = self.before.owner.copy()
        moved = rng.random(self.g.n) < 0.05
        owner[moved] = rng.integers(0, 32, moved.sum())
        self.after = State(owner, self.before.home, 32)
        self.m = Machine.parse("grid:4:3", 32)

    def time_core_metrics(self):
        core_metrics(self.g, self.before, self.after, self.m)

    def time_all_metrics(self):
        """What the built-in metrics hook computes for every cell: core, latency and application model."""
        core_metrics(self.g, self.before, self.after, self.m)
        latency_figures(self.g, self.before, self.after, self.m)
        app_figures(self.g, self.after, self.m)


class Exchange:
    """Supersteps on one rank. Targets: an empty superstep of 2,048 vprocs in at most 20 us; a superstep of
    one 64-byte message per vproc as one batch (:meth:`Engine.send`) at least 10x faster than posted one by
    one (the object path)."""

    def setup(self):
        self.eng = Engine(2048, comm=None)
        self.src = np.arange(2048)
        self.dst = (self.src * 7 + 1) % 2048
        self.rows = np.zeros((2048, 8), np.int64)

    def time_empty_exchange(self):
        self.eng.exchange()

    def time_ring_objects(self):
        for s, d in zip(self.src.tolist(), self.dst.tolist()):
            self.eng.post(s, d, b"x" * 64)
        self.eng.exchange()

    def time_ring_batch(self):
        self.eng.send("ring", self.src, self.dst, self.rows)
        self.eng.exchange()
        self.eng.received("ring")


class CompareCell:
    def setup(self):
        load_workload("mini")
        self.out = tempfile.mkdtemp()

    def teardown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def time_metis_cell(self):
        from harness.run.api import compare

        compare("metis", workload="mini", P=32, levels=[1], out=self.out, cache=False)
