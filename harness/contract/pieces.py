"""Box pieces: a distribution of an AMR hierarchy in which a box may be split over processors.

The AMR paper's schemes (Shee, Bhavsar & Parashar §4, Figs. 3-6) cut grids
G01, G11, ... among processors, so a boxes-form ``partition`` may return a
:class:`BoxPieces`: sub-boxes of the level's boxes, each with an owner. Pieces
are geometric (corners in their AMR level's own index space), so the pieces of
the previous regrid step can be overlapped with this step's: that is the data
that moves (:func:`moved_cells`). All pair searches are grid joins
(:func:`overlap_join`): IGD at P = 64 has ~1.3 M pieces in one step. The
per-cell passes and the join are C (``harness/kernels/_cells.c``).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..kernels import _cells
from .model import IDX, Boxes, row_prod

RASTER_CELLS_PER_PIECE = 32  # pieces averaging fewer cells (IGD at P >= 16) are evaluated cell by cell


def _ro(a, shape=None) -> np.ndarray:
    a = np.array(a, dtype=IDX, copy=True)
    if shape is not None:
        a = a.reshape(shape)
    a.setflags(write=False)
    return a


def _c(a) -> np.ndarray:
    """An int64, C-contiguous array (what ``harness.kernels._cells`` reads)."""
    return np.ascontiguousarray(a, IDX)


def lex_order(*cols) -> np.ndarray:
    """``np.lexsort(cols[::-1])`` (the first column most significant) for integer columns: one stable argsort
    of the columns' mixed-radix number when it fits in int64 (a fraction of lexsort's time on ~1 M rows)."""
    cols = [np.asarray(c, IDX) for c in cols]
    if not cols[0].size:
        return np.zeros(0, IDX)
    low = [int(c.min()) for c in cols]
    span = [int(c.max()) - lo + 1 for c, lo in zip(cols, low)]
    if int(np.prod([float(x) for x in span])) >= 2 ** 62:
        return np.lexsort(cols[::-1])
    key = np.zeros(cols[0].size, IDX)
    for c, lo, n in zip(cols, low, span):
        key = key * n + (c - lo)
    return np.argsort(key, kind="stable")


def overlap_join(alo, ahi, blo, bhi, size=None):
    """All pairs (i, j) of boxes a[i], b[j] (inclusive integer corners) that overlap, with the overlap
    volume, each pair once, in (i, j) order. Boxes are hashed to the buckets of a grid they touch (bucket
    side per axis ``size``, default the median extent on that axis, doubled while a box touches more than
    2^d buckets on average or the grid has more than 4 buckets per box); a candidate pair found in a bucket
    is kept only in the bucket holding the low corner of its intersection (``harness.kernels._cells.overlaps``).
    Cost follows the number of nearby pairs, never len(a) * len(b)."""
    alo, ahi, blo, bhi = (_c(x) for x in (alo, ahi, blo, bhi))
    e = np.zeros(0, IDX)
    if not len(alo) or not len(blo):
        return e, e, e
    d = alo.shape[1]
    base = np.minimum(alo.min(axis=0), blo.min(axis=0))
    span = np.maximum(ahi.max(axis=0), bhi.max(axis=0)) - base + 1
    if size is None:
        ext = np.vstack([ahi - alo, bhi - blo]) + 1
        size = np.maximum(np.median(ext, axis=0).astype(IDX), 1)
        big = ext.max(axis=0)
        while np.any(size < big) and row_prod((ext - 1) / size + 1).mean() > 2 ** d:
            size = np.where(size < big, size * 2, size)
    size = np.array(np.broadcast_to(np.asarray(size, IDX), (d,)), IDX)
    while np.prod(((span - 1) // size + 1).astype(float)) > max(4 * (len(alo) + len(blo)), 4096):
        a = int(np.argmax((span - 1) // size))  # a sparse grid: fewer, larger buckets
        size[a] *= 2
    top = _c((span - 1) // size + 1)
    cap = 4 * (len(alo) + len(blo))
    while True:
        I, J, V = (np.empty(cap, IDX) for _ in range(3))
        n = _cells.overlaps(alo, ahi, blo, bhi, d, size, _c(base), top, I, J, V)
        if n >= 0:
            return I[:n], J[:n], V[:n]
        cap = -n


class Raster:
    """The cells of a set of boxes (``lo``, ``hi``) numbered box by box, C order inside a box: cell x of
    box b is ``base[b] + x . stride[b]`` (the numbering the C passes of ``harness.kernels._cells`` read)."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        ext = hi - lo + 1
        cells = row_prod(ext)
        self.N = int(cells.sum())
        st = np.ones_like(ext)
        for a in range(ext.shape[1] - 2, -1, -1):
            st[:, a] = st[:, a + 1] * ext[:, a + 1]
        self.stride = _c(st)
        self.base = _c(np.cumsum(cells) - cells - np.einsum("ij,ij->i", lo, st))


