"""asv benchmarks of the vt trace reader (issue 24's target) and of the baselines on a 1M-task trace (issue 52).

Targets: reading a 256-rank LBDatafile trace of 100,000 tasks with 300,000
communications (the project's own generator: one phase, 391 tasks per rank,
each sending to its right neighbour, receiving from the one below and
sending to its rank's objgroup) into levels takes under 10 s and 1 GB; the
application-scale trace, 4,096 ranks of 256 tasks (1,048,576 tasks), at most 60 s
and 4 GB (issue 37).
"""
import shutil
import tempfile

from harness import compare
from workloads import vt
from workloads.vt_synthetic import write_trace

BIG = dict(ranks=256, phases=1, tasks=391, pinned=0.1)
MILLION = dict(ranks=4096, phases=1, tasks=256, pinned=0.1)
MILLION_CACHED = dict(ranks=4096, tasks=256, phases=1)  # the workload's own parameters (its pinned default)


def big_trace(folder, compress: str = "none", size: dict = BIG):
    """Write the 256-rank trace (or ``size``) into ``folder``; returns it."""
    write_trace(folder, compress=compress, **size)
    return folder


class VtRead:
    """Read the 256-rank, 100k-task, 300k-communication trace into levels. Target < 10 s, < 1 GB."""

    timeout = 600
    number = 1
    repeat = 3
    params = ["none", "brotli"]
    param_names = ["compress"]

    def setup(self, compress):
        self.dir = tempfile.mkdtemp(prefix="lbbench-asv-vt-")
        big_trace(self.dir, compress)

    def teardown(self, compress):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_read(self, compress):
        vt.generate(path=self.dir)

    def peakmem_read(self, compress):
        vt.generate(path=self.dir)


class VtReadMillion:
    """Read ``vt-synthetic[ranks=4096,tasks=256,phases=1]`` (1,048,576 tasks) into levels. Target at most
    60 s and 4 GB."""

    timeout = 900
    number = 1
    repeat = 1

    def setup(self):
        self.dir = tempfile.mkdtemp(prefix="lbbench-asv-vt1m-")
        big_trace(self.dir, "none", MILLION)

    def teardown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_read(self):
        vt.generate(path=self.dir)

    def peakmem_read(self):
        vt.generate(path=self.dir)


BASELINES = "greedy,refine,greedy-refine,grapevine,lbaf-iat"


class VtBaselinesMillion:
    """The five built-in baselines on the cached 1,048,576-task trace at P = 4,096 (issue 52: ``lbbench compare
    -w "vt-synthetic[ranks=4096,tasks=256,phases=1]" --plugins greedy,refine,greedy-refine,grapevine,lbaf-iat
    -P 4096``, its workload cached, nothing taken from the result store). Target at most 30 s and 2 GB; each
    cell's ``time_metrics_s`` at most 0.5 s."""

    timeout = 1800
    number = 1
    repeat = 1

    def setup_cache(self):
        compare("none", workload="vt-synthetic", P=4096, workload_params=MILLION_CACHED, cache=False)

    def time_compare(self):
        compare(BASELINES, workload="vt-synthetic", P=4096, workload_params=MILLION_CACHED, cache=False)

    def peakmem_compare(self):
        compare(BASELINES, workload="vt-synthetic", P=4096, workload_params=MILLION_CACHED, cache=False)
