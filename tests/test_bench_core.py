"""pytest-benchmark suite of the core (skipped by default; run with --benchmark-only)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
from benchmarks.core import CompareCell, Exchange, Metrics  # noqa: E402


def _setup(cls):
    obj = cls()
    obj.setup()
    return obj


def test_bench_core_metrics_50k(benchmark):
    m = _setup(Metrics)
    assert m.g.n > 49_000
    benchmark(m.time_core_metrics)


def test_bench_all_metrics_50k(benchmark):
    benchmark(_setup(Metrics).time_all_metrics)


def test_bench_empty_exchange_32(benchmark):
    benchmark(_setup(Exchange).time_empty_exchange)


def test_bench_ring_exchange_32(benchmark):
    benchmark(_setup(Exchange).time_ring_exchange)


def test_bench_compare_cell(benchmark):
    benchmark.pedantic(_setup(CompareCell).time_metis_cell, rounds=3)
