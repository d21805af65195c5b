"""cell_metrics (one pass in harness.kernels._metrics) against the numpy functions it replaces in the core
metrics hook: every column, its type and its value bit for bit."""
import numpy as np
import pytest

from harness import (Graph, Machine, State, app_figures, cell_metrics, core_metrics, costs_if_on, maxsr, processor_costs,
                     qwgt, qwgt_maxsr, vertex_costs)
from harness.kernels import _metrics
from harness.measure.latency import numpy_costs, totals_figures


def _graph(rng, n=400, m=1600):
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = u != v
    return Graph.from_edges(n, u[keep], v[keep], rng.integers(1, 9, keep.sum()), pwgt=rng.integers(1, 20, n),
                            rwgt=rng.integers(1, 50, n))


def _reference(g, before, after, m, executed=None):
    return {**core_metrics(g, before, after, m, executed=executed),
            **totals_figures(*numpy_costs(g, m, after.owner, before.home, after.home)), **app_figures(g, after, m)}


def _same(got: dict, want: dict):
    assert list(got) == list(want)
    for k, v in want.items():
        assert type(got[k]) is type(v) and (got[k] == v or (v != v and got[k] != got[k])), (k, got[k], v)


@pytest.mark.parametrize("machine", ["uniform", "sp2", "grid:4:1000"])
def test_cell_metrics_are_the_numpy_functions_bit_for_bit(machine):
    rng = np.random.default_rng(7)
    g, P = _graph(rng), 16
    m = Machine.parse(machine, P)
    for trial in range(4):
        bo, bh = rng.integers(0, P, g.n), rng.integers(0, P, g.n)
        ao = np.where(rng.random(g.n) < 0.3, rng.integers(0, P, g.n), bo)
        ah = ao if trial % 2 else np.where(rng.random(g.n) < 0.5, ao, bh)  # settled, or data left behind
        if trial == 3:
            ao = ah = np.zeros(g.n, np.int64)  # everything on one processor: no cut, empty parts
        before, after = State(bo, bh, P), State(ao, ah, P)
        # processor_costs (MinEX's starting totals, latency_figures): its C pass against its numpy reference
        during = None if trial == 1 else ah  # (settled: the default)
        for got, want in zip(processor_costs(g, m, ao.tolist() if trial == 2 else ao, bh, during),
                             numpy_costs(g, m, ao, bh, during)):
            assert got.dtype == want.dtype == np.float64 and got.shape == (P,) and got.tobytes() == want.tobytes()
        _same(cell_metrics(g, before, after, m), _reference(g, before, after, m))
        for start, end in ((before, after), (before, before)):  # PLUM's accept: the loads before and after a move
            loads, moved = qwgt_maxsr(g, start, end, m)
            assert loads.tobytes() == qwgt(vertex_costs(g, end, m), end.owner, P).tobytes()
            _same(moved, maxsr(g, start, end, m))
        on = rng.integers(0, P, g.n)  # a balancer that processed the work elsewhere (ctx.executed)
        ran = (on, costs_if_on(g, before, m, np.arange(g.n), on))
        _same(cell_metrics(g, before, after, m, executed=ran), _reference(g, before, after, m, executed=ran))


def test_cell_metrics_scan_checks_its_indices():
    rng = np.random.default_rng(1)
    g, P = _graph(rng, 20, 40), 4
    m = Machine.uniform(P)
    ok = np.zeros(g.n, np.int64)
    args = [g.xadj, g.adjncy, g.cwgt, g.pwgt, g.rwgt, m.proc_of, np.asarray(m.cluster, np.int64),
            np.asarray(m.conn, float), ok, ok, ok, ok]
    bad = ok.copy()
    bad[3] = P
    with pytest.raises(ValueError, match="processor out of range"):
        _metrics.scan(*args[:10], bad, ok)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        _metrics.scan(*args[:8], ok[:-1], ok, ok, ok)
    with pytest.raises(TypeError, match="int64"):
        _metrics.scan(*args[:8], ok.astype(np.int32), ok, ok, ok)
    with pytest.raises(ValueError, match="processor out of range"):
        processor_costs(g, m, bad, ok)

