"""Speed targets of issue 3 as pytest-benchmark tests (skipped by default: --benchmark-skip).

Run with: pytest tests/workloads/test_bench_workloads.py --benchmark-enable -p no:cacheprovider
"""
import pytest

from harness.run import workloads
from workloads import shock


def test_bench_shock_cold(benchmark):
    """Target: the nine shock levels generate cold in under 30 s."""
    levels = benchmark.pedantic(shock.generate, kwargs={"seed": 0}, rounds=1, iterations=1)
    assert len(levels) == 9


def test_bench_shock_warm(benchmark, tmp_path, monkeypatch):
    """Target: the nine shock levels load from the cache in under 1 s."""
    monkeypatch.setenv("LBBENCH_CACHE", str(tmp_path))
    workloads.load("shock", {}, 0)
    wl, params, levels = benchmark.pedantic(workloads.load, args=("shock", {}, 0), rounds=3, iterations=1)
    assert len(levels) == 9


@pytest.mark.parametrize("scale", [20.0])
def test_bench_shock_million_elements(benchmark, scale):
    """1,000,000 elements must generate (scale = 20)."""
    levels = benchmark.pedantic(shock.generate, kwargs={"seed": 0, "scale": scale}, rounds=1, iterations=1)
    assert abs(levels[0].data.n / 1_000_000 - 1) < 0.02