class CellMap(NamedTuple):
    """The boxes some pieces tile (``ids`` and their corners and levels), their cells numbered box by box
    (``raster``), the piece holding each cell (``pid``, int32) and each piece's owner (``owner``)."""

    ids: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    level: np.ndarray
    raster: Raster
    pid: np.ndarray
    owner: np.ndarray


def _paint(lo, hi, level, ids, pc: "BoxPieces", box_index: np.ndarray) -> CellMap:
    """The :class:`CellMap` of ``pc`` over the boxes lo..hi and the number of cells two pieces cover (a
    cell no piece covers holds -1)."""
    R = Raster(lo, hi)
    pid = np.full(R.N, -1, np.int32)
    twice = _cells.paint(_c(pc.lo), _c(pc.hi), _c(box_index), pc.lo.shape[1], R.base, R.stride, pid)
    return CellMap(ids, lo, hi, level, R, pid, _c(pc.owner)), twice


@dataclass(frozen=True, eq=False)
class BoxPieces:
    """Piece i is the sub-box ``lo[i]..hi[i]`` (inclusive, in the index space of level ``level[i]``) of box
    ``box[i]`` of the step's :class:`Boxes`, computed and stored on processor ``owner[i]``."""

    box: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    owner: np.ndarray
    level: np.ndarray

    def __post_init__(self):
        box = _ro(self.box).reshape(-1)
        n = box.size
        lo, hi = np.asarray(self.lo), np.asarray(self.hi)
        d = lo.shape[1] if lo.ndim == 2 else (lo.size // n if n else 3)
        lo, hi = _ro(lo, (n, d)), _ro(hi, (n, d))
        owner, level = _ro(self.owner).reshape(-1), _ro(self.level).reshape(-1)
        if owner.size != n or level.size != n:
            raise ValueError(f"pieces: box, owner and level must have one entry per piece ({n})")
        if n and np.any(hi < lo):
            raise ValueError(f"pieces: piece {int(np.argmax(np.any(hi < lo, axis=1)))} has hi < lo")
        for k, v in dict(box=box, lo=lo, hi=hi, owner=owner, level=level).items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_memo", {})  # derived data of these (immutable) pieces: cell_map, moved_cells

    @property
    def n(self) -> int:
        """Number of pieces."""
        return self.box.size

    @property
    def cells(self) -> np.ndarray:
        """Cells per piece (computed once: the check, the metrics and the accounting read it)."""
        if "ncells" not in self._memo:
            c = row_prod(self.hi - self.lo + 1)
            c.setflags(write=False)
            self._memo["ncells"] = c
        return self._memo["ncells"]

    def work(self, ratio: int = 2) -> np.ndarray:
        """Cells x ratio**level (the time-step factor, as ``Boxes.work``)."""
        return self.cells * ratio ** self.level

    def equals(self, other) -> bool:
        """The same pieces, in the same order, on the same owners."""
        return isinstance(other, BoxPieces) and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in ("box", "owner", "level", "lo", "hi"))

    @classmethod
    def whole(cls, boxes: Boxes, owner) -> "BoxPieces":
        """One piece per box: the box itself, on ``owner[box]``."""
        owner = np.asarray(owner, IDX).reshape(-1)
        if owner.size != boxes.n:
            raise ValueError(f"pieces: {owner.size} owners for {boxes.n} boxes")
        return cls(np.arange(boxes.n, dtype=IDX), boxes.lo, boxes.hi, owner, boxes.level)

    def check(self, boxes: Boxes, P: int) -> None:
        """ValueError (one line) unless the pieces tile every box exactly with owners in [0, P)."""
        b = self.box
        if self.lo.shape[1] != boxes.lo.shape[1]:
            raise ValueError(f"pieces: {self.lo.shape[1]}-D pieces for {boxes.lo.shape[1]}-D boxes")
        if b.size and (b.min() < 0 or b.max() >= boxes.n):
            raise ValueError(f"pieces: box number out of range 0..{boxes.n - 1}")
        if self.owner.size and (self.owner.min() < 0 or self.owner.max() >= P):
            raise ValueError(f"pieces: owner out of range for P = {P}")
        if not np.array_equal(self.level, boxes.level[b]):
            raise ValueError(f"pieces: piece {int(np.argmax(self.level != boxes.level[b]))} has a level "
                             f"other than its box's")
        if (self.lo < boxes.lo[b]).any() or (self.hi > boxes.hi[b]).any():  # (the row reduction only then)
            out = np.any((self.lo < boxes.lo[b]) | (self.hi > boxes.hi[b]), axis=1)
            raise ValueError(f"pieces: piece {int(np.argmax(out))} is not inside box {int(b[np.argmax(out)])}")
        got = np.bincount(b, self.cells, minlength=boxes.n).astype(IDX)
        bad = got != boxes.cells
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"pieces: box {k} has {int(boxes.cells[k])} cells, its pieces {int(got[k])}")
        # inside their box with the right cell total: they tile it iff no two pieces of one box overlap
        if int(self.cells.sum()) < RASTER_CELLS_PER_PIECE * self.n:  # many small pieces: paint every cell
            cm, twice = _paint(boxes.lo, boxes.hi, boxes.level, np.arange(boxes.n, dtype=IDX), self, b)
            if twice:  # a cell painted twice leaves another one unpainted
                hole = int(np.argmax(cm.pid < 0))
                box = int(np.searchsorted(np.cumsum(boxes.cells), hole, "right"))
                raise ValueError(f"pieces: two pieces of box {box} overlap")
            self._memo["cells"] = cm
            return
        i, j, _ = self._same_box_overlaps()
        if i.size:
            raise ValueError(f"pieces: pieces {int(i[0])} and {int(j[0])} of box {int(b[i[0]])} overlap")

    def cell_map(self) -> CellMap:
        """The boxes these pieces tile (the hull of each box's pieces), numbered cell by cell, and the piece
        holding each cell; computed once (by :meth:`check` for many small pieces)."""
        if "cells" not in self._memo:
            ids, lo, hi, level = _hull(self)
            self._memo["cells"] = _paint(lo, hi, level, ids, self, np.searchsorted(ids, self.box))[0]
        return self._memo["cells"]

    def _same_box_overlaps(self):
        """Pairs (i < j) of overlapping pieces of one box (boxes split in one piece are skipped)."""
        cnt = np.bincount(self.box)
        multi = np.nonzero(cnt[self.box] > 1)[0]
        if not multi.size:
            return multi, multi, multi
        I, J, V = [], [], []
        for lev in np.unique(self.level[multi]):
            m = multi[self.level[multi] == lev]
            i, j, v = overlap_join(self.lo[m], self.hi[m], self.lo[m], self.hi[m])
            keep = (i < j) & (self.box[m[i]] == self.box[m[j]])
            I.append(m[i[keep]])
            J.append(m[j[keep]])
            V.append(v[keep])
        return np.concatenate(I), np.concatenate(J), np.concatenate(V)

    def box_owner(self, nboxes: int) -> np.ndarray:
        """Per box: the owner of its piece with most cells (ties: the lowest processor id); -1 if none."""
        out = np.full(nboxes, -1, IDX)
        if self.n:
            order = lex_order(self.box, -self.cells, self.owner)
            b = self.box[order]
            first = np.r_[True, b[1:] != b[:-1]]
            out[b[first]] = self.owner[order][first]
        return out


