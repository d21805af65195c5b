"""The pytest plugin ``lbbench`` (entry point ``pytest11``): the ``conformance`` fixture, and
:func:`mpi_result` for a plugin's MPI identity tests. Third-party tests import both from ``harness.testing``."""
from __future__ import annotations

import json

import pytest

from ..engine.launch import mpirun
from .conformance import PASS, check_algorithm


@pytest.fixture(name="conformance")
def conformance():
    """``conformance(NAME, **options)``: run ``lbbench test NAME``'s checks; fail the test on any FAIL or SKIP."""

    def run(name: str, workload: str | None = None, P: int | None = None, ranks: int = 2, timeout: float | None = 120):
        rows = check_algorithm(name, workload, P, ranks, timeout)
        bad = [f"{check}: {result} {detail}" for check, result, detail in rows if result != PASS]
        assert not bad, "conformance of " + name + ":\n" + "\n".join(bad)
        return rows

    return run


def mpi_result(ranks: int, script: str, *args: str, timeout: float = 300):
    """Run ``python script *args`` on ``ranks`` MPI ranks and return the JSON object its rank 0 printed after
    ``RESULT `` (the convention of the plugins' MPI identity tests); AssertionError with the output otherwise."""
    res = mpirun(ranks, script, *args, timeout=timeout)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [x for x in res.stdout.splitlines() if x.startswith("RESULT ")]
    assert len(lines) == 1, res.stdout[-2000:] + res.stderr[-2000:]
    return json.loads(lines[0][len("RESULT "):])
