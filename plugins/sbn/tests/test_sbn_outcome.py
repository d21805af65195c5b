"""What a level run hands back (lbbench_sbn.outcome, issue 52): under MPI the run is gone before what ran is
gathered to vproc 0's rank."""
from pathlib import Path

import pytest

from harness.testing import mpi_result

SCRIPT = str(Path(__file__).with_name("sbn_freed_run.py"))


@pytest.mark.mpi
def test_the_level_run_is_freed_before_what_ran_is_gathered(tmp_path):
    got = mpi_result(2, SCRIPT, str(tmp_path), timeout=300)
    assert got == {"status": ["ok", "ok"], "alive": [False, False]}  # (under the runner's paused collector)