def _hull(pc: BoxPieces):
    """The boxes the pieces tile (each box id's bounding box), as (box ids, lo, hi, level)."""
    o = np.argsort(pc.box, kind="stable")
    b = pc.box[o]
    start = np.nonzero(np.r_[True, b[1:] != b[:-1]])[0]
    return (b[start], np.minimum.reduceat(pc.lo[o], start, axis=0), np.maximum.reduceat(pc.hi[o], start, axis=0),
            pc.level[o][start])


def moved_cells(before: BoxPieces, after: BoxPieces, raster: bool | None = None):
    """(src, dst, cells) per processor pair src != dst: the cells held on ``src`` before and on ``dst``
    after, i.e. the overlap of a previous piece and a current piece of the same AMR level with different
    owners (AMR paper §3 "data movement"; cells created by refinement or deleted are not counted).
    Pairs are sorted by (src, dst). Pair search among pieces, or (``raster``; None: when pieces average
    fewer than ``RASTER_CELLS_PER_PIECE`` cells) per-cell passes over the overlaps of the boxes the pieces
    tile. Remembered on ``after`` (the runner's accounting and the AMR metrics ask for the same step)."""
    e = np.zeros(0, IDX)
    if before is None or not before.n or not after.n:
        return e, e, e
    key = ("moved", raster)
    ref, moved = after._memo.get(key, (None, None))
    if ref is None or ref() is not before:  # a weak reference: no chain of previous steps kept alive
        moved = _moved_cells(before, after, raster)
        after._memo[key] = weakref.ref(before), moved
    return moved


