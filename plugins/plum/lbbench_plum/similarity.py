"""The similarity matrix S on the engine's virtual processors (SBN paper §4.3).

Every vproc i computes its own row from the vertices whose data resides on it
(``home[v] == i``): ``S[i, j] = sum of rwgt[v]`` over its resident vertices v
that the new partitioning puts in partition j. The rows travel as balance
messages (sparse: the non-zero columns and their weights) to the host vproc
0, which assembles S, runs the reassignment and sends the mapping ``proc[j]``
back to every vproc — PLUM's gather / map / broadcast. Weights are integers,
so S is exact and identical for every number of MPI ranks.
"""
from __future__ import annotations

import numpy as np

HOST = 0


def similarity_matrix(home: np.ndarray, parts: np.ndarray, rwgt: np.ndarray, P: int, nparts: int) -> np.ndarray:
    """The whole S in one process (reference for tests and the sequential path)."""
    key = np.asarray(home, np.int64) * nparts + np.asarray(parts, np.int64)
    return np.bincount(key, weights=rwgt, minlength=P * nparts).astype(np.int64).reshape(P, nparts)


def gather_similarity(engine, home, parts, rwgt, nparts: int) -> np.ndarray | None:
    """Every local vproc sends its sparse row to the host; returns S on the host's rank, None elsewhere.

    The rows of this rank's vprocs come from one count over the vertices resident on them."""
    home = np.asarray(home, np.int64)
    at = engine.local_index[home]
    mine = np.flatnonzero(at >= 0)
    key = at[mine] * nparts + np.asarray(parts, np.int64)[mine]
    rows = np.bincount(key, weights=np.asarray(rwgt)[mine],
                       minlength=len(engine.local) * nparts).astype(np.int64).reshape(-1, nparts)
    for vp in engine.local:
        row = rows[engine.local_index[vp]]
        nz = np.flatnonzero(row)
        engine.post(vp, HOST, np.stack([nz, row[nz]]), kind="balance")
    inbox = engine.exchange()
    if HOST not in engine.local:
        return None
    S = np.zeros((engine.P, nparts), np.int64)
    for src, _kind, payload in inbox[HOST]:
        S[src, payload[0]] = payload[1]
    return S


def scatter_mapping(engine, proc: np.ndarray | None) -> np.ndarray:
    """The host sends ``proc`` to every other vproc; every rank returns the mapping it received."""
    if HOST in engine.local:
        for vp in range(engine.P):
            if vp != HOST:
                engine.post(HOST, vp, proc, kind="balance")
    inbox = engine.exchange()
    if HOST in engine.local:
        return np.asarray(proc, np.int64)
    first = engine.local[0]
    (_src, _kind, payload), = inbox[first]
    return np.asarray(payload, np.int64)
