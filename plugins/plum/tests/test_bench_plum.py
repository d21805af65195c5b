"""pytest-benchmark: PLUM's step at P = 32 on the last shock level vs the pymetis call alone.

Skipped in the default run (--benchmark-skip); run with
``pytest plugins/plum/tests/test_bench_plum.py --benchmark-enable``. The ratio
is measured within one run (interleaved, best of 5) and stored in extra_info.
"""
import pytest

from lbbench_plum.bench import available_workload, last_level_context, plum_step, pymetis_call, ratio


@pytest.fixture(scope="module", params=["plum-pmetis", "plum-dmetis"])
def ctx(request):
    return last_level_context(available_workload("shock"), 32, request.param)


def test_bench_plum_step(benchmark, ctx):
    benchmark.extra_info.update(ratio(ctx, repeats=5))
    benchmark.extra_info["algorithm"] = ctx.algorithm
    figs = benchmark(plum_step, ctx)
    assert figs["loadimb"] >= 1.0


def test_bench_pymetis_alone(benchmark, ctx):
    benchmark(pymetis_call(ctx))
