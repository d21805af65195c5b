"""Geometric partitioning shared by plugins: recursive bisection (coordinate or inertial) and curve cuts.

* :func:`recursive_bisection` splits a set among k parts by a cut
  perpendicular to one direction at the weighted floor(k/2)/k quantile (ties
  by vertex id), the pieces get floor(k/2) and ceil(k/2) parts, the
  lower-numbered ones to the low side. ``direction="coordinate"``: the longer
  extent of the set's bounding box (RCB, Zoltan's ``RCB``, the tree paper's
  AE/ORB); ``"inertial"``: the principal axis of the set's weighted inertia
  (RIB, Zoltan's ``RIB``). ``axes`` (a dict kept between calls) locks the
  coordinate of each cut of the recursion the first time it is chosen
  (Zoltan's ``RCB_LOCK_DIRECTIONS``).
* :func:`curve_parts` cuts an order of the vertices (a Hilbert curve: Zoltan's
  ``HSFC``) into k consecutive pieces of equal weight.
"""
from __future__ import annotations

import numpy as np

from ..contract.model import Graph

DIRECTIONS = ("coordinate", "inertial")


def _keys(xyz: np.ndarray, w: np.ndarray, direction: str) -> np.ndarray:
    """The 1-D coordinate the set is cut along."""
    if direction == "coordinate":
        return xyz[:, int(np.argmax(xyz.max(axis=0) - xyz.min(axis=0)))]
    ww = np.maximum(w, 0.0) + (1.0 if w.sum() <= 0 else 0.0)
    c = xyz - (ww[:, None] * xyz).sum(axis=0) / ww.sum()
    _, vecs = np.linalg.eigh((c * ww[:, None]).T @ c)
    axis = vecs[:, -1]
    axis = axis * (1.0 if axis[np.argmax(np.abs(axis))] > 0 else -1.0)  # sign fixed: identical everywhere
    return c @ axis


def _split(coords, w, ids, k, direction, axis=None):
    """One cut of ``ids`` (k parts): (low ids, high ids, k_low, target weight of the low side); ``axis``: cut
    along this coordinate (a locked direction)."""
    keys = coords[ids, axis] if axis is not None else _keys(coords[ids], w[ids], direction)
    order = ids[np.lexsort((ids, keys))]
    kl = k // 2
    cum = np.cumsum(w[order])
    target = cum[-1] * kl / k
    n_low = int(np.argmin(np.abs(cum - target))) + 1
    return order[:n_low], order[n_low:], kl, float(target)


def recursive_bisection(g: Graph, P: int, refine=None, direction: str = "coordinate",
                        axes: dict | None = None) -> np.ndarray:
    """Recursive bisection over ``g.coords`` weighted by pwgt; ``refine(g, low, high, target_low_weight)``
    may improve each cut (the tree paper's AE/MC); ``axes``: {"first part:parts": coordinate} of the cuts
    made so far, filled on first use and reused after (``direction="coordinate"`` only)."""
    if g.coords is None:
        raise ValueError("geometric partitioning needs vertex coordinates (the workload has none)")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    parts = np.zeros(g.n, np.int64)
    w = g.pwgt.astype(float)
    stack = [(np.arange(g.n, dtype=np.int64), P, 0)]
    while stack:
        ids, k, first = stack.pop()
        if k == 1 or ids.size == 0:
            parts[ids] = first
            continue
        axis = None
        if axes is not None:
            ext = g.coords[ids].max(axis=0) - g.coords[ids].min(axis=0)
            axis = axes.setdefault(f"{first}:{k}", int(np.argmax(ext)))
        low, high, kl, target = _split(g.coords, w, ids, k, direction, axis)
        if refine is not None and low.size and high.size:
            low, high = refine(g, low, high, target)
        stack.append((high, k - kl, first + kl))
        stack.append((low, kl, first))
    return parts


def curve_parts(order: np.ndarray, w: np.ndarray, P: int) -> np.ndarray:
    """Part of every vertex when ``order`` is cut into P consecutive pieces of equal weight
    (a vertex goes to the piece its weight's midpoint falls in)."""
    w = np.asarray(w, float)[order]
    total = w.sum()
    if total <= 0:
        w, total = np.ones_like(w), float(w.size)
    mid = np.cumsum(w) - 0.5 * w
    parts = np.empty(order.size, np.int64)
    parts[order] = np.minimum((mid * P / total).astype(np.int64), P - 1)
    return parts
