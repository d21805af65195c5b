"""Run the schemes over a trace without the runner: the paper's set-up (§5: a partitioning module, then an
"AMR simulator" evaluating the costs). Used by the tests and benchmarks; rows carry the same columns as the
runner's (``algorithm``, ``P``, ``level``, ``time_partition_s``, ``amr_*`` with ``amr_ops_*``)."""
from __future__ import annotations

import time

from harness import amr_figures, boxes_to_graph, parse_call, resolve_params

from .plugin import SCHEMES, counts, distribute


def split_method(method: str):
    """``amr-ild[ild_split=none]`` -> (``amr-ild``, {"ild_split": "none"}): the given parameters, typed as the
    scheme's defaults (the command line's parser)."""
    call = parse_call(method)
    if call.name not in SCHEMES:
        raise ValueError(f"unknown AMR scheme {call.name!r}")
    typed = resolve_params(call, SCHEMES[call.name][0])
    return call.name, {k: typed[k] for k, _ in call.given}


def run_steps(levels, method: str, P: int, bytes_per_cell: int = 8, ghost: int = 1, check: bool = True):
    """One row per level: the scheme's pieces at every step, checked, and their figures (the previous step's
    pieces are ``before``; the first step has nothing before it)."""
    name, params = split_method(method)
    rows, prev = [], None
    for lv in levels:
        t = time.perf_counter()
        pc = distribute(name, lv.data, P, params, prev)
        dt = time.perf_counter() - t
        if check:
            pc.check(lv.data, P)
        row = {"algorithm": method, "P": P, "level": lv.index, "time_partition_s": dt, "status": "ok"}
        row.update(amr_figures(lv.data, prev, pc, P, lv.meta, bytes_per_cell, ghost))
        row.update(counts(name, lv.data, prev, pc, boxes_to_graph(lv.data), params))
        rows.append(row)
        prev = pc
    return rows

