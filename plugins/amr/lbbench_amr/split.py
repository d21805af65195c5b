"""Box splitting and the linear partition with targets shared by the schemes (AMR paper §4).

The paper's schemes cut grids among processors (Figs. 3-6) but never say how;
the choices (plugin README, "Ambiguities"):

- a box cut at a cell offset t (cells in its lexicographic order, longest axis
  slowest) is cut perpendicular to its longest axis at the cell plane nearest t;
  when its longest side is shorter than the number of parts needed, the cut
  continues on the next axis (rows), then cells (:func:`cut_box`);
- a linear list of boxes is cut into P chunks of equal work at the targets
  k W / P; a box that may not be split goes whole to the chunk holding its
  midpoint (:func:`linear_pieces`);
- IGD's k-way split is recursive bisection along the longest axis with
  proportional part counts (:func:`bisect_pieces`).
"""
from __future__ import annotations

import numpy as np

from harness import row_prod

from . import _place

I64 = np.int64


def axis_order(ext: np.ndarray) -> np.ndarray:
    """Axes of each box from longest to shortest (ties: lower axis first)."""
    return np.argsort(-np.asarray(ext), axis=-1, kind="stable")


def _lex_range(s: int, e: int, sizes: tuple) -> list:
    """Boxes (lo, hi) in the permuted coordinates covering cells [s, e) of the mixed-radix order ``sizes``
    (first axis slowest): at most 2 d - 1 boxes."""
    if e <= s:
        return []
    if len(sizes) == 1:
        return [((s,), (e - 1,))]
    inner = int(np.prod(sizes[1:]))
    full = tuple(n - 1 for n in sizes[1:])
    s0, r0 = divmod(s, inner)
    e0, r1 = divmod(e, inner)
    if s0 == e0:
        return [((s0,) + lo, (s0,) + hi) for lo, hi in _lex_range(r0, r1, sizes[1:])]
    out = []
    if r0:
        out += [((s0,) + lo, (s0,) + hi) for lo, hi in _lex_range(r0, inner, sizes[1:])]
        s0 += 1
    if s0 < e0:
        out.append(((s0,) + (0,) * len(full), (e0 - 1,) + full))
    if r1:
        out += [((e0,) + lo, (e0,) + hi) for lo, hi in _lex_range(0, r1, sizes[1:])]
    return out


def cut_box(lo, hi, offsets) -> list:
    """Cut one box into consecutive parts at the cell offsets ``offsets`` (sorted, in its lexicographic order
    with the longest axis slowest): returns [(part, lo, hi)], part k between offsets k-1 and k (empty parts
    omitted). Cuts are rounded to the nearest cell plane of the longest axis, or, when that side has fewer
    planes than parts, to the nearest row (then cell)."""
    lo, hi = np.asarray(lo, I64), np.asarray(hi, I64)
    ext = hi - lo + 1
    ax = axis_order(ext)
    sizes = tuple(int(x) for x in ext[ax])
    cells = int(np.prod(sizes))
    m = len(offsets)
    unit = cells
    for k in range(len(sizes)):  # granularity: planes, rows, cells
        unit //= sizes[k]
        if cells // unit >= m + 1:
            break
    cuts = np.clip(np.rint(np.asarray(offsets, float) / unit) * unit, 0, cells).astype(I64)
    cuts = np.maximum.accumulate(cuts)
    bounds = np.r_[0, cuts, cells]
    out = []
    for part in range(m + 1):
        for plo, phi in _lex_range(int(bounds[part]), int(bounds[part + 1]), sizes):
            blo, bhi = lo.copy(), lo.copy()
            blo[ax] += plo
            bhi[ax] += phi
            out.append((part, blo, bhi))
    return out


def linear_pieces(lo, hi, wpc, P: int, split):
    """Cut a linear list of boxes (in list order) into P chunks of equal work W / P (AMR paper §4.3, 4.4).

    ``wpc`` = work per cell of each box; ``split[i]``: box i may be cut at the targets k W / P it straddles
    (:func:`cut_box`); otherwise it goes whole to the chunk holding its work midpoint (the block boundary
    nearest the target). Returns (item, lo, hi, chunk) arrays of the pieces, in list order.
    """
    lo, hi = np.asarray(lo, I64), np.asarray(hi, I64)
    n, d = lo.shape if lo.ndim == 2 else (0, 3)
    if n == 0:
        e = np.zeros(0, I64)
        return e, np.zeros((0, d), I64), np.zeros((0, d), I64), e
    cells = row_prod(hi - lo + 1)
    wpc = np.broadcast_to(np.asarray(wpc, float), (n,))
    w = cells * wpc
    end = np.cumsum(w)
    start = end - w
    W = float(end[-1])
    T = W / P if W > 0 else 1.0
    chunk = np.clip(np.floor((start + w / 2) / T), 0, P - 1).astype(I64)
    first = np.floor(start / T).astype(I64)
    kmax = np.minimum(np.ceil(end / T).astype(I64) - 1, P - 1)  # targets k T with start < k T < end
    straddle = np.asarray(split, bool) & (kmax > first) & (W > 0)
    item, plo, phi, pch = [np.arange(n)[~straddle]], [lo[~straddle]], [hi[~straddle]], [chunk[~straddle]]
    for i in np.nonzero(straddle)[0]:
        ks = np.arange(first[i] + 1, kmax[i] + 1)
        parts = cut_box(lo[i], hi[i], (ks * T - start[i]) / wpc[i])
        for part, a, b in parts:
            item.append(np.array([i]))
            plo.append(a[None])
            phi.append(b[None])
            pch.append(np.array([min(int(first[i]) + part, P - 1)]))
    item = np.concatenate(item)
    plo, phi, pch = np.vstack(plo), np.vstack(phi), np.concatenate(pch)
    order = np.argsort(item, kind="stable")
    return item[order].astype(I64), plo[order], phi[order], pch[order].astype(I64)


