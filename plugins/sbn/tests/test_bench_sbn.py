"""Speed targets, skipped in the default run (addopts has --benchmark-skip). Run with
``pytest plugins/sbn/tests/test_bench_sbn.py -o addopts="--import-mode=importlib"``."""
import tempfile

import pytest

from harness.api import compare
from harness.workloads import load


@pytest.mark.benchmark(group="sbn")
def test_bench_sbn_shock_p32(benchmark):
    """Issue 5 target: SBN through all shock levels at P = 32 in under 30 s (measured, not asserted)."""
    load("shock", {}, 0)
    out = tempfile.mkdtemp(prefix="bench-sbn-")
    df = benchmark.pedantic(lambda: compare("sbn", workload="shock", P=32, cache=False, out=out),
                            rounds=1, iterations=1)
    assert (df["status"] == "ok").all() and len(df) == 9
