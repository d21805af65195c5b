"""Identical figures (rows and the reports' cumulative figures) under mpiexec -n 1 and 2."""
from pathlib import Path

import pytest

from harness.testing import mpi_result

SCRIPT = str(Path(__file__).with_name("amr_mpi_run.py"))


def _figures(ranks, tmp_path):
    return mpi_result(ranks, SCRIPT, str(tmp_path / f"r{ranks}"), timeout=300)


@pytest.mark.mpi
def test_identical_under_1_and_2_ranks(tmp_path):
    one = _figures(1, tmp_path)
    assert all(r["status"] == "ok" for r in one["rows"])
    assert all(r["amr_pieces"] > 0 for r in one["rows"])
    assert all(r["migration_bytes"] == r["amr_data_moved_bytes"] for r in one["rows"])
    assert _figures(2, tmp_path) == one
