"""Identical figures (rows and the reports' cumulative figures) under mpiexec -n 1 and 2."""
import json
from pathlib import Path

import pytest

from harness.testing import mpirun

SCRIPT = str(Path(__file__).with_name("amr_mpi_run.py"))


def _figures(ranks, tmp_path):
    res = mpirun(ranks, SCRIPT, str(tmp_path / f"r{ranks}"), timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    assert len(line) == 1, res.stdout[-2000:]
    return json.loads(line[0][len("RESULT "):])


@pytest.mark.mpi
def test_identical_under_1_and_2_ranks(tmp_path):
    one = _figures(1, tmp_path)
    assert all(r["status"] == "ok" for r in one["rows"])
    assert all(r["amr_pieces"] > 0 for r in one["rows"])
    assert all(r["migration_bytes"] == r["amr_data_moved_bytes"] for r in one["rows"])
    assert _figures(2, tmp_path) == one
