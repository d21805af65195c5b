"""Speed target, skipped in the default run (addopts has --benchmark-skip). Run with
``python3 -m pytest plugins/mlb/tests/test_bench_mlb.py --benchmark-only``."""
import pytest

from harness import Context, Engine, Machine, State, as_form, block_owner, load_workload

from lbbench_mlb import plugin
from lbbench_mlb.plugin import DEFAULTS

N, P = 1 << 20, 1024


def _context():
    _, _, (level,) = load_workload("arrays", dict(kind="peaks", dims=1, size=N, steps=1), 0)
    graph = as_form(level.data, "graph")
    start = State.settled(block_owner(level, P), P)
    m = Machine.uniform(P)

    def fresh():
        return Context(level=level, graph=graph, state=start, machine=m, engine=Engine(P, m, comm=None),
                       params=dict(DEFAULTS), seed=0, original=level.data, algorithm="mlb")
    return fresh, start


@pytest.mark.benchmark(group="mlb")
def test_bench_mlb_1d_level_1m_cells_p1024(benchmark):
    """Issue 12 target: one 1-D arrays level (peaks), 1,048,576 cells, P = 1024, from the block start:
    partition + balance < 1 s (measured, not asserted)."""
    fresh, start = _context()

    def level():
        ctx = fresh()
        owner = plugin.partition(algorithm="mlb", ctx=ctx)
        ctx.engine.reset_counters()
        after = plugin.balance(algorithm="mlb", ctx=ctx, state=State(owner, start.home, P))
        return ctx, after

    ctx, after = benchmark.pedantic(level, rounds=3, iterations=1)
    assert ctx.record["mlb_phase4_supersteps"] == 10 and ctx.record["mlb_max_msgs_per_vproc_step"] == 1
    assert ctx.record["mlb_contiguous"] and ctx.record["mlb_max_dev"] <= 16
