"""pytest-benchmark speed measurements of MinEX (skipped by default; run with --benchmark-only).

Targets (issue 6): within 3x of pymetis on the last shock level at P = 32; the P = 2048 cell of
minex-table3 in under 60 s. Figures are recorded in extra_info, not asserted (no timed assertions).
"""
import time

import pytest

from harness.run.partitioners import metis_kway
from harness.claims.reports import ReportOptions


@pytest.fixture(scope="module")
def case():
    from lbbench_minex.bench import last_level_case

    return last_level_case(32)


def test_bench_minex_last_shock_level_p32(benchmark, case):
    from lbbench_minex.bench import ratio_to_metis
    from lbbench_minex.minex import minex

    g, owner, m, T = case
    benchmark(lambda: minex(g, owner, owner, m, seed=9, throttle=T))
    r = ratio_to_metis(32, k=5, case=case)
    benchmark.extra_info.update(r)
    print(f"\nMinEX {r['minex_s']:.4f} s, pymetis {r['metis_s']:.4f} s, ratio {r['ratio']:.2f} (target < 3)")


def test_bench_pymetis_last_shock_level_p32(benchmark, case):
    benchmark(lambda: metis_kway(case[0], 32, seed=0))


def test_bench_table3_p2048_cell(benchmark, tmp_path):
    from lbbench_minex.reports import table3

    t0 = time.perf_counter()
    benchmark.pedantic(lambda: table3(ReportOptions(P=[2048], out=str(tmp_path), cache=False, progress=False)),
                       rounds=1, iterations=1)
    benchmark.extra_info["seconds"] = time.perf_counter() - t0
    print(f"\nminex-table3 P = 2048 cell: {benchmark.extra_info['seconds']:.1f} s (target < 60 s)")
