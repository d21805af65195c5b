"""Speed targets (issue 11), skipped in the default run (addopts has --benchmark-skip). Run with
``pytest plugins/treelb/tests/test_bench_treelb.py --benchmark-only``."""
import numpy as np
import pytest

from harness import Engine, Machine, load_workload, metis_kway
from lbbench_treelb.balancers import run


@pytest.fixture(scope="module")
def truss_level6():
    _, _, levels = load_workload("truss")
    g5, lv6 = levels[4].data, levels[5]
    own = metis_kway(g5, 70)[lv6.parent]  # the carried state: METIS on refinement 4, new nodes inherit
    return lv6.data, own


@pytest.mark.benchmark(group="treelb")
@pytest.mark.parametrize("method", ["mcstlb", "btlb", "cbtlb"])
def test_bench_one_truss_level_p70(benchmark, truss_level6, method):
    """Target: one truss level (57,082 nodes) at P = 70 in under 0.2 s per balancer (measured, not asserted)."""
    g, own = truss_level6

    def once():
        return run(method, g, own, 70, Engine(70, Machine.sp2(70), comm=None))

    new, rec, _ = benchmark(once)
    assert np.abs(np.bincount(new, minlength=70) - g.n / 70).max() <= 1
