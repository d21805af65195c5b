"""asv benchmarks of the MinEX plugin (plugins/minex).

Targets (issue 6): MinEX on the last shock level at P = 32 within 3x of the
pymetis call on the same graph (``track_ratio_to_metis``), and the P = 2048
cell of ``minex-table3`` in under 60 s (``Table3P2048.time_cell``).
"""
import shutil
import tempfile

from harness.run.partitioners import metis_kway
from harness.claims.reports import ReportOptions
from harness.run.workloads import load


class LastShockLevel:
    """Level 9 of shock at P = 32, from the state MinEX left after level 8."""

    timeout = 300

    def setup(self):
        from lbbench_minex.bench import last_level_case

        self.case = last_level_case(32)

    def time_minex(self):
        from lbbench_minex.minex import minex

        g, owner, m, T = self.case
        minex(g, owner, owner, m, seed=9, throttle=T)

    def time_minex_python_reference(self):
        from lbbench_minex.minex import minex

        g, owner, m, T = self.case
        minex(g, owner, owner, m, seed=9, throttle=T, impl="python")

    def time_pymetis(self):
        metis_kway(self.case[0], 32, seed=0)

    def track_ratio_to_metis(self):
        from lbbench_minex.bench import ratio_to_metis

        return ratio_to_metis(32, k=5, case=self.case)["ratio"]

    track_ratio_to_metis.unit = "x pymetis"


class Table3P2048:
    """The P = 2048 row of minex-table3: C = 1 and 8, no and maximum latency tolerance, all shock levels."""

    timeout = 600
    number = 1
    repeat = 1

    def setup(self):
        load("shock", {}, 0)
        self.out = tempfile.mkdtemp(prefix="asv-minex-")

    def teardown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def time_cell(self):
        from lbbench_minex.reports import table3

        table3(ReportOptions(P=[2048], out=self.out, cache=False, progress=False))
