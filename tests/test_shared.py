"""Host-shared read-only arrays (harness.engine.shared; issue 52): one copy per host, each host its own."""
import json
import signal
from pathlib import Path

import numpy as np
import pytest

from harness import Engine, HostArrays, State
from harness.engine.shared import _whole
from harness.testing import mpirun

SCRIPT = str(Path(__file__).parent / "scripts" / "shared_check.py")


def test_one_process_gets_the_array_itself():
    eng = Engine(4, comm=None)
    held = HostArrays(eng)
    a = np.arange(6)
    assert held.computed(lambda: a) is a and held.sent(a) is a
    assert held.assembled(5, np.array([1, 3]), np.array([7, 9])).tolist() == [-1, 7, -1, 9, -1]
    with pytest.raises(ValueError, match="signed integers"):
        held.assembled(3, np.array([0]), np.array([1.0]), dtype=float)
    with pytest.raises(ValueError, match="out of range"):
        held.assembled(3, np.array([3]), np.array([1]))
    held.release()
    assert HostArrays.of(eng) is HostArrays.of(eng)


def test_a_deadline_during_the_window_calls_is_raised_after_them():
    class Late(Exception):
        pass

    def expire(signum, frame):
        raise Late()

    old = signal.signal(signal.SIGALRM, expire)
    try:
        done = []
        with pytest.raises(Late):
            with _whole():
                signal.raise_signal(signal.SIGALRM)
                done.append(1)  # the calls go on to their end
        assert done == [1] and signal.getsignal(signal.SIGALRM) is expire
    finally:
        signal.signal(signal.SIGALRM, old)


@pytest.mark.mpi
@pytest.mark.parametrize("R,hosts", [(2, "real"), (4, "real"), (4, "two")])
def test_every_rank_reads_its_hosts_copy(R, hosts):
    res = mpirun(R, SCRIPT, hosts, timeout=120)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert [g["rank"] for g in got] == list(range(R))
    for g in got:
        first = 0 if hosts == "real" else g["rank"] % 2  # the rank that computed its host's copy
        assert g["computed"] == [10 * i + first for i in range(5)] and g["read_only"]
        assert g["sent"] == [[i * (root + 1) for i in range(4)] for root in range(8)]  # from every vproc's rank
        assert g["assembled"] == [v * 100 + v % R for v in range(9)] + [-1]  # every rank's pairs, -1 elsewhere
        assert g["state_shares"]  # a State takes a host-shared array as it is
        assert g["empty"] == [[0], "<i4"]
        assert g["after_sweep"] == 3 and g["after_del"] == 1  # only windows no rank views are freed
        assert g["kept"] == [0, 1, g["assembled"][2:4]]  # released while viewed: kept, still readable
        assert g["raised"] == ("ZeroDivisionError" if g["rank"] == first else "RuntimeError")
        # small arrays: the same values, each rank's own read-only copy, no window
        assert g["small"] == [g["computed"], g["assembled"], [0, 3, 6, 9], 0, False]
