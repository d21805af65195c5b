"""Plugin author kit 1.1 (issue 23): the faults a third-party author hit, each pinned by a test."""
import subprocess
import sys
from pathlib import Path

import pytest

from harness.testing import mpirun

ROOT = Path(__file__).resolve().parents[1]
DIVERGE = str(ROOT / "tests" / "scripts" / "diverge.py")


# -- fault 1: --mpi must not reuse single-process cells ---------------------------------------------------

@pytest.mark.mpi
def test_mpi_after_a_single_process_run_catches_a_rank_dependent_plugin(tmp_path):
    one = subprocess.run([sys.executable, DIVERGE, str(tmp_path), "cache"], capture_output=True, text=True,
                         timeout=120)
    assert one.returncode == 0, one.stderr
    assert set(one.stdout.split("\n")) - {""} == {"ranks=1 ok"}  # one process: rank 0's owners, valid
    two = mpirun(2, DIVERGE, str(tmp_path), "cache", timeout=120)
    assert two.returncode == 0, two.stderr
    lines = [ln for ln in two.stdout.splitlines() if ln]
    assert lines and all(ln.startswith("ranks=2 failed: ranks computed different owners") for ln in lines), lines
    # and the single-process cells are still there for a single-process run
    again = subprocess.run([sys.executable, DIVERGE, str(tmp_path), "cache"], capture_output=True, text=True,
                           timeout=120)
    assert set(again.stdout.split("\n")) - {""} == {"ranks=1 ok"}
