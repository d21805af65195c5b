"""Shared set-up for PLUM's benchmarks (plugins/plum/tests/test_bench_plum.py and benchmarks/plum.py).

The measured step is what PLUM does at one adaptation level before data moves:
partition (PMeTiS or DMeTiS), the similarity matrix on the engine, the
reassignment, the cost model's accept decision, and the level's core metrics.
It is compared with the pymetis call alone on the same graph and weights.
"""
from __future__ import annotations

import time

import numpy as np

from harness import (Context, Engine, Machine, State, available_algorithms, available_workloads, carry,
                     core_metrics, graph_of, load_workload, metis_kway)

from . import plugin


def available_workload(preferred: str = "shock") -> str:
    return preferred if preferred in available_workloads() else "mini"


def last_level_context(workload: str = "shock", P: int = 32, algorithm: str = "plum-pmetis", **params) -> Context:
    """A Context for the workload's last level; home = a METIS partition of the level before, carried over."""
    _, _, levels = load_workload(workload, None, 0)
    prev, last = levels[-2], levels[-1]
    state = carry(State.settled(metis_kway(graph_of(prev), P, seed=0), P), last)
    m = Machine.uniform(P)
    alg = available_algorithms()[algorithm]
    return Context(level=last, graph=graph_of(last), state=state, machine=m, engine=Engine(P, m, comm=None),
                   params={**alg.params, **params}, seed=0, algorithm=algorithm, original=last.data,
                   memory=alg.memory())


def plum_step(ctx: Context) -> dict:
    """Partition, similarity matrix + reassignment, accept, core metrics: one PLUM level without the migration."""
    ctx.engine.reset_counters()
    parts = plugin.partition.implementation(ctx)
    proc = plugin.remap.implementation(ctx, parts)
    proposed = State(proc[parts], ctx.state.home, ctx.P)
    after = proposed.migrated() if plugin.accept.implementation(ctx, proposed) else ctx.state
    return core_metrics(ctx.graph, ctx.state, after, ctx.machine)


def pymetis_call(ctx: Context):
    """The pymetis call alone, arrays prepared beforehand (the baseline of the 2x target)."""
    import pymetis

    g = ctx.graph
    adj = pymetis.CSRAdjacency(g.xadj, g.adjncy)
    vw, ew = np.maximum(g.pwgt, 1), np.maximum(g.cwgt, 1)
    opts = pymetis.Options(seed=0, ufactor=30)
    return lambda: pymetis.part_graph(ctx.P, adj, vweights=vw, eweights=ew, options=opts)


def ratio(ctx: Context, repeats: int = 5) -> dict:
    """Best-of-``repeats`` seconds of PLUM's step and of the pymetis call, interleaved, and their ratio."""
    call = pymetis_call(ctx)
    step_s, metis_s = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        plum_step(ctx)
        step_s.append(time.perf_counter() - t)
        t = time.perf_counter()
        call()
        metis_s.append(time.perf_counter() - t)
    return {"step_s": min(step_s), "pymetis_s": min(metis_s), "ratio": min(step_s) / min(metis_s),
            "n": ctx.graph.n}
