"""asv benchmarks for the PLUM plugin (plugins/plum): one level's step at P = 32 on the last shock level.

Target (issue 4): PLUM's whole step (partition, similarity matrix, reassignment,
accept, metrics) within 2x the time of the pymetis call alone;
``track_ratio_to_pymetis`` measures that ratio within one run.
"""
import numpy as np

try:
    from lbbench_plum.bench import available_workload, last_level_context, plum_step, pymetis_call, ratio
    from lbbench_plum.reassign import heuristic, optimal
except ImportError:  # the plugin is not installed in this environment
    last_level_context = None


class PlumStep:
    params = (["plum-pmetis", "plum-dmetis"],)
    param_names = ["algorithm"]
    timeout = 300

    def setup(self, algorithm):
        if last_level_context is None:
            raise NotImplementedError("lbbench-plum is not installed")
        self.ctx = last_level_context(available_workload("shock"), 32, algorithm)

    def time_plum_step(self, algorithm):
        plum_step(self.ctx)

    def peakmem_plum_step(self, algorithm):
        plum_step(self.ctx)

    def track_ratio_to_pymetis(self, algorithm):
        return ratio(self.ctx, repeats=5)["ratio"]

    track_ratio_to_pymetis.unit = "x pymetis"


class PymetisCall:
    timeout = 300

    def setup(self):
        if last_level_context is None:
            raise NotImplementedError("lbbench-plum is not installed")
        self.call = pymetis_call(last_level_context(available_workload("shock"), 32))

    def time_pymetis_part_graph(self):
        self.call()


class Reassignment:
    """PLUM's heuristic vs the optimal assignment on a sparse similarity matrix."""

    params = ([32, 256, 1024],)
    param_names = ["P"]

    def setup(self, P):
        if last_level_context is None:
            raise NotImplementedError("lbbench-plum is not installed")
        rng = np.random.default_rng(0)
        S = rng.integers(0, 100, (P, P)) * (rng.random((P, P)) < 8 / P)
        S[np.arange(P), rng.permutation(P)] += 1000
        self.S = S

    def time_heuristic(self, P):
        heuristic(self.S, 1)

    def time_optimal(self, P):
        optimal(self.S, 1)
