"""pytest-benchmark: one GrapevineLB (DistributedLB) level on 1,024 processors (target: under 5 s; skipped in the normal run).

``pytest plugins/charm/tests/test_bench_grapevine.py --benchmark-only``. The problem is shock-sized
(50,000 objects, loads from a gamma distribution, a hot eighth of the machine holding a quarter of them).
"""
import numpy as np

from harness import Engine
from lbbench_charm import grapevine


def test_bench_grapevine_1024(benchmark):
    P, n = 1024, 50_000
    rng = np.random.default_rng(0)
    load = rng.gamma(2.0, 10.0, n)
    owner = rng.integers(0, P, n)
    owner[: n // 4] = rng.integers(0, P // 8, n // 4)
    movable = np.ones(n, bool)
    rounds = grapevine.default_rounds(P)

    def level():
        return grapevine.balance(Engine(P, comm=None), load, owner, movable, rounds=rounds, fanout=2, iterations=1,
                                 target_ratio=1.05, max_phases=10, rng_of=lambda s: np.random.default_rng([0, *map(ord, s)]))

    out = benchmark.pedantic(level, rounds=3, iterations=1)
    benchmark.extra_info.update(rounds=rounds, gossip_supersteps=out.gossip_supersteps, phases=out.phases,
                                transfers=out.transfers)
    assert out.gossip_max_sends == rounds + 1
