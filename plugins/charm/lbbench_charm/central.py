"""A Charm++ centralized strategy on the engine's virtual processors (README.md, "Message pattern").

As in Charm++'s centralized load balancing: every processor sends its
objects' ids and measured loads to the central processor (vproc 0) in one
superstep, the strategy runs there, and the central processor sends each
processor the new processors of its objects in a second superstep (kind
``balance``; both as engine batches, one message per processor each way). The objects themselves move afterwards (the runner's migration).
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
    mine = np.arange(eng.local.start, eng.local.stop)
    ids = order[starts[mine[0]]:starts[mine[-1] + 1]]  # statistics to the central processor: ids, loads, migratable
    eng.send("stats", mine, ROOT, np.stack([ids.astype(float), load[ids], movable[ids]], axis=1),
             counts=np.diff(starts[mine[0]:mine[-1] + 2]))
    eng.exchange()
    if ROOT in eng.local:
        got = eng.received("stats").values
        ids = got[:, 0].astype(np.int64)
        c_load, c_owner, c_movable = (np.empty(owner.size) for _ in range(3))
        c_load[ids], c_owner[ids], c_movable[ids] = got[:, 1], owner[ids], got[:, 2]
        decided = strategy(c_load, c_owner.astype(np.int64), c_movable.astype(bool), P, slow, **params)
        # each processor learns where its objects go: rows (object, new processor)
        eng.send("decided", ROOT, np.arange(P), np.stack([order, decided[order]], axis=1).astype(np.int64),
                 counts=np.diff(starts))
    eng.exchange()
    got = eng.received("decided").by_dst()  # one message from the central processor to each processor
    local = {p: got[p][0][1].T for p in eng.local}
    new = owner.copy()
    for part in eng.allgather(local):
        new[part[0]] = part[1]
    return new
