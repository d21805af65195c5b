import json
from pathlib import Path

import numpy as np
import pytest

from harness import Engine, Machine
from harness.testing import mpirun

SCRIPT = str(Path(__file__).parent / "scripts" / "engine_check.py")


def run(ranks, P):
    res = mpirun(ranks, SCRIPT, str(P), timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_one_process_exchange_and_counters():
    eng = Engine(4, Machine.parse("grid:2:3", 4), comm=None)
    eng.post(0, 3, np.zeros(10, np.int64), kind="migration")
    eng.post(1, 1, b"abc")
    inbox = eng.exchange()
    assert inbox[3][0][0] == 0 and inbox[1] == [(1, "balance", b"abc")]
    t = eng.totals()
    assert t["migration"] == {"messages": 1, "bytes": 80, "modelled_s": pytest.approx((40e-6 + 80 / 36e6) * 3)}
    assert t["balance"]["messages"] == 1 and t["balance"]["modelled_s"] == 0  # to itself: no network time
    assert eng.pair_matrix("migration")[0, 3] == 80
    with pytest.raises(ValueError, match="not local"):
        Engine(4, comm=None).post(7, 0, b"")
    with pytest.raises(ValueError, match="unknown message kind"):
        Engine(4, comm=None).post(0, 0, b"", kind="gossip")


@pytest.mark.mpi
def test_engine_identical_on_1_2_3_4_ranks():
    P = 7
    ref = run(1, P)
    assert ref["sum"] == [21, 7] and ref["max"] == 36 and ref["supersteps"] == 4
    # messages arrive sorted by source, every one exactly once
    assert ref["inbox"]["0"]["1"][0][:2] == [0, "balance"]
    assert ref["totals"]["migration"]["messages"] == P and ref["totals"]["migration"]["bytes"] == 4 * P * 3 * 8
    for ranks in (2, 3, 4):
        assert run(ranks, P) == ref
