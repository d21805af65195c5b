"""Repeated timings of a cell, for wall-time claims (``compare(..., repeats=k)``).

A wall time sampled once decides nothing on a shared machine: a cell asked
for with ``repeats`` k > 1 runs its timed part (the level's hooks and data
movement, from the same state and memory; never the metrics) k times in
all. Every timed column (:func:`timed_columns`: ``texec_s``, tree paper
Eq. 6, and each ``time_<phase>_s`` of the hooks, the plugins' own included)
gets ``<column>_median`` and ``<column>_spread`` (max - min), and
``timing_runs`` holds every run's figure of each (a JSON object column ->
list: a row holds scalars only). The cell's state and figures are those of
the run that computed it, as with one run.

The repeat count is not part of a cell's identity (its store key), so a
report (one run) and a wall-time claim (k runs) read the same cell, computed
once. The methods a claim compares are one timed group (harness/run/api.py):
their runs are interleaved (A1 B1 A2 B2 ...) in one session, and a group
not stored whole from one session is retimed whole; :func:`repeat_timing`
turns the runs it is fed into the columns above.
"""
from __future__ import annotations

import copy
import json
from typing import Callable

import numpy as np

# wall times that are not the timed part: the metrics, and the whole cell (which includes them)
UNTIMED = ("time_metrics_s", "time_total_s")


def timed_columns(row) -> list[str]:
    """The columns a repeat measures again: ``texec_s`` and every ``time_<phase>_s`` of the hooks."""
    return ["texec_s"] + sorted(c for c in row if c.startswith("time_") and c.endswith("_s") and c not in UNTIMED)


def repeat_timing(first: dict, rerun: Callable[[], dict], repeats: int) -> dict:
    """The timing columns of a cell run ``repeats`` times in all.

    ``first`` is the cell's row (the first run, or a stored row with fewer
    runs: its runs are kept); ``rerun()`` runs the timed part again and
    returns its row. A rerun that fails makes the timing unusable (no runs:
    a claim on it is ``n/a``), not the cell.
    """
    cols = timed_columns(first)
    have = {c: runs(first, c) or [float(first[c])] for c in cols}
    for _ in range(repeats - len(have["texec_s"])):
        row = rerun()
        if row.get("status") != "ok":
            return {"timing_repeats": repeats, "timing_runs": "{}"}
        for c in cols:
            have[c].append(float(row.get(c, 0.0)))  # a phase the rerun did not enter took no time
    out = {"timing_repeats": len(have["texec_s"]), "timing_runs": json.dumps(have, sort_keys=True)}
    for c, x in have.items():
        a = np.asarray(x, float)
        out.update({f"{c}_median": float(np.median(a)), f"{c}_spread": float(a.max() - a.min())})
    return out


def repeats_of(row) -> int:
    """How often a stored row's timed part ran (1 when it was not repeated)."""
    try:
        return max(int(row.get("timing_repeats")), 1)
    except (TypeError, ValueError):  # absent or NaN
        return 1


def snapshot(memory: dict) -> dict:
    """A copy of a run's memory to start each repeat from the same point."""
    return copy.deepcopy(memory)


def runs(row, column: str = "texec_s") -> list:
    """A row's repeated figures of ``column`` (empty if it was timed once)."""
    text = row.get("timing_runs") if hasattr(row, "get") else None
    if not isinstance(text, str):
        return []
    return [float(x) for x in json.loads(text).get(column, [])]
