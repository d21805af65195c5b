"""Identical results under 1, 2 and 4 MPI ranks (real mpiexec) for a fixed seed."""
from pathlib import Path

import pytest

from harness.testing import mpi_result

SCRIPT = str(Path(__file__).with_name("sbn_mpi_run.py"))


def _result(ranks, *args):
    return mpi_result(ranks, SCRIPT, *args, timeout=300)


@pytest.mark.mpi
@pytest.mark.parametrize("method", ["sbn", "sbn[prepartition=true]"])
def test_harness_figures_identical_under_1_and_2_ranks(tmp_path, method):
    one = _result(1, "compare", method, str(tmp_path / "r1"))
    assert all(r["status"] == "ok" for r in one)
    assert one[0]["sbn_balance_ops"] > 0 and one[0]["migration_bytes"] > 0
    assert _result(2, "compare", method, str(tmp_path / "r2")) == one


@pytest.mark.mpi
def test_level_identical_under_1_2_4_ranks():
    """P = 16: combined balancing operations, forwarded requests and targeted locates across ranks."""
    one = _result(1, "level", "16")
    f = one["figures"]
    assert f["sbn_balance_ops"] > f["sbn_aborted_ops"] > 0  # operations met and were combined
    assert one["totals"]["migration"]["messages"] > 0
    assert one["on"] == one["owner"]
    for ranks in (2, 4):
        assert _result(ranks, "level", "16") == one
