"""The 2-D/3-D extension (MLB paper §5) and the shape checks of an MLB distribution.

§5: "applying the one dimensional algorithm to the coordinate axis
successively". The processor mesh is p_0 x p_1 (x p_2), powers of two, ranks
in C order of the mesh coordinates. Axis 0: 1-D MLB (Phases 1-2 and the
Phase 4 rounding) on the column sums among the p_0 strips, so the axis-0 cuts
go all the way through the array. Axis 1: inside each strip, 1-D MLB on the
strip's row sums among its p_1 members (the strip's own total halved); axis 2
likewise inside each pencil. Every rank ends with one axis-aligned box.
"""
from __future__ import annotations

import numpy as np

from .hypercube import log2_exact
from .phases import desired, destinations


def parse_mesh(mesh: str, P: int, ndim: int) -> tuple:
    """``auto`` splits the d bits of P as evenly as possible over the axes (the larger factors first)."""
    d = log2_exact(P)
    if mesh == "auto":
        base, extra = divmod(d, ndim)
        return tuple(1 << (base + (a < extra)) for a in range(ndim))
    try:
        shape = tuple(int(x) for x in str(mesh).lower().split("x"))
    except ValueError:
        raise ValueError(f"mlb: mesh must be 'auto' or like '4x8', got {mesh!r}") from None
    if len(shape) != ndim:
        raise ValueError(f"mlb: mesh {mesh} has {len(shape)} factors but the array has {ndim} dimensions")
    for s in shape:
        log2_exact(s)
    if int(np.prod(shape)) != P:
        raise ValueError(f"mlb: mesh {mesh} has {int(np.prod(shape))} processors, not P = {P}")
    return shape


def nd_destinations(load: np.ndarray, shape: tuple, rounding: str = "midpoint", remainder: str = "left"):
    """Owner of every cell (an array shaped like ``load``), the desired loads D per rank, the largest
    element of the last 1-D pass, and the axis-0 cut indices (length p_0 + 1)."""
    load = np.asarray(load, np.int64)
    boxes = [()]  # per group (a rank prefix in C order): the slices fixed so far
    D = np.array([load.sum()])
    biggest = 0
    cuts0 = None
    for a, p in enumerate(shape):
        lines = np.stack([load[box].sum(axis=tuple(x for x in range(load.ndim) if x != a)) for box in boxes])
        D = desired(lines.sum(axis=1), log2_exact(p), remainder)          # (groups, p)
        dest = destinations(lines, D, rounding)                            # (groups, n_a)
        biggest = int(lines.max()) if lines.size else 0
        j = np.arange(p)
        lo = np.stack([np.searchsorted(row, j, "left") for row in dest])
        hi = np.stack([np.searchsorted(row, j, "right") for row in dest])
        if a == 0:
            cuts0 = np.concatenate([lo[0], [load.shape[0]]])
        boxes = [box + (slice(int(lo[g, i]), int(hi[g, i])),) for g, box in enumerate(boxes) for i in range(p)]
    owner = np.empty(load.shape, np.int64)
    for r, box in enumerate(boxes):
        owner[box] = r
    return owner, D.reshape(-1), biggest, cuts0


def is_contiguous(owner_linear: np.ndarray) -> bool:
    """1-D: every rank's cells form one interval, intervals in rank order."""
    return bool(np.all(np.diff(owner_linear) >= 0))


def one_box_each(owner: np.ndarray, P: int) -> bool:
    """Every rank's cells (``owner`` shaped like the array) form one axis-aligned box (M11)."""
    flat = owner.reshape(-1)
    if owner.ndim <= 1:
        first = np.full(P, flat.size)
        last = np.full(P, -1)
        idx = np.arange(flat.size)
        np.minimum.at(first, flat, idx)
        np.maximum.at(last, flat, idx)
        count = np.bincount(flat, minlength=P)
        return bool(np.all((count == 0) | (last - first + 1 == count)))
    count = np.bincount(flat, minlength=P)
    vol = np.ones(P, np.int64)
    for c in np.unravel_index(np.arange(flat.size), owner.shape):
        lo = np.full(P, np.iinfo(np.int64).max)
        hi = np.full(P, -1)
        np.minimum.at(lo, flat, c)
        np.maximum.at(hi, flat, c)
        vol *= np.where(count > 0, hi - lo + 1, 0)
    return bool(np.array_equal(vol, count))


def through_cuts(owner: np.ndarray, P: int, p0: int) -> bool:
    """The axis-0 strips (ranks r // (P / p_0)) cut straight through the array, in strip order (M12)."""
    strip = owner.reshape(owner.shape[0], -1) // (P // p0)
    return bool(np.all(strip == strip[:, :1]) and np.all(np.diff(strip[:, 0]) >= 0))


def is_boxes(owner: np.ndarray, P: int, p0: int) -> bool:
    """n-D MLB distribution: through-going axis-0 cuts and one box per rank."""
    return through_cuts(owner, P, p0) and one_box_each(owner, P)
