"""Identical PLUM figures under 1, 2 and 4 MPI ranks (real mpiexec)."""
import json
from pathlib import Path

import pytest

from harness.testing import mpirun

SCRIPT = str(Path(__file__).parent / "scripts" / "plum_ranks.py")


def run(ranks, out):
    res = mpirun(ranks, SCRIPT, str(out), timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.mpi
def test_same_metrics_for_1_2_and_4_ranks(tmp_path):
    one = run(1, tmp_path / "r1")
    assert len(one) == 12 and all(r["status"] == "ok" for r in one)
    assert any(r["plum_accepted"] for r in one) and any(r["balance_messages"] > 0 for r in one)
    for ranks in (2, 4):
        assert run(ranks, tmp_path / f"r{ranks}") == one