def _moved_cells(before: BoxPieces, after: BoxPieces, raster: bool | None):
    e = np.zeros(0, IDX)
    if raster is None:
        raster = (before.n + after.n) * RASTER_CELLS_PER_PIECE > int(before.cells.sum() + after.cells.sum())
    Q = int(max(before.owner.max(), after.owner.max())) + 1
    if raster:  # every common cell's (owner before, owner after), counted in C
        emit = Q * Q > 1 << 22  # many processor pairs: the changed cells' keys s * Q + d, counted below
        tally, keys = (None if emit else np.zeros(Q * Q, IDX)), []
        mb, ma = before.cell_map(), after.cell_map()
        for lev in np.intersect1d(mb.level, ma.level):
            a = np.nonzero(mb.level == lev)[0]
            b = np.nonzero(ma.level == lev)[0]
            i, j, v = overlap_join(mb.lo[a], mb.hi[a], ma.lo[b], ma.hi[b])
            lo, hi = np.maximum(mb.lo[a[i]], ma.lo[b[j]]), np.minimum(mb.hi[a[i]], ma.hi[b[j]])
            out = np.zeros(int(v.sum()), IDX) if emit else tally
            n = _cells.moved(_c(lo), _c(hi), _c(a[i]), _c(b[j]), lo.shape[1], mb.raster.base, mb.raster.stride,
                             mb.pid, mb.owner, ma.raster.base, ma.raster.stride, ma.pid, ma.owner, Q, out, emit)
            keys.append(out[:n])
        if emit:
            u, cells = np.unique(np.concatenate(keys) if keys else e, return_counts=True)
        else:
            tally[np.arange(Q) * (Q + 1)] = 0  # cells that stayed on their processor
            u = np.nonzero(tally)[0]
            cells = tally[u]
        return (u // Q).astype(IDX), (u % Q).astype(IDX), cells.astype(IDX)
    S, D, C = [], [], []  # pair search among pieces: the overlap of two pieces with different owners
    for lev in np.intersect1d(np.unique(before.level), np.unique(after.level)):
        a = np.nonzero(before.level == lev)[0]
        b = np.nonzero(after.level == lev)[0]
        i, j, v = overlap_join(before.lo[a], before.hi[a], after.lo[b], after.hi[b])
        s, d = before.owner[a[i]], after.owner[b[j]]
        ch = s != d
        S.append(s[ch])
        D.append(d[ch])
        C.append(v[ch])
    if not S:
        return e, e, e
    s, d, c = np.concatenate(S), np.concatenate(D), np.concatenate(C)
    if not s.size:
        return e, e, e
    P = int(max(s.max(), d.max())) + 1
    key = s.astype(IDX) * P + d
    if P * P <= 1 << 22:  # few processor pairs: count them directly instead of sorting every cell's pair
        cells = np.bincount(key, c, minlength=P * P)
        u = np.nonzero(cells)[0]
        cells = cells[u]
    else:
        u, inv = np.unique(key, return_inverse=True)
        cells = np.bincount(inv, c)
    return (u // P).astype(IDX), (u % P).astype(IDX), cells.astype(IDX)


def face_pairs(lo: np.ndarray, hi: np.ndarray, with_axis: bool = False):
    """Pairs (i, j) of disjoint boxes on one level where i's high face touches j's low face, with the cell
    faces they share (each pair once; ``with_axis``: also the axis). Face slabs one cell thick are overlapped
    with a bucketed grid join per axis."""
    I, J, F, K = [], [], [], []
    for k in range(lo.shape[1]):
        alo, ahi = lo.copy(), hi.copy()
        alo[:, k] = ahi[:, k] = hi[:, k] + 1  # the layer just past i's high face
        blo, bhi = lo.copy(), hi.copy()
        bhi[:, k] = lo[:, k]  # j's low layer
        i, j, f = overlap_join(alo, ahi, blo, bhi)
        I.append(i)
        J.append(j)
        F.append(f)
        K.append(np.full(i.size, k, IDX))
    out = np.concatenate(I), np.concatenate(J), np.concatenate(F)
    return out + (np.concatenate(K),) if with_axis else out
