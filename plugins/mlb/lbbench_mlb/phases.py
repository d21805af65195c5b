"""The four phases of 1-D MLB (paper §3.1-§3.4) as vectorised computations.

The engine execution (``execute.py``) runs them on virtual processors; these
functions hold the arithmetic, so that every rank derives the same numbers.

* Phase 1 (§3.1) :func:`accumulate`: the accumulated loads A of the binary
  tree, level l = 2**l nodes, node k of level l covering the aligned block of
  ranks [k 2**(d-l), (k+1) 2**(d-l)).
* Phase 2 (§3.2) :func:`desired`: D(root) = T, each child half of its parent's
  desired load, the remainder to the child covering the lower ranks (or the
  higher ones, ``remainder="right"``).
* Phase 2 on one processor (§3.2) :func:`bounds`: from the total T alone, the
  desired-load positions of the blocks on the processor's path to the root
  (O(log p) work, no message); :func:`bounds_from` the same from given desired
  loads (the §5 extension).
* :func:`take`: Phase 4's choice of the piece of load function to send, the
  one "as close as possible" to an amount (§3.4).
* :func:`destinations`: the outcome the Phase 4 loan procedure is expected to
  reach (each ideal cut Q_r rounded to the nearest element boundary: element i
  with prefix positions [p_i, p_{i+1}) goes to the rank whose [Q_r, Q_{r+1})
  holds its midpoint, ties to the higher rank; ``rounding="up"``: to the first
  boundary at or after Q_r). The ``partition`` hook predicts with it; the
  engine execution (``execute.py``) computes the real outcome on the vprocs.
"""
from __future__ import annotations

import numpy as np

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


def bounds(T: int, rank: int, d: int, remainder: str = "left"):
    """Phase 2 on processor ``rank`` (§3.2): row k of the (d, 3) result is (lo, m, hi), the desired-load
    positions of the aligned block of 2**(k+1) ranks holding ``rank``, split at m between its halves;
    also D of ``rank``. Halving from the root along the path: O(d), no communication."""
    out = np.zeros((d, 3), np.int64)
    lo, D = 0, int(T)
    for k in range(d - 1, -1, -1):
        left = (D + 1) // 2 if remainder == "left" else D // 2
        out[k] = lo, lo + left, lo + D
        lo, D = (lo + left, D - left) if (rank >> k) & 1 else (lo, left)
    return out, D


def bounds_from(D, rank: int, d: int):
    """:func:`bounds` for given desired loads ``D`` per rank (the §5 extension's strips)."""
    Q = np.concatenate([[0], np.cumsum(np.asarray(D, np.int64))])
    out = np.zeros((d, 3), np.int64)
    for k in range(d):
        start = (rank >> (k + 1)) << (k + 1)
        out[k] = Q[start], Q[start + (1 << k)], Q[start + (2 << k)]
    return out, int(D[rank])


def take(loads, t: int, from_right: bool, rounding: str = "midpoint") -> int:
    """Phase 4 (§3.4): how many elements, from one end of ``loads`` (in line order), make the piece closest
    to amount ``t``. ``midpoint``: an element goes if more than half of it lies within t (exactly half:
    it goes to the higher rank, i.e. when sending right); ``up``: if its first unit lies within t.
    An amount cannot place an element of load 0 that lies exactly at the cut: it stays on this side."""
    a = np.asarray(loads, np.int64)
    if from_right:
        a = a[::-1]
    c = np.cumsum(a) - a                   # load before each element, from that end (non-decreasing)
    key, bound = (2 * c + a, 2 * t) if rounding == "midpoint" else (c + a if from_right else c, t)
    if not from_right:
        return int(np.searchsorted(key, bound, side="left"))
    return int(min(np.searchsorted(key, bound, side="right"), np.searchsorted(c, t, side="left")))
