"""Identical figures under mpiexec -n 1, 2 and 4 (real MPI; the schedule's messages cross ranks)."""
from pathlib import Path

import pytest

from harness.testing import mpi_result

SCRIPT = str(Path(__file__).with_name("mlb_mpi_run.py"))


def _figures(ranks, tmp_path):
    return mpi_result(ranks, SCRIPT, str(tmp_path / f"r{ranks}"), timeout=300)


@pytest.mark.mpi
def test_identical_under_1_2_4_ranks(tmp_path):
    one = _figures(1, tmp_path)
    assert all(r["status"] == "ok" for r in one)
    assert sum(r["mlb_sent_weight"] for r in one) > 0 and all(r["mlb_max_msgs_per_vproc_step"] <= 1 for r in one)
    for ranks in (2, 4):
        assert _figures(ranks, tmp_path) == one
