"""Cell outcomes are collective under MPI: a failure or a timeout on one rank fails the cell on every rank,
and the comparison goes on (a hang would be a failing test: the run is bounded)."""
from pathlib import Path

import pytest

from harness.testing import mpirun

SCRIPT = str(Path(__file__).parent / "scripts" / "faults.py")


@pytest.mark.mpi
@pytest.mark.parametrize("cores", [None, 1])  # cores=1: a crowded host, where a timed cell keeps MPI's own wait
def test_one_rank_failing_or_timing_out_fails_the_cell_everywhere(tmp_path, cores):
    res = mpirun(2, SCRIPT, str(tmp_path), "1.0", timeout=120, cores=cores)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.strip().splitlines()
    got = {tuple(line.split(" ", 2)[:2]): line.split(" ", 2)[2] for line in lines}
    assert got["raise-on-1", "2"].startswith("failed: raise-on-1: RuntimeError: only rank 1 fails")
    assert got["raise-on-1", "2"].endswith("(on another rank)")
    assert got["slow-on-1", "2"] == "failed: timed out after 1 s"
    assert got["swallow", "2"].startswith("failed: swallow: ValueError")
    # issue 50: 2^61 declared bytes and a message never exchanged fail the cell with one line, on every rank
    assert got["huge", "2"].startswith("failed: huge: ValueError: tag 'h': a message declares 2.306e+18 bytes")
    assert got["unexchanged-on-1", "2"].startswith("failed: unexchanged-on-1: ValueError: 2 messages sent and never")
    assert got["unexchanged-on-1", "2"].endswith("(on another rank)")
    # the other levels and the other method are unaffected
    assert all(got[alg, lv] == "ok" for alg in ("raise-on-1", "slow-on-1", "swallow", "huge", "unexchanged-on-1")
               for lv in ("1", "3"))
    assert all(got["none", lv] == "ok" for lv in ("1", "2", "3"))


COLLECTIVES = str(Path(__file__).parent / "scripts" / "collectives.py")


@pytest.mark.mpi
@pytest.mark.parametrize("P, cores", [(4, None), (8, None), (4, 1)])  # cores=1: the ranks yield while they wait
def test_a_fault_before_any_collective_on_one_rank_fails_the_cell_on_every_rank(tmp_path, P, cores):
    res = mpirun(2, COLLECTIVES, str(tmp_path), str(P), timeout=240, cores=cores)
    assert res.returncode == 0, res.stderr[-2000:]
    got = {tuple(line.split(" ", 2)[:2]): line.split(" ", 2)[2] for line in res.stdout.strip().splitlines()}
    assert len([m for m, _ in got if m.startswith("fault[")]) == 3 * 24
    for (method, level), status in got.items():
        if method == "skew":  # owners differ between ranks: every level fails, on every rank's vote
            assert status.startswith("failed: ranks computed different owners"), (method, level, status)
        elif method.startswith("fault[") and level == "2":
            if "mode=raise" in method:
                assert status.startswith("failed: fault: RuntimeError: rank 1 fails before"), (method, status)
            else:  # rank 1 skipped the collective: the ranks meet in different collectives
                assert status.startswith("failed: ranks took different paths"), (method, status)
        else:
            assert status == "ok", (method, level, status)


METRICS = str(Path(__file__).parent / "scripts" / "metrics_fault.py")


def _metrics_statuses(res):
    assert res.returncode == 0, res.stderr[-2000:]
    *lines, agree = res.stdout.strip().splitlines()
    assert agree == "agree True"  # every rank's rows are rank 0's
    return {tuple(line.split(" ")[:2]): line.split(" ", 2)[2] for line in lines}


@pytest.mark.parametrize("ranks", [1, pytest.param(2, marks=pytest.mark.mpi)])
def test_a_metrics_plugin_that_raises_fails_its_cell_and_the_comparison_goes_on(tmp_path, ranks):
    if ranks == 1:
        import subprocess
        import sys

        res = subprocess.run([sys.executable, METRICS, str(tmp_path)], capture_output=True, text=True, timeout=120)
    else:
        res = mpirun(2, METRICS, str(tmp_path), timeout=120)
    got = _metrics_statuses(res)
    assert got["none", "3"].startswith("failed: metrics of probe: ValueError: metrics fail everywhere")
    # issue 52: the metrics run on one rank, vproc 0's, and are sent to the others (its fault is every rank's)
    assert got["metis", "2"].startswith("failed: metrics of probe: RuntimeError: metrics fail on rank 0")
    assert "(on another rank)" not in got["metis", "2"]
    if ranks == 2:  # a collective in a metrics hook: the other ranks wait for the row, not in it
        assert got.pop(("none", "2")).startswith("failed: metrics of probe: Diverged: failed: ranks took different")
    # the core metrics of a failed cell are still there; every other cell is ok, its metrics from rank 0
    assert got["metis", "2"].split()[-2] != "nan"
    ok = [got[m, lv] for m, lv in got if (m, lv) not in {("none", "3"), ("metis", "2")}]
    assert all(s.startswith("ok") and float(s.split()[-1]) == 0 for s in ok)
