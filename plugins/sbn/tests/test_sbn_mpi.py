"""Identical figures under 1, 2 and 4 MPI ranks (real mpiexec) for a fixed seed."""
import json
from pathlib import Path

import pytest

from harness.testing import mpirun

SCRIPT = str(Path(__file__).with_name("sbn_mpi_run.py"))


def _figures(ranks, method, tmp_path):
    res = mpirun(ranks, SCRIPT, method, str(tmp_path / f"r{ranks}"), timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    line = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    assert len(line) == 1, res.stdout[-2000:]
    return json.loads(line[0][len("RESULT "):])


@pytest.mark.mpi
@pytest.mark.parametrize("method", ["sbn", "sbn[prepartition=true]"])
def test_identical_under_1_2_4_ranks(tmp_path, method):
    one = _figures(1, method, tmp_path)
    assert all(r["status"] == "ok" for r in one)
    assert one[0]["sbn_balance_ops"] > 0 and one[0]["migration_bytes"] > 0
    for ranks in (2, 4):
        assert _figures(ranks, method, tmp_path) == one
