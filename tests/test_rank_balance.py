"""Ranks share the work: busy time per rank, vprocs laid over ranks by measured work, figures unchanged."""
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.engine.vprocs import Engine
from harness.testing import mpi_result

SCRIPT = str(Path(__file__).parent / "scripts" / "skewed_layout.py")
METHODS = "sbn,plum,minex,metis"


class FakeComm:
    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size


def layout(P, R, work):
    eng = Engine(P, comm=FakeComm(0, R))
    eng.balance_ranks(work)
    return list(eng.starts)


def test_blocks_follow_the_work():
    assert layout(8, 2, None) == [0, 4, 8]
    assert layout(8, 2, np.ones(8)) == [0, 4, 8]
    assert layout(8, 2, [8, 1, 1, 1, 1, 1, 1, 0]) == [0, 1, 8]         # one heavy vproc alone
    assert layout(8, 4, [0, 0, 0, 0, 0, 0, 0, 10]) == [0, 5, 6, 7, 8]  # every rank keeps a vproc
    w = np.arange(1, 257, dtype=float)
    starts = layout(256, 4, w)
    shares = [w[a:b].sum() for a, b in zip(starts, starts[1:])]
    assert min(shares) / max(shares) > 0.98


def test_one_process_has_busy_time_and_balance_one(tmp_path):
    from harness.run.api import compare

    df = compare("sbn,metis", workload="mini", P=4, out=str(tmp_path), cache=False)
    assert (df["rank_balance"] == 1.0).all() and (df["rank_step_balance"] == 1.0).all()
    assert (df["rank_busy_s_max"] == df["rank_busy_s_mean"]).all() and (df["rank_busy_s_max"] > 0).all()
    assert (df["rank_critical_s"] == df["rank_busy_s_max"]).all()  # one rank: every superstep is its own


@pytest.mark.mpi
@pytest.mark.parametrize("ranks", [2, 4])
def test_figures_identical_to_one_rank_whatever_the_layout(tmp_path, ranks):
    one = mpi_result(1, SCRIPT, str(tmp_path / "r1"), METHODS, "8")
    many = mpi_result(ranks, SCRIPT, str(tmp_path / f"r{ranks}"), METHODS, "8")
    assert len({tuple(s) for s in many["layouts"]}) >= 2, many["layouts"]  # the blocks did move
    assert many["rows"] == one["rows"]
    assert all(0 < b <= 1 for b in many["balance"])
    # superstep by superstep: the busiest rank of each summed is at least the busiest rank's total and at most
    # every rank's together; so each superstep's balance is at most the cell's
    eps = 1e-9
    for r in many["busy"]:
        assert r["ranks"] == ranks
        assert r["rank_busy_s_max"] - eps <= r["rank_critical_s"] <= ranks * r["rank_busy_s_mean"] + eps
        assert 0 < r["rank_step_balance"] <= r["rank_busy_s_mean"] / r["rank_busy_s_max"] + eps


@pytest.mark.mpi
def test_figures_identical_under_every_layout(tmp_path):
    """A layout only moves vprocs between ranks (docs/architecture.md, "Engine"): blocks, interleave, round
    robin and profile (laid out from level 2 on by level 1's profile) give the same rows at R = 2."""
    got = mpi_result(2, str(Path(__file__).parent / "scripts" / "layouts.py"), str(tmp_path),
                     "plum,minex,metis,mcstlb,sbn", "8")
    assert all(s == "ok" for r in got.values() for s in r["status"])
    assert all(r["rows"] == got["blocks"]["rows"] for r in got.values())
    assert all(sum(r["local"]) == 8 and min(r["local"]) >= 1 for r in got.values())
