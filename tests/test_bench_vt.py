"""pytest-benchmark of the vt trace reader (skipped by default; run with --benchmark-only).

Target (issue 24): a 256-rank trace of 100,000 tasks with 300,000 communications reads in under 10 s
and 1 GB (the peak is measured by the asv ``peakmem_read`` of benchmarks/vt.py).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from benchmarks.vt import big_trace  # noqa: E402
from workloads import vt  # noqa: E402


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return big_trace(tmp_path_factory.mktemp("vt256"))


def test_bench_vt_read_256_ranks_100k_tasks(benchmark, big):
    levels = benchmark.pedantic(vt.generate, kwargs={"path": str(big)}, rounds=3)
    tr = vt.read_trace(str(big))
    assert tr.ranks == 256 and levels[0].data.n >= 100_000
    assert len(tr.phases[0].comm_from) >= 300_000
