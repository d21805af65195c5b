"""The four phases of 1-D MLB (paper §3.1-§3.4) as vectorised computations.

The engine execution (``execute.py``) runs them on virtual processors; these
functions hold the arithmetic, so that every rank derives the same numbers.

* Phase 1 (§3.1) :func:`accumulate`: the accumulated loads A of the binary
  tree, level l = 2**l nodes, node k of level l covering the aligned block of
  ranks [k 2**(d-l), (k+1) 2**(d-l)).
* Phase 2 (§3.2) :func:`desired`: D(root) = T, each child half of its parent's
  desired load, the remainder to the child covering the lower ranks (or the
  higher ones, ``remainder="right"``).
* Phase 3 (§3.3) :func:`constant_flows` + :func:`route`: the schedule for a
  constant load function. Rank r's load units occupy prefix positions
  [P_r, P_{r+1}), unit x belongs to the rank r with x in [Q_r, Q_{r+1})
  (Q: prefix sums of D); using every edge once, coarsest first, forces
  dimension-ordered (e-cube) routing of every unit.
* Phase 4 (§3.4) :func:`destinations`: indivisible elements. The loan
  mechanism's outcome is pinned as: each ideal cut Q_r is rounded to the
  nearest element boundary (element i with prefix positions [p_i, p_{i+1}) goes
  to the rank whose [Q_r, Q_{r+1}) holds its midpoint, ties to the higher
  rank), or, ``rounding="up"``, to the first boundary at or after Q_r (the
  element goes where its first unit goes). The schedule is the e-cube routing
  of these destinations; the loans (held - scheduled) are derived from it.
"""
from __future__ import annotations

import numpy as np

from .hypercube import Cube

ROUNDINGS = ("midpoint", "up")
REMAINDERS = ("left", "right")


def accumulate(a, d: int) -> list[np.ndarray]:
    """Phase 1: ``A[l]`` = accumulated loads of the 2**l level-l nodes (A[d] = a, A[0] = [T])."""
    a = np.asarray(a, np.int64)
    A = [a]
    for _ in range(d):
        A.append(A[-1].reshape(-1, 2).sum(axis=1))
    return A[::-1]


def desired(T, d: int, remainder: str = "left") -> np.ndarray:
    """Phase 2: desired loads of the finest level. ``T`` may be an array (one tree per entry, stacked rows)."""
    D = np.asarray(T, np.int64).reshape(-1, 1)
    for _ in range(d):
        big, small = (D + 1) // 2, D // 2
        pair = (big, small) if remainder == "left" else (small, big)
        D = np.stack(pair, axis=-1).reshape(D.shape[0], -1)
    return D if np.ndim(T) else D[0]


def destinations(load, D, rounding: str = "midpoint") -> np.ndarray:
    """Phase 4's rounding: the rank (0 .. p-1) of every element of each row of ``load`` for desired loads ``D``.

    ``load`` is (m,) or (groups, m) and ``D`` (p,) or (groups, p): each row is
    one independent 1-D problem (the strips of the n-D extension). Destinations
    are non-decreasing along each row: every rank gets one interval, in rank order.
    """
    load = np.asarray(load, np.int64)
    D = np.asarray(D, np.int64)
    one = load.ndim == 1
    load, D = np.atleast_2d(load), np.atleast_2d(D)
    g, m = load.shape
    p = D.shape[1]
    # one line for all rows: row j is shifted by the totals of the rows before it
    offset = np.zeros(g, np.int64)
    np.cumsum(load.sum(axis=1)[:-1], out=offset[1:])
    pre = np.cumsum(load, axis=1) - load + offset[:, None]
    Q = np.zeros((g, p), np.int64)  # Q_r, r = 0 .. p-1 (left ends of the ideal intervals)
    np.cumsum(D[:, :-1], axis=1, out=Q[:, 1:])
    Q += offset[:, None]
    if rounding == "midpoint":
        pos, edges = 2 * pre + load, 2 * Q        # twice the midpoints, twice the cuts: integers
    elif rounding == "up":
        pos, edges = pre, Q
    else:
        raise ValueError(f"mlb: rounding must be one of {', '.join(ROUNDINGS)}, got {rounding!r}")
    # a rank with D = 0 has an empty interval; the last rank of a row takes what lies beyond its Q
    dest = np.searchsorted(edges.ravel(), pos.ravel(), side="right") - 1
    dest = dest.reshape(g, m) - np.arange(g, dtype=np.int64)[:, None] * p
    np.clip(dest, 0, p - 1, out=dest)
    return dest[0] if one else dest


def constant_flows(a, D):
    """Phase 3's pieces: (source rank, destination rank, amount) of the constant-load schedule."""
    a, D = np.asarray(a, np.int64), np.asarray(D, np.int64)
    Pp = np.concatenate([[0], np.cumsum(a)])
    Qp = np.concatenate([[0], np.cumsum(D)])
    b = np.unique(np.concatenate([Pp, Qp]))
    start, w = b[:-1], np.diff(b)
    src = np.searchsorted(Pp, start, side="right") - 1
    dst = np.minimum(np.searchsorted(Qp, start, side="right") - 1, D.size - 1)
    return src, dst, w


def route(cube: Cube, src, dst, w):
    """E-cube routing of amounts ``w`` from ``src`` to ``dst`` (coarsest edge first).

    Returns ``sent`` (d, P): what each processor sends in step s, across its
    (d-1-s)-edge, and ``held`` (d+1, P): what it holds before step 0 and after each step.
    """
    src, dst, w = (np.asarray(x, np.int64) for x in (src, dst, w))
    d, P = cube.d, cube.P
    sent = np.zeros((d, P), np.int64)
    held = np.zeros((d + 1, P), np.int64)
    held[0] = np.bincount(src, w, P)
    for s in range(d):
        k = d - 1 - s
        loc = cube.route_location(src, dst, s)
        mv = ((cube.addr[loc] ^ cube.addr[dst]) >> k) & 1 == 1
        sent[s] = np.bincount(loc[mv], w[mv], P)
        held[s + 1] = held[s] - sent[s] + sent[s][cube.partner(np.arange(P), k)]
    return sent, held
