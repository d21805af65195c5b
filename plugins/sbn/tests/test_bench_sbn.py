"""Speed targets, skipped in the default run (addopts has --benchmark-skip). Run with
``pytest plugins/sbn/tests/test_bench_sbn.py -o addopts="--import-mode=importlib"``."""
import tempfile

import numpy as np
import pytest

from harness import Engine, Machine, graph_of, initial_state, load_workload
from harness.run.api import compare


@pytest.mark.benchmark(group="sbn")
def test_bench_sbn_shock_p32(benchmark):
    """Issue 5 target: SBN through all shock levels at P = 32 in under 30 s (measured, not asserted)."""
    load_workload("shock", {}, 0)
    out = tempfile.mkdtemp(prefix="bench-sbn-")
    df = benchmark.pedantic(lambda: compare("sbn", workload="shock", P=32, cache=False, out=out),
                            rounds=1, iterations=1)
    assert (df["status"] == "ok").all() and len(df) == 9


@pytest.mark.benchmark(group="sbn")
@pytest.mark.parametrize("P", [256, 2048])
def test_bench_sbn_one_level(benchmark, P):
    """Issue 15 target: one shock level at P = 2048 in under 90 s and 1 GB (measured, not asserted)."""
    from lbbench_sbn.balancer import LevelRun, Params
    from lbbench_sbn.topology import Trees

    levels = load_workload("shock", {}, 0)[2]
    g, state, m = graph_of(levels[0]), initial_state(levels[0], P, 0), Machine.uniform(P)

    def level():
        eng = Engine(P, m, comm=None)
        LevelRun(g, m, eng, state, Params(), lambda p: np.random.default_rng(p), trees=Trees(P)).run()
        return eng.totals()

    tot = benchmark.pedantic(level, rounds=1, iterations=1)
    benchmark.extra_info["balance_messages"] = tot["balance"]["messages"]
    benchmark.extra_info["migration_messages"] = tot["migration"]["messages"]
    assert tot["balance"]["messages"] > 0