def bisect_pieces(lo, hi, k):
    """Split box i into k[i] pieces of nearly equal cells (k[i] <= cells) by recursive bisection along the
    longest axis at whole cell planes, part counts proportional to the cells on each side (AMR paper §4.2,
    IGD; the recursion is C, ``_place.bisect``). Returns (item, j, lo, hi): piece j (0..k-1, in bisection
    order) of box ``item``, sorted by (item, j)."""
    lo, hi, k = (np.ascontiguousarray(x, I64) for x in (lo, hi, k))
    item = np.repeat(np.arange(lo.shape[0], dtype=I64), k)
    j = np.arange(item.size, dtype=I64) - np.repeat(np.cumsum(k) - k, k)
    plo, phi = np.empty((item.size, lo.shape[1]), I64), np.empty((item.size, lo.shape[1]), I64)
    _place.bisect(lo, hi, k, lo.shape[1], plo, phi)
    return item, j, plo, phi


def largest_first(k, lo, hi):
    """Reorder each box's pieces (``k[i]`` consecutive rows of ``lo``, ``hi`` in split order j) in place,
    largest first (ties: j), as ``lex_order(item, -cells, j)`` would; returns their cells in that order
    (C, ``_place.largest_first``)."""
    cells = np.empty(lo.shape[0], I64)
    _place.largest_first(np.ascontiguousarray(k, I64), lo.shape[1], lo, hi, cells)
    return cells


def slab_pieces(lo, hi, k):
    """Split box i into k[i] slabs along its longest axis, slab j ending at round(n (j+1) / k) planes
    (IGD with ``igd_split=slabs``). Returns (item, j, lo, hi) sorted by (item, j)."""
    lo, hi, k = np.asarray(lo, I64), np.asarray(hi, I64), np.asarray(k, I64)
    ext = hi - lo + 1
    ax = np.argmax(ext, axis=1)
    n = ext[np.arange(lo.shape[0]), ax]
    item = np.repeat(np.arange(lo.shape[0], dtype=I64), k)
    j = np.arange(item.size, dtype=I64) - np.repeat(np.cumsum(k) - k, k)
    a = (n[item] * j) // k[item]
    b = (n[item] * (j + 1)) // k[item]
    plo, phi = lo[item].copy(), hi[item].copy()
    r = np.arange(item.size)
    plo[r, ax[item]] = lo[item, ax[item]] + a
    phi[r, ax[item]] = lo[item, ax[item]] + b - 1
    return item, j, plo, phi


def coalesce(box, owner, lo, hi):
    """Merge pieces of one box with one owner whose union is a box: greedily along each axis in turn, runs
    of pieces with the same cross-section that abut (SFC, ``coalesce=true``). Returns (box, owner, lo, hi)."""
    box, owner, lo, hi = (np.asarray(x, I64) for x in (box, owner, lo, hi))
    d = lo.shape[1]
    for k in range(d):
        other = [x for x in range(d) if x != k]
        keys = [lo[:, k]] + [hi[:, x] for x in reversed(other)] + [lo[:, x] for x in reversed(other)] + [owner, box]
        o = np.lexsort(keys)
        box, owner, lo, hi = box[o], owner[o], lo[o], hi[o]
        same = (box[1:] == box[:-1]) & (owner[1:] == owner[:-1]) & np.all(lo[1:, other] == lo[:-1, other], axis=1) \
            & np.all(hi[1:, other] == hi[:-1, other], axis=1) & (lo[1:, k] == hi[:-1, k] + 1)
        start = np.nonzero(np.r_[True, ~same])[0]
        nlo = lo[start]
        nhi = hi[start].copy()
        nhi[:, k] = np.maximum.reduceat(hi[:, k], start)
        box, owner, lo, hi = box[start], owner[start], nlo, nhi
    o = np.lexsort(tuple(lo[:, x] for x in reversed(range(d))) + (box,))
    return box[o], owner[o], lo[o], hi[o]
