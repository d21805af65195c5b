"""Engine.gather (to the one rank that needs the values) and the counters' merge schedule (issue 52, item 3)."""
import json
from pathlib import Path

import numpy as np
import pytest

from harness import Engine, Machine
from harness.engine import counters
from harness.testing import mpirun

SCRIPT = str(Path(__file__).parent / "scripts" / "gather_check.py")


def test_gather_on_one_process_is_every_value_in_vproc_order():
    eng = Engine(5, comm=None)
    assert eng.gather({v: v * v for v in eng.local}) == [0, 1, 4, 9, 16]


@pytest.mark.mpi
@pytest.mark.parametrize("layout", ["blocks", "interleave"])
def test_gather_reaches_only_the_roots_rank_in_vproc_order(layout):
    P = 5
    res = mpirun(2, SCRIPT, str(P), timeout=120, env={"LBBENCH_LAYOUT": layout})
    assert res.returncode == 0, res.stderr
    for root, seen in json.loads(res.stdout).items():
        values = seen["got"][seen["rank"]]
        assert [v for v, _, _, _ in values] == list(range(P)), root  # every vproc's value, in vproc order
        assert {r for _, r, _, _ in values} == {0, 1}  # sent from both ranks
        assert all(a == [v / 2 for v in range(v)] and b == [[v, v]] * v for v, _, a, b in values)
        assert seen["got"][1 - seen["rank"]] is None  # nothing on the other rank


def _traffic(P: int, steps: int) -> Engine:
    eng = Engine(P, Machine.parse("grid:2:3", P), comm=None)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        n = int(rng.integers(1, 40))
        eng.send("t", np.sort(rng.integers(0, P, n)), rng.integers(0, P, n), nbytes=rng.integers(0, 500, n),
                 kind=rng.integers(0, 3, n))
        eng.exchange()
    return eng


def test_counters_merged_often_or_once_count_the_same(monkeypatch):
    """The log merged into the pairs after every superstep or only when read: the same pairs and totals."""
    once = _traffic(7, 30)
    monkeypatch.setattr(counters, "_COMPACT", 1)
    often = _traffic(7, 30)
    assert len(often._counters._log) < 30 == len(once._counters._log)  # (it did merge as it went)
    assert once.totals() == often.totals()
    for kind in ("balance", "migration", "application"):
        for what in ("bytes", "messages"):
            assert (once.pair_matrix(kind, what) == often.pair_matrix(kind, what)).all()
