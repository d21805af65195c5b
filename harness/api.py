"""The Python entry point: ``compare(...) -> DataFrame`` (one row per method and level)."""
from __future__ import annotations

import json
import sys

import pandas as pd

from . import plugins, workloads
from .engine import Engine
from .model import Machine
from .results import Store, git_commit, versions
from .runner import carry, graph_of, initial_state, params_json, plan, run_cell
from .spec import Method, parse_methods


def _methods(methods) -> list[Method]:
    if isinstance(methods, str):
        return parse_methods(methods)
    return [m if isinstance(m, Method) else parse_methods(m)[0] for m in methods]


def load_levels(engine: Engine, name: str, params: dict | None, seed: int):
    """The workload's levels; rank 0 generates (and caches) them first, the other ranks then load."""
    if engine.is_root:
        out = workloads.load(name, params, seed)
    engine.barrier()
    if not engine.is_root:
        out = workloads.load(name, params, seed)
    return out


def select(levels: list, wanted: list | None) -> list:
    if not wanted:
        return levels
    have = {lv.index: lv for lv in levels}
    missing = [i for i in wanted if i not in have]
    if missing:
        raise ValueError(f"level {missing[0]} does not exist (levels {min(have)}-{max(have)})")
    first = min(wanted)
    return [lv for lv in levels if first <= lv.index <= max(wanted)]


def compare(methods, workload: str = "shock", P: int = 32, levels: list | None = None,
            machine: str = "uniform", seed: int = 0, out: str | None = None, timeout: float | None = None,
            cache: bool = True, progress: bool = False, workload_params: dict | None = None,
            engine: Engine | None = None) -> pd.DataFrame:
    """Run every method through the workload's levels at P processors; resume from ``out`` when possible.

    Returns one row per (method, level) on every rank. Bad input raises
    ValueError, LookupError or OSError with a one-line message.
    """
    methods = _methods(methods)
    if int(P) != P or P < 1:
        raise ValueError(f"P must be a positive integer, got {P}")
    P = int(P)
    mach = Machine.parse(machine, P)
    known = plugins.algorithms()
    plans = [(m, plan(m, known)) for m in methods]
    eng = engine or Engine(P, mach)
    store = Store(out, writer=eng.is_root)
    wl, wparams, all_levels = load_levels(eng, workload, workload_params, seed)
    run_levels = select(all_levels, levels)
    shown = {lv.index for lv in run_levels} if not levels else set(levels)
    graphs = [graph_of(lv) for lv in run_levels]
    if P > graphs[0].n:
        raise ValueError(f"P = {P} is larger than the graph ({graphs[0].n} vertices)")
    start = initial_state(graphs[0], P, seed)

    bar = None
    if progress and eng.is_root:
        from tqdm import tqdm

        bar = tqdm(total=len(plans) * len(run_levels), file=sys.stderr, unit="cell", leave=False)
    rows = []
    for method, roles in plans:
        state, memory = start, {}
        pversions = {s.algorithm.plugin: s.algorithm.version for s in roles.values()}
        base = dict(workload=wl.name, workload_version=wl.version, workload_params=json.dumps(wparams, sort_keys=True),
                    algorithm=str(method), params=params_json(roles), P=P, machine=mach.name, seed=seed)
        for lv, g in zip(run_levels, graphs):
            before = carry(state, lv)
            key = Store.key({**base, "first_level": run_levels[0].index, "level": lv.index,
                             "plugins": pversions, "timeout": timeout})
            found = store.get(key) if cache and eng.is_root else None
            found = eng.bcast(found) if eng.R > 1 else found
            if bar:
                bar.set_description(f"{method} level {lv.index}")
            if found:
                row, state, memory = found
            else:
                figs, state = run_cell(roles, lv, g, before, mach, eng, seed, memory, timeout)
                row = {**base, "level": lv.index, "ranks": eng.R, **figs, "git_commit": git_commit(),
                       "versions": versions()}
                store.put(key, row, state, memory)
            if lv.index in shown:
                rows.append(row)
            if bar:
                bar.update()
    if bar:
        bar.close()
    return pd.DataFrame(rows)
