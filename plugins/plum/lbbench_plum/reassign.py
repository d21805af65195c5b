"""Processor reassignment (SBN paper §4.3; Oliker and Biswas, PLUM).

``S[i, j]`` is the similarity matrix: the Remap weight (rwgt) of the vertices
of new partition ``j`` whose data already resides on processor ``i``. With F
partitions per processor, S is P x (F*P) and every processor receives exactly
F partitions. A mapping is returned as ``proc[j]``: the processor partition
``j`` goes to. The similarity a mapping *keeps* is ``sum_j S[proc[j], j]``: that
weight does not move; everything else is redistributed.
"""
from __future__ import annotations

import numpy as np

from harness import lazy_module

optimize = lazy_module("scipy.optimize")  # imported when first called, not when the plugin registers


def _check(S: np.ndarray, F: int) -> tuple[int, int]:
    S = np.asarray(S)
    if S.ndim != 2:
        raise ValueError(f"similarity matrix must be 2-D, got shape {S.shape}")
    if F < 1 or int(F) != F:
        raise ValueError(f"F (partitions per processor) must be a positive integer, got {F}")
    P, n = S.shape
    if n != F * P:
        raise ValueError(f"similarity matrix is {P} x {n}; with F = {F} it must be {P} x {F * P}")
    if S.size and S.min() < 0:
        raise ValueError("similarity matrix has negative entries")
    return P, n


def heuristic(S: np.ndarray, F: int = 1) -> np.ndarray:
    """PLUM's greedy reassignment heuristic (§4.3, Fig. 7).

    The entries of S are visited in decreasing order (ties: lower processor,
    then lower partition first); entry (i, j) assigns partition j to processor
    i when j is still unassigned and i holds fewer than F partitions. Once the
    non-zero entries are used up, the zero entries follow in the same order,
    which gives each processor that still has room the lowest-numbered
    unassigned partitions. Greedy b-matching: the similarity kept is at least
    half the optimum (the paper's "no worse than twice the optimal").
    """
    P, nparts = _check(S, F)
    S = np.asarray(S)
    proc = np.full(nparts, -1, np.int64)
    load = np.zeros(P, np.int64)
    rows, cols = np.nonzero(S)
    order = np.lexsort((cols, rows, -S[rows, cols]))
    left = nparts
    for i, j in zip(rows[order].tolist(), cols[order].tolist()):
        if proc[j] < 0 and load[i] < F:
            proc[j] = i
            load[i] += 1
            left -= 1
            if left == 0:
                break
    if left:
        free = np.flatnonzero(proc < 0)
        slots = np.repeat(np.arange(P), F - load)  # processors with room, lowest first
        proc[free] = slots[:free.size]
    return proc


def optimal(S: np.ndarray, F: int = 1) -> np.ndarray:
    """Maximum-similarity assignment (scipy.optimize.linear_sum_assignment on S with each row repeated F times)."""
    P, nparts = _check(S, F)
    big = np.repeat(np.asarray(S, dtype=float), F, axis=0)  # row r = processor r // F
    rows, cols = optimize.linear_sum_assignment(big, maximize=True)
    proc = np.empty(nparts, np.int64)
    proc[cols] = rows // F
    return proc


REMAPPERS = {"heuristic": heuristic, "optimal": optimal}


def kept(S: np.ndarray, proc: np.ndarray) -> int:
    """Similarity kept in place by a mapping: sum of S[proc[j], j]."""
    S = np.asarray(S)
    return int(S[proc, np.arange(S.shape[1])].sum())


def sent_received(S: np.ndarray, proc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weight each processor sends and receives under a mapping, from S alone (§4.4)."""
    S = np.asarray(S)
    P = S.shape[0]
    stay = np.zeros(P, S.dtype)
    np.add.at(stay, proc, S[proc, np.arange(S.shape[1])])
    sent = S.sum(axis=1) - stay
    incoming = np.bincount(proc, weights=S.sum(axis=0), minlength=P)
    recv = incoming - stay
    return sent, recv


def maxsr_from_similarity(S: np.ndarray, proc: np.ndarray) -> float:
    """MaxSR (SBN §5.2, unit Conn) computed from the similarity matrix: max sent + max received."""
    sent, recv = sent_received(S, proc)
    return float(sent.max() + recv.max()) if sent.size else 0.0
