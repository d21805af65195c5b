"""Shared set-up of MinEX's speed measurements (asv benchmarks/minex.py and tests/test_bench_minex.py)."""
from __future__ import annotations

import time

from harness import Machine, initial_state, load_workload, metis_kway

from .minex import minex


def last_level_case(P: int = 32, workload: str = "shock", params: dict | None = None, throttle: float | None = None):
    """(graph of the last level, owners MinEX would start it from, machine, ThroTtle).

    MinEX runs diffusively through the earlier levels from the harness's initial distribution,
    so the last level starts from a realistic MinEX state (as in a full run).
    """
    levels = load_workload(workload, params or {}, 0)[2]
    m = Machine.uniform(P)
    T = float(2 * P if throttle is None else throttle)
    owner = initial_state(levels[0], P, 0).owner
    for lv in levels[:-1]:
        owner, _ = minex(lv.data, owner, owner, m, seed=lv.index, throttle=T)
    return levels[-1].data, owner, m, T


def best_of(fn, k: int = 5) -> float:
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts)


def ratio_to_metis(P: int = 32, k: int = 5, case=None) -> dict:
    """MinEX's time on the last level against the pymetis call on the same graph (best of k each)."""
    g, owner, m, T = case or last_level_case(P)
    t_minex = best_of(lambda: minex(g, owner, owner, m, seed=9, throttle=T), k)
    t_metis = best_of(lambda: metis_kway(g, P, seed=0), k)
    return {"minex_s": t_minex, "metis_s": t_metis, "ratio": t_minex / t_metis}
