"""Pinned objects (docs/plugins.md, "Pinned objects"): ``Level.pinned[v] = p >= 0`` keeps vertex v on p.

The runner puts pinned vertices on their processor in every start state,
reassigns them after a partitioner (recording how many and their weight:
``pinned_reassigned``, ``pinned_reassigned_pwgt``) and fails a cell whose
final state has a pinned vertex whose owner or home is not its processor.
"""
from __future__ import annotations

import numpy as np

from .model import Level, State


def check_range(level: Level, P: int) -> None:
    """ValueError when a pin names a processor outside [0, P)."""
    if level.pinned is not None and level.pinned.max() >= P:
        v = int(np.argmax(level.pinned >= P))
        raise ValueError(f"level {level.index}: vertex {v} is pinned to processor {int(level.pinned[v])}, "
                         f"but P = {P}")


def place(state: State, level: Level) -> State:
    """``state`` with every pinned vertex owned and homed on its processor (other vertices unchanged)."""
    pv = level.pinned_vertices
    if not pv.size:
        return state
    owner, home = state.owner.copy(), state.home.copy()
    owner[pv] = home[pv] = level.pinned[pv]
    return State(owner, home, state.P, state.pieces)


def reassign(owner: np.ndarray, level: Level, pwgt: np.ndarray) -> tuple[np.ndarray, dict]:
    """A partitioner's owners with the pinned vertices put back on their processor, and the cost as columns."""
    pv = level.pinned_vertices
    if not pv.size:
        return owner, {}
    off = pv[owner[pv] != level.pinned[pv]]
    fixed = owner.copy()
    fixed[off] = level.pinned[off]
    return fixed, {"pinned_reassigned": int(off.size), "pinned_reassigned_pwgt": int(pwgt[off].sum())}


def moved(state: State, level: Level) -> int:
    """How many pinned vertices ``state`` computes or keeps away from their processor."""
    pv = level.pinned_vertices
    if not pv.size:
        return 0
    pin = level.pinned[pv]
    return int(np.count_nonzero((state.owner[pv] != pin) | (state.home[pv] != pin)))
