"""Repeated timings of a cell, for wall-time claims (``compare(..., repeats=k)``).

A wall time sampled once decides nothing on a shared machine: a cell run
with ``repeats`` k > 1 runs its timed part (the level's partition, remap and
balance, from the same state and memory) k times and records every
``texec_s`` (tree paper Eq. 6: wall part + modelled traffic), their median
and their spread (max - min); ``texec_s_runs`` is the JSON list of every
run's figure (a row holds scalars only). The first run's state and figures are the
cell's, as with one run; only the timing columns are added.
"""
from __future__ import annotations

import copy
import json
from typing import Callable

import numpy as np


def repeat_timing(first: dict, rerun: Callable[[], dict], repeats: int) -> dict:
    """The timing columns of a cell run ``repeats`` times: ``first`` is the first run's row, ``rerun()``
    runs the timed part again and returns its row."""
    runs = [float(first["texec_s"])]
    for _ in range(repeats - 1):
        row = rerun()
        if row.get("status") != "ok":  # a rerun that fails makes the timing unusable, not the cell
            return {"timing_repeats": repeats, "texec_s_runs": "[]", "texec_s_median": float("nan"),
                    "texec_s_spread": float("nan")}
        runs.append(float(row["texec_s"]))
    x = np.asarray(runs)
    return {"timing_repeats": repeats, "texec_s_runs": json.dumps(runs), "texec_s_median": float(np.median(x)),
            "texec_s_spread": float(x.max() - x.min())}


def snapshot(memory: dict) -> dict:
    """A copy of a run's memory to start each repeat from the same point."""
    return copy.deepcopy(memory)


def runs(row) -> list:
    """A row's repeated ``texec_s`` figures (empty if it was timed once)."""
    text = row.get("texec_s_runs") if hasattr(row, "get") else None
    if not isinstance(text, str):
        return []
    return [float(x) for x in json.loads(text)]
