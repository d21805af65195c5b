"""Helpers for plugin tests: run code under a real ``mpiexec -n R``."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

try:  # the fixture needs pytest; the mpiexec helpers do not
    import pytest
except ImportError:  # pragma: no cover
    pytest = None


def mpiexec() -> str:
    """The mpiexec next to this Python (the mpich wheel's) or on PATH."""
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if not found:
        raise RuntimeError("mpiexec not found: install the mpich wheel (see README)")
    return found


def mpirun(ranks: int, *args: str, timeout: float = 300, env: dict | None = None,
           cores: int | None = None) -> subprocess.CompletedProcess:
    """Run ``python *args`` on ``ranks`` MPI ranks; output captured as text. ``cores``: the ranks share that
    many of this process's cores (a crowded host: more ranks than cores)."""
    cmd = [mpiexec(), "-n", str(ranks), sys.executable, *args]
    mine = None if cores is None else sorted(os.sched_getaffinity(0))[:cores]

    def pin():
        os.sched_setaffinity(0, mine)

    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, preexec_fn=None if mine is None else pin)


def _conformance():
    """``conformance(NAME, **options)``: run ``lbbench test NAME``'s checks; fail the test on any FAIL or SKIP."""

    def run(name: str, workload: str | None = None, P: int = 4, ranks: int = 2, timeout: float | None = 120):
        from .conformance import PASS, check_algorithm

        rows = check_algorithm(name, workload, P, ranks, timeout)
        bad = [f"{check}: {result} {detail}" for check, result, detail in rows if result != PASS]
        assert not bad, "conformance of " + name + ":\n" + "\n".join(bad)
        return rows

    return run


if pytest is not None:
    conformance = pytest.fixture(_conformance, name="conformance")


def mpi_result(ranks: int, script: str, *args: str, timeout: float = 300):
    """Run ``python script *args`` on ``ranks`` MPI ranks and return the JSON object its rank 0 printed after
    ``RESULT `` (the convention of the plugins' MPI identity tests); AssertionError with the output otherwise."""
    import json

    res = mpirun(ranks, script, *args, timeout=timeout)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    assert len(lines) == 1, res.stdout[-2000:] + res.stderr[-2000:]
    return json.loads(lines[0][len("RESULT "):])
