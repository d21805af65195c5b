"""A Charm++ centralized strategy on the engine's virtual processors (README.md, "Message pattern").

As in Charm++'s centralized load balancing: every processor sends its
objects' ids and measured loads to the central processor (vproc 0) in one
superstep, the strategy runs there, and the central processor sends each
processor the new processors of its objects in a second superstep (kind
``balance``). The objects themselves move afterwards (the runner's migration).
"""
from __future__ import annotations

import numpy as np

ROOT = 0


def run(eng, strategy, load: np.ndarray, owner: np.ndarray, movable: np.ndarray, slow: np.ndarray,
        **params) -> np.ndarray:
    """The new owner of every object, identical on every rank; ``slow``: the processors' slowdowns."""
    P = eng.P
    order = np.argsort(owner, kind="stable")
    starts = np.searchsorted(owner[order], np.arange(P + 1))
    for p in eng.local:  # statistics to the central processor: ids, loads, migratable flag
        ids = order[starts[p]:starts[p + 1]]
        eng.post(p, ROOT, np.stack([ids.astype(float), load[ids], movable[ids]]), kind="balance")
    inbox = eng.exchange()
    if ROOT in eng.local:
        got = np.concatenate([payload for _, _, payload in inbox[ROOT]], axis=1)
        ids = got[0].astype(np.int64)
        c_load, c_owner, c_movable = (np.empty(owner.size) for _ in range(3))
        c_load[ids], c_owner[ids], c_movable[ids] = got[1], owner[ids], got[2]
        decided = strategy(c_load, c_owner.astype(np.int64), c_movable.astype(bool), P, slow, **params)
        for p in range(P):  # each processor learns where its objects go
            mine = order[starts[p]:starts[p + 1]]
            eng.post(ROOT, p, np.stack([mine, decided[mine]]), kind="balance")
    inbox = eng.exchange()
    local = {p: inbox[p][0][2] if inbox[p] else np.empty((2, 0), np.int64) for p in eng.local}
    new = owner.copy()
    for part in eng.allgather(local):
        new[part[0]] = part[1]
    return new
