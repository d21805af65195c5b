"""Identical figures and owners under 1, 2 and 4 MPI ranks (real mpiexec)."""
from pathlib import Path

import pytest

from harness.testing import mpi_result

SCRIPT = str(Path(__file__).with_name("treelb_mpi_run.py"))


def _figures(ranks, P, tmp_path):
    return mpi_result(ranks, SCRIPT, str(P), str(tmp_path / f"r{ranks}"), timeout=300)


@pytest.mark.mpi
def test_identical_under_1_2_4_ranks(tmp_path):
    one = _figures(1, 8, tmp_path)
    for m in ("mcstlb", "btlb", "cbtlb"):
        assert one[m]["tree_transfers"] > 0 and one[m]["migration_messages"] == one[m]["tree_transfers"]
        assert one[m]["balance_supersteps"] == one[m]["tree_twa_supersteps"]
    assert len(one["runner"]) == 9 and all(r["status"] == "ok" for r in one["runner"])
    assert sum(r["tree_schedule_steps"] > 0 for r in one["runner"] if r["level"] > 1) >= 3
    for ranks in (2, 4):
        assert _figures(ranks, 8, tmp_path) == one
